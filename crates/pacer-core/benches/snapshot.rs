// SPDX-License-Identifier: GPL-3.0-or-later
//! The snapshot of a 256-CPU machine (what `pacerctl status` reads): median time per
//! snapshot, the CPU time it takes on all threads, and reads per file.
//!
//! Run with `cargo bench -p pacer-core --bench snapshot`. The goal (issue 15): at most 5 ms
//! on a 2-core machine, with no file read more than once. Wall time on a shared virtual
//! machine wanders by a third from run to run, so it is the median of many runs, and the
//! CPU time (which the neighbours do not inflate as much) is printed beside it.

#![allow(clippy::expect_used, clippy::panic)]

mod common;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use common::{cpu_time, memory_dir};
use pacer_core::sim::{self, SimMachine};
use pacer_core::{Snapshot, SysRoot};

const CPUS: u32 = 256;
const RUNS: usize = 1000;

/// The AMD model, widened to 256 logical CPUs with a policy each: the most files per CPU.
fn big_machine() -> SimMachine {
    sim::model("amd-zen4")
        .expect("the amd-zen4 model exists")
        .with_cpus(CPUS)
}

fn main() {
    let dir = memory_dir();
    big_machine()
        .render(dir.path())
        .expect("the tree is laid out");

    let logged = SysRoot::with_read_log(dir.path());
    let snapshot = Snapshot::read(&logged).expect("the tree reads");
    assert!(snapshot.problems.is_empty(), "{:?}", snapshot.problems);
    let reads = logged.reads();
    let distinct: HashSet<_> = reads.iter().collect();

    let root = SysRoot::new(dir.path());
    let cpu_before = cpu_time();
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let snapshot = Snapshot::read(&root).expect("the tree reads");
            let elapsed = start.elapsed();
            std::hint::black_box(snapshot);
            elapsed
        })
        .collect();
    let cpu_per_snapshot = (cpu_time() - cpu_before) / RUNS as u32;
    times.sort();
    let at = |fraction: f64| times[((times.len() - 1) as f64 * fraction) as usize];
    println!(
        "snapshot of {CPUS} CPUs ({} policies): median {:.2} ms, p10 {:.2} ms, p90 {:.2} ms over {RUNS} runs",
        snapshot.policies.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.1).as_secs_f64() * 1e3,
        at(0.9).as_secs_f64() * 1e3,
    );
    println!(
        "CPU time per snapshot, all threads: {:.2} ms",
        cpu_per_snapshot.as_secs_f64() * 1e3
    );
    println!(
        "files read: {} reads of {} distinct files (at most one read per file: {})",
        reads.len(),
        distinct.len(),
        reads.len() == distinct.len()
    );
}
