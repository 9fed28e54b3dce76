// SPDX-License-Identifier: GPL-3.0-or-later
//! Changed across suspend: settings the machine woke with that it did not go to sleep with.
//!
//! The helper records logind's `PrepareForSleep` as a `sleep` event on each side, taking in
//! every watched value before the machine sleeps and reading them all again once it woke:
//! a difference then was made by the kernel or the firmware during the sleep, and is recorded
//! with the waking as its cause. Users meet it as "after resume some CPUs come back with
//! another EPP", and no tool tells them. A finding names those changes while the values are
//! still the ones the machine woke with.

use std::collections::BTreeMap;

use crate::findings::{set, sysfs_command, Finding, FindingKind, Fix, FixAction, Severity};
use crate::history::{sleep, Event, Setting};
use crate::i18n::{fill, gettext};
use crate::machine::Snapshot;
use crate::who::setting_label;

/// The findings of the latest waking in `recorded` (oldest first): one per setting and
/// change (old → new), naming the policies that still have the value they woke with.
/// Empty when the machine has not woken during the recording, or nothing changed that
/// still holds. Only the EPP and the governor: the settings Pacer can set back per policy.
pub fn changed_across_suspend(snapshot: &Snapshot, recorded: &[Event]) -> Vec<Finding> {
    let Some(woke) = recorded
        .iter()
        .rev()
        .find(|event| event.setting == Setting::Sleep && event.new == sleep::RESUMED)
    else {
        return Vec::new();
    };
    let mut changed: BTreeMap<(Setting, &str, &str), Vec<u32>> = BTreeMap::new();
    for event in recorded.iter().filter(|event| event.cause == Some(woke.id)) {
        let Some(old) = event.old.as_deref().filter(|old| *old != event.new) else {
            continue;
        };
        for &id in &event.policies {
            let Some(policy) = snapshot.policy(id) else {
                continue;
            };
            let now = match event.setting {
                Setting::Epp => policy.epp.map(|epp| epp.to_string()),
                Setting::Governor => policy.governor.as_ref().map(ToString::to_string),
                _ => continue,
            };
            // Set back, or changed again since: the drift is gone, or no longer the sleep's.
            if now.as_deref() == Some(event.new.as_str()) {
                changed
                    .entry((event.setting, old, event.new.as_str()))
                    .or_default()
                    .push(id);
            }
        }
    }
    changed
        .into_iter()
        .filter_map(|((setting, old, new), mut policies)| {
            policies.sort_unstable();
            policies.dedup();
            finding(setting, old, new, policies)
        })
        .collect()
}

