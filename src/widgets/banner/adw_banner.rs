// SPDX-License-Identifier: GPL-3.0-or-later
//! One notice of the banner as an AdwBanner (libadwaita 1.3 on: the gnome_48 build): its
//! line, and one button. An AdwBanner has room for one, so "Details" opens them (`details`),
//! in a dialog that offers the fix as its suggested answer.

use pacer_core::findings::Severity;
use pacer_core::i18n::gettext;
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender};
use relm4::{adw, gtk};

use adw::prelude::*;

use super::notices::{Notice, NoticeAction};
use super::{details, NoticeRow};
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
        adw::Banner {
            set_title: &self.notice.title,
            // A notice's line is text, not Pango markup.
            set_use_markup: false,
            set_revealed: true,
            // A warning in the warning colour (resources/style.css); information in the
            // banner's own.
            add_css_class: match self.notice.severity {
                Severity::Warning => "warning",
                Severity::Info => "info",
            },
            set_button_label: Some(&details_label(self.first)),
            connect_button_clicked[output = sender.output_sender().clone(), notice = self.notice.clone()] => move |banner| {
                details::show(banner, &notice, &output);
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
        let widgets = view_output!();
        // Its severity in words for a screen reader, as its colour says it on screen (the
        // banner's name is its line).
        let severity = match self.notice.severity {
            Severity::Warning => gettext("Warning"),
            Severity::Info => gettext("Information"),
        };
        root.upcast_ref::<gtk::Widget>()
            .update_property(&[gtk::accessible::Property::Description(&severity)]);
        widgets
    }
}
