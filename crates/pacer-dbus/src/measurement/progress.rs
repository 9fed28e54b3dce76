// SPDX-License-Identifier: GPL-3.0-or-later
//! What a long measurement reports as it goes (each trial's stage, its curve so far and the
//! CPU's frequency, and the time left), and the same on the bus: `MeasureProgress`'s
//! arguments, from a [`Progress`] and back.

use std::time::Duration;

use crate::MeasureProgressArgs;

/// Points of a line over a trial: (ms since the work began, value).
pub type Points = Vec<(f64, f64)>;

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

/// The signal's arguments: cpu, trial, trials, stage, ms left, curve, frequency.
pub type ProgressArgs = (u32, u32, u32, u8, u32, Points, Points);

/// Stages as the signal carries them (documented in the interface XML).
const STAGES: [Stage; 3] = [Stage::Waiting, Stage::Running, Stage::Done];

pub fn to_args(progress: &Progress) -> ProgressArgs {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let stage = STAGES
        .iter()
        .position(|&stage| stage == progress.stage)
        .unwrap_or(0);
    (
        progress.cpu,
        count(progress.trial),
        count(progress.trials),
        stage as u8,
        u32::try_from(progress.left.as_millis()).unwrap_or(u32::MAX),
        progress.curve.clone(),
        progress.mhz.clone(),
    )
}

/// The progress a signal reports; `None` when its stage is not one this client knows.
pub fn from_args(args: &MeasureProgressArgs<'_>) -> Option<Progress> {
    Some(Progress {
        cpu: args.cpu,
        trial: args.trial as usize,
        trials: args.trials as usize,
        stage: *STAGES.get(usize::from(args.stage))?,
        curve: args.curve.clone(),
        mhz: args.mhz.clone(),
        left: Duration::from_millis(u64::from(args.left_ms)),
    })
}
