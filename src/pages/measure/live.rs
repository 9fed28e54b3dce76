// SPDX-License-Identifier: GPL-3.0-or-later
//! A measurement as it runs: each trial's curve as it grows, the measured CPU's frequency,
//! what runs now and the time left.

use std::time::{Duration, Instant};

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::CoreType;
use pacer_dbus::measurement::compare::setting_letter;
use pacer_dbus::measurement::progress::{Progress, Stage};
use pacer_measure::table::core_kind;

use crate::widgets::plot::{FrequencyTrace, Line, RampSeries};

/// One trial's curve.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialCurve {
    /// The setting's place in a comparison (0 for a plain measurement).
    pub column: usize,
    pub cpu: u32,
    pub core_type: Option<CoreType>,
    pub trial: usize,
    /// (ms since the work began, throughput since then in % of steady).
    pub points: Vec<(f64, f64)>,
    pub done: bool,
}

impl TrialCurve {
    pub fn series(&self) -> RampSeries {
        RampSeries {
            label: None,
            setting: self.column,
            core_type: self.core_type,
            line: if self.done {
                Line::Trial
            } else {
                Line::Running
            },
            points: self.points.clone(),
        }
    }
}

/// What runs now.
#[derive(Debug, Clone, PartialEq)]
struct Now {
    column: usize,
    cpu: u32,
    core_type: Option<CoreType>,
    trial: usize,
    trials: usize,
    stage: Stage,
}

/// A running measurement of `columns` settings (1 for a plain measurement).
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    columns: usize,
    began: Instant,
    /// When the setting measured now began.
    column_began: Instant,
    now: Option<Now>,
    left: Option<Duration>,
    pub curves: Vec<TrialCurve>,
    /// The frequency of the CPU measured last, during its trial.
    frequency: Vec<(f64, f64)>,
}

impl Live {
    pub fn new(columns: usize, at: Instant) -> Live {
        Live {
            columns: columns.max(1),
            began: at,
            column_began: at,
            now: None,
            left: None,
            curves: Vec::new(),
            frequency: Vec::new(),
        }
    }

    /// Takes in what the measurement of setting `column` reports at `at`; `core_type` is
    /// the measured CPU's.
    pub fn follow(
        &mut self,
        column: usize,
        core_type: Option<CoreType>,
        progress: Progress,
        at: Instant,
    ) {
        if self.now.as_ref().is_some_and(|now| now.column != column) {
            self.column_began = at;
        }
        // The setting measured now takes what it has taken plus its time left; those after
        // it take as long.
        let after = self.columns.saturating_sub(column + 1) as u32;
        let this_column = at.duration_since(self.column_began) + progress.left;
        self.left = Some(progress.left + this_column * after);
        if progress.stage != Stage::Waiting {
            let curve = TrialCurve {
                column,
                cpu: progress.cpu,
                core_type,
                trial: progress.trial,
                points: progress.curve,
                done: progress.stage == Stage::Done,
            };
            let same = |c: &&mut TrialCurve| {
                (c.column, c.cpu, c.trial) == (column, progress.cpu, progress.trial)
            };
            match self.curves.iter_mut().find(same) {
                Some(existing) => *existing = curve,
                None => self.curves.push(curve),
            }
            self.frequency = progress.mhz;
        }
        self.now = Some(Now {
            column,
            cpu: progress.cpu,
            core_type,
            trial: progress.trial,
            trials: progress.trials,
            stage: progress.stage,
        });
    }

