// SPDX-License-Identifier: GPL-3.0-or-later
//! Running a measurement for the page: through pacer-helper when it is there (as root, at
//! the highest priority, with energy), else in this process; a comparison through the
//! helper, which puts the settings back.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use pacer_core::i18n::gettext;
use pacer_core::machine::Snapshot;
use pacer_core::SysRoot;
use pacer_dbus::client::{self, ClientError};
use pacer_dbus::measurement::compare::Setting;
use pacer_dbus::measurement::progress::Progress;
use pacer_dbus::measurement::report::RampReport;
use pacer_measure::report::{self, RampOptions};
use relm4::gtk;
use relm4::prelude::*;

use super::state::{Outcome, TRIALS};
use super::{MeasureMsg, MeasurePage};
use crate::words::said::Said;

impl MeasurePage {
    fn cpus(&self) -> Vec<u32> {
        self.status
            .as_ref()
            .map(|status| report::default_cpus(&status.snapshot, None))
            .unwrap_or_default()
    }

    pub(super) fn measure(&mut self, sender: &ComponentSender<Self>) {
        let Some(status) = self.status.clone() else {
            return;
        };
        let cpus = self.cpus();
        if cpus.is_empty() || !self.state.start(1, Instant::now()) {
            return;
        }
        self.cancel_local.store(false, Ordering::Relaxed);
        let helper = self.helper.clone();
        let root = self.root.clone();
        let cancel = Arc::clone(&self.cancel_local);
        let input = sender.input_sender().clone();
        relm4::spawn(async move {
            let progress = input.clone();
            let on_progress = move |progress_now| {
                progress.emit(MeasureMsg::Progress {
                    column: 0,
                    progress: progress_now,
                });
            };
            let through_helper = match &helper {
                Some(helper) => client::measure_ramp(helper, &cpus, TRIALS, on_progress).await,
                None => Ok(None),
            };
            let result = match through_helper {
                Ok(Some(mut report)) => {
                    report.settings.profile = client::active_profile().await;
                    Ok(report)
                }
                Ok(None) => {
                    let profile = client::active_profile().await;
                    let progress = input.clone();
                    tokio::task::spawn_blocking(move || {
                        measure_here(&root, &status.snapshot, &cpus, profile, &cancel, &progress)
                    })
                    .await
                    .map_err(|e| Said::plain(e.to_string()))
                    .and_then(|result| result)
                }
                Err(error) => Err(Said::from(error)),
            };
            input.emit(MeasureMsg::Finished(result.map(Outcome::Ramp)));
        });
    }

    pub(super) fn compare(&mut self, sender: &ComponentSender<Self>) {
        let Some(helper) = self.helper.clone() else {
            return;
        };
        let settings: Vec<Setting> = self
            .compare_rows
            .iter()
            .filter(|row| row.is_used())
            .map(|row| {
                // The first entry is "as now".
                fn pick<T: Clone>(choice: &gtk::DropDown, options: &[T]) -> Option<T> {
                    (choice.selected() as usize)
                        .checked_sub(1)
                        .and_then(|index| options.get(index).cloned())
                }
                Setting {
                    governor: pick(&row.governor, &self.compare_options.0),
                    epp: pick(&row.epp, &self.compare_options.1),
                    ..Setting::default()
                }
            })
            .collect();
        let cpus = self.cpus();
        if cpus.is_empty() || !self.state.start(settings.len(), Instant::now()) {
            return;
        }
        let (cancel, cancelled) = tokio::sync::oneshot::channel::<()>();
        self.cancel_compare = Some(cancel);
        let root = SysRoot::new(&self.root);
        let input = sender.input_sender().clone();
        // On the main loop's context: the comparison only waits on the bus, and its state
        // (which step to stop at) is not shared across threads.
        relm4::spawn_local(async move {
            let progress = input.clone();
            let on_progress = move |column, progress_now| {
                progress.emit(MeasureMsg::Progress {
                    column,
                    progress: progress_now,
                });
            };
            let cancel = async {
                // A dropped sender (the page gone) is no cancel.
                if cancelled.await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            let result =
                client::compare(&helper, &root, settings, &cpus, TRIALS, on_progress, cancel).await;
            let result = match result {
                Ok(comparison) => Ok(Outcome::Compare(comparison)),
                Err(ClientError::Cancelled) => Err(Said::plain(gettext(
                    "Comparison cancelled; the settings from before are back",
                ))),
                Err(error) => Err(Said::from(error)),
            };
            input.emit(MeasureMsg::Finished(result));
        });
    }
}

/// Measures in this process: the model's ramp on a simulated machine, else a real one at
/// normal priority (without the helper there is no raised priority).
fn measure_here(
    root: &Path,
    snapshot: &Snapshot,
    cpus: &[u32],
    profile: Option<String>,
    cancel: &AtomicBool,
    progress: &relm4::Sender<MeasureMsg>,
) -> Result<RampReport, Said> {
    let options = RampOptions {
        trials: TRIALS as usize,
        ..RampOptions::default()
    };
    let mut on_progress = |progress_now: Progress| {
        progress.emit(MeasureMsg::Progress {
            column: 0,
            progress: progress_now,
        });
    };
    pacer_measure::source::ramp_of(
        &SysRoot::new(root),
        snapshot,
        cpus,
        options,
        profile,
        &mut on_progress,
        cancel,
    )
    .map_err(|e| Said::plain(e.to_string()))
}
