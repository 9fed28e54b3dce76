// SPDX-License-Identifier: GPL-3.0-or-later
//! The Power Mode section's rows, shaped like GNOME Settings' Power page: a row per profile,
//! a radio check before its name and a line on what it does, greyed while no daemon offers
//! them; below, a line per hold on the profile and per degradation. Rows and check buttons
//! are what libadwaita 1.2 has, so the GNOME 43 and the newer builds show the same.

use std::rc::Rc;

use relm4::gtk::glib;
use relm4::{adw, gtk};

use adw::prelude::*;

use super::view::{Note, ProfileView};
use crate::widgets::a11y::labelled;
use crate::widgets::icons;
use crate::words::profile::{profile_explanation, profile_label};

/// One profile's row: its name, its check button, and the handler that tells the user's
/// choice (blocked while a reading moves the check).
#[derive(Debug)]
struct ProfileRow {
    name: String,
    check: gtk::CheckButton,
    chosen: glib::SignalHandlerId,
}

/// The profiles' rows and the notes' rows, each a boxed list.
pub struct PowerMode {
    root: gtk::Box,
    profiles: gtk::ListBox,
    notes: gtk::ListBox,
    rows: Vec<ProfileRow>,
    /// Tells the page which profile the user chose.
    chosen: Rc<dyn Fn(String)>,
}

impl std::fmt::Debug for PowerMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PowerMode")
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

/// A boxed list of rows that are not selected, only activated.
fn boxed_list() -> gtk::ListBox {
    let list = gtk::ListBox::new();
    list.add_css_class("boxed-list");
    list.set_selection_mode(gtk::SelectionMode::None);
    list
}

impl PowerMode {
    /// Rows that send `chosen(profile)` to `input` when the user picks a profile.
    pub fn new<M: Send + 'static>(
        input: &relm4::Sender<M>,
        chosen: impl Fn(String) -> M + Send + 'static,
    ) -> PowerMode {
        let root = gtk::Box::new(gtk::Orientation::Vertical, 12);
        let profiles = boxed_list();
        let notes = boxed_list();
        notes.set_visible(false);
        root.append(&profiles);
        root.append(&notes);
        let input = input.clone();
        PowerMode {
            root,
            profiles,
            notes,
            rows: Vec::new(),
            chosen: Rc::new(move |profile| input.emit(chosen(profile))),
        }
    }

    pub fn widget(&self) -> &gtk::Box {
        &self.root
    }

    /// Shows `view`: its profiles (made anew when others are offered), the active one
    /// checked, and its notes.
    pub fn show(&mut self, view: &ProfileView) {
        if !self
            .rows
            .iter()
            .map(|r| &r.name)
            .eq(view.choices.iter().map(|c| &c.0))
        {
            self.make_rows(&view.choices);
        }
        for (row, (_, active)) in self.rows.iter().zip(&view.choices) {
            row.check.block_signal(&row.chosen);
            row.check.set_active(*active);
            row.check.unblock_signal(&row.chosen);
        }
        self.profiles.set_sensitive(view.offered);
        while let Some(row) = self.notes.first_child() {
            self.notes.remove(&row);
        }
        for note in &view.notes {
            self.notes.append(&note_row(note));
        }
        self.notes.set_visible(!view.notes.is_empty());
    }

    fn make_rows(&mut self, choices: &[(String, bool)]) {
        while let Some(row) = self.profiles.first_child() {
            self.profiles.remove(&row);
        }
        self.rows.clear();
        for (name, _) in choices {
            let label = profile_label(name);
            let row = adw::ActionRow::builder().title(label.as_str()).build();
            if let Some(explanation) = profile_explanation(name) {
                row.set_subtitle(&explanation);
            }
            let check: gtk::CheckButton = labelled(&label);
            check.set_valign(gtk::Align::Center);
            // One group: checking one lets go of the others, and they read as radio buttons.
            check.set_group(self.rows.first().map(|first| &first.check));
            row.add_prefix(&check);
            row.set_activatable_widget(Some(&check));
            let tell = Rc::clone(&self.chosen);
            let profile = name.clone();
            let chosen = check.connect_toggled(move |check| {
                if check.is_active() {
                    tell(profile.clone());
                }
            });
            self.profiles.append(&row);
            self.rows.push(ProfileRow {
                name: name.clone(),
                check,
                chosen,
            });
        }
    }
}

/// A hold or a degradation in one line, the daemon's words on hover.
fn note_row(note: &Note) -> adw::ActionRow {
    // An application's name is the daemon's, not markup.
    let row = adw::ActionRow::builder()
        .title(note.line.as_str())
        .use_markup(false)
        .title_lines(1)
        .build();
    row.add_prefix(&gtk::Image::from_icon_name(icons::INFORMATION));
    row.set_tooltip_text(note.detail.as_deref());
    row
}
