// SPDX-License-Identifier: GPL-3.0-or-later
//! A sampled run of the recurrence and what it says: throughput in windows from the start as
//! a share of steady throughput, the time to reach and stay at 95 %, and steady throughput
//! itself (the method of `docs/measurement.md`).

use crate::stats::median;

/// One sample: nanoseconds since the work began, and operations done by then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub ns: u64,
    pub ops: u64,
}

/// Windows from the start, in milliseconds: 0–5, 0–10, … 0–1000.
pub const WINDOWS_MS: [u64; 7] = [5, 10, 20, 50, 100, 500, 1000];

/// The share of the run, from its end, whose median throughput is "steady".
const STEADY_PART: f64 = 0.4;
/// Bins whose median rate is the steady throughput.
const STEADY_BIN_NS: u64 = 5_000_000;
/// Bins for the "reach and stay" test.
const BIN_NS: u64 = 1_000_000;
/// The step the time to 95 % is found in (ms): one bin. A run at 95 % from its first bin
/// gives 0, which says "within the first millisecond", not "at once".
pub const T95_RESOLUTION_MS: f64 = BIN_NS as f64 / 1e6;

/// What one run shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Average throughput over each of [`WINDOWS_MS`], in % of steady (`None` when the run was
    /// shorter).
    pub windows_pct: [Option<f64>; 7],
    /// When throughput reached 95 % of steady and stayed there (ms); `None` if it never did.
    pub t95_ms: Option<f64>,
    /// Operations per second once steady.
    pub steady_ops_per_s: f64,
    /// The median time between samples (µs).
    pub sample_period_us: f64,
}

/// Operations done by `ns`, interpolated between samples.
pub(crate) fn ops_at(samples: &[Sample], ns: u64) -> Option<f64> {
    let after = samples.partition_point(|s| s.ns < ns);
    let next = samples.get(after)?;
    let (t0, o0) = match after.checked_sub(1) {
        Some(index) => (samples[index].ns, samples[index].ops),
        None => (0, 0),
    };
    if next.ns == t0 {
        return Some(next.ops as f64);
    }
    let part = (ns - t0) as f64 / (next.ns - t0) as f64;
    Some(o0 as f64 + part * (next.ops - o0) as f64)
}

/// "Reached": this many 1 ms bins in a row at 95 % or more.
const REACH_BINS: usize = 10;
/// "Stayed": of the bins after that, at least this share of these many at 95 % or more
/// (other tasks and interrupts take a bin now and then; the ramp does not come back).
const STAY_BINS: usize = 50;
const STAY_SHARE: f64 = 0.9;

/// The first bin from which the run reached 95 % (REACH_BINS in a row) and stayed there
/// (STAY_SHARE of the next STAY_BINS); `None` if that never happens.
fn reached_and_stayed(low: &[bool]) -> Option<usize> {
    let stays = |from: usize| {
        let window = low.get(from..(from + STAY_BINS).min(low.len()))?;
        let high = window.iter().filter(|&&is_low| !is_low).count();
        (high as f64 >= STAY_SHARE * window.len() as f64).then_some(())
    };
    (0..low.len().saturating_sub(REACH_BINS)).find(|&start| {
        low[start..start + REACH_BINS].iter().all(|&is_low| !is_low)
            && stays(start + REACH_BINS).is_some()
    })
}

