// SPDX-License-Identifier: GPL-3.0-or-later
//! `--simulate NAME` and `pacerctl simulate` as a user runs them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{pacerctl, text};
use serde_json::Value;

#[test]
fn list_names_every_model_with_a_line() {
    let output = pacerctl(&["simulate", "list"]);
    assert!(output.status.success());
    let listing = text(&output.stdout);
    for model in [
        "intel-hybrid",
        "intel-hybrid-nosmt",
        "amd-zen4",
        "arm-rk3588",
        "vm",
        "amd-resume-clamp",
        "amd-dynamic-epp",
        "intel-hybrid-thermal",
        "intel-power-limit",
    ] {
        let line = listing
            .lines()
            .find(|l| l.split_whitespace().next() == Some(model))
            .unwrap_or_else(|| panic!("{model} is not listed:\n{listing}"));
        assert!(line.len() > model.len() + 10, "{line}");
    }
}

#[test]
fn status_runs_on_every_model_and_says_simulated() {
    for model in [
        "intel-hybrid",
        "intel-hybrid-nosmt",
        "amd-zen4",
        "arm-rk3588",
        "vm",
    ] {
        let output = pacerctl(&["status", "--json", "--simulate", model]);
        assert!(output.status.success(), "{model}: {}", text(&output.stderr));
        let document: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(document["simulated"], true, "{model}");
        assert_eq!(
            document["problems"].as_array().unwrap().len(),
            1,
            "only the bus is missing"
        );
        let human = text(&pacerctl(&["status", "--simulate", model]).stdout);
        assert!(human.starts_with("Machine  simulated"), "{human}");
    }
}

#[test]
fn a_shared_directory_is_laid_out_once_and_written_through_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let status = |args: &[&str]| -> Value {
        let mut all = vec!["status", "--json", "--sysfs-root", root];
        all.extend_from_slice(args);
        serde_json::from_slice(&pacerctl(&all).stdout).unwrap()
    };
    assert_eq!(status(&["--simulate", "intel-hybrid"])["simulated"], true);
    let governor = "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor";
    let epp = "/sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference";
    let output = pacerctl(&[
        "simulate",
        "write",
        "--sysfs-root",
        root,
        governor,
        "performance",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), format!("{governor}: written\n"));

    // The kernel's refusal, as the kernel words it, and exit status 1.
    let output = pacerctl(&["simulate", "write", "--sysfs-root", root, epp, "power"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!("pacerctl: {epp}: the kernel refuses power: Device or resource busy (EBUSY)\n")
    );
    // Reused, not laid out again: a plain read sees the write, marked simulated.
    let document = status(&["--simulate", "intel-hybrid"]);
    assert_eq!(document["policies"][0]["governor"], "performance");
    assert_eq!(status(&[])["simulated"], true);

    // Another model there is refused, and so is a directory that holds something else.
    let output = pacerctl(&["status", "--sysfs-root", root, "--simulate", "vm"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("already holds the simulated intel-hybrid"));
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("notes.txt"), "mine").unwrap();
    let output = pacerctl(&[
        "status",
        "--simulate",
        "vm",
        "--sysfs-root",
        other.path().to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("neither empty nor a simulated machine"));
    assert!(
        other.path().join("notes.txt").exists(),
        "nothing of it was touched"
    );
}

#[test]
fn bad_simulate_arguments_name_the_problem() {
    let output = pacerctl(&["status", "--simulate", "cray-1"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("there is no simulated machine called cray-1"));
    let output = pacerctl(&["simulate", "write", "/sys/x", "1"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("--sysfs-root DIR"));
    let plain = tempfile::tempdir().unwrap();
    let output = pacerctl(&[
        "simulate",
        "write",
        "--sysfs-root",
        plain.path().to_str().unwrap(),
        "/sys/x",
        "1",
    ]);
    assert!(text(&output.stderr).contains("holds no simulated machine"));
    let output = pacerctl(&["simulate", "write"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn resume_applies_the_models_quirk_and_refuses_a_plain_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let max = |policy: u32| {
        std::fs::read_to_string(dir.path().join(format!(
            "sys/devices/system/cpu/cpufreq/policy{policy}/scaling_max_freq"
        )))
        .unwrap()
    };
    let status = pacerctl(&[
        "status",
        "--sysfs-root",
        root,
        "--simulate",
        "amd-resume-clamp",
    ]);
    assert!(status.status.success(), "{}", text(&status.stderr));
    assert_eq!(max(4), "4900000\n");
    let output = pacerctl(&["simulate", "resume", "--sysfs-root", root]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        format!("{root}: suspended and resumed\n")
    );
    assert_eq!(max(4), "400000\n");
    assert_eq!(max(0), "4900000\n");

    let plain = tempfile::tempdir().unwrap();
    let output = pacerctl(&[
        "simulate",
        "resume",
        "--sysfs-root",
        plain.path().to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("holds no simulated machine"),
        "{}",
        text(&output.stderr)
    );
    let output = pacerctl(&["simulate", "resume"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("--sysfs-root DIR"));
}
