// SPDX-License-Identifier: GPL-3.0-or-later
//! Method-call latency of the helper: a client calling SetGovernor (validate, polkit check,
//! write through the simulated machine's rules, read back, signal) and Snapshot on a private
//! system bus with python-dbusmock's polkitd. Run with
//! `cargo bench -p pacer-helper --bench latency`.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use pacer_core::values::Governor;
use std::time::{Duration, Instant};

use common::BenchRig;
use pacer_dbus::Helper1Proxy;

mod common;

const CALLS: usize = 500;

fn summary(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    println!(
        "{name}: median {:.2} ms, p99 {:.2} ms, max {:.2} ms over {} calls",
        at(0.5),
        at(0.99),
        at(1.0),
        times.len()
    );
}

fn main() {
    let rig = BenchRig::start();
    common::runtime(1).block_on(async {
        let connection = rig.connect().await;
        let helper = Helper1Proxy::new(&connection).await.unwrap();
        let mut set = Vec::with_capacity(CALLS);
        for call in 0..CALLS {
            let governor = if call % 2 == 0 {
                Governor::performance()
            } else {
                Governor::powersave()
            };
            let start = Instant::now();
            helper.set_governor(&[3], &governor).await.unwrap();
            set.push(start.elapsed());
        }
        summary("SetGovernor (polkit check, write, read back, signal)", set);
        let mut snapshot = Vec::with_capacity(CALLS / 5);
        for _ in 0..CALLS / 5 {
            let start = Instant::now();
            helper.snapshot().await.unwrap();
            snapshot.push(start.elapsed());
        }
        summary(
            "Snapshot (16 CPUs, with the bus and profile lookups)",
            snapshot,
        );
    });
}
