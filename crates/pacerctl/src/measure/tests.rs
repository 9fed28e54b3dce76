// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `measure`: the text of a ramp and of a comparison.

use pacer_core::values::{CoreType, DriverMode, Epp, Governor};
use pacer_dbus::measurement::compare::Column;
use pacer_dbus::measurement::report::{Clock, RampRun, Settings, SCHEMA};
use pacer_dbus::measurement::statistic::Statistic;

use super::*;

/// A model's report under `governor` and `epp`: a P-core at `p_ms` to 95 %, an E-core at
/// `e_ms`.
fn report(governor: Governor, epp: Epp, p_ms: f64, e_ms: f64) -> RampReport {
    let run = |cpu, core_type, ms| RampRun {
        cpu,
        core_type: Some(core_type),
        trials: 1,
        t95_ms: Some(Statistic::exact(ms)),
        t95_resolution_ms: Some(0.1),
        ..RampRun::default()
    };
    RampReport {
        schema: SCHEMA,
        kind: "ramp".into(),
        simulated: true,
        settings: Settings {
            driver: Some("intel_pstate".into()),
            mode: Some(DriverMode::Active),
            governor: Some(governor),
            epp: Some(epp),
            eas: Some(false),
            boost: Some(true),
            profile: None,
        },
        clock: Clock::OnCpu,
        runs: vec![
            run(7, CoreType::Performance, p_ms),
            run(15, CoreType::Efficiency, e_ms),
        ],
    }
}

/// `text` with plain spaces for the no-break ones in its times.
fn plain(text: &str) -> String {
    text.replace('\u{a0}', " ")
}

#[test]
fn a_ramp_prints_its_table_then_a_verdict_per_run() {
    let text = plain(&ramp_text(&report(
        Governor::powersave(),
        Epp::BalancePerformance,
        5.0,
        0.0,
    )));
    assert!(text.contains("\nConvergence to 95% (ms)"), "{text}");
    assert!(
        text.ends_with(
            "P-cores: fast — 5.0 ms, like Intel HWP's usual ~5 ms.\n\
             E-cores: fast — < 0.1 ms, quicker than Intel HWP's usual ~8 ms.\n"
        ),
        "{text}"
    );
    // The table keeps the kernel's words; below the resolution it says so.
    assert!(text.contains("governor powersave, EPP balance_performance"));
    let convergence = text
        .lines()
        .find(|line| line.starts_with("Convergence"))
        .unwrap();
    let cells: Vec<&str> = convergence
        .split("  ")
        .map(str::trim)
        .filter(|cell| !cell.is_empty())
        .collect();
    assert_eq!(cells, ["Convergence to 95% (ms)", "5", "< 0.1"]);
}

#[test]
fn a_comparison_says_which_settings_ran_the_same_and_judges_each_once() {
    let performance = || report(Governor::performance(), Epp::Performance, 0.0, 0.0);
    let labels: Vec<String> = ["governor=performance", "epp=power", "governor=performance"]
        .map(String::from)
        .to_vec();
    let comparison = Comparison::new(
        labels
            .iter()
            .zip([
                performance(),
                report(Governor::powersave(), Epp::Power, 50.0, 80.0),
                performance(),
            ])
            .map(|(label, result)| Column {
                setting: parse_setting(label).unwrap(),
                result,
            })
            .collect(),
        true,
    );
    let text = plain(&comparison_text(&comparison, &labels));
    let tail: Vec<&str> = text.lines().rev().take(5).collect();
    assert_eq!(
        tail,
        [
            "Setting 3 (governor=performance) ran under the same settings as setting 1 (governor=performance).",
            "epp=power, E-cores: slow — 80 ms, 10 times Intel HWP's usual ~8 ms.",
            "epp=power, P-cores: slow — 50 ms, 10 times Intel HWP's usual ~5 ms.",
            "governor=performance, E-cores: fast — < 0.1 ms, quicker than Intel HWP's usual ~8 ms.",
            "governor=performance, P-cores: fast — < 0.1 ms, quicker than Intel HWP's usual ~5 ms.",
        ]
    );
    // Every column stays in the table.
    assert!(
        text.lines()
            .next()
            .unwrap()
            .matches("P-core (CPU 7)")
            .count()
            == 3
    );
}
