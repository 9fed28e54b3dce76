// SPDX-License-Identifier: GPL-3.0-or-later
//! Bad roots, offline CPUs, unreadable and garbled files: clear problems, never a panic,
//! never a guess.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::fs;
use std::path::Path;

use pacer_core::machine::Snapshot;
use pacer_core::sysfs::{Expected, ProblemKind};
use pacer_core::{SnapshotError, SysRoot};

fn snapshot(root: &Path) -> Snapshot {
    Snapshot::read(&SysRoot::new(root)).unwrap()
}

fn intel() -> tempfile::TempDir {
    common::render(&common::machine("intel-hybrid", |_| {}))
}

fn write(root: &Path, rel: &str, content: &[u8]) {
    common::write(root.join(rel), content);
}

const POLICY0: &str = "sys/devices/system/cpu/cpufreq/policy0";

#[test]
fn empty_and_missing_roots_are_refused_by_name() {
    let empty = tempfile::tempdir().unwrap();
    let error = Snapshot::read(&SysRoot::new(empty.path())).unwrap_err();
    assert_eq!(error, SnapshotError::NotAMachine(empty.path().to_owned()));
    assert!(error
        .to_string()
        .contains("holds no sys/devices/system/cpu"));

    let missing = empty.path().join("nowhere");
    let error = Snapshot::read(&SysRoot::new(&missing)).unwrap_err();
    assert_eq!(error, SnapshotError::RootMissing(missing.clone()));
    assert!(error.to_string().contains("does not exist"));
}

#[test]
fn a_bare_cpu_directory_reads_with_problems() {
    let root = tempfile::tempdir().unwrap();
    fs::create_dir_all(root.path().join("sys/devices/system/cpu/cpu0")).unwrap();
    let snapshot = snapshot(root.path());
    assert_eq!(snapshot.cpus.len(), 1, "falls back on the cpuN directories");
    assert!(snapshot.policies.is_empty());
    let missing: Vec<String> = snapshot
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::Missing)
        .map(|p| p.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(missing, ["present", "online"]);
}

#[test]
fn garbled_values_become_unknown_with_a_named_problem() {
    let dir = intel();
    let root = dir.path();
    let cases: &[(&str, &[u8], Expected)] = &[
        (
            &format!("{POLICY0}/scaling_max_freq"),
            b"lots\n",
            Expected::Frequency,
        ),
        (
            &format!("{POLICY0}/scaling_min_freq"),
            b"-400000\n",
            Expected::Frequency,
        ),
        (
            &format!("{POLICY0}/cpuinfo_max_freq"),
            b"99999999999\n",
            Expected::Frequency,
        ),
        (
            &format!("{POLICY0}/energy_performance_preference"),
            b"turbo\n",
            Expected::Epp,
        ),
        (
            &format!("{POLICY0}/scaling_governor"),
            b"Perf ormance\n",
            Expected::Governor,
        ),
        (
            &format!("{POLICY0}/scaling_available_governors"),
            b"\n",
            Expected::GovernorList,
        ),
        (
            "sys/devices/system/cpu/cpu1/power/energy_perf_bias",
            b"16\n",
            Expected::Epb,
        ),
        (
            "sys/devices/system/cpu/intel_pstate/status",
            b"sideways\n",
            Expected::DriverStatus,
        ),
        (
            "sys/devices/system/cpu/intel_pstate/no_turbo",
            b"2\n",
            Expected::Flag,
        ),
        (
            "proc/sys/kernel/sched_energy_aware",
            b"7\n",
            Expected::EasSysctl,
        ),
        ("sys/devices/cpu_atom/cpus", b"8-x\n", Expected::CpuList),
    ];
    for (file, content, _) in cases {
        write(root, file, content);
    }
    let snapshot = snapshot(root);
    for (file, content, expected) in cases {
        let problem = snapshot
            .problems
            .iter()
            .find(|p| p.path == root.join(file))
            .unwrap_or_else(|| panic!("no problem for {file}"));
        assert_eq!(
            problem.kind,
            ProblemKind::Garbled {
                found: String::from_utf8_lossy(content)
                    .trim_end_matches('\n')
                    .to_owned(),
                expected: *expected,
            },
            "{file}"
        );
        assert!(problem.to_string().contains(file), "{problem}");
    }
    assert_eq!(
        snapshot.problems.len(),
        cases.len(),
        "{:#?}",
        snapshot.problems
    );

    let policy = snapshot.policy(0).unwrap();
    assert_eq!(
        (policy.max_khz, policy.min_khz, policy.epp),
        (None, None, None)
    );
    assert_eq!(policy.governor, None);
    assert_eq!(snapshot.driver.mode, None);
    assert_eq!(snapshot.driver.boost, None);
    assert_eq!(snapshot.eas.sysctl, None);
    assert_eq!(snapshot.eas.active, Some(false), "SMT still rules EAS out");
    // The other policies are untouched.
    assert!(snapshot.policy(1).unwrap().max_khz.is_some());
}

