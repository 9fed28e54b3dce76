// SPDX-License-Identifier: GPL-3.0-or-later
//! The snapshot of every machine kind says what the kernel facts say it must
//! (`docs/kernel.md`, the machine kinds in its section 7), on the project's own trees and
//! on the reference trees (`tests/reference-trees/`), which the models reproduce exactly.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;

use pacer_core::machine::{EasReason, Snapshot};
use pacer_core::values::{CoreType, DriverMode, EasSysctl, Epp};
use pacer_core::{CpuSet, SysRoot};
use pacer_testrig::reference_trees::{self, Entry, TREES};

/// What each kind must read as.
struct Expect {
    tree: &'static str,
    driver: Option<&'static str>,
    mode: Option<DriverMode>,
    boost: Option<bool>,
    governor: Option<&'static str>,
    epp: Option<Epp>,
    /// CPUs per core type, `None` for alike cores.
    core_types: &'static [(Option<CoreType>, &'static str)],
    eas_active: Option<bool>,
    sysctl: Option<EasSysctl>,
    eas_reasons: &'static [&'static str],
    rapl_zones: usize,
}

const EXPECTED: [Expect; 7] = [
    Expect {
        tree: "intel-hybrid-active",
        driver: Some("intel_pstate"),
        mode: Some(DriverMode::Active),
        boost: Some(true),
        governor: Some("powersave"),
        epp: Some(Epp::BalancePerformance),
        core_types: &[
            (Some(CoreType::Performance), "0-7"),
            (Some(CoreType::Efficiency), "8-15"),
        ],
        eas_active: Some(false),
        sysctl: Some(EasSysctl::Impossible),
        eas_reasons: &[
            "smt-active",
            "symmetric-capacity",
            "governor-not-schedutil",
            "no-energy-model",
        ],
        rapl_zones: 4,
    },
    Expect {
        tree: "intel-hybrid-active-eas",
        driver: Some("intel_pstate"),
        mode: Some(DriverMode::Active),
        boost: Some(true),
        governor: Some("powersave"),
        epp: Some(Epp::BalancePerformance),
        core_types: &[
            (Some(CoreType::Performance), "0-3"),
            (Some(CoreType::Efficiency), "4-11"),
        ],
        // EM and asymmetric capacity are there, but active mode has no schedutil.
        eas_active: Some(false),
        sysctl: Some(EasSysctl::Impossible),
        eas_reasons: &["governor-not-schedutil"],
        rapl_zones: 4,
    },
    Expect {
        tree: "intel-hybrid-passive-schedutil",
        driver: Some("intel_cpufreq"),
        mode: Some(DriverMode::Passive),
        boost: Some(true),
        governor: Some("schedutil"),
        // Passive mode with HWP keeps the EPP files.
        epp: Some(Epp::BalancePerformance),
        core_types: &[
            (Some(CoreType::Performance), "0-7"),
            (Some(CoreType::Efficiency), "8-15"),
        ],
        eas_active: Some(false),
        sysctl: Some(EasSysctl::Impossible),
        eas_reasons: &["smt-active", "symmetric-capacity", "no-energy-model"],
        rapl_zones: 4,
    },
    Expect {
        tree: "intel-hybrid-passive-eas",
        driver: Some("intel_cpufreq"),
        mode: Some(DriverMode::Passive),
        boost: Some(true),
        governor: Some("schedutil"),
        epp: Some(Epp::BalancePerformance),
        core_types: &[
            (Some(CoreType::Performance), "0-3"),
            (Some(CoreType::Efficiency), "4-11"),
        ],
        eas_active: Some(true),
        sysctl: Some(EasSysctl::Enabled),
        eas_reasons: &[],
        rapl_zones: 4,
    },
    Expect {
        tree: "amd-zen4-epp",
        driver: Some("amd-pstate-epp"),
        mode: Some(DriverMode::Active),
        boost: Some(true),
        governor: Some("powersave"),
        epp: Some(Epp::BalancePerformance),
        core_types: &[(None, "0-15")],
        eas_active: Some(false),
        sysctl: Some(EasSysctl::Impossible),
        eas_reasons: &[
            "smt-active",
            "symmetric-capacity",
            "governor-not-schedutil",
            "no-energy-model",
        ],
        rapl_zones: 2,
    },
    Expect {
        tree: "arm-biglittle-eas",
        driver: Some("cpufreq-dt"),
        mode: None,
        boost: Some(false),
        governor: Some("schedutil"),
        epp: None,
        // Labelled by cpu_capacity: 397 for the A55s, 1024 for the A76s.
        core_types: &[
            (Some(CoreType::Efficiency), "0-3"),
            (Some(CoreType::Performance), "4-7"),
        ],
        eas_active: Some(true),
        sysctl: Some(EasSysctl::Enabled),
        eas_reasons: &[],
        rapl_zones: 0,
    },
    Expect {
        tree: "vm-no-cpufreq",
        driver: None,
        mode: None,
        boost: None,
        governor: None,
        epp: None,
        core_types: &[(None, "0-3")],
        eas_active: Some(false),
        sysctl: None,
        eas_reasons: &["no-kernel-support"],
        rapl_zones: 0,
    },
];

