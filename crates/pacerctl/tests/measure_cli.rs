// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl measure`: the ramp table (`docs/measurement.md` 2) from a simulated machine's model, a real (short) run
//! in the schema-1 contract, and a comparison through the real helper that restores the
//! settings it changed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Output;

use common::{pacerctl, PACERCTL};

use pacer_testrig::SystemBus;
use serde_json::Value;

fn json(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn window(run: &Value, index: usize) -> f64 {
    run["windows"][index]["pct"]["mean"].as_f64().unwrap()
}

#[test]
fn a_simulated_machine_gives_the_published_shape() {
    let report = json(&pacerctl(&[
        "measure",
        "ramp",
        "--simulate",
        "intel-hybrid-nosmt",
        "--json",
    ]));
    assert_eq!(
        (report["schema"].as_u64(), report["kind"].as_str()),
        (Some(1), Some("ramp"))
    );
    assert_eq!(report["simulated"], true);
    assert_eq!(report["settings"]["driver"], "intel_pstate");
    assert_eq!(report["settings"]["epp"], "balance_performance");
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "one CPU per core type");
    assert_eq!(runs[0]["core_type"], "performance");
    assert_eq!(runs[1]["core_type"], "efficiency");
    assert!(
        (window(&runs[0], 0) - 70.6).abs() < 14.0,
        "P 0-5 ms near the published 70.6 % (docs/measurement.md 2)"
    );
    assert_eq!(runs[0]["t95_ms"]["mean"].as_f64().unwrap().round(), 5.0);
    // The step it is found in: a model's tenth (docs/measurement.md 3.1).
    assert_eq!(runs[0]["t95_resolution_ms"], 0.1);
    assert!(runs[0]["power_w"].is_null() && runs[0]["sample_period_us"].is_null());

    let text = String::from_utf8(
        pacerctl(&["measure", "ramp", "--simulate", "intel-hybrid-nosmt"]).stdout,
    )
    .unwrap();
    assert!(
        text.contains("Ramp-up (average throughput in window / steady):"),
        "{text}"
    );
    assert!(text.contains("Convergence to 95% (ms)"));
    assert!(text.contains("(simulated machine: figures from its model)"));
    assert!(
        text.contains("P-cores: fast — 5.0\u{a0}ms, like Intel HWP's usual ~5 ms."),
        "a verdict per run: {text}"
    );
}

