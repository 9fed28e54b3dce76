// SPDX-License-Identifier: GPL-3.0-or-later
//! What a result means, in one sentence above its table: how fast each core type reaches
//! 95 % of its steady throughput, and in a comparison under which setting it does so first.

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::CoreType;
use pacer_dbus::measurement::compare::setting_letter;
use pacer_dbus::measurement::report::{RampReport, RampRun};
use pacer_measure::table::cores_of_type;

use super::state::Outcome;

/// A time to 95 %: `5.0 ms`, `0.4 ms`, `50 ms`; `0 ms` for at once.
fn time(ms: f64) -> String {
    let digits = if ms > 0.0 && ms < 10.0 { 1 } else { 0 };
    fill(gettext("{n} ms"), &[("n", &format!("{ms:.digits$}"))])
}

fn t95(run: &RampRun) -> Option<f64> {
    run.t95_ms.map(|t| t.mean)
}

/// The core types of `reports`' runs, in the order they first come.
fn core_types<'a>(reports: impl Iterator<Item = &'a RampReport>) -> Vec<Option<CoreType>> {
    let mut types = Vec::new();
    for run in reports.flat_map(|report| &report.runs) {
        if !types.contains(&run.core_type) {
            types.push(run.core_type);
        }
    }
    types
}

/// `P-cores reach 95 % in 5 ms; E-cores in 8 ms.` — or, for a comparison, `P-cores reach
/// 95 % first under A (5 ms; B 50 ms); E-cores under A (8 ms; B 67 ms).` Empty without runs.
pub fn sentence(outcome: &Outcome) -> String {
    let parts: Vec<String> = match outcome {
        Outcome::Ramp(report) => report
            .runs
            .iter()
            .enumerate()
            .map(|(index, run)| {
                let cores = cores_of_type(run.core_type);
                match (t95(run), index) {
                    (Some(ms), 0) => fill(
                        gettext("{cores} reach 95 % in {time}"),
                        &[("cores", &cores), ("time", &time(ms))],
                    ),
                    (Some(ms), _) => fill(
                        gettext("{cores} in {time}"),
                        &[("cores", &cores), ("time", &time(ms))],
                    ),
                    (None, _) => fill(gettext("{cores} do not stay at 95 %"), &[("cores", &cores)]),
                }
            })
            .collect(),
        Outcome::Compare(comparison) => {
            let reports = || comparison.columns.iter().map(|column| &column.result);
            core_types(reports())
                .into_iter()
                .enumerate()
                .filter_map(|(index, core_type)| {
                    // Each setting's time on this type, fastest first.
                    let mut times: Vec<(usize, f64)> = reports()
                        .enumerate()
                        .filter_map(|(column, report)| {
                            let run = report.runs.iter().find(|r| r.core_type == core_type)?;
                            Some((column, t95(run)?))
                        })
                        .collect();
                    times.sort_by(|a, b| a.1.total_cmp(&b.1));
                    let &(_, fastest) = times.first()?;
                    // Settings as fast as the fastest share its place: `A/D`.
                    let tied = times.iter().take_while(|&&(_, ms)| ms == fastest).count();
                    let (first, others) = times.split_at(tied);
                    let letters: Vec<String> = first
                        .iter()
                        .map(|&(column, _)| setting_letter(column))
                        .collect();
                    let others: Vec<String> = others
                        .iter()
                        .map(|&(column, ms)| format!("{} {}", setting_letter(column), time(ms)))
                        .collect();
                    let values: [(&str, &dyn std::fmt::Display); 4] = [
                        ("cores", &cores_of_type(core_type)),
                        ("letter", &letters.join("/")),
                        ("time", &time(fastest)),
                        ("others", &others.join(", ")),
                    ];
                    Some(match (index, others.is_empty()) {
                        (_, true) => fill(
                            gettext("{cores} reach 95 % in {time} under {letter}"),
                            &values,
                        ),
                        (0, false) => fill(
                            gettext("{cores} reach 95 % first under {letter} ({time}; {others})"),
                            &values,
                        ),
                        (_, false) => fill(
                            gettext("{cores} under {letter} ({time}; {others})"),
                            &values,
                        ),
                    })
                })
                .collect()
        }
    };
    if parts.is_empty() {
        return String::new();
    }
    fill(gettext("{parts}."), &[("parts", &parts.join("; "))])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::testing::simulated_ramp_report;
    use pacer_dbus::measurement::compare::{Column, Comparison, Setting};
    use pacer_dbus::measurement::statistic::Statistic;

    #[test]
    fn a_ramp_says_how_fast_each_core_type_is() {
        let report = simulated_ramp_report();
        assert_eq!(
            sentence(&Outcome::Ramp(report)),
            "P-cores reach 95 % in 5.0 ms; E-cores in 8.0 ms."
        );
    }

    #[test]
    fn a_comparison_says_which_setting_is_first_on_each_core_type() {
        let with_t95 = |p: f64, e: Option<f64>| {
            let mut report = simulated_ramp_report();
            report.runs[0].t95_ms = Some(Statistic::exact(p));
            report.runs[1].t95_ms = e.map(Statistic::exact);
            report
        };
        let columns = [
            with_t95(50.0, Some(67.0)),
            with_t95(5.0, Some(8.0)),
            with_t95(12.0, None),
            with_t95(5.0, Some(0.0)),
        ]
        .into_iter()
        .map(|result| Column {
            setting: Setting::default(),
            result,
        })
        .collect();
        assert_eq!(
            sentence(&Outcome::Compare(Comparison::new(columns, true))),
            "P-cores reach 95 % first under B/D (5.0 ms; C 12 ms, A 50 ms); \
             E-cores under D (0 ms; B 8.0 ms, A 67 ms)."
        );
        let empty = Comparison::new(Vec::new(), true);
        assert_eq!(sentence(&Outcome::Compare(empty)), "");
    }
}
