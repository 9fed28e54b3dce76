// SPDX-License-Identifier: GPL-3.0-or-later
//! One notice of the banner: its severity's icon, its line, "Details" to open what lies
//! behind it (`details`), and the button for its fix.

use pacer_core::findings::Severity;
use pacer_core::i18n::{fill, gettext};
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender};
use relm4::gtk;

use gtk::prelude::*;

use super::notices::{Notice, NoticeAction};
use super::{details, NoticeRow};
use crate::widgets::a11y::labelled;
use crate::widgets::icons;
use crate::words::banner::details_label;

#[relm4::factory(pub)]
impl FactoryComponent for NoticeRow {
    type Init = (Notice, bool);
    type Input = ();
    type Output = NoticeAction;
    type CommandOutput = ();
    type ParentWidget = gtk::Box;

    view! {
        #[root]
        gtk::Box {
            set_orientation: gtk::Orientation::Vertical,
            set_spacing: 6,
            add_css_class: "pacer-banner",
            add_css_class: match self.notice.severity {
                Severity::Warning => "warning",
                Severity::Info => "info",
            },

            gtk::Box {
                set_spacing: 12,

                #[local_ref]
                severity_icon -> gtk::Image {
                    set_valign: gtk::Align::Center,
                },
                gtk::Label {
                    set_label: &self.notice.title,
                    set_wrap: true,
                    set_xalign: 0.0,
                    set_hexpand: true,
                    add_css_class: "heading",
                },
                #[local_ref]
                buttons -> gtk::Box {
                    set_spacing: 6,
                    set_valign: gtk::Align::Center,
                },
            },
        }
    }

    fn init_model(
        (notice, first): (Notice, bool),
        _index: &DynamicIndex,
        _sender: FactorySender<Self>,
    ) -> Self {
        NoticeRow { notice, first }
    }

    fn init_widgets(
        &mut self,
        _index: &DynamicIndex,
        _root: Self::Root,
        _returned_widget: &gtk::Widget,
        sender: FactorySender<Self>,
    ) -> Self::Widgets {
        // Its severity in words for a screen reader, as its icon says it on screen.
        let (icon_name, severity) = match self.notice.severity {
            Severity::Warning => (icons::WARNING, gettext("Warning")),
            Severity::Info => (icons::INFORMATION, gettext("Information")),
        };
        let severity_icon: &gtk::Image = &labelled(&severity);
        severity_icon.set_icon_name(Some(icon_name));
        let buttons = &gtk::Box::default();
        let widgets = view_output!();
        buttons.append(&self.details_button(&sender));
        if let Some((label, action)) = &self.notice.action {
            let button = mnemonic_button(
                label,
                &fill(
                    gettext("{action}: {title}"),
                    // Spoken without the mnemonic's underscore.
                    &[
                        ("action", &label.replace('_', "")),
                        ("title", &self.notice.title),
                    ],
                ),
            );
            button.add_css_class("suggested-action");
            let (action, output) = (action.clone(), sender.output_sender().clone());
            button.connect_clicked(move |_| output.emit(action.clone()));
            buttons.append(&button);
        }
        widgets
    }
}

impl NoticeRow {
    /// "Details", which opens them.
    fn details_button(&self, sender: &FactorySender<Self>) -> gtk::Button {
        let button = mnemonic_button(
            &details_label(self.first),
            &fill(
                gettext("Details: {title}"),
                &[("title", &self.notice.title)],
            ),
        );
        let (notice, output) = (self.notice.clone(), sender.output_sender().clone());
        button.connect_clicked(move |button| details::show(button, &notice, &output));
        button
    }
}

/// A button showing `text` with its mnemonic ("_Fix": Alt+F), whose accessible name is
/// `name`. The mnemonic sits on a label of its own: GTK 4.8 speaks a button's own label with
/// its underscore ("_Fix Fix").
fn mnemonic_button(text: &str, name: &str) -> gtk::Button {
    let button: gtk::Button = labelled(name);
    let label = gtk::Label::with_mnemonic(text);
    label.set_mnemonic_widget(Some(&button));
    button.set_child(Some(&label));
    button
}
