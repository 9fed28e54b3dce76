// SPDX-License-Identifier: GPL-3.0-or-later
//! Who changed it: each power-state change as an event with who made it, kept in a ring of
//! bounded size (the events of `pacerctl history --json`, schema 1), and the files whose
//! writes are changes.

use std::collections::VecDeque;
use std::path::Path;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::machine::Snapshot;
use crate::profile::daemon::Hold;
/// An event's time as its JSON writes it, under the names the history's readers know.
pub use crate::rfc3339::{parse as parse_rfc3339, text as rfc3339_text};

/// The settings whose changes are recorded, named as the JSON names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Setting {
    Governor,
    Epp,
    MinFreq,
    MaxFreq,
    Boost,
    DriverMode,
    NoTurbo,
    MinPerfPct,
    MaxPerfPct,
    Eas,
    PlatformProfile,
    Epb,
    Profile,
    /// The recording itself: `started`, `stopped`, or `lost` (the kernel's queue overflowed:
    /// writes went unrecorded). What happened outside a recording is not known.
    Recording,
    /// The machine going to sleep (`suspending`) and waking (`resumed`), as logind says
    /// (`PrepareForSleep`). What was found changed on waking has the waking as its cause.
    Sleep,
    /// An application's hold on a profile, taken (`held`) or let go (`released`), as the
    /// profile daemon lists them (`ActiveProfileHolds`): the event's `hold` says whose.
    ProfileHold,
}

impl Setting {
    /// Whether its events carry a setting's values, old and new; the recording's own events,
    /// sleep and profile holds record what happened instead.
    pub fn is_value(self) -> bool {
        !matches!(
            self,
            Setting::Recording | Setting::Sleep | Setting::ProfileHold
        )
    }
}

/// The value of a [`Setting::Sleep`] event.
pub mod sleep {
    pub const SUSPENDING: &str = "suspending";
    pub const RESUMED: &str = "resumed";
}

/// The value of a [`Setting::ProfileHold`] event.
pub mod hold {
    pub const HELD: &str = "held";
    pub const RELEASED: &str = "released";
}

/// The value of a [`Setting::Recording`] event.
pub mod recording {
    pub const STARTED: &str = "started";
    pub const STOPPED: &str = "stopped";
    pub const LOST: &str = "lost";
}

/// Who made a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A process wrote the file (fanotify named it).
    Process,
    /// The kernel changed it after another change (`cause`).
    Kernel,
    /// The profile daemon.
    Daemon,
    /// Pacer, for one of its callers.
    Pacer,
    /// Found changed on a re-read, with no write seen: the kernel, firmware or a writer
    /// missed. Never guessed.
    Unknown,
}

/// The process behind a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Writer {
    pub pid: u32,
    /// The kernel's name of the process (`/proc/PID/comm`); `None` when it was gone before
    /// it could be read (a writer that exits at once).
    pub comm: Option<String>,
    pub exe: Option<String>,
    /// The systemd unit (service or scope) it runs in, from its cgroup; else the cgroup path.
    pub unit: Option<String>,
    pub uid: Option<u32>,
}

/// One change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Counts up from 1 over the recording; a `cause` refers to it.
    pub id: u64,
    #[serde(with = "crate::rfc3339")]
    pub time: SystemTime,
    /// Milliseconds on the monotonic clock since the recording began.
    pub monotonic_ms: u64,
    pub setting: Setting,
    /// The policies the file belongs to; empty for a machine-wide setting.
    pub policies: Vec<u32>,
    /// The value before, where it was known.
    pub old: Option<String>,
    pub new: String,
    pub source: Source,
    pub process: Option<Writer>,
    /// The event whose write made the kernel change this one.
    pub cause: Option<u64>,
    /// A [`Setting::ProfileHold`]'s application, profile and reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold: Option<Hold>,
}

/// The events of a recording, the oldest forgotten past the capacity.
#[derive(Debug, Clone)]
pub struct History {
    events: VecDeque<Event>,
    capacity: usize,
    /// What the events weigh ([`Event::weight`]), kept at most [`History::BYTES`].
    bytes: usize,
    next_id: u64,
}

impl Event {
    /// About how many bytes the event holds in memory: itself and its texts. Texts from
    /// outside are bounded ([`crate::bounded`]), so an event weighs a few KiB at most.
    pub fn weight(&self) -> usize {
        let texts = [
            self.old.as_deref(),
            Some(self.new.as_str()),
            self.process.as_ref().and_then(|p| p.comm.as_deref()),
            self.process.as_ref().and_then(|p| p.exe.as_deref()),
            self.process.as_ref().and_then(|p| p.unit.as_deref()),
            self.hold.as_ref().map(|h| h.application_id.as_str()),
            self.hold.as_ref().map(|h| h.profile.as_str()),
            self.hold.as_ref().map(|h| h.reason.as_str()),
        ];
        size_of::<Event>()
            + size_of::<Writer>()
            + size_of::<Hold>()
            + self.policies.len() * size_of::<u32>()
            + texts.iter().flatten().map(|text| text.len()).sum::<usize>()
    }
}

