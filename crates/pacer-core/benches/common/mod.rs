// SPDX-License-Identifier: GPL-3.0-or-later
//! What the benchmarks of pacer-core share.

use std::time::Duration;

/// This process's CPU time so far, user and system, all threads (`/proc/self/stat` fields 14
/// and 15, in clock ticks of 10 ms: fine over a thousand runs).
pub fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat reads");
    let after_command = &stat[stat.rfind(')').expect("a stat line") + 1..];
    let ticks: u64 = after_command
        .split_whitespace()
        .skip(11)
        .take(2)
        .map(|field| field.parse::<u64>().expect("a tick count"))
        .sum();
    Duration::from_millis(ticks * 10)
}

/// A temporary folder in memory, where there is a tmpfs, as sysfs lives in memory.
pub fn memory_dir() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
    .expect("a temporary directory")
}
