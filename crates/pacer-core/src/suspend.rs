// SPDX-License-Identifier: GPL-3.0-or-later
//! Changed across suspend: settings the machine woke with that it did not go to sleep with.
//!
//! The helper records logind's `PrepareForSleep` as a `sleep` event on each side, taking in
//! every watched value before the machine sleeps and reading them all again once it woke:
//! a difference then was made by the kernel or the firmware during the sleep, and is recorded
//! with the waking as its cause. Users meet it as "after resume some CPUs come back with
//! another EPP", or "stuck at 400 MHz after resume" (a maximum frequency that came back
//! lower), and no tool tells them. A finding names those changes while the values are still
//! the ones the machine woke with.

use std::collections::BTreeMap;

use crate::findings::{set, sysfs_command, Finding, FindingKind, Fix, FixAction, Severity};
use crate::history::{sleep, Event, Setting};
use crate::i18n::{fill, gettext};
use crate::machine::{Policy, Snapshot};
use crate::values::Khz;
use crate::who::setting_label;

/// The kinds of finding only a recording across a sleep shows.
pub const KINDS: [FindingKind; 2] = [
    FindingKind::ChangedAcrossSuspend,
    FindingKind::ClampedAfterResume,
];

/// Every finding of the latest waking in `recorded` (oldest first), of the [`KINDS`].
pub fn found_on_waking(snapshot: &Snapshot, recorded: &[Event]) -> Vec<Finding> {
    let mut findings = changed_across_suspend(snapshot, recorded);
    findings.extend(clamped_after_resume(snapshot, recorded));
    findings
}

/// What the latest waking in `recorded` (oldest first) found changed: nothing when the
/// machine has not woken during the recording.
fn found_changed(recorded: &[Event]) -> impl Iterator<Item = &Event> {
    let woke = recorded
        .iter()
        .rev()
        .find(|event| event.setting == Setting::Sleep && event.new == sleep::RESUMED)
        .map(|event| event.id);
    recorded
        .iter()
        .filter(move |event| woke.is_some() && event.cause == woke)
}

