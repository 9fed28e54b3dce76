// SPDX-License-Identifier: GPL-3.0-or-later
//! A ramp trial watched while it runs: the measuring thread writes its samples where a
//! watcher on another CPU can read them, and the watcher turns what is there into a curve
//! thinned to what a chart needs (points at even steps of a logarithmic time axis), with the
//! CPU's frequency as the kernel reports it, a few times a second.
//!
//! The measuring loop pays for this with two plain stores and a release store of the length
//! per sample (no system call, no allocation, no lock), and the watcher never runs on the
//! measured CPU.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use pacer_core::SysRoot;
use pacer_dbus::measurement::progress::Points;

use crate::trace::{ops_at, Sample};

/// Samples that one thread writes and others read as they come. Only the measuring thread
/// writes.
#[derive(Debug)]
pub struct SharedSamples {
    /// ns and operations of each sample.
    slots: Box<[[AtomicU64; 2]]>,
    len: AtomicUsize,
    /// When the run began; samples count from here.
    start: OnceLock<Instant>,
    ended: AtomicBool,
}

impl SharedSamples {
    /// Room for `capacity` samples, its memory touched now so that the run takes no page
    /// faults.
    pub fn with_capacity(capacity: usize) -> SharedSamples {
        SharedSamples {
            slots: (0..capacity)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
            len: AtomicUsize::new(0),
            start: OnceLock::new(),
            ended: AtomicBool::new(false),
        }
    }

    /// Marks the run begun at `start` (once: a buffer holds one run).
    pub fn begin(&self, start: Instant) {
        let _ = self.start.set(start);
    }

    /// Adds a sample; `false` when the buffer is full (the sample is dropped).
    #[inline]
    pub fn push(&self, sample: Sample) -> bool {
        let len = self.len.load(Ordering::Relaxed);
        let Some([ns, ops]) = self.slots.get(len) else {
            return false;
        };
        ns.store(sample.ns, Ordering::Relaxed);
        ops.store(sample.ops, Ordering::Relaxed);
        // Publishes the sample to readers that load the length with Acquire.
        self.len.store(len + 1, Ordering::Release);
        true
    }

    /// Marks the run over: watchers stop.
    pub fn end(&self) {
        self.ended.store(true, Ordering::Release);
    }

    pub fn has_ended(&self) -> bool {
        self.ended.load(Ordering::Acquire)
    }

    pub fn started(&self) -> Option<Instant> {
        self.start.get().copied()
    }

    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The samples written so far.
    pub fn to_vec(&self) -> Vec<Sample> {
        self.slots[..self.len()]
            .iter()
            .map(|[ns, ops]| Sample {
                ns: ns.load(Ordering::Relaxed),
                ops: ops.load(Ordering::Relaxed),
            })
            .collect()
    }
}

/// The chart's time axis ends here (ms).
pub const LAST_MS: f64 = 1000.0;
/// Points per decade of the time axis: enough for a smooth line at any width a chart has.
const POINTS_PER_DECADE: u32 = 12;
/// How often a watcher reports: at most eight times a second, so that with a trial's start
/// and end no more than ten reports come in any second.
pub const REPORT_EVERY: Duration = Duration::from_millis(125);
/// The watcher looks this often whether the run has begun or ended.
const LOOK_EVERY: Duration = Duration::from_millis(10);
/// Bins of the provisional steady rate, before a trial has its own.
const PROVISIONAL_BIN_NS: u64 = 5_000_000;

/// The times of a curve's points from 1 ms up to `until_ms` (at most [`LAST_MS`]).
pub fn curve_times(until_ms: f64) -> impl Iterator<Item = f64> {
    (0..)
        .map(|step| 10f64.powf(f64::from(step) / f64::from(POINTS_PER_DECADE)))
        .take_while(move |&ms| ms <= until_ms.min(LAST_MS) + 1e-9)
}

/// A run's curve: at each of [`curve_times`] as far as the samples reach, the throughput
/// since the work began in % of `steady_per_ns` (what the windows of a report measure).
pub fn curve(samples: &[Sample], steady_per_ns: f64) -> Points {
    let Some(last) = samples.last() else {
        return Vec::new();
    };
    if steady_per_ns <= 0.0 || !steady_per_ns.is_finite() {
        return Vec::new();
    }
    curve_times(last.ns as f64 / 1e6)
        .filter_map(|ms| {
            let ns = ms * 1e6;
            let ops = ops_at(samples, ns as u64)?;
            Some((ms, 100.0 * ops / ns / steady_per_ns))
        })
        .collect()
}

