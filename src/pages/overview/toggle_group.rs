// SPDX-License-Identifier: GPL-3.0-or-later
//! The power profile's choice in the gnome_48 build: an AdwToggleGroup (libadwaita 1.7 on),
//! as GNOME's own settings offer a choice of a few, one toggle per offered profile.
//! libadwaita 1.2 has none: there it is a row of toggle buttons (`toggle_buttons`).

use relm4::gtk::glib;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::words::profile::profile_label;

/// The offered profiles as the toggles of one group, the active one's on.
#[derive(Debug)]
pub struct ProfileChoice {
    group: adw::ToggleGroup,
    /// Tells the user's choice: blocked while a reading shows the daemon's.
    chosen: glib::SignalHandlerId,
    /// Whose toggles the group has, in their order.
    offered: Vec<String>,
}

impl ProfileChoice {
    /// A choice that sends `chosen(profile)` to `input` when the user picks a profile.
    pub fn new<M: Send + 'static>(
        input: &relm4::Sender<M>,
        chosen: impl Fn(String) -> M + Send + 'static,
    ) -> ProfileChoice {
        // Toggles of one width; their labels give way on narrow screens (`can-shrink`).
        let group = adw::ToggleGroup::builder().homogeneous(true).build();
        let input = input.clone();
        let handler = group.connect_active_name_notify(move |group| {
            if let Some(name) = group.active_name() {
                input.emit(chosen(name.into()));
            }
        });
        ProfileChoice {
            group,
            chosen: handler,
            offered: Vec::new(),
        }
    }

    pub fn widget(&self) -> &gtk::Widget {
        self.group.upcast_ref()
    }

    /// Shows `choices`: each offered profile, and whether it is the active one.
    pub fn show(&mut self, choices: &[(String, bool)]) {
        self.group.block_signal(&self.chosen);
        if !self.offered.iter().eq(choices.iter().map(|c| &c.0)) {
            self.group.remove_all();
            for (name, _) in choices {
                let toggle = adw::Toggle::builder()
                    .name(name.as_str())
                    .label(profile_label(name))
                    .build();
                self.group.add(toggle);
            }
            self.offered = choices.iter().map(|c| c.0.clone()).collect();
        }
        let active = choices.iter().find(|(_, active)| *active);
        self.group
            .set_active_name(active.map(|(name, _)| name.as_str()));
        self.group.unblock_signal(&self.chosen);
    }
}
