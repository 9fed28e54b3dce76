// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl status` as a user runs it: exit codes, messages, the schema-2 JSON and the
//! OpenMetrics text on every machine kind, and unreadable files met as an unprivileged user.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use pacer_testrig::{model_tree, reference_trees};

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use common::{openmetrics, pacerctl, pacerctl_as_user, PACERCTL};

use pacer_core::sim;
use serde_json::Value;

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Checks the schema-2 contract of `docs/contracts.md` 2: every field there, with its type.
fn check_schema(document: &Value) {
    let is_uint_or_null = |v: &Value| v.is_null() || v.is_u64();
    let is_str_or_null = |v: &Value| v.is_null() || v.is_string();
    assert_eq!(document["schema"], 2);
    assert!(document["simulated"].is_boolean());
    for cpu in document["cpus"].as_array().unwrap() {
        assert!(cpu["id"].is_u64());
        assert!(cpu["online"].is_boolean());
        assert!(is_uint_or_null(&cpu["policy"]));
        assert!(matches!(
            cpu["core_type"].as_str(),
            None | Some("performance" | "efficiency" | "low-power")
        ));
        assert!(is_uint_or_null(&cpu["capacity"]));
        assert!(is_uint_or_null(&cpu["cur_khz"]));
    }
    for policy in document["policies"].as_array().unwrap() {
        assert!(policy["id"].is_u64());
        assert!(policy["cpus"].as_array().unwrap().iter().all(Value::is_u64));
        for key in ["driver", "governor", "epp"] {
            assert!(is_str_or_null(&policy[key]), "{key}");
        }
        for key in ["available_governors", "available_epp"] {
            let list = &policy[key];
            assert!(list.is_null() || list.as_array().unwrap().iter().all(Value::is_string));
        }
        for key in [
            "epb",
            "min_khz",
            "max_khz",
            "hw_min_khz",
            "hw_max_khz",
            "base_khz",
            "cur_khz",
        ] {
            assert!(is_uint_or_null(&policy[key]), "{key}");
        }
    }
    let driver = &document["driver"];
    assert!(is_str_or_null(&driver["name"]));
    assert!(matches!(
        driver["mode"].as_str(),
        None | Some("active" | "passive" | "guided")
    ));
    assert!(driver["boost"].is_null() || driver["boost"].is_boolean());
    let eas = &document["eas"];
    assert!(eas["active"].is_null() || eas["active"].is_boolean());
    assert!(matches!(
        eas["sysctl"].as_str(),
        None | Some("1" | "0" | "")
    ));
    assert!(eas["reasons"].is_array());
    assert!(document["profile"].is_null() || document["profile"].is_object());
    assert!(document["findings"].is_array());
    for core in document["limits"].as_array().unwrap() {
        check_limits(core);
    }
}

/// One core type's limit chain (schema 2).
fn check_limits(core: &Value) {
    let is_uint_or_null = |v: &Value| v.is_null() || v.is_u64();
    assert!(matches!(
        core["core_type"].as_str(),
        None | Some("performance" | "efficiency" | "low-power")
    ));
    assert!(core["policies"]
        .as_array()
        .unwrap()
        .iter()
        .all(Value::is_u64));
    for key in [
        "requested_khz",
        "hardware_max_khz",
        "delivered_khz",
        "ceiling_khz",
    ] {
        assert!(is_uint_or_null(&core[key]), "{key}");
    }
    assert!(matches!(
        core["delivered_source"].as_str(),
        None | Some("cpuinfo_avg_freq" | "scaling_cur_freq")
    ));
    assert!(matches!(
        core["limiter"].as_str(),
        Some("none" | "settings" | "firmware" | "platform" | "thermal" | "power")
    ));
    assert!(core["held_policies"].is_array());
    assert!(core["since"].is_null() || core["since"].is_string());
    for link in ["settings", "firmware", "platform", "thermal", "power"] {
        assert!(core[link].is_object(), "{link}");
    }
    assert!(core["thermal"]["cooling"].is_array());
    for key in ["lowered", "holds", "drawn_unreadable"] {
        assert!(core["power"][key].is_boolean(), "{key}");
    }
}