/// The fastest rate (operations per ns) of any 5 ms bin so far: the running trial's steady
/// rate until it has one of its own.
pub fn fastest_rate(samples: &[Sample]) -> Option<f64> {
    let end = samples.last()?.ns;
    (0..end / PROVISIONAL_BIN_NS)
        .filter_map(|bin| {
            let from = ops_at(samples, bin * PROVISIONAL_BIN_NS)?;
            let to = ops_at(samples, (bin + 1) * PROVISIONAL_BIN_NS)?;
            Some((to - from) / PROVISIONAL_BIN_NS as f64)
        })
        .reduce(f64::max)
}

/// What a watcher saw of one trial.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Watched {
    /// The CPU's frequency (ms since the work began, MHz) where the kernel reports it.
    pub mhz: Points,
}

/// Watches a run in `samples` until it ends: every [`REPORT_EVERY`] it sends the curve so far
/// and the frequency readings so far, against `steady_per_ns` when known (an earlier trial's)
/// and else against the fastest rate yet. Reads `policy`'s `scaling_cur_freq` at the curve's
/// times. Returns what it saw.
pub fn watch(
    root: &SysRoot,
    policy: Option<u32>,
    samples: &SharedSamples,
    steady_per_ns: Option<f64>,
    mut report: impl FnMut(Points, &[(f64, f64)]),
) -> Watched {
    let start = loop {
        if let Some(start) = samples.started() {
            break start;
        }
        if samples.has_ended() {
            return Watched::default();
        }
        std::thread::sleep(LOOK_EVERY);
    };
    let mut frequency = FrequencyReader::new(root, policy);
    let mut readings = curve_times(LAST_MS).peekable();
    let mut watched = Watched::default();
    let mut next_report = start + REPORT_EVERY;
    while !samples.has_ended() {
        let next_reading = readings
            .peek()
            .map(|&ms| start + Duration::from_secs_f64(ms / 1e3));
        let wake = next_reading.map_or(next_report, |at| at.min(next_report));
        sleep_until(wake.min(Instant::now() + LOOK_EVERY));
        let now = Instant::now();
        if next_reading.is_some_and(|at| at <= now) {
            readings.next();
            if let Some(mhz) = frequency.read() {
                watched
                    .mhz
                    .push((now.duration_since(start).as_secs_f64() * 1e3, mhz));
            }
        }
        if now >= next_report && !samples.has_ended() {
            next_report = now + REPORT_EVERY;
            let so_far = samples.to_vec();
            let steady = steady_per_ns.or_else(|| fastest_rate(&so_far));
            report(
                steady.map_or_else(Vec::new, |steady| curve(&so_far, steady)),
                &watched.mhz,
            );
        }
    }
    watched
}

fn sleep_until(when: Instant) {
    if let Some(wait) = when.checked_duration_since(Instant::now()) {
        std::thread::sleep(wait);
    }
}

/// Where the kernel says `policy`'s current frequency (kHz), relative to the root.
pub(crate) fn cur_freq_file(policy: u32) -> String {
    format!("sys/devices/system/cpu/cpufreq/policy{policy}/scaling_cur_freq")
}

/// Reads a policy's current frequency, and gives up for good once the kernel does not say.
struct FrequencyReader<'a> {
    root: &'a SysRoot,
    file: Option<String>,
}

impl<'a> FrequencyReader<'a> {
    fn new(root: &'a SysRoot, policy: Option<u32>) -> Self {
        FrequencyReader {
            root,
            file: policy.map(cur_freq_file),
        }
    }

    /// MHz, or `None` (and never again) when the file cannot be read as a number.
    fn read(&mut self) -> Option<f64> {
        let file = self.file.as_ref()?;
        let khz: Option<f64> = self
            .root
            .read_text(file)
            .ok()
            .and_then(|text| text.trim().parse().ok());
        if khz.is_none() {
            self.file = None;
        }
        Some(khz? / 1000.0)
    }
}