#[test]
fn raw_epp_numbers_and_default_are_read_as_printed() {
    let dir = intel();
    write(
        dir.path(),
        &format!("{POLICY0}/energy_performance_preference"),
        b"128\n",
    );
    write(
        dir.path(),
        "sys/devices/system/cpu/cpufreq/policy1/energy_performance_preference",
        b"default\n",
    );
    let snapshot = snapshot(dir.path());
    use pacer_core::values::Epp;
    assert_eq!(snapshot.policy(0).unwrap().epp, Some(Epp::Raw(128)));
    assert_eq!(snapshot.policy(1).unwrap().epp, Some(Epp::Default));
    assert!(snapshot.problems.is_empty());
}

#[test]
fn non_text_and_directories_are_unreadable_not_fatal() {
    let dir = intel();
    let root = dir.path();
    write(
        root,
        &format!("{POLICY0}/scaling_driver"),
        &[0xff, 0xfe, b'\n'],
    );
    let governor = root.join(format!("{POLICY0}/scaling_governor"));
    fs::remove_file(&governor).unwrap();
    fs::create_dir(&governor).unwrap();
    let snapshot = snapshot(root);
    let kind_of = |name: &str| {
        let path = root.join(format!("{POLICY0}/{name}"));
        let problem = snapshot.problems.iter().find(|p| p.path == path);
        problem.map(|p| p.kind.clone()).unwrap()
    };
    assert!(
        matches!(kind_of("scaling_driver"), ProblemKind::Unreadable { error, .. } if error.contains("UTF-8"))
    );
    assert!(matches!(
        kind_of("scaling_governor"),
        ProblemKind::Unreadable {
            errno: Some(21),
            ..
        }
    ));
    assert_eq!(snapshot.problems.len(), 2);
    assert_eq!(
        snapshot.driver.name.as_deref(),
        Some("intel_pstate"),
        "from policy 1 on"
    );
}

#[test]
fn missing_required_files_are_named() {
    let dir = intel();
    fs::remove_file(dir.path().join(format!("{POLICY0}/scaling_cur_freq"))).unwrap();
    fs::remove_file(
        dir.path()
            .join(format!("{POLICY0}/energy_performance_preference")),
    )
    .unwrap();
    let snapshot = snapshot(dir.path());
    let names: Vec<String> = snapshot.problems.iter().map(ToString::to_string).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].ends_with("policy0/scaling_cur_freq is missing"));
    assert!(names[1].ends_with("policy0/energy_performance_preference is missing"));
    assert_eq!(snapshot.cpus[0].cur_khz, None);
}

#[test]
fn offline_cpus_in_per_cpu_and_cluster_policies() {
    // intel_pstate: one policy per CPU, so CPU 9 offline leaves policy 9 inactive.
    let intel = common::render(&common::machine("intel-hybrid", |m| {
        m.cpus[9].online = false;
    }));
    let intel_snapshot = snapshot(intel.path());
    assert!(
        intel_snapshot.problems.is_empty(),
        "{:?}",
        intel_snapshot.problems
    );
    let cpu9 = &intel_snapshot.cpus[9];
    assert!(!cpu9.online);
    assert_eq!((cpu9.policy, cpu9.cur_khz), (Some(9), None));
    let policy9 = intel_snapshot.policy(9).unwrap();
    assert!(!policy9.is_active());
    assert_eq!(
        policy9.governor, None,
        "an inactive policy's files are not read"
    );
    assert_eq!(intel_snapshot.eas.reasons.len(), 4);

    // cpufreq-dt: one policy per cluster, so CPU 3 offline leaves policy 0 active.
    let arm = common::render(&common::machine("arm-rk3588", |m| {
        m.cpus[3].online = false;
    }));
    let arm_snapshot = snapshot(arm.path());
    let snapshot = &arm_snapshot;
    assert!(snapshot.problems.is_empty(), "{:?}", snapshot.problems);
    let policy0 = snapshot.policy(0).unwrap();
    assert!(policy0.is_active());
    assert_eq!(policy0.cpus.to_string(), "0-3");
    assert_eq!(policy0.online_cpus.to_string(), "0-2");
    assert_eq!(snapshot.cpus[3].policy, Some(0));
    assert_eq!(snapshot.cpus[3].cur_khz, None);
    assert_eq!(
        snapshot.eas.active,
        Some(true),
        "the energy model covers every online CPU"
    );
}
