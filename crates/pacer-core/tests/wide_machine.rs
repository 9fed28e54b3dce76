// SPDX-License-Identifier: GPL-3.0-or-later
//! A machine of hundreds of CPUs costs in proportion to its size: each file is read once,
//! and policies and CPUs are looked up by id, not searched for in the whole list for each
//! one (which is quadratic at 256 CPUs).

#![allow(clippy::unwrap_used)]

mod common;

use std::path::PathBuf;

use pacer_core::{Snapshot, SysRoot};

/// amd-zen4 widened to `cpus` CPUs with a policy each, read with its reads logged.
fn read_wide(cpus: u32) -> (Snapshot, Vec<PathBuf>) {
    let dir = common::render(&common::machine("amd-zen4", |_| {}).with_cpus(cpus));
    let root = SysRoot::with_read_log(dir.path());
    let snapshot = Snapshot::read(&root).unwrap();
    assert!(snapshot.problems.is_empty(), "{:?}", snapshot.problems);
    (snapshot, root.reads())
}

#[test]
fn twice_the_cpus_read_at_most_twice_the_files() {
    let (half, half_reads) = read_wide(128);
    let (whole, whole_reads) = read_wide(256);
    assert_eq!((half.policies.len(), whole.policies.len()), (128, 256));
    // The machine-wide files count in both: a read per policy for each policy would be
    // four times as many.
    assert!(
        whole_reads.len() <= 2 * half_reads.len(),
        "{} reads at 256 CPUs, {} at 128",
        whole_reads.len(),
        half_reads.len()
    );
    let policy_files = |reads: &[PathBuf], id: u32| {
        let dir = format!("cpufreq/policy{id}/");
        reads
            .iter()
            .filter(|path| path.to_string_lossy().contains(&dir))
            .count()
    };
    let first = policy_files(&whole_reads, 0);
    for id in 1..256 {
        assert!(policy_files(&whole_reads, id) <= first, "policy{id}");
    }
}

#[test]
fn every_policy_and_cpu_of_a_256_cpu_server_is_found_by_id() {
    let dir = tempfile::tempdir().unwrap();
    pacer_core::sim::SimDir::open_or_create(dir.path(), "server-256").unwrap();
    let snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
    assert!(snapshot.problems.is_empty(), "{:?}", snapshot.problems);
    assert_eq!((snapshot.cpus.len(), snapshot.policies.len()), (256, 256));
    // The lookups halve the lists, which holds only while they are in id order.
    assert!(snapshot.policies.windows(2).all(|w| w[0].id < w[1].id));
    assert!(snapshot.cpus.windows(2).all(|w| w[0].id < w[1].id));
    for policy in &snapshot.policies {
        assert_eq!(snapshot.policy(policy.id), Some(policy));
    }
    for cpu in &snapshot.cpus {
        assert_eq!(snapshot.cpu(cpu.id), Some(cpu));
        assert_eq!(cpu.policy, Some(cpu.id), "cpu{}", cpu.id);
        assert_eq!(cpu.cur_khz, snapshot.policy(cpu.id).unwrap().cur_khz);
    }
    assert_eq!(snapshot.policy(256), None);
    assert_eq!(snapshot.cpu(256), None);
    assert_eq!(snapshot.cpu(u32::MAX), None);
}

#[test]
fn cpus_sharing_a_policy_are_each_linked_to_it() {
    let dir = common::render(&common::machine("arm-rk3588", |_| {}));
    let snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
    let policies: Vec<Option<u32>> = snapshot.cpus.iter().map(|cpu| cpu.policy).collect();
    let (little, middle, big) = (Some(0), Some(4), Some(6));
    assert_eq!(
        policies,
        [little, little, little, little, middle, middle, big, big]
    );
    for policy in &snapshot.policies {
        let members: Vec<_> = snapshot
            .cpus
            .iter()
            .filter(|cpu| cpu.policy == Some(policy.id))
            .collect();
        assert!(members.len() >= 2, "policy{}", policy.id);
        for cpu in members {
            assert_eq!(cpu.core_type, policy.core_type, "cpu{}", cpu.id);
            assert_eq!(cpu.cur_khz, policy.cur_khz, "cpu{}", cpu.id);
        }
    }
}
