// SPDX-License-Identifier: GPL-3.0-or-later
//! A measurement's progress on the bus: `MeasureProgress`'s arguments, from the helper's
//! [`Progress`] and back.

use std::time::Duration;

use pacer_measure::progress::{Progress, Stage};

use crate::MeasureProgressArgs;

/// The signal's arguments: cpu, trial, trials, stage, ms left, curve, frequency.
pub type ProgressArgs = (u32, u32, u32, u8, u32, Vec<(f64, f64)>, Vec<(f64, f64)>);

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