/// Lets the calling thread run anywhere but `cpu`, so that it never takes the measured CPU
/// from the measurement. Where `cpu` is the only CPU allowed, it stays (a watcher that waits
/// is better than none).
pub fn keep_off(cpu: u32) {
    let Ok(mut allowed) = rustix::thread::sched_getaffinity(None) else {
        return;
    };
    if allowed.count() > 1 {
        allowed.unset(cpu as usize);
        let _ = rustix::thread::sched_setaffinity(None, &allowed);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::trace::tests::synthetic;

    #[test]
    fn a_curve_has_twelve_points_a_decade_and_ends_with_the_samples() {
        let times: Vec<f64> = curve_times(1000.0).collect();
        assert_eq!(times.len(), 37);
        assert!((times[12] - 10.0).abs() < 1e-9 && (times[36] - 1000.0).abs() < 1e-6);
        // Half speed for 40 ms, then full: the throughput since the start at 20 ms is half,
        // at 80 ms three quarters; nothing past the run's 100 ms.
        let samples = synthetic(100, 10_000, |t| if t < 40.0 { 0.5 } else { 1.0 });
        let points = curve(&samples, 1.0);
        assert!(points.last().unwrap().0 <= 100.0);
        let at = |ms: f64| {
            points
                .iter()
                .find(|(t, _)| (t - ms).abs() / ms < 0.1)
                .unwrap()
                .1
        };
        assert!((at(20.0) - 50.0).abs() < 1.0, "{points:?}");
        assert!((at(80.0) - 75.0).abs() < 2.0, "{points:?}");
        assert!(curve(&samples, 0.0).is_empty() && curve(&[], 1.0).is_empty());
    }

    #[test]
    fn the_provisional_steady_rate_is_the_fastest_bin_so_far() {
        let samples = synthetic(60, 10_000, |t| if t < 40.0 { 0.5 } else { 2.0 });
        assert!((fastest_rate(&samples).unwrap() - 2.0).abs() < 0.01);
        assert_eq!(fastest_rate(&samples[..10]), None, "not one whole bin yet");
    }

    #[test]
    fn readers_see_what_the_writer_published_and_nothing_past_the_capacity() {
        let samples = SharedSamples::with_capacity(3);
        for n in 1..=4 {
            let pushed = samples.push(Sample { ns: n, ops: 10 * n });
            assert_eq!(pushed, n <= 3);
        }
        assert_eq!(samples.to_vec().last(), Some(&Sample { ns: 3, ops: 30 }));
        assert!(!samples.has_ended());
        samples.end();
        assert!(samples.has_ended());
    }

    #[test]
    fn a_watcher_reports_a_growing_curve_and_the_frequency_until_the_run_ends() {
        let dir = tempfile::tempdir().unwrap();
        let policy = dir.path().join("sys/devices/system/cpu/cpufreq/policy3");
        std::fs::create_dir_all(&policy).unwrap();
        std::fs::write(policy.join("scaling_cur_freq"), "2400000\n").unwrap();
        let root = SysRoot::new(dir.path());
        let samples = SharedSamples::with_capacity(100_000);
        let mut reports = Vec::new();
        let watched = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(30));
                let start = Instant::now();
                samples.begin(start);
                let mut ops = 0;
                while start.elapsed() < Duration::from_millis(400) {
                    ops += 1000;
                    samples.push(Sample {
                        ns: start.elapsed().as_nanos() as u64,
                        ops,
                    });
                    std::thread::sleep(Duration::from_micros(200));
                }
                samples.end();
            });
            watch(&root, Some(3), &samples, None, |curve, mhz| {
                reports.push((curve, mhz.len()));
            })
        });
        // Every 125 ms over a 400 ms run: three reports, each curve longer than the last.
        assert!((2..=4).contains(&reports.len()), "{}", reports.len());
        assert!(reports
            .windows(2)
            .all(|pair| pair[1].0.len() > pair[0].0.len()));
        assert!(reports.windows(2).all(|pair| pair[1].1 >= pair[0].1));
        assert!(watched.mhz.len() >= 25, "{:?}", watched.mhz);
        assert!(watched.mhz.iter().all(|&(_, mhz)| mhz == 2400.0));
        // Without the file, no frequency and no harm.
        let samples = SharedSamples::with_capacity(10);
        samples.end();
        assert_eq!(
            watch(&root, Some(9), &samples, None, |_, _| {}),
            Watched::default()
        );
    }
}
