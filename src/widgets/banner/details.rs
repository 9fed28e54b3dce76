// SPDX-License-Identifier: GPL-3.0-or-later
//! A notice's details, in a dialog over the window: what the banner's one line leaves out
//! (the kernel's summary, the explanation, the recorded cause, the fix in words), then the
//! shell command that does it by hand, to copy, under "In a terminal". The notice's action
//! (its fix) is the dialog's suggested answer.

use pacer_core::i18n::gettext;
use relm4::gtk;
use relm4::gtk::glib;

use gtk::prelude::*;

use super::notices::{Notice, NoticeAction};
use crate::widgets::alert::{self, Answer};
use crate::words::banner::{command_heading, Details};

/// The id of the answer that carries out the notice's action.
const ACT: &str = "act";

/// Shows `notice`'s details over the window of `parent`; its action, chosen there, goes to
/// `output`.
pub(super) fn show(
    parent: &impl IsA<gtk::Widget>,
    notice: &Notice,
    output: &relm4::Sender<NoticeAction>,
) {
    // For people and tests reading the log: which details are open.
    glib::g_info!("pacer", "banner details of {}", notice.key);
    let mut answers = vec![Answer {
        id: alert::CLOSE,
        label: gettext("Close"),
        suggested: false,
    }];
    if let Some((label, _)) = &notice.action {
        answers.push(Answer {
            id: ACT,
            label: label.clone(),
            suggested: true,
        });
    }
    let (action, output) = (notice.action.clone(), output.clone());
    let contents = contents(&notice.details);
    alert::ask(
        parent,
        &notice.title,
        "",
        Some(contents.upcast_ref()),
        &answers,
        move |answer| {
            if let Some((_, action)) = action.as_ref().filter(|_| answer == ACT) {
                output.emit(action.clone());
            }
        },
    );
}

/// The details, a paragraph each, the command last under its heading.
fn contents(details: &Details) -> gtk::Box {
    let page = gtk::Box::new(gtk::Orientation::Vertical, 12);
    let explanation = Some(details.explanation.as_str()).filter(|text| !text.is_empty());
    let paragraphs = [
        details.summary.as_deref(),
        explanation,
        details.why.as_deref(),
        details.fix.as_deref(),
    ];
    for text in paragraphs.into_iter().flatten() {
        page.append(&paragraph(text));
    }
    if let Some(command) = &details.command {
        let heading = paragraph(&command_heading());
        heading.add_css_class("heading");
        let command = paragraph(command);
        command.add_css_class("monospace");
        // To copy into a terminal.
        command.set_selectable(true);
        let block = gtk::Box::new(gtk::Orientation::Vertical, 6);
        block.append(&heading);
        block.append(&command);
        page.append(&block);
    }
    page
}

fn paragraph(text: &str) -> gtk::Label {
    gtk::Label::builder()
        .label(text)
        .wrap(true)
        // A command or a path has no spaces to break at.
        .wrap_mode(gtk::pango::WrapMode::WordChar)
        .xalign(0.0)
        .build()
}
