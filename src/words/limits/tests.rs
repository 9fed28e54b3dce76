// SPDX-License-Identifier: GPL-3.0-or-later
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::SystemTime;

use pacer_core::limits::{
    CoolingDevice, CoolingKind, FirmwareLink, LimitWatch, PlatformLink, PowerLink, SettingsLink,
    ThermalLink,
};
use pacer_core::sim::SimDir;
use pacer_core::values::{CoreType, Khz};
use pacer_core::{Snapshot, SysRoot};

use super::*;

/// P-cores of the simulated laptop as a reading of its chain shows them when nothing holds
/// them: up to 4.7 GHz asked, 4.7 GHz allowed, 3.1 GHz delivered.
fn free(core_type: Option<CoreType>) -> CoreLimits {
    CoreLimits {
        core_type,
        policies: vec![0, 1, 2, 3],
        requested_khz: Some(Khz(4_700_000)),
        hardware_max_khz: Some(Khz(4_700_000)),
        delivered_khz: Some(Khz(3_100_000)),
        delivered_source: Some("cpuinfo_avg_freq"),
        limiter: Limiter::None,
        ceiling_khz: None,
        held_policies: Vec::new(),
        since: None,
        settings: SettingsLink {
            ceiling_khz: None,
            asked_max_khz: None,
        },
        firmware: FirmwareLink {
            max_khz: Some(Khz(4_700_000)),
            boost: Some(true),
            max_perf_pct: Some(100),
            highest_perf: None,
            boost_max_khz: None,
            ceiling_khz: None,
        },
        platform: PlatformLink {
            bios_limit_khz: None,
            platform_profile: Some("balanced".into()),
            clamped_max_khz: None,
            ceiling_khz: None,
        },
        thermal: ThermalLink {
            cooling: Vec::new(),
            cooling_devices: 4,
            throttle_events: Some(0),
            ceiling_khz: None,
        },
        power: PowerLink {
            zone: Some("intel-rapl:0".into()),
            long_term_uw: Some(28_000_000),
            long_term_default_uw: Some(28_000_000),
            drawn_uw: Some(9_400_000),
            ..PowerLink::default()
        },
    }
}

/// `limits` held by `limiter` at `ceiling` kHz.
fn held(mut limits: CoreLimits, limiter: Limiter, ceiling: Option<u32>) -> CoreLimits {
    limits.limiter = limiter;
    limits.ceiling_khz = ceiling.map(Khz);
    limits.held_policies.clone_from(&limits.policies);
    limits
}

fn performance() -> CoreLimits {
    free(Some(CoreType::Performance))
}

#[test]
fn nothing_holds_the_cores_of_a_healthy_machine() {
    assert_eq!(
        limiter_line(&performance()),
        "Performance cores: nothing holds them back"
    );
    // Where all cores are alike.
    assert_eq!(limiter_line(&free(None)), "Cores: nothing holds them back");
}

#[test]
fn the_settings_hold_the_cores_at_the_maximum_they_set() {
    let mut limits = held(performance(), Limiter::Settings, Some(2_000_000));
    limits.settings.ceiling_khz = Some(Khz(2_000_000));
    assert_eq!(
        limiter_line(&limits),
        "Performance cores held at 2 GHz by the settings"
    );
}

/// The simulated laptop with turbo off, read as the window reads it: intel_pstate holds
/// each core type at its base frequency.
#[test]
fn turbo_off_names_the_base_frequency_of_each_core_type() {
    let dir = tempfile::tempdir().unwrap();
    let sim = SimDir::open_or_create(dir.path(), "intel-hybrid").unwrap();
    sim.write("sys/devices/system/cpu/intel_pstate/no_turbo", "1")
        .unwrap()
        .unwrap();
    let root = SysRoot::new(dir.path());
    let snapshot = Snapshot::read(&root).unwrap();
    let mut watch = LimitWatch::new(&root, &snapshot);
    watch.refresh(&root);
    let limits = watch.limits(&snapshot, &[]);
    let lines: Vec<String> = limits.iter().map(limiter_line).collect();
    assert_eq!(
        lines,
        [
            "Performance cores held at 2.1 GHz: turbo boost is off",
            "Efficiency cores held at 1.5 GHz: turbo boost is off",
        ]
    );
}

#[test]
fn a_lowered_performance_percentage_is_a_firmware_limit() {
    let mut limits = held(performance(), Limiter::Firmware, Some(3_760_000));
    limits.firmware.max_perf_pct = Some(80);
    limits.firmware.ceiling_khz = Some(Khz(3_760_000));
    assert_eq!(
        limiter_line(&limits),
        "Performance cores held at 3.76 GHz by a firmware limit"
    );
}

#[test]
fn a_clamp_after_sleep_is_a_platform_limit_since_it_was_seen() {
    let since = SystemTime::now();
    let mut limits = held(performance(), Limiter::Platform, Some(400_000));
    limits.since = Some(since);
    assert_eq!(
        limiter_line(&limits),
        format!(
            "Performance cores held at 400 MHz by a platform limit since {}",
            clock(since)
        )
    );
}

#[test]
fn a_cooling_device_names_its_level_and_the_frequency_it_allows() {
    let mut limits = held(
        free(Some(CoreType::Efficiency)),
        Limiter::Thermal,
        Some(1_360_000),
    );
    let device = |name: &str, state: u32, ceiling: u32| CoolingDevice {
        device: name.into(),
        kind: CoolingKind::Processor,
        cur_state: state,
        max_state: 10,
        ceiling_khz: Some(Khz(ceiling)),
    };
    limits.thermal.cooling = vec![
        device("cooling_device0", 1, 2_720_000),
        device("cooling_device1", 3, 1_360_000),
    ];
    assert_eq!(
        limiter_line(&limits),
        "Efficiency cores held at 1.36 GHz by a thermal limit (cooling level 3 of 10)"
    );
}

#[test]
fn rising_throttle_counters_hold_without_a_frequency_of_their_own() {
    let mut limits = held(performance(), Limiter::Thermal, None);
    limits.thermal.throttle_events = Some(32);
    assert_eq!(
        limiter_line(&limits),
        "Performance cores held back by a thermal limit"
    );
}

#[test]
fn a_power_limit_reached_holds_at_what_the_cores_deliver() {
    let limits = held(performance(), Limiter::Power, Some(1_900_000));
    assert_eq!(
        limiter_line(&limits),
        "Performance cores held at 1.9 GHz by a power limit"
    );
}
