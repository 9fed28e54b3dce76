// SPDX-License-Identifier: GPL-3.0-or-later
//! A flood of unauthorised-cost calls: 20 clients send 10,000 `Snapshot` calls between them
//! (500 each, as fast as the helper answers), while another client times `Snapshot` and a
//! `SetGovernor` every 50 ms. Reports the other client's latency during the flood, and the
//! helper's resident memory, file descriptors and threads before and after. Private system
//! bus, python-dbusmock's polkitd, a simulated 16-CPU laptop. Run with
//! `cargo bench -p pacer-helper --bench flood`.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use pacer_core::values::Governor;
use std::fs;
use std::time::{Duration, Instant};

use common::BenchRig;
use pacer_dbus::Helper1Proxy;

mod common;

const CLIENTS: usize = 20;
const CALLS_EACH: usize = 500;

/// Resident memory (kB), open file descriptors and threads of `pid`.
fn footprint(pid: u32) -> (u64, usize, u64) {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|value| value.parse().ok())
            .unwrap_or(0)
    };
    let fds = fs::read_dir(format!("/proc/{pid}/fd")).unwrap().count();
    (field("VmRSS:"), fds, field("Threads:"))
}

fn quantiles(mut times: Vec<Duration>) -> String {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    format!(
        "median {:.1} ms, p99 {:.1} ms, max {:.1} ms over {} calls",
        at(0.5),
        at(0.99),
        at(1.0),
        times.len()
    )
}

async fn proxy(rig: &BenchRig) -> Helper1Proxy<'static> {
    Helper1Proxy::new(&rig.connect().await).await.unwrap()
}

fn main() {
    let rig = BenchRig::start();
    let pid = rig.pid();
    common::runtime(2).block_on(async {
        let other = proxy(&rig).await;
        other.snapshot().await.unwrap();
        let before = footprint(pid);

        let started = Instant::now();
        let mut flood = Vec::new();
        for _ in 0..CLIENTS {
            let client = proxy(&rig).await;
            flood.push(tokio::spawn(async move {
                let mut refused = 0;
                for _ in 0..CALLS_EACH {
                    if client.snapshot().await.is_err() {
                        refused += 1;
                    }
                }
                refused
            }));
        }
        let mut snapshots = Vec::new();
        let mut changes = Vec::new();
        let mut peak = before;
        while !flood.iter().all(|task| task.is_finished()) {
            let start = Instant::now();
            other.snapshot().await.unwrap();
            snapshots.push(start.elapsed());
            let start = Instant::now();
            let governor = if changes.len() % 2 == 0 {
                Governor::performance()
            } else {
                Governor::powersave()
            };
            other.set_governor(&[3], &governor).await.unwrap();
            changes.push(start.elapsed());
            let now = footprint(pid);
            peak = (peak.0.max(now.0), peak.1.max(now.1), peak.2.max(now.2));
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut refused = 0;
        for task in flood {
            refused += task.await.unwrap();
        }
        let took = started.elapsed();
        let after = footprint(pid);
        println!(
            "flood: {} Snapshot calls from {CLIENTS} clients in {:.1} s ({:.0} calls/s), {refused} refused as too many at once",
            CLIENTS * CALLS_EACH,
            took.as_secs_f64(),
            (CLIENTS * CALLS_EACH) as f64 / took.as_secs_f64()
        );
        println!("another client's Snapshot during the flood: {}", quantiles(snapshots));
        println!("another client's SetGovernor during the flood: {}", quantiles(changes));
        println!(
            "helper before: {} kB resident, {} fds, {} threads; peak {} kB, {} fds, {} threads; after {} kB, {} fds, {} threads",
            before.0, before.1, before.2, peak.0, peak.1, peak.2, after.0, after.1, after.2
        );
    });
}
