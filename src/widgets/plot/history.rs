// SPDX-License-Identifier: GPL-3.0-or-later
//! The recent frequency of each CPU: a fixed-size ring buffer that the live plot draws from.
//!
//! The window samples at 10 Hz for as long as it is open, so the buffer allocates everything
//! at construction and a push only overwrites the oldest slot. Besides each CPU's samples it
//! keeps, per core type, the lowest, median and highest CPU of every sample: the band and
//! line the plot shows by default, legible at 2 CPUs or 256.
//!
//! Longer than most files: the ring buffer, its per-type series and their unit tests.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use pacer_core::values::CoreType;

/// A CPU whose frequency the history follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TracedCpu {
    pub id: u32,
    /// `None` where all cores are alike.
    pub core_type: Option<CoreType>,
}

/// The latest frequencies of the CPUs of one core type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeSummary {
    pub core_type: Option<CoreType>,
    pub median_khz: u32,
    pub max_khz: u32,
    /// How many CPUs of this type reported a frequency in the latest sample.
    pub cpus: usize,
}

/// The rows of one core type's series (see [`FrequencyHistory::band`]): at each sample, the
/// lowest, the median and the highest frequency among its CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BandSeries {
    pub low: usize,
    pub median: usize,
    pub high: usize,
}

/// The core types in the order they are listed: fastest first, untyped cores last.
pub const TYPES_IN_ORDER: [Option<CoreType>; 4] = [
    Some(CoreType::Performance),
    Some(CoreType::Efficiency),
    Some(CoreType::LowPower),
    None,
];

/// Per-CPU frequency samples over a fixed number of sampling instants.
#[derive(Debug)]
pub struct FrequencyHistory {
    /// Which run of samples this is: new for every history and after every `clear`, so that
    /// what was drawn from an earlier run is never taken for part of this one.
    generation: u64,
    cpus: Vec<TracedCpu>,
    /// The core types present, in [`TYPES_IN_ORDER`], with the indices of their CPUs.
    types: Vec<(Option<CoreType>, Vec<usize>)>,
    capacity: usize,
    /// Time of each slot since sampling began; `len` of them are valid, the oldest at `start`.
    times: Vec<Duration>,
    /// `khz[row * capacity + slot]`: one series' samples lie together, as the plot reads
    /// them. The rows are the CPUs, then three per core type (see [`BandSeries`]).
    khz: Vec<Option<u32>>,
    /// Room for one sample of the largest core type, sorted when it is pushed.
    scratch: Vec<u32>,
    start: usize,
    len: usize,
}

impl FrequencyHistory {
    /// An empty history for `cpus`, keeping the latest `capacity` samples (at least one).
    pub fn new(cpus: Vec<TracedCpu>, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let types: Vec<(Option<CoreType>, Vec<usize>)> = TYPES_IN_ORDER
            .into_iter()
            .map(|core_type| {
                let members = (0..cpus.len())
                    .filter(|&index| cpus[index].core_type == core_type)
                    .collect::<Vec<_>>();
                (core_type, members)
            })
            .filter(|(_, members)| !members.is_empty())
            .collect();
        let rows = cpus.len() + 3 * types.len();
        let largest = types.iter().map(|(_, members)| members.len()).max();
        FrequencyHistory {
            generation: next_generation(),
            times: vec![Duration::ZERO; capacity],
            khz: vec![None; capacity * rows],
            scratch: Vec::with_capacity(largest.unwrap_or(0)),
            types,
            cpus,
            capacity,
            start: 0,
            len: 0,
        }
    }

