// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl limits` and the limit chain in `pacerctl status` (JSON, OpenMetrics), on the
//! simulated Alder Lake laptop with its files changed through the kernel's rules as the
//! firmware, the thermal driver or another tool would change them: nothing holding, turbo
//! off, a cooling device in use, a lowered power limit; and the arguments refused.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::chain::{core, run_at, simulate_write};
use common::{openmetrics, pacerctl, pacerctl_as_user, prometheus_text, text};
use pacer_testrig::model_tree;
use serde_json::Value;

const RAPL: &str = "sys/class/powercap/intel-rapl:0";
/// Two readings a moment apart: throttle events and power drawn are measured between them.
const INTERVAL: &str = "0.2";

/// Turbo switched off, as intel_pstate takes it.
fn turbo_off(root: &Path) {
    simulate_write(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", "1");
}

/// The ACPI processor cooling of the package at `state` of 10: a write to one CPU's
/// cooling device reaches every policy of the package (`processor_thermal`).
fn processor_cooling(root: &Path, state: u32) {
    simulate_write(
        root,
        "/sys/class/thermal/cooling_device0/cur_state",
        &state.to_string(),
    );
}

/// A long-term limit of 8 W where the package's default is 28 W.
fn lowered_power_limit(root: &Path) {
    simulate_write(
        root,
        &format!("/{RAPL}/constraint_0_power_limit_uw"),
        "8000000",
    );
}

/// `pacerctl ARGS --sysfs-root ROOT --interval INTERVAL`, which must succeed.
fn run(root: &Path, args: &[&str]) -> String {
    run_at(root, args, INTERVAL)
}

/// `pacerctl limits --json`: the document's chain per core type.
fn limits_json(root: &Path) -> Vec<Value> {
    common::chain::limits_json(root, INTERVAL)
}

#[test]
fn the_laptop_as_it_comes_is_held_by_nothing() {
    let tree = model_tree("intel-hybrid");
    let limits = limits_json(tree.path());
    assert_eq!(limits.len(), 2, "{limits:#?}");
    for core in &limits {
        assert_eq!(core["limiter"], "none", "{core:#}");
        assert!(core["delivered_khz"].as_u64().unwrap() > 0);
        assert_eq!(core["delivered_source"], "cpuinfo_avg_freq");
        assert!(core["since"].is_null());
        assert_eq!(core["power"]["zone"], "intel-rapl:0");
    }
    let p_cores = core(&limits, "performance");
    assert_eq!(p_cores["requested_khz"], 4_700_000);
    assert_eq!(
        p_cores["policies"],
        serde_json::json!([0, 1, 2, 3, 4, 5, 6, 7])
    );
    assert_eq!(core(&limits, "efficiency")["hardware_max_khz"], 3_400_000);

    let words = run(tree.path(), &["limits"]);
    assert!(
        words.starts_with("Performance cores (policy 0-7)\n"),
        "{words}"
    );
    assert!(
        words.contains("\nEfficiency cores (policy 8-15)\n"),
        "{words}"
    );
    assert!(
        words.contains("  Performance cores not held back: they may run up to 4.7 GHz\n"),
        "{words}"
    );
    assert!(words.contains("intel_pstate/no_turbo 0 (turbo allowed)"));
    assert!(words.contains("(cpuinfo_avg_freq, average over 0.2 s)"));
    assert!(!words.contains("← holds these cores"), "{words}");

    // The status document carries the same chain, and the text its verdicts.
    let status: Value = serde_json::from_str(&run(tree.path(), &["status", "--json"])).unwrap();
    assert_eq!(status["schema"], 2);
    let limiters: Vec<&Value> = status["limits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|core| &core["limiter"])
        .collect();
    assert_eq!(limiters, ["none", "none"]);
    let human = run(tree.path(), &["status"]);
    assert!(
        human.contains("\nLimits\n  Performance cores not held back: they may run up to 4.7 GHz\n  Efficiency cores not held back: they may run up to 3.4 GHz\n"),
        "{human}"
    );
}

#[test]
fn turbo_off_is_the_firmware_holding_at_the_base_frequency() {
    let tree = model_tree("intel-hybrid");
    turbo_off(tree.path());
    let limits = limits_json(tree.path());
    let p_cores = core(&limits, "performance");
    assert_eq!(p_cores["limiter"], "firmware", "{p_cores:#}");
    assert_eq!(p_cores["ceiling_khz"], 2_100_000);
    assert_eq!(p_cores["firmware"]["boost"], false);
    assert_eq!(p_cores["firmware"]["max_khz"], 4_700_000);
    assert_eq!(core(&limits, "efficiency")["limiter"], "firmware");

    let words = run(tree.path(), &["limits"]);
    assert!(
        words.contains("  Firmware   cpuinfo_max_freq 4.7 GHz, intel_pstate/no_turbo 1 (turbo off), intel_pstate/max_perf_pct 100, holds at 2.1 GHz  ← holds these cores\n"),
        "{words}"
    );
    assert!(
        words.contains("  Performance cores held at 2.1 GHz by the firmware (turbo off)\n"),
        "{words}"
    );
}

#[test]
fn a_processor_cooling_state_is_a_thermal_limit_at_40_percent() {
    let tree = model_tree("intel-hybrid");
    processor_cooling(tree.path(), 3);
    let limits = limits_json(tree.path());
    let e_cores = core(&limits, "efficiency");
    assert_eq!(e_cores["limiter"], "thermal", "{e_cores:#}");
    // Three steps of 20 % below 3.4 GHz.
    assert_eq!(e_cores["ceiling_khz"], 1_360_000);
    let cooling = e_cores["thermal"]["cooling"].as_array().unwrap();
    // The package's step shows in each E-core's own device.
    assert_eq!(cooling.len(), 8, "one device per E-core");
    assert_eq!(cooling[0]["device"], "cooling_device8");
    assert_eq!(cooling[0]["kind"], "processor");
    assert_eq!(cooling[0]["cur_state"], 3);
    assert_eq!(cooling[0]["max_state"], 10);
    assert_eq!(cooling[0]["ceiling_khz"], 1_360_000);
    assert_eq!(core(&limits, "performance")["ceiling_khz"], 1_880_000);

    let words = run(tree.path(), &["limits"]);
    assert!(
        words.contains(
            "  Efficiency cores held at 1.36 GHz by a thermal limit (cooling state 3 of 10)\n"
        ),
        "{words}"
    );
    let thermal = words
        .lines()
        .filter(|line| line.starts_with("  Thermal "))
        .nth(1)
        .unwrap();
    assert!(
        thermal.contains("cooling_device8 and 7 more: Processor state 3 of 10 → 1.36 GHz, 0 throttle events in 0.2 s, holds at 1.36 GHz  ← holds these cores"),
        "{thermal}"
    );
}

#[test]
fn a_long_term_power_limit_below_its_default_shows_in_the_power_link() {
    let tree = model_tree("intel-hybrid");
    lowered_power_limit(tree.path());
    let limits = limits_json(tree.path());
    for core in &limits {
        let power = &core["power"];
        assert_eq!(power["long_term_uw"], 8_000_000, "{power:#}");
        assert_eq!(power["long_term_default_uw"], 28_000_000);
        assert_eq!(power["lowered"], true);
        // The simulated package draws nothing while the tree stands still: the lowered
        // limit holds nothing.
        assert_eq!(power["drawn_uw"], 0);
        assert_eq!(power["holds"], false);
        assert_eq!(core["limiter"], "none");
    }
    let words = run(tree.path(), &["limits"]);
    let power = words
        .lines()
        .find(|line| line.starts_with("  Power "))
        .unwrap();
    assert!(
        power.starts_with(
            "  Power      intel-rapl:0: long_term 8 W (default 28 W), short_term 64 W"
        ) && power.ends_with(", the long-term limit is below its default, drawing 0 W"),
        "{words}"
    );
}

#[test]
fn an_energy_counter_only_root_reads_leaves_the_power_drawn_unknown() {
    let tree = model_tree("intel-hybrid");
    // Only root reads the counter, on the simulated kernel as on Linux (`docs/kernel.md` 5).
    let energy = tree.path().join(format!("{RAPL}/energy_uj"));
    let mode = fs::metadata(&energy).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o400);
    let args = ["limits", "--interval", INTERVAL];
    let output = pacerctl_as_user(tree.path(), &args);
    let words = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        words.contains(", power drawn unknown: only root can read the energy counter\n"),
        "{words}"
    );
    let output = pacerctl_as_user(tree.path(), &["limits", "--json", "--interval", INTERVAL]);
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let power = &document["limits"][0]["power"];
    assert_eq!(power["drawn_unreadable"], true, "{power:#}");
    assert!(power["drawn_uw"].is_null());
}

