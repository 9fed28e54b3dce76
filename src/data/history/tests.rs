// SPDX-License-Identifier: GPL-3.0-or-later
use std::time::{Duration, UNIX_EPOCH};

use pacer_core::history::{Source, Writer};

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
