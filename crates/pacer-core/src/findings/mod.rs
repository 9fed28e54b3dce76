// SPDX-License-Identifier: GPL-3.0-or-later
//! Findings: where what the desktop shows and what the CPU does part ways. Each says what is
//! wrong in one line, why in a few, and the one action that fixes it. Pacer only reports: it
//! never re-asserts a setting on a timer, so it never fights another tool.
//!
//! What a finding is (`finding`), the rules that compare the CPU with the power profile
//! (`profile_rules`) and those about the machine itself (`machine_rules`), with what they share
//! (`group`).

mod finding;
mod group;
mod limit_rules;
mod machine_rules;
mod profile_rules;

pub use self::finding::{Finding, FindingKind, Fix, FixAction, Severity};
pub(crate) use self::group::{set, sysfs_command};
pub use self::limit_rules::limit_findings;

use crate::machine::{Policy, Snapshot};
use crate::managers::PowerManager;
use crate::profile::{expectation, ProfileState};
use crate::values::Governor;

use self::machine_rules::{competing_managers, eas_blocked, mixed_epp, turbo_disabled};
use self::profile_rules::{epp_mismatch, forced_by_governor, governor_mismatch};

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
    // Where the kernel sets EPP itself (amd-pstate's dynamic EPP, `docs/kernel.md` 9.1), the
    // EPP is neither the daemon's to set nor anyone else's to fix: no EPP rule applies.
    let epp_rules = !snapshot.driver.kernel_sets_epp();
    let forced = if daemon_sets_performance || !epp_rules {
        Vec::new()
    } else {
        forced_by_governor(snapshot, inputs.profile, &mut findings)
    };
    match &expectation {
        Some((profile, Ok(expected))) => {
            if epp_rules {
                epp_mismatch(snapshot, &active, &forced, profile, expected, &mut findings);
            }
            governor_mismatch(snapshot, &active, &forced, profile, expected, &mut findings);
        }
        Some((_, Err(why))) if epp_rules => mixed_epp(&active, &forced, Some(why), &mut findings),
        None if epp_rules => mixed_epp(&active, &forced, None, &mut findings),
        Some((_, Err(_))) | None => {}
    }
    competing_managers(inputs.managers, inputs.profile, &mut findings);
    turbo_disabled(snapshot, inputs.profile, &mut findings);
    eas_blocked(snapshot, &mut findings);
    findings.sort_by_key(|finding| (finding.severity, finding.kind));
    findings
}
