// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `ticker`.

use std::fs;

use super::*;

#[test]
fn the_ticker_moves_frequencies() {
    let dir = tempfile::tempdir().unwrap();
    let sim = SimDir::open_or_create(dir.path(), "arm-rk3588").unwrap();
    let file = |policy: u32| {
        dir.path().join(format!(
            "sys/devices/system/cpu/cpufreq/policy{policy}/scaling_cur_freq"
        ))
    };
    let mut seen = std::collections::BTreeSet::new();
    let ticker = Ticker::start(sim, 3, Duration::from_millis(5));
    for _ in 0..500 {
        for policy in [0, 4, 6] {
            seen.insert(fs::read_to_string(file(policy)).unwrap());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // Paused, nothing moves; resumed, it moves again. (The period is at least 1 ms.)
    // Only a changed frequency is written, so all three files are watched.
    let times = || -> Vec<_> {
        [0, 4, 6]
            .iter()
            .map(|&p| fs::metadata(file(p)).unwrap().modified().unwrap())
            .collect()
    };
    ticker.pause();
    std::thread::sleep(Duration::from_millis(50));
    let paused_at = times();
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(times(), paused_at);
    ticker.set_period(Duration::from_millis(1));
    ticker.resume();
    // The load pattern may hold a frequency for a while: wait for the next change.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while times() == paused_at {
        assert!(
            std::time::Instant::now() < deadline,
            "the resumed ticker writes nothing"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(ticker);
    assert!(seen.len() > 3, "{seen:?}");
}
