// SPDX-License-Identifier: GPL-3.0-or-later
//! The window's four pages: made, put in the view stack under their titles and icons, and
//! handed what several of them need (the machine's state, the helper once it is found).
//! Each page's own messages stay its own; what a page asks of the window comes back as a
//! `WindowMsg`.

use std::path::PathBuf;
use std::sync::Arc;

use pacer_core::i18n::gettext;
use pacer_core::status::Status;
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use super::chrome::scrolled;
use super::messages::WindowMsg;
use crate::data::helper::HelperLink;
use crate::data::request::Page;
use crate::pages::cpus::{CpusMsg, CpusPage};
use crate::pages::history::{HistoryMsg, HistoryPage};
use crate::pages::measure::{MeasureEvent, MeasureMsg, MeasurePage};
use crate::pages::overview::{OverviewInit, OverviewMsg, OverviewPage};
use crate::widgets::icons;
use crate::widgets::plot::FrequencyPlot;

#[derive(Debug)]
pub(super) struct Pages {
    pub overview: Controller<OverviewPage>,
    pub cpus: Controller<CpusPage>,
    pub measure: Controller<MeasurePage>,
    pub history: Controller<HistoryPage>,
}

impl Pages {
    /// The pages of a window showing `plot` of the machine under `root`.
    pub fn launch(plot: &FrequencyPlot, root: PathBuf, input: &relm4::Sender<WindowMsg>) -> Pages {
        Pages {
            overview: OverviewPage::builder()
                .launch(OverviewInit { plot: plot.clone() })
                .forward(input, WindowMsg::Change),
            cpus: CpusPage::builder()
                .launch(())
                .forward(input, WindowMsg::Change),
            measure: MeasurePage::builder()
                .launch(root)
                .forward(input, |event| match event {
                    MeasureEvent::Say(said) => WindowMsg::Toast(said),
                    MeasureEvent::Running(running) => WindowMsg::Measuring(running),
                }),
            history: HistoryPage::builder().launch(()).detach(),
        }
    }

    /// Puts the pages in `stack`, each scrolling, under its title and icon.
    pub fn add_to(&self, stack: &adw::ViewStack) {
        let pages = [
            (
                self.overview.widget().clone().upcast::<gtk::Widget>(),
                Page::Overview,
                gettext("Overview"),
                icons::OVERVIEW,
            ),
            (
                self.cpus.widget().clone().upcast(),
                Page::Cpus,
                gettext("CPUs"),
                icons::CPUS,
            ),
            (
                self.measure.widget().clone().upcast(),
                Page::Measure,
                gettext("Measure"),
                icons::MEASURE,
            ),
            (
                self.history.widget().clone().upcast(),
                Page::History,
                gettext("History"),
                icons::HISTORY,
            ),
        ];
        for (widget, page, title, icon) in pages {
            stack
                .add_titled(&scrolled(&widget), Some(page.name()), &title)
                .set_icon_name(Some(icon));
        }
    }

    /// The machine's state, read anew (shared, never copied per page).
    pub fn show_status(&self, status: &Arc<Status>) {
        self.overview.emit(OverviewMsg::Status(Arc::clone(status)));
        self.cpus.emit(CpusMsg::Status(Arc::clone(status)));
        self.measure.emit(MeasureMsg::Status(Arc::clone(status)));
        self.history.emit(HistoryMsg::Status(Arc::clone(status)));
    }

    /// The helper, found or not: whether settings can be changed, and the link to measure with.
    pub fn helper_found(&self, link: &HelperLink) {
        let editable = matches!(link, HelperLink::Ready(_));
        self.overview.emit(OverviewMsg::Editable(editable));
        self.cpus.emit(CpusMsg::Editable(editable));
        if let HelperLink::Ready(proxy) = link {
            self.measure.emit(MeasureMsg::Helper(Some(proxy.clone())));
        }
    }
}
