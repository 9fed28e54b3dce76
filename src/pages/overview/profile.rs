// SPDX-License-Identifier: GPL-3.0-or-later
//! The power profile's rows: a toggle button per offered profile (one group: choosing one
//! lets go of the others), and a note per hold or degradation the daemon reports.

use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender};
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::widgets::icons;
use crate::words::profile::profile_label;

/// One offered profile, pressed while it is the active one.
#[derive(Debug)]
pub struct ProfileButton {
    name: String,
    active: bool,
}

#[derive(Debug)]
pub enum ProfileButtonMsg {
    /// Whether the daemon says this profile is the active one.
    Active(bool),
}

#[relm4::factory(pub)]
impl FactoryComponent for ProfileButton {
    type Init = (String, bool);
    type Input = ProfileButtonMsg;
    /// The profile the user chose.
    type Output = String;
    type CommandOutput = ();
    type ParentWidget = gtk::Box;

    view! {
        #[root]
        gtk::ToggleButton {
            // Labels give way on narrow screens rather than widen the window.
            gtk::Label {
                set_label: &profile_label(&self.name),
                set_ellipsize: gtk::pango::EllipsizeMode::End,
            },
            #[watch]
            #[block_signal(toggled)]
            set_active: self.active,
            connect_toggled[sender, name = self.name.clone()] => move |button| {
                if button.is_active() {
                    let _ = sender.output(name.clone());
                }
            } @toggled,
        }
    }

    fn init_model(
        (name, active): (String, bool),
        _index: &DynamicIndex,
        _sender: FactorySender<Self>,
    ) -> Self {
        ProfileButton { name, active }
    }

    fn init_widgets(
        &mut self,
        _index: &DynamicIndex,
        root: Self::Root,
        _returned_widget: &gtk::Widget,
        sender: FactorySender<Self>,
    ) -> Self::Widgets {
        // The first button of the row leads the group (the factory puts each in the row
        // before making its widgets).
        let leader = root
            .parent()
            .and_then(|row| row.first_child())
            .and_downcast::<gtk::ToggleButton>()
            .filter(|leader| *leader != root);
        root.set_group(leader.as_ref());
        let widgets = view_output!();
        widgets
    }

    fn update(&mut self, message: ProfileButtonMsg, _sender: FactorySender<Self>) {
        let ProfileButtonMsg::Active(active) = message;
        self.active = active;
    }
}

/// A hold on the profile, or the daemon's degradation, in a line.
#[derive(Debug)]
pub struct NoteRow {
    note: String,
}

#[relm4::factory(pub)]
impl FactoryComponent for NoteRow {
    type Init = String;
    type Input = ();
    type Output = ();
    type CommandOutput = ();
    type ParentWidget = gtk::ListBox;

    view! {
        #[root]
        adw::ActionRow {
            set_title: &self.note,
            add_prefix = &gtk::Image::from_icon_name(icons::INFORMATION),
        }
    }

    fn init_model(note: String, _index: &DynamicIndex, _sender: FactorySender<Self>) -> Self {
        NoteRow { note }
    }
}
