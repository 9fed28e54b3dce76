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

/// The link of the chain called `name`.
fn link<'a>(links: &'a [LinkWords], name: &str) -> &'a LinkWords {
    links.iter().find(|link| link.name == name).unwrap()
}

#[test]
fn nothing_holds_the_cores_of_a_healthy_machine() {
    let limits = performance();
    assert_eq!(
        limiter_line(&limits),
        "Performance cores: nothing holds them back"
    );
    assert_eq!(verdict(&limits), "Nothing holds them back");
    assert_eq!(
        bar_description(&limits),
        "Nothing holds them back\nRequested: up to 4.7 GHz\nDelivered: 3.1 GHz"
    );
    assert_eq!(
        bar_name(limits.core_type),
        "Performance cores: requested and delivered speed"
    );
    // Where all cores are alike.
    assert_eq!(limiter_line(&free(None)), "Cores: nothing holds them back");
    let links = chain(&limits);
    let names: Vec<&str> = links.iter().map(|link| link.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Requested",
            "Firmware",
            "Platform",
            "Thermal",
            "Power",
            "Delivered"
        ]
    );
    assert!(links.iter().all(|link| !link.holds), "{links:#?}");
    assert_eq!(links[0].value, "Up to 4.7 GHz, the hardware's highest");
    assert_eq!(links[1].value, "No limit: up to 4.7 GHz");
    assert_eq!(links[2].value, "No limit");
    assert_eq!(links[3].value, "No cooling in use");
    assert_eq!(links[4].value, "Up to 28 W");
    assert_eq!(links[5].value, "3.1 GHz on average over the last seconds");
    assert_eq!(links[5].kernel, "cpuinfo_avg_freq=3100000");
    assert_eq!(
        links[4].kernel,
        "intel-rapl:0: long_term=28000000/28000000, drawn_uw=9400000"
    );
}

