//! What the Measure page holds apart from its widgets: the measurement running now and its
//! progress, and the session's history of results.

use pacer_bench::compare::{Comparison, Setting};
use pacer_bench::report::RampReport;
use pacer_bench::table::{core_label, RampTable};
use pacer_core::i18n::{fill, gettext};

use crate::plot::RampSeries;
use crate::said::Said;

/// What the page tells the window.
#[derive(Debug)]
pub enum MeasureEvent {
    /// Something for a toast.
    Say(Said),
    /// A measurement started (`true`) or ended.
    Running(bool),
}

/// Trials per CPU: enough for a spread, short enough to wait for (about 2 s each).
pub const TRIALS: u32 = 5;

/// A finished measurement.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Ramp(RampReport),
    Compare(Comparison),
}

impl Outcome {
    pub fn table(&self) -> RampTable {
        match self {
            Outcome::Ramp(report) => RampTable::new(&[(None, report)]),
            Outcome::Compare(comparison) => comparison.table(),
        }
    }

    /// One line per measured CPU (and setting), for the chart.
    pub fn series(&self) -> Vec<RampSeries> {
        let reports: Vec<(Option<String>, &RampReport)> = match self {
            Outcome::Ramp(report) => vec![(None, report)],
            Outcome::Compare(comparison) => comparison
                .columns
                .iter()
                .map(|c| (Some(setting_label(&c.setting)), &c.result))
                .collect(),
        };
        reports
            .into_iter()
            .flat_map(|(setting, report)| {
                report.runs.iter().map(move |run| RampSeries {
                    label: match &setting {
                        Some(setting) => format!("{setting} {}", core_label(run)),
                        None => core_label(run),
                    },
                    core_type: run.core_type,
                    points: run
                        .windows
                        .iter()
                        .filter_map(|w| Some((w.end_ms as f64, w.pct?.mean)))
                        .collect(),
                })
            })
            .collect()
    }

    pub fn to_json(&self) -> serde_json::Result<String> {
        match self {
            Outcome::Ramp(report) => serde_json::to_string_pretty(report),
            Outcome::Compare(comparison) => serde_json::to_string_pretty(comparison),
        }
    }
}

/// The letter naming the setting at `index`: A, B, C, …
pub fn setting_letter(index: usize) -> String {
    char::from(b'A' + (index % 26) as u8).to_string()
}

pub fn setting_label(setting: &Setting) -> String {
    if setting.is_empty() {
        gettext("as now")
    } else {
        setting.label()
    }
}

/// One entry of the session's history.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub title: String,
    pub outcome: Outcome,
}

/// What runs now.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    Idle,
    Running {
        comparing: bool,
        /// Trials done of all to do.
        done: u32,
        total: u32,
        text: String,
    },
}

/// The page's state, apart from its widgets.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureState {
    pub phase: Phase,
    pub history: Vec<Entry>,
    /// The entry shown.
    pub shown: Option<usize>,
    /// How many measurements the session has run, for their titles.
    runs: u32,
}

impl MeasureState {
    pub fn new() -> MeasureState {
        MeasureState {
            phase: Phase::Idle,
            history: Vec::new(),
            shown: None,
            runs: 0,
        }
    }

    /// Starts a measurement of `cpus` under `columns` settings (1 for a plain one); `false`
    /// when one is already running.
    pub fn start(&mut self, cpus: usize, columns: usize) -> bool {
        if self.phase != Phase::Idle {
            return false;
        }
        let total = u32::try_from(cpus * columns)
            .unwrap_or(u32::MAX)
            .saturating_mul(TRIALS);
        self.phase = Phase::Running {
            comparing: columns > 1,
            done: 0,
            total: total.max(1),
            text: gettext("Waiting for the CPUs to go idle…"),
        };
        true
    }

    /// A trial began: `trial` of `trials` on `cpu`, in `column` of a comparison.
    pub fn progress(&mut self, column: usize, cpu: u32, trial: u32, trials: u32) {
        if let Phase::Running {
            done,
            total,
            text,
            comparing,
        } = &mut self.phase
        {
            *done = (*done + 1).min(*total);
            *text = if *comparing {
                fill(
                    gettext("Setting {column}: CPU {cpu}, trial {trial} of {trials}"),
                    &[
                        ("column", &setting_letter(column)),
                        ("cpu", &cpu),
                        ("trial", &trial),
                        ("trials", &trials),
                    ],
                )
            } else {
                fill(
                    gettext("CPU {cpu}: trial {trial} of {trials}"),
                    &[("cpu", &cpu), ("trial", &trial), ("trials", &trials)],
                )
            };
        }
    }

    pub fn running(&self) -> bool {
        self.phase != Phase::Idle
    }

    /// The fraction done, for the progress bar.
    pub fn fraction(&self) -> f64 {
        match &self.phase {
            Phase::Running { done, total, .. } => f64::from(*done) / f64::from(*total),
            Phase::Idle => 0.0,
        }
    }

    /// The measurement ended: a result joins the history and is shown.
    pub fn finished(&mut self, outcome: Option<Outcome>) {
        self.phase = Phase::Idle;
        if let Some(outcome) = outcome {
            self.runs += 1;
            let title = match &outcome {
                Outcome::Ramp(_) => fill(gettext("Ramp-up #{n}"), &[("n", &self.runs)]),
                Outcome::Compare(_) => fill(gettext("Comparison #{n}"), &[("n", &self.runs)]),
            };
            self.history.push(Entry { title, outcome });
            self.shown = Some(self.history.len() - 1);
        }
    }

    pub fn shown_entry(&self) -> Option<&Entry> {
        self.history.get(self.shown?)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::testing::simulated_ramp_report;

    #[test]
    fn one_measurement_at_a_time_with_progress_and_a_history() {
        let mut state = MeasureState::new();
        assert!(state.start(2, 1));
        assert!(!state.start(2, 1), "a second one waits");
        state.progress(0, 7, 1, 5);
        assert!((state.fraction() - 0.1).abs() < 1e-9);
        assert!(
            matches!(&state.phase, Phase::Running { text, .. } if text == "CPU 7: trial 1 of 5")
        );
        state.finished(Some(Outcome::Ramp(simulated_ramp_report())));
        assert_eq!(state.phase, Phase::Idle);
        assert_eq!(state.shown, Some(0));
        assert_eq!(state.shown_entry().unwrap().title, "Ramp-up #1");
        // Cancelled or failed: nothing joins the history.
        assert!(state.start(2, 2));
        state.finished(None);
        assert_eq!(state.history.len(), 1);
    }
}
