// SPDX-License-Identifier: GPL-3.0-or-later
use std::time::{Duration, UNIX_EPOCH};

use pacer_core::history::{Source, Writer};
use pacer_core::values::CoreType;

use super::*;

fn event(id: u64, setting: Setting, policy: u32, source: Source, at_ms: u64) -> Event {
    Event {
        id,
        time: UNIX_EPOCH + Duration::from_millis(1_796_355_607_000 + at_ms),
        monotonic_ms: at_ms,
        setting,
        policies: vec![policy],
        old: Some("performance".into()),
        new: "powersave".into(),
        source,
        process: (source == Source::Pacer).then(|| Writer {
            pid: 7,
            comm: Some("pacerctl".into()),
            exe: None,
            unit: None,
            uid: Some(1000),
        }),
        cause: (source == Source::Kernel).then_some(id - 1),
        hold: None,
    }
}

#[test]
fn one_requests_writes_and_the_kernels_answers_are_one_row_each() {
    // A governor written on four policies, the kernel answering each with an EPP.
    let mut events = Vec::new();
    for policy in 0..4 {
        let id = u64::from(policy) * 2 + 1;
        events.push(event(id, Setting::Governor, policy, Source::Pacer, id));
        events.push(event(id + 1, Setting::Epp, policy, Source::Kernel, id + 1));
    }
    // The same write again three seconds on is another request.
    events.push(event(9, Setting::Governor, 0, Source::Pacer, 3_000));
    let groups = grouped(events.iter().rev());
    let seen: Vec<(Setting, Vec<u32>)> = groups
        .iter()
        .map(|g| (g.setting, g.policies.clone()))
        .collect();
    assert_eq!(
        seen,
        [
            (Setting::Governor, vec![0]),
            (Setting::Epp, vec![0, 1, 2, 3]),
            (Setting::Governor, vec![0, 1, 2, 3]),
        ]
    );
}

#[test]
fn the_recent_changes_are_kept_once_and_bounded() {
    let mut recent = Recent::default();
    let first: Vec<Event> = (1..=3)
        .map(|id| event(id, Setting::Governor, 0, Source::Process, id * 10_000))
        .collect();
    recent.extend(first.clone());
    // The first read and the signals overlap: the overlap is kept once.
    recent.extend(first[1..].to_vec());
    let ids: Vec<u64> = recent.events().iter().map(|e| e.id).collect();
    assert_eq!(ids, [1, 2, 3]);
    let many = (4..=600).map(|id| event(id, Setting::Epp, 0, Source::Process, id * 10_000));
    recent.extend(many.collect());
    assert_eq!(recent.events().len(), RECENT_KEPT);
    assert_eq!(recent.events().last().map(|e| e.id), Some(600));
}

#[test]
fn the_changes_since_a_time_are_newest_first_without_the_recordings_own() {
    let mut recent = Recent::default();
    let mut events = vec![
        event(1, Setting::Governor, 0, Source::Process, 0),
        event(2, Setting::Recording, 0, Source::Pacer, 20_000),
    ];
    events.extend((0..4).map(|policy| {
        let id = u64::from(policy) + 3;
        event(id, Setting::Epp, policy, Source::Process, 40_000 + id)
    }));
    recent.extend(events);
    let since = UNIX_EPOCH + Duration::from_millis(1_796_355_607_000 + 10_000);
    let shown: Vec<(Setting, Vec<u32>)> = recent
        .changes_since(since)
        .iter()
        .map(|e| (e.setting, e.policies.clone()))
        .collect();
    assert_eq!(shown, [(Setting::Epp, vec![0, 1, 2, 3])]);
}

/// A write of `value` over `old` on `policies`, `at_ms` into the recording.
fn write(id: u64, setting: Setting, old: &str, value: &str, source: Source, at_ms: u64) -> Event {
    Event {
        old: Some(old.into()),
        new: value.into(),
        policies: vec![0, 1],
        ..event(id, setting, 0, source, at_ms)
    }
}

/// The rows' settings, values and rewrite counts, newest first.
fn rows(entries: &[Entry]) -> Vec<(Setting, &str, usize)> {
    entries
        .iter()
        .map(|e| (e.event.setting, e.event.new.as_str(), e.rewrites))
        .collect()
}

