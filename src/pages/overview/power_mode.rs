// SPDX-License-Identifier: GPL-3.0-or-later
//! The Power Mode section's rows, shaped like GNOME Settings' Power page: a row per profile,
//! a radio check before its name and a line on what it does, greyed while no daemon offers
//! them; below, a line per hold on the profile and per degradation. Rows and check buttons
//! are what libadwaita 1.2 has, so the GNOME 43 and the newer builds show the same.

use std::rc::Rc;

use relm4::gtk::glib;
use relm4::{adw, gtk};

use adw::prelude::*;
use pacer_core::i18n::gettext;

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

/// A boxed list called `name` of rows that are not selected, only activated.
fn boxed_list(name: &str) -> gtk::ListBox {
    let list: gtk::ListBox = labelled(name);
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
        let profiles = boxed_list(&gettext("Power Mode"));
        let notes = boxed_list(&gettext("Power Mode notes"));
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
            // A screen reader says "radio button", and the row's title names it (the row
            // labels its activatable widget).
            let check: gtk::CheckButton = glib::Object::builder()
                .property("accessible-role", gtk::AccessibleRole::Radio)
                .property("valign", gtk::Align::Center)
                .build();
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::testing::on_gtk_thread;
    use crate::words::profile::USUAL_PROFILES;

    /// The usual profiles, `active` on, offered by a daemon or not, with `notes`.
    fn view(active: &str, offered: bool, notes: &[&str]) -> ProfileView {
        ProfileView {
            choices: USUAL_PROFILES.map(|p| (p.to_owned(), p == active)).to_vec(),
            offered,
            source: String::new(),
            detail: None,
            notes: notes
                .iter()
                .map(|line| Note {
                    line: (*line).to_owned(),
                    detail: None,
                })
                .collect(),
        }
    }

    #[test]
    #[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
    fn a_check_tells_the_user_s_choice_and_a_reading_moves_it_without_a_word() {
        on_gtk_thread(|| {
            let (sender, receiver) = relm4::channel::<String>();
            let mut mode = PowerMode::new(&sender, |profile| profile);
            mode.show(&view("balanced", true, &[]));
            // A reading moves the checks and tells nobody.
            mode.show(&view(
                "performance",
                true,
                &["org.gnome.Shell holds Power Saver"],
            ));
            let active: Vec<bool> = mode.rows.iter().map(|r| r.check.is_active()).collect();
            assert_eq!(active, [true, false, false]);
            assert!(mode.notes.is_visible() && mode.notes.row_at_index(0).is_some());
            // The user's choice lets go of the others and is told.
            mode.rows[2].check.set_active(true);
            assert!(!mode.rows[0].check.is_active());
            // Without a daemon the rows stay, greyed.
            mode.show(&view("", false, &[]));
            assert_eq!(mode.rows.len(), 3);
            assert!(!mode.profiles.is_sensitive() && !mode.notes.is_visible());
            sender.emit("end".to_owned());
            let told: Vec<String> = std::iter::from_fn(|| receiver.recv_sync())
                .take_while(|said| said != "end")
                .collect();
            assert_eq!(told, ["power-saver"]);
        });
    }
}
