// SPDX-License-Identifier: GPL-3.0-or-later
//! Wake-up ping-pong side by side with `perf bench sched pipe` (Debian's linux-perf), on the
//! same CPUs: both on one CPU (the same-CPU control), and across two. perf cannot pin each
//! of its two threads to its own CPU, only confine both to a set (`taskset`), so across CPUs
//! its threads may meet on one: the last row confines Pacer's two threads the same way.
//! Run with `cargo bench -p pacer-measure --bench wakeup_vs_perf`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use pacer_measure::wakeup::{ping_pong, ping_pong_within};

/// `perf bench sched pipe -T` confined to `cpus`: µs per round trip.
fn perf(cpus: &str) -> Option<f64> {
    let output = Command::new("taskset")
        .args([
            "-c", cpus, "perf", "bench", "sched", "pipe", "-T", "-l", "100000",
        ])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .find(|line| line.contains("usecs/op"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn main() {
    let last = std::thread::available_parallelism().map_or(1, |n| n.get() as u32) - 1;
    let cancel = AtomicBool::new(false);
    let pairs = [
        (last, last, format!("{last}")),
        (0, last, format!("0,{last}")),
    ];
    for (a, b, set) in pairs {
        let ours = ping_pong(a, b, Duration::from_secs(2), &cancel).unwrap();
        report(
            &format!("CPUs {a},{b}, one thread on each"),
            ours.steady_us,
            perf(&set),
        );
    }
    let within = ping_pong_within(&[0, last], Duration::from_secs(2), &cancel).unwrap();
    report(
        &format!("both threads within CPUs 0,{last}"),
        within.steady_us,
        perf(&format!("0,{last}")),
    );
}

fn report(what: &str, ours: f64, theirs: Option<f64>) {
    match theirs {
        Some(theirs) => println!(
            "{what}: Pacer {ours:.2} µs per round trip, perf bench sched pipe {theirs:.2} µs ({:+.0} %)",
            100.0 * (ours - theirs) / theirs
        ),
        None => println!("{what}: Pacer {ours:.2} µs per round trip; perf bench did not run (install linux-perf)"),
    }
}
