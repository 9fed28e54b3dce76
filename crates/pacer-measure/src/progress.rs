// SPDX-License-Identifier: GPL-3.0-or-later
//! What a long measurement reports as it goes: each trial's stage, its curve so far and the
//! CPU's frequency, and the time left.

use std::time::{Duration, Instant};

use crate::live::Points;

/// What a long measurement reports as it goes: when each trial waits for its CPU to go
/// idle, its curve while it runs (a few times a second), and the whole curve when it is done.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub cpu: u32,
    pub trial: usize,
    pub trials: usize,
    pub stage: Stage,
    /// The trial's curve, (ms since the work began, throughput since then in % of steady):
    /// so far while it runs (against the fastest rate yet until an earlier trial on the CPU
    /// gave a steady rate), whole when it is done, empty while it waits.
    pub curve: Points,
    /// The CPU's frequency during the trial, (ms, MHz), where the kernel reports it.
    pub mhz: Points,
    /// The time the whole measurement has left, estimated.
    pub left: Duration,
}

/// Where a trial is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Waiting for the CPU to go idle (again, when the trial is repeated).
    Waiting,
    Running,
    Done,
}

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
