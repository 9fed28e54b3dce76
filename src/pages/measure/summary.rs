// SPDX-License-Identifier: GPL-3.0-or-later
//! What a result means, above its table: one sentence on how fast each core type reaches
//! 95 % of its steady throughput (in a comparison, under which setting first; settings that
//! ran the same count once), then a verdict line per run against published figures.

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::CoreType;
use pacer_dbus::measurement::compare::{setting_letter, Comparison};
use pacer_dbus::measurement::report::RampReport;
use pacer_measure::convergence::Convergence;
use pacer_measure::same::{alike, same_as};
use pacer_measure::table::cores_of_type;
use pacer_measure::verdict;

use super::state::Outcome;

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

/// The columns of `comparison` that are the first of their settings (the others ran the
/// same as one of them), with their results.
fn distinct(comparison: &Comparison) -> impl Iterator<Item = (usize, &RampReport)> + '_ {
    comparison
        .columns
        .iter()
        .zip(same_as(comparison))
        .enumerate()
        .filter(|(_, (_, same))| same.is_none())
        .map(|(index, (column, _))| (index, &column.result))
}

/// `P-cores reach 95 % in 5.0 ms; E-cores in 8.0 ms.`
fn ramp_sentence(report: &RampReport) -> Vec<String> {
    report
        .runs
        .iter()
        .enumerate()
        .map(|(index, run)| {
            let cores = cores_of_type(run.core_type);
            match (Convergence::of(run).words(), index) {
                (Some(time), 0) => fill(
                    gettext("{cores} reach 95 % in {time}"),
                    &[("cores", &cores), ("time", &time)],
                ),
                (Some(time), _) => fill(
                    gettext("{cores} in {time}"),
                    &[("cores", &cores), ("time", &time)],
                ),
                (None, _) => fill(gettext("{cores} do not stay at 95 %"), &[("cores", &cores)]),
            }
        })
        .collect()
}

/// `P-cores reach 95 % first under A (5 ms; B 50 ms); E-cores under A (8 ms; B 67 ms)`, a
/// setting that ran the same as one before it left out; then which ran the same.
fn comparison_sentence(comparison: &Comparison) -> Vec<String> {
    let reports = || comparison.columns.iter().map(|column| &column.result);
    let mut parts: Vec<String> = core_types(reports())
        .into_iter()
        .enumerate()
        .filter_map(|(index, core_type)| {
            // Each setting's time on this type, fastest first.
            let mut times: Vec<(usize, Convergence, f64)> = distinct(comparison)
                .filter_map(|(column, report)| {
                    let run = report.runs.iter().find(|r| r.core_type == core_type)?;
                    let convergence = Convergence::of(run);
                    Some((column, convergence, convergence.rank_ms()?))
                })
                .collect();
            times.sort_by(|a, b| a.2.total_cmp(&b.2));
            let &(_, fastest, fastest_ms) = times.first()?;
            // Settings as fast as the fastest (below the resolution, all of those) share its
            // place: `A/C`.
            let tied = times
                .iter()
                .take_while(|&&(_, _, ms)| ms == fastest_ms)
                .count();
            let (first, others) = times.split_at(tied);
            let letters: Vec<String> = first
                .iter()
                .map(|&(column, _, _)| setting_letter(column))
                .collect();
            let others: Vec<String> = others
                .iter()
                .map(|&(column, convergence, _)| {
                    let time = convergence.words().unwrap_or_default();
                    format!("{} {time}", setting_letter(column))
                })
                .collect();
            let values: [(&str, &dyn std::fmt::Display); 4] = [
                ("cores", &cores_of_type(core_type)),
                ("letter", &letters.join("/")),
                ("time", &fastest.words().unwrap_or_default()),
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
        .collect();
    parts.extend(same_settings(comparison));
    parts
}

/// `A and D are the same settings`, for each setting that others ran the same as.
fn same_settings(comparison: &Comparison) -> Vec<String> {
    let same = same_as(comparison);
    (0..same.len())
        .filter(|&first| same[first].is_none())
        .filter_map(|first| {
            let mut letters: Vec<String> = alike(&same, first).map(setting_letter).collect();
            let last = letters.pop().filter(|_| !letters.is_empty())?;
            Some(fill(
                gettext("{letters} and {last} are the same settings"),
                &[("letters", &letters.join(", ")), ("last", &last)],
            ))
        })
        .collect()
}

/// What the result says, in one sentence; empty without runs.
pub fn sentence(outcome: &Outcome) -> String {
    let parts = match outcome {
        Outcome::Ramp(report) => ramp_sentence(report),
        Outcome::Compare(comparison) => comparison_sentence(comparison),
    };
    if parts.is_empty() {
        return String::new();
    }
    fill(gettext("{parts}."), &[("parts", &parts.join("; "))])
}

/// A verdict line per run (in a comparison, of each setting once): `P-cores: fast — 4.8 ms,
/// like Intel HWP's usual ~5 ms.`
pub fn verdicts(outcome: &Outcome) -> Vec<String> {
    match outcome {
        Outcome::Ramp(report) => verdict::lines(report, None),
        Outcome::Compare(comparison) => distinct(comparison)
            .flat_map(|(column, report)| verdict::lines(report, Some(&setting_letter(column))))
            .collect(),
    }
}

#[cfg(test)]
mod tests;
