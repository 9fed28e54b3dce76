// SPDX-License-Identifier: GPL-3.0-or-later
//! Trees for tests: the project's simulated machines, and the model behind each reference
//! tree (`pacer_testrig::reference_trees`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use pacer_core::sim::{self, SimDriver, SimMachine};

/// A model by name, adjusted by `change` before it is laid out.
pub fn machine(name: &str, change: impl FnOnce(&mut SimMachine)) -> SimMachine {
    let mut machine = sim::model(name).unwrap_or_else(|| panic!("no model {name}"));
    change(&mut machine);
    machine
}

/// intel_pstate switched to passive mode with schedutil, as `intel_pstate=passive` boots.
pub fn passive(machine: &mut SimMachine) {
    if let SimDriver::IntelPstate { passive, .. } = &mut machine.driver {
        *passive = true;
    }
    for policy in &mut machine.policies {
        policy.governor = "schedutil".into();
    }
}

pub fn render(machine: &SimMachine) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    machine.render(dir.path()).unwrap();
    dir
}

/// The model, as booted, behind each reference tree.
pub fn model_for_tree(tree: &str) -> SimMachine {
    match tree {
        "intel-hybrid-active" => machine("intel-hybrid", |_| {}),
        "intel-hybrid-active-eas" => machine("intel-hybrid-nosmt", |_| {}),
        "intel-hybrid-passive-schedutil" => machine("intel-hybrid", passive),
        "intel-hybrid-passive-eas" => machine("intel-hybrid-nosmt", passive),
        "amd-zen4-epp" => machine("amd-zen4", |_| {}),
        "arm-biglittle-eas" => machine("arm-rk3588", |_| {}),
        "vm-no-cpufreq" => machine("vm", |_| {}),
        other => panic!("no model for the reference tree {other}"),
    }
}

/// Writes `content` to the file at `path` of a laid-out tree, made if missing. The tree's
/// files have sysfs's modes, and only root writes through a read-only one: such a file is
/// made writable for the write and gets its mode back, so that no test needs root.
pub fn write(path: impl AsRef<Path>, content: impl AsRef<[u8]>) {
    let path = path.as_ref();
    let mode = fs::metadata(path).ok().map(|m| m.permissions());
    if let Some(mode) = &mode {
        fs::set_permissions(path, fs::Permissions::from_mode(mode.mode() | 0o200)).unwrap();
    }
    fs::write(path, content).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    if let Some(mode) = mode {
        fs::set_permissions(path, mode).unwrap();
    }
}
