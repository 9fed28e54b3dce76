// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `overview`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pacer_core::profile::ProfileProblem;

use super::*;
use crate::testing::simulated_status as status;

#[test]
fn without_a_daemon_the_profile_section_says_so_and_offers_nothing() {
    let mut status = status("intel-hybrid", &[]);
    status.profile_problems.push(ProfileProblem::NoDaemon);
    let view = ProfileView::of(&status);
    assert!(view.choices.is_empty());
    assert!(
        view.source.starts_with("No power profile daemon"),
        "{}",
        view.source
    );
    assert_eq!(view.detail, None);
}

#[test]
fn a_library_message_is_a_detail_never_the_words() {
    let mut status = status("intel-hybrid", &[]);
    let raw = "Failed to connect to address `unix:path=/x`: No such file or directory";
    status
        .profile_problems
        .push(ProfileProblem::NoBus(raw.into()));
    let view = ProfileView::of(&status);
    assert!(!view.source.contains("unix:path"), "{}", view.source);
    assert!(view.source.contains("system bus"), "{}", view.source);
    assert_eq!(view.detail.as_deref(), Some(raw));
}

#[test]
fn drivers_with_modes_offer_them_and_eas_says_why_it_is_off() {
    let intel = status("intel-hybrid", &[]);
    let (text, modes) = driver_view(&intel.snapshot);
    assert_eq!(text, "intel_pstate, active mode");
    assert_eq!(modes, [DriverMode::Active, DriverMode::Passive]);
    assert!(eas_view(&intel.snapshot).starts_with("Not running: "));
    let arm = status("arm-rk3588", &[]);
    assert_eq!(driver_view(&arm.snapshot).1, []);
    assert_eq!(eas_view(&arm.snapshot), "Running");
    let vm = status("vm", &[]);
    assert_eq!(driver_view(&vm.snapshot).0, "No CPU frequency scaling");
}
