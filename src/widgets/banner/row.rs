// SPDX-License-Identifier: GPL-3.0-or-later
//! One notice of the banner: its severity's icon, its line, "Why?" to reveal its
//! explanation, and the button for its fix.

use pacer_core::findings::Severity;
use pacer_core::i18n::{fill, gettext};
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender};
use relm4::gtk;

use gtk::prelude::*;

use super::notices::{Notice, NoticeAction};
use super::NoticeRow;
use crate::widgets::a11y::labelled;
use crate::widgets::icons;

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
        root: Self::Root,
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
        if let Some(detail) = &self.notice.detail {
            let (toggle, revealer) = self.explanation(detail);
            buttons.append(&toggle);
            root.append(&revealer);
        }
        if let Some((label, action)) = &self.notice.action {
            let button: gtk::Button = labelled(&fill(
                gettext("{action}: {title}"),
                &[("action", label), ("title", &self.notice.title)],
            ));
            button.set_label(label);
            button.set_use_underline(true);
            button.add_css_class("suggested-action");
            let (action, output) = (action.clone(), sender.output_sender().clone());
            button.connect_clicked(move |_| output.emit(action.clone()));
            buttons.append(&button);
        }
        widgets
    }
}

impl NoticeRow {
    /// "Why?", and the explanation it reveals.
    fn explanation(&self, detail: &str) -> (gtk::ToggleButton, gtk::Revealer) {
        let label = gtk::Label::builder()
            .label(detail)
            .wrap(true)
            .xalign(0.0)
            .selectable(true)
            .build();
        let revealer = gtk::Revealer::builder().child(&label).build();
        let toggle: gtk::ToggleButton = labelled(&fill(
            gettext("Explain: {title}"),
            &[("title", &self.notice.title)],
        ));
        if self.first {
            toggle.set_label(&gettext("_Why?"));
            toggle.set_use_underline(true);
        } else {
            toggle.set_label(&gettext("Why?"));
        }
        toggle.set_tooltip_text(Some(&gettext("Explain this")));
        toggle
            .bind_property("active", &revealer, "reveal-child")
            .sync_create()
            .build();
        (toggle, revealer)
    }
}
