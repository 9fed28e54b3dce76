// SPDX-License-Identifier: GPL-3.0-or-later
//! The tray's view, tooltip and menu, from simulated machines.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::testing::simulated_status as status;

#[test]
fn before_the_first_reading_the_item_shows_pacers_gauge() {
    let (requests, _) = relm4::channel();
    let tray = PacerTray::new(Path::new("/nonexistent"), requests);
    let view = &tray.view;
    assert_eq!(view.icon, "io.github.pacerapp.Pacer-balanced-symbolic");
    assert_eq!(view.title, "Pacer");
}

#[test]
fn icons_follow_the_profile_and_warn() {
    assert_eq!(
        icon_name(Some("performance"), false),
        "io.github.pacerapp.Pacer-performance-symbolic"
    );
    assert_eq!(
        icon_name(Some("power-saver"), true),
        "io.github.pacerapp.Pacer-power-saver-warning-symbolic"
    );
    assert_eq!(
        icon_name(None, false),
        "io.github.pacerapp.Pacer-balanced-symbolic"
    );
    let icons = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/icons/hicolor/symbolic/apps");
    for profile in ["power-saver", "balanced", "performance"] {
        for warning in [false, true] {
            let name = icon_name(Some(profile), warning);
            assert!(icons.join(format!("{name}.svg")).is_file(), "{name}");
        }
    }
}

#[test]
fn the_tooltip_has_a_line_per_core_type_and_the_findings() {
    let epp = "sys/devices/system/cpu/cpufreq/policy8/energy_performance_preference";
    let mut status = status("intel-hybrid", &[(epp, "power")]);
    // Without a profile daemon the mixed EPP is information; as a warning it marks the icon.
    status.findings[0].severity = Severity::Warning;
    let state = SessionState::of(&status, true, &SessionState::default());
    let view = TrayView::of(&state, &status.snapshot);
    assert_eq!(view.cpus.len(), 16);
    assert_eq!(view.core_types[0].cpus, (0..8).collect::<Vec<_>>());
    assert_eq!(view.core_types[1].cpus, (8..16).collect::<Vec<_>>());
    assert_eq!(view.core_types.len(), 2);
    assert_eq!(view.core_types[0].core_type, Some(CoreType::Performance));
    // E-cores differ (one is power now): no single EPP.
    assert_eq!(view.core_types[1].epp, None);
    let mut khz = vec![Some(1_000_000); 16];
    khz[0] = Some(3_000_000);
    khz[1] = Some(3_000_000);
    khz[2] = Some(3_000_000);
    khz[3] = Some(3_000_000);
    khz[4] = Some(3_000_000);
    let lines = view.tooltip_lines(&khz);
    assert_eq!(
        lines[0],
        "Performance cores: EPP Balanced performance, 3.00 GHz"
    );
    assert_eq!(lines[1], "Efficiency cores: EPP —, 1.00 GHz");
    assert!(
        lines.contains(&"⚠ Cores of one kind have different EPP".to_owned()),
        "{lines:?}"
    );
    // Without a daemon: no profiles to pick, the balanced gauge with its warning.
    assert!(view.profiles.is_empty());
    assert_eq!(
        view.icon,
        "io.github.pacerapp.Pacer-balanced-warning-symbolic"
    );
}

#[test]
fn a_finding_is_fixed_from_the_menu_or_explained_in_the_window() {
    use ksni::Tray;
    let (requests, receiver) = relm4::channel();
    let mut tray = PacerTray::new(Path::new("/nonexistent"), requests);
    let finding = |summary: &str, fix| TrayFinding {
        summary: summary.into(),
        why: None,
        fix,
    };
    tray.view.findings = vec![
        finding("Turbo boost is off", Some(FixAction::EnableTurbo)),
        finding("Several power managers change the same settings", None),
    ];
    for (label, request) in [
        (
            "Fix: Turbo boost is off",
            Request::Fix(FixAction::EnableTurbo),
        ),
        (
            "Several power managers change the same settings",
            Request::Show(None),
        ),
    ] {
        let item = tray
            .menu()
            .into_iter()
            .find_map(|item| match item {
                ksni::MenuItem::Standard(item) if item.label == label => Some(item),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no item {label}"));
        assert!(item.enabled, "{label}");
        (item.activate)(&mut tray);
        assert_eq!(receiver.recv_sync(), Some(request));
    }
}

#[test]
fn the_tooltip_names_a_findings_recorded_cause() {
    let status = crate::testing::turbo_switched_off_by_tlp();
    let state = SessionState::of(&status, true, &SessionState::default());
    let lines = TrayView::of(&state, &status.snapshot).tooltip_lines(&[]);
    let warning = lines
        .iter()
        .position(|line| line == "⚠ Turbo boost is off")
        .unwrap_or_else(|| panic!("{lines:?}"));
    let why = &lines[warning + 1];
    assert!(
        why.starts_with("Why: at ") && why.contains("by tlp (pid 812, tlp.service)"),
        "{lines:?}"
    );
}

#[test]
fn the_tooltip_names_a_limit_the_user_did_not_choose() {
    let lines = |writes: &[(&str, &str)]| {
        let status = status("intel-hybrid", writes);
        let state = SessionState::of(&status, true, &SessionState::default());
        TrayView::of(&state, &status.snapshot).tooltip_lines(&[])
    };
    // Turbo switched off: a line per core type, after their settings, before the findings.
    let turbo_off = lines(&[("sys/devices/system/cpu/intel_pstate/no_turbo", "1")]);
    assert_eq!(
        turbo_off[2..4],
        [
            "Performance cores held at 2.1 GHz: turbo boost is off",
            "Efficiency cores held at 1.5 GHz: turbo boost is off",
        ],
        "{turbo_off:?}"
    );
    assert!(turbo_off[4].starts_with("⚠ "), "{turbo_off:?}");
    // Nothing holds them, or only what the user set (a lower maximum): nothing said.
    let max =
        |policy: u32| format!("sys/devices/system/cpu/cpufreq/policy{policy}/scaling_max_freq");
    let lowered: Vec<String> = (0..8).map(max).collect();
    let writes: Vec<(&str, &str)> = lowered
        .iter()
        .map(|path| (path.as_str(), "800000"))
        .collect();
    let status = status("intel-hybrid", &writes);
    assert_eq!(
        status.limits[0].limiter,
        pacer_core::limits::Limiter::Settings
    );
    for lines in [lines(&[]), lines(&writes)] {
        assert!(!lines.iter().any(|line| line.contains("held")), "{lines:?}");
    }
}
