// SPDX-License-Identifier: GPL-3.0-or-later
//! The rules about the machine itself: policies of one core type with different EPPs, power
//! managers competing for the same settings, turbo turned off, and Energy Aware Scheduling
//! kept from running.

use crate::i18n::{fill, gettext};
use crate::machine::{EasReason, Policy, Snapshot};
use crate::managers::PowerManager;
use crate::profile::{NoExpectation, ProfileState};
use crate::values::Epp;

use super::finding::{Finding, FindingKind, Fix, FixAction, Severity};
use super::group::{group_by, set, sysfs_command, tee_command};

/// Policies disagreeing on EPP while no daemon with a fixed mapping keeps them in step
/// (leaving out those whose EPP the performance governor holds: that has its own finding).
pub(super) fn mixed_epp(
    active: &[&Policy],
    forced: &[u32],
    why: Option<&NoExpectation>,
    findings: &mut Vec<Finding>,
) {
    let by_value = group_by(active, forced, |policy| {
        policy.epp.map(|epp| epp.to_string())
    });
    if by_value.len() < 2 {
        return;
    }
    let Some((common, _)) = by_value.iter().max_by_key(|(_, policies)| policies.len()) else {
        return;
    };
    let common = common.clone();
    // The key is the kernel's text of an EPP value, which reads back as that value.
    let Ok(common_epp) = common.parse::<Epp>() else {
        return;
    };
    let others: Vec<u32> = by_value
        .iter()
        .filter(|(value, _)| **value != common)
        .flat_map(|(_, policies)| policies.iter().copied())
        .collect();
    let listing: Vec<String> = by_value
        .iter()
        .map(|(value, policies)| {
            fill(
                gettext("{epp} on policy {policies}"),
                &[("epp", value), ("policies", &set(policies))],
            )
        })
        .collect();
    let listing = listing.join(", ");
    let reason = match why {
        Some(why) => why.to_string(),
        None => gettext("no power-profile daemon is running"),
    };
    findings.push(Finding {
        kind: FindingKind::MixedEpp,
        severity: Severity::Info,
        policies: others.clone(),
        expected: Some(common.clone()),
        actual: Some(listing.clone()),
        summary: fill(gettext("Policies disagree on EPP: {listing}"), &[("listing", &listing)]),
        detail: fill(
            gettext("Nothing keeps the policies' EPP in step here ({reason}), so a tool or a write that failed part-way left them different."),
            &[("reason", &reason)],
        ),
        fix: Fix {
            description: fill(
                gettext("Set {epp} on policy {policies} too"),
                &[("epp", &common), ("policies", &set(&others))],
            ),
            command: Some(sysfs_command(&common, &others, "energy_performance_preference")),
            action: FixAction::SetEpp {
                epp: common_epp,
                policies: others,
            },
        },
        cause: Vec::new(),
    });
}

pub(super) fn competing_managers(
    managers: &[PowerManager],
    profile: Option<&ProfileState>,
    findings: &mut Vec<Finding>,
) {
    if managers.len() < 2 {
        return;
    }
    let names: Vec<&str> = managers.iter().map(|m| m.name).collect();
    let listing = names.join(", ");
    // Keep the one the desktop talks to.
    let keep = profile
        .map(|p| match p.daemon {
            crate::profile::DaemonKind::TunedPpd => "tuned",
            crate::profile::DaemonKind::TlpPd => "tlp",
            crate::profile::DaemonKind::System76Power => "system76-power",
            _ => "power-profiles-daemon",
        })
        .filter(|name| names.contains(name))
        .unwrap_or(names[0]);
    let stop: Vec<String> = names
        .iter()
        .filter(|n| **n != keep)
        .map(|n| (*n).to_owned())
        .collect();
    let units: Vec<String> = stop.iter().map(|name| format!("{name}.service")).collect();
    findings.push(Finding {
        kind: FindingKind::CompetingPowerManagers,
        severity: Severity::Warning,
        policies: Vec::new(),
        expected: Some(keep.to_owned()),
        actual: Some(listing.clone()),
        summary: fill(gettext("Several power managers run at once: {listing}"), &[("listing", &listing)]),
        detail: gettext("Each writes EPP, governors or the platform profile on its own schedule, so they undo each other's settings and the profile the desktop shows may not be the one in force."),
        fix: Fix {
            description: fill(gettext("Keep {keep} and stop the others"), &[("keep", &keep)]),
            command: Some(format!("sudo systemctl disable --now {}", units.join(" "))),
            action: FixAction::StopManagers {
                keep: keep.to_owned(),
                stop,
            },
        },
        cause: Vec::new(),
    });
}