impl History {
    /// What the helper keeps for the boot.
    pub const CAPACITY: usize = 10_000;
    /// The most bytes the events may weigh: the oldest are forgotten past it, as past the
    /// capacity (10,000 events with the longest texts would weigh 30 MiB).
    pub const BYTES: usize = 8 << 20;

    pub fn new(capacity: usize) -> History {
        History {
            events: VecDeque::with_capacity(capacity.min(History::CAPACITY)),
            capacity: capacity.max(1),
            bytes: 0,
            next_id: 1,
        }
    }

    /// A ring holding `events` (an earlier recording's, oldest first; the newest that fit),
    /// whose ids go on after theirs.
    pub fn from_events(capacity: usize, events: Vec<Event>) -> History {
        let mut history = History::new(capacity);
        history.next_id = events.iter().map(|e| e.id).max().unwrap_or(0) + 1;
        for event in events {
            history.keep(event);
        }
        history
    }

    /// Adds `event` under the next id, which it returns (the id `event` held is replaced).
    pub fn push(&mut self, mut event: Event) -> u64 {
        event.id = self.next_id;
        self.next_id += 1;
        self.keep(event);
        self.next_id - 1
    }

    /// Keeps `event` last, forgetting the oldest past the capacity or the bytes.
    fn keep(&mut self, event: Event) {
        let weight = event.weight();
        while !self.events.is_empty()
            && (self.events.len() >= self.capacity || self.bytes + weight > History::BYTES)
        {
            if let Some(oldest) = self.events.pop_front() {
                self.bytes -= oldest.weight();
            }
        }
        self.bytes += weight;
        self.events.push_back(event);
    }

    /// What the kept events weigh, in bytes ([`Event::weight`]).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The events after id `after` (0: all that are kept), oldest first.
    pub fn since(&self, after: u64) -> impl Iterator<Item = &Event> {
        // Ids count up in the ring: the first one after `after` is found, not searched for
        // by reading them all (the helper asks after every write it takes).
        let from = self.events.partition_point(|event| event.id <= after);
        self.events.range(from..)
    }
}

/// A file whose writes are changes of `setting` on `policies`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchedFile {
    /// Relative to the machine's root.
    pub path: String,
    pub setting: Setting,
    pub policies: Vec<u32>,
}

