// SPDX-License-Identifier: GPL-3.0-or-later
//! One notice of the banner as an AdwBanner (libadwaita 1.3 on: the gnome_48 build): its
//! line, and one button. An AdwBanner has room for one, so "Why?" opens the explanation in a
//! message that offers the fix as its answer; a notice with a fix and nothing to explain
//! gets the fix itself.

use pacer_core::findings::Severity;
use pacer_core::i18n::gettext;
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender};
use relm4::{adw, gtk};

use adw::prelude::*;

use super::notices::{Notice, NoticeAction};
use super::NoticeRow;
use crate::widgets::alert::{self, Answer};

/// The id of the answer that carries out the notice's action.
const ACT: &str = "act";

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
            // A finding's summary is text, not Pango markup.
            set_use_markup: false,
            set_revealed: true,
            // A warning in the warning colour (resources/style.css); information in the
            // banner's own.
            add_css_class: match self.notice.severity {
                Severity::Warning => "warning",
                Severity::Info => "info",
            },
            set_button_label: self.button_label().as_deref(),
            set_button_style: if self.explains() {
                adw::BannerButtonStyle::Default
            } else {
                adw::BannerButtonStyle::Suggested
            },
            connect_button_clicked[sender, notice = self.notice.clone()] => move |banner| {
                press(banner, &notice, &sender);
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

impl NoticeRow {
    /// Its button opens the explanation (rather than doing the action at once).
    fn explains(&self) -> bool {
        self.notice.detail.is_some()
    }

    /// "Why?" where there is something to explain, else the action's label, else none.
    fn button_label(&self) -> Option<String> {
        match (&self.notice.detail, &self.notice.action) {
            (Some(_), _) if self.first => Some(gettext("_Why?")),
            (Some(_), _) => Some(gettext("Why?")),
            (None, Some((label, _))) => Some(label.clone()),
            (None, None) => None,
        }
    }
}

/// The banner's button pressed: the explanation, with the action as its suggested answer;
/// or the action itself where there is nothing to explain.
fn press(banner: &adw::Banner, notice: &Notice, sender: &FactorySender<NoticeRow>) {
    let Some(detail) = &notice.detail else {
        if let Some((_, action)) = &notice.action {
            sender.output_sender().emit(action.clone());
        }
        return;
    };
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
    let (action, output) = (notice.action.clone(), sender.output_sender().clone());
    alert::ask(banner, &notice.title, detail, &answers, move |answer| {
        if let Some((_, action)) = action.as_ref().filter(|_| answer == ACT) {
            output.emit(action.clone());
        }
    });
}