/// Analyses a run; `None` when it holds too few samples to say anything.
pub fn analyse(samples: &[Sample]) -> Option<Analysis> {
    if samples.len() < 10 {
        return None;
    }
    let end = samples.last()?.ns;
    // Steady: the median rate of the late part's bins. Bins, not single samples, so that
    // the interrupts every run suffers count, and a median, so that a preemption does not.
    let late_start = (end as f64 * (1.0 - STEADY_PART)) as u64;
    let first_bin = late_start.div_ceil(STEADY_BIN_NS);
    let mut rates: Vec<f64> = (first_bin..end / STEADY_BIN_NS)
        .filter_map(|bin| {
            let from = ops_at(samples, bin * STEADY_BIN_NS)?;
            let to = ops_at(samples, (bin + 1) * STEADY_BIN_NS)?;
            Some((to - from) / STEADY_BIN_NS as f64)
        })
        .collect();
    let steady_per_ns = median(&mut rates)?;
    if steady_per_ns <= 0.0 {
        return None;
    }
    let mut periods: Vec<f64> = samples
        .windows(2)
        .map(|pair| (pair[1].ns - pair[0].ns) as f64 / 1000.0)
        .collect();
    let sample_period_us = median(&mut periods)?;

    let windows_pct = WINDOWS_MS.map(|window| {
        let ns = window * 1_000_000;
        let ops = ops_at(samples, ns)?;
        Some(100.0 * ops / ns as f64 / steady_per_ns)
    });

    // Throughput per 1 ms bin, as a share of steady; then the end of the last stretch below
    // 95 % that belongs to the ramp.
    let bins = (end / BIN_NS) as usize;
    let per_bin: Vec<f64> = (0..bins)
        .map(|bin| {
            let from = ops_at(samples, bin as u64 * BIN_NS).unwrap_or(0.0);
            let to = ops_at(samples, (bin as u64 + 1) * BIN_NS).unwrap_or(from);
            (to - from) / BIN_NS as f64 / steady_per_ns
        })
        .collect();
    // A bin below 95 % between two that are not is an interrupt or a short preemption, not
    // the ramp: it counts as reached.
    let below: Vec<bool> = per_bin.iter().map(|&share| share < 0.95).collect();
    let low: Vec<bool> = (0..below.len())
        .map(|bin| {
            let isolated = bin > 0 && !below[bin - 1] && below.get(bin + 1) == Some(&false);
            below[bin] && !isolated
        })
        .collect();
    let t95_ms = reached_and_stayed(&low).map(|bin| bin as f64 * T95_RESOLUTION_MS);
    Some(Analysis {
        windows_pct,
        t95_ms,
        steady_ops_per_s: steady_per_ns * 1e9,
        sample_period_us,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A synthetic run: `rate(t_ms)` operations per ns, sampled every `period_ns`.
    pub(crate) fn synthetic(
        duration_ms: u64,
        period_ns: u64,
        rate: impl Fn(f64) -> f64,
    ) -> Vec<Sample> {
        let mut samples = Vec::new();
        let mut ops = 0.0;
        let mut ns = 0;
        while ns < duration_ms * 1_000_000 {
            ops += rate(ns as f64 / 1e6) * period_ns as f64;
            ns += period_ns;
            samples.push(Sample {
                ns,
                ops: ops as u64,
            });
        }
        samples
    }

    #[test]
    fn a_flat_run_is_100_percent_from_the_start() {
        let analysis = analyse(&synthetic(1200, 10_000, |_| 2.0)).unwrap();
        for pct in analysis.windows_pct {
            assert!((pct.unwrap() - 100.0).abs() < 0.1);
        }
        assert_eq!(analysis.t95_ms, Some(0.0));
        assert!((analysis.steady_ops_per_s - 2e9).abs() < 1e6);
        assert!((analysis.sample_period_us - 10.0).abs() < 0.01);
    }

    #[test]
    fn half_speed_for_40_ms_then_full() {
        let analysis = analyse(&synthetic(
            1200,
            10_000,
            |t| if t < 40.0 { 0.5 } else { 1.0 },
        ))
        .unwrap();
        let pct = analysis.windows_pct.map(Option::unwrap);
        assert!((pct[2] - 50.0).abs() < 0.5, "0-20 ms: {}", pct[2]);
        assert!(
            (pct[3] - 60.0).abs() < 0.5,
            "0-50 ms: 40 at half, 10 at full"
        );
        assert_eq!(analysis.t95_ms, Some(40.0));
    }

    #[test]
    fn an_exponential_ramp_matches_its_formula() {
        // start 20 %, time constant 3 ms: 95 % at 3·ln(0.8/0.05) = 8.3 ms.
        let ramp = |t: f64| 1.0 - 0.8 * (-t / 3.0).exp();
        let analysis = analyse(&synthetic(1200, 5_000, ramp)).unwrap();
        let expected_5 = 100.0 * (1.0 - 0.8 * 3.0 / 5.0 * (1.0 - (-5.0f64 / 3.0).exp()));
        assert!((analysis.windows_pct[0].unwrap() - expected_5).abs() < 0.5);
        let t95 = analysis.t95_ms.unwrap();
        assert!((4.0..=9.0).contains(&t95), "{t95}");
    }

    #[test]
    fn late_preemptions_do_not_move_the_steady_state_or_t95() {
        // A 2 ms stall at 700 ms (another task ran): the median ignores it, and one dip
        // shorter than the stay window does not count as never having ramped.
        let analysis = analyse(&synthetic(1200, 10_000, |t| {
            if (700.0..701.0).contains(&t) {
                0.0
            } else {
                1.0
            }
        }))
        .unwrap();
        assert!((analysis.steady_ops_per_s - 1e9).abs() < 1e6);
        assert_eq!(analysis.t95_ms, Some(0.0));
    }

    #[test]
    fn too_short_or_empty_runs_say_nothing() {
        assert!(analyse(&[]).is_none());
        let short = analyse(&synthetic(30, 10_000, |_| 1.0)).unwrap();
        assert!(
            short.windows_pct[4].is_none(),
            "no 0-100 ms window in a 30 ms run"
        );
    }
}
