// SPDX-License-Identifier: GPL-3.0-or-later
//! The limit chain on simulated machines (`docs/kernel.md` 8): the cooling devices, throttle
//! counters, power limits, platform profile and dynamic EPP each model lays out as the
//! kernel prints them, the writes to them through the kernel's rules, and a simulated
//! suspend and resume.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use pacer_core::machine::Snapshot;
use pacer_core::sim::{self, Dynamics, SimDir, Ticker, WriteError};
use pacer_core::SysRoot;
use pacer_testrig::reference_trees;

const CPU: &str = "sys/devices/system/cpu";
const RAPL: &str = "sys/class/powercap/intel-rapl:0";

fn machine_dir(model: &str) -> (tempfile::TempDir, SimDir) {
    let dir = tempfile::tempdir().unwrap();
    let sim = SimDir::open_or_create(dir.path(), model).unwrap();
    (dir, sim)
}

fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn policy(id: u32, file: &str) -> String {
    format!("{CPU}/cpufreq/policy{id}/{file}")
}

fn cooling(device: u32, file: &str) -> String {
    format!("sys/class/thermal/cooling_device{device}/{file}")
}

/// Reads as a machine without problems: the `custom` entry Linux 7.1 lists in amd-pstate's
/// `energy_performance_available_preferences` included (`docs/kernel.md` 9.2).
fn snapshot(root: &Path) -> Snapshot {
    let snapshot = Snapshot::read(&SysRoot::new(root)).unwrap();
    assert!(snapshot.problems.is_empty(), "{:?}", snapshot.problems);
    snapshot
}

#[test]
fn every_new_model_reads_as_a_machine() {
    for model in [
        "amd-resume-clamp",
        "amd-dynamic-epp",
        "intel-hybrid-thermal",
        "intel-power-limit",
    ] {
        let (dir, _sim) = machine_dir(model);
        let snapshot = snapshot(dir.path());
        assert!(snapshot.simulated, "{model}");
        assert_eq!(
            read(dir.path(), "sys/firmware/acpi/platform_profile"),
            "balanced\n"
        );
        assert_eq!(
            read(dir.path(), "sys/firmware/acpi/platform_profile_choices"),
            "low-power balanced performance\n",
            "{model}: the choices in profile_names[] order, no trailing space"
        );
    }
}

#[test]
fn processor_cooling_devices_hold_the_package_to_a_step() {
    let (dir, sim) = machine_dir("intel-hybrid-thermal");
    let root = dir.path();
    assert_eq!(read(root, &cooling(8, "type")), "Processor\n");
    assert_eq!(read(root, &cooling(8, "cur_state")), "3\n");
    assert_eq!(read(root, &cooling(8, "max_state")), "10\n");
    // The device's ACPI processor is CPU 8's firmware node.
    let cpu = fs::canonicalize(root.join(cooling(8, "device/physical_node"))).unwrap();
    assert_eq!(
        cpu,
        fs::canonicalize(root.join(format!("{CPU}/cpu8"))).unwrap()
    );
    let back = fs::canonicalize(root.join(format!("{CPU}/cpu8/firmware_node/thermal_cooling")));
    assert_eq!(
        back.unwrap(),
        fs::canonicalize(root.join(cooling(8, ""))).unwrap()
    );
    // Step 3 of the package: 40 % of each CPU's maximum, in scaling_max_freq.
    assert_eq!(read(root, &policy(8, "scaling_max_freq")), "1360000\n");
    assert_eq!(read(root, &policy(0, "scaling_max_freq")), "1880000\n");
    assert_eq!(read(root, &cooling(0, "cur_state")), "3\n");
    let snapshot = snapshot(root);
    assert_eq!(snapshot.policies[8].max_khz.map(|k| k.0), Some(1_360_000));

    // The request behind scaling_max_freq outlives the cap: a write elsewhere keeps it, and
    // the cap lifted, the maximum is back.
    let write = |path: &str, value: &str| sim.write(path, value).unwrap();
    assert_eq!(write(&policy(9, "scaling_governor"), "performance"), Ok(()));
    assert_eq!(read(root, &policy(8, "scaling_max_freq")), "1360000\n");
    assert_eq!(write(&cooling(8, "cur_state"), "0"), Ok(()));
    assert_eq!(read(root, &policy(8, "scaling_max_freq")), "3400000\n");
    assert_eq!(read(root, &cooling(3, "cur_state")), "0\n");
    // Above the cpufreq steps, the CPU's own T-states.
    assert_eq!(write(&cooling(8, "cur_state"), "5"), Ok(()));
    assert_eq!(read(root, &cooling(8, "cur_state")), "5\n");
    assert_eq!(read(root, &cooling(9, "cur_state")), "3\n");
    for refused in ["11", "-1", "hot"] {
        assert_eq!(
            write(&cooling(8, "cur_state"), refused),
            Err(WriteError::Invalid),
            "{refused}"
        );
    }
    assert_eq!(
        write(&cooling(8, "max_state"), "3"),
        Err(WriteError::ReadOnly)
    );
}