#[test]
fn one_reading_leaves_what_moves_unknown() {
    let tree = model_tree("intel-hybrid");
    let output = pacerctl(&[
        "limits",
        "--sysfs-root",
        tree.path().to_str().unwrap(),
        "--interval",
        "0",
    ]);
    let words = text(&output.stdout);
    assert!(
        words.contains("power drawn unknown: one reading (--interval 0)"),
        "{words}"
    );
    assert!(words.contains("(cpuinfo_avg_freq, one reading)"), "{words}");
}

#[test]
fn bad_arguments_exit_2_naming_what_is_wrong() {
    let tree = model_tree("intel-hybrid");
    let root = tree.path().to_str().unwrap();
    for (args, words) in [
        (
            &["limits", "--interval", "-1"][..],
            "-1 is negative: give 0 (one reading) or more seconds",
        ),
        (
            &["status", "--interval", "abc"],
            "abc is not a number of seconds, as in 1 or 0.5",
        ),
        (
            &["status", "--interval", "120"],
            "120 is more than 60 seconds",
        ),
        (
            &["status", "--openmetrics", "--json"],
            "the argument '--openmetrics' cannot be used with '--json'",
        ),
        (
            &["status", "--prometheus", "--openmetrics"],
            "the argument '--prometheus' cannot be used with '--openmetrics'",
        ),
    ] {
        let mut all = args.to_vec();
        all.extend(["--sysfs-root", root]);
        let output = pacerctl(&all);
        let message = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{all:?}: {message}");
        assert!(message.contains(words), "{all:?}: {message}");
        assert!(output.stdout.is_empty());
    }
}