#[test]
fn a_run_of_rewrites_is_one_row_per_setting_value_and_hand() {
    use Setting::{Epp, Governor};
    // Oldest first: a change, then a daemon rewriting the EPP and the governor every five
    // seconds, once by another hand; then a change, and the same rewrite again.
    let events = [
        write(1, Epp, "power", "performance", Source::Process, 0),
        write(2, Epp, "performance", "performance", Source::Process, 5_000),
        write(
            3,
            Governor,
            "powersave",
            "powersave",
            Source::Process,
            5_001,
        ),
        write(
            4,
            Epp,
            "performance",
            "performance",
            Source::Process,
            10_000,
        ),
        write(
            5,
            Governor,
            "powersave",
            "powersave",
            Source::Process,
            10_001,
        ),
        write(6, Epp, "performance", "performance", Source::Daemon, 12_000),
        write(
            7,
            Epp,
            "performance",
            "performance",
            Source::Process,
            15_000,
        ),
        write(8, Epp, "performance", "power", Source::Process, 20_000),
        write(9, Epp, "power", "power", Source::Process, 25_000),
    ];
    let shown = timeline(grouped(events.iter().rev()));
    assert_eq!(
        rows(&shown),
        [
            (Epp, "power", 1),
            (Epp, "power", 0),
            (Epp, "performance", 3),
            (Epp, "performance", 1),
            (Governor, "powersave", 2),
            (Epp, "performance", 0),
        ]
    );
    // A row stands for its newest write.
    assert_eq!(shown[2].event.id, 7);
}

#[test]
fn rewrites_on_other_cores_or_by_another_program_stay_apart() {
    let by = |id, at_ms, pid, name: &str| Event {
        process: Some(Writer {
            pid,
            comm: Some(name.into()),
            exe: None,
            unit: None,
            uid: None,
        }),
        ..write(id, Setting::Epp, "power", "power", Source::Process, at_ms)
    };
    let events = [
        by(1, 0, 100, "tlp"),
        // Each run of a command is a process of its own: the name is the hand.
        by(2, 5_000, 200, "tlp"),
        by(3, 10_000, 300, "auto-cpufreq"),
        Event {
            policies: vec![0],
            ..by(4, 15_000, 400, "tlp")
        },
    ];
    let shown = timeline(grouped(events.iter().rev()));
    let counts: Vec<(u64, usize)> = shown.iter().map(|e| (e.event.id, e.rewrites)).collect();
    assert_eq!(counts, [(4, 1), (3, 1), (2, 2)]);
}

#[test]
fn a_heading_names_the_minute_and_the_second_only_where_its_rows_differ() {
    // The recording's clock starts at 1_796_355_607 s: 7 s into a minute.
    let minute = |id, at_ms| {
        write(
            id,
            Setting::Epp,
            "power",
            "performance",
            Source::Process,
            at_ms,
        )
    };
    let events = [
        minute(1, 0),
        Event {
            setting: Setting::Governor,
            ..minute(2, 400)
        },
        minute(3, 60_000),
        minute(4, 80_000),
    ];
    let shown = timeline(grouped(events.iter().rev()));
    let since_start = |entry: &Entry| {
        let at = entry
            .moment
            .time
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        (at as i64 - 1_796_355_607, entry.moment.seconds)
    };
    let moments: Vec<(i64, bool)> = shown.iter().map(since_start).collect();
    assert_eq!(moments, [(80, true), (60, true), (-7, false), (-7, false)]);
}

#[test]
fn a_change_on_every_policy_of_a_kind_is_on_those_cores() {
    let hybrid = Cores::of(&crate::testing::simulated_status("intel-hybrid", &[]));
    assert!(hybrid.typed());
    assert_eq!(hybrid.covered(&[]), Covered::Machine);
    assert_eq!(hybrid.covered(&(0..16).collect::<Vec<_>>()), Covered::All);
    let p_cores: Vec<u32> = (0..16)
        .filter(|p| hybrid.core_type(*p) == Some(CoreType::Performance))
        .collect();
    assert!(!p_cores.is_empty() && p_cores.len() < 16, "{p_cores:?}");
    assert_eq!(
        hybrid.covered(&p_cores),
        Covered::Type(CoreType::Performance)
    );
    assert_eq!(
        hybrid.covered(&p_cores[1..]),
        Covered::Cpus(p_cores[1..].iter().copied().collect())
    );
    // A policy of several CPUs is named by its CPUs; one not read, by its number.
    let board = Cores::of(&crate::testing::simulated_status("arm-rk3588", &[]));
    assert_eq!(
        board.covered(&[0, 99]),
        Covered::Cpus("0-3,99".parse().unwrap())
    );
    let alike = Cores::of(&crate::testing::simulated_status("netbook-2", &[]));
    assert!(!alike.typed());
    assert_eq!(alike.covered(&[0, 1]), Covered::All);
}