/// Every power-state file of the machine under `root` that exists: per policy its governor,
/// EPP, frequency limits and boost; the driver's status, no_turbo and performance limits;
/// cpufreq's boost, the EAS sysctl, the platform profile, and each CPU's EPB.
pub fn watched_files(root: &Path, snapshot: &Snapshot) -> Vec<WatchedFile> {
    let mut files = Vec::new();
    let mut add = |path: String, setting, policies: Vec<u32>| {
        if root.join(&path).is_file() {
            files.push(WatchedFile {
                path,
                setting,
                policies,
            });
        }
    };
    for policy in &snapshot.policies {
        let dir = format!("sys/devices/system/cpu/cpufreq/policy{}", policy.id);
        for (name, setting) in [
            ("scaling_governor", Setting::Governor),
            ("energy_performance_preference", Setting::Epp),
            ("scaling_min_freq", Setting::MinFreq),
            ("scaling_max_freq", Setting::MaxFreq),
            ("boost", Setting::Boost),
        ] {
            add(format!("{dir}/{name}"), setting, vec![policy.id]);
        }
    }
    for driver in ["intel_pstate", "amd_pstate"] {
        let dir = format!("sys/devices/system/cpu/{driver}");
        add(format!("{dir}/status"), Setting::DriverMode, Vec::new());
        if driver == "intel_pstate" {
            add(format!("{dir}/no_turbo"), Setting::NoTurbo, Vec::new());
            add(
                format!("{dir}/min_perf_pct"),
                Setting::MinPerfPct,
                Vec::new(),
            );
            add(
                format!("{dir}/max_perf_pct"),
                Setting::MaxPerfPct,
                Vec::new(),
            );
        }
    }
    add(
        "sys/devices/system/cpu/cpufreq/boost".to_owned(),
        Setting::Boost,
        Vec::new(),
    );
    add(
        "proc/sys/kernel/sched_energy_aware".to_owned(),
        Setting::Eas,
        Vec::new(),
    );
    add(
        "sys/firmware/acpi/platform_profile".to_owned(),
        Setting::PlatformProfile,
        Vec::new(),
    );
    for cpu in &snapshot.cpus {
        let policies = cpu.policy.into_iter().collect();
        add(
            format!(
                "sys/devices/system/cpu/cpu{}/power/energy_perf_bias",
                cpu.id
            ),
            Setting::Epb,
            policies,
        );
    }
    files
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::time::{Duration, UNIX_EPOCH};

    use super::*;

    fn event(new: &str) -> Event {
        Event {
            id: 0,
            time: UNIX_EPOCH + Duration::from_millis(1_796_355_607_123),
            monotonic_ms: 5,
            setting: Setting::Governor,
            policies: vec![0],
            old: Some("powersave".into()),
            new: new.into(),
            source: Source::Process,
            process: Some(Writer {
                pid: 812,
                comm: Some("tlp".into()),
                exe: Some("/usr/sbin/tlp".into()),
                unit: Some("tlp.service".into()),
                uid: Some(0),
            }),
            cause: None,
            hold: None,
        }
    }

    #[test]
    fn the_ring_is_bounded_in_bytes_as_in_events() {
        let mut history = History::new(History::CAPACITY);
        let heavy = |n: usize| Event {
            hold: Some(Hold {
                application_id: "org.example.Flood".into(),
                profile: "performance".into(),
                reason: "r".repeat(crate::bounded::TEXT_LIMIT),
            }),
            old: Some("o".repeat(crate::bounded::TEXT_LIMIT)),
            ..event(&n.to_string())
        };
        for n in 0..100_000 {
            history.push(heavy(n));
            assert!(history.bytes() <= History::BYTES);
        }
        assert!(history.len() < History::CAPACITY, "{}", history.len());
        assert_eq!(history.since(0).last().unwrap().new, "99999");
        let weighed: usize = history.since(0).map(Event::weight).sum();
        assert_eq!(weighed, history.bytes());
        // Read back from what was kept: the same bound.
        let events: Vec<Event> = history.since(0).cloned().collect();
        let again = History::from_events(History::CAPACITY, events);
        assert_eq!(again.bytes(), history.bytes());
    }

    #[test]
    fn the_ring_keeps_the_newest_and_counts_on() {
        let mut history = History::new(3);
        for n in 0..5 {
            history.push(event(&n.to_string()));
        }
        assert_eq!(history.len(), 3);
        let kept: Vec<(u64, &str)> = history.since(0).map(|e| (e.id, e.new.as_str())).collect();
        assert_eq!(kept, [(3, "2"), (4, "3"), (5, "4")]);
        assert_eq!(history.since(4).count(), 1);
        // Taken up again (from /run, by the next helper): the ids go on.
        let events: Vec<Event> = history.since(0).cloned().collect();
        let mut again = History::from_events(2, events);
        assert_eq!(again.since(0).map(|e| e.id).collect::<Vec<_>>(), [4, 5]);
        assert_eq!(again.push(event("5")), 6);
        assert_eq!(History::from_events(3, Vec::new()).push(event("0")), 1);
    }

    #[test]
    fn an_event_reads_as_the_contract_says() {
        let json = serde_json::to_value(event("performance")).unwrap();
        assert_eq!(json["time"], "2026-12-04T03:40:07.123Z");
        assert_eq!(json["setting"], "governor");
        assert_eq!(json["source"], "process");
        assert_eq!(json["process"]["unit"], "tlp.service");
        assert_eq!(json["cause"], serde_json::Value::Null);
    }

    #[test]
    fn an_event_reads_back_as_it_was_written() {
        let written = event("performance");
        let text = serde_json::to_string(&written).unwrap();
        let read: Event = serde_json::from_str(&text).unwrap();
        assert_eq!(read, written);
        for bad in ["2026-12-04T03:40:07", "99999-01-01T00:00:00Z"] {
            let text = text.replace("2026-12-04T03:40:07.123Z", bad);
            assert!(serde_json::from_str::<Event>(&text).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_files_watched_are_those_the_machine_has() {
        let dir = tempfile::tempdir().unwrap();
        crate::sim::SimDir::open_or_create(dir.path(), "intel-hybrid").unwrap();
        let root = crate::SysRoot::new(dir.path());
        let snapshot = Snapshot::read(&root).unwrap();
        let files = watched_files(dir.path(), &snapshot);
        let count = |setting| files.iter().filter(|f| f.setting == setting).count();
        assert_eq!(count(Setting::Governor), 16);
        assert_eq!(count(Setting::Epp), 16);
        assert_eq!(count(Setting::DriverMode), 1);
        assert_eq!(count(Setting::NoTurbo), 1);
        assert!(files.iter().all(|f| dir.path().join(&f.path).is_file()));
        let governor = files
            .iter()
            .find(|f| f.path.ends_with("policy3/scaling_governor"))
            .unwrap();
        assert_eq!(governor.policies, [3]);
    }
}
