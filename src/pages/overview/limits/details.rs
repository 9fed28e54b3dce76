// SPDX-License-Identifier: GPL-3.0-or-later
//! A core type's chain in a dialog over the window, as the banner's details are shown: the
//! verdict as its heading, each link in words a line each (the one that holds the cores in
//! bold), then the readings behind them by the kernel's names under "Kernel values", to
//! copy into a bug report.

use pacer_core::i18n::gettext;
use pacer_core::limits::CoreLimits;
use relm4::gtk;
use relm4::gtk::glib;

use gtk::prelude::*;

use crate::widgets::alert::{self, Answer};
use crate::words::limits::{chain, limiter_line, LinkWords};

/// Shows the chain of `limits` over the window of `parent`.
pub(super) fn show(parent: &impl IsA<gtk::Widget>, limits: &CoreLimits) {
    let links = chain(limits);
    // For people and tests reading the log: what the details say.
    let said: Vec<String> = links
        .iter()
        .map(|link| {
            let mark = if link.holds { " (holds)" } else { "" };
            format!("{}{mark}: {}", link.name, link.value)
        })
        .collect();
    let heading = limiter_line(limits);
    glib::g_info!("pacer", "limits details of {heading}: {}", said.join(" | "));
    let close = Answer {
        id: alert::CLOSE,
        label: gettext("Close"),
        suggested: false,
    };
    let contents = contents(&links);
    alert::ask(
        parent,
        &heading,
        "",
        Some(contents.upcast_ref()),
        &[close],
        |_| {},
    );
}

/// Each link's name and value, a row each, then the kernel's readings under their heading.
fn contents(links: &[LinkWords]) -> gtk::Box {
    let page = gtk::Box::new(gtk::Orientation::Vertical, 18);
    // A box of rows rather than a grid: a grid asks for the height its wrapped values take
    // at their narrowest, and the dialog grows to it. The names line up in a size group.
    let list = gtk::Box::new(gtk::Orientation::Vertical, 6);
    let names = gtk::SizeGroup::new(gtk::SizeGroupMode::Horizontal);
    for link in links {
        let name = label(&link.name);
        // A word: as wide as it is, so the values have the rest.
        name.set_wrap(false);
        name.add_css_class("dim-label");
        names.add_widget(&name);
        let value = label(&link.value);
        value.set_hexpand(true);
        if link.holds {
            name.remove_css_class("dim-label");
            name.add_css_class("heading");
            value.add_css_class("heading");
        }
        let row = gtk::Box::new(gtk::Orientation::Horizontal, 12);
        row.append(&name);
        row.append(&value);
        list.append(&row);
    }
    page.append(&list);

    let kernel: Vec<String> = links
        .iter()
        .filter(|link| !link.kernel.is_empty())
        .map(|link| format!("{}: {}", link.name, link.kernel))
        .collect();
    if !kernel.is_empty() {
        let block = gtk::Box::new(gtk::Orientation::Vertical, 6);
        let heading = label(&gettext("Kernel values"));
        heading.add_css_class("heading");
        let values = label(&kernel.join("\n"));
        // The kernel's names have no spaces to break at.
        values.set_wrap_mode(gtk::pango::WrapMode::WordChar);
        values.add_css_class("monospace");
        values.add_css_class("caption");
        // To copy into a bug report.
        values.set_selectable(true);
        block.append(&heading);
        block.append(&values);
        page.append(&block);
    }
    page
}

fn label(text: &str) -> gtk::Label {
    gtk::Label::builder()
        .label(text)
        .wrap(true)
        .xalign(0.0)
        .yalign(0.0)
        .build()
}
