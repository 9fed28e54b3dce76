// SPDX-License-Identifier: GPL-3.0-or-later
//! One row of the History page: what changed, from what to what, who made it and when,
//! with an icon per kind of source; and the heading above the first row of each minute.

use pacer_core::history::{Event, Setting, Source};
use pacer_core::i18n::gettext;
use pacer_core::who::{by_whom, what_changed};
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender};
use relm4::gtk::glib;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::widgets::a11y::labelled;
use crate::widgets::icons;
use crate::words::time::local_time;

/// One change (or one request's changes, grouped) in the list.
#[derive(Debug)]
pub struct ChangeRow {
    event: Event,
}

#[relm4::factory(pub)]
impl FactoryComponent for ChangeRow {
    type Init = Event;
    type Input = ();
    type Output = ();
    type CommandOutput = ();
    type ParentWidget = gtk::ListBox;

    view! {
        #[root]
        adw::ActionRow {
            set_title: glib::markup_escape_text(&capitalised(&what_changed(&self.event))).as_str(),
            set_subtitle: glib::markup_escape_text(&subtitle(&self.event)).as_str(),
            // The heading a row goes under: its minute.
            set_widget_name: minute(&self.event).as_str(),
            add_prefix = &source_icon(&self.event),
        }
    }

    fn init_model(event: Event, _index: &DynamicIndex, _sender: FactorySender<Self>) -> Self {
        ChangeRow { event }
    }
}

/// When, and who where the recording knows: "14:02:11 · by tlp (pid 812)".
fn subtitle(event: &Event) -> String {
    let time = local_time(event);
    let who = by_whom(event);
    if who.is_empty() {
        time
    } else {
        format!("{time} · {who}")
    }
}

/// The minute of `event`: "14:02".
fn minute(event: &Event) -> String {
    let time = local_time(event);
    time.chars().take(5).collect()
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

/// A heading above the first row of each minute (the list's header function).
pub fn minute_heading(row: &gtk::ListBoxRow, before: Option<&gtk::ListBoxRow>) {
    let minute = row.widget_name();
    if before.is_some_and(|before| before.widget_name() == minute) {
        row.set_header(None::<&gtk::Widget>);
        return;
    }
    let heading = gtk::Label::builder()
        .label(minute.as_str())
        .xalign(0.0)
        .margin_start(12)
        .margin_top(6)
        .margin_bottom(6)
        .css_classes(["heading", "dim-label"])
        .build();
    row.set_header(Some(&heading));
}

/// `text` with its first letter in capitals.
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