#[test]
fn cpufreq_cooling_devices_step_down_the_operating_points() {
    let (dir, sim) = machine_dir("arm-rk3588");
    let root = dir.path();
    let types: Vec<String> = (0..3).map(|n| read(root, &cooling(n, "type"))).collect();
    assert_eq!(
        types,
        ["cpufreq-cpu0\n", "cpufreq-cpu4\n", "cpufreq-cpu6\n"]
    );
    assert_eq!(read(root, &cooling(0, "max_state")), "4\n");
    assert_eq!(read(root, &cooling(1, "max_state")), "6\n");
    assert!(
        !root.join(cooling(1, "device")).exists(),
        "no parent device"
    );
    assert_eq!(sim.write(&cooling(1, "cur_state"), "2").unwrap(), Ok(()));
    // Two operating points down from 2.4 GHz.
    assert_eq!(read(root, &policy(4, "scaling_max_freq")), "2016000\n");
    assert_eq!(read(root, &policy(6, "scaling_max_freq")), "2400000\n");
    assert!(
        !root.join(policy(4, "cpuinfo_avg_freq")).exists(),
        "no AMU: arch_freq_get_on_cpu() does not work"
    );
}

#[test]
fn throttle_counters_are_intels_and_average_frequencies_x86s() {
    for (model, intel) in [
        ("intel-hybrid", true),
        ("netbook-2", true),
        ("amd-zen4", false),
    ] {
        let (dir, _sim) = machine_dir(model);
        let counters = dir.path().join(format!("{CPU}/cpu1/thermal_throttle"));
        assert_eq!(counters.is_dir(), intel, "{model}");
        if intel {
            let mut files: Vec<String> = fs::read_dir(&counters)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            files.sort();
            assert_eq!(
                files,
                [
                    "core_throttle_count",
                    "core_throttle_max_time_ms",
                    "core_throttle_total_time_ms",
                    "package_throttle_count",
                    "package_throttle_max_time_ms",
                    "package_throttle_total_time_ms",
                ]
            );
        }
        assert!(dir.path().join(policy(1, "cpuinfo_avg_freq")).is_file());
    }
}

