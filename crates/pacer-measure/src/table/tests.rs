// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `table`.

use super::*;
use pacer_core::values::{DriverMode, Governor};
use pacer_dbus::measurement::compare::{parse_setting, Column};
use pacer_dbus::measurement::report::{TrialRecord, Window, SCHEMA};

fn exact(mean: f64, sd: f64) -> Option<Statistic> {
    Some(Statistic {
        sd,
        ..Statistic::exact(mean)
    })
}

/// A P-core run with figures and spread, and an E-core run missing its energy and all
/// but two windows.
fn report() -> RampReport {
    let run = |cpu, core_type, windows: usize| RampRun {
        cpu,
        core_type: Some(core_type),
        trials: 3,
        idle_wait_ms: 300.0,
        sample_period_us: Some(2.0),
        sampling_overhead_pct: Some(1.0),
        windows: WINDOWS_MS
            .iter()
            .take(windows)
            .map(|&end_ms| Window {
                end_ms,
                pct: exact(50.0 + end_ms as f64 / 10.0, 0.5),
            })
            .collect(),
        t95_ms: exact(5.0, 0.0),
        steady_mops: exact(587.5, 0.0),
        pinned: Some(true),
        nice: Some(-20),
        ..RampRun::default()
    };
    let mut p_core = run(3, CoreType::Performance, WINDOWS_MS.len());
    p_core.power_w = exact(12.5, 0.25);
    p_core.j_per_gop = exact(0.021, 0.0);
    p_core.off_cpu_ms = exact(1.5, 0.5);
    p_core.interruptions = exact(3.0, 1.0);
    p_core.per_trial = (0..5)
        .map(|trial| TrialRecord {
            t95_ms: Some(5.0),
            off_cpu_ms: 1.5,
            run_delay_ms: Some(1.4),
            gaps_ms: 1.9,
            interruptions: 3,
            disturbed: trial == 4,
        })
        .collect();
    p_core.disturbed_trials = 1;
    p_core.repeated_trials = 2;
    p_core.energy_domain = Some("package-0".into());
    p_core.quiet = Some(Quiet {
        load_1m: Some(0.5),
        busy_pct: Some(3.2),
        runnable_on_cpu: Some(0),
        bound_to_cpu: Some(1),
        all_tasks_seen: Some(false),
    });
    RampReport {
        schema: SCHEMA,
        kind: "ramp".into(),
        simulated: false,
        settings: Settings {
            driver: Some("intel_pstate".into()),
            mode: Some(DriverMode::Active),
            governor: Some(Governor::powersave()),
            epp: None,
            eas: Some(false),
            boost: None,
            profile: None,
        },
        clock: Clock::OnCpu,
        runs: vec![p_core, run(15, CoreType::Efficiency, 2)],
    }
}

#[test]
fn a_column_per_setting_and_cpu_and_a_row_per_figure() {
    let report = report();
    let table = RampTable::new(&[(None, &report), (Some("epp=power"), &report)]);
    assert_eq!(
        table.columns,
        [
            "P-core (CPU 3)",
            "E-core (CPU 15)",
            "epp=power P-core (CPU 3)",
            "epp=power E-core (CPU 15)"
        ]
    );
    // A heading, 7 windows and the convergence; a heading and throughput; a heading,
    // power and efficiency; a heading, off-CPU time, interruptions, disturbed trials and
    // repeats, the CPU's busy share and runnable tasks; how the thread ran.
    assert_eq!(table.rows.len(), 22);
    let headings: Vec<&str> = table
        .rows
        .iter()
        .filter(|row| row.section)
        .map(|row| row.label.as_str())
        .collect();
    assert_eq!(
        headings,
        [
            "Ramp-up (average throughput in window / steady):",
            "Steady-state:",
            "Energy (package-0):",
            "Scheduler (its time left out above):"
        ]
    );
    for row in &table.rows {
        assert_eq!(row.cells.len(), if row.section { 0 } else { 4 }, "{row:?}");
    }
    assert_eq!(table.rows[1].label, "0-5 ms (%)");
    assert_eq!(table.rows[1].cells[0], "50.5 ± 0.5");
    assert_eq!(table.rows[8].cells[0], "5");
    assert_eq!(table.rows[15].label, "Off the CPU (ms)");
    assert_eq!(table.rows[15].cells[0], "1.5 ± 0.5");
    assert_eq!(table.rows[17].cells[0], "1 of 5");
    assert_eq!(table.rows[18].cells[0], "2");
    assert_eq!(table.rows[19].label, "CPU busy before (%)");
    assert_eq!(table.rows[19].cells[0], "3");
    assert_eq!(table.rows[19].cells[1], "—");
    assert_eq!(table.rows[20].cells[0], "0 seen");
    assert_eq!(table.rows[21].label, "Pinned (nice level)");
    assert_eq!(table.rows[21].cells[0], "yes (-20)");
    assert_eq!(
        table.settings_line,
        "Settings: intel_pstate active, governor powersave, EPP —, EAS off, turbo ?"
    );
}

