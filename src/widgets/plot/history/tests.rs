// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `history`.

use super::*;

fn cpu(id: u32, core_type: Option<CoreType>) -> TracedCpu {
    TracedCpu { id, core_type }
}

fn seconds(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn values(history: &FrequencyHistory, index: usize) -> Vec<Option<u32>> {
    history.samples(index).map(|(_, khz)| khz).collect()
}

#[test]
fn wraps_around_keeping_the_latest_samples_in_order() {
    let mut history = FrequencyHistory::new(vec![cpu(0, None), cpu(1, None)], 3);
    assert_eq!(history.latest_time(), None);
    for n in 0..5u32 {
        history.push(seconds(n.into()), &[Some(n * 100), Some(n * 100 + 1)]);
    }
    assert_eq!(history.samples(0).count(), 3);
    assert_eq!(history.capacity(), 3);
    assert_eq!(values(&history, 0), [Some(200), Some(300), Some(400)]);
    assert_eq!(values(&history, 1), [Some(201), Some(301), Some(401)]);
    let times: Vec<_> = history.samples(0).map(|(at, _)| at).collect();
    assert_eq!(times, [seconds(2), seconds(3), seconds(4)]);
    assert_eq!(history.latest_time(), Some(seconds(4)));
    assert_eq!(history.max_khz(), Some(401));
    // Two CPUs and the three series of their one type: nothing beyond.
    assert_eq!(values(&history, 5), []);
}

#[test]
fn does_not_grow_once_full() {
    let mut history = FrequencyHistory::new(vec![cpu(0, None)], 4);
    let storage = (history.times.as_ptr(), history.khz.as_ptr());
    for n in 0..100 {
        history.push(seconds(n), &[Some(1)]);
    }
    assert_eq!((history.times.as_ptr(), history.khz.as_ptr()), storage);
    assert_eq!(history.times.len(), 4);
}

#[test]
fn a_zero_capacity_still_keeps_the_latest_sample() {
    let mut history = FrequencyHistory::new(vec![cpu(0, None)], 0);
    history.push(seconds(1), &[Some(5)]);
    history.push(seconds(2), &[Some(6)]);
    assert_eq!(values(&history, 0), [Some(6)]);
}

#[test]
fn mismatched_lengths_ignore_extras_and_treat_missing_as_unknown() {
    let mut history = FrequencyHistory::new(vec![cpu(0, None), cpu(1, None)], 4);
    history.push(seconds(0), &[Some(1), Some(2), Some(3)]);
    history.push(seconds(1), &[Some(4)]);
    history.push(seconds(2), &[]);
    assert_eq!(values(&history, 0), [Some(1), Some(4), None]);
    assert_eq!(values(&history, 1), [Some(2), None, None]);
}

#[test]
fn clear_forgets_samples_but_keeps_cpus() {
    let mut history = FrequencyHistory::new(vec![cpu(7, None)], 4);
    history.push(seconds(0), &[Some(1)]);
    history.clear();
    assert_eq!(history.latest_time(), None);
    assert_eq!(history.samples(0).count(), 0);
    assert_eq!(history.summary(), []);
    assert_eq!(history.cpus(), [cpu(7, None)]);
    history.push(seconds(9), &[Some(2)]);
    assert_eq!(values(&history, 0), [Some(2)]);
}

#[test]
fn a_clear_or_another_history_starts_a_new_generation() {
    let mut history = FrequencyHistory::new(vec![cpu(7, None)], 4);
    let other = FrequencyHistory::new(vec![cpu(7, None)], 4);
    let first = history.generation();
    assert_ne!(first, other.generation());
    history.push(seconds(0), &[Some(1)]);
    assert_eq!(history.generation(), first, "a push continues the run");
    history.clear();
    assert_ne!(history.generation(), first);
}

#[test]
fn samples_from_an_offset_and_times_before_a_bound_across_the_wrap() {
    let mut history = FrequencyHistory::new(vec![cpu(0, None)], 4);
    for n in 0..6u32 {
        history.push(seconds(n.into()), &[Some(n)]);
    }
    // Seconds 2..=5 kept, the ring wrapped after 3.
    for first in 0..=5 {
        let tail: Vec<_> = history.samples_from(0, first).collect();
        let whole: Vec<_> = history.samples(0).skip(first).collect();
        assert_eq!(tail, whole, "from {first}");
    }
    // One CPU and its type's three series.
    assert_eq!(history.samples_from(4, 0).count(), 0);
    for bound in 0..=7 {
        let counted = history.count_before(|at| at < seconds(bound));
        assert_eq!(counted, (2..6).filter(|&n| n < bound).count(), "{bound}");
    }
    assert_eq!(history.time(0), Some(seconds(2)));
    assert_eq!(history.time(3), Some(seconds(5)));
    assert_eq!(history.time(4), None);
}

#[test]
fn summary_takes_medians_per_type_over_the_latest_sample() {
    use CoreType::{Efficiency, LowPower, Performance};
    let cpus = vec![
        cpu(0, Some(Efficiency)),
        cpu(1, Some(Performance)),
        cpu(2, Some(Efficiency)),
        cpu(3, Some(Performance)),
        cpu(4, Some(Efficiency)),
        cpu(5, Some(Performance)),
        cpu(6, Some(Performance)),
        cpu(7, Some(LowPower)),
    ];
    let mut history = FrequencyHistory::new(cpus, 2);
    history.push(seconds(0), &[Some(9_000_000); 8]);
    history.push(
        seconds(1),
        &[
            Some(1_000),
            Some(4_000),
            Some(3_000),
            Some(1_000),
            Some(2_000),
            Some(2_001),
            Some(5_000),
            None,
        ],
    );
    assert_eq!(
        history.summary(),
        [
            // Even count: the mean of 2 001 and 4 000, rounded up.
            TypeSummary {
                core_type: Some(Performance),
                median_khz: 3_001,
                max_khz: 5_000,
                cpus: 4,
            },
            // Odd count: the middle value.
            TypeSummary {
                core_type: Some(Efficiency),
                median_khz: 2_000,
                max_khz: 3_000,
                cpus: 3,
            },
            // The low-power core reported nothing, so it is left out.
        ]
    );
}

#[test]
fn each_core_type_keeps_its_lowest_median_and_highest_cpu_per_sample() {
    use CoreType::{Efficiency, Performance};
    let cpus = vec![
        cpu(0, Some(Performance)),
        cpu(1, Some(Efficiency)),
        cpu(2, Some(Performance)),
        cpu(3, Some(Performance)),
        cpu(4, Some(Efficiency)),
    ];
    let mut history = FrequencyHistory::new(cpus, 3);
    history.push(
        seconds(0),
        &[Some(3_000), Some(800), Some(1_000), Some(2_000), None],
    );
    history.push(seconds(1), &[None, None, Some(4_000), None, Some(900)]);
    history.push(seconds(2), &[None, None, None, None, None]);
    assert_eq!(
        history.core_types().collect::<Vec<_>>(),
        [Some(Performance), Some(Efficiency)]
    );
    let p = history.band(Some(Performance)).unwrap();
    assert_eq!(values(&history, p.low), [Some(1_000), Some(4_000), None]);
    assert_eq!(values(&history, p.median), [Some(2_000), Some(4_000), None]);
    assert_eq!(values(&history, p.high), [Some(3_000), Some(4_000), None]);
    let e = history.band(Some(Efficiency)).unwrap();
    assert_eq!(values(&history, e.median), [Some(800), Some(900), None]);
    assert_eq!(history.band(Some(CoreType::LowPower)), None);
    assert_eq!(history.band(None), None);
}

#[test]
fn summary_skips_unknown_values() {
    let mut history = FrequencyHistory::new(vec![cpu(0, None), cpu(1, None), cpu(2, None)], 1);
    history.push(seconds(0), &[None, Some(800_000), Some(1_200_000)]);
    assert_eq!(
        history.summary(),
        [TypeSummary {
            core_type: None,
            median_khz: 1_000_000,
            max_khz: 1_200_000,
            cpus: 2,
        }]
    );
}

#[test]
fn summary_of_large_values_does_not_overflow() {
    let mut history = FrequencyHistory::new(vec![cpu(0, None), cpu(1, None)], 1);
    history.push(seconds(0), &[Some(u32::MAX), Some(u32::MAX - 2)]);
    assert_eq!(history.summary()[0].median_khz, u32::MAX - 1);
}
