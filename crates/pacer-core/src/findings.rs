// SPDX-License-Identifier: GPL-3.0-or-later
//! Findings: where what the desktop shows and what the CPU does part ways. Each says what is
//! wrong in one line, why in a few, and the one action that fixes it. Pacer only reports: it
//! never re-asserts a setting on a timer, so it never fights another tool.
//!
//! Longer than most files: one rule per finding kind, each with its words and its fix, sharing
//! the grouping and wording helpers here; split, they would each need all of them.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::cpuset::CpuSet;
use crate::history::Event;
use crate::i18n::{fill, gettext};
use crate::machine::{EasReason, Policy, Snapshot};
use crate::managers::PowerManager;
use crate::profile::{expectation, Expectation, NoExpectation, ProfileState};
use crate::values::{Epp, Governor};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    EppMismatch,
    EppForcedByGovernor,
    GovernorMismatch,
    CompetingPowerManagers,
    MixedEpp,
    TurboDisabled,
    EasBlocked,
    /// A setting found changed when the machine woke from sleep (`crate::suspend`).
    ChangedAcrossSuspend,
}

/// Most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Warning,
    Info,
}

/// The one action that fixes a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum FixAction {
    /// Switch to `away` and back to `back`: the daemon rewrites EPP only on a change.
    CycleProfile {
        away: String,
        back: String,
    },
    SetGovernor {
        governor: Governor,
        policies: Vec<u32>,
    },
    SetEpp {
        epp: Epp,
        policies: Vec<u32>,
    },
    /// Keep one power manager, stop the others.
    StopManagers {
        keep: String,
        stop: Vec<String>,
    },
    EnableTurbo,
    /// Use schedutil (in passive mode, for a driver that has modes).
    UseSchedutil {
        passive_mode: bool,
        policies: Vec<u32>,
    },
    EnableEas,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    #[serde(flatten)]
    pub action: FixAction,
    /// What to do, in words, with a command where one helps.
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub severity: Severity,
    pub policies: Vec<u32>,
    pub expected: Option<String>,
    pub actual: Option<String>,
    pub summary: String,
    pub detail: String,
    pub fix: Fix,
    /// The recorded changes behind it, newest first, each after the one it caused
    /// ([`crate::who::causes`]); empty where nothing recorded explains it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cause: Vec<Event>,
}

impl Finding {
    /// What makes two findings the same one (for telling a new finding from one still there).
    pub fn key(&self) -> String {
        format!(
            "{:?}|{}|{}|{}",
            self.kind,
            self.policies.iter().copied().collect::<CpuSet>(),
            self.expected.as_deref().unwrap_or(""),
            self.actual.as_deref().unwrap_or("")
        )
    }
}

pub(crate) fn set(policies: &[u32]) -> CpuSet {
    policies.iter().copied().collect()
}

pub(crate) fn sysfs_command(value: &str, policies: &[u32], file: &str) -> String {
    let set = set(policies);
    let paths = if policies.len() == 1 {
        format!("/sys/devices/system/cpu/cpufreq/policy{set}/{file}")
    } else {
        let list: Vec<String> = policies.iter().map(u32::to_string).collect();
        format!(
            "/sys/devices/system/cpu/cpufreq/policy{{{}}}/{file}",
            list.join(",")
        )
    };
    format!("echo {value} | sudo tee {paths}")
}

/// Everything a finding needs to know.
#[derive(Debug, Clone, Copy)]
pub struct FindingInputs<'a> {
    pub snapshot: &'a Snapshot,
    pub profile: Option<&'a ProfileState>,
    pub managers: &'a [PowerManager],
}

/// All findings, most severe first.
pub fn evaluate(inputs: FindingInputs<'_>) -> Vec<Finding> {
    let snapshot = inputs.snapshot;
    let active: Vec<&Policy> = snapshot.policies.iter().filter(|p| p.is_active()).collect();
    let expectation = inputs
        .profile
        .map(|profile| (profile, expectation(profile, &snapshot.driver)));

    let mut findings = Vec::new();
    // Where the daemon itself sets the performance governor (amd-pstate from ppd 0.20 with
    // the performance profile), the pinned EPP is what it wants.
    let daemon_sets_performance = matches!(
        &expectation,
        Some((_, Ok(expected))) if expected.governor.as_ref().is_some_and(|g| g.is(Governor::PERFORMANCE))
    );
    let forced = if daemon_sets_performance {
        Vec::new()
    } else {
        forced_by_governor(snapshot, inputs.profile, &mut findings)
    };
    match &expectation {
        Some((profile, Ok(expected))) => {
            epp_mismatch(snapshot, &active, &forced, profile, expected, &mut findings);
            governor_mismatch(snapshot, &active, &forced, profile, expected, &mut findings);
        }
        Some((_, Err(why))) => mixed_epp(&active, &forced, Some(why), &mut findings),
        None => mixed_epp(&active, &forced, None, &mut findings),
    }
    competing_managers(inputs.managers, inputs.profile, &mut findings);
    turbo_disabled(snapshot, inputs.profile, &mut findings);
    eas_blocked(snapshot, &mut findings);
    findings.sort_by_key(|finding| (finding.severity, finding.kind));
    findings
}

