// SPDX-License-Identifier: GPL-3.0-or-later
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pacer_core::status::Status;

use super::*;
use crate::app::install::InstallKind;
use crate::testing::simulated_status as status;

#[test]
fn findings_come_first_most_severe_first_and_fixes_need_the_helper() {
    let no_turbo = "sys/devices/system/cpu/intel_pstate/no_turbo";
    let epp = "sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference";
    let status = status("intel-hybrid", &[(no_turbo, "1"), (epp, "power")]);
    let facts = BannerFacts {
        status: Some(&status),
        helper_missing: None,
        simulated: Some(Simulated::Tree),
    };
    let shown = notices(&facts);
    assert!(shown.len() >= 3, "{shown:#?}");
    let severities: Vec<Severity> = shown.iter().map(|n| n.severity).collect();
    let mut sorted = severities.clone();
    sorted.sort();
    assert_eq!(severities, sorted, "most severe first");
    assert_eq!(shown.last().unwrap().key, "simulated");
    assert!(shown.iter().any(|n| matches!(
        n.action,
        Some((_, NoticeAction::Fix(FixAction::EnableTurbo)))
    )));

    let read_only = BannerFacts {
        helper_missing: Some(&HelperMissing::NotInstalled(InstallKind::System)),
        ..facts
    };
    let shown = notices(&read_only);
    assert_eq!(shown.last().unwrap().key, "read-only");
    // Without the helper nothing but a profile switch can be fixed from here.
    assert!(shown.iter().all(|n| n.action.is_none()));
}

#[test]
fn a_machine_without_cpufreq_is_offered_the_simulated_laptop() {
    let status = status("vm", &[]);
    let shown = notices(&BannerFacts {
        status: Some(&status),
        ..BannerFacts::default()
    });
    assert!(shown
        .iter()
        .any(|n| matches!(n.action, Some((_, NoticeAction::Simulate)))));
}

#[test]
fn a_finding_says_why_when_the_history_knows() {
    let turbo = |status: &Status| {
        notices(&BannerFacts {
            status: Some(status),
            ..BannerFacts::default()
        })
        .into_iter()
        .find(|n| n.key.starts_with("TurboDisabled"))
        .and_then(|n| n.detail)
        .unwrap()
    };
    let mut status = crate::testing::turbo_switched_off_by_tlp();
    let detail = turbo(&status);
    assert!(
        detail.contains("Why: at ")
            && detail.contains("intel_pstate no_turbo: 0 → 1, by tlp (pid 812, tlp.service)"),
        "{detail}"
    );
    status.explain(&[]);
    assert!(!turbo(&status).contains("Why:"));
}

#[test]
fn what_changed_across_suspend_is_a_warning_caused_by_the_waking() {
    use pacer_core::history::{sleep, Event, Setting, Source};

    let epp = "sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference";
    let mut status = status("intel-hybrid", &[(epp, "performance")]);
    let event = |id, setting, new: &str, cause| Event {
        id,
        time: std::time::SystemTime::now(),
        monotonic_ms: 0,
        setting,
        policies: if setting == Setting::Epp {
            vec![0]
        } else {
            Vec::new()
        },
        old: (setting == Setting::Epp).then(|| "balance_performance".to_owned()),
        new: new.to_owned(),
        source: Source::Kernel,
        process: None,
        cause,
        hold: None,
    };
    status.explain(&[
        event(1, Setting::Sleep, sleep::SUSPENDING, None),
        event(2, Setting::Sleep, sleep::RESUMED, None),
        event(3, Setting::Epp, "performance", Some(2)),
    ]);
    let shown = notices(&BannerFacts {
        status: Some(&status),
        ..BannerFacts::default()
    });
    let suspend = shown
        .iter()
        .find(|n| n.key.starts_with("ChangedAcrossSuspend"))
        .expect("the finding is shown");
    assert_eq!(suspend.severity, Severity::Warning);
    assert_eq!(
        suspend.title,
        "EPP on policy 0 changed across suspend: balance_performance → performance"
    );
    let detail = suspend.detail.as_deref().unwrap();
    assert!(
        detail.contains("by the kernel, after change #2; before that, at ")
            && detail.contains("the system woke from sleep"),
        "{detail}"
    );
    assert!(matches!(
        suspend.action,
        Some((_, NoticeAction::Fix(FixAction::SetEpp { .. })))
    ));
}