fn reason_code(reason: &EasReason) -> String {
    serde_json::to_value(reason).unwrap()["code"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn check(snapshot: &Snapshot, expect: &Expect) {
    let tree = expect.tree;
    assert!(
        snapshot.problems.is_empty(),
        "{tree}: {:?}",
        snapshot.problems
    );
    assert_eq!(
        snapshot.driver.name.as_deref(),
        expect.driver,
        "{tree}: driver"
    );
    assert_eq!(snapshot.driver.mode, expect.mode, "{tree}: mode");
    assert_eq!(snapshot.driver.boost, expect.boost, "{tree}: boost");
    for policy in &snapshot.policies {
        assert_eq!(
            policy.governor.as_ref().map(|g| g.as_str()),
            expect.governor,
            "{tree}: governor of policy {}",
            policy.id
        );
        assert_eq!(
            policy.epp, expect.epp,
            "{tree}: EPP of policy {}",
            policy.id
        );
        assert!(
            policy.min_khz.is_some() && policy.hw_max_khz.is_some() && policy.cur_khz.is_some()
        );
    }
    let mut by_type: BTreeMap<Option<CoreType>, CpuSet> = BTreeMap::new();
    for cpu in &snapshot.cpus {
        by_type.entry(cpu.core_type).or_default().insert(cpu.id);
    }
    let expected_types: BTreeMap<Option<CoreType>, CpuSet> = expect
        .core_types
        .iter()
        .map(|(core_type, cpus)| (*core_type, CpuSet::parse(cpus).unwrap()))
        .collect();
    assert_eq!(by_type, expected_types, "{tree}: core types");
    assert_eq!(snapshot.eas.active, expect.eas_active, "{tree}: EAS active");
    assert_eq!(snapshot.eas.sysctl, expect.sysctl, "{tree}: EAS sysctl");
    let reasons: Vec<String> = snapshot.eas.reasons.iter().map(reason_code).collect();
    assert_eq!(reasons, expect.eas_reasons, "{tree}: EAS reasons");
    assert_eq!(snapshot.rapl.len(), expect.rapl_zones, "{tree}: RAPL zones");
    assert!(snapshot.cpus.iter().all(|cpu| cpu.online));
}

#[test]
fn every_machine_kind_reads_as_the_kernel_facts_say() {
    for expect in &EXPECTED {
        let machine = common::model_for_tree(expect.tree);
        let dir = common::render(&machine);
        let snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
        check(&snapshot, expect);
        assert!(snapshot.simulated, "a model's tree is marked simulated");
    }
}

#[test]
fn reference_trees_read_the_same() {
    for expect in &EXPECTED {
        let tree = reference_trees::lay_out(expect.tree);
        let snapshot = Snapshot::read(&SysRoot::new(tree.path())).unwrap();
        check(&snapshot, expect);
        assert!(!snapshot.simulated);
    }
}

/// The reference trees are the models' files as listed in the repository, so that a change
/// to what a model lays out shows in the listings' diff. With
/// `PACER_WRITE_REFERENCE_TREES=1` (`tests/reference-trees/make-trees.sh`) the listings are
/// written from the models instead.
#[test]
fn models_lay_out_the_reference_trees_file_for_file() {
    let write = std::env::var_os("PACER_WRITE_REFERENCE_TREES").is_some_and(|v| v == "1");
    for tree in TREES {
        let ours = common::render(&common::model_for_tree(tree));
        let mine = reference_trees::describe(ours.path());
        if write {
            reference_trees::write_listing(tree, &mine);
            continue;
        }
        let listed = reference_trees::listing(tree);
        let paths = |entries: &[Entry]| -> Vec<String> {
            entries.iter().map(|e| e.path().to_owned()).collect()
        };
        assert_eq!(paths(&mine), paths(&listed), "{tree}: files added or gone");
        for (entry, listed) in mine.iter().zip(&listed) {
            assert_eq!(entry, listed, "{tree}: the model differs from its listing");
        }
    }
}

#[test]
fn a_snapshot_reads_each_file_at_most_once() {
    for tree in TREES {
        let dir = common::render(&common::model_for_tree(tree));
        let root = SysRoot::with_read_log(dir.path());
        Snapshot::read(&root).unwrap();
        let reads = root.reads();
        let mut distinct = reads.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(reads.len(), distinct.len(), "{tree} reads a file twice");
        assert!(!reads.is_empty());
    }
}