/// The performance governor of a setpolicy driver pins EPP at 0 and refuses other values
/// with EBUSY (`docs/kernel.md` 2.3); intel_pstate restores the EPP it saved once the
/// governor goes back to powersave (`intel_pstate_hwp_set()`, docs/kernel.md 2.4), amd-pstate keeps
/// performance (docs/kernel.md 3).
fn forced_by_governor(
    snapshot: &Snapshot,
    profile: Option<&ProfileState>,
    findings: &mut Vec<Finding>,
) -> Vec<u32> {
    let forced = snapshot.epp_pinned();
    if forced.is_empty() {
        return forced;
    }
    let driver = snapshot.driver.name.clone().unwrap_or_default();
    let policies = set(&forced);
    let performance_profile = profile.is_some_and(|p| p.active == "performance");
    let severity = if profile.is_some() && !performance_profile {
        Severity::Warning
    } else {
        Severity::Info
    };
    let summary = match profile {
        Some(profile) if !performance_profile => fill(
            gettext("The performance governor on policy {policies} keeps the {profile} profile from setting its EPP"),
            &[("policies", &policies), ("profile", &profile.active)],
        ),
        _ => fill(
            gettext("The performance governor on policy {policies} holds EPP at performance"),
            &[("policies", &policies)],
        ),
    };
    let mut detail = fill(
        gettext("With the performance governor, {driver} sets EPP to performance and refuses any other EPP with \"Device or resource busy\" (EBUSY), so neither a profile daemon nor you can change it."),
        &[("driver", &driver)],
    );
    detail.push(' ');
    detail += &if driver == "intel_pstate" {
        gettext("When the governor goes back to powersave, intel_pstate restores the EPP it saved when it entered performance, and an EPP chosen in between is lost: the profile shown then disagrees with the EPP in force.")
    } else {
        gettext("When the governor goes back to powersave, amd-pstate keeps EPP at performance.")
    };
    findings.push(Finding {
        kind: FindingKind::EppForcedByGovernor,
        severity,
        policies: forced.clone(),
        expected: Some(Governor::POWERSAVE.to_owned()),
        actual: Some(Governor::PERFORMANCE.to_owned()),
        summary,
        detail,
        fix: Fix {
            description: fill(
                gettext("Set the governor of policy {policies} back to powersave: {command}"),
                &[
                    ("policies", &policies),
                    (
                        "command",
                        &sysfs_command("powersave", &forced, "scaling_governor"),
                    ),
                ],
            ),
            action: FixAction::SetGovernor {
                governor: Governor::powersave(),
                policies: forced.clone(),
            },
        },
        cause: Vec::new(),
    });
    forced
}

/// The policies (but the `forced` ones) grouped by the value `of` gives them; policies it
/// gives none are left out.
fn group_by(
    active: &[&Policy],
    forced: &[u32],
    of: impl Fn(&Policy) -> Option<String>,
) -> BTreeMap<String, Vec<u32>> {
    let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for policy in active.iter().filter(|p| !forced.contains(&p.id)) {
        if let Some(value) = of(policy) {
            groups.entry(value).or_default().push(policy.id);
        }
    }
    groups
}

fn join_epp(values: &[Epp]) -> String {
    let names: Vec<String> = values.iter().map(ToString::to_string).collect();
    names.join(&gettext(" or "))
}

fn epp_mismatch(
    snapshot: &Snapshot,
    active: &[&Policy],
    forced: &[u32],
    profile: &ProfileState,
    expected: &Expectation,
    findings: &mut Vec<Finding>,
) {
    let by_actual = group_by(active, forced, |policy| {
        policy
            .epp
            .filter(|epp| !expected.epp.contains(epp))
            .map(|epp| epp.to_string())
    });
    let away = profile
        .profile_names()
        .find(|name| *name != profile.active)
        .unwrap_or("power-saver")
        .to_owned();
    for (actual, policies) in by_actual {
        let set = set(&policies);
        let expected_text = join_epp(&expected.epp);
        let mut detail = fill(
            gettext("{daemon} wrote {expected} when the profile was set and never looks at the EPP again, so it still shows {profile}. Something changed the EPP since: another tool, a write that failed part-way through the policies, or the kernel itself."),
            &[("daemon", &profile.daemon), ("expected", &expected_text), ("profile", &profile.active)],
        );
        if snapshot.driver.name.as_deref() == Some("intel_pstate") {
            detail.push(' ');
            detail += &gettext("intel_pstate saves the EPP when the governor switches to performance and restores it when the governor switches back, undoing any EPP chosen in between.");
        }
        findings.push(Finding {
            kind: FindingKind::EppMismatch,
            severity: Severity::Warning,
            policies: policies.clone(),
            expected: Some(expected_text.clone()),
            actual: Some(actual.clone()),
            summary: fill(
                gettext("EPP is {actual} on policy {policies}, but the {profile} profile sets {expected}"),
                &[
                    ("actual", &actual),
                    ("policies", &set),
                    ("profile", &profile.active),
                    ("expected", &expected_text),
                ],
            ),
            detail,
            fix: Fix {
                description: fill(
                    gettext("Switch to {away} and back to {profile}; setting {profile} again does nothing: powerprofilesctl set {away} && powerprofilesctl set {profile}"),
                    &[("away", &away), ("profile", &profile.active)],
                ),
                action: FixAction::CycleProfile {
                    away: away.clone(),
                    back: profile.active.clone(),
                },
            },
            cause: Vec::new(),
        });
    }
}

