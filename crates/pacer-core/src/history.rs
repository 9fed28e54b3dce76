//! Who changed it: each power-state change as an event with who made it, kept in a ring of
//! bounded size (the events of `pacerctl history --json`, schema 1), and the files whose
//! writes are changes.

use std::collections::VecDeque;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::machine::Snapshot;
use crate::profile::daemon::Hold;

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
    #[serde(serialize_with = "rfc3339", deserialize_with = "from_rfc3339")]
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
    next_id: u64,
}

impl History {
    /// What the helper keeps for the boot.
    pub const CAPACITY: usize = 10_000;

    pub fn new(capacity: usize) -> History {
        History {
            events: VecDeque::with_capacity(capacity.min(History::CAPACITY)),
            capacity: capacity.max(1),
            next_id: 1,
        }
    }

    /// A ring holding `events` (an earlier recording's, oldest first; the newest `capacity`
    /// of them), whose ids go on after theirs.
    pub fn from_events(capacity: usize, events: Vec<Event>) -> History {
        let mut history = History::new(capacity);
        history.next_id = events.iter().map(|e| e.id).max().unwrap_or(0) + 1;
        let skip = events.len().saturating_sub(history.capacity);
        history.events.extend(events.into_iter().skip(skip));
        history
    }

    /// Adds `event` under the next id, which it returns (the id `event` held is replaced).
    pub fn push(&mut self, mut event: Event) -> u64 {
        event.id = self.next_id;
        self.next_id += 1;
        if self.events.len() == self.capacity {
            self.events.pop_front();
        }
        self.events.push_back(event);
        self.next_id - 1
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

/// `2026-12-04T03:20:07.123Z`: RFC 3339 in UTC with milliseconds.
pub fn rfc3339_text(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs();
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        since.subsec_millis()
    )
}

fn rfc3339<S: Serializer>(time: &SystemTime, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&rfc3339_text(*time))
}

fn from_rfc3339<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SystemTime, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse_rfc3339(&text)
        .ok_or_else(|| serde::de::Error::custom(format!("not an RFC 3339 time in UTC: {text}")))
}

/// The time of [`rfc3339_text`]'s form (UTC, `Z`, with or without milliseconds).
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let (date, time) = text.strip_suffix('Z')?.split_once('T')?;
    let mut date = date.splitn(3, '-').map(str::parse::<u32>);
    let (year, month, day) = (date.next()?.ok()?, date.next()?.ok()?, date.next()?.ok()?);
    let (clock, millis) = match time.split_once('.') {
        Some((clock, fraction)) if fraction.len() == 3 => (clock, fraction.parse::<u64>().ok()?),
        Some(_) => return None,
        None => (time, 0),
    };
    let mut clock = clock.splitn(3, ':').map(str::parse::<u64>);
    let (hour, minute, second) = (
        clock.next()?.ok()?,
        clock.next()?.ok()?,
        clock.next()?.ok()?,
    );
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let days = u64::try_from(days_from_civil(i64::from(year), month, day)).ok()?;
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second;
    Some(UNIX_EPOCH + std::time::Duration::from_millis(seconds * 1000 + millis))
}

/// Days from 1970-01-01 to a date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::time::Duration;

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
        assert_eq!(rfc3339_text(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        // A leap day.
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339_text(leap), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn an_event_reads_back_as_it_was_written() {
        let written = event("performance");
        let text = serde_json::to_string(&written).unwrap();
        let read: Event = serde_json::from_str(&text).unwrap();
        assert_eq!(read, written);
        for time in [0, 951_782_400_000, 1_796_355_607_123, 4_102_444_799_999] {
            let at = UNIX_EPOCH + Duration::from_millis(time);
            assert_eq!(parse_rfc3339(&rfc3339_text(at)), Some(at));
        }
        assert_eq!(
            parse_rfc3339("2026-12-04T03:40:07Z"),
            Some(UNIX_EPOCH + Duration::from_secs(1_796_355_607))
        );
        for bad in [
            "",
            "2026-12-04T03:40:07",
            "2026-13-04T03:40:07Z",
            "2026-12-04T24:00:00Z",
            "2026-12-04T03:40:07.1Z",
            "2026-12-04 03:40:07Z",
            "twenty-six",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
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
