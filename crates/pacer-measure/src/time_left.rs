// SPDX-License-Identifier: GPL-3.0-or-later
//! The time a long measurement has left, which its progress reports
//! (`pacer_dbus::measurement::progress`) carry as it goes.

use std::time::{Duration, Instant};

/// Estimates a measurement's time left from the trials done so far, or from the options
/// before the first.
#[derive(Debug)]
pub(crate) struct TimeLeft {
    began: Instant,
    trials: usize,
    done: usize,
    per_trial: Duration,
}

/// What a trial takes besides its run and idle wait: the plain loop after it, the analysis.
pub(crate) const TRIAL_OVERHEAD: Duration = Duration::from_millis(250);

impl TimeLeft {
    /// `trials` to come, each taking about `per_trial`.
    pub(crate) fn new(trials: usize, per_trial: Duration) -> TimeLeft {
        TimeLeft {
            began: Instant::now(),
            trials,
            done: 0,
            per_trial,
        }
    }

    pub(crate) fn trial_done(&mut self) {
        self.done += 1;
        self.per_trial = self.began.elapsed() / self.done as u32;
    }

    /// The time left, `into_trial` into the trial running now.
    pub(crate) fn left(&self, into_trial: Duration) -> Duration {
        let after_this = self.trials.saturating_sub(self.done + 1) as u32;
        self.per_trial.saturating_sub(into_trial) + self.per_trial * after_this
    }
}
