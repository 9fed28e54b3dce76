// SPDX-License-Identifier: GPL-3.0-or-later
//! A measurement as its callers follow it: the helper's `MeasureProgress` signals carry each
//! trial's curve as it grows and the CPU's frequency, at most ten a second, with the time
//! left; the client turns them back into the measurement's own progress. Measured for real
//! on this machine's CPU 1 (the model's tree without its state, whose `scaling_cur_freq`
//! the helper reads as the kernel's), and played from a simulated machine's model.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::fs;
use std::time::{Duration, Instant};

use common::*;
use futures_util::StreamExt;
use pacer_dbus::measurement::progress::{Progress, Stage};

/// Every signal of one measurement of `cpus`, `trials` each, with when it came.
async fn follow(rig: &Rig, cpus: &[u32], trials: u32) -> Vec<(Instant, Progress)> {
    let helper = rig.proxy().await;
    let mut signals = helper.receive_measure_progress().await.unwrap();
    let measuring = {
        let helper = helper.clone();
        let cpus = cpus.to_vec();
        tokio::spawn(async move { helper.measure_ramp(&cpus, trials).await })
    };
    let mut seen = Vec::new();
    tokio::pin!(measuring);
    let mut take = |signal: pacer_dbus::MeasureProgress| {
        let args = signal.args().unwrap();
        let progress = pacer_dbus::measurement::progress::from_args(&args).expect("a known stage");
        seen.push((Instant::now(), progress));
    };
    loop {
        tokio::select! {
            report = &mut measuring => {
                report.unwrap().unwrap();
                break;
            }
            Some(signal) = signals.next() => take(signal),
        }
    }
    // The last signals came before the answer; the stream may hand them over after it.
    while let Ok(Some(signal)) =
        tokio::time::timeout(Duration::from_millis(300), signals.next()).await
    {
        take(signal);
    }
    seen
}

#[tokio::test]
async fn a_real_measurement_reports_each_trial_as_it_grows_ten_times_a_second_at_most() {
    let tree = pacer_testrig::model_tree("intel-hybrid");
    fs::remove_dir_all(tree.path().join(".pacer-sim")).unwrap();
    let rig = Rig::with_tree(tree);
    let seen = follow(&rig, &[1], 2).await;

    // Per trial: waiting, then running with a curve that grows, then done.
    for trial in 1..=2 {
        let stages: Vec<&Progress> = seen
            .iter()
            .map(|(_, p)| p)
            .filter(|p| p.trial == trial)
            .collect();
        assert_eq!(stages.first().unwrap().stage, Stage::Waiting, "{stages:?}");
        assert_eq!(stages.last().unwrap().stage, Stage::Done);
        let running: Vec<&&Progress> = stages
            .iter()
            .filter(|p| p.stage == Stage::Running)
            .collect();
        assert!(
            running.len() >= 5,
            "a 1.3 s run reported {} times",
            running.len()
        );
        assert!(running
            .windows(2)
            .all(|pair| pair[1].curve.len() >= pair[0].curve.len()));
        assert!(running.iter().all(|p| p.cpu == 1 && p.trials == 2));
        // The whole curve once done, thinned: twelve points a decade up to 1 s.
        let done = stages.last().unwrap();
        assert_eq!(done.curve.len(), 37, "{:?}", done.curve);
        assert!(done.curve.iter().all(|&(ms, pct)| ms > 0.0 && pct > 0.0));
        // The frequency where the kernel reports it: the tree's scaling_cur_freq.
        assert!(!done.mhz.is_empty());
        assert!(done.mhz.windows(2).all(|pair| pair[1].0 > pair[0].0));
    }

    // Never more than ten in any second.
    for (index, (at, _)) in seen.iter().enumerate() {
        let within = seen[index..]
            .iter()
            .take_while(|(later, _)| later.duration_since(*at) < Duration::from_secs(1))
            .count();
        assert!(
            within <= 10,
            "{within} signals within a second of signal {index}"
        );
    }

    // The time left falls to about nothing.
    let first = seen.first().unwrap().1.left;
    let last = seen.last().unwrap().1.left;
    assert!(first > Duration::from_secs(2), "{first:?}");
    assert!(last < Duration::from_millis(700), "{last:?}");
}

#[tokio::test]
async fn a_simulated_measurement_plays_the_models_ramp_in_time() {
    let rig = Rig::start("intel-hybrid");
    let began = Instant::now();
    let seen = follow(&rig, &[7, 15], 5).await;
    // One run of 1.3 s per CPU: the model has no trial-to-trial spread.
    assert!(
        began.elapsed() >= Duration::from_millis(2600),
        "{:?}",
        began.elapsed()
    );
    let done: Vec<&Progress> = seen
        .iter()
        .map(|(_, p)| p)
        .filter(|p| p.stage == Stage::Done)
        .collect();
    assert_eq!(done.iter().map(|p| p.cpu).collect::<Vec<_>>(), [7, 15]);
    for progress in done {
        assert_eq!(progress.trials, 1);
        // The P-core under balance_performance ramps in about 5 ms, the E-core in about 8.
        let (_, at_1s) = *progress.curve.last().unwrap();
        assert!((95.0..=100.0).contains(&at_1s), "{at_1s}");
        let (_, first_mhz) = progress.mhz[0];
        let (_, last_mhz) = *progress.mhz.last().unwrap();
        assert!(
            last_mhz > first_mhz,
            "the frequency ramps: {:?}",
            progress.mhz
        );
    }
}
