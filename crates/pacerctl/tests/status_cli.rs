// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl status` as a user runs it: exit codes, messages, the schema-1 JSON on every
//! machine kind, and unreadable files met as an unprivileged user.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use pacer_testrig::{model_tree, reference_trees};

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use common::{pacerctl, PACERCTL};

use pacer_core::sim;
use serde_json::Value;

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Checks the schema-1 contract of `docs/contracts.md` 2: every field there, with its type.
fn check_schema(document: &Value) {
    let is_uint_or_null = |v: &Value| v.is_null() || v.is_u64();
    let is_str_or_null = |v: &Value| v.is_null() || v.is_string();
    assert_eq!(document["schema"], 1);
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
fn json_follows_the_contract_on_every_model() {
    for model in sim::MODELS {
        let tree = model_tree(model.name);
        let document = status_json_of(model.name, tree.path());
        assert_eq!(document["simulated"], true);
    }
}

#[test]
fn json_follows_the_contract_on_every_reference_tree() {
    for name in reference_trees::TREES {
        let tree = reference_trees::lay_out(name);
        let document = status_json_of(name, tree.path());
        assert_eq!(document["simulated"], false);
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

/// Makes every directory from `dir` up to `/` traversable by others, and the tree readable.
fn open_to_others(dir: &Path) {
    for entry in walk(dir) {
        let meta = fs::symlink_metadata(&entry).unwrap();
        if meta.is_dir() {
            fs::set_permissions(&entry, fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = vec![dir.to_owned()];
    let mut index = 0;
    while index < found.len() {
        let path = found[index].clone();
        if fs::symlink_metadata(&path).unwrap().is_dir() {
            for entry in fs::read_dir(&path).unwrap() {
                found.push(entry.unwrap().path());
            }
        }
        index += 1;
    }
    found
}

/// EACCES on a file a user may not read. Root reads everything, so as root the binary runs
/// as `nobody` (util-linux `setpriv`); as a user, the file is simply made unreadable.
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
    let is_root = fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(1) == Some("0"));
    let output = if is_root {
        // The test binary may live under a directory `nobody` cannot enter: copy it out.
        let bin_dir = tempfile::tempdir().unwrap();
        let bin = bin_dir.path().join("pacerctl");
        fs::copy(PACERCTL, &bin).unwrap();
        open_to_others(bin_dir.path());
        open_to_others(root);
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(&bin)
            .args(["status", "--json", "--sysfs-root"])
            .arg(root)
            .output()
            .expect("setpriv (util-linux) runs the binary as nobody")
    } else {
        pacerctl(&["status", "--json", "--sysfs-root", root.to_str().unwrap()])
    };
    assert!(output.status.success(), "{}", stderr(&output));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let problems = document["problems"].as_array().unwrap();
    let problem = problems
        .iter()
        .find(|p| {
            p["path"]
                .as_str()
                .unwrap()
                .ends_with("policy0/scaling_max_freq")
        })
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
