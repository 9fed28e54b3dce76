//! How a recorded change reads, in the user's language: what changed, and who changed it
//! (`pacerctl history`, the window's History page, the banner's "Why?").

use crate::cpuset::CpuSet;
use crate::history::{recording, Event, Setting, Source, Writer};
use crate::i18n::{fill, gettext};

/// The setting's name for people.
pub fn setting_label(setting: Setting) -> String {
    gettext(match setting {
        Setting::Governor => "governor",
        Setting::Epp => "EPP",
        Setting::MinFreq => "minimum frequency",
        Setting::MaxFreq => "maximum frequency",
        Setting::Boost => "turbo boost",
        Setting::DriverMode => "driver mode",
        Setting::NoTurbo => "intel_pstate no_turbo",
        Setting::MinPerfPct => "intel_pstate min_perf_pct",
        Setting::MaxPerfPct => "intel_pstate max_perf_pct",
        Setting::Eas => "Energy Aware Scheduling",
        Setting::PlatformProfile => "platform profile",
        Setting::Epb => "EPB",
        Setting::Profile => "power profile",
        Setting::Recording => "recording",
    })
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
        (Source::Pacer, None) if event.setting == Setting::Recording => String::new(),
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
}
