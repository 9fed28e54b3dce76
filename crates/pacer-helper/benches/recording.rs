//! What recording costs and keeps up with, through the real helper on a private system bus
//! (python-dbusmock's polkitd) on a simulated 16-CPU laptop whose frequencies stand still:
//!
//! - idle: a client keeps a watch open for 60 s and nothing writes; the helper's CPU time
//!   over that minute, as a share of one core (goal ≤ 0.05 %);
//! - a burst: another process writes the EPP of four policies in turn, 1,000 writes a
//!   second for 5 s, each write a value different from the one before in its file; every
//!   write must come back as a `Changed` event (fanotify merges writes only when the one
//!   before is still unread: a recorder keeping up loses none).
//!
//! Run with `cargo bench -p pacer-helper --bench recording` (as root: fanotify needs
//! CAP_SYS_ADMIN). `RECORDING_IDLE_SECONDS` shortens the idle minute.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::fs;
use std::time::{Duration, Instant};

use common::BenchRig;
use futures_util::StreamExt;
use pacer_dbus::history::History1Proxy;

mod common;

const RATE: u32 = 1000;
const BURST_SECONDS: u32 = 5;
const FILES: u32 = 4;

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

/// The writer, run as a process of its own: `RATE` writes a second, paced on the clock.
fn write_burst(root: &std::path::Path) {
    let values = ["power", "balance_power"];
    let started = Instant::now();
    let writes = RATE * BURST_SECONDS;
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
        return write_burst(std::path::Path::new(&args.next().unwrap()));
    }
    let idle_seconds: u64 = std::env::var("RECORDING_IDLE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let rig = BenchRig::start();
    let pid = rig.pid();
    common::runtime(2).block_on(async {
        let connection = rig.connect().await;
        let history = History1Proxy::new(&connection).await.unwrap();
        let mut changed = history.receive_changed().await.unwrap();
        history.watch_changes().await.unwrap();
        // Settled: the watch's start announced.
        tokio::time::sleep(Duration::from_secs(1)).await;
        while let Ok(Some(_)) =
            tokio::time::timeout(Duration::from_millis(10), changed.next()).await
        {}

        let (cpu, wall) = (cpu_time(pid), Instant::now());
        tokio::time::sleep(Duration::from_secs(idle_seconds)).await;
        let share = (cpu_time(pid) - cpu).as_secs_f64() / wall.elapsed().as_secs_f64();
        println!(
            "idle recording: {:.3} % of one core over {:.0} s ({:.1} ms of CPU), goal ≤ 0.05 %",
            share * 100.0,
            wall.elapsed().as_secs_f64(),
            (cpu_time(pid) - cpu).as_secs_f64() * 1e3
        );

        // The burst, from a process of its own (the helper's own writes are not a process's).
        let cpu = cpu_time(pid);
        let writer = tokio::process::Command::new(std::env::current_exe().unwrap())
            .arg("--write-burst")
            .arg(rig.tree.path())
            .output();
        let counting = async {
            let mut events = 0u32;
            let mut merged_away = 0u32;
            let writes = RATE * BURST_SECONDS;
            let deadline = Instant::now() + Duration::from_secs(u64::from(BURST_SECONDS) + 10);
            while events < writes && Instant::now() < deadline {
                match tokio::time::timeout(Duration::from_secs(2), changed.next()).await {
                    Ok(Some(signal)) => {
                        let event: serde_json::Value =
                            serde_json::from_str(signal.args().unwrap().event()).unwrap();
                        if event["setting"] == "epp" && event["source"] == "process" {
                            events += 1;
                        } else if event["setting"] == "recording" {
                            merged_away += 1;
                        }
                    }
                    _ => break,
                }
            }
            (events, merged_away)
        };
        let (output, (events, lost_marks)) = tokio::join!(writer, counting);
        let output = output.unwrap();
        assert!(output.status.success());
        let took: f64 = String::from_utf8_lossy(&output.stdout).trim().parse().unwrap();
        let writes = RATE * BURST_SECONDS;
        println!(
            "burst: {writes} writes in {took:.2} s ({:.0}/s) to {FILES} EPP files; {events} recorded as the writer's ({} missing), {lost_marks} overflow marks; helper CPU {:.0} % of one core",
            f64::from(writes) / took,
            writes - events.min(writes),
            (cpu_time(pid) - cpu).as_secs_f64() / took * 100.0
        );
    });
}
