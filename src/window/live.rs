// SPDX-License-Identifier: GPL-3.0-or-later
//! What the window shows of the machine as it changes: each new reading of its state (to
//! the pages, the tray, the session bus, the banner and the header's "Simulated" tag), the frequencies (to the live plot,
//! with a summary once a second), and the changes the helper recorded (the findings' causes
//! and the plot's marks).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use pacer_core::history::{Event, Setting};
use pacer_core::machine::Snapshot;
use pacer_core::status::Status;
use pacer_core::values::CoreType;
use relm4::gtk::prelude::*;
use relm4::prelude::*;

use super::tag::show_simulated;
use super::{Window, HISTORY_SECONDS};
use crate::app::settings;
use crate::data::helper::HelperLink;
use crate::data::history::Cores;
use crate::desktop::session_state::SessionState;
use crate::pages::overview::OverviewMsg;
use crate::widgets::banner::{notices, BannerFacts, BannerMsg};
use crate::widgets::plot::{FrequencyMarks, PlotChange, TracedCpu};
use crate::words::banner::Simulated;
use crate::words::history::mark_words;

/// How often the per-core-type summary beside the plot is rewritten.
const SUMMARY_PERIOD: Duration = Duration::from_secs(1);

impl Window {
    pub(super) fn show_status(&mut self, status: Arc<Status>) {
        // What only the recording shows, and each finding's cause.
        let status = if self.recent.events().is_empty() {
            status
        } else {
            let mut explained = Arc::unwrap_or_clone(status);
            explained.explain(self.recent.events());
            Arc::new(explained)
        };
        let notify = self
            .settings
            .as_ref()
            .is_none_or(|s| s.boolean(settings::NOTIFY_FINDINGS));
        let helper_present = !matches!(self.helper, Some(HelperLink::Missing(_)));
        let session = SessionState::of(&status, helper_present, &self.session);
        self.tray_and_notifications
            .show(&session, &status, helper_present, notify);
        self.show_on_bus(|state| *state = session);
        let types_known = self.status.as_ref().map(|s| core_types(&s.snapshot));
        if types_known != Some(core_types(&status.snapshot)) {
            self.plot.set_marks(marks(&status.snapshot));
        }
        self.pages.show_status(&status);
        let first = self.status.is_none();
        self.status = Some(status);
        if first {
            // Core types arrived after the first samples: colour the lines.
            let plotted = Arc::clone(&self.plotted);
            self.plot.reset(self.traced(&plotted));
        }
        self.show_banner();
    }

    /// One sample of each plotted CPU's frequency, `at` the time since sampling began.
    pub(super) fn show_frequencies(&mut self, at: Duration, cpus: Arc<[u32]>, khz: &[Option<u32>]) {
        if cpus != self.plotted {
            self.plot.reset(self.traced(&cpus));
            self.plotted = cpus;
        }
        self.plot.push(at, khz);
        // Text that changes ten times a second cannot be read, and relaying it out costs:
        // once a second.
        if at.saturating_sub(self.summarised) >= SUMMARY_PERIOD {
            self.summarised = at;
            let summary = self.plot.summary();
            self.show_on_bus(|state| state.set_frequencies(&summary));
            self.pages.overview.emit(OverviewMsg::Summary(summary));
        }
    }

    /// Changes the helper recorded: the findings' causes (on the banner, the tray and the
    /// bus) and the plot's marks. Returns those not seen before, for the History page.
    pub(super) fn record(&mut self, events: Vec<Event>) -> Vec<Event> {
        let new = self.recent.extend(events);
        let shown_since = SystemTime::now() - Duration::from_secs(HISTORY_SECONDS.into());
        let changes = self.recent.changes_since(shown_since);
        let cores = self.status.as_deref().map(Cores::of).unwrap_or_default();
        self.plot.set_changes(
            changes
                .iter()
                .map(|event| PlotChange {
                    time: event.time,
                    text: mark_words(event, &cores),
                })
                .collect(),
        );
        // The background's cheap refresh reads only the governor, the EPP and the limit
        // chain: a recorded change to anything else (a maximum lowered on waking) is read in
        // full at once, not at the next full reading half a minute away.
        if new
            .iter()
            .any(|event| !matches!(event.setting, Setting::Governor | Setting::Epp))
        {
            self.control.refresh();
        }
        // The state shown is explained again at once: a change recorded after the reading
        // that found its effect is its cause, and the next reading may be half a minute
        // away while only the tray shows the state.
        match self.status.clone() {
            Some(status) => self.show_status(status),
            None => self.show_banner(),
        }
        new
    }

    /// The CPUs to plot, with their core types from the latest state.
    fn traced(&self, cpus: &[u32]) -> Vec<TracedCpu> {
        cpus.iter()
            .map(|&id| TracedCpu {
                id,
                core_type: self
                    .status
                    .as_ref()
                    .and_then(|status| status.snapshot.cpu(id)?.core_type),
            })
            .collect()
    }

    pub(super) fn show_banner(&self) {
        let helper_missing = match &self.helper {
            Some(HelperLink::Missing(why)) => Some(why),
            _ => None,
        };
        // A tree read with --sysfs-root alone may hold a simulated machine too.
        let simulated = match self.machine.simulated_model() {
            Some(model) => Some(Simulated::Model(model)),
            None => self
                .status
                .as_ref()
                .filter(|status| status.snapshot.simulated)
                .map(|_| Simulated::Tree),
        };
        show_simulated(&self.simulated_tag, simulated);
        let facts = BannerFacts {
            status: self.status.as_deref(),
            helper_missing,
            simulated: simulated.is_some(),
        };
        self.banner.emit(BannerMsg::Show(notices(&facts)));
    }
}

fn core_types(snapshot: &Snapshot) -> Vec<(u32, Option<CoreType>)> {
    snapshot.cpus.iter().map(|c| (c.id, c.core_type)).collect()
}

/// The lowest, base and highest frequency of each core type, for the plot.
fn marks(snapshot: &Snapshot) -> Vec<FrequencyMarks> {
    let mut marks: Vec<FrequencyMarks> = Vec::new();
    for policy in snapshot.policies.iter().filter(|p| p.is_active()) {
        if marks.iter().any(|m| m.core_type == policy.core_type) {
            continue;
        }
        marks.push(FrequencyMarks {
            core_type: policy.core_type,
            min_khz: policy.hw_min_khz.map(|k| k.0),
            base_khz: policy.base_khz.map(|k| k.0),
            max_khz: policy.hw_max_khz.map(|k| k.0),
        });
    }
    marks
}
