// SPDX-License-Identifier: GPL-3.0-or-later
//! What recording costs and keeps up with, through the real helper on a private system bus
//! (python-dbusmock's polkitd) on a simulated 16-CPU laptop whose frequencies stand still:
//!
//! - idle: a client keeps a watch open for 60 s and nothing writes; the helper's CPU time
//!   over that minute, as a share of one core (goal ≤ 0.05 %);
//! - a flood: another process writes the EPP of four policies in turn, 1,000 writes a
//!   second for a minute, each write a value different from the one before in its file,
//!   with two watchers; every write must come back to each as a `Changed` event (fanotify
//!   merges writes only when the one before is still unread: a recorder keeping up loses
//!   none), and what the helper could not signal it says (never silently). The helper's peak
//!   memory and threads are what the unit's `MemoryMax=` and `TasksMax=` leave a margin over.
//!
//! Run with `cargo bench -p pacer-helper --bench recording` (as root: fanotify needs
//! CAP_SYS_ADMIN). `RECORDING_IDLE_SECONDS` shortens the idle minute,
//! `RECORDING_FLOOD_SECONDS` the flood's.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::fs;
use std::time::{Duration, Instant};

use common::BenchRig;
use futures_util::StreamExt;
use pacer_dbus::history::History1Proxy;

mod common;

const RATE: u32 = 1000;
const FILES: u32 = 4;
const WATCHERS: usize = 2;

/// `name` from the environment, else `default`.
fn seconds(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// A field of `/proc/PID/status` (`VmHWM`, `Threads`), its first number.
fn status_field(pid: u32, field: &str) -> u64 {
    fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
        .unwrap()
}

/// The helper's CPU time so far, to the nanosecond: each of its threads' time on a CPU
/// (`/proc/PID/task/*/schedstat`; /proc/PID/stat counts in 10 ms ticks).
fn cpu_time(pid: u32) -> Duration {
    let mut total = 0u64;
    for task in fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let schedstat =
            fs::read_to_string(task.unwrap().path().join("schedstat")).unwrap_or_default();
        total += schedstat
            .split_whitespace()
            .next()
            .and_then(|ns| ns.parse::<u64>().ok())
            .unwrap_or(0);
    }
    Duration::from_nanos(total)
}

fn epp(root: &std::path::Path, policy: u32) -> std::path::PathBuf {
    root.join(format!(
        "sys/devices/system/cpu/cpufreq/policy{policy}/energy_performance_preference"
    ))
}

/// The writer, run as a process of its own: `RATE` writes a second for `duration` seconds,
/// paced on the clock.
fn write_burst(root: &std::path::Path, duration: u32) {
    let values = ["power", "balance_power"];
    let started = Instant::now();
    let writes = RATE * duration;
    for n in 0..writes {
        let due = started + Duration::from_secs_f64(f64::from(n) / f64::from(RATE));
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let policy = n % FILES;
        let value = values[(n / FILES % 2) as usize];
        fs::write(epp(root, policy), value).unwrap();
    }
    println!("{:.3}", started.elapsed().as_secs_f64());
}

fn main() {
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() == Some("--write-burst") {
        let root = args.next().unwrap();
        return write_burst(
            std::path::Path::new(&root),
            args.next().unwrap().parse().unwrap(),
        );
    }
    let idle_seconds = u64::from(seconds("RECORDING_IDLE_SECONDS", 60));
    let flood_seconds = seconds("RECORDING_FLOOD_SECONDS", 60);
    let rig = BenchRig::start();
    let pid = rig.pid();
    common::runtime(2).block_on(async {
        let mut watchers = Vec::new();
        for _ in 0..WATCHERS {
            let connection = rig.connect().await;
            let history = History1Proxy::new(&connection).await.unwrap();
            let changed = history.receive_changed().await.unwrap();
            history.watch_changes().await.unwrap();
            watchers.push((connection, history, changed));
        }
        // Settled: the watch's start announced.
        tokio::time::sleep(Duration::from_secs(1)).await;
        for (_, _, changed) in &mut watchers {
            while let Ok(Some(_)) =
                tokio::time::timeout(Duration::from_millis(10), changed.next()).await
            {}
        }

        let (cpu, wall) = (cpu_time(pid), Instant::now());
        tokio::time::sleep(Duration::from_secs(idle_seconds)).await;
        let share = (cpu_time(pid) - cpu).as_secs_f64() / wall.elapsed().as_secs_f64();
        println!(
            "idle recording: {:.3} % of one core over {:.0} s ({:.1} ms of CPU), goal ≤ 0.05 %",
            share * 100.0,
            wall.elapsed().as_secs_f64(),
            (cpu_time(pid) - cpu).as_secs_f64() * 1e3
        );

        // The flood, from a process of its own (the helper's own writes are not a process's).
        let cpu = cpu_time(pid);
        let writer = tokio::process::Command::new(std::env::current_exe().unwrap())
            .arg("--write-burst")
            .arg(rig.tree.path())
            .arg(flood_seconds.to_string())
            .output();
        let writes = RATE * flood_seconds;
        let counting = futures_util::future::join_all(
            watchers
                .iter_mut()
                .map(|(_, _, changed)| count(changed, writes, flood_seconds)),
        );
        let (output, counted) = tokio::join!(writer, counting);
        let output = output.unwrap();
        assert!(output.status.success());
        let took: f64 = String::from_utf8_lossy(&output.stdout).trim().parse().unwrap();
        let not_signalled: u64 = rig
            .helper
            .log()
            .lines()
            .filter_map(|line| line.strip_prefix("pacer-helper: "))
            .filter(|line| line.contains("changes were not signalled"))
            .filter_map(|line| line.split_whitespace().next()?.parse::<u64>().ok())
            .sum();
        println!(
            "flood: {writes} writes in {took:.1} s ({:.0}/s) to {FILES} EPP files, {WATCHERS} watchers; helper CPU {:.0} % of one core, peak memory {} KiB, {} threads",
            f64::from(writes) / took,
            (cpu_time(pid) - cpu).as_secs_f64() / took * 100.0,
            status_field(pid, "VmHWM"),
            status_field(pid, "Threads"),
        );
        for (watcher, (events, lost_marks)) in counted.iter().enumerate() {
            println!(
                "  watcher {}: {events} delivered as the writer's ({} missing), {lost_marks} overflow marks",
                watcher + 1,
                writes - events.min(&writes),
            );
        }
        println!("  not signalled (the bus behind), said in the helper's log: {not_signalled}");
    });
}

/// The writer's events one watcher receives, until all `writes` came or none came for 2 s;
/// and the overflow marks among them.
async fn count(
    changed: &mut pacer_dbus::history::ChangedStream,
    writes: u32,
    duration: u32,
) -> (u32, u32) {
    let mut events = 0u32;
    let mut lost_marks = 0u32;
    let deadline = Instant::now() + Duration::from_secs(u64::from(duration) + 10);
    while events < writes && Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_secs(2), changed.next()).await {
            Ok(Some(signal)) => {
                let event: serde_json::Value =
                    serde_json::from_str(signal.args().unwrap().event()).unwrap();
                if event["setting"] == "epp" && event["source"] == "process" {
                    events += 1;
                } else if event["setting"] == "recording" {
                    lost_marks += 1;
                }
            }
            _ => break,
        }
    }
    (events, lost_marks)
}
