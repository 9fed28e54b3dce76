// SPDX-License-Identifier: GPL-3.0-or-later
//! When the measuring thread was not running, found in its own samples: an interval between
//! two samples far longer than its chunk of work takes at the rate around it means the thread
//! was taken off the CPU (another task ran, or an interrupt took long). Taking those gaps out
//! gives the run on the core's own time, the clock a ramp belongs to.

use crate::trace::Sample;

/// An interval counts as a gap when it is longer than its work takes by this much…
const GAP_MIN_NS: u64 = 20_000;
/// …and by at least this factor (a chunk that merely ran a little slow is not a gap).
const GAP_FACTOR: f64 = 2.0;
/// How many intervals on each side set the rate an interval is judged by.
const NEIGHBOURS: usize = 3;

/// A stretch the thread did not run: where it began (ns since the start, wall clock) and
/// how long it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    pub at_ns: u64,
    pub ns: u64,
}

/// The gaps in a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gaps(pub Vec<Gap>);

impl Gaps {
    /// Finds the gaps in `samples`. An interval's work is judged at the fastest rate of the
    /// intervals around it (a neighbouring gap only lowers a rate, and a ramp changes it
    /// little from one interval to the next); what the interval took beyond that is a gap.
    pub fn find(samples: &[Sample]) -> Gaps {
        let intervals: Vec<(u64, u64, u64)> = std::iter::once(Sample { ns: 0, ops: 0 })
            .chain(samples.iter().copied())
            .zip(samples.iter())
            .map(|(before, after)| {
                (
                    before.ns,
                    after.ns.saturating_sub(before.ns),
                    after.ops.saturating_sub(before.ops),
                )
            })
            .collect();
        let rate = |&(_, ns, ops): &(u64, u64, u64)| ops as f64 / ns.max(1) as f64;
        let mut gaps = Vec::new();
        for (index, interval) in intervals.iter().enumerate() {
            let (start, ns, ops) = *interval;
            let from = index.saturating_sub(NEIGHBOURS);
            let to = (index + NEIGHBOURS + 1).min(intervals.len());
            let local = intervals[from..to]
                .iter()
                .enumerate()
                .filter(|(at, _)| from + at != index)
                .map(|(_, other)| rate(other))
                .fold(0.0, f64::max);
            if local <= 0.0 {
                continue;
            }
            let expected = (ops as f64 / local) as u64;
            let extra = ns.saturating_sub(expected);
            if extra >= GAP_MIN_NS && ns as f64 >= GAP_FACTOR * expected as f64 {
                gaps.push(Gap {
                    at_ns: start,
                    ns: extra,
                });
            }
        }
        Gaps(gaps)
    }

    /// All the time off the CPU (ns).
    pub fn total_ns(&self) -> u64 {
        self.0.iter().map(|gap| gap.ns).sum()
    }

    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// The run on the thread's own time: each sample moved earlier by the gaps before it.
    pub fn on_cpu(&self, samples: &[Sample]) -> Vec<Sample> {
        let mut gaps = self.0.iter().peekable();
        let mut removed = 0;
        samples
            .iter()
            .map(|sample| {
                while let Some(gap) = gaps.next_if(|gap| gap.at_ns < sample.ns) {
                    removed += gap.ns;
                }
                Sample {
                    ns: sample.ns.saturating_sub(removed),
                    ops: sample.ops,
                }
            })
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::trace::{analyse, tests::synthetic};

    /// `samples` with the thread taken off the CPU for `ms` at `at_ms` (wall clock): every
    /// later sample comes that much later, with the same work done.
    pub(crate) fn with_gaps(mut samples: Vec<Sample>, gaps: &[(f64, f64)]) -> Vec<Sample> {
        for &(at_ms, ms) in gaps {
            let at = (at_ms * 1e6) as u64;
            let shift = (ms * 1e6) as u64;
            for sample in samples.iter_mut().filter(|s| s.ns > at) {
                sample.ns += shift;
            }
        }
        samples
    }

    const GAPS: [(f64, f64); 6] = [
        (0.5, 1.0),
        (3.0, 5.0),
        (30.0, 40.0),
        (150.0, 1.0),
        (600.0, 5.0),
        (900.0, 40.0),
    ];

    #[test]
    fn a_flat_run_with_gaps_is_flat_on_cpu_time_and_the_gaps_are_found() {
        let wall = with_gaps(synthetic(1300, 15_000, |_| 1.0), &GAPS);
        let gaps = Gaps::find(&wall);
        assert_eq!(gaps.count(), GAPS.len(), "{gaps:?}");
        let total: f64 = GAPS.iter().map(|g| g.1).sum();
        assert!(
            (gaps.total_ns() as f64 / 1e6 - total).abs() < 0.1,
            "{gaps:?}"
        );
        let on_cpu = analyse(&gaps.on_cpu(&wall)).unwrap();
        for pct in on_cpu.windows_pct {
            assert!((pct.unwrap() - 100.0).abs() < 1.0, "{on_cpu:?}");
        }
        assert_eq!(on_cpu.t95_ms, Some(0.0));
        // On the wall clock the same run looks like a slow ramp.
        let wall = analyse(&wall).unwrap();
        assert!(wall.windows_pct[1].unwrap() < 60.0, "{wall:?}");
        assert!(wall.t95_ms.unwrap() > 40.0, "{wall:?}");
    }

    #[test]
    fn a_real_40_ms_ramp_with_gaps_on_top_stays_a_40_ms_ramp() {
        let ramp = synthetic(1300, 15_000, |t| if t < 40.0 { 0.5 } else { 1.0 });
        let wall = with_gaps(ramp, &GAPS);
        let gaps = Gaps::find(&wall);
        assert_eq!(gaps.count(), GAPS.len(), "{gaps:?}");
        let on_cpu = analyse(&gaps.on_cpu(&wall)).unwrap();
        let t95 = on_cpu.t95_ms.unwrap();
        assert!((38.0..=42.0).contains(&t95), "{t95}");
        assert!((on_cpu.windows_pct[2].unwrap() - 50.0).abs() < 1.0);
    }

    #[test]
    fn a_smooth_ramp_has_no_gaps() {
        let ramp = |t: f64| 1.0 - 0.8 * (-t / 3.0).exp();
        assert_eq!(Gaps::find(&synthetic(1300, 15_000, ramp)), Gaps::default());
        // Nor does a chunk that ran a little slow (an interrupt of a few µs).
        let mut samples = synthetic(100, 15_000, |_| 1.0);
        for sample in samples.iter_mut().skip(50) {
            sample.ns += 8_000;
        }
        assert_eq!(Gaps::find(&samples), Gaps::default());
        assert_eq!(Gaps::find(&[]), Gaps::default());
    }
}