#[test]
fn a_short_real_run_follows_the_contract() {
    let report = json(&pacerctl(&["measure", "ramp", "--trials", "1", "--json"]));
    assert_eq!(report["simulated"], false);
    let run = &report["runs"][0];
    assert_eq!(run["trials"], 1);
    let ends: Vec<u64> = run["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["end_ms"].as_u64().unwrap())
        .collect();
    assert_eq!(ends, [5, 10, 20, 50, 100, 500, 1000]);
    assert!(run["steady_mops"]["mean"].as_f64().unwrap() > 1.0);
    assert!(run["sample_period_us"].as_f64().unwrap() <= 20.0);
    assert!(run["sampling_overhead_pct"].is_number());
    for key in ["mean", "sd", "min", "max"] {
        assert!(run["steady_mops"][key].is_number(), "{key}");
    }

    let wakeup = json(&pacerctl(&[
        "measure", "wakeup", "--cpus", "0,0", "--trials", "1", "--json",
    ]));
    assert_eq!(wakeup["kind"], "wakeup");
    assert_eq!(wakeup["cpus"], serde_json::json!([0, 0]));
    assert!(wakeup["round_trip_us"]["steady"]["mean"].as_f64().unwrap() > 0.0);
    assert!(wakeup["round_trips_per_s"]["mean"].as_f64().unwrap() > 100.0);
}

#[test]
fn bad_measurement_arguments_are_named() {
    let output = pacerctl(&["measure", "wakeup", "--cpus", "0"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("--cpus takes two CPUs"));
    let output = pacerctl(&["measure", "wakeup", "--cpus", "0,4096"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("there is no CPU 4096 here"));
    let output = pacerctl(&["measure", "ramp", "--cpu", "9999"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("there is no online CPU 9999"));
    let output = pacerctl(&["measure", "compare", "--setting", "colour=blue"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("colour is not a setting"));
    assert_eq!(pacerctl(&["measure", "compare"]).status.code(), Some(2));
}

/// The four columns of `docs/measurement.md` 2 in one command on the simulated laptop, through the real helper
/// on a private system bus; afterwards the machine is as it was.
#[test]
fn compare_switches_through_the_helper_and_restores() {
    let bus = SystemBus::start();
    let _polkit = bus.polkit(&pacer_dbus::actions::ALL);
    let tree = pacer_testrig::model_tree("intel-hybrid-nosmt");
    let state = tempfile::tempdir().unwrap();
    let _helper = bus.pacer_helper(tree.path(), state.path());
    let before = std::fs::read_to_string(tree.path().join(".pacer-sim/machine.json")).unwrap();

    let output = bus
        .command(PACERCTL)
        .args([
            "measure",
            "compare",
            "--json",
            "--core-type",
            "performance",
            "--setting",
            "epp=balance_performance",
            "--setting",
            "epp=performance",
            "--setting",
            "mode=passive,governor=schedutil",
            "--setting",
            "mode=passive,governor=schedutil,eas=off",
            "--sysfs-root",
        ])
        .arg(tree.path())
        .output()
        .unwrap();
    let comparison = json(&output);
    assert_eq!(comparison["kind"], "compare");
    assert_eq!(comparison["restored"], true);
    let columns = comparison["columns"].as_array().unwrap();
    assert_eq!(columns.len(), 4);
    let t95 = |column: &Value| {
        column["result"]["runs"][0]["t95_ms"]["mean"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(t95(&columns[0]).round(), 5.0, "active, balance_performance");
    assert!(t95(&columns[1]) < 1.0, "active, performance");
    assert!((t95(&columns[2]) - 52.0).abs() < 10.0, "schedutil");
    assert_eq!(columns[2]["result"]["settings"]["eas"], true);
    assert_eq!(columns[3]["result"]["settings"]["eas"], false);
    assert_eq!(columns[1]["setting"]["epp"], "performance");

    let after = std::fs::read_to_string(tree.path().join(".pacer-sim/machine.json")).unwrap();
    assert_eq!(after, before, "the settings from before are back");
}

/// With pacer-helper on the bus, the ramp is measured by it (as root, at the highest
/// priority): on a simulated machine from its model, on this machine for real.
#[test]
fn the_helper_measures_when_it_is_there() {
    let bus = SystemBus::start();
    let _polkit = bus.polkit(&pacer_dbus::actions::ALL);
    let tree = pacer_testrig::model_tree("arm-rk3588");
    let state = tempfile::tempdir().unwrap();
    {
        let _helper = bus.pacer_helper(tree.path(), state.path());
        let output = bus
            .command(PACERCTL)
            .args(["measure", "ramp", "--json", "--sysfs-root"])
            .arg(tree.path())
            .output()
            .unwrap();
        let report = json(&output);
        assert_eq!(report["simulated"], true);
        assert_eq!(report["runs"].as_array().unwrap().len(), 2, "A55 and A76");
        assert!(!String::from_utf8_lossy(&output.stderr).contains("not running"));
    }
    // This machine, for real, one trial.
    let _helper = bus.pacer_helper(std::path::Path::new("/"), state.path());
    let output = bus
        .command(PACERCTL)
        .args([
            "measure",
            "ramp",
            "--json",
            "--trials",
            "1",
            "--sysfs-root",
            "/",
        ])
        .output()
        .unwrap();
    let report = json(&output);
    assert_eq!(report["simulated"], false);
    assert!(report["runs"][0]["steady_mops"]["mean"].as_f64().unwrap() > 1.0);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("trial 1 of 1"),
        "progress by signal"
    );

    // Without polkit's consent the helper says no, and pacerctl says so (no silent fallback).
    bus.set_allowed(&[]);
    let output = bus
        .command(PACERCTL)
        .args(["measure", "ramp", "--trials", "1", "--sysfs-root", "/"])
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not allowed"));
}
