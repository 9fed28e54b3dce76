// SPDX-License-Identifier: GPL-3.0-or-later
//! One row of the History page: what changed and who made it, in words made by
//! `words::history`, with an icon per kind of source; and the heading above the first row of
//! each moment.

use pacer_core::history::{Event, Setting, Source};
use pacer_core::i18n::gettext;
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender};
use relm4::gtk::glib;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::widgets::a11y::labelled;
use crate::widgets::icons;
use crate::words::history::RowWords;

/// One change (or one request's changes, or a run of rewrites, each as one) in the list.
#[derive(Debug)]
pub struct ChangeRow {
    event: Event,
    words: RowWords,
}

#[relm4::factory(pub)]
impl FactoryComponent for ChangeRow {
    type Init = (Event, RowWords);
    type Input = ();
    type Output = ();
    type CommandOutput = ();
    type ParentWidget = gtk::ListBox;

    view! {
        #[root]
        adw::ActionRow {
            set_title: glib::markup_escape_text(&self.words.title).as_str(),
            set_subtitle: glib::markup_escape_text(&self.words.subtitle).as_str(),
            set_tooltip_text: Some(self.words.tooltip.as_str()).filter(|tip| !tip.is_empty()),
            // The heading a row goes under: its moment.
            set_widget_name: self.words.heading.as_str(),
            add_prefix = &source_icon(&self.event),
        }
    }

    fn init_model(
        (event, words): (Event, RowWords),
        _index: &DynamicIndex,
        _sender: FactorySender<Self>,
    ) -> Self {
        ChangeRow { event, words }
    }
}

/// The icon of a change's source, named for a screen reader and in its tooltip.
fn source_icon(event: &Event) -> gtk::Image {
    let (icon, kind) = if event.setting == Setting::Recording {
        (icons::RECORDING, gettext("Recording"))
    } else {
        match event.source {
            Source::Process => (icons::PROCESS, gettext("A program or service")),
            Source::Kernel => (icons::KERNEL, gettext("The kernel")),
            Source::Daemon => (icons::DAEMON, gettext("The profile daemon")),
            Source::Pacer => (icons::PACER, gettext("Pacer")),
            Source::Unknown => (icons::UNKNOWN, gettext("Not seen as a write")),
        }
    };
    let image: gtk::Image = labelled(&kind);
    image.set_icon_name(Some(icon));
    image.set_tooltip_text(Some(&kind));
    image
}

/// A heading above the first row of each moment (the list's header function).
pub fn moment_heading(row: &gtk::ListBoxRow, before: Option<&gtk::ListBoxRow>) {
    let moment = row.widget_name();
    if before.is_some_and(|before| before.widget_name() == moment) {
        row.set_header(None::<&gtk::Widget>);
        return;
    }
    let heading = gtk::Label::builder()
        .label(moment.as_str())
        .xalign(0.0)
        .margin_start(12)
        .margin_top(6)
        .margin_bottom(6)
        .css_classes(["heading", "dim-label"])
        .build();
    row.set_header(Some(&heading));
}
