// SPDX-License-Identifier: GPL-3.0-or-later
//! How a recorded change reads, in the user's language: what changed, and who changed it
//! (`pacerctl history`, the window's History page, the banner's "Why?").

use crate::cpuset::CpuSet;
use crate::findings::{Finding, FindingKind};
use crate::history::{hold, recording, sleep, Event, Setting, Source, Writer};
use crate::i18n::{fill, gettext};

/// The setting's name for people.
pub fn setting_label(setting: Setting) -> String {
    match setting {
        Setting::Governor => gettext("governor"),
        Setting::Epp => gettext("EPP"),
        Setting::MinFreq => gettext("minimum frequency"),
        Setting::MaxFreq => gettext("maximum frequency"),
        Setting::Boost => gettext("turbo boost"),
        Setting::DriverMode => gettext("driver mode"),
        Setting::NoTurbo => gettext("intel_pstate no_turbo"),
        Setting::MinPerfPct => gettext("intel_pstate min_perf_pct"),
        Setting::MaxPerfPct => gettext("intel_pstate max_perf_pct"),
        Setting::Eas => gettext("Energy Aware Scheduling"),
        Setting::PlatformProfile => gettext("platform profile"),
        Setting::Epb => gettext("EPB"),
        Setting::Profile => gettext("power profile"),
        Setting::Recording => gettext("recording"),
        Setting::Sleep => gettext("sleep"),
        Setting::ProfileHold => gettext("profile hold"),
    }
}

/// "governor on policy 0-3: powersave → performance"; for the recording itself, what
/// became of it.
pub fn what_changed(event: &Event) -> String {
    if event.setting == Setting::Recording {
        return match event.new.as_str() {
            recording::STARTED => gettext("recording started: earlier changes are not known"),
            recording::STOPPED => gettext("recording stopped: later changes are not known"),
            _ => gettext("changes lost: they came faster than they could be recorded"),
        };
    }
    if event.setting == Setting::Sleep {
        return match event.new.as_str() {
            sleep::SUSPENDING => gettext("the system went to sleep"),
            _ => gettext("the system woke from sleep"),
        };
    }
    if let (Setting::ProfileHold, Some(held)) = (event.setting, &event.hold) {
        let words = match event.new.as_str() {
            hold::HELD => gettext("{application} holds the {profile} profile: {reason}"),
            _ => gettext("{application} released its hold on the {profile} profile ({reason})"),
        };
        return fill(
            words,
            &[
                ("application", &held.application_id),
                ("profile", &held.profile),
                ("reason", &held.reason),
            ],
        );
    }
    let setting = setting_label(event.setting);
    let what = if event.policies.is_empty() {
        setting
    } else {
        let policies: CpuSet = event.policies.iter().copied().collect();
        fill(
            gettext("{setting} on policy {policies}"),
            &[("setting", &setting), ("policies", &policies)],
        )
    };
    match &event.old {
        Some(old) => fill(
            gettext("{what}: {old} → {new}"),
            &[("what", &what), ("old", old), ("new", &event.new)],
        ),
        None => fill(
            gettext("{what}: now {new}"),
            &[("what", &what), ("new", &event.new)],
        ),
    }
}

/// "tlp (pid 812, tlp.service)"; a writer gone before it was read is its PID alone.
pub fn process_name(writer: &Writer) -> String {
    match (&writer.comm, &writer.unit) {
        (Some(comm), Some(unit)) => fill(
            gettext("{name} (pid {pid}, {unit})"),
            &[("name", comm), ("pid", &writer.pid), ("unit", unit)],
        ),
        (Some(comm), None) => fill(
            gettext("{name} (pid {pid})"),
            &[("name", comm), ("pid", &writer.pid)],
        ),
        (None, _) => fill(
            gettext("pid {pid} (gone before it could be named)"),
            &[("pid", &writer.pid)],
        ),
    }
}

/// Who made the change: "by tlp (pid 812, tlp.service)", "by the kernel, after #12", …
/// Never more than was seen.
pub fn by_whom(event: &Event) -> String {
    let process = event.process.as_ref().map(process_name);
    match (event.source, process) {
        (Source::Process, Some(process)) => fill(gettext("by {process}"), &[("process", &process)]),
        (Source::Process, None) => gettext("by a process"),
        (Source::Daemon, Some(process)) => fill(
            gettext("by the profile daemon, {process}"),
            &[("process", &process)],
        ),
        (Source::Daemon, None) => gettext("by the profile daemon"),
        (Source::Pacer, Some(process)) => fill(
            gettext("by Pacer, asked by {process}"),
            &[("process", &process)],
        ),
        (_, _) if matches!(event.setting, Setting::Recording | Setting::Sleep) => String::new(),
        (Source::Pacer, None) => gettext("by Pacer, putting back settings it saved"),
        (Source::Kernel, _) => match event.cause {
            Some(cause) => fill(
                gettext("by the kernel, after change #{cause}"),
                &[("cause", &cause)],
            ),
            None => gettext("by the kernel"),
        },
        (Source::Unknown, _) => gettext("not seen as a write: found changed on a later reading"),
    }
}

