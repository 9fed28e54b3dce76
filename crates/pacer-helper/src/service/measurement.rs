// SPDX-License-Identifier: GPL-3.0-or-later
//! The ramp measurement as the helper runs it: one at a time, as root, on a blocking thread
//! whose progress goes out as `MeasureProgress` signals while it runs; and stopping it, by
//! its caller, when that caller leaves the bus, or when the helper stops.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pacer_core::SysRoot;
use pacer_dbus::measurement::progress::Progress;
use pacer_dbus::{actions, details, HelperError, Policies, Problem, Topic};
use pacer_measure::report::RampOptions;
use pacer_measure::source::ramp_of;
use zbus::message::Header;
use zbus::object_server::SignalEmitter;

use super::{caller, Helper, Running};
use crate::validate;

impl Helper {
    /// The measurement under way, if any (a poisoned lock still holds the truth: the
    /// measurement's state is set and cleared whole).
    fn running(&self) -> std::sync::MutexGuard<'_, Option<Running>> {
        self.measurement
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether a measurement runs (the helper does not idle out under it).
    pub fn measuring(&self) -> bool {
        self.running().is_some()
    }

    /// `MeasureRamp`: validated and authorised, then claimed as the one measurement under
    /// way (refused while another runs), measured, and its report returned as JSON.
    pub(super) async fn run_ramp_measurement(
        &self,
        header: &Header<'_>,
        emitter: &SignalEmitter<'_>,
        cpus: Vec<u32>,
        trials: u32,
    ) -> Result<String, HelperError> {
        let _call = self.call()?;
        let snapshot = self.read_machine()?;
        validate::measurement(&snapshot, &cpus, trials, validate::usable_cpus().as_ref())?;
        let list: Vec<u32> = cpus.clone();
        self.authority
            .check(
                header,
                actions::RUN_MEASUREMENT,
                &details(Topic::Measurement, trials, Policies::These(&list)),
            )
            .await?;
        let cancel = Arc::new(AtomicBool::new(false));
        {
            let mut running = self.running();
            if running.is_some() {
                return Err(Problem::MeasurementRunning.into());
            }
            *running = Some(Running {
                owner: caller(header),
                cancel: Arc::clone(&cancel),
            });
        }
        let root = self.kernel.root().to_owned();
        let (progress_tx, mut progress_rx) = tokio::sync::mpsc::unbounded_channel();
        let measuring = tokio::task::spawn_blocking(move || {
            let options = RampOptions {
                trials: trials as usize,
                raise_priority: true,
                ..Default::default()
            };
            let mut progress = |p: Progress| {
                let _ = progress_tx.send(p);
            };
            let root = SysRoot::new(root);
            ramp_of(
                &root,
                &snapshot,
                &cpus,
                options,
                None,
                &mut progress,
                &cancel,
            )
            .map_err(|error| error.to_string())
        });
        tokio::pin!(measuring);
        let emit = |p: Progress| {
            let (cpu, trial, trials, stage, left_ms, curve, mhz) =
                pacer_dbus::measurement::progress::to_args(&p);
            Self::measure_progress(emitter, cpu, trial, trials, stage, left_ms, curve, mhz)
        };
        let result = loop {
            tokio::select! {
                Some(p) = progress_rx.recv() => {
                    self.activity.touch();
                    let _ = emit(p).await;
                }
                done = &mut measuring => break done,
            }
        };
        // What the measurement reported last (its last trial's end) may still wait in the
        // channel when the select sees it finish.
        while let Ok(p) = progress_rx.try_recv() {
            let _ = emit(p).await;
        }
        *self.running() = None;
        let report = result
            .map_err(|error| Problem::Internal {
                error: error.to_string(),
            })?
            .map_err(|error| Problem::MeasurementFailed { error })?;
        serde_json::to_string(&report).map_err(|error| {
            Problem::Internal {
                error: error.to_string(),
            }
            .into()
        })
    }

    /// `CancelMeasurement`: authorised, then refused when the measurement is another
    /// caller's; nothing to do when none runs.
    pub(super) async fn cancel_callers_measurement(
        &self,
        header: &Header<'_>,
    ) -> Result<(), HelperError> {
        let _call = self.call()?;
        self.authority
            .check(
                header,
                actions::RUN_MEASUREMENT,
                &details(Topic::Measurement, "cancelled", Policies::All),
            )
            .await?;
        let running = self.running();
        match running.as_ref() {
            Some(running) if running.owner != caller(header) => {
                Err(Problem::NotYourMeasurement.into())
            }
            Some(running) => {
                running.cancel.store(true, Ordering::Relaxed);
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Stops the measurement under way when `owned` picks its owner (it returns what it has).
    pub(super) fn stop_measurement_where(&self, owned: impl Fn(&str) -> bool) {
        if let Some(running) = self
            .running()
            .as_ref()
            .filter(|running| owned(&running.owner))
        {
            running.cancel.store(true, Ordering::Relaxed);
        }
    }
}
