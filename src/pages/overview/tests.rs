// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `overview`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pacer_core::profile::daemon::{Hold, ProfileInfo};
use pacer_core::profile::{DaemonKind, ProfileProblem, ProfileState};

use super::*;
use crate::testing::simulated_status as status;

#[test]
fn without_a_daemon_power_mode_greys_the_usual_three_and_says_so_in_a_line() {
    let mut status = status("intel-hybrid", &[]);
    status.profile_problems.push(ProfileProblem::NoDaemon);
    let view = ProfileView::of(&status);
    let names: Vec<&str> = view.choices.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["performance", "balanced", "power-saver"]);
    assert!(view.choices.iter().all(|(_, active)| !active));
    assert!(!view.offered);
    assert_eq!(view.source, "No power profile daemon is running");
    assert!(view.detail.is_some_and(|d| d.contains("tuned-ppd")));
}

#[test]
fn the_bus_s_own_message_is_on_hover_never_the_line() {
    let mut status = status("intel-hybrid", &[]);
    let raw = "Failed to connect to socket /run/dbus/system_bus_socket: No such file or \
               directory (os error 2)";
    status
        .profile_problems
        .push(ProfileProblem::NoBus(raw.into()));
    let view = ProfileView::of(&status);
    assert_eq!(view.source, "No power profile daemon is running");
    assert!(view.detail.unwrap().contains(raw));
}

/// power-profiles-daemon 0.23 offering `offered` in its order, `active` on.
fn daemon(offered: &[&str], active: &str) -> ProfileState {
    ProfileState {
        daemon: DaemonKind::PowerProfilesDaemon,
        version: Some("0.23".into()),
        active: active.into(),
        available: offered
            .iter()
            .map(|p| ProfileInfo {
                profile: (*p).into(),
                driver: None,
                cpu_driver: None,
                platform_driver: None,
            })
            .collect(),
        cpu_driver: None,
        platform_driver: None,
        degraded: None,
        holds: Vec::new(),
        bus_name: "org.freedesktop.UPower.PowerProfiles".into(),
        battery_aware: None,
        on_battery: None,
    }
}

#[test]
fn a_daemon_s_profiles_are_offered_fastest_first_with_holds_and_degradation_below() {
    let mut status = status("intel-hybrid", &[]);
    let mut profile = daemon(&["power-saver", "balanced"], "balanced");
    profile.holds.push(Hold {
        application_id: "org.gnome.Shell".into(),
        profile: "power-saver".into(),
        reason: "Battery low".into(),
    });
    profile.degraded = Some("lap-detected".into());
    status.profile = Some(profile);
    let view = ProfileView::of(&status);
    assert!(view.offered);
    assert_eq!(view.detail, None);
    assert_eq!(view.source, "Set by power-profiles-daemon 0.23");
    // Only what the daemon offers, in GNOME Settings' order.
    assert_eq!(
        view.choices,
        [
            ("balanced".to_owned(), true),
            ("power-saver".to_owned(), false)
        ]
    );
    assert_eq!(view.notes.len(), 2);
    assert_eq!(view.notes[0].line, "org.gnome.Shell holds Power Saver");
    assert_eq!(view.notes[0].detail.as_deref(), Some("Battery low"));
    assert!(!view.notes[1].line.contains("lap-detected"));
    assert_eq!(
        view.notes[1].detail.as_deref(),
        Some("The daemon says: lap-detected")
    );
}

#[test]
fn the_driver_row_speaks_words_and_keeps_the_kernel_s_for_hover() {
    let intel = status("intel-hybrid", &[]);
    let driver = DriverView::of(&intel.snapshot);
    assert_eq!(
        driver.line,
        "The processor chooses its speed itself, guided by the EPP"
    );
    assert_eq!(
        driver.driver.as_deref(),
        Some("Kernel driver: intel_pstate")
    );
    assert_eq!(driver.mode_token.as_deref(), Some("Kernel value: active"));
    assert_eq!(driver.modes, [DriverMode::Active, DriverMode::Passive]);
    let names = mode_names(&driver.modes);
    assert_eq!(names, ["Hardware-managed", "Kernel-managed"]);
    let arm = DriverView::of(&status("arm-rk3588", &[]).snapshot);
    assert_eq!(arm.modes, []);
    assert_eq!(arm.line, "The kernel's governor chooses the speed");
    assert_eq!(arm.mode_token, None);
    let vm = DriverView::of(&status("vm", &[]).snapshot);
    assert_eq!(vm.line, "No CPU frequency scaling");
    assert_eq!(vm.driver, None);
}

#[test]
fn eas_is_a_line_of_words_and_the_kernel_s_reasons_on_hover() {
    let (line, reasons) = eas_view(&status("intel-hybrid", &[]).snapshot);
    assert!(line.starts_with("Off: "), "{line}");
    assert!(!line.contains("schedutil") && !line.contains('/'), "{line}");
    assert!(reasons.is_some());
    let (line, reasons) = eas_view(&status("arm-rk3588", &[]).snapshot);
    assert!(line.starts_with("On: "), "{line}");
    assert_eq!(reasons, None);
}
