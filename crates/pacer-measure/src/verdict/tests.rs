// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `verdict`.

use super::*;
use pacer_core::values::{DriverMode, Epp};
use pacer_dbus::measurement::statistic::Statistic;

fn settings(driver: &str, mode: Option<DriverMode>, governor: Governor) -> Settings {
    Settings {
        driver: Some(driver.into()),
        mode,
        governor: Some(governor),
        epp: Some(Epp::BalancePerformance),
        eas: Some(false),
        boost: Some(true),
        profile: None,
    }
}

fn intel_active() -> Settings {
    settings(
        "intel_pstate",
        Some(DriverMode::Active),
        Governor::powersave(),
    )
}

fn run(core_type: CoreType, t95: Option<f64>, resolution_ms: f64) -> RampRun {
    RampRun {
        core_type: Some(core_type),
        t95_ms: t95.map(Statistic::exact),
        t95_resolution_ms: Some(resolution_ms),
        ..RampRun::default()
    }
}

#[test]
fn the_reference_follows_the_governor_then_the_drivers_maker() {
    let ondemand: Governor = "ondemand".parse().unwrap();
    let cases = [
        (intel_active(), Reference::IntelHwp),
        (
            settings(
                "intel_pstate",
                Some(DriverMode::Active),
                Governor::performance(),
            ),
            Reference::IntelHwp,
        ),
        (
            settings(
                "intel_cpufreq",
                Some(DriverMode::Passive),
                Governor::schedutil(),
            ),
            Reference::Schedutil,
        ),
        (
            settings(
                "amd-pstate-epp",
                Some(DriverMode::Active),
                Governor::powersave(),
            ),
            Reference::AmdPstate,
        ),
        (
            settings(
                "amd-pstate",
                Some(DriverMode::Guided),
                Governor::schedutil(),
            ),
            Reference::Schedutil,
        ),
        (
            settings("amd-pstate", Some(DriverMode::Passive), ondemand.clone()),
            Reference::AmdPstate,
        ),
        (
            settings("cpufreq-dt", None, Governor::schedutil()),
            Reference::Schedutil,
        ),
        // No figure of their own: Intel's, the best-known.
        (
            settings("acpi-cpufreq", None, ondemand),
            Reference::IntelHwp,
        ),
    ];
    for (settings, expected) in cases {
        assert_eq!(Reference::for_settings(&settings), expected, "{settings:?}");
    }
    let none = Settings {
        driver: None,
        governor: None,
        ..intel_active()
    };
    assert_eq!(Reference::for_settings(&none), Reference::IntelHwp);
}

#[test]
fn each_core_type_has_its_published_figure() {
    use CoreType::{Efficiency, LowPower, Performance};
    let usual = |reference: Reference, core_type| reference.usual_ms(core_type);
    assert_eq!(usual(Reference::IntelHwp, Some(Performance)), 5.0);
    assert_eq!(usual(Reference::IntelHwp, Some(Efficiency)), 8.0);
    assert_eq!(usual(Reference::IntelHwp, Some(LowPower)), 8.0);
    assert_eq!(usual(Reference::IntelHwp, None), 5.0);
    assert_eq!(usual(Reference::AmdPstate, None), 2.0);
    assert_eq!(usual(Reference::Schedutil, Some(Performance)), 50.0);
    assert_eq!(usual(Reference::Schedutil, Some(Efficiency)), 70.0);
}

#[test]
fn a_time_is_quicker_like_slower_or_times_its_reference() {
    let against = |ms| Against::of(ms, 5.0, false);
    assert_eq!(against(3.0), Against::Quicker);
    assert_eq!(against(3.4), Against::Like);
    assert_eq!(against(4.8), Against::Like);
    assert_eq!(against(7.5), Against::Like);
    assert_eq!(against(7.6), Against::Slower);
    assert_eq!(against(12.4), Against::Slower);
    assert_eq!(against(12.5), Against::Times(3));
    assert_eq!(against(50.0), Against::Times(10));
    // Below a resolution of 1 ms: quicker than 2 ms; below one of 4 ms, not slower than 2.
    assert_eq!(Against::of(1.0, 2.0, true), Against::Quicker);
    assert_eq!(Against::of(4.0, 2.0, true), Against::Like);
}

#[test]
fn the_verdicts_read_as_the_figures_say() {
    // With plain spaces for the no-break ones in the time.
    let line = |run: &RampRun, settings: &Settings, setting| {
        Verdict::of(run, settings)
            .line(setting)
            .replace('\u{a0}', " ")
    };
    let intel = intel_active();
    assert_eq!(
        line(&run(CoreType::Performance, Some(4.8), 1.0), &intel, None),
        "P-cores: fast — 4.8 ms, like Intel HWP's usual ~5 ms."
    );
    assert_eq!(
        line(&run(CoreType::Performance, Some(50.0), 1.0), &intel, None),
        "P-cores: slow — 50 ms, 10 times Intel HWP's usual ~5 ms."
    );
    assert_eq!(
        line(
            &run(CoreType::Efficiency, Some(8.0), 0.1),
            &intel,
            Some("B")
        ),
        "B, E-cores: fast — 8.0 ms, like Intel HWP's usual ~8 ms."
    );
    assert_eq!(
        line(
            &run(CoreType::Performance, Some(0.0), 0.1),
            &intel,
            Some("A")
        ),
        "A, P-cores: fast — < 0.1 ms, quicker than Intel HWP's usual ~5 ms."
    );
    let schedutil = settings(
        "intel_cpufreq",
        Some(DriverMode::Passive),
        Governor::schedutil(),
    );
    assert_eq!(
        line(
            &run(CoreType::Performance, Some(52.0), 1.0),
            &schedutil,
            None
        ),
        "P-cores: slow — 52 ms, like the scheduler-guided governor's usual ~50 ms."
    );
    let amd = settings(
        "amd-pstate-epp",
        Some(DriverMode::Active),
        Governor::powersave(),
    );
    let all_alike = RampRun {
        core_type: None,
        ..run(CoreType::Performance, Some(4.0), 1.0)
    };
    assert_eq!(
        line(&all_alike, &amd, None),
        "Cores: fast — 4.0 ms, slower than AMD Zen 3's usual ~2 ms."
    );
    assert_eq!(
        line(&run(CoreType::Efficiency, None, 1.0), &intel, None),
        "E-cores: slow — never steady at full speed."
    );
}

#[test]
fn fast_is_within_a_frame_at_60_hz() {
    let intel = intel_active();
    let fast = |ms| Verdict::of(&run(CoreType::Performance, Some(ms), 1.0), &intel).fast;
    assert!(fast(16.0));
    assert!(!fast(17.0));
    assert!(Verdict::of(&run(CoreType::Performance, Some(0.0), 1.0), &intel).fast);
    assert!(!Verdict::of(&run(CoreType::Performance, None, 1.0), &intel).fast);
}
