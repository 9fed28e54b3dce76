// SPDX-License-Identifier: GPL-3.0-or-later
//! The rules that compare the CPU with the power profile: the EPP or governor the profile
//! does not want, and the EPP the performance governor forces.

use crate::i18n::{fill, gettext};
use crate::machine::{Policy, Snapshot};
use crate::profile::{Expectation, ProfileState};
use crate::values::Governor;

use super::finding::{Finding, FindingKind, Fix, FixAction, Severity};
use super::group::{group_by, join_epp, set, sysfs_command};

/// The performance governor of a setpolicy driver pins EPP at 0 and refuses other values
/// with EBUSY (`docs/kernel.md` 2.3); intel_pstate restores the EPP it saved once the
/// governor goes back to powersave (`intel_pstate_hwp_set()`, docs/kernel.md 2.4), amd-pstate keeps
/// performance (docs/kernel.md 3).
pub(super) fn forced_by_governor(
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
                gettext("Set the governor of policy {policies} back to powersave"),
                &[("policies", &policies)],
            ),
            command: Some(sysfs_command("powersave", &forced, "scaling_governor")),
            action: FixAction::SetGovernor {
                governor: Governor::powersave(),
                policies: forced.clone(),
            },
        },
        cause: Vec::new(),
    });
    forced
}

pub(super) fn epp_mismatch(
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
                    gettext("Switch to {away} and back to {profile}; setting {profile} again does nothing"),
                    &[("away", &away), ("profile", &profile.active)],
                ),
                command: Some(format!(
                    "powerprofilesctl set {away} && powerprofilesctl set {}",
                    profile.active
                )),
                action: FixAction::CycleProfile {
                    away: away.clone(),
                    back: profile.active.clone(),
                },
            },
            cause: Vec::new(),
        });
    }
}

pub(super) fn governor_mismatch(
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
                    gettext("Set the governor of policy {policies} to {expected}"),
                    &[("policies", &set), ("expected", &governor)],
                ),
                command: Some(sysfs_command(governor.as_str(), &policies, "scaling_governor")),
                action: FixAction::SetGovernor {
                    governor: governor.clone(),
                    policies,
                },
            },
            cause: Vec::new(),
        });
    }
}
