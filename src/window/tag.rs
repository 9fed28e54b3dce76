// SPDX-License-Identifier: GPL-3.0-or-later
//! The header bar's "Simulated" tag: where the machine shown is a model, not this computer's
//! hardware, a small tag at the header's start says so (not the banner, which is for what is
//! wrong); its tooltip names the model, and a click explains.

use pacer_core::i18n::gettext;
use relm4::gtk;
use relm4::gtk::glib;

use gtk::prelude::*;

use crate::widgets::a11y::labelled;
use crate::widgets::alert::{self, Answer};
use crate::words::banner::{
    simulated_explanation, simulated_heading, simulated_tag, simulated_tooltip, Simulated,
};

/// The tag, hidden until the machine is known to be simulated (for the header bar's start).
pub(super) fn new_simulated_tag() -> gtk::Button {
    let label = gtk::Label::new(Some(&simulated_tag()));
    label.add_css_class("caption-heading");
    label.add_css_class("accent");
    // Named for screen readers: GTK 4.8 gives a button with a child of its own no name.
    let tag: gtk::Button = labelled(&simulated_heading());
    tag.set_child(Some(&label));
    tag.set_valign(gtk::Align::Center);
    tag.set_visible(false);
    tag.add_css_class("flat");
    tag.add_css_class("pacer-tag");
    tag.connect_clicked(|tag| {
        let machine = tag.tooltip_text().unwrap_or_default();
        let close = Answer {
            id: alert::CLOSE,
            label: gettext("Close"),
            suggested: false,
        };
        let body = format!("{machine}.\n\n{}", simulated_explanation());
        alert::ask(tag, &simulated_heading(), &body, None, &[close], |_| {});
    });
    tag
}

/// Shows `tag` where the machine is `simulated`, naming it on hover.
pub(super) fn show_simulated(tag: &gtk::Button, simulated: Option<Simulated>) {
    match simulated {
        Some(machine) => {
            let tooltip = simulated_tooltip(machine);
            if !tag.is_visible() {
                // The line the tests and the log's readers know from when a notice of the
                // banner said it.
                glib::g_info!("pacer", "banner shows simulated: {tooltip}");
            }
            tag.set_tooltip_text(Some(&tooltip));
            tag.set_visible(true);
        }
        None if tag.is_visible() => {
            glib::g_info!("pacer", "banner clears simulated");
            tag.set_visible(false);
        }
        None => {}
    }
}
