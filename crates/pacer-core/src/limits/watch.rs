// SPDX-License-Identifier: GPL-3.0-or-later
//! Keeping the chain's readings of the last seconds, and since when each core type has been
//! held by its limiter. The window and the tray each keep one watch and refresh it at their
//! own pace; `pacerctl` takes two readings a moment apart.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

use crate::machine::Snapshot;
use crate::sysfs::{Problem, SysRoot};
use crate::values::CoreType;

use super::reader::{LimitReader, LimitReading};
use super::verdict::{core_limits, Evidence};
use super::{CoreLimits, Limiter};

/// How far back delivered frequency, throttle counters and energy are taken: long enough to
/// smooth a burst, short enough that "now" still means now.
pub const WINDOW: Duration = Duration::from_secs(5);

/// The most readings kept, whatever the pace: a caller refreshing many times a second
/// keeps the verdict's cost bounded.
const MOST_READINGS: usize = 32;

/// The readings of the last [`WINDOW`] and what the verdicts were.
#[derive(Debug)]
pub struct LimitWatch {
    reader: LimitReader,
    readings: VecDeque<LimitReading>,
    /// Each core type's limiter, and when the watch saw it begin (`None`: it held already
    /// at the first reading, so since when is not known).
    held: Vec<(Option<CoreType>, Limiter, Option<SystemTime>)>,
}

impl LimitWatch {
    /// Finds the chain's files of the machine `snapshot` describes; reads nothing moving yet.
    pub fn new(root: &SysRoot, snapshot: &Snapshot) -> LimitWatch {
        LimitWatch {
            reader: LimitReader::new(root, snapshot),
            readings: VecDeque::new(),
            held: Vec::new(),
        }
    }

    /// Takes a reading, and forgets those older than the window (keeping the one just
    /// before it, so that a slow refresh still spans two readings).
    pub fn refresh(&mut self, root: &SysRoot) {
        let reading = self.reader.read(root);
        while self.readings.len() >= MOST_READINGS
            || self.readings.len() > 1
                && self
                    .readings
                    .get(1)
                    .is_some_and(|next| reading.at.duration_since(next.at) >= WINDOW)
        {
            self.readings.pop_front();
        }
        self.readings.push_back(reading);
    }

    /// The chain of each core type over the readings kept.
    pub fn limits(&mut self, snapshot: &Snapshot) -> Vec<CoreLimits> {
        let readings = self.readings.make_contiguous();
        let mut limits = core_limits(&Evidence {
            reader: &self.reader,
            snapshot,
            readings,
        });
        let first_verdict = self.held.is_empty();
        let now = readings.last().map(|reading| reading.wall);
        let mut held = Vec::with_capacity(limits.len());
        for core in &mut limits {
            let before = self
                .held
                .iter()
                .find(|(core_type, _, _)| *core_type == core.core_type);
            let since = match before {
                Some((_, limiter, since)) if *limiter == core.limiter => *since,
                _ if first_verdict => None,
                _ => now,
            };
            if core.limiter != Limiter::None {
                core.since = since;
            }
            held.push((core.core_type, core.limiter, since));
        }
        self.held = held;
        limits
    }

    /// What could not be read, when the files were found and at the latest reading.
    pub fn problems(&self) -> Vec<Problem> {
        let latest = self
            .readings
            .back()
            .map(|reading| reading.problems.as_slice());
        let mut problems = self.reader.problems.clone();
        problems.extend_from_slice(latest.unwrap_or_default());
        problems
    }
}