    /// How much is done, for a progress bar: the time so far against the time it takes.
    pub fn fraction(&self, at: Instant) -> f64 {
        let Some(left) = self.left else {
            return 0.0;
        };
        let so_far = at.duration_since(self.began).as_secs_f64();
        let whole = so_far + left.as_secs_f64();
        if whole > 0.0 {
            (so_far / whole).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// What runs now and the time left: `Setting B, CPU 7 (P-core), trial 2 of 5:
    /// measuring — about 12 s left`.
    pub fn text(&self) -> String {
        let Some(now) = &self.now else {
            return gettext("Starting…");
        };
        let mut what = fill(
            gettext("CPU {cpu} ({kind}), trial {trial} of {trials}"),
            &[
                ("cpu", &now.cpu),
                ("kind", &core_kind(now.core_type)),
                ("trial", &now.trial),
                ("trials", &now.trials),
            ],
        );
        if self.columns > 1 {
            what = fill(
                gettext("Setting {letter}, {what}"),
                &[("letter", &setting_letter(now.column)), ("what", &what)],
            );
        }
        let doing = match now.stage {
            Stage::Waiting => fill(
                gettext("{what}: waiting for the CPU to go idle"),
                &[("what", &what)],
            ),
            Stage::Running | Stage::Done => fill(gettext("{what}: measuring"), &[("what", &what)]),
        };
        match self.left {
            Some(left) => fill(
                gettext("{doing} — about {seconds} s left"),
                &[("doing", &doing), ("seconds", &left.as_secs_f64().ceil())],
            ),
            None => doing,
        }
    }

    /// The frequency of the CPU measured now (or last), for the strip under the chart.
    pub fn frequency(&self) -> Option<FrequencyTrace> {
        let now = self.now.as_ref()?;
        (!self.frequency.is_empty()).then(|| FrequencyTrace {
            label: fill(
                gettext("CPU {cpu} ({kind})"),
                &[("cpu", &now.cpu), ("kind", &core_kind(now.core_type))],
            ),
            setting: now.column,
            core_type: now.core_type,
            points: self.frequency.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn progress(cpu: u32, trial: usize, stage: Stage, until_ms: f64, left_s: u64) -> Progress {
        Progress {
            cpu,
            trial,
            trials: 5,
            stage,
            curve: pacer_measure::live::curve_times(until_ms)
                .map(|ms| (ms, ms.min(100.0)))
                .collect(),
            mhz: vec![(1.0, 800.0), (until_ms, 4000.0)],
            left: Duration::from_secs(left_s),
        }
    }

    #[test]
    fn a_trial_grows_then_stays_as_the_next_one_runs() {
        let began = Instant::now();
        let mut live = Live::new(1, began);
        assert_eq!(live.text(), "Starting…");
        let p = Some(CoreType::Performance);
        live.follow(0, p, progress(7, 1, Stage::Waiting, 0.0, 16), began);
        assert_eq!(
            live.text(),
            "CPU 7 (P-core), trial 1 of 5: waiting for the CPU to go idle — about 16 s left"
        );
        assert!(live.curves.is_empty() && live.frequency().is_none());
        live.follow(0, p, progress(7, 1, Stage::Running, 100.0, 15), began);
        live.follow(0, p, progress(7, 1, Stage::Running, 500.0, 15), began);
        assert_eq!(live.curves.len(), 1, "one curve per trial");
        assert_eq!(live.curves[0].series().line, Line::Running);
        live.follow(0, p, progress(7, 1, Stage::Done, 1000.0, 14), began);
        live.follow(0, p, progress(7, 2, Stage::Running, 50.0, 13), began);
        assert_eq!(live.curves.len(), 2);
        assert_eq!(live.curves[0].series().line, Line::Trial);
        assert_eq!(live.curves[0].points.len(), 37, "the whole curve once done");
        let frequency = live.frequency().unwrap();
        assert_eq!(frequency.label, "CPU 7 (P-core)");
        assert_eq!(frequency.points.last(), Some(&(50.0, 4000.0)));
        assert_eq!(
            live.text(),
            "CPU 7 (P-core), trial 2 of 5: measuring — about 13 s left"
        );
    }

    #[test]
    fn a_comparison_counts_the_settings_still_to_come() {
        let began = Instant::now();
        let mut live = Live::new(3, began);
        let e = Some(CoreType::Efficiency);
        // Setting A has 10 s left after 2 s: A takes 12 s, B and C as long.
        let at = began + Duration::from_secs(2);
        live.follow(0, e, progress(3, 1, Stage::Running, 10.0, 10), at);
        assert_eq!(live.left, Some(Duration::from_secs(34)));
        assert!((live.fraction(at) - 2.0 / 36.0).abs() < 1e-6);
        assert!(live
            .text()
            .starts_with("Setting A, CPU 3 (E-core), trial 1 of 5"));
        // B began at 12 s and has 10 s left: C takes as long as B.
        let b = began + Duration::from_secs(12);
        live.follow(1, e, progress(3, 1, Stage::Waiting, 0.0, 12), b);
        let at = b + Duration::from_secs(2);
        live.follow(1, e, progress(3, 1, Stage::Running, 10.0, 10), at);
        assert_eq!(live.left, Some(Duration::from_secs(22)));
        assert!(live.text().starts_with("Setting B,"), "{}", live.text());
    }
}
