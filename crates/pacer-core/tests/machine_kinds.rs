//! The snapshot of every machine kind says what the kernel facts say it must
//! (`docs/kernel.md`, the machine kinds in its section 7), on the project's own trees and,
//! when present, on the reference fixture trees, which the models must reproduce exactly.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use pacer_core::machine::{EasReason, Snapshot};
use pacer_core::values::{CoreType, DriverMode, EasSysctl, Epp};
use pacer_core::{CpuSet, SysRoot};

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
        let machine = common::model_for_fixture(expect.tree);
        let dir = common::render(&machine);
        let snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
        check(&snapshot, expect);
        assert!(snapshot.simulated, "a model's tree is marked simulated");
    }
}

#[test]
fn reference_fixture_trees_read_the_same() {
    let fixtures = common::reference_fixtures();
    for expect in &EXPECTED {
        let root = SysRoot::new(fixtures.join(expect.tree));
        let snapshot = Snapshot::read(&root).unwrap();
        check(&snapshot, expect);
        assert!(!snapshot.simulated);
    }
}

/// Each file under `root` (except the scheduler's debug domains, verbose-only and unread):
/// its kind, mode and content or link target.
fn describe_tree(root: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel.starts_with(".pacer-sim") || rel.starts_with("sys/kernel/debug/sched") {
                continue;
            }
            let meta = fs::symlink_metadata(&path).unwrap();
            let description = if meta.is_symlink() {
                format!("link {}", fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                pending.push(path.clone());
                "dir".to_owned()
            } else {
                format!(
                    "{:o} {:?}",
                    meta.permissions().mode() & 0o777,
                    fs::read_to_string(&path).unwrap()
                )
            };
            found.insert(rel, description);
        }
    }
    found
}

#[test]
fn models_reproduce_the_reference_trees_byte_for_byte() {
    let fixtures = common::reference_fixtures();
    for tree in common::FIXTURE_TREES {
        let ours = common::render(&common::model_for_fixture(tree));
        let theirs = describe_tree(&fixtures.join(tree));
        let mine = describe_tree(ours.path());
        for (path, description) in &theirs {
            assert_eq!(mine.get(path), Some(description), "{tree}: {path}");
        }
        for path in mine.keys() {
            assert!(theirs.contains_key(path), "{tree}: extra {path}");
        }
    }
}

#[test]
fn a_snapshot_reads_each_file_at_most_once() {
    for tree in common::FIXTURE_TREES {
        let dir = common::render(&common::model_for_fixture(tree));
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