pub(super) fn turbo_disabled(
    snapshot: &Snapshot,
    profile: Option<&ProfileState>,
    findings: &mut Vec<Finding>,
) {
    let Some(name) = snapshot.driver.name.as_deref() else {
        return;
    };
    let (file, value) = match name {
        "intel_pstate" | "intel_cpufreq" => ("/sys/devices/system/cpu/intel_pstate/no_turbo", "0"),
        // cpufreq-dt boards often have no boost frequencies at all: not a finding there.
        "amd-pstate" | "amd-pstate-epp" | "acpi-cpufreq" => {
            ("/sys/devices/system/cpu/cpufreq/boost", "1")
        }
        _ => return,
    };
    if snapshot.driver.boost != Some(false) {
        return;
    }
    let performance = profile.is_some_and(|p| p.active == "performance");
    let mut detail = gettext(
        "The CPU will not go above its base frequency, so it is slower under load than it can be.",
    );
    if let Some(reason) = profile.and_then(|p| p.degraded.as_deref()) {
        detail.push(' ');
        detail += &fill(
            gettext("The profile daemon reports performance degraded ({reason}): the firmware may have switched turbo off to protect the machine."),
            &[("reason", &reason)],
        );
    }
    findings.push(Finding {
        kind: FindingKind::TurboDisabled,
        severity: if performance {
            Severity::Warning
        } else {
            Severity::Info
        },
        policies: Vec::new(),
        expected: None,
        actual: None,
        summary: gettext("Turbo (boost) is switched off"),
        detail,
        fix: Fix {
            description: gettext("Allow turbo again"),
            command: Some(tee_command(value, file)),
            action: FixAction::EnableTurbo,
        },
        cause: Vec::new(),
    });
}

/// EAS is off only for reasons a setting can change (not SMT, symmetric cores or a missing
/// energy model).
pub(super) fn eas_blocked(snapshot: &Snapshot, findings: &mut Vec<Finding>) {
    let eas = &snapshot.eas;
    if eas.active != Some(false) || eas.reasons.is_empty() {
        return;
    }
    let fixable = eas.reasons.iter().all(|reason| {
        matches!(
            reason,
            EasReason::GovernorNotSchedutil { .. } | EasReason::DisabledBySysctl
        )
    });
    if !fixable {
        return;
    }
    let governors = eas.reasons.iter().find_map(|reason| match reason {
        EasReason::GovernorNotSchedutil { policies } => Some(policies.clone()),
        _ => None,
    });
    let (action, description, command) = match governors {
        Some(policies) => {
            let passive_mode = snapshot.driver.is_setpolicy();
            let schedutil = sysfs_command("schedutil", &policies, "scaling_governor");
            let (description, command) = if passive_mode {
                let status = match snapshot.driver.name.as_deref() {
                    Some("amd-pstate-epp") => "/sys/devices/system/cpu/amd_pstate/status",
                    _ => "/sys/devices/system/cpu/intel_pstate/status",
                };
                (
                    gettext("Switch the driver to passive mode and use schedutil"),
                    format!("{} && {schedutil}", tee_command("passive", status)),
                )
            } else {
                (gettext("Use the schedutil governor"), schedutil)
            };
            (
                FixAction::UseSchedutil {
                    passive_mode,
                    policies,
                },
                description,
                command,
            )
        }
        None => (
            FixAction::EnableEas,
            gettext("Allow energy-aware scheduling again"),
            tee_command("1", "/proc/sys/kernel/sched_energy_aware"),
        ),
    };
    findings.push(Finding {
        kind: FindingKind::EasBlocked,
        severity: Severity::Info,
        policies: Vec::new(),
        expected: None,
        actual: None,
        summary: gettext("Energy-aware scheduling could run on this machine but is off"),
        detail: fill(
            gettext("The cores differ in capacity and the kernel can place tasks by energy, but {reasons}."),
            &[("reasons", &eas.reasons_text())],
        ),
        fix: Fix {
            action,
            description,
            command: Some(command),
        },
        cause: Vec::new(),
    });
}
