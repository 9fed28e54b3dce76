// SPDX-License-Identifier: GPL-3.0-or-later
//! The chain on a simulated Alder Lake laptop, its files changed by hand as the kernel would
//! change them: each link holding in turn, and each file read once per refresh.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::*;
use crate::machine::Snapshot;
use crate::sim::SimDir;
use crate::sysfs::SysRoot;
use crate::values::{CoreType, Khz};

const CPU: &str = "sys/devices/system/cpu";

/// Writes `text` to `rel` under `root`, making the file and its folders where needed and
/// writable where the simulated machine made it read-only.
fn put(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    if path.exists() {
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    }
    fs::write(&path, text).unwrap();
}

/// A simulated Alder Lake laptop: its folder, the machine (to write through the kernel's
/// rules) and its root.
fn laptop() -> (tempfile::TempDir, SimDir, SysRoot) {
    let dir = tempfile::tempdir().unwrap();
    let sim = SimDir::open_or_create(dir.path(), "intel-hybrid").unwrap();
    let root = SysRoot::new(sim.root());
    (dir, sim, root)
}

/// The chain after `readings` refreshes.
fn chain(root: &SysRoot, readings: usize) -> Vec<CoreLimits> {
    let snapshot = Snapshot::read(root).unwrap();
    let mut watch = LimitWatch::new(root, &snapshot);
    for _ in 0..readings {
        watch.refresh(root);
    }
    watch.limits(&snapshot)
}

fn of(limits: &[CoreLimits], core_type: CoreType) -> &CoreLimits {
    limits
        .iter()
        .find(|limits| limits.core_type == Some(core_type))
        .unwrap()
}

/// Sets the package's long-term (PL1) power limit through the kernel's rules.
fn power_limit(sim: &SimDir, microwatts: u64) {
    let file = "/sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw";
    sim.write(file, &microwatts.to_string()).unwrap().unwrap();
}

/// Sets the package's ACPI processor cooling to `state` (of 10) through the kernel's rules,
/// which cap every policy's maximum at 20 % less per state up to 3.
fn processor_cooling(sim: &SimDir, state: u32) {
    sim.write(
        "/sys/class/thermal/cooling_device0/cur_state",
        &state.to_string(),
    )
    .unwrap()
    .unwrap();
}

#[test]
fn a_laptop_as_it_comes_is_held_by_nothing() {
    let (_dir, _sim, root) = laptop();
    let limits = chain(&root, 2);
    assert_eq!(limits.len(), 2, "P-cores and E-cores: {limits:#?}");
    for core in &limits {
        assert_eq!(core.limiter, Limiter::None, "{core:#?}");
        assert!(core.held_policies.is_empty());
        assert!(core.delivered_khz.is_some());
        assert_eq!(core.delivered_source, Some("cpuinfo_avg_freq"));
    }
    assert_eq!(
        of(&limits, CoreType::Performance).hardware_max_khz,
        Some(Khz(4_700_000))
    );
    assert_eq!(
        of(&limits, CoreType::Efficiency).requested_khz,
        Some(Khz(3_400_000))
    );
}

#[test]
fn a_lowered_maximum_is_the_settings_and_after_a_sleep_the_platform() {
    let (_dir, _sim, root) = laptop();
    for policy in 0..8 {
        put(
            root.root(),
            &format!("{CPU}/cpufreq/policy{policy}/scaling_max_freq"),
            "400000\n",
        );
    }
    let limits = chain(&root, 1);
    let p_cores = of(&limits, CoreType::Performance);
    assert_eq!(p_cores.limiter, Limiter::Settings);
    assert_eq!(p_cores.ceiling_khz, Some(Khz(400_000)));
    assert_eq!(of(&limits, CoreType::Efficiency).limiter, Limiter::None);

    // The helper saw 4.7 GHz before the sleep on half of them: a clamp, not a choice.
    let mut limits = chain(&root, 1);
    for core in &mut limits {
        core.clamped(&[0, 1, 2, 3], Khz(4_700_000));
    }
    let p_cores = of(&limits, CoreType::Performance);
    assert_eq!(p_cores.limiter, Limiter::Platform, "{p_cores:#?}");
    assert_eq!(p_cores.held_policies, vec![0, 1, 2, 3]);
    assert_eq!(p_cores.platform.clamped_max_khz, Some(Khz(400_000)));
    assert_eq!(p_cores.settings.asked_max_khz, Some(Khz(4_700_000)));
    assert_eq!(p_cores.requested_khz, Some(Khz(4_700_000)));
    assert_eq!(of(&limits, CoreType::Efficiency).limiter, Limiter::None);
}

