// SPDX-License-Identifier: GPL-3.0-or-later
//! The recorder on a simulated machine (as root: fanotify needs CAP_SYS_ADMIN): its group
//! reports a write with its running writer; writes made by separate processes with distinct
//! names are each attributed to their writer, with the value before and after; and on this
//! machine's real sysfs, a harmless attribute rewritten with its own value by a child is
//! attributed to that child.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pacer_core::history::{watched_files, Event, History, Setting, Source, WatchedFile};
use pacer_core::sim::SimDir;
use pacer_core::{Snapshot, SysRoot};
use pacer_helper::fanotify::{Group, Notice, Writing};
use pacer_helper::recorder::Recorder;

/// A shell under the name `name` (its command, as the kernel shows it) that runs `script`
/// and then stays until its standard input closes (when the test waits for it or drops it),
/// as a writer that lives on does: one that exits at once leaves its PID alone, its name
/// gone with it.
fn run_as(dir: &Path, name: &str, script: &str) -> Child {
    let program = dir.join(name);
    if !program.exists() {
        std::fs::copy("/bin/sh", &program).unwrap();
    }
    // The copy may still be open for writing in a child another test's thread forked
    // meanwhile (ETXTBSY) until that child execs: the start is tried again shortly.
    let mut tries = 0;
    loop {
        match Command::new(&program)
            .args(["-c", &format!("{script} && {{ read _ || :; }}")])
            .stdin(Stdio::piped())
            .spawn()
        {
            Err(error) if error.raw_os_error() == Some(26) && tries < 50 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            started => return started.unwrap(),
        }
    }
}

/// The simulated laptop in memory, and a recorder of its files keeping `capacity` events.
fn simulated_laptop(capacity: usize) -> (tempfile::TempDir, Recorder) {
    let machine = tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap();
    SimDir::open_or_create(machine.path(), "intel-hybrid").unwrap();
    let snapshot = Snapshot::read(&SysRoot::new(machine.path())).unwrap();
    let files = watched_files(machine.path(), &snapshot);
    let recorder = Recorder::start(
        machine.path(),
        files,
        History::new(capacity),
        Group::new().unwrap(),
    )
    .expect("root may use fanotify");
    (machine, recorder)
}

/// An event as the test compares it: setting, policies, old, new, source, PID, command.
type Seen<'a> = (
    Setting,
    Vec<u32>,
    Option<&'a str>,
    &'a str,
    Source,
    u32,
    &'a str,
);

/// What the recorder saw within two seconds, once at least `count` events came.
fn take(recorder: &mut Recorder, count: usize) -> Vec<Event> {
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut ids = Vec::new();
    while ids.len() < count && Instant::now() < deadline {
        ids.extend(recorder.record(None));
        std::thread::sleep(Duration::from_millis(20));
    }
    let first = ids.first().copied().unwrap_or(u64::MAX);
    recorder.history().since(first - 1).cloned().collect()
}

/// The group alone: a write to a marked file comes with its writer, still running, as a pidfd.
#[test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
fn a_write_comes_with_its_writer() {
    let group = Group::new().expect("root may use fanotify");
    let file = tempfile::NamedTempFile::new().unwrap();
    group.mark(file.path()).unwrap();
    std::fs::write(file.path(), "performance").unwrap();
    let notices = group.read().unwrap();
    let Some(Notice::Write { pid, writing, .. }) = notices.first() else {
        panic!("no write: {notices:?}");
    };
    assert_eq!(*pid as u32, std::process::id());
    assert!(
        matches!(writing, Writing::Running(_)),
        "a running writer comes with its pidfd: {writing:?}"
    );
    assert!(group.read().unwrap().is_empty());
}