    pub fn cpus(&self) -> &[TracedCpu] {
        &self.cpus
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Records one sampling instant. `khz` follows the order of [`Self::cpus`]; values beyond
    /// the last CPU are ignored and CPUs beyond the end of `khz` count as unknown, so that a
    /// sampler that briefly disagrees about the CPU list cannot break the plot.
    pub fn push(&mut self, at: Duration, khz: &[Option<u32>]) {
        let slot = if self.len < self.capacity {
            self.len += 1;
            (self.start + self.len - 1) % self.capacity
        } else {
            let oldest = self.start;
            self.start = (self.start + 1) % self.capacity;
            oldest
        };
        self.times[slot] = at;
        for cpu in 0..self.cpus.len() {
            self.khz[cpu * self.capacity + slot] = khz.get(cpu).copied().flatten();
        }
        for (place, (_, members)) in self.types.iter().enumerate() {
            self.scratch.clear();
            self.scratch.extend(
                members
                    .iter()
                    .filter_map(|&cpu| self.khz[cpu * self.capacity + slot]),
            );
            self.scratch.sort_unstable();
            let band = band_rows(self.cpus.len(), place);
            let values = [
                (band.low, self.scratch.first().copied()),
                (band.median, median(&self.scratch)),
                (band.high, self.scratch.last().copied()),
            ];
            for (row, value) in values {
                self.khz[row * self.capacity + slot] = value;
            }
        }
    }

    /// The core types present, fastest first.
    pub fn core_types(&self) -> impl Iterator<Item = Option<CoreType>> + '_ {
        self.types.iter().map(|(core_type, _)| *core_type)
    }

    /// The series of `core_type`'s band, to read with [`Self::samples_from`]; `None` where no
    /// CPU is of that type.
    pub fn band(&self, core_type: Option<CoreType>) -> Option<BandSeries> {
        self.types
            .iter()
            .position(|(t, _)| *t == core_type)
            .map(|place| band_rows(self.cpus.len(), place))
    }

    /// Forgets every sample, keeping the CPUs and the storage.
    pub fn clear(&mut self) {
        self.generation = next_generation();
        self.start = 0;
        self.len = 0;
    }

    /// Which run of samples this is: two histories, or one before and after [`Self::clear`],
    /// never share one.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// When the latest sample was taken.
    pub fn latest_time(&self) -> Option<Duration> {
        self.len
            .checked_sub(1)
            .map(|last| self.times[(self.start + last) % self.capacity])
    }