#[test]
fn turbo_off_holds_at_the_base_frequency() {
    let (_dir, _sim, root) = laptop();
    put(root.root(), &format!("{CPU}/intel_pstate/no_turbo"), "1\n");
    let limits = chain(&root, 1);
    let p_cores = of(&limits, CoreType::Performance);
    assert_eq!(p_cores.limiter, Limiter::Firmware);
    assert_eq!(p_cores.firmware.boost, Some(false));
    assert_eq!(p_cores.ceiling_khz, Some(Khz(2_100_000)));
    assert_eq!(
        of(&limits, CoreType::Efficiency).ceiling_khz,
        Some(Khz(1_500_000))
    );
}

#[test]
fn a_processor_cooling_state_holds_the_whole_package() {
    let (_dir, sim, root) = laptop();
    processor_cooling(&sim, 3);
    put(
        root.root(),
        "sys/class/thermal/cooling_device20/type",
        "Fan\n",
    );
    let limits = chain(&root, 1);
    let e_cores = of(&limits, CoreType::Efficiency);
    assert_eq!(e_cores.limiter, Limiter::Thermal, "{e_cores:#?}");
    // Three steps of 20 %: 40 % of 3.4 GHz. The kernel's cap shows in the maximum in force,
    // which is then the cooling's, not a setting.
    assert_eq!(e_cores.ceiling_khz, Some(Khz(1_360_000)));
    assert_eq!(e_cores.requested_khz, Some(Khz(3_400_000)));
    assert_eq!(e_cores.settings.ceiling_khz, None);
    // The package's step shows in each CPU's own device.
    assert_eq!(e_cores.thermal.cooling.len(), 8, "one per E-core");
    assert_eq!(e_cores.thermal.cooling[0].max_state, 10);
    assert_eq!(
        of(&limits, CoreType::Performance).ceiling_khz,
        Some(Khz(1_880_000))
    );

    // Turbo off as well: the lower ceiling, the thermal one, still names the limiter.
    put(root.root(), &format!("{CPU}/intel_pstate/no_turbo"), "1\n");
    assert_eq!(
        of(&chain(&root, 1), CoreType::Efficiency).limiter,
        Limiter::Thermal
    );
}

#[test]
fn rising_throttle_counters_hold_at_what_the_cores_deliver() {
    let (_dir, _sim, root) = laptop();
    let counter = |cpu: u32, name: &str| format!("{CPU}/cpu{cpu}/thermal_throttle/{name}");
    // The hardware counts: written by hand, as the simulation's ticker would.
    for cpu in 0..16 {
        put(root.root(), &counter(cpu, "core_throttle_count"), "5\n");
        put(root.root(), &counter(cpu, "package_throttle_count"), "0\n");
    }
    let snapshot = Snapshot::read(&root).unwrap();
    let mut watch = LimitWatch::new(&root, &snapshot);
    watch.refresh(&root);
    watch.refresh(&root);
    let still = watch.limits(&snapshot);
    assert!(
        still.iter().all(|core| core.limiter == Limiter::None),
        "{still:#?}"
    );
    // The E-cores ran hot between two readings.
    for cpu in 8..16 {
        put(root.root(), &counter(cpu, "core_throttle_count"), "9\n");
    }
    watch.refresh(&root);
    let limits = watch.limits(&snapshot);
    let e_cores = of(&limits, CoreType::Efficiency);
    assert_eq!(e_cores.limiter, Limiter::Thermal);
    assert_eq!(e_cores.thermal.throttle_events, Some(32));
    assert_eq!(
        e_cores.ceiling_khz,
        e_cores.delivered_khz.map(|_| e_cores.ceiling_khz.unwrap())
    );
    assert!(e_cores.since.is_some(), "the watch saw it begin");
    assert_eq!(of(&limits, CoreType::Performance).limiter, Limiter::None);
}

