// SPDX-License-Identifier: GPL-3.0-or-later
//! The ramp-up measurement: on one CPU, let it go idle, then run a serial floating-point
//! recurrence and record (time, operations) every few microseconds into a buffer allocated
//! beforehand. In the loop there is no allocation and no system call but the clock (vDSO).

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pacer_core::SysRoot;
use pacer_dbus::measurement::progress::Points;

use crate::energy::{EnergyCounter, RunEnergy};
use crate::live::{self, SharedSamples, Watched};
use crate::offcpu::Gaps;
use crate::sched::ThreadCounters;
use crate::trace::{analyse, Analysis, Sample};

/// The recurrence: `x ← x·A + B`. Each step needs the previous one, so it runs at one step
/// per multiply-add latency and cannot be vectorised: throughput follows the clock.
const A: f64 = 0.999_999_9;
const B: f64 = 1e-7;

#[inline(never)]
fn spin(mut x: f64, steps: u64) -> f64 {
    for _ in 0..steps {
        x = x * A + B;
    }
    x
}

/// The time between samples the loop aims at.
const TARGET_PERIOD_NS: u64 = 15_000;

/// Pins the calling thread to `cpu`.
pub fn pin_to(cpu: u32) -> std::io::Result<()> {
    confine_to(&[cpu])
}

/// Lets the calling thread run on `cpus` only.
pub fn confine_to(cpus: &[u32]) -> std::io::Result<()> {
    let mut set = rustix::thread::CpuSet::new();
    for &cpu in cpus {
        set.set(cpu as usize);
    }
    rustix::thread::sched_setaffinity(None, &set).map_err(std::io::Error::from)
}

/// Runs the recurrence for `duration`, sampling into `buffer` (a fresh one: the run stops
/// when it is full), where a watcher may follow it. Stops early when `cancel` is set.
pub fn sampled_run(duration: Duration, buffer: &SharedSamples, cancel: &AtomicBool) {
    let limit = duration.as_nanos() as u64;
    let mut x = 0.5;
    let mut steps: u64 = 256;
    let mut ops = 0;
    let mut last_ns = 0;
    let start = Instant::now();
    buffer.begin(start);
    loop {
        x = spin(x, steps);
        ops += steps;
        let ns = start.elapsed().as_nanos() as u64;
        if !buffer.push(Sample { ns, ops }) {
            break;
        }
        // Steer the chunk toward the target period as the frequency changes.
        let period = (ns - last_ns).max(1);
        last_ns = ns;
        steps = ((steps + steps * TARGET_PERIOD_NS / period) / 2).clamp(64, 1 << 22);
        if ns >= limit || cancel.load(Ordering::Relaxed) {
            break;
        }
    }
    buffer.end();
    black_box(x);
}

/// The recurrence without sampling: `rounds` timed chunks of `steps` each; the median rate
/// (operations per ns), so that a preempted chunk does not count.
pub fn plain_rate(steps: u64, rounds: usize) -> f64 {
    let mut rates: Vec<f64> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            black_box(spin(black_box(0.5), steps));
            steps as f64 / start.elapsed().as_nanos().max(1) as f64
        })
        .collect();
    crate::stats::median(&mut rates).unwrap_or(0.0)
}

/// One trial's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    /// The run on the core's own time: the thread's time off the CPU taken out.
    pub analysis: Analysis,
    /// The same run on the wall clock.
    pub wall: Analysis,
    /// When and how long the thread was not running.
    pub off_cpu: OffCpu,
    /// How long the CPU was left idle first (ms).
    pub idle_wait_ms: f64,
    /// Steady throughput's shortfall against the plain loop, in % (the sampling's cost).
    pub sampling_overhead_pct: f64,
    /// The package's energy over the run, when RAPL can be read.
    pub energy: Option<RunEnergy>,
    pub operations: u64,
    /// The run on the core's own time as a chart draws it: (ms, throughput since the work
    /// began in % of steady), thinned (crate::live::curve).
    pub curve: Vec<(f64, f64)>,
    /// How the thread ran: alone on its CPU, and at which nice level.
    pub conditions: Conditions,
}