/// The settings whose changes a finding is about.
fn settings_of(kind: FindingKind) -> &'static [Setting] {
    match kind {
        FindingKind::EppMismatch | FindingKind::MixedEpp => &[Setting::Epp],
        FindingKind::EppForcedByGovernor | FindingKind::GovernorMismatch => &[Setting::Governor],
        FindingKind::TurboDisabled => &[Setting::Boost, Setting::NoTurbo],
        FindingKind::EasBlocked => &[Setting::Eas, Setting::Governor],
        FindingKind::ChangedAcrossSuspend => &[Setting::Epp, Setting::Governor],
        FindingKind::ClampedAfterResume => &[Setting::MaxFreq],
        FindingKind::CompetingPowerManagers
        | FindingKind::ThermalLimit
        | FindingKind::PowerLimitLowered => &[],
    }
}

/// Why `finding` holds, as far as the recorded `events` (oldest first) tell: the last change
/// of one of its settings on one of its policies (that changed its value), then the change
/// that caused it, and so
/// on — newest first. Empty when nothing recorded explains it.
pub fn causes<'a>(finding: &Finding, events: &'a [Event]) -> Vec<&'a Event> {
    let settings = settings_of(finding.kind);
    // A write of the value already there changed nothing: it explains nothing.
    let concerns = |event: &Event| {
        event.old.as_ref() != Some(&event.new)
            && settings.contains(&event.setting)
            && (event.policies.is_empty()
                || finding.policies.is_empty()
                || event.policies.iter().any(|p| finding.policies.contains(p)))
    };
    let Some(last) = events.iter().rev().find(|event| concerns(event)) else {
        return Vec::new();
    };
    let mut chain = vec![last];
    while let Some(cause) = chain.last().and_then(|event| event.cause) {
        match events.iter().find(|event| event.id == cause) {
            // Ids count up: a cause is older, so the chain ends.
            Some(event) if !chain.iter().any(|seen| seen.id == event.id) => chain.push(event),
            _ => break,
        }
    }
    chain
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::time::UNIX_EPOCH;

    use super::*;

    fn event(source: Source, process: Option<Writer>, cause: Option<u64>) -> Event {
        Event {
            id: 3,
            time: UNIX_EPOCH,
            monotonic_ms: 0,
            setting: Setting::Epp,
            policies: vec![0, 1, 2, 3],
            old: Some("performance".into()),
            new: "balance_performance".into(),
            source,
            process,
            cause,
            hold: None,
        }
    }

    #[test]
    fn a_change_says_what_and_who_as_far_as_it_is_known() {
        let tlp = Writer {
            pid: 812,
            comm: Some("tlp".into()),
            exe: None,
            unit: Some("tlp.service".into()),
            uid: Some(0),
        };
        let by = event(Source::Process, Some(tlp.clone()), None);
        assert_eq!(
            what_changed(&by),
            "EPP on policy 0-3: performance → balance_performance"
        );
        assert_eq!(by_whom(&by), "by tlp (pid 812, tlp.service)");
        let gone = Writer {
            comm: None,
            unit: None,
            ..tlp.clone()
        };
        assert_eq!(
            by_whom(&event(Source::Process, Some(gone), None)),
            "by pid 812 (gone before it could be named)"
        );
        assert_eq!(
            by_whom(&event(Source::Kernel, None, Some(2))),
            "by the kernel, after change #2"
        );
        assert_eq!(
            by_whom(&event(Source::Pacer, Some(tlp), None)),
            "by Pacer, asked by tlp (pid 812, tlp.service)"
        );
        assert!(by_whom(&event(Source::Unknown, None, None)).starts_with("not seen as a write"));
        let started = Event {
            setting: Setting::Recording,
            policies: Vec::new(),
            old: None,
            new: recording::STARTED.into(),
            ..event(Source::Pacer, None, None)
        };
        assert!(what_changed(&started).starts_with("recording started"));
        assert_eq!(by_whom(&started), "");
    }

    #[test]
    fn a_finding_is_explained_by_its_last_change_and_what_caused_that() {
        let governor = Event {
            id: 2,
            setting: Setting::Governor,
            old: Some("performance".into()),
            new: "powersave".into(),
            ..event(Source::Process, None, None)
        };
        let restored = event(Source::Kernel, None, Some(2));
        let other_policy = Event {
            id: 4,
            policies: vec![9],
            ..event(Source::Process, None, None)
        };
        let events = [
            Event {
                id: 1,
                ..event(Source::Process, None, None)
            },
            governor.clone(),
            restored.clone(),
            other_policy,
        ];
        let finding = Finding {
            kind: FindingKind::EppMismatch,
            severity: crate::findings::Severity::Warning,
            policies: vec![0, 1],
            expected: Some("performance".into()),
            actual: Some("balance_performance".into()),
            summary: String::new(),
            detail: String::new(),
            fix: crate::findings::Fix {
                description: String::new(),
                command: None,
                action: crate::findings::FixAction::EnableTurbo,
            },
            cause: Vec::new(),
        };
        let chain: Vec<u64> = causes(&finding, &events).iter().map(|e| e.id).collect();
        assert_eq!(chain, [3, 2]);
        assert!(causes(&finding, &events[..1]).len() == 1);
        assert!(causes(&finding, &[]).is_empty());
    }
}
