// SPDX-License-Identifier: GPL-3.0-or-later
//! The state the bus shows, and the calls it takes, from simulated machines.

use super::*;

#[test]
fn calls_are_checked_against_the_state_shown() {
    let state = SessionState {
        profile: Some("balanced".into()),
        profiles: vec![
            "power-saver".into(),
            "balanced".into(),
            "performance".into(),
        ],
        daemon: Some(DaemonKind::PowerProfilesDaemon),
        findings: vec![FindingState {
            key: "epp-mismatch@0".into(),
            severity: Severity::Warning,
            summary: "s".into(),
            detail: "c".into(),
            why: None,
            fix: None,
        }],
        ..SessionState::default()
    };
    let one = |text: &str| (text,).to_variant();
    assert_eq!(
        state.request("SetProfile", &one("performance")),
        Ok(Request::Change(Change::Profile("performance".into())))
    );
    assert_eq!(
        state.request("SetProfile", &one("turbo")),
        Err(Refusal::UnknownProfile("turbo".into()))
    );
    assert_eq!(
        state.request("Fix", &one("epp-mismatch@0")),
        Err(Refusal::NotFixable("epp-mismatch@0".into()))
    );
    assert_eq!(
        state.request("Fix", &one("nothing")),
        Err(Refusal::UnknownFinding("nothing".into()))
    );
    assert_eq!(
        state.request("ShowWindow", &one("cpus")),
        Ok(Request::Show(Some(Page::Cpus)))
    );
    assert_eq!(
        state.request("ShowWindow", &one("")),
        Ok(Request::Show(None))
    );
    assert_eq!(
        state.request("ShowWindow", &one("settings")),
        Err(Refusal::UnknownPage("settings".into()))
    );
    let without_daemon = SessionState::default();
    assert_eq!(
        without_daemon.request("SetProfile", &one("balanced")),
        Err(Refusal::NoDaemon)
    );
    assert!(Refusal::UnknownProfile("turbo".into())
        .message()
        .contains("turbo"));
    assert_eq!(
        Refusal::NoDaemon.name(),
        "io.github.pacerapp.Pacer.State1.Error.NoDaemon"
    );
    let refused = Refusal::NotAuthorized {
        action: "io.github.pacerapp.Pacer.set-cpu-power".into(),
        pid: Some(4242),
        error: None,
    };
    assert_eq!(
        refused.name(),
        "io.github.pacerapp.Pacer.State1.Error.NotAuthorized"
    );
    assert!(
        refused.message().contains("4242") && refused.message().contains("set-cpu-power"),
        "{}",
        refused.message()
    );
}

#[test]
fn findings_and_settings_are_shown_in_words_beside_the_kernels_tokens() {
    let epp = "sys/devices/system/cpu/cpufreq/policy8/energy_performance_preference";
    let status = crate::testing::simulated_status("intel-hybrid", &[(epp, "power")]);
    let state = SessionState::of(&status, true, &SessionState::default());
    assert_eq!(
        state.findings[0].summary,
        "Cores of one kind have different EPP"
    );
    let print = |name: &str| state.property(name).unwrap().print(false).to_string();
    assert_eq!(
        print("CoreTypes"),
        "[('performance', 'balance_performance', 'powersave'), ('efficiency', '', 'powersave')]"
    );
    assert_eq!(
        print("CoreTypeLabels"),
        "[('performance', 'Balanced performance', 'Power saving governor'), \
         ('efficiency', '', 'Power saving governor')]"
    );
    assert!(
        print("Findings").contains("'Cores of one kind have different EPP'"),
        "{}",
        print("Findings")
    );
}

#[test]
fn what_polkit_allowed_goes_on_only_while_the_state_still_gives_it() {
    let fixable = |epp: Epp| FindingState {
        key: "epp-mismatch@4".into(),
        severity: Severity::Warning,
        summary: "s".into(),
        detail: "d".into(),
        why: None,
        fix: Some(FixAction::SetEpp {
            epp,
            policies: vec![4],
        }),
    };
    let key = ("epp-mismatch@4",).to_variant();
    let before = SessionState {
        findings: vec![fixable(Epp::BalancePerformance)],
        ..SessionState::default()
    };
    let authorised = before.request("Fix", &key).unwrap();
    assert_eq!(
        before.confirm("Fix", &key, authorised.clone()),
        Ok(authorised.clone())
    );
    // Fixed meanwhile: gone.
    assert_eq!(
        SessionState::default().confirm("Fix", &key, authorised.clone()),
        Err(Refusal::UnknownFinding("epp-mismatch@4".into()))
    );
    // Its fix changed meanwhile: polkit was asked about the other one.
    let moved = SessionState {
        findings: vec![fixable(Epp::Performance)],
        ..SessionState::default()
    };
    assert_eq!(
        moved.confirm("Fix", &key, authorised),
        Err(Refusal::NotFixable("epp-mismatch@4".into()))
    );
}

#[test]
fn limits_give_each_core_types_limiter_beside_its_line() {
    let no_turbo = "sys/devices/system/cpu/intel_pstate/no_turbo";
    let state = |writes: &[(&str, &str)]| {
        let status = crate::testing::simulated_status("intel-hybrid", writes);
        SessionState::of(&status, true, &SessionState::default())
    };
    let print = |state: &SessionState| state.property("Limits").unwrap().print(false).to_string();
    assert_eq!(
        print(&state(&[])),
        "[('performance', 'none', 'Performance cores: nothing holds them back'), \
         ('efficiency', 'none', 'Efficiency cores: nothing holds them back')]"
    );
    // Turbo switched off: the firmware holds each core type at its base frequency.
    assert_eq!(
        print(&state(&[(no_turbo, "1")])),
        "[('performance', 'firmware', 'Performance cores held at 2.1 GHz: turbo boost is off'), \
         ('efficiency', 'firmware', 'Efficiency cores held at 1.5 GHz: turbo boost is off')]"
    );
}