/// The time a trial's thread spent off its CPU.
#[derive(Debug, Clone, PartialEq)]
pub struct OffCpu {
    /// The gaps found in the samples, located in time.
    pub gaps: Gaps,
    /// The run's length on the wall clock (ns).
    pub wall_ns: u64,
    /// What the scheduler counted meanwhile: time waiting to run, preemptions.
    pub counters: ThreadCounters,
}

impl OffCpu {
    /// Time the scheduler kept the thread waiting (ms): its own run delay where the kernel
    /// counts it, else the gaps found in the samples. The gaps also hold what is no task's
    /// doing (interrupts, the hypervisor: tens of µs each, a percent or two of a run), which
    /// is taken out of the timeline but is not another task's time.
    pub fn ms(&self) -> f64 {
        self.counters
            .run_delay_ns
            .map_or_else(|| self.gaps_ms(), |ns| ns as f64 / 1e6)
    }

    /// All the gaps found in the samples (ms).
    pub fn gaps_ms(&self) -> f64 {
        self.gaps.total_ns() as f64 / 1e6
    }

    /// The share of the run other tasks had the CPU.
    pub fn share(&self) -> f64 {
        self.ms() * 1e6 / self.wall_ns.max(1) as f64
    }

    /// Times the thread was interrupted: the scheduler's count of preemptions where it can
    /// be read, else the gaps found.
    pub fn interruptions(&self) -> u64 {
        self.counters
            .involuntary_switches
            .unwrap_or(self.gaps.count() as u64)
    }
}

/// What the measuring thread was granted, read back rather than assumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conditions {
    /// Its affinity was exactly the CPU under test.
    pub pinned: bool,
    /// Its nice level (-20 when the priority was raised).
    pub nice: i32,
    /// Its process's autogroup's nice level, where the kernel groups tasks by session
    /// (crate::sched::AutogroupPriority).
    pub group_nice: Option<i32>,
}

impl Conditions {
    /// Reads the calling thread's affinity and nice level.
    pub fn of_this_thread(cpu: u32) -> Conditions {
        let pinned = rustix::thread::sched_getaffinity(None).is_ok_and(|set| {
            set.count() == 1 && usize::try_from(cpu).is_ok_and(|cpu| set.is_set(cpu))
        });
        Conditions {
            pinned,
            nice: rustix::process::getpriority_process(None).unwrap_or(0),
            group_nice: crate::sched::autogroup_nice(),
        }
    }
}

/// Waits until `cpu` is idle and its frequency has settled: at least `minimum`, then until
/// two readings 20 ms apart agree within 1 % (at most two seconds). Returns the wait (ms).
fn settle(root: &SysRoot, policy: Option<u32>, minimum: Duration) -> f64 {
    let start = Instant::now();
    std::thread::sleep(minimum);
    let Some(policy) = policy else {
        return start.elapsed().as_secs_f64() * 1e3;
    };
    let file = live::cur_freq_file(policy);
    let read = || -> Option<f64> { root.read_text(&file).ok()?.trim().parse().ok() };
    let mut previous = read();
    while start.elapsed() < minimum + Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
        let now = read();
        match (previous, now) {
            (Some(a), Some(b)) if (a - b).abs() <= 0.01 * a.max(1.0) => break,
            (None, None) => break,
            _ => previous = now,
        }
    }
    start.elapsed().as_secs_f64() * 1e3
}

/// What one ramp measurement needs.
#[derive(Debug, Clone)]
pub struct RampSetup {
    pub cpu: u32,
    /// The CPU's cpufreq policy, to see its frequency settle.
    pub policy: Option<u32>,
    pub duration: Duration,
    pub idle_wait: Duration,
    pub energy: Option<EnergyCounter>,
    /// Run at the highest priority (nice -20), so other tasks seldom take the CPU: only root
    /// may (the helper measures so).
    pub raise_priority: bool,
}

/// Runs one trial on the calling thread, which it pins to the CPU, sampling into `buffer` (a
/// fresh one, which a watcher may follow: it is marked ended however the trial ends).
pub fn trial(
    root: &SysRoot,
    setup: &RampSetup,
    buffer: &SharedSamples,
    cancel: &AtomicBool,
) -> std::io::Result<Option<Trial>> {
    let trial = measured_trial(root, setup, buffer, cancel);
    buffer.end();
    trial
}