#[test]
fn the_settings_hold_the_cores_at_the_maximum_they_set() {
    let mut limits = held(performance(), Limiter::Settings, Some(2_000_000));
    limits.settings.ceiling_khz = Some(Khz(2_000_000));
    assert_eq!(verdict(&limits), "Held at 2 GHz by the settings");
    let links = chain(&limits);
    assert!(links[0].holds && links.iter().filter(|l| l.holds).count() == 1);
    assert_eq!(
        links[0].value,
        "Up to 2 GHz, less than the hardware's 4.7 GHz"
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
    let limits = watch.limits(&snapshot);
    let lines: Vec<String> = limits.iter().map(limiter_line).collect();
    assert_eq!(
        lines,
        [
            "Performance cores held at 2.1 GHz: turbo boost is off",
            "Efficiency cores held at 1.5 GHz: turbo boost is off",
        ]
    );
    let links = chain(&limits[0]);
    let firmware = link(&links, "Firmware");
    assert!(firmware.holds);
    assert_eq!(firmware.value, "Turbo boost is off: at most 2.1 GHz");
    assert!(firmware.kernel.contains("boost=0"), "{}", firmware.kernel);
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
    let firmware = link(&chain(&limits), "Firmware").clone();
    assert_eq!(firmware.value, "At most 3.76 GHz");
    assert!(firmware.kernel.contains("max_perf_pct=80"));
}

#[test]
fn a_clamp_after_sleep_is_a_platform_limit_since_it_was_seen() {
    let since = SystemTime::now();
    let mut limits = held(performance(), Limiter::Platform, Some(400_000));
    limits.since = Some(since);
    limits.settings.asked_max_khz = Some(Khz(4_700_000));
    limits.platform.clamped_max_khz = Some(Khz(400_000));
    limits.platform.ceiling_khz = Some(Khz(400_000));
    assert_eq!(
        limiter_line(&limits),
        format!(
            "Performance cores held at 400 MHz by a platform limit since {}",
            clock(since)
        )
    );
    assert_eq!(
        verdict(&limits),
        format!("Held at 400 MHz by a platform limit since {}", clock(since))
    );
    let platform = link(&chain(&limits), "Platform").clone();
    assert!(platform.holds);
    assert_eq!(
        platform.value,
        "Maximum lowered to 400 MHz while the computer slept"
    );
    assert_eq!(
        platform.kernel,
        "platform_profile=balanced, scaling_max_freq=400000"
    );
    // A machine whose BIOS caps the cores, with nothing else to read of the platform.
    limits.platform = PlatformLink {
        bios_limit_khz: Some(Khz(2_000_000)),
        platform_profile: None,
        clamped_max_khz: None,
        ceiling_khz: Some(Khz(2_000_000)),
    };
    assert_eq!(
        link(&chain(&limits), "Platform").value,
        "The BIOS allows at most 2 GHz"
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
        device("cooling_device2", 3, 1_360_000),
    ];
    limits.thermal.ceiling_khz = Some(Khz(1_360_000));
    assert_eq!(
        limiter_line(&limits),
        "Efficiency cores held at 1.36 GHz by a thermal limit (cooling level 3 of 10)"
    );
    // The row's subtitle leaves the level to the details: a line of a few words.
    assert_eq!(verdict(&limits), "Held at 1.36 GHz by a thermal limit");
    let thermal = link(&chain(&limits), "Thermal").clone();
    assert!(thermal.holds);
    assert_eq!(thermal.value, "Cooling level 3 of 10: at most 1.36 GHz");
    assert_eq!(
        thermal.kernel,
        "Processor cur_state=1 max_state=10, Processor cur_state=3 max_state=10 ×2, \
         thermal_throttle +0"
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
    assert_eq!(verdict(&limits), "Held back by a thermal limit");
    assert_eq!(
        link(&chain(&limits), "Thermal").value,
        "Slowed down 32 times in the last seconds to cool"
    );
}

#[test]
fn a_power_limit_lowered_and_reached_holds_at_what_the_cores_deliver() {
    let mut limits = held(performance(), Limiter::Power, Some(1_900_000));
    limits.power.long_term_uw = Some(8_000_000);
    limits.power.drawn_uw = Some(7_600_000);
    limits.power.lowered = true;
    limits.power.holds = true;
    assert_eq!(verdict(&limits), "Held at 1.9 GHz by a power limit");
    let power = link(&chain(&limits), "Power").clone();
    assert!(power.holds);
    assert_eq!(power.value, "At its limit of 8 W, lowered from 28 W");
    limits.power.holds = false;
    limits.power.drawn_uw = Some(3_250_000);
    assert_eq!(
        link(&chain(&limits), "Power").value,
        "Limit lowered to 8 W from 28 W, not reached"
    );
}

#[test]
fn a_link_that_cannot_be_read_is_unknown_with_its_reason() {
    let mut limits = performance();
    limits.requested_khz = None;
    limits.hardware_max_khz = None;
    limits.delivered_khz = None;
    limits.firmware = FirmwareLink {
        max_khz: None,
        boost: None,
        max_perf_pct: None,
        highest_perf: None,
        boost_max_khz: None,
        ceiling_khz: None,
    };
    limits.platform.platform_profile = None;
    limits.thermal = ThermalLink::default();
    limits.power = PowerLink::default();
    let links = chain(&limits);
    for link in &links {
        assert!(link.value.starts_with("Unknown: "), "{link:#?}");
    }
    assert_eq!(
        links[3].value,
        "Unknown: no cooling device or throttle counter to read"
    );
    assert_eq!(links[4].kernel, "");
    // Nothing read holds them: the verdict says only that.
    assert_eq!(verdict(&limits), "Nothing holds them back");
}

#[test]
fn no_line_shows_a_kernel_token() {
    let mut thermal = held(performance(), Limiter::Thermal, None);
    thermal.thermal.throttle_events = Some(1);
    let cases = [
        performance(),
        held(performance(), Limiter::Settings, Some(2_000_000)),
        held(performance(), Limiter::Platform, Some(400_000)),
        thermal,
        held(performance(), Limiter::Power, Some(1_900_000)),
    ];
    for limits in &cases {
        let mut said = vec![limiter_line(limits), verdict(limits)];
        said.extend(chain(limits).into_iter().map(|link| link.value));
        for line in said {
            assert!(
                !line.contains('_') && !line.contains('=') && !line.contains('\n'),
                "{line}"
            );
        }
    }
}
