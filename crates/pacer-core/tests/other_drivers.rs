// SPDX-License-Identifier: GPL-3.0-or-later
//! Drivers and core-type sources beyond the reference trees: amd-pstate in passive and guided
//! mode, acpi-cpufreq, cppc_cpufreq, intel_pstate switched off, and Intel's LP E-cores.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::fs;
use std::path::Path;

use pacer_core::machine::Snapshot;
use pacer_core::sim::SimDriver;
use pacer_core::values::{CoreType, DriverMode, Governor};
use pacer_core::SysRoot;

fn snapshot(root: &Path) -> Snapshot {
    Snapshot::read(&SysRoot::new(root)).unwrap()
}

fn amd_in(status: &str) -> tempfile::TempDir {
    common::render(&common::machine("amd-zen4", |machine| {
        machine.driver = SimDriver::AmdPstate {
            status: status.into(),
            boost: true,
            dynamic_epp: None,
        };
        for policy in &mut machine.policies {
            policy.governor = "schedutil".into();
        }
    }))
}

#[test]
fn amd_pstate_passive_and_guided_have_no_epp() {
    for (status, mode) in [
        ("passive", DriverMode::Passive),
        ("guided", DriverMode::Guided),
    ] {
        let dir = amd_in(status);
        let snapshot = snapshot(dir.path());
        assert!(
            snapshot.problems.is_empty(),
            "{status}: {:?}",
            snapshot.problems
        );
        assert_eq!(snapshot.driver.name.as_deref(), Some("amd-pstate"));
        assert_eq!(snapshot.driver.mode, Some(mode));
        let policy = snapshot.policy(0).unwrap();
        assert_eq!((policy.epp, policy.available_epp.as_ref()), (None, None));
        assert!(policy
            .available_governors
            .as_ref()
            .unwrap()
            .contains(&"schedutil".parse::<Governor>().unwrap()));
        assert_eq!(policy.prefcore_ranking, Some(236));
        assert_eq!(
            snapshot.cpus[8].prefcore_ranking,
            Some(236),
            "SMT siblings share it"
        );
    }
}

/// Rewrites a rendered Intel tree as another driver would show it: no intel_pstate
/// directory, no HWP attributes, the driver's own name and a global `boost`.
fn as_generic_driver(root: &Path, driver: &str) {
    let cpu = root.join("sys/devices/system/cpu");
    fs::remove_dir_all(cpu.join("intel_pstate")).unwrap();
    common::write(cpu.join("cpufreq/boost"), "1\n");
    for entry in fs::read_dir(cpu.join("cpufreq")).unwrap() {
        let policy = entry.unwrap().path();
        if !policy.is_dir() {
            continue;
        }
        for file in [
            "base_frequency",
            "energy_performance_preference",
            "energy_performance_available_preferences",
        ] {
            fs::remove_file(policy.join(file)).unwrap();
        }
        common::write(policy.join("scaling_driver"), format!("{driver}\n"));
        common::write(policy.join("scaling_governor"), "ondemand\n");
        common::write(
            policy.join("scaling_available_governors"),
            "conservative ondemand userspace powersave performance schedutil \n",
        );
    }
}

#[test]
fn acpi_cpufreq_and_cppc_cpufreq_read_without_modes() {
    for driver in ["acpi-cpufreq", "cppc_cpufreq"] {
        let dir = common::render(&common::machine("intel-hybrid", |_| {}));
        as_generic_driver(dir.path(), driver);
        let snapshot = snapshot(dir.path());
        assert!(
            snapshot.problems.is_empty(),
            "{driver}: {:?}",
            snapshot.problems
        );
        assert_eq!(snapshot.driver.name.as_deref(), Some(driver));
        assert_eq!(snapshot.driver.mode, None, "{driver} has no modes");
        assert_eq!(snapshot.driver.boost, Some(true), "from cpufreq/boost");
        let policy = snapshot.policy(3).unwrap();
        assert_eq!(
            policy.governor.as_ref().map(Governor::as_str),
            Some("ondemand")
        );
        assert_eq!((policy.epp, policy.base_khz), (None, None));
    }
}

#[test]
fn intel_pstate_off_means_no_mode() {
    let dir = common::render(&common::machine("intel-hybrid", |_| {}));
    as_generic_driver(dir.path(), "acpi-cpufreq");
    let status = dir
        .path()
        .join("sys/devices/system/cpu/intel_pstate/status");
    fs::create_dir_all(status.parent().unwrap()).unwrap();
    common::write(&status, "off\n");
    let snapshot = snapshot(dir.path());
    assert_eq!(snapshot.driver.name.as_deref(), Some("acpi-cpufreq"));
    assert_eq!(snapshot.driver.mode, None);
}

#[test]
fn intel_low_power_e_cores_are_their_own_type() {
    // Meteor Lake-like: P-cores 0-3, E-cores 4-11, two LP E-cores 12-13 (cpu_lowpower PMU).
    let dir = common::render(&common::machine("intel-hybrid-nosmt", |_| {}));
    let devices = dir.path().join("sys/devices");
    common::write(devices.join("cpu_atom/cpus"), "4-9\n");
    fs::create_dir_all(devices.join("cpu_lowpower")).unwrap();
    common::write(devices.join("cpu_lowpower/cpus"), "10-11\n");
    let snapshot = snapshot(dir.path());
    let types: Vec<Option<CoreType>> = snapshot.cpus.iter().map(|cpu| cpu.core_type).collect();
    assert_eq!(types[0..4], [Some(CoreType::Performance); 4]);
    assert_eq!(types[4..10], [Some(CoreType::Efficiency); 6]);
    assert_eq!(types[10..12], [Some(CoreType::LowPower); 2]);
    assert_eq!(
        snapshot.policy(11).unwrap().core_type,
        Some(CoreType::LowPower)
    );
}

#[test]
fn eas_switched_off_by_the_administrator() {
    let dir = common::render(&common::machine("arm-rk3588", |machine| {
        machine.eas_knob = false;
    }));
    let snapshot = snapshot(dir.path());
    assert_eq!(snapshot.eas.active, Some(false));
    assert_eq!(
        snapshot.eas.reasons,
        [pacer_core::machine::EasReason::DisabledBySysctl]
    );
}

#[test]
fn amd_pstate_epp_lists_follow_each_policys_governor_and_are_read_once_per_governor() {
    let dir = common::render(&common::machine("amd-zen4", |machine| {
        for policy in machine.policies.iter_mut().filter(|p| p.id % 2 == 1) {
            policy.governor = "performance".into();
            policy.epp_raw = Some(0);
        }
    }));
    let root = SysRoot::with_read_log(dir.path());
    let snapshot = Snapshot::read(&root).unwrap();
    assert!(snapshot.problems.is_empty(), "{:?}", snapshot.problems);
    let all = [
        "default",
        "performance",
        "balance_performance",
        "balance_power",
        "power",
    ];
    for policy in &snapshot.policies {
        let listed: Vec<String> = policy
            .available_epp
            .as_ref()
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        let expected: &[&str] = if policy.id % 2 == 1 {
            &["performance"]
        } else {
            &all
        };
        assert_eq!(listed, expected, "policy{}", policy.id);
    }
    let list_reads = root
        .reads()
        .iter()
        .filter(|path| path.ends_with("energy_performance_available_preferences"))
        .count();
    // Once for each governor (twice at most where two threads meet one at once).
    assert!((2..=4).contains(&list_reads), "{list_reads} reads");
}
