// SPDX-License-Identifier: GPL-3.0-or-later
//! Each finding kind from a machine tree and a profile state, table by table.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::fs;
use std::path::Path;

use pacer_core::findings::{evaluate, Finding, FindingInputs, FindingKind, FixAction, Severity};
use pacer_core::machine::Snapshot;
use pacer_core::managers::PowerManager;
use pacer_core::profile::daemon::ProfileInfo;
use pacer_core::profile::{DaemonKind, ProfileState};
use pacer_core::values::Epp;
use pacer_core::SysRoot;

fn ppd(version: Option<&str>, cpu_driver: &str, active: &str) -> ProfileState {
    ProfileState {
        daemon: DaemonKind::PowerProfilesDaemon,
        version: version.map(str::to_owned),
        active: active.into(),
        available: ["power-saver", "balanced", "performance"]
            .map(|profile| ProfileInfo {
                profile: profile.into(),
                driver: Some(cpu_driver.into()),
                cpu_driver: None,
                platform_driver: None,
            })
            .to_vec(),
        cpu_driver: Some(cpu_driver.into()),
        platform_driver: None,
        degraded: None,
        holds: Vec::new(),
        bus_name: "net.hadess.PowerProfiles".into(),
        battery_aware: None,
        on_battery: None,
    }
}

fn policy_file(root: &Path, policy: u32, file: &str, value: &str) {
    fs::write(
        root.join(format!(
            "sys/devices/system/cpu/cpufreq/policy{policy}/{file}"
        )),
        format!("{value}\n"),
    )
    .unwrap();
}

fn findings(
    root: &Path,
    profile: Option<&ProfileState>,
    managers: &[PowerManager],
) -> Vec<Finding> {
    let snapshot = Snapshot::read(&SysRoot::new(root)).unwrap();
    let found = evaluate(FindingInputs {
        snapshot: &snapshot,
        profile,
        managers,
    });
    found.iter().for_each(words_apart_from_the_command);
    found
}

/// A fix's description is words a window can show; the command that does it by hand is
/// apart, and every rule has one.
fn words_apart_from_the_command(finding: &Finding) {
    let fix = &finding.fix;
    for shell in [
        "sudo",
        "echo",
        "powerprofilesctl",
        "systemctl",
        "/sys",
        "/proc",
        "|",
    ] {
        assert!(!fix.description.contains(shell), "{fix:?}");
    }
    assert!(!fix.description.contains(": "), "{fix:?}");
    assert!(
        fix.command
            .as_deref()
            .is_some_and(|command| !command.is_empty()),
        "{fix:?}"
    );
}

fn kinds(findings: &[Finding]) -> Vec<FindingKind> {
    findings.iter().map(|f| f.kind).collect()
}

#[test]
fn a_machine_in_step_with_its_profile_has_no_finding() {
    let tree = common::render(&common::machine("intel-hybrid", |_| {}));
    assert_eq!(
        findings(
            tree.path(),
            Some(&ppd(None, "intel_pstate", "balanced")),
            &[]
        ),
        []
    );
    let arm = common::render(&common::machine("arm-rk3588", |_| {}));
    assert_eq!(findings(arm.path(), None, &[]), []);
}

#[test]
fn epp_mismatch_groups_policies_by_their_actual_epp() {
    let tree = common::render(&common::machine("intel-hybrid", |_| {}));
    policy_file(tree.path(), 1, "energy_performance_preference", "power");
    policy_file(tree.path(), 2, "energy_performance_preference", "128");
    policy_file(tree.path(), 3, "energy_performance_preference", "power");
    let found = findings(
        tree.path(),
        Some(&ppd(None, "intel_pstate", "balanced")),
        &[],
    );
    assert_eq!(
        kinds(&found),
        [FindingKind::EppMismatch, FindingKind::EppMismatch]
    );
    assert_eq!(
        (found[0].actual.as_deref(), &found[0].policies[..]),
        (Some("128"), &[2][..])
    );
    assert_eq!(
        (found[1].actual.as_deref(), &found[1].policies[..]),
        (Some("power"), &[1, 3][..])
    );
    assert!(found[1].detail.contains("intel_pstate saves the EPP"));
    assert_eq!(
        found[1].fix.action,
        FixAction::CycleProfile {
            away: "power-saver".into(),
            back: "balanced".into()
        }
    );
    assert_eq!(
        found[1].fix.description,
        "Switch to power-saver and back to balanced; setting balanced again does nothing"
    );
    assert_eq!(
        found[1].fix.command.as_deref(),
        Some("powerprofilesctl set power-saver && powerprofilesctl set balanced")
    );
}