#[test]
fn missing_figures_are_dashes() {
    let report = report();
    let table = RampTable::new(&[(None, &report)]);
    let cells = |label: &str| {
        table
            .rows
            .iter()
            .find(|row| row.label == label)
            .map(|row| row.cells.clone())
            .unwrap()
    };
    assert_eq!(cells("0-10 ms (%)")[1], "51.0 ± 0.5");
    assert_eq!(cells("0-20 ms (%)"), ["52.0 ± 0.5", "—"]);
    assert_eq!(cells("Average power (W)"), ["12.50 ± 0.25", "—"]);
    assert_eq!(cells("Efficiency (J/Gop)"), ["0.021", "—"]);
}

#[test]
fn text_sets_figures_in_and_aligns_them_right() {
    let report = report();
    let text = RampTable::new(&[(None, &report)]).to_text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 24);
    assert_eq!(
        lines[0],
        "                                                  P-core (CPU 3)  E-core (CPU 15)"
    );
    assert_eq!(lines[1], "Ramp-up (average throughput in window / steady):");
    assert_eq!(
        lines[2],
        "  0-5 ms (%)                                          50.5 ± 0.5       50.5 ± 0.5"
    );
    assert_eq!(
        lines[9],
        "Convergence to 95% (ms)                                        5                5"
    );
    assert!(lines[23].starts_with("Settings: intel_pstate"));
    // Without reports: an empty header line and no settings.
    let empty = RampTable::new(&[]).to_text();
    assert!(empty.starts_with("\nRamp-up"));
    assert!(empty.ends_with("Pinned (nice level)\n"));
}

#[test]
fn csv_quotes_what_needs_it() {
    let report = report();
    let table = RampTable::new(&[(Some("governor=schedutil,epp=\"power\""), &report)]);
    let csv = table.to_csv();
    let lines: Vec<&str> = csv.split_terminator("\r\n").collect();
    assert_eq!(lines.len(), 1 + 22);
    assert_eq!(
        lines[0],
        ",\"governor=schedutil,epp=\"\"power\"\" P-core (CPU 3)\",\
         \"governor=schedutil,epp=\"\"power\"\" E-core (CPU 15)\""
    );
    assert_eq!(
        lines[1],
        "Ramp-up (average throughput in window / steady):,,"
    );
    assert_eq!(lines[2], "0-5 ms (%),50.5 ± 0.5,50.5 ± 0.5");
    assert_eq!(lines[4], "0-20 ms (%),52.0 ± 0.5,—");
    assert!(csv.ends_with(
        "Efficiency (J/Gop),0.021,—\r\n\
         Scheduler (its time left out above):,,\r\n\
         Off the CPU (ms),1.5 ± 0.5,—\r\n\
         Interruptions,3 ± 1,—\r\n\
         Disturbed trials,1 of 5,—\r\n\
         Trials repeated,2,—\r\n\
         CPU busy before (%),3,—\r\n\
         Tasks runnable on it before,0 seen,—\r\n\
         Pinned (nice level),yes (-20),yes (-20)\r\n"
    ));
    assert_eq!(csv_field("a\nb"), "\"a\nb\"");
    assert_eq!(csv_field("plain"), "plain");
}

#[test]
fn a_comparison_has_a_column_per_setting_and_cpu() {
    let comparison = Comparison::new(
        vec![Column {
            setting: parse_setting("epp=performance").unwrap(),
            result: report(),
        }],
        true,
    );
    assert_eq!(
        RampTable::of_comparison(&comparison).columns,
        [
            "epp=performance P-core (CPU 3)",
            "epp=performance E-core (CPU 15)"
        ]
    );
}

#[test]
fn below_the_resolution_the_table_says_less_than_and_csv_keeps_the_number() {
    let mut report = report();
    report.runs[0].t95_ms = exact(0.0, 0.0);
    report.runs[0].t95_resolution_ms = Some(1.0);
    // A model's run: a tenth of a millisecond.
    report.runs[1].sample_period_us = None;
    report.runs[1].t95_ms = exact(0.04, 0.0);
    let table = RampTable::new(&[(None, &report)]);
    let row = table
        .rows
        .iter()
        .find(|row| row.label == "Convergence to 95% (ms)")
        .unwrap();
    assert_eq!(row.cells, ["< 1", "< 0.1"]);
    // Both as soon as can be told: level, neither better.
    assert_eq!(row.means, [Some(0.0), Some(0.0)]);
    assert!(table.to_text().contains(
        "Convergence to 95% (ms)                                      < 1            < 0.1"
    ));
    assert!(table
        .to_csv()
        .contains("\r\nConvergence to 95% (ms),0,0\r\n"));
}
