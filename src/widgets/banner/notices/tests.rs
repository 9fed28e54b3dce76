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
        simulated: true,
    };
    let shown = notices(&facts);
    assert!(shown.len() >= 2, "{shown:#?}");
    let severities: Vec<Severity> = shown.iter().map(|n| n.severity).collect();
    let mut sorted = severities.clone();
    sorted.sort();
    assert_eq!(severities, sorted, "most severe first");
    // The header bar says the machine is simulated, not the banner.
    assert!(shown.iter().all(|n| n.key != "simulated"));
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
        .map(|n| n.details.why)
        .unwrap()
    };
    let mut status = crate::testing::turbo_switched_off_by_tlp();
    let why = turbo(&status).unwrap();
    assert!(
        why.starts_with("Why: at ")
            && why.contains("intel_pstate no_turbo: 0 → 1, by tlp (pid 812, tlp.service)"),
        "{why}"
    );
    status.explain(&[]);
    assert_eq!(turbo(&status), None);
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
    assert_eq!(suspend.title, "A setting changed while the computer slept");
    let details = &suspend.details;
    assert_eq!(
        details.summary.as_deref(),
        Some("EPP on policy 0 changed across suspend: balance_performance → performance")
    );
    let why = details.why.as_deref().unwrap();
    assert!(
        why.contains("by the kernel, after change #2; before that, at ")
            && why.contains("the system woke from sleep"),
        "{why}"
    );
    assert_eq!(
        details.command.as_deref(),
        Some("echo balance_performance | sudo tee /sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference")
    );
    assert!(matches!(
        suspend.action,
        Some((_, NoticeAction::Fix(FixAction::SetEpp { .. })))
    ));
}

/// The banner's notices on machines that raise every kind the banner shows: the findings of
/// a laptop whose turbo and EPP were changed, of one whose EAS is kept off, no CPU frequency
/// control, and each reason the window is read-only.
fn every_kind_of_notice() -> Vec<Notice> {
    let no_turbo = "sys/devices/system/cpu/intel_pstate/no_turbo";
    let epp = "sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference";
    let statuses = [
        status("intel-hybrid", &[(no_turbo, "1"), (epp, "power")]),
        status("intel-hybrid-nosmt", &[]),
        status("vm", &[]),
    ];
    let missing = [
        HelperMissing::NotInstalled(InstallKind::BuildTree),
        HelperMissing::NotInstalled(InstallKind::OtherPrefix("/usr/local".into())),
        HelperMissing::SystemBus(zbus::Error::InputOutput(
            std::io::Error::from_raw_os_error(2).into(),
        )),
    ];
    let mut shown = Vec::new();
    for status in &statuses {
        for helper_missing in missing.iter().map(Some).chain([None]) {
            shown.extend(notices(&BannerFacts {
                status: Some(status),
                helper_missing,
                simulated: false,
            }));
        }
    }
    shown
}

#[test]
fn each_notice_is_one_line_of_plain_words() {
    let shown = every_kind_of_notice();
    for kind in [
        "MixedEpp",
        "TurboDisabled",
        "EasBlocked",
        "no-cpufreq",
        "read-only",
    ] {
        assert!(shown.iter().any(|n| n.key.starts_with(kind)), "no {kind}");
    }
    for notice in &shown {
        let title = &notice.title;
        assert!(title.split_whitespace().count() <= 10, "{title}");
        for shell in [
            "/",
            "sudo",
            "powerprofilesctl",
            "echo",
            "systemctl",
            "meson",
        ] {
            assert!(!title.contains(shell), "{title}");
        }
        for said in ["\n", "os error", "(", "policy"] {
            assert!(!title.contains(said), "{title}");
        }
        // No kernel token (`balance_performance`, `intel_pstate`).
        assert!(
            title.split_whitespace().all(|word| !word.contains('_')),
            "{title}"
        );
    }
}

#[test]
fn the_details_carry_what_the_line_leaves_out() {
    let shown = every_kind_of_notice();
    for notice in shown.iter().filter(|n| n.details.summary.is_some()) {
        // A finding: the kernel's words, its fix in words, and the command.
        let details = &notice.details;
        let command = details.command.as_deref().unwrap_or_default();
        assert!(command.contains("sudo"), "{notice:?}");
        assert!(details
            .fix
            .as_deref()
            .is_some_and(|fix| !fix.contains("sudo")));
    }
    let steps = shown
        .iter()
        .filter(|n| n.key == "read-only")
        .find_map(|n| n.details.command.as_deref());
    assert_eq!(
        steps,
        Some("meson setup build --prefix=/usr && sudo meson install -C build")
    );
    assert!(shown
        .iter()
        .any(|n| n.key == "read-only" && n.details.explanation.contains("(os error 2)")));
}