#[test]
fn the_epp_restore_scenario_ends_in_a_mismatch() {
    // After: governor to performance (EPP saved), profile to performance, governor back to
    // powersave (the saved balance_performance restored) — the profile says performance.
    let tree = common::render(&common::machine("intel-hybrid", |_| {}));
    let profile = ppd(None, "intel_pstate", "performance");
    let found = findings(tree.path(), Some(&profile), &[]);
    assert_eq!(kinds(&found), [FindingKind::EppMismatch]);
    assert_eq!(found[0].policies.len(), 16);
    assert_eq!(found[0].expected.as_deref(), Some("performance"));
    assert_eq!(found[0].actual.as_deref(), Some("balance_performance"));

    // In the middle step (governor still performance) it is the governor that holds EPP.
    for policy in 0..16 {
        policy_file(tree.path(), policy, "scaling_governor", "performance");
        policy_file(
            tree.path(),
            policy,
            "energy_performance_preference",
            "performance",
        );
    }
    let found = findings(tree.path(), Some(&profile), &[]);
    assert_eq!(kinds(&found), [FindingKind::EppForcedByGovernor]);
    assert_eq!(
        found[0].severity,
        Severity::Info,
        "the profile wants performance anyway"
    );
    assert!(found[0].detail.contains("restores the EPP it saved"));
}

#[test]
fn governor_mismatch_on_amd_with_ppd_0_20_and_later() {
    let tree = common::render(&common::machine("amd-zen4", |_| {}));
    policy_file(
        tree.path(),
        0,
        "energy_performance_preference",
        "performance",
    );
    let profile = ppd(Some("0.30"), "amd_pstate", "performance");
    for policy in 1..16 {
        policy_file(
            tree.path(),
            policy,
            "energy_performance_preference",
            "performance",
        );
    }
    for policy in 0..8 {
        policy_file(tree.path(), policy, "scaling_governor", "performance");
    }
    // ppd 0.20+ sets the performance governor with the performance profile on amd-pstate:
    // policies 8-15 still on powersave are the mismatch; 0-7 are as expected.
    let found = findings(tree.path(), Some(&profile), &[]);
    assert_eq!(kinds(&found), [FindingKind::GovernorMismatch]);
    assert_eq!(found[0].policies, (8..16).collect::<Vec<u32>>());
    assert_eq!(found[0].expected.as_deref(), Some("performance"));
    assert_eq!(found[0].actual.as_deref(), Some("powersave"));
}

#[test]
fn mixed_epp_without_a_daemon_or_mapping() {
    let tree = common::render(&common::machine("amd-zen4", |_| {}));
    policy_file(tree.path(), 5, "energy_performance_preference", "power");
    let found = findings(tree.path(), None, &[]);
    assert_eq!(kinds(&found), [FindingKind::MixedEpp]);
    assert_eq!(found[0].severity, Severity::Info);
    assert_eq!(found[0].policies, [5]);
    assert_eq!(
        found[0].fix.action,
        FixAction::SetEpp {
            epp: Epp::BalancePerformance,
            policies: vec![5]
        }
    );
    assert!(found[0]
        .detail
        .contains("no power-profile daemon is running"));

    let mut tuned = ppd(Some("0.23"), "tuned", "balanced");
    tuned.daemon = DaemonKind::TunedPpd;
    tuned.cpu_driver = None;
    let found = findings(tree.path(), Some(&tuned), &[]);
    assert_eq!(kinds(&found), [FindingKind::MixedEpp]);
    assert!(found[0]
        .detail
        .contains("tuned-ppd maps profiles to its own settings"));
}

