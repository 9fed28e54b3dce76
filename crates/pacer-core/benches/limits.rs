// SPDX-License-Identifier: GPL-3.0-or-later
//! The limit chain's cost at each refresh, as the tray pays it once a second: reading the
//! moving files and working out the verdict, on a laptop and on a 256-CPU server, as CPU
//! time per refresh and as a share of one core at 1 Hz.
//!
//! Run with `cargo bench -p pacer-core --bench limits`. The goal (issue 35): at most 0.1 %
//! of a core at 1 Hz, that is 1 ms of CPU time per refresh, with each file read once.

#![allow(clippy::expect_used, clippy::panic)]

mod common;

use std::collections::HashSet;

use common::{cpu_time, memory_dir};
use pacer_core::limits::{LimitReader, LimitWatch};
use pacer_core::sim;
use pacer_core::{Snapshot, SysRoot};

const RUNS: u32 = 2000;

fn main() {
    // As the window and the tray do: a descriptor kept per policy file.
    pacer_core::sysfs::raise_open_file_limit();
    for model in ["intel-hybrid", "amd-zen4", "server-256"] {
        let dir = memory_dir();
        sim::model(model)
            .expect("the model exists")
            .render(dir.path())
            .expect("the tree is laid out");
        let logged = SysRoot::with_read_log(dir.path());
        let snapshot = Snapshot::read(&logged).expect("the tree reads");
        let mut watch = LimitWatch::new(&logged, &snapshot);
        let before = logged.reads().len();
        watch.refresh(&logged);
        let reads = logged.reads()[before..].to_vec();
        let distinct: HashSet<_> = reads.iter().collect();

        // Reading, then the verdict over the six readings a 1 Hz refresh keeps in its
        // window, each timed apart: run back to back, the window would hold more.
        let root = SysRoot::new(dir.path());
        let mut reader = LimitReader::new(&root, &snapshot);
        let cpu_before = cpu_time();
        for _ in 0..RUNS {
            std::hint::black_box(reader.read(&root));
        }
        let reading = (cpu_time() - cpu_before) / RUNS;
        let mut watch = LimitWatch::new(&root, &snapshot);
        for _ in 0..6 {
            watch.refresh(&root);
        }
        let cpu_before = cpu_time();
        for _ in 0..RUNS {
            std::hint::black_box(watch.limits(&snapshot));
        }
        let verdict = (cpu_time() - cpu_before) / RUNS;
        let per_refresh = reading + verdict;
        println!(
            "{model} ({} policies): {:.3} ms of CPU per refresh ({:.3} reading, {:.3} verdict), \
             {:.3} % of a core at 1 Hz; {} reads of {} distinct files per refresh",
            snapshot.policies.len(),
            per_refresh.as_secs_f64() * 1e3,
            reading.as_secs_f64() * 1e3,
            verdict.as_secs_f64() * 1e3,
            per_refresh.as_secs_f64() * 100.0,
            reads.len(),
            distinct.len(),
        );
    }
}