#[test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
fn each_write_is_attributed_to_the_process_that_made_it() {
    let (machine, mut recorder) = simulated_laptop(100);
    assert!(recorder.watched() >= 16 * 2 + 2, "{}", recorder.watched());

    let bin = tempfile::tempdir().unwrap();
    let governor = machine
        .path()
        .join("sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
    let epp = machine
        .path()
        .join("sys/devices/system/cpu/cpufreq/policy5/energy_performance_preference");
    let first = run_as(
        bin.path(),
        "tlp",
        &format!("echo performance > {}", governor.display()),
    );
    let events = take(&mut recorder, 1);
    let second = run_as(
        bin.path(),
        "epp-flipper",
        &format!("echo power > {}", epp.display()),
    );
    let events = [events, take(&mut recorder, 1)].concat();
    let seen: Vec<Seen<'_>> = events
        .iter()
        .map(|e| {
            let writer = e.process.as_ref().unwrap();
            (
                e.setting,
                e.policies.clone(),
                e.old.as_deref(),
                e.new.as_str(),
                e.source,
                writer.pid,
                writer.comm.as_deref().unwrap_or("?"),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                Setting::Governor,
                vec![0],
                Some("powersave"),
                "performance",
                Source::Process,
                first.id(),
                "tlp"
            ),
            (
                Setting::Epp,
                vec![5],
                Some("balance_performance"),
                "power",
                Source::Process,
                second.id(),
                "epp-flipper"
            ),
        ]
    );
    let writer = events[0].process.as_ref().unwrap();
    assert!(
        writer.exe.as_deref().unwrap().ends_with("/tlp"),
        "{writer:?}"
    );
    assert_eq!(writer.uid, Some(0));
    // Where the writer ran: its unit, or its cgroup's path outside systemd; nothing when it
    // ran in the root cgroup, as this test's children do on a machine without systemd.
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    let in_a_cgroup = own
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .is_some_and(|path| path.trim() != "/");
    assert_eq!(writer.unit.is_some(), in_a_cgroup, "{writer:?} in {own}");
    // Nothing else was written.
    assert!(take(&mut recorder, 1).is_empty());
    for mut child in [first, second] {
        assert!(child.wait().unwrap().success());
    }
}

#[test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
fn a_write_to_the_real_sysfs_is_attributed_to_its_child() {
    let file = "sys/kernel/mm/transparent_hugepage/enabled";
    let path = Path::new("/").join(file);
    let current = std::fs::read_to_string(&path).expect("this kernel has THP");
    // "always [madvise] never": the bracketed one is in force.
    let value = current
        .split_whitespace()
        .find_map(|word| word.strip_prefix('[')?.strip_suffix(']'))
        .unwrap()
        .to_owned();
    // Not a power-state file: any setting names it, the recorder only reports its writes.
    let watched = WatchedFile {
        path: file.to_owned(),
        setting: Setting::PlatformProfile,
        policies: Vec::new(),
    };
    let mut recorder = Recorder::start(
        Path::new("/"),
        vec![watched],
        History::new(100),
        Group::new().unwrap(),
    )
    .unwrap();
    let bin = tempfile::tempdir().unwrap();
    let mut child = run_as(
        bin.path(),
        "thp-rewriter",
        &format!("echo {value} > {}", path.display()),
    );
    let events = take(&mut recorder, 1);
    assert_eq!(events.len(), 1, "{events:?}");
    let writer = events[0].process.as_ref().unwrap();
    assert_eq!(
        (writer.pid, writer.comm.as_deref()),
        (child.id(), Some("thp-rewriter"))
    );
    assert!(child.wait().unwrap().success());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        current,
        "unchanged"
    );
}

#[test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
fn what_the_kernel_changed_without_a_write_is_its_own_after_a_governor_write_or_unknown() {
    let (machine, mut recorder) = simulated_laptop(100);
    let sim = SimDir::open(machine.path()).unwrap();
    let policy = "sys/devices/system/cpu/cpufreq/policy2";
    // This process writes the governor through the simulated kernel's rules, as the helper
    // does for a caller: intel_pstate forces the EPP to performance with it, a change the
    // simulated kernel makes by replacing the file — no write the recorder sees.
    sim.write(&format!("{policy}/scaling_governor"), "performance")
        .unwrap()
        .unwrap();
    let caller = pacer_helper::writers::describe(std::process::id());
    let ids = recorder.record(Some(&caller));
    // After the recording's own start.
    let events: Vec<Event> = recorder.history().since(1).cloned().collect();
    assert_eq!(ids.len(), 2, "{events:#?}");
    let (write, forced) = (&events[0], &events[1]);
    assert_eq!(
        (write.setting, write.source, write.process.as_ref()),
        (Setting::Governor, Source::Pacer, Some(&caller))
    );
    assert_eq!(
        (forced.setting, forced.source, forced.cause),
        (Setting::Epp, Source::Kernel, Some(write.id))
    );
    assert_eq!(forced.policies, [2]);
    assert_eq!(
        (
            forced.old.as_deref(),
            forced.new.as_str(),
            forced.process.as_ref()
        ),
        (Some("balance_performance"), "performance", None)
    );
    // A change with no write to the file (a new file in its place, as the simulated kernel
    // changes a file): found on the slow re-read, its source unknown.
    let max = machine.path().join(policy).join("scaling_max_freq");
    let beside = max.with_file_name("new_max");
    std::fs::write(&beside, "3000000\n").unwrap();
    std::fs::rename(&beside, &max).unwrap();
    assert!(recorder.record(None).is_empty(), "no write was seen");
    let ids = recorder.reread(None);
    assert_eq!(ids.len(), 1);
    let found = recorder.history().since(ids[0] - 1).next().unwrap();
    assert_eq!(
        (found.setting, found.source, found.cause, found.new.as_str()),
        (Setting::MaxFreq, Source::Unknown, None, "3000000")
    );
    // The file made anew is marked again: a write to it is seen.
    std::fs::write(&max, "2000000\n").unwrap();
    let ids = recorder.record(None);
    assert_eq!(ids.len(), 1);
    let written = recorder.history().since(ids[0] - 1).next().unwrap();
    assert_eq!(
        (written.setting, written.source, written.new.as_str()),
        (Setting::MaxFreq, Source::Pacer, "2000000")
    );
    // The ring holds every event, in order, each with its own id.
    let all: Vec<u64> = recorder.history().since(0).map(|e| e.id).collect();
    assert_eq!(all, [1, 2, 3, 4, 5]);
}