/// The findings of the latest waking in `recorded` (oldest first): one per setting and
/// change (old → new), naming the policies that still have the value they woke with.
/// Empty when the machine has not woken during the recording, or nothing changed that
/// still holds. Only the EPP and the governor: the settings Pacer can set back per policy.
pub fn changed_across_suspend(snapshot: &Snapshot, recorded: &[Event]) -> Vec<Finding> {
    let mut changed: BTreeMap<(Setting, &str, &str), Vec<u32>> = BTreeMap::new();
    for event in found_changed(recorded) {
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
        .filter_map(|((setting, old, new), policies)| finding(setting, old, new, sorted(policies)))
        .collect()
}

/// The findings of the latest waking in `recorded` (oldest first) about the maximum
/// frequency: one per change (old → new) that lowered it, naming the active policies whose
/// maximum is still the lower one. A maximum the policy cannot take now (outside its
/// `cpuinfo_min_freq`..`cpuinfo_max_freq`, as with turbo switched off during the sleep) is
/// left out: writing it back would not raise the limit (`docs/kernel.md` 1.2), and turbo
/// off has its own finding.
pub fn clamped_after_resume(snapshot: &Snapshot, recorded: &[Event]) -> Vec<Finding> {
    let mut clamped: BTreeMap<(Khz, Khz), Vec<u32>> = BTreeMap::new();
    for event in found_changed(recorded).filter(|event| event.setting == Setting::MaxFreq) {
        let old = event.old.as_deref().and_then(|old| old.parse::<Khz>().ok());
        let (Some(old), Ok(new)) = (old, event.new.parse::<Khz>()) else {
            continue;
        };
        if new >= old {
            continue;
        }
        let still_clamped = |policy: &Policy| {
            policy.is_active()
                && policy.max_khz == Some(new)
                && policy.hw_min_khz.is_some_and(|min| min <= old)
                && policy.hw_max_khz.is_some_and(|max| old <= max)
        };
        for &id in &event.policies {
            if snapshot.policy(id).is_some_and(still_clamped) {
                clamped.entry((old, new)).or_default().push(id);
            }
        }
    }
    clamped
        .into_iter()
        .map(|((old, new), policies)| clamped_finding(old, new, sorted(policies)))
        .collect()
}

fn sorted(mut policies: Vec<u32>) -> Vec<u32> {
    policies.sort_unstable();
    policies.dedup();
    policies
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

fn clamped_finding(old: Khz, new: Khz, policies: Vec<u32>) -> Finding {
    let on = set(&policies).to_string();
    let (old_words, new_words) = (old.words(), new.words());
    let khz = old.0.to_string();
    Finding {
        kind: FindingKind::ClampedAfterResume,
        severity: Severity::Warning,
        expected: Some(khz.clone()),
        actual: Some(new.0.to_string()),
        summary: fill(
            gettext("The maximum frequency of policy {policies} came back from sleep lower: {old} → {new}"),
            &[("policies", &on), ("old", &old_words), ("new", &new_words)],
        ),
        detail: fill(
            gettext("The machine went to sleep with a maximum frequency of {old} and woke with {new}. No process wrote it: the kernel or the firmware lowered it on resume, and these CPUs run no faster than {new} until it is set back."),
            &[("old", &old_words), ("new", &new_words)],
        ),
        fix: Fix {
            description: fill(
                gettext("Set the maximum frequency of policy {policies} back to {old}"),
                &[("policies", &on), ("old", &old_words)],
            ),
            command: Some(sysfs_command(&khz, &policies, "scaling_max_freq")),
            action: FixAction::RestoreMaxFrequency {
                policies: policies.clone(),
                khz: old,
            },
        },
        policies,
        cause: Vec::new(),
    }
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

    /// A sleep and a waking that found `changes` (their ids from 3 on).
    fn woken(changes: Vec<Event>) -> Vec<Event> {
        let mut recorded = vec![
            event(1, Setting::Sleep, vec![], "", sleep::SUSPENDING),
            event(2, Setting::Sleep, vec![], "", sleep::RESUMED),
        ];
        recorded.extend(changes.into_iter().zip(3..).map(|(change, id)| Event {
            id,
            cause: Some(2),
            ..change
        }));
        recorded
    }

    fn max_freq(policy: u32, old: &str, new: &str) -> Event {
        event(0, Setting::MaxFreq, vec![policy], old, new)
    }

    /// The simulated laptop (P-cores 0-7 up to 4.7 GHz, E-cores 8-15 up to 3.4 GHz), the
    /// maximum frequency of `policies` written as `khz` through the simulated kernel.
    fn laptop_with_max(policies: &[u32], khz: &str) -> Snapshot {
        let dir = tempfile::tempdir().unwrap();
        let sim = SimDir::open_or_create(dir.path(), "intel-hybrid").unwrap();
        for id in policies {
            let file = format!("sys/devices/system/cpu/cpufreq/policy{id}/scaling_max_freq");
            sim.write(&file, khz).unwrap().unwrap();
        }
        Snapshot::read(&SysRoot::new(dir.path())).unwrap()
    }

    /// On waking, policies 2 and 3 (P-cores) and 9 (an E-core) came back at 400 MHz; 5 came
    /// back higher.
    fn clamped_on_waking() -> Vec<Event> {
        woken(vec![
            max_freq(2, "4700000", "400000"),
            max_freq(3, "4700000", "400000"),
            max_freq(9, "3400000", "400000"),
            max_freq(5, "4000000", "4700000"),
        ])
    }

    #[test]
    fn a_max_frequency_that_came_back_lower_is_named_with_its_fix() {
        let findings =
            clamped_after_resume(&laptop_with_max(&[2, 3, 9], "400000"), &clamped_on_waking());
        assert_eq!(findings.len(), 2, "{findings:#?}");
        let (e_core, p_cores) = (&findings[0], &findings[1]);
        assert_eq!(e_core.policies, [9]);
        assert_eq!(
            e_core.summary,
            "The maximum frequency of policy 9 came back from sleep lower: 3.4 GHz → 400 MHz"
        );
        assert_eq!(p_cores.kind, FindingKind::ClampedAfterResume);
        assert_eq!(p_cores.severity, Severity::Warning);
        assert_eq!(p_cores.policies, [2, 3]);
        assert_eq!(
            (p_cores.expected.as_deref(), p_cores.actual.as_deref()),
            (Some("4700000"), Some("400000"))
        );
        assert_eq!(
            p_cores.summary,
            "The maximum frequency of policy 2-3 came back from sleep lower: 4.7 GHz → 400 MHz"
        );
        assert!(
            p_cores.detail.contains("run no faster than 400 MHz"),
            "{}",
            p_cores.detail
        );
        assert_eq!(
            p_cores.fix.action,
            FixAction::RestoreMaxFrequency {
                policies: vec![2, 3],
                khz: Khz(4_700_000)
            }
        );
        assert_eq!(
            p_cores.fix.description,
            "Set the maximum frequency of policy 2-3 back to 4.7 GHz"
        );
        assert_eq!(
            p_cores.fix.command.as_deref(),
            Some(
                "echo 4700000 | sudo tee \
                 /sys/devices/system/cpu/cpufreq/policy{2,3}/scaling_max_freq"
            )
        );
        // With an EPP the same waking changed: both kinds, one finding per change.
        let recorded = woken(vec![
            max_freq(2, "4700000", "400000"),
            event(0, Setting::Epp, vec![8], "power", "balance_performance"),
        ]);
        let kinds: Vec<FindingKind> = found_on_waking(&laptop_with_max(&[2], "400000"), &recorded)
            .iter()
            .map(|finding| finding.kind)
            .collect();
        assert_eq!(kinds, KINDS);
    }

    #[test]
    fn a_max_frequency_set_back_or_out_of_reach_is_no_finding() {
        let recorded = clamped_on_waking();
        // The P-cores set back: the E-core alone is left.
        let findings = clamped_after_resume(&laptop_with_max(&[9], "400000"), &recorded);
        assert_eq!(findings.len(), 1, "{findings:#?}");
        assert_eq!(findings[0].policies, [9]);
        // All set back, or changed again since (no longer the sleep's value).
        assert!(clamped_after_resume(&laptop_with_max(&[], "400000"), &recorded).is_empty());
        assert!(clamped_after_resume(&laptop_with_max(&[2, 3, 9], "800000"), &recorded).is_empty());
        // A maximum above what the policy offers now: writing it would not bring it back.
        let beyond = woken(vec![max_freq(2, "5200000", "400000")]);
        assert!(clamped_after_resume(&laptop_with_max(&[2], "400000"), &beyond).is_empty());
        // Lowered by a process after waking: its writer's, not the sleep's.
        let written = [
            event(1, Setting::Sleep, vec![], "", sleep::SUSPENDING),
            event(2, Setting::Sleep, vec![], "", sleep::RESUMED),
            max_freq(2, "4700000", "400000"),
        ];
        assert!(clamped_after_resume(&laptop_with_max(&[2], "400000"), &written).is_empty());
    }
}