/// `pacerctl status --openmetrics` on `root`: it succeeds and a real OpenMetrics parser
/// takes it, with one limiter per core type.
fn check_openmetrics(name: &str, root: &Path) {
    let output = pacerctl(&[
        "status",
        "--openmetrics",
        "--sysfs-root",
        root.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{name}: {}", stderr(&output));
    let families = openmetrics(&String::from_utf8(output.stdout).unwrap());
    let limiter = families
        .as_array()
        .unwrap()
        .iter()
        .find(|family| family["name"] == "pacer_limiter")
        .unwrap();
    let samples = limiter["samples"].as_array().unwrap();
    let held = samples
        .iter()
        .filter(|sample| sample["value"] == 1.0)
        .count();
    // Six states per core type, one of them the limiter.
    assert_eq!(held * 6, samples.len(), "{name}: {limiter:#}");
}

/// `pacerctl status --json` on `root`: it succeeds and follows the contract.
fn status_json_of(name: &str, root: &Path) -> Value {
    let output = pacerctl(&["status", "--json", "--sysfs-root", root.to_str().unwrap()]);
    assert!(output.status.success(), "{name}: {}", stderr(&output));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    check_schema(&document);
    document
}

#[test]
fn json_and_openmetrics_follow_their_contracts_on_every_model() {
    for model in sim::MODELS {
        let tree = model_tree(model.name);
        let document = status_json_of(model.name, tree.path());
        assert_eq!(document["simulated"], true);
        check_openmetrics(model.name, tree.path());
    }
}

#[test]
fn json_and_openmetrics_follow_their_contracts_on_every_reference_tree() {
    for name in reference_trees::TREES {
        let tree = reference_trees::lay_out(name);
        let document = status_json_of(name, tree.path());
        assert_eq!(document["simulated"], false);
        check_openmetrics(name, tree.path());
    }
}

#[test]
fn the_environment_names_the_root_too() {
    let tree = model_tree("arm-rk3588");
    let output = Command::new(PACERCTL)
        .args(["status", "--json"])
        .env("PACER_SYSFS_ROOT", tree.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["driver"]["name"], "cpufreq-dt");
    assert_eq!(document["eas"]["active"], true);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["frobnicate"][..],
        &["status", "--jsn"],
        &["status", "--sysfs-root"],
        &[],
    ] {
        let output = pacerctl(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn a_root_that_is_no_machine_exits_1_with_one_line() {
    let empty = tempfile::tempdir().unwrap();
    let missing = empty.path().join("missing");
    for (root, words) in [
        (empty.path(), "holds no sys/devices/system/cpu"),
        (missing.as_path(), "does not exist"),
    ] {
        let output = pacerctl(&["status", "--sysfs-root", root.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(1));
        let message = stderr(&output);
        assert!(message.starts_with("pacerctl: "), "{message}");
        assert!(message.contains(words), "{message}");
        assert_eq!(message.lines().count(), 1, "{message}");
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn garbled_files_are_listed_and_the_rest_still_shown() {
    let tree = model_tree("amd-zen4");
    fs::write(
        tree.path()
            .join("sys/devices/system/cpu/cpufreq/policy3/scaling_max_freq"),
        "fast\n",
    )
    .unwrap();
    let output = pacerctl(&["status", "--sysfs-root", tree.path().to_str().unwrap()]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("1 file could not be read as expected:"),
        "{text}"
    );
    assert!(text.contains("policy3/scaling_max_freq holds \"fast\", not a frequency in kHz"));
    assert!(text.contains("amd-pstate-epp (active mode)"));
}

/// EACCES on a file a user may not read.
#[test]
fn unreadable_files_name_the_errno() {
    let tree = model_tree("arm-rk3588");
    let root = tree.path();
    let policy0 = root.join("sys/devices/system/cpu/cpufreq/policy0");
    fs::set_permissions(
        policy0.join("scaling_max_freq"),
        fs::Permissions::from_mode(0o400),
    )
    .unwrap();
    let output = pacerctl_as_user(root, &["status", "--json", "--interval", "0.1"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let problems = document["problems"].as_array().unwrap();
    let about = |p: &&Value| {
        p["path"]
            .as_str()
            .is_some_and(|path| path.ends_with("policy0/scaling_max_freq"))
    };
    // The limit chain reads the file too: it is listed once.
    assert_eq!(problems.iter().filter(about).count(), 1, "{problems:#?}");
    let problem = problems
        .iter()
        .find(about)
        .unwrap_or_else(|| panic!("{problems:?}"));
    assert_eq!(problem["kind"], "unreadable");
    assert_eq!(problem["errno"], 13);
    assert!(problem["error"]
        .as_str()
        .unwrap()
        .contains("Permission denied"));
    let policy = &document["policies"][0];
    assert!(policy["max_khz"].is_null(), "never guessed");
    assert_eq!(policy["min_khz"], 1_008_000);
}
