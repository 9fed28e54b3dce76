// SPDX-License-Identifier: GPL-3.0-or-later
//! The power profile's choice on libadwaita 1.2: a linked row of toggle buttons, one per
//! offered profile, in one group (choosing one lets go of the others). The gnome_48 build
//! offers an AdwToggleGroup instead (`toggle_group`).

use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender, FactoryVecDeque};
use relm4::gtk;

use gtk::prelude::*;

use crate::words::profile::profile_label;

/// A button per offered profile, the active one's pressed.
#[derive(Debug)]
pub struct ProfileChoice {
    buttons: FactoryVecDeque<ProfileButton>,
    /// Whose buttons there are, in their order.
    offered: Vec<String>,
}

impl ProfileChoice {
    /// A choice that sends `chosen(profile)` to `input` when the user picks a profile.
    pub fn new<M: Send + 'static>(
        input: &relm4::Sender<M>,
        chosen: impl Fn(String) -> M + Send + 'static,
    ) -> ProfileChoice {
        let row = gtk::Box::new(gtk::Orientation::Horizontal, 0);
        row.add_css_class("linked");
        row.set_homogeneous(true);
        ProfileChoice {
            buttons: FactoryVecDeque::builder()
                .launch(row)
                .forward(input, chosen),
            offered: Vec::new(),
        }
    }

    pub fn widget(&self) -> &gtk::Widget {
        self.buttons.widget().upcast_ref()
    }

    /// Shows `choices`: each offered profile, and whether it is the active one.
    pub fn show(&mut self, choices: &[(String, bool)]) {
        if self.offered.iter().eq(choices.iter().map(|c| &c.0)) {
            for (index, (_, active)) in choices.iter().enumerate() {
                self.buttons.send(index, ProfileButtonMsg::Active(*active));
            }
            return;
        }
        let mut buttons = self.buttons.guard();
        buttons.clear();
        for choice in choices {
            buttons.push_back(choice.clone());
        }
        self.offered = choices.iter().map(|c| c.0.clone()).collect();
    }
}

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
