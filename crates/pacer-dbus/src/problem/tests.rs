// SPDX-License-Identifier: GPL-3.0-or-later
//! Each problem as it travels (kind and JSON) and as a client words it.

use super::*;

#[test]
fn a_problem_round_trips_as_its_kind_and_arguments() {
    let problem = Problem::GovernorNotOffered {
        policy: 3,
        governor: "ondemand".into(),
        offered: vec!["performance".into(), "powersave".into()],
    };
    let json = serde_json::to_string(&problem).unwrap();
    assert_eq!(
        json,
        r#"{"problem":"governor-not-offered","policy":3,"governor":"ondemand","offered":["performance","powersave"]}"#
    );
    assert_eq!(serde_json::from_str::<Problem>(&json).unwrap(), problem);
    assert_eq!(problem.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        problem.to_string(),
        "policy 3 does not offer the ondemand governor (it offers: performance, powersave)"
    );
}

#[test]
fn a_kernel_refusal_is_worded_with_the_file_and_errno() {
    let busy = Problem::WriteRefused {
        file: "/sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference".into(),
        errno: Some(16),
        value: "power".into(),
    };
    assert_eq!(busy.kind(), ErrorKind::Busy);
    let text = busy.to_string();
    assert!(
        text.contains("policy0/energy_performance_preference"),
        "{text}"
    );
    assert!(text.contains("EBUSY"), "{text}");
    let odd = Problem::WriteRefused {
        file: "/x".into(),
        errno: Some(121),
        value: "1".into(),
    };
    assert_eq!(odd.kind(), ErrorKind::Failed);
    assert!(odd.to_string().contains("errno 121"), "{odd}");
}

#[test]
fn a_max_frequency_held_lower_is_busy_in_words() {
    let held = Problem::MaxFrequencyHeld {
        policies: [2, 3].into_iter().collect(),
        khz: 4_700_000,
        held: 400_000,
    };
    assert_eq!(held.kind(), ErrorKind::Busy);
    assert_eq!(
        serde_json::to_string(&held).unwrap(),
        r#"{"problem":"max-frequency-held","policies":[2,3],"khz":4700000,"held":400000}"#
    );
    assert!(
        held.to_string().starts_with(
            "the firmware or the kernel holds the maximum frequency of policy 2-3 at 400 MHz, \
             below the 4.7 GHz asked for"
        ),
        "{held}"
    );
    let outside = Problem::FrequencyOutOfRange {
        policy: 9,
        khz: 4_700_000,
        min: 400_000,
        max: 3_400_000,
    };
    assert_eq!(outside.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        outside.to_string(),
        "4700000 kHz is outside the range of policy 9: 400000-3400000 kHz"
    );
    assert_eq!(
        Problem::NoFrequencyLimits { policy: 1 }.kind(),
        ErrorKind::NotSupported
    );
}

#[test]
fn echoes_are_cut_at_the_limit() {
    let long = "x".repeat(10_000);
    assert_eq!(echo(&long).chars().count(), ECHO_LIMIT + 1);
    assert_eq!(echo("schedutil"), "schedutil");
    // Cut at a character, never inside one.
    let wide = "é".repeat(300);
    assert!(echo(&wide).starts_with(&"é".repeat(ECHO_LIMIT)));
}

#[test]
fn an_unknown_kind_from_an_older_helper_is_failed() {
    let other = Problem::Other {
        kind: "Busy".into(),
        text: "x".into(),
    };
    assert_eq!(other.kind(), ErrorKind::Busy);
    let odd = Problem::Other {
        kind: "Strange".into(),
        text: "x".into(),
    };
    assert_eq!(odd.kind(), ErrorKind::Failed);
}