#[test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
fn a_burst_of_100000_writes_keeps_the_ring_at_its_size() {
    let (machine, mut recorder) = simulated_laptop(10_000);
    let epp = machine
        .path()
        .join("sys/devices/system/cpu/cpufreq/policy1/energy_performance_preference");
    let bin = tempfile::tempdir().unwrap();
    let program = bin.path().join("flood");
    std::fs::copy("/bin/sh", &program).unwrap();
    let mut child = Command::new(&program)
        .args([
            "-c",
            &format!(
                "i=0; while [ $i -lt 100000 ]; do echo power > {}; i=$((i+1)); done",
                epp.display()
            ),
        ])
        .spawn()
        .unwrap();
    // Taken while it floods, as the helper does.
    let mut recorded = 0;
    let mut slowest = Duration::ZERO;
    loop {
        let done = child.try_wait().unwrap().is_some();
        let started = Instant::now();
        recorded += recorder.record(None).len();
        slowest = slowest.max(started.elapsed());
        if done {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    recorded += recorder.record(None).len();
    // fanotify merges a writer's writes to one file that wait unread into one event, which
    // stands for them with the value after the last: fewer events than writes, none lost
    // (no overflow), and the ring at its size.
    assert_eq!(recorder.overflows(), 0);
    assert!((1..=100_000).contains(&recorded), "{recorded}");
    // (And the recording's start, event 1.)
    assert_eq!(recorder.history().len(), (recorded + 1).min(10_000));
    let last = recorder.history().since(0).last().unwrap();
    assert_eq!(last.id as usize, recorded + 1);
    assert_eq!(last.new, "power");
    assert_eq!(last.process.as_ref().unwrap().pid, child.id());
    // Responsive throughout: no one take held on for long.
    assert!(slowest < Duration::from_millis(500), "{slowest:?}");
}

#[test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
fn a_governor_write_reads_again_its_own_policy_and_the_machines_files_alone() {
    let (machine, mut recorder) = simulated_laptop(100);
    let cpufreq = machine.path().join("sys/devices/system/cpu/cpufreq");
    // Policy 7's limit changes with no write seen (the file replaced, as firmware or the
    // kernel would change it): no governor write elsewhere caused it.
    let limit = cpufreq.join("policy7/scaling_max_freq");
    let replaced = cpufreq.join("policy7/scaling_max_freq.new");
    std::fs::write(&replaced, "1200000\n").unwrap();
    std::fs::rename(&replaced, &limit).unwrap();
    let bin = tempfile::tempdir().unwrap();
    let mut tlp = run_as(
        bin.path(),
        "tlp",
        &format!(
            "echo performance > {}",
            cpufreq.join("policy3/scaling_governor").display()
        ),
    );
    // (A write of the shell's own, not the simulated kernel's: the EPP stays as it is.)
    let events = take(&mut recorder, 2);
    assert!(tlp.wait().unwrap().success());
    let seen: Vec<(Setting, Vec<u32>, Source)> = events
        .iter()
        .map(|e| (e.setting, e.policies.clone(), e.source))
        .collect();
    assert_eq!(
        seen,
        [(Setting::Governor, vec![3], Source::Process)],
        "{events:#?}"
    );
    // The slow re-read finds it, of no known source.
    let found = recorder.reread(None);
    let limit_event = recorder
        .history()
        .since(found[0] - 1)
        .next()
        .unwrap()
        .clone();
    assert_eq!(
        (
            limit_event.setting,
            limit_event.policies,
            limit_event.source
        ),
        (Setting::MaxFreq, vec![7], Source::Unknown)
    );
}