#[test]
fn a_power_limit_holds_when_the_package_draws_it() {
    let (_dir, sim, root) = laptop();
    // The laptop's package: 28 W long-term by default, set to 8 W.
    power_limit(&sim, 8_000_000);
    let snapshot = Snapshot::read(&root).unwrap();
    let mut reader = LimitReader::new(&root, &snapshot);
    let files = reader.power.as_ref().expect("the package zone");
    let at = |energy_uj: u64| power::PowerReading {
        long_term_uw: Some(8_000_000),
        short_term_uw: Some(64_000_000),
        energy_uj: Some(energy_uj),
        energy_denied: false,
    };
    // 7.6 J in a second: 95 % of the 8 W limit.
    let link = files.link(&at(1_000_000), &at(8_600_000), 1.0);
    assert!(link.lowered && link.holds, "{link:#?}");
    assert_eq!(link.drawn_uw, Some(7_600_000));
    assert_eq!(link.long_term_default_uw, Some(28_000_000));
    // Half the limit: lowered, but not what holds the cores.
    let link = files.link(&at(1_000_000), &at(5_000_000), 1.0);
    assert!(link.lowered && !link.holds);
    let read = reader.read(&root);
    assert_eq!(read.power.unwrap().long_term_uw, Some(8_000_000));
}

#[test]
fn each_file_is_read_once_per_refresh_on_a_wide_machine() {
    let dir = tempfile::tempdir().unwrap();
    let sim = SimDir::open_or_create(dir.path(), "server-256").unwrap();
    let root = SysRoot::with_read_log(sim.root());
    let snapshot = Snapshot::read(&root).unwrap();
    let mut reader = LimitReader::new(&root, &snapshot);
    let before = root.reads().len();
    let reading = reader.read(&root);
    let reads = &root.reads()[before..];
    let mut unique = reads.to_vec();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        reads.len(),
        "a file read twice in one refresh"
    );
    // Per policy its maximum, its driver's maximum and what it delivers; per CPU its ACPI
    // processor cooling state; boost, and the package's energy (AMD's RAPL has no limits).
    assert_eq!(reads.len(), 256 * 4 + 2, "{:?}", &reads[reads.len() - 2..]);
    assert_eq!(reading.policies.len(), 256);
    assert!(reading.problems.is_empty(), "{:?}", reading.problems);
}

#[test]
fn a_thermal_limit_and_a_lowered_power_limit_are_findings() {
    use crate::findings::{FindingKind, FixAction, Severity};
    use crate::profile::ProfileReading;
    use crate::status::Status;

    let (_dir, sim, root) = laptop();
    processor_cooling(&sim, 3);
    power_limit(&sim, 8_000_000);
    let snapshot = Snapshot::read(&root).unwrap();
    let mut watch = LimitWatch::new(&root, &snapshot);
    watch.refresh(&root);
    let mut status = Status::assemble(&root, snapshot, ProfileReading::default());
    assert!(
        status.read_limits(&mut watch),
        "the limiters changed from none known"
    );

    let thermal = status
        .findings
        .iter()
        .find(|finding| finding.kind == FindingKind::ThermalLimit)
        .expect("a thermal finding");
    assert_eq!(thermal.severity, Severity::Warning);
    assert_eq!(thermal.policies, (0..16).collect::<Vec<_>>());
    assert!(
        thermal.summary.contains("cooling state 3 of 10"),
        "{}",
        thermal.summary
    );
    assert_eq!(thermal.fix.action, FixAction::Advice);

    let power = status
        .findings
        .iter()
        .find(|finding| finding.kind == FindingKind::PowerLimitLowered)
        .expect("a power-limit finding");
    // The package draws nothing in a still simulation: lowered, not holding.
    assert_eq!(power.severity, Severity::Info);
    assert_eq!(
        power.summary,
        "The long-term power limit is 8 W, below its default of 28 W"
    );
    assert_eq!(
        power.fix.command.as_deref(),
        Some(
            "echo 28000000 | sudo tee /sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw"
        )
    );

    // Cooled down and set back: both go, and nothing is left from the earlier chain.
    processor_cooling(&sim, 0);
    power_limit(&sim, 28_000_000);
    watch.refresh(&root);
    status.read_limits(&mut watch);
    assert!(
        status.findings.iter().all(|finding| !matches!(
            finding.kind,
            FindingKind::ThermalLimit | FindingKind::PowerLimitLowered
        )),
        "{:#?}",
        status.findings
    );
}