    /// The samples of the CPU at `index` in [`Self::cpus`] (or of a band's series, see
    /// [`Self::band`]), oldest first; empty for an index out of range.
    pub fn samples(&self, index: usize) -> impl Iterator<Item = (Duration, Option<u32>)> + '_ {
        self.samples_from(index, 0)
    }

    /// Like [`Self::samples`], without the `first` oldest.
    pub fn samples_from(
        &self,
        index: usize,
        first: usize,
    ) -> impl Iterator<Item = (Duration, Option<u32>)> + '_ {
        let khz = if (index + 1) * self.capacity <= self.khz.len() {
            &self.khz[index * self.capacity..(index + 1) * self.capacity]
        } else {
            &[]
        };
        let (older, newer) = self.ring_order(&self.times);
        let (older_khz, newer_khz) = if khz.is_empty() {
            (&[][..], &[][..])
        } else {
            self.ring_order(khz)
        };
        // Where `first` falls in each part of the ring.
        let (skip_older, skip_newer) = (
            first.min(older.len()),
            first.saturating_sub(older.len()).min(newer.len()),
        );
        let older_khz = older_khz.get(skip_older..).unwrap_or_default();
        let newer_khz = newer_khz.get(skip_newer..).unwrap_or_default();
        older[skip_older..]
            .iter()
            .chain(&newer[skip_newer..])
            .copied()
            .zip(older_khz.iter().chain(newer_khz).copied())
    }

    /// How many samples, oldest first, were taken at times for which `before` holds. Times
    /// only grow within a history, so those come first.
    pub fn count_before(&self, before: impl Fn(Duration) -> bool) -> usize {
        let (older, newer) = self.ring_order(&self.times);
        match older.partition_point(|&at| before(at)) {
            all if all == older.len() => all + newer.partition_point(|&at| before(at)),
            some => some,
        }
    }

    /// The value of `row` (a CPU's index, or a band's series) in the sample `n`th from the
    /// oldest.
    pub fn value(&self, row: usize, n: usize) -> Option<u32> {
        if n >= self.len {
            return None;
        }
        let slot = (self.start + n) % self.capacity;
        self.khz.get(row * self.capacity + slot).copied().flatten()
    }

    /// When the sample `n`th from the oldest was taken.
    pub fn time(&self, n: usize) -> Option<Duration> {
        (n < self.len).then(|| self.times[(self.start + n) % self.capacity])
    }

    /// The valid part of one ring, split where it wraps: oldest part first.
    fn ring_order<'a, T>(&self, ring: &'a [T]) -> (&'a [T], &'a [T]) {
        let end = self.start + self.len;
        if end <= self.capacity {
            (&ring[self.start..end], &[])
        } else {
            (&ring[self.start..], &ring[..end - self.capacity])
        }
    }

    /// The highest frequency anywhere in the history.
    pub fn max_khz(&self) -> Option<u32> {
        (0..self.cpus.len())
            .flat_map(|cpu| self.samples(cpu).filter_map(|(_, khz)| khz))
            .max()
    }

    /// The median and highest frequency of each core type in the latest sample, fastest type
    /// first. A type none of whose CPUs reported a frequency is left out.
    pub fn summary(&self) -> Vec<TypeSummary> {
        let Some(last) = self.len.checked_sub(1) else {
            return Vec::new();
        };
        let slot = (self.start + last) % self.capacity;
        let mut values = Vec::with_capacity(self.cpus.len());
        TYPES_IN_ORDER
            .iter()
            .filter_map(|&core_type| {
                values.clear();
                values.extend(
                    self.cpus
                        .iter()
                        .enumerate()
                        .filter(|(_, cpu)| cpu.core_type == core_type)
                        .filter_map(|(index, _)| self.khz[index * self.capacity + slot]),
                );
                values.sort_unstable();
                let median_khz = median(&values)?;
                Some(TypeSummary {
                    core_type,
                    median_khz,
                    max_khz: values[values.len() - 1],
                    cpus: values.len(),
                })
            })
            .collect()
    }
}

/// The rows of the band of the core type at `place` among those present.
fn band_rows(cpus: usize, place: usize) -> BandSeries {
    let low = cpus + 3 * place;
    BandSeries {
        low,
        median: low + 1,
        high: low + 2,
    }
}

/// The median of sorted values: the mean of the two middle ones where their number is even.
fn median(sorted: &[u32]) -> Option<u32> {
    let middle = sorted.len() / 2;
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => Some(sorted[middle]),
        // The mean of the two middle values, computed without overflow.
        _ => {
            let (low, high) = (sorted[middle - 1], sorted[middle]);
            Some(low + (high - low).div_ceil(2))
        }
    }
}

/// A generation no history had before.
fn next_generation() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

/// Histories for the plot's tests.
#[cfg(test)]
pub(super) mod testing {
    use std::time::Duration;

    use pacer_core::values::CoreType;

    use super::{FrequencyHistory, TracedCpu};

    /// Two P-cores and two E-cores, `samples` of them 100 ms apart, `khz(cpu, n)` each.
    pub fn hybrid_history(
        samples: u64,
        khz: impl Fn(usize, u64) -> Option<u32>,
    ) -> FrequencyHistory {
        let cpus = (0..4)
            .map(|id| TracedCpu {
                id,
                core_type: Some(if id < 2 {
                    CoreType::Performance
                } else {
                    CoreType::Efficiency
                }),
            })
            .collect();
        let mut history = FrequencyHistory::new(cpus, 600);
        for n in 0..samples {
            let values: Vec<_> = (0..4).map(|cpu| khz(cpu, n)).collect();
            history.push(Duration::from_millis(n * 100), &values);
        }
        history
    }
}