/// The family `name` of a parsed exposition.
fn family<'a>(families: &'a [Value], name: &str) -> &'a Value {
    families
        .iter()
        .find(|family| family["name"] == name)
        .unwrap_or_else(|| panic!("no family {name}"))
}

/// The value of the sample of `family` with all of `labels`.
fn value(families: &[Value], family_name: &str, labels: &[(&str, &str)]) -> f64 {
    let samples = family(families, family_name)["samples"].as_array().unwrap();
    samples
        .iter()
        .find(|sample| labels.iter().all(|(k, v)| sample["labels"][k] == *v))
        .unwrap_or_else(|| panic!("no {family_name} sample {labels:?} in {samples:#?}"))["value"]
        .as_f64()
        .unwrap()
}

#[test]
fn openmetrics_parses_with_a_real_parser_and_says_the_chain() {
    let tree = model_tree("intel-hybrid");
    processor_cooling(tree.path(), 3);
    lowered_power_limit(tree.path());
    turbo_off(tree.path());
    let exposition = run(tree.path(), &["status", "--openmetrics"]);
    assert!(exposition.ends_with("\n# EOF\n"), "{exposition}");
    let families: Vec<Value> = openmetrics(&exposition).as_array().unwrap().clone();
    let kinds: Vec<(&str, &str, &str)> = families
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap(),
                f["type"].as_str().unwrap(),
                f["unit"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("pacer_profile", "stateset", ""),
            ("pacer_governor", "stateset", ""),
            ("pacer_epp", "stateset", ""),
            ("pacer_requested_frequency_hertz", "gauge", "hertz"),
            ("pacer_delivered_frequency_hertz", "gauge", "hertz"),
            ("pacer_hardware_max_frequency_hertz", "gauge", "hertz"),
            ("pacer_ceiling_frequency_hertz", "gauge", "hertz"),
            ("pacer_limiter", "stateset", ""),
            ("pacer_power_limit_watts", "gauge", "watts"),
            ("pacer_power_limit_default_watts", "gauge", "watts"),
            ("pacer_power_drawn_watts", "gauge", "watts"),
            ("pacer_finding", "info", ""),
        ]
    );
    for family in &families {
        assert!(!family["help"].as_str().unwrap().is_empty(), "{family:#}");
    }
    let e_cores = ("core_type", "efficiency");
    let held = |limiter| {
        value(
            &families,
            "pacer_limiter",
            &[e_cores, ("pacer_limiter", limiter)],
        )
    };
    assert_eq!(held("thermal"), 1.0);
    assert_eq!(held("firmware"), 0.0);
    assert_eq!(held("none"), 0.0);
    let ceiling = value(&families, "pacer_ceiling_frequency_hertz", &[e_cores]);
    assert_eq!(ceiling, 1.36e9);
    let requested = value(&families, "pacer_requested_frequency_hertz", &[e_cores]);
    assert_eq!(requested, 3.4e9);
    let governor = [e_cores, ("pacer_governor", "powersave")];
    assert_eq!(value(&families, "pacer_governor", &governor), 1.0);
    let epp = [e_cores, ("pacer_epp", "balance_performance")];
    assert_eq!(value(&families, "pacer_epp", &epp), 1.0);
    let long_term = [("zone", "intel-rapl:0"), ("constraint", "long_term")];
    assert_eq!(value(&families, "pacer_power_limit_watts", &long_term), 8.0);
    assert_eq!(
        value(&families, "pacer_power_limit_default_watts", &long_term),
        28.0
    );
    let drawn = value(
        &families,
        "pacer_power_drawn_watts",
        &[("zone", "intel-rapl:0")],
    );
    assert_eq!(drawn, 0.0);
    let turbo = [("kind", "turbo-disabled"), ("severity", "info")];
    assert_eq!(value(&families, "pacer_finding", &turbo), 1.0);
}