fn measured_trial(
    root: &SysRoot,
    setup: &RampSetup,
    buffer: &SharedSamples,
    cancel: &AtomicBool,
) -> std::io::Result<Option<Trial>> {
    pin_to(setup.cpu)?;
    if setup.raise_priority {
        // Linux applies this to the calling thread alone. Only root may raise it; a helper
        // running as a user (development) measures at normal priority instead of failing.
        let _ = rustix::process::setpriority_process(None, -20);
    }
    let conditions = Conditions::of_this_thread(setup.cpu);
    let idle_wait_ms = settle(root, setup.policy, setup.idle_wait);
    // The counters are read around the run, never inside it.
    let counters = ThreadCounters::of_this_thread();
    let energy_before = setup.energy.as_ref().and_then(|c| c.read(root));
    let energy_clock = Instant::now();
    sampled_run(setup.duration, buffer, cancel);
    let energy_after = setup.energy.as_ref().and_then(|c| c.read(root));
    let energy_wall_ns = energy_clock.elapsed().as_nanos() as u64;
    let counters = counters.since(ThreadCounters::of_this_thread());
    if cancel.load(Ordering::Relaxed) {
        return Ok(None);
    }
    let samples = buffer.to_vec();
    let gaps = Gaps::find(&samples);
    let on_cpu = gaps.on_cpu(&samples);
    let (Some(analysis), Some(wall)) = (analyse(&on_cpu), analyse(&samples)) else {
        return Ok(None);
    };
    let curve = live::curve(&on_cpu, analysis.steady_ops_per_s / 1e9);
    // The same loop without the clock, right after, at the same (steady) speed; set beside
    // the run on the wall clock, which like it holds the interrupts' and hypervisor's time.
    let per_ns = wall.steady_ops_per_s / 1e9;
    let plain = plain_rate(((per_ns * 10e6) as u64).max(1000), 20);
    let sampling_overhead_pct = if plain > 0.0 {
        100.0 * (plain - per_ns) / plain
    } else {
        0.0
    };
    let last = samples.last().copied().unwrap_or(Sample { ns: 0, ops: 0 });
    let energy = match (energy_before, energy_after, &setup.energy) {
        (Some(before), Some(after), Some(counter)) => Some(RunEnergy {
            used_uj: counter.used_between(before, after),
            wall_ns: energy_wall_ns,
            on_cpu_ns: energy_wall_ns.saturating_sub(gaps.total_ns()),
        }),
        _ => None,
    };
    Ok(Some(Trial {
        analysis,
        wall,
        off_cpu: OffCpu {
            gaps,
            wall_ns: last.ns,
            counters,
        },
        idle_wait_ms,
        sampling_overhead_pct,
        energy,
        operations: last.ops,
        curve,
        conditions,
    }))
}

/// A buffer for a run of `duration`: the target period, with room for shorter periods. Its
/// memory is touched here, so the run does not take page faults.
pub fn buffer_for(duration: Duration) -> SharedSamples {
    SharedSamples::with_capacity(
        (duration.as_nanos() as u64 / TARGET_PERIOD_NS * 4 + 1024) as usize,
    )
}

/// One trial on a thread of its own pinned to the CPU (so the caller stays where it was),
/// watched from another thread kept off that CPU, whose reports reach `report` here.
pub fn watched_trial(
    root: &SysRoot,
    setup: &RampSetup,
    steady_per_ns: Option<f64>,
    cancel: &AtomicBool,
    report: &mut dyn FnMut(Points, Points),
) -> std::io::Result<(Option<Trial>, Watched)> {
    let buffer = &buffer_for(setup.duration);
    let (sender, reports) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        let run = scope.spawn(|| trial(root, setup, buffer, cancel));
        let watcher = scope.spawn(move || {
            live::keep_off(setup.cpu);
            live::watch(root, setup.policy, buffer, steady_per_ns, |curve, mhz| {
                let _ = sender.send((curve, mhz.to_vec()));
            })
        });
        // Ends when the watcher drops its sender, which is when the run ends.
        while let Ok((curve, mhz)) = reports.recv() {
            report(curve, mhz);
        }
        let watched = watcher
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let trial = run
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        Ok((trial, watched))
    })
}