#[test]
fn competing_power_managers_keep_the_desktops_daemon() {
    let tree = common::render(&common::machine("intel-hybrid", |_| {}));
    let managers = [
        PowerManager {
            name: "power-profiles-daemon",
            evidence: vec!["process 10".into()],
        },
        PowerManager {
            name: "tlp",
            evidence: vec!["/run/tlp".into()],
        },
    ];
    let found = findings(
        tree.path(),
        Some(&ppd(None, "intel_pstate", "balanced")),
        &managers,
    );
    assert_eq!(kinds(&found), [FindingKind::CompetingPowerManagers]);
    assert_eq!(
        found[0].fix.action,
        FixAction::StopManagers {
            keep: "power-profiles-daemon".into(),
            stop: vec!["tlp".into()]
        }
    );
    assert_eq!(
        found[0].fix.description,
        "Keep power-profiles-daemon and stop the others"
    );
    assert_eq!(
        found[0].fix.command.as_deref(),
        Some("sudo systemctl disable --now tlp.service")
    );
    // One manager alone is no competition.
    assert_eq!(findings(tree.path(), None, &managers[..1]), []);
}

#[test]
fn turbo_disabled_is_a_warning_only_when_performance_is_wanted() {
    let tree = common::render(&common::machine("intel-hybrid", |m| {
        if let pacer_core::sim::SimDriver::IntelPstate { no_turbo, .. } = &mut m.driver {
            *no_turbo = true;
        }
    }));
    let mut balanced = ppd(None, "intel_pstate", "balanced");
    balanced.degraded = Some("high-operating-temperature".into());
    let found = findings(tree.path(), Some(&balanced), &[]);
    assert_eq!(kinds(&found), [FindingKind::TurboDisabled]);
    assert_eq!(found[0].severity, Severity::Info);
    assert!(found[0].detail.contains("high-operating-temperature"));
    assert_eq!(
        found[0].fix.command.as_deref(),
        Some("echo 0 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo")
    );

    for policy in 0..16 {
        policy_file(
            tree.path(),
            policy,
            "energy_performance_preference",
            "performance",
        );
    }
    let found = findings(
        tree.path(),
        Some(&ppd(None, "intel_pstate", "performance")),
        &[],
    );
    assert_eq!(found[0].severity, Severity::Warning);
    // RK3588 has no boost frequencies: its boost switch being off is no finding.
    let arm = common::render(&common::machine("arm-rk3588", |_| {}));
    assert_eq!(findings(arm.path(), None, &[]), []);
}

#[test]
fn eas_blocked_only_for_reasons_a_setting_can_change() {
    // EM and asymmetric capacities, but intel_pstate in active mode: passive + schedutil fixes it.
    let active = common::render(&common::machine("intel-hybrid-nosmt", |_| {}));
    let found = findings(active.path(), None, &[]);
    assert_eq!(kinds(&found), [FindingKind::EasBlocked]);
    assert!(matches!(
        found[0].fix.action,
        FixAction::UseSchedutil {
            passive_mode: true,
            ..
        }
    ));
    let command = found[0].fix.command.as_deref().unwrap();
    assert!(
        command.starts_with(
            "echo passive | sudo tee /sys/devices/system/cpu/intel_pstate/status && echo schedutil"
        ),
        "{command}"
    );

    // An Arm board switched to ondemand.
    let arm = common::render(&common::machine("arm-rk3588", |m| {
        for policy in &mut m.policies {
            policy.governor = "ondemand".into();
        }
    }));
    let found = findings(arm.path(), None, &[]);
    assert_eq!(kinds(&found), [FindingKind::EasBlocked]);
    assert!(matches!(
        found[0].fix.action,
        FixAction::UseSchedutil {
            passive_mode: false,
            ..
        }
    ));

    // Switched off by the administrator.
    let off = common::render(&common::machine("arm-rk3588", |m| m.eas_knob = false));
    let found = findings(off.path(), None, &[]);
    assert_eq!(found[0].fix.action, FixAction::EnableEas);

    // SMT makes it impossible: nothing to fix.
    let smt = common::render(&common::machine("intel-hybrid", |_| {}));
    assert_eq!(findings(smt.path(), None, &[]), []);
}

#[test]
fn warnings_come_before_notes() {
    let tree = common::render(&common::machine("intel-hybrid-nosmt", |_| {}));
    policy_file(tree.path(), 1, "energy_performance_preference", "power");
    let found = findings(
        tree.path(),
        Some(&ppd(None, "intel_pstate", "balanced")),
        &[],
    );
    assert_eq!(
        kinds(&found),
        [FindingKind::EppMismatch, FindingKind::EasBlocked]
    );
}