#[test]
fn the_ticker_counts_throttling_on_the_hot_cores() {
    let (dir, sim) = machine_dir("intel-hybrid-thermal");
    let counter = |cpu: u32, file: &str| -> u64 {
        read(
            dir.path(),
            &format!("{CPU}/cpu{cpu}/thermal_throttle/{file}"),
        )
        .trim_end()
        .parse()
        .unwrap()
    };
    let ticker = Ticker::start(sim, 1, Duration::from_millis(5));
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    while seen.len() < 3 {
        assert!(
            Instant::now() < deadline,
            "the counters do not rise: {seen:?}"
        );
        let count = counter(8, "core_throttle_count");
        if seen.last() != Some(&count) {
            seen.push(count);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    drop(ticker);
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    let count = counter(15, "core_throttle_count");
    assert!(count > 0);
    assert_eq!(counter(15, "core_throttle_total_time_ms"), count * 5);
    assert_eq!(counter(15, "core_throttle_max_time_ms"), 5);
    // The P-cores and the package are not at their limits.
    assert_eq!(counter(0, "core_throttle_count"), 0);
    assert_eq!(counter(8, "package_throttle_count"), 0);
}

#[test]
fn the_hot_machine_runs_under_its_cooling_cap() {
    let machine = sim::model("intel-hybrid-thermal").unwrap();
    let mut dynamics = Dynamics::new(&machine, 5);
    let all: Vec<Vec<u32>> = (0..300).map(|_| dynamics.step(&machine, 50.0)).collect();
    for khz in &all {
        assert!(khz[..8].iter().all(|&k| k <= 1_880_000), "{khz:?}");
        assert!(khz[8..].iter().all(|&k| k <= 1_360_000), "{khz:?}");
    }
    assert!(
        all.iter().flatten().any(|&k| k > 1_300_000),
        "busy cores reach the cap"
    );
}

#[test]
fn a_low_long_term_limit_holds_every_core_and_the_package_draw() {
    let (dir, sim) = machine_dir("intel-power-limit");
    let root = dir.path();
    let constraint = |file: &str| read(root, &format!("{RAPL}/{file}"));
    assert_eq!(constraint("constraint_0_name"), "long_term\n");
    assert_eq!(constraint("constraint_0_power_limit_uw"), "8000000\n");
    // The default long-term limit is the package's thermal spec power.
    assert_eq!(constraint("constraint_0_max_power_uw"), "28000000\n");
    assert_eq!(constraint("constraint_0_time_window_us"), "27983872\n");
    assert_eq!(constraint("constraint_1_name"), "short_term\n");
    assert_eq!(constraint("constraint_2_name"), "peak_power\n");
    assert!(!root
        .join(format!("{RAPL}/constraint_2_time_window_us"))
        .exists());
    // The limit is no frequency request: scaling_max_freq is untouched.
    assert_eq!(read(root, &policy(0, "scaling_max_freq")), "4700000\n");

    let machine = sim.machine().unwrap();
    let mut dynamics = Dynamics::new(&machine, 2);
    for _ in 0..300 {
        let khz = dynamics.step(&machine, 50.0);
        // Base frequency times the cube root of 8/28: 1.38 GHz P, 0.99 GHz E.
        assert!(khz[..8].iter().all(|&k| k <= 1_383_200), "{khz:?}");
        assert!(khz[8..].iter().all(|&k| k <= 988_000), "{khz:?}");
    }

    // The package draws at its limit: the counter moves about 8 J a second of ticks.
    let energy = || -> u64 {
        read(root, &format!("{RAPL}/energy_uj"))
            .trim_end()
            .parse()
            .unwrap()
    };
    let before = energy();
    let started = Instant::now();
    let ticker = Ticker::start(sim.clone(), 1, Duration::from_millis(10));
    let deadline = Instant::now() + Duration::from_secs(10);
    while energy() < before + 4_000_000 {
        assert!(Instant::now() < deadline, "the energy counter stands still");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(ticker);
    // The energy counted is the time that passed at 8 W, however late the ticks came (the
    // first tick counts from when the ticker started; the last up to 10 ms is not counted).
    let watts = (energy() - before) as f64 / 1e6 / started.elapsed().as_secs_f64();
    assert!((7.0..=8.2).contains(&watts), "{watts} W");

    // Writes round to the power unit (1/8 W) and take decimal numbers only.
    let write = |file: &str, value: &str| sim.write(&format!("{RAPL}/{file}"), value).unwrap();
    assert_eq!(write("constraint_0_power_limit_uw", "28000100"), Ok(()));
    assert_eq!(constraint("constraint_0_power_limit_uw"), "28000000\n");
    assert_eq!(
        write("constraint_0_power_limit_uw", "8 W"),
        Err(WriteError::Invalid)
    );
    assert_eq!(write("constraint_0_time_window_us", "1000000"), Ok(()));
    assert_eq!(constraint("constraint_0_time_window_us"), "999424\n");
    assert_eq!(
        write("constraint_2_time_window_us", "1000"),
        Err(WriteError::NoData),
        "PL4 has no time window"
    );
    assert_eq!(
        write("constraint_0_max_power_uw", "1"),
        Err(WriteError::ReadOnly)
    );
}

#[test]
fn amd_has_energy_counters_and_no_limits() {
    let (dir, _sim) = machine_dir("amd-zen4");
    let zone = dir.path().join(RAPL);
    assert!(zone.join("energy_uj").is_file());
    assert!(!zone.join("constraint_0_name").exists());
    assert!(!dir
        .path()
        .join(format!("{CPU}/amd_pstate/dynamic_epp"))
        .exists());
}

#[test]
fn resume_brings_the_maximum_back_clamped_where_the_model_says() {
    let (dir, sim) = machine_dir("amd-resume-clamp");
    let root = dir.path();
    assert_eq!(read(root, &policy(4, "scaling_max_freq")), "4900000\n");
    sim.resume().unwrap();
    for id in 0..16 {
        let expected = if (4..8).contains(&id) || (12..16).contains(&id) {
            "400000\n"
        } else {
            "4900000\n"
        };
        assert_eq!(
            read(root, &policy(id, "scaling_max_freq")),
            expected,
            "{id}"
        );
    }
    assert_eq!(read(root, &policy(4, "scaling_min_freq")), "400000\n");
    assert_eq!(
        snapshot(root).policies[12].max_khz.map(|k| k.0),
        Some(400_000)
    );
    // Writing the maximum again restores it.
    assert_eq!(
        sim.write(&policy(4, "scaling_max_freq"), "4900000")
            .unwrap(),
        Ok(())
    );
    assert_eq!(read(root, &policy(4, "scaling_max_freq")), "4900000\n");
}

#[test]
fn resume_changes_nothing_on_other_models() {
    for model in ["amd-zen4", "intel-hybrid", "arm-rk3588", "vm"] {
        let (dir, sim) = machine_dir(model);
        let before = reference_trees::describe(dir.path());
        sim.resume().unwrap();
        assert_eq!(reference_trees::describe(dir.path()), before, "{model}");
    }
}

#[test]
fn dynamic_epp_sets_epp_and_refuses_writes() {
    let (dir, sim) = machine_dir("amd-dynamic-epp");
    let root = dir.path();
    let write = |path: &str, value: &str| sim.write(path, value).unwrap();
    let epp = policy(3, "energy_performance_preference");
    assert_eq!(
        read(root, &format!("{CPU}/amd_pstate/dynamic_epp")),
        "enabled\n"
    );
    // Balanced on AC power is performance.
    assert_eq!(read(root, &epp), "performance\n");
    assert_eq!(
        read(root, &policy(3, "energy_performance_available_preferences")),
        "default performance balance_performance balance_power power custom \n"
    );
    for value in ["power", "128", "default"] {
        assert_eq!(write(&epp, value), Err(WriteError::Busy), "{value}");
    }
    assert_eq!(read(root, &epp), "performance\n");
    // Pacer reads the kernel as the EPP's owner, and the `custom` entry as no preference.
    let machine = snapshot(root);
    assert!(machine.driver.kernel_sets_epp());
    let available = machine.policy(3).unwrap().available_epp.clone().unwrap();
    assert_eq!(available.len(), 5, "{available:?}");
    // The platform profile drives it; the handlers offer three profiles.
    let profile = "sys/firmware/acpi/platform_profile";
    assert_eq!(write(profile, "low-power"), Ok(()));
    assert_eq!(read(root, &epp), "power\n");
    assert_eq!(write(profile, "quiet"), Err(WriteError::NotSupported));
    assert_eq!(write(profile, "custom"), Err(WriteError::Invalid));
    assert_eq!(write(profile, "turbo"), Err(WriteError::Invalid));
    // What the profile daemon writes straight to the file is taken in at the next write.
    common::write(root.join(profile), "performance");
    assert_eq!(write(&policy(0, "scaling_governor"), "powersave"), Ok(()));
    assert_eq!(read(root, &epp), "performance\n");

    let dynamic = format!("{CPU}/amd_pstate/dynamic_epp");
    assert_eq!(write(&dynamic, "maybe"), Err(WriteError::Invalid));
    assert_eq!(write(&dynamic, "0"), Ok(()));
    assert_eq!(read(root, &dynamic), "disabled\n");
    assert_eq!(read(root, &epp), "balance_performance\n");
    // Off, EPP takes names and raw numbers (Linux 7.1), printed as written.
    assert_eq!(write(&epp, "128"), Ok(()));
    assert_eq!(read(root, &epp), "128\n");
    assert_eq!(write(&epp, "0x40"), Ok(()));
    assert_eq!(read(root, &epp), "64\n");
    assert_eq!(write(&epp, "balance_power"), Ok(()));
    assert_eq!(read(root, &epp), "balance_power\n");
    for refused in ["256", "custom", "-1"] {
        assert_eq!(write(&epp, refused), Err(WriteError::Invalid), "{refused}");
    }
    snapshot(root);
    // Only in active mode.
    assert_eq!(
        write(&format!("{CPU}/amd_pstate/status"), "passive"),
        Ok(())
    );
    assert_eq!(write(&dynamic, "1"), Err(WriteError::Invalid));
}