fn governor_mismatch(
    snapshot: &Snapshot,
    active: &[&Policy],
    forced: &[u32],
    profile: &ProfileState,
    expected: &Expectation,
    findings: &mut Vec<Finding>,
) {
    // Only setpolicy drivers: in passive mode the daemon does not drive the governor.
    let Some(governor) = expected
        .governor
        .as_ref()
        .filter(|_| snapshot.driver.is_setpolicy())
    else {
        return;
    };
    let by_actual = group_by(active, forced, |policy| {
        policy
            .governor
            .as_ref()
            .filter(|actual| *actual != governor)
            .map(ToString::to_string)
    });
    for (actual, policies) in by_actual {
        let set = set(&policies);
        findings.push(Finding {
            kind: FindingKind::GovernorMismatch,
            severity: Severity::Warning,
            policies: policies.clone(),
            expected: Some(governor.to_string()),
            actual: Some(actual.clone()),
            summary: fill(
                gettext("The governor is {actual} on policy {policies}, but the {profile} profile sets {expected}"),
                &[("actual", &actual), ("policies", &set), ("profile", &profile.active), ("expected", &governor)],
            ),
            detail: fill(
                gettext("{daemon} sets the {expected} governor and relies on it; something changed it behind the daemon's back, and the daemon does not notice."),
                &[("daemon", &profile.daemon), ("expected", &governor)],
            ),
            fix: Fix {
                description: fill(
                    gettext("Set the governor of policy {policies} to {expected}: {command}"),
                    &[
                        ("policies", &set),
                        ("expected", &governor),
                        ("command", &sysfs_command(governor.as_str(), &policies, "scaling_governor")),
                    ],
                ),
                action: FixAction::SetGovernor {
                    governor: governor.clone(),
                    policies,
                },
            },
            cause: Vec::new(),
        });
    }
}

/// Policies disagreeing on EPP while no daemon with a fixed mapping keeps them in step
/// (leaving out those whose EPP the performance governor holds: that has its own finding).
fn mixed_epp(
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
                gettext("Set {epp} on policy {policies} too: {command}"),
                &[
                    ("epp", &common),
                    ("policies", &set(&others)),
                    ("command", &sysfs_command(&common, &others, "energy_performance_preference")),
                ],
            ),
            action: FixAction::SetEpp {
                epp: common_epp,
                policies: others,
            },
        },
        cause: Vec::new(),
    });
}

fn competing_managers(
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
            description: fill(
                gettext("Keep {keep} and stop the others: sudo systemctl disable --now {units}"),
                &[("keep", &keep), ("units", &units.join(" "))],
            ),
            action: FixAction::StopManagers {
                keep: keep.to_owned(),
                stop,
            },
        },
        cause: Vec::new(),
    });
}

fn turbo_disabled(
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
            description: fill(
                gettext("Allow turbo again: echo {value} | sudo tee {file}"),
                &[("value", &value), ("file", &file)],
            ),
            action: FixAction::EnableTurbo,
        },
        cause: Vec::new(),
    });
}

/// EAS is off only for reasons a setting can change (not SMT, symmetric cores or a missing
/// energy model).
fn eas_blocked(snapshot: &Snapshot, findings: &mut Vec<Finding>) {
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
    let (action, description) = match governors {
        Some(policies) => {
            let passive_mode = snapshot.driver.is_setpolicy();
            let description = if passive_mode {
                let status = match snapshot.driver.name.as_deref() {
                    Some("amd-pstate-epp") => "/sys/devices/system/cpu/amd_pstate/status",
                    _ => "/sys/devices/system/cpu/intel_pstate/status",
                };
                fill(
                    gettext("Switch the driver to passive mode and use schedutil: echo passive | sudo tee {status}, then {command}"),
                    &[("status", &status), ("command", &sysfs_command("schedutil", &policies, "scaling_governor"))],
                )
            } else {
                fill(
                    gettext("Use the schedutil governor: {command}"),
                    &[(
                        "command",
                        &sysfs_command("schedutil", &policies, "scaling_governor"),
                    )],
                )
            };
            (
                FixAction::UseSchedutil {
                    passive_mode,
                    policies,
                },
                description,
            )
        }
        None => (
            FixAction::EnableEas,
            gettext("Allow it again: echo 1 | sudo tee /proc/sys/kernel/sched_energy_aware"),
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
        fix: Fix { action, description },
        cause: Vec::new(),
    });
}