/// Each sample of parsed families as (name, labels, value), sorted.
fn series(families: &Value) -> Vec<(String, String, String)> {
    let mut all: Vec<(String, String, String)> = families
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|family| family["samples"].as_array().unwrap())
        .map(|sample| {
            let labels = sample["labels"].to_string();
            let name = sample["name"].as_str().unwrap().to_owned();
            // One parser gives integers, the other floats: compared as numbers.
            (name, labels, sample["value"].as_f64().unwrap().to_string())
        })
        .collect();
    all.sort();
    all
}

#[test]
fn the_prometheus_format_carries_the_same_samples_for_node_exporter() {
    let tree = model_tree("intel-hybrid");
    processor_cooling(tree.path(), 3);
    turbo_off(tree.path());
    let text = run(tree.path(), &["status", "--prometheus"]);
    assert!(
        !text.contains("# EOF") && !text.contains("# UNIT"),
        "{text}"
    );
    let families = prometheus_text(&text);
    let open = openmetrics(&run(tree.path(), &["status", "--openmetrics"]));
    assert_eq!(series(&families), series(&open));
    let finding = families
        .as_array()
        .unwrap()
        .iter()
        .find(|family| family["name"] == "pacer_finding_info")
        .unwrap();
    assert_eq!(finding["type"], "gauge", "{finding:#}");
}
