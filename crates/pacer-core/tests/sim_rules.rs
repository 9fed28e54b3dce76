// SPDX-License-Identifier: GPL-3.0-or-later
//! The kernel's write rules on simulated machines, each row citing the behaviour it encodes
//! (`docs/kernel.md` sections), the three-step sequence of `docs/kernel.md` 2.4, random
//! write sequences, and the ramp calibration against the published measurements
//! (`docs/measurement.md` 2).
//!
//! Longer than most files: a table of the kernel's write rules, one row each, so that a rule
//! and its expected answer read side by side.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;

use pacer_core::machine::Snapshot;
use pacer_core::sim::{self, SimCoreKind, SimDir, WriteError};
use pacer_core::SysRoot;
use proptest::prelude::*;

const CPUFREQ: &str = "sys/devices/system/cpu/cpufreq";

fn machine_dir(model: &str) -> (tempfile::TempDir, SimDir) {
    let dir = tempfile::tempdir().unwrap();
    let sim = SimDir::open_or_create(dir.path(), model).unwrap();
    (dir, sim)
}

fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).unwrap()
}

fn policy(id: u32, file: &str) -> String {
    format!("{CPUFREQ}/policy{id}/{file}")
}

/// One write and what must follow: the kernel's answer, then files and their contents.
struct Row {
    why: &'static str,
    path: String,
    value: &'static str,
    answer: Result<(), WriteError>,
    then: Vec<(String, &'static str)>,
}

fn row(
    why: &'static str,
    path: String,
    value: &'static str,
    answer: Result<(), WriteError>,
) -> Row {
    Row {
        why,
        path,
        value,
        answer,
        then: Vec::new(),
    }
}

impl Row {
    fn then(mut self, file: String, content: &'static str) -> Row {
        self.then.push((file, content));
        self
    }
}

fn run(model: &str, rows: Vec<Row>) {
    let (dir, sim) = machine_dir(model);
    for row in rows {
        let answer = sim.write(&row.path, row.value).unwrap();
        assert_eq!(
            answer, row.answer,
            "{}: {} <- {}",
            row.why, row.path, row.value
        );
        for (file, content) in &row.then {
            assert_eq!(read(dir.path(), file), *content, "{}: {file}", row.why);
        }
        let snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
        assert!(
            snapshot.problems.is_empty(),
            "{}: {:?}",
            row.why,
            snapshot.problems
        );
    }
}

use WriteError::{Busy, Invalid, NoFile, NotSupported, ReadOnly};

#[test]
fn intel_pstate_active_mode() {
    run(
        "intel-hybrid",
        vec![
            row(
                "docs/kernel.md 2.1: setpolicy drivers take performance and powersave only",
                policy(0, "scaling_governor"),
                "schedutil",
                Err(Invalid),
            ),
            row(
                "docs/kernel.md 2.2: names map to the model's numbers",
                policy(0, "energy_performance_preference"),
                "balance_power",
                Ok(()),
            )
            .then(
                policy(0, "energy_performance_preference"),
                "balance_power\n",
            ),
            row(
                "docs/kernel.md 2.2: raw numbers since 5.9 print as the number",
                policy(0, "energy_performance_preference"),
                "128",
                Ok(()),
            )
            .then(policy(0, "energy_performance_preference"), "128\n"),
            row(
                "docs/kernel.md 2.2: 102 is balance_performance on Alder Lake-L",
                policy(0, "energy_performance_preference"),
                "102",
                Ok(()),
            )
            .then(
                policy(0, "energy_performance_preference"),
                "balance_performance\n",
            ),
            row(
                "docs/kernel.md 2.2: above 255 is EINVAL",
                policy(0, "energy_performance_preference"),
                "256",
                Err(Invalid),
            ),
            row(
                "docs/kernel.md 2.2: unknown names are EINVAL",
                policy(0, "energy_performance_preference"),
                "turbo",
                Err(Invalid),
            ),
            row(
                "docs/kernel.md 2.3: performance forces EPP 0",
                policy(1, "scaling_governor"),
                "performance",
                Ok(()),
            )
            .then(policy(1, "energy_performance_preference"), "performance\n")
            .then(policy(1, "scaling_governor"), "performance\n"),
            row(
                "docs/kernel.md 2.3: EPP above 0 under performance is EBUSY",
                policy(1, "energy_performance_preference"),
                "balance_performance",
                Err(Busy),
            ),
            row(
                "docs/kernel.md 2.3: default is above 0 too",
                policy(1, "energy_performance_preference"),
                "default",
                Err(Busy),
            ),
            row(
                "docs/kernel.md 2.3: a raw 0 is accepted",
                policy(1, "energy_performance_preference"),
                "0",
                Ok(()),
            ),
            row(
                "docs/kernel.md 1.3: EPB names use hyphens; normal is 7 on ADL-L",
                "sys/devices/system/cpu/cpu2/power/energy_perf_bias".into(),
                "normal",
                Ok(()),
            )
            .then(
                "sys/devices/system/cpu/cpu2/power/energy_perf_bias".into(),
                "7\n",
            ),
            row(
                "docs/kernel.md 1.3: EPB is 0-15",
                "sys/devices/system/cpu/cpu2/power/energy_perf_bias".into(),
                "16",
                Err(Invalid),
            ),
            row(
                "docs/kernel.md 1.3: no_turbo",
                "sys/devices/system/cpu/intel_pstate/no_turbo".into(),
                "1",
                Ok(()),
            )
            .then("sys/devices/system/cpu/intel_pstate/no_turbo".into(), "1\n"),
            row(
                "docs/kernel.md 1.2: limits are clamped to the hardware's",
                policy(2, "scaling_max_freq"),
                "9999999",
                Ok(()),
            )
            .then(policy(2, "scaling_max_freq"), "4700000\n"),
            row(
                "docs/kernel.md 1.2: limits are numbers",
                policy(2, "scaling_max_freq"),
                "fast",
                Err(Invalid),
            ),
            row(
                "docs/kernel.md 1.2: read-only attributes refuse writes",
                policy(2, "cpuinfo_max_freq"),
                "1",
                Err(ReadOnly),
            ),
            row(
                "no such file",
                policy(99, "scaling_governor"),
                "powersave",
                Err(NoFile),
            ),
            row(
                "nothing outside the model",
                "etc/passwd".into(),
                "x",
                Err(NoFile),
            ),
            row(
                "docs/kernel.md 4.3: EAS impossible with SMT: EOPNOTSUPP",
                "proc/sys/kernel/sched_energy_aware".into(),
                "1",
                Err(NotSupported),
            )
            .then("proc/sys/kernel/sched_energy_aware".into(), ""),
            row(
                "docs/kernel.md 2.1: off is refused while HWP is on",
                "sys/devices/system/cpu/intel_pstate/status".into(),
                "off",
                Err(Busy),
            ),
            row(
                "docs/kernel.md 2.1: status takes active, passive, off",
                "sys/devices/system/cpu/intel_pstate/status".into(),
                "sideways",
                Err(Invalid),
            ),
        ],
    );
}

#[test]
fn intel_pstate_passive_mode_and_eas() {
    let available = "conservative ondemand userspace powersave performance schedutil \n";
    run(
        "intel-hybrid-nosmt",
        vec![
            row(
                "docs/kernel.md 2.1: passive swaps the driver and the governor list",
                "sys/devices/system/cpu/intel_pstate/status".into(),
                "passive",
                Ok(()),
            )
            .then(policy(0, "scaling_driver"), "intel_cpufreq\n")
            .then(policy(0, "scaling_available_governors"), available)
            .then(policy(0, "scaling_governor"), "schedutil\n"),
            row(
                "docs/kernel.md 4.1: schedutil everywhere, no SMT, asymmetric: EAS possible",
                "proc/sys/kernel/sched_energy_aware".into(),
                "0",
                Ok(()),
            )
            .then("proc/sys/kernel/sched_energy_aware".into(), "0\n"),
            row(
                "docs/kernel.md 4.3: writing 1 turns it back on",
                "proc/sys/kernel/sched_energy_aware".into(),
                "1",
                Ok(()),
            )
            .then("proc/sys/kernel/sched_energy_aware".into(), "1\n"),
            row(
                "docs/kernel.md 4.3: only 0 and 1",
                "proc/sys/kernel/sched_energy_aware".into(),
                "2",
                Err(Invalid),
            ),
            row(
                "docs/kernel.md 2.3: passive mode has no EBUSY rule",
                policy(0, "scaling_governor"),
                "performance",
                Ok(()),
            ),
            row(
                "docs/kernel.md 2.3: EPP under performance in passive mode",
                policy(0, "energy_performance_preference"),
                "power",
                Ok(()),
            )
            .then(policy(0, "energy_performance_preference"), "power\n")
            .then("proc/sys/kernel/sched_energy_aware".into(), ""),
            row(
                "docs/kernel.md 4.3: one policy off schedutil makes EAS impossible",
                "proc/sys/kernel/sched_energy_aware".into(),
                "1",
                Err(NotSupported),
            ),
            row(
                "docs/kernel.md 2.1: back to active: powersave, hwp_dynamic_boost back",
                "sys/devices/system/cpu/intel_pstate/status".into(),
                "active",
                Ok(()),
            )
            .then(policy(0, "scaling_driver"), "intel_pstate\n")
            .then(policy(0, "scaling_governor"), "powersave\n")
            .then(
                "sys/devices/system/cpu/intel_pstate/hwp_dynamic_boost".into(),
                "0\n",
            ),
        ],
    );
}

#[test]
fn amd_pstate_rules() {
    run(
        "amd-zen4",
        vec![
            row(
                "docs/kernel.md 3: raw numbers are EINVAL (sysfs_match_string only)",
                policy(0, "energy_performance_preference"),
                "128",
                Err(Invalid),
            ),
            row(
                "docs/kernel.md 3: names are fine",
                policy(0, "energy_performance_preference"),
                "power",
                Ok(()),
            )
            .then(policy(0, "energy_performance_preference"), "power\n"),
            row(
                "docs/kernel.md 3: performance pins EPP and shrinks the list",
                policy(0, "scaling_governor"),
                "performance",
                Ok(()),
            )
            .then(policy(0, "energy_performance_preference"), "performance\n")
            .then(
                policy(0, "energy_performance_available_preferences"),
                "performance\n",
            ),
            row(
                "docs/kernel.md 3: EPP above 0 under performance is EBUSY",
                policy(0, "energy_performance_preference"),
                "power",
                Err(Busy),
            ),
            row(
                "docs/kernel.md 3: no restore after performance",
                policy(0, "scaling_governor"),
                "powersave",
                Ok(()),
            )
            .then(policy(0, "energy_performance_preference"), "performance\n"),
            row(
                "docs/kernel.md 1.3: global boost",
                "sys/devices/system/cpu/cpufreq/boost".into(),
                "0",
                Ok(()),
            )
            .then("sys/devices/system/cpu/cpufreq/boost".into(), "0\n"),
            row(
                "docs/kernel.md 1.2: per-policy boost",
                policy(3, "boost"),
                "off",
                Ok(()),
            )
            .then(policy(3, "boost"), "0\n"),
            row(
                "docs/kernel.md 1.3: no EPB on AMD",
                "sys/devices/system/cpu/cpu0/power/energy_perf_bias".into(),
                "6",
                Err(NoFile),
            ),
            row(
                "docs/kernel.md 3: guided mode: amd-pstate, no EPP files",
                "sys/devices/system/cpu/amd_pstate/status".into(),
                "guided",
                Ok(()),
            )
            .then(policy(0, "scaling_driver"), "amd-pstate\n"),
            row(
                "docs/kernel.md 3: no EPP file in guided mode",
                policy(0, "energy_performance_preference"),
                "power",
                Err(NoFile),
            ),
            row(
                "docs/kernel.md 3: status takes active, passive, guided, disable",
                "sys/devices/system/cpu/amd_pstate/status".into(),
                "fast",
                Err(Invalid),
            ),
        ],
    );
}

#[test]
fn cpufreq_dt_and_offline_cpus() {
    run(
        "arm-rk3588",
        vec![
            row(
                "docs/kernel.md 1.2: any registered governor",
                policy(4, "scaling_governor"),
                "ondemand",
                Ok(()),
            )
            .then(policy(4, "scaling_governor"), "ondemand\n")
            .then("proc/sys/kernel/sched_energy_aware".into(), ""),
            row(
                "docs/kernel.md 1.2: unregistered governors are EINVAL",
                policy(4, "scaling_governor"),
                "turbo",
                Err(Invalid),
            ),
            row(
                "docs/kernel.md 4.3: schedutil again: EAS possible again",
                policy(4, "scaling_governor"),
                "schedutil",
                Ok(()),
            )
            .then("proc/sys/kernel/sched_energy_aware".into(), "1\n"),
            row(
                "no EPP on cpufreq-dt",
                policy(4, "energy_performance_preference"),
                "power",
                Err(NoFile),
            ),
        ],
    );
    // An offline CPU's per-CPU policy is inactive: every attribute answers EBUSY (cpufreq.c
    // `show()` and `store()`, `docs/kernel.md` 1.1).
    let dir = tempfile::tempdir().unwrap();
    let mut machine = sim::model("intel-hybrid").unwrap();
    machine.cpus[9].online = false;
    machine.render(dir.path()).unwrap();
    let sim = SimDir::open(dir.path()).unwrap();
    assert_eq!(
        sim.write(&policy(9, "scaling_governor"), "performance")
            .unwrap(),
        Err(Busy)
    );
}

#[test]
fn errors_read_as_on_hardware() {
    assert_eq!(Busy.to_string(), "Device or resource busy (EBUSY)");
    assert_eq!(Invalid.errno(), 22);
    assert_eq!(NotSupported.to_io().raw_os_error(), Some(95));
}

/// The three steps of `docs/kernel.md` 2.4: governor to performance, profile (EPP) to
/// performance, governor back to powersave: intel_pstate restores the EPP saved in step 1,
/// and the user's explicit performance is lost (`intel_pstate_hwp_set()`).
#[test]
fn the_governor_round_trip_restores_the_saved_epp() {
    let (dir, sim) = machine_dir("intel-hybrid");
    let epp = |id: u32| read(dir.path(), &policy(id, "energy_performance_preference"));
    for id in 0..16 {
        assert_eq!(
            sim.write(&policy(id, "scaling_governor"), "performance")
                .unwrap(),
            Ok(())
        );
    }
    assert_eq!(epp(0), "performance\n");
    for id in 0..16 {
        assert_eq!(
            sim.write(&policy(id, "energy_performance_preference"), "performance")
                .unwrap(),
            Ok(())
        );
    }
    for id in 0..16 {
        assert_eq!(
            sim.write(&policy(id, "scaling_governor"), "powersave")
                .unwrap(),
            Ok(())
        );
    }
    assert_eq!(epp(0), "balance_performance\n", "the saved EPP comes back");
    assert_eq!(epp(15), "balance_performance\n");

    // A non-zero EPP written directly to the hardware is not overwritten (`if (epp) skip`).
    let (dir, sim) = machine_dir("intel-hybrid");
    sim.write(&policy(0, "scaling_governor"), "performance")
        .unwrap()
        .unwrap();
    fs::write(
        dir.path().join(policy(0, "energy_performance_preference")),
        "power\n",
    )
    .unwrap();
    sim.write(&policy(0, "scaling_governor"), "powersave")
        .unwrap()
        .unwrap();
    assert_eq!(
        read(dir.path(), &policy(0, "energy_performance_preference")),
        "power\n"
    );
}

fn write_strategy() -> impl Strategy<Value = (String, String)> {
    let paths = prop_oneof![
        (0u32..18).prop_map(|p| policy(p, "scaling_governor")),
        (0u32..18).prop_map(|p| policy(p, "energy_performance_preference")),
        (0u32..18).prop_map(|p| policy(p, "scaling_max_freq")),
        (0u32..18).prop_map(|p| policy(p, "scaling_min_freq")),
        (0u32..18).prop_map(|p| policy(p, "boost")),
        Just("sys/devices/system/cpu/intel_pstate/status".to_owned()),
        Just("sys/devices/system/cpu/amd_pstate/status".to_owned()),
        Just("sys/devices/system/cpu/intel_pstate/no_turbo".to_owned()),
        Just("proc/sys/kernel/sched_energy_aware".to_owned()),
        (0u32..18).prop_map(|c| format!("sys/devices/system/cpu/cpu{c}/power/energy_perf_bias")),
    ];
    let values = prop_oneof![
        Just("performance".to_owned()),
        Just("powersave".to_owned()),
        Just("schedutil".to_owned()),
        Just("balance_power".to_owned()),
        Just("default".to_owned()),
        Just("passive".to_owned()),
        Just("active".to_owned()),
        Just("guided".to_owned()),
        Just("0".to_owned()),
        Just("1".to_owned()),
        (0u32..5_000_000).prop_map(|n| n.to_string()),
        "[a-z_]{0,12}",
    ];
    (paths, values)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Whatever is written, valid or not, the tree stays one the reader takes without a
    /// single problem, and the EPP stays among what the kernel could print.
    #[test]
    fn random_writes_never_leave_a_broken_tree(
        model in prop::sample::select(vec!["intel-hybrid", "intel-hybrid-nosmt", "amd-zen4", "arm-rk3588", "workstation-64"]),
        writes in prop::collection::vec(write_strategy(), 1..12),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut machine = sim::model(model).unwrap();
        for (path, value) in &writes {
            let _ = machine.write(path, value);
        }
        machine.render(dir.path()).unwrap();
        let snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
        prop_assert!(snapshot.problems.is_empty(), "{:?}", snapshot.problems);
        for policy in snapshot.policies.iter().filter(|p| p.is_active()) {
            prop_assert!(policy.min_khz <= policy.max_khz);
            prop_assert!(policy.governor.is_some());
            if let (Some(epp), Some(available)) = (policy.epp, &policy.available_epp) {
                let named = available.contains(&epp) || matches!(epp, pacer_core::values::Epp::Raw(_));
                prop_assert!(named, "{epp} not offered");
            }
        }
    }
}

/// The published ramp-up table (`docs/measurement.md` 2; Alder Lake P- and E-cores): windows
/// 0–5, 10, 20, 50, 100, 500, 1000 ms as % of steady throughput, and the time to stay above
/// 95 %.
struct PublishedColumn {
    what: &'static str,
    windows: [f64; 7],
    t95_ms: f64,
}

const WINDOWS_MS: [f64; 7] = [5.0, 10.0, 20.0, 50.0, 100.0, 500.0, 1000.0];

#[test]
fn ramps_match_the_published_table_within_20_percent() {
    let active = sim::model("intel-hybrid-nosmt").unwrap();
    let mut passive = active.clone();
    passive
        .write("sys/devices/system/cpu/intel_pstate/status", "passive")
        .unwrap();
    let mut epp_performance = active.clone();
    for id in 0..12 {
        epp_performance
            .write(&policy(id, "energy_performance_preference"), "performance")
            .unwrap();
    }
    // policy 0 is a P-core, policy 4 an E-core on this model.
    let cases = [
        (
            &active,
            0,
            SimCoreKind::IntelP,
            PublishedColumn {
                what: "P pstate balanced",
                windows: [70.6, 83.0, 91.3, 96.7, 98.6, 100.0, 100.2],
                t95_ms: 5.0,
            },
        ),
        (
            &epp_performance,
            0,
            SimCoreKind::IntelP,
            PublishedColumn {
                what: "P pstate performance",
                windows: [99.4, 99.5, 99.5, 99.8, 99.9, 100.1, 100.1],
                t95_ms: 0.0,
            },
        ),
        (
            &passive,
            0,
            SimCoreKind::IntelP,
            PublishedColumn {
                what: "P schedutil",
                windows: [59.7, 60.2, 62.9, 74.8, 86.9, 97.4, 98.7],
                t95_ms: 52.0,
            },
        ),
        (
            &active,
            4,
            SimCoreKind::IntelE,
            PublishedColumn {
                what: "E pstate balanced",
                windows: [75.6, 85.1, 92.4, 97.0, 98.6, 99.8, 100.0],
                t95_ms: 8.0,
            },
        ),
        (
            &epp_performance,
            4,
            SimCoreKind::IntelE,
            PublishedColumn {
                what: "E pstate performance",
                windows: [99.0, 99.1, 99.3, 99.7, 99.9, 100.0, 100.0],
                t95_ms: 0.0,
            },
        ),
        (
            &passive,
            4,
            SimCoreKind::IntelE,
            PublishedColumn {
                what: "E schedutil",
                windows: [62.3, 62.2, 64.5, 72.9, 84.8, 96.9, 98.5],
                t95_ms: 67.0,
            },
        ),
    ];
    for (machine, id, kind, published) in cases {
        let policy = machine.policies.iter().find(|p| p.id == id).unwrap();
        assert_eq!(machine.cpu(id).unwrap().kind, kind);
        let ramp = machine.ramp(policy, kind);
        for (window, expected) in WINDOWS_MS.iter().zip(published.windows) {
            let got = 100.0 * ramp.average_until(*window);
            assert!(
                (got - expected).abs() <= 0.2 * expected,
                "{}: 0-{window} ms window {got:.1} % vs {expected} %",
                published.what
            );
        }
        let t95 = ramp.time_to(0.95);
        if published.t95_ms == 0.0 {
            assert!(
                t95 < 1.0,
                "{}: t95 {t95:.2} ms, about 0 expected",
                published.what
            );
        } else {
            assert!(
                (t95 - published.t95_ms).abs() <= 0.2 * published.t95_ms,
                "{}: t95 {t95:.1} ms vs {} ms",
                published.what,
                published.t95_ms
            );
        }
    }
}
