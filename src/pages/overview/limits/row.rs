// SPDX-License-Identifier: GPL-3.0-or-later
//! One core type's row of "Why not faster?", as a factory item: the core type as its title,
//! the verdict as its subtitle, the chain's bar beside it; activating it opens the details.

use pacer_core::limits::CoreLimits;
use pacer_core::machine::cores_heading;
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender};
use relm4::gtk::glib;
use relm4::{adw, gtk};

use adw::prelude::*;

use super::bar::ChainBar;
use super::details;
use crate::words::limits::{bar_description, verdict};

#[derive(Debug)]
pub struct LimitRow {
    limits: CoreLimits,
    title: String,
    verdict: String,
    description: String,
    bar: ChainBar,
}

#[derive(Debug)]
pub enum LimitRowMsg {
    /// The core type's chain at the latest reading.
    Show(Box<CoreLimits>),
    /// The row was activated: its details open over the window of this widget.
    Open(gtk::Widget),
}

#[relm4::factory(pub)]
impl FactoryComponent for LimitRow {
    type Init = CoreLimits;
    type Input = LimitRowMsg;
    type Output = ();
    type CommandOutput = ();
    type ParentWidget = adw::PreferencesGroup;

    view! {
        #[root]
        adw::ActionRow {
            set_title: &self.title,
            set_activatable: true,
            #[watch]
            set_subtitle: &self.verdict,
            #[local_ref]
            add_suffix = bar -> gtk::DrawingArea {
                #[watch]
                set_tooltip_text: Some(&self.description),
            },
            connect_activated[sender] => move |row| {
                sender.input(LimitRowMsg::Open(row.clone().upcast()));
            },
        }
    }

    fn init_model(limits: CoreLimits, _index: &DynamicIndex, _sender: FactorySender<Self>) -> Self {
        let bar = ChainBar::new(limits.core_type);
        let mut row = LimitRow {
            title: cores_heading(limits.core_type),
            verdict: String::new(),
            description: String::new(),
            bar,
            limits: limits.clone(),
        };
        row.show(limits);
        row
    }

    fn init_widgets(
        &mut self,
        _index: &DynamicIndex,
        root: Self::Root,
        _returned_widget: &gtk::Widget,
        sender: FactorySender<Self>,
    ) -> Self::Widgets {
        let bar = self.bar.widget();
        let widgets = view_output!();
        widgets
    }

    fn update(&mut self, message: LimitRowMsg, _sender: FactorySender<Self>) {
        match message {
            LimitRowMsg::Show(limits) => self.show(*limits),
            LimitRowMsg::Open(parent) => details::show(&parent, &self.limits),
        }
    }
}

impl LimitRow {
    fn show(&mut self, limits: CoreLimits) {
        let verdict = verdict(&limits);
        if verdict != self.verdict {
            // For people and tests reading the log: what the row now says.
            glib::g_info!("pacer", "limits row shows {}: {}", self.title, verdict);
            self.verdict = verdict;
        }
        self.description = bar_description(&limits);
        self.bar.show(&limits);
        self.limits = limits;
    }
}
