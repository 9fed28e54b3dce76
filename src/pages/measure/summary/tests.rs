// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `summary`.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::pages::measure::fixtures::four_settings;
use crate::testing::simulated_ramp_report;
use pacer_core::values::Epp;
use pacer_dbus::measurement::compare::{Column, Setting};
use pacer_dbus::measurement::statistic::Statistic;

/// What `outcome` says, with plain spaces for the no-break ones in its times.
fn said(outcome: &Outcome) -> String {
    sentence(outcome).replace('\u{a0}', " ")
}

fn verdict_lines(outcome: &Outcome) -> Vec<String> {
    verdicts(outcome)
        .iter()
        .map(|line| line.replace('\u{a0}', " "))
        .collect()
}

#[test]
fn a_ramp_says_how_fast_each_core_type_is() {
    let report = simulated_ramp_report();
    assert_eq!(
        said(&Outcome::Ramp(report)),
        "P-cores reach 95 % in 5.0 ms; E-cores in 8.0 ms."
    );
}

#[test]
fn a_comparison_says_which_setting_is_first_on_each_core_type() {
    // Four settings apart (each its own EPP), with times on the model's resolution.
    let with_t95 = |epp: u8, p: f64, e: Option<f64>| {
        let mut report = simulated_ramp_report();
        report.settings.epp = Some(Epp::Raw(epp));
        report.runs[0].t95_ms = Some(Statistic::exact(p));
        report.runs[1].t95_ms = e.map(Statistic::exact);
        report
    };
    let columns = [
        with_t95(1, 50.0, Some(67.0)),
        with_t95(2, 5.0, Some(8.0)),
        with_t95(3, 12.0, None),
        with_t95(4, 5.0, Some(0.0)),
    ]
    .into_iter()
    .map(|result| Column {
        setting: Setting::default(),
        result,
    })
    .collect();
    assert_eq!(
        said(&Outcome::Compare(Comparison::new(columns, true))),
        "P-cores reach 95 % first under B/D (5.0 ms; C 12 ms, A 50 ms); \
         E-cores under D (< 0.1 ms; B 8.0 ms, A 67 ms)."
    );
    let empty = Comparison::new(Vec::new(), true);
    assert_eq!(sentence(&Outcome::Compare(empty)), "");
}

#[test]
fn settings_that_ran_the_same_count_once_and_are_said_to_be_the_same() {
    let outcome = Outcome::Compare(four_settings());
    let said = said(&outcome);
    assert_eq!(
        said,
        "P-cores reach 95 % first under A (< 0.1 ms; B 5.0 ms, C 50 ms); \
         E-cores under A (< 0.1 ms; B 8.0 ms, C 80 ms); A and D are the same settings."
    );
    assert!(!said.contains("0 ms;"), "never 0 ms: {said}");
    // A verdict per run, of each setting once.
    assert_eq!(
        verdict_lines(&outcome),
        [
            "A, P-cores: fast — < 0.1 ms, quicker than Intel HWP's usual ~5 ms.",
            "A, E-cores: fast — < 0.1 ms, quicker than Intel HWP's usual ~8 ms.",
            "B, P-cores: fast — 5.0 ms, like Intel HWP's usual ~5 ms.",
            "B, E-cores: fast — 8.0 ms, like Intel HWP's usual ~8 ms.",
            "C, P-cores: slow — 50 ms, 10 times Intel HWP's usual ~5 ms.",
            "C, E-cores: slow — 80 ms, 10 times Intel HWP's usual ~8 ms.",
        ]
    );
}

#[test]
fn each_line_but_the_sentence_stays_under_15_words() {
    let outcome = Outcome::Compare(four_settings());
    for line in verdicts(&outcome)
        .into_iter()
        .chain(outcome.description().lines().map(str::to_owned))
    {
        let words = line.split_whitespace().count();
        assert!(words < 15, "{words} words: {line}");
    }
}