fn finding(setting: Setting, old: &str, new: &str, policies: Vec<u32>) -> Option<Finding> {
    let (action, file) = match setting {
        Setting::Epp => (
            FixAction::SetEpp {
                epp: old.parse().ok()?,
                policies: policies.clone(),
            },
            "energy_performance_preference",
        ),
        Setting::Governor => (
            FixAction::SetGovernor {
                governor: old.parse().ok()?,
                policies: policies.clone(),
            },
            "scaling_governor",
        ),
        _ => return None,
    };
    let label = setting_label(setting);
    let on = set(&policies).to_string();
    Some(Finding {
        kind: FindingKind::ChangedAcrossSuspend,
        severity: Severity::Warning,
        expected: Some(old.to_owned()),
        actual: Some(new.to_owned()),
        summary: fill(
            gettext("{setting} on policy {policies} changed across suspend: {old} → {new}"),
            &[
                ("setting", &label),
                ("policies", &on),
                ("old", &old),
                ("new", &new),
            ],
        ),
        detail: fill(
            gettext("The machine went to sleep with {setting} {old} and woke with {new}. No process wrote it: the kernel or the firmware set it on resume, and no tool was told, so a profile daemon that set {old} still believes it holds."),
            &[("setting", &label), ("old", &old), ("new", &new)],
        ),
        fix: Fix {
            description: fill(
                gettext("Set {old} on policy {policies} again"),
                &[("old", &old), ("policies", &on)],
            ),
            command: Some(sysfs_command(old, &policies, file)),
            action,
        },
        policies,
        cause: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::time::UNIX_EPOCH;

    use super::*;
    use crate::history::Source;
    use crate::sim::SimDir;
    use crate::values::Epp;
    use crate::SysRoot;

    fn event(id: u64, setting: Setting, policies: Vec<u32>, old: &str, new: &str) -> Event {
        Event {
            id,
            time: UNIX_EPOCH,
            monotonic_ms: 0,
            setting,
            policies,
            old: (!old.is_empty()).then(|| old.to_owned()),
            new: new.to_owned(),
            source: Source::Kernel,
            process: None,
            cause: None,
            hold: None,
        }
    }

    fn woke_with(id: u64, change: Event) -> [Event; 3] {
        [
            event(id - 2, Setting::Sleep, vec![], "", sleep::SUSPENDING),
            event(id - 1, Setting::Sleep, vec![], "", sleep::RESUMED),
            Event {
                cause: Some(id - 1),
                ..change
            },
        ]
    }

    /// The simulated laptop, its E-core policies 8-15 at EPP `epp`.
    fn laptop(epp: Epp) -> Snapshot {
        let dir = tempfile::tempdir().unwrap();
        SimDir::open_or_create(dir.path(), "intel-hybrid").unwrap();
        let mut snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
        for policy in snapshot.policies.iter_mut().filter(|p| p.id >= 8) {
            policy.epp = Some(epp);
        }
        snapshot
    }

    #[test]
    fn an_epp_the_machine_woke_with_is_named_with_its_fix() {
        let recorded = woke_with(
            3,
            event(
                0,
                Setting::Epp,
                vec![8, 9, 10, 11, 12, 13, 14, 15],
                "balance_power",
                "performance",
            ),
        );
        let findings = changed_across_suspend(&laptop(Epp::Performance), &recorded);
        assert_eq!(findings.len(), 1, "{findings:?}");
        let found = &findings[0];
        assert_eq!(found.kind, FindingKind::ChangedAcrossSuspend);
        assert_eq!(found.severity, Severity::Warning);
        assert_eq!(found.policies, (8..16).collect::<Vec<_>>());
        assert_eq!(
            found.summary,
            "EPP on policy 8-15 changed across suspend: balance_power → performance"
        );
        assert_eq!(
            found.fix.action,
            FixAction::SetEpp {
                epp: Epp::BalancePower,
                policies: (8..16).collect()
            }
        );
        assert_eq!(
            found.fix.description,
            "Set balance_power on policy 8-15 again"
        );
        assert_eq!(
            found.fix.command.as_deref(),
            Some(
                "echo balance_power | sudo tee \
                 /sys/devices/system/cpu/cpufreq/policy{8,9,10,11,12,13,14,15}/\
                 energy_performance_preference"
            ),
            "{found:?}"
        );
    }

    #[test]
    fn what_was_set_back_or_changed_before_sleeping_is_no_finding() {
        let change = event(0, Setting::Epp, vec![8], "balance_power", "performance");
        // Set back since waking: the snapshot has the old value again.
        let recorded = woke_with(3, change.clone());
        assert!(changed_across_suspend(&laptop(Epp::BalancePower), &recorded).is_empty());
        // The same change made by a process, not found on waking.
        let written = [
            event(1, Setting::Sleep, vec![], "", sleep::SUSPENDING),
            event(2, Setting::Sleep, vec![], "", sleep::RESUMED),
            event(3, Setting::Epp, vec![8], "balance_power", "performance"),
        ];
        assert!(changed_across_suspend(&laptop(Epp::Performance), &written).is_empty());
        // A later waking with nothing changed: the earlier one's change is history.
        let mut twice = recorded.to_vec();
        twice.push(event(4, Setting::Sleep, vec![], "", sleep::SUSPENDING));
        twice.push(event(5, Setting::Sleep, vec![], "", sleep::RESUMED));
        assert!(changed_across_suspend(&laptop(Epp::Performance), &twice).is_empty());
        // Nothing recorded, nothing found.
        assert!(changed_across_suspend(&laptop(Epp::Performance), &[]).is_empty());
    }
}
