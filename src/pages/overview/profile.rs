// SPDX-License-Identifier: GPL-3.0-or-later
//! The power profile's notes: one row per hold or degradation the daemon reports.

use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender};
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::widgets::icons;

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
