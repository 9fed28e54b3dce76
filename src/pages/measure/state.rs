// SPDX-License-Identifier: GPL-3.0-or-later
//! What the Measure page holds apart from its widgets: the measurement running now and its
//! progress, and the session's history of results.

use std::time::Instant;

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::CoreType;
use pacer_dbus::measurement::compare::{setting_letter, Comparison};
use pacer_dbus::measurement::progress::Progress;
use pacer_dbus::measurement::report::RampReport;
use pacer_measure::convergence::Convergence;
use pacer_measure::same::{alike, same_as};
use pacer_measure::table::{core_label, RampTable};

use super::live::{Live, TrialCurve};
use crate::widgets::plot::{Line, RampChart, RampSeries};
use crate::words::said::Said;

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
            Outcome::Compare(comparison) => RampTable::of_comparison(comparison),
        }
    }

    /// One line per measured CPU (and setting), for the chart, named with its time to 95 %:
    /// `A P-core (CPU 7): 5.0 ms`. A setting that ran the same as one before it is drawn in
    /// that one's colour and named with it: `A = D P-core (CPU 7): < 0.1 ms`.
    pub fn series(&self) -> Vec<RampSeries> {
        let (reports, same): (Vec<&RampReport>, Vec<Option<usize>>) = match self {
            Outcome::Ramp(report) => (vec![report], vec![None]),
            Outcome::Compare(comparison) => (
                comparison.columns.iter().map(|c| &c.result).collect(),
                same_as(comparison),
            ),
        };
        // Each setting's letters, with those of the settings that ran the same: `A = D`.
        let compared = matches!(self, Outcome::Compare(_));
        let letters: Vec<Option<String>> = (0..reports.len())
            .map(|column| {
                compared.then(|| {
                    let letters: Vec<String> = alike(&same, column).map(setting_letter).collect();
                    letters.join(" = ")
                })
            })
            .collect();
        reports
            .iter()
            .enumerate()
            .flat_map(|(column, report)| {
                let (same, letters) = (same[column], &letters[column]);
                report.runs.iter().map(move |run| {
                    let name = match letters {
                        Some(letters) => format!("{letters} {}", core_label(run)),
                        None => core_label(run),
                    };
                    RampSeries {
                        // One name for settings that ran the same, on the first's line.
                        label: same.is_none().then(|| match Convergence::of(run).words() {
                            Some(time) => fill(
                                gettext("{series}: {time}"),
                                &[("series", &name), ("time", &time)],
                            ),
                            None => name,
                        }),
                        setting: same.unwrap_or(column),
                        core_type: run.core_type,
                        line: Line::Mean,
                        points: run
                            .windows
                            .iter()
                            .filter_map(|w| Some((w.end_ms as f64, w.pct?.mean)))
                            .collect(),
                    }
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

/// One entry of the session's history.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub title: String,
    pub outcome: Outcome,
    /// Each trial's curve, as the measurement drew them.
    pub trials: Vec<TrialCurve>,
}

impl Entry {
    /// The chart of the result: the trials faint behind the means.
    pub fn chart(&self) -> RampChart {
        RampChart {
            series: self
                .trials
                .iter()
                .map(TrialCurve::series)
                .chain(self.outcome.series())
                .collect(),
            frequency: None,
        }
    }
}

/// What runs now.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    Idle,
    Running(Live),
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

    /// Starts a measurement under `columns` settings (1 for a plain one) at `at`; `false`
    /// when one is already running.
    pub fn start(&mut self, columns: usize, at: Instant) -> bool {
        if self.phase != Phase::Idle {
            return false;
        }
        self.phase = Phase::Running(Live::new(columns, at));
        true
    }

    /// The measurement of setting `column` reports `progress` on a CPU of `core_type`.
    pub fn progress(
        &mut self,
        column: usize,
        core_type: Option<CoreType>,
        progress: Progress,
        at: Instant,
    ) {
        if let Phase::Running(live) = &mut self.phase {
            live.follow(column, core_type, progress, at);
        }
    }

    pub fn running(&self) -> bool {
        self.phase != Phase::Idle
    }

    pub fn live(&self) -> Option<&Live> {
        match &self.phase {
            Phase::Running(live) => Some(live),
            Phase::Idle => None,
        }
    }

    /// The chart to show: the running measurement's, else the result shown.
    pub fn chart(&self) -> RampChart {
        match (&self.phase, self.shown_entry()) {
            (Phase::Running(live), _) => RampChart {
                series: live.curves.iter().map(TrialCurve::series).collect(),
                frequency: live.frequency(),
            },
            (Phase::Idle, Some(entry)) => entry.chart(),
            (Phase::Idle, None) => RampChart::default(),
        }
    }

    /// The measurement ended: a result joins the history and is shown.
    pub fn finished(&mut self, outcome: Option<Outcome>) {
        let phase = std::mem::replace(&mut self.phase, Phase::Idle);
        if let Some(outcome) = outcome {
            let trials = match phase {
                Phase::Running(live) => live.curves,
                Phase::Idle => Vec::new(),
            };
            self.runs += 1;
            let title = match &outcome {
                Outcome::Ramp(_) => fill(gettext("Ramp-up #{n}"), &[("n", &self.runs)]),
                Outcome::Compare(_) => fill(gettext("Comparison #{n}"), &[("n", &self.runs)]),
            };
            self.history.push(Entry {
                title,
                outcome,
                trials,
            });
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

    use std::time::Duration;

    use super::*;
    use crate::pages::measure::fixtures::four_settings;
    use crate::testing::simulated_ramp_report;
    use pacer_dbus::measurement::progress::Stage;

    #[test]
    fn one_measurement_at_a_time_drawn_as_it_runs_and_kept_in_a_history() {
        let mut state = MeasureState::new();
        let began = Instant::now();
        assert!(state.start(1, began));
        assert!(!state.start(1, began), "a second one waits");
        let curve = vec![(1.0, 40.0), (10.0, 90.0)];
        let progress = Progress {
            cpu: 7,
            trial: 1,
            trials: 5,
            stage: Stage::Done,
            curve: curve.clone(),
            mhz: vec![(1.0, 1200.0)],
            left: Duration::from_secs(4),
        };
        state.progress(0, Some(CoreType::Performance), progress, began);
        let chart = state.chart();
        assert_eq!(chart.series.len(), 1);
        assert_eq!(chart.series[0].points, curve);
        assert!(chart.frequency.is_some());
        state.finished(Some(Outcome::Ramp(simulated_ramp_report())));
        assert_eq!(state.phase, Phase::Idle);
        assert_eq!(state.shown, Some(0));
        let entry = state.shown_entry().unwrap();
        assert_eq!(entry.title, "Ramp-up #1");
        // The result: the trial behind the two means, no frequency.
        let chart = state.chart();
        let lines: Vec<Line> = chart.series.iter().map(|s| s.line).collect();
        assert_eq!(lines, [Line::Trial, Line::Mean, Line::Mean]);
        assert!(chart.frequency.is_none());
        // Cancelled or failed: nothing joins the history.
        assert!(state.start(2, began));
        state.finished(None);
        assert_eq!(state.history.len(), 1);
    }

    #[test]
    fn the_chart_names_each_line_with_its_time_and_settings_that_ran_the_same_once() {
        let series = Outcome::Compare(four_settings()).series();
        // With plain spaces for the no-break ones in the times.
        let labels: Vec<Option<String>> = series
            .iter()
            .map(|s| Some(s.label.as_ref()?.replace('\u{a0}', " ")))
            .collect();
        let labels: Vec<Option<&str>> = labels.iter().map(Option::as_deref).collect();
        assert_eq!(
            labels,
            [
                Some("A = D P-core (CPU 7): < 0.1 ms"),
                Some("A = D E-core (CPU 15): < 0.1 ms"),
                Some("B P-core (CPU 7): 5.0 ms"),
                Some("B E-core (CPU 15): 8.0 ms"),
                Some("C P-core (CPU 7): 50 ms"),
                Some("C E-core (CPU 15): 80 ms"),
                None,
                None
            ]
        );
        // D's lines in A's colour.
        let colours: Vec<usize> = series.iter().map(|s| s.setting).collect();
        assert_eq!(colours, [0, 0, 1, 1, 2, 2, 0, 0]);
        let ramp = Outcome::Ramp(simulated_ramp_report()).series();
        assert_eq!(
            ramp[0].label.as_deref(),
            Some("P-core (CPU 7): 5.0\u{a0}ms")
        );
    }
}
