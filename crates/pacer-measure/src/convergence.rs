// SPDX-License-Identifier: GPL-3.0-or-later
//! The time to 95 % in honest units: below the step a run resolves it in, it reads "< 1 ms"
//! (a model's "< 0.1 ms"), never "0 ms". JSON and CSV keep the number; the report gives the
//! step (`t95_resolution_ms`, `docs/measurement.md` 3).

use pacer_core::i18n::{fill, gettext};
use pacer_dbus::measurement::report::RampRun;

use crate::model::MODEL_T95_RESOLUTION_MS;
use crate::trace::T95_RESOLUTION_MS;

/// How soon a run reached 95 % of its steady throughput and stayed there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Convergence {
    /// Within the first step of `resolution_ms`: as soon as the run can tell.
    Below { resolution_ms: f64 },
    /// After this many ms (the mean over trials).
    At(f64),
    /// It never stayed at 95 % (or the run has no figure).
    Never,
}

/// The step `run`'s time to 95 % is found in (ms): as the report records it; in a report
/// from before it was recorded, a measurement's bin or a model's tenth.
pub fn resolution_ms(run: &RampRun) -> f64 {
    run.t95_resolution_ms
        .unwrap_or(if run.sample_period_us.is_some() {
            T95_RESOLUTION_MS
        } else {
            MODEL_T95_RESOLUTION_MS
        })
}

/// A resolution as it is written: `1`, `0.1`.
fn step(resolution_ms: f64) -> String {
    // f64's Display writes the shortest form that reads back: 1, 0.1, 0.25.
    resolution_ms.to_string()
}

impl Convergence {
    pub fn of(run: &RampRun) -> Convergence {
        let resolution_ms = resolution_ms(run);
        match run.t95_ms {
            Some(t95) if t95.mean < resolution_ms => Convergence::Below { resolution_ms },
            Some(t95) => Convergence::At(t95.mean),
            None => Convergence::Never,
        }
    }

    /// The time to rank runs by: those below the resolution come first and tie, as nothing
    /// tells them apart. `None` when it never converged.
    pub fn rank_ms(self) -> Option<f64> {
        match self {
            Convergence::Below { .. } => Some(0.0),
            Convergence::At(ms) => Some(ms),
            Convergence::Never => None,
        }
    }

    /// The time in words: `< 1 ms`, `< 0.1 ms`, `5.0 ms` (a decimal under 10 ms), `50 ms`;
    /// `None` when it never converged. Its spaces do not break: a sentence that wraps keeps
    /// `< 0.1 ms` on one line.
    pub fn words(self) -> Option<String> {
        let time = match self {
            Convergence::Below { resolution_ms } => {
                fill(gettext("< {n} ms"), &[("n", &step(resolution_ms))])
            }
            Convergence::At(ms) => {
                let digits = if ms < 10.0 { 1 } else { 0 };
                fill(gettext("{n} ms"), &[("n", &format!("{ms:.digits$}"))])
            }
            Convergence::Never => return None,
        };
        Some(time.replace(' ', "\u{a0}"))
    }

    /// A table's cell (ms, without the unit): `< 1` below the resolution, `None` otherwise
    /// (the figure as any other).
    pub fn below_cell(self) -> Option<String> {
        match self {
            Convergence::Below { resolution_ms } => {
                Some(fill(gettext("< {n}"), &[("n", &step(resolution_ms))]))
            }
            Convergence::At(_) | Convergence::Never => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacer_dbus::measurement::statistic::Statistic;

    /// The words with plain spaces.
    fn words(convergence: Convergence) -> String {
        convergence.words().unwrap().replace('\u{a0}', " ")
    }

    fn run(t95: Option<f64>, recorded: Option<f64>, sampled: bool) -> RampRun {
        RampRun {
            t95_ms: t95.map(Statistic::exact),
            t95_resolution_ms: recorded,
            sample_period_us: sampled.then_some(15.0),
            ..RampRun::default()
        }
    }

    #[test]
    fn below_the_resolution_is_said_as_less_than_it_never_zero() {
        let measured = Convergence::of(&run(Some(0.0), Some(1.0), true));
        assert_eq!(measured, Convergence::Below { resolution_ms: 1.0 });
        assert_eq!(measured.words().unwrap(), "<\u{a0}1\u{a0}ms", "on one line");
        assert_eq!(measured.below_cell().unwrap(), "< 1");
        let model = Convergence::of(&run(Some(0.0), Some(0.1), false));
        assert_eq!(words(model), "< 0.1 ms");
        // A mean over trials under one bin (0, 0, 1: 0.33) is below it too.
        let mean = Convergence::of(&run(Some(1.0 / 3.0), Some(1.0), true));
        assert_eq!(words(mean), "< 1 ms");
    }

    #[test]
    fn at_or_above_the_resolution_is_the_time() {
        let at = Convergence::of(&run(Some(1.0), Some(1.0), true));
        assert_eq!(at, Convergence::At(1.0));
        assert_eq!(words(at), "1.0 ms");
        assert_eq!(at.below_cell(), None);
        assert_eq!(
            words(Convergence::of(&run(Some(52.4), None, true))),
            "52 ms"
        );
        let never = Convergence::of(&run(None, Some(1.0), true));
        assert_eq!((never.words(), never.rank_ms()), (None, None));
    }

    #[test]
    fn an_older_report_has_the_resolution_of_its_kind() {
        assert_eq!(
            resolution_ms(&run(Some(0.0), None, true)),
            T95_RESOLUTION_MS
        );
        assert_eq!(
            resolution_ms(&run(Some(0.0), None, false)),
            MODEL_T95_RESOLUTION_MS
        );
        // Runs below the resolution tie, ahead of the rest.
        let below = Convergence::Below { resolution_ms: 1.0 };
        assert_eq!(below.rank_ms(), Some(0.0));
        assert!(below.rank_ms() < Convergence::At(1.0).rank_ms());
    }
}
