// SPDX-License-Identifier: GPL-3.0-or-later
//! Measurements over trials, in the schema-1 JSON contract (`docs/contracts.md` 3), on real
//! CPUs or from a simulated machine's model.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use pacer_core::machine::Snapshot;
use pacer_core::values::{CoreType, DriverMode, Epp, Governor};
use pacer_core::SysRoot;
use serde::{Deserialize, Serialize};

use crate::energy::EnergyCounter;
use crate::progress::{Progress, Stage, TimeLeft, TRIAL_OVERHEAD};
use crate::ramp::{self, RampSetup, Trial};
use crate::sched::{AutogroupPriority, Quiet};
use crate::stats::Statistic;
use crate::trace::WINDOWS_MS;

pub const SCHEMA: u32 = 1;

/// The settings a measurement ran under, as the kernel's values (written in a report as the
/// kernel prints them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// `scaling_driver`: an open set of names, kept as the kernel prints it.
    pub driver: Option<String>,
    pub mode: Option<DriverMode>,
    pub governor: Option<Governor>,
    pub epp: Option<Epp>,
    pub eas: Option<bool>,
    pub boost: Option<bool>,
    /// The profile daemon's name for its active profile (daemons name their own).
    pub profile: Option<String>,
}

impl Settings {
    /// The settings of `cpu`'s policy (and of the machine) in `snapshot`.
    pub fn of(snapshot: &Snapshot, cpu: u32, profile: Option<String>) -> Settings {
        let policy = snapshot
            .cpu(cpu)
            .and_then(|c| c.policy)
            .and_then(|id| snapshot.policy(id));
        Settings {
            driver: snapshot.driver.name.clone(),
            mode: snapshot.driver.mode,
            governor: policy.and_then(|p| p.governor.clone()),
            epp: policy.and_then(|p| p.epp),
            eas: snapshot.eas.active,
            boost: snapshot.driver.boost,
            profile,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Window {
    pub end_ms: u64,
    pub pct: Option<Statistic>,
}

/// One CPU's figures. Fields added after the first reports default when a report (from an
/// older helper) lacks them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RampRun {
    pub cpu: u32,
    pub core_type: Option<CoreType>,
    pub trials: usize,
    pub idle_wait_ms: f64,
    /// `None` on a simulated machine: nothing was sampled.
    pub sample_period_us: Option<f64>,
    pub sampling_overhead_pct: Option<f64>,
    pub windows: Vec<Window>,
    pub t95_ms: Option<Statistic>,
    pub steady_mops: Option<Statistic>,
    /// The package's average power over a trial (W), from the RAPL domain `energy_domain`.
    pub power_w: Option<Statistic>,
    /// Joules per billion operations, the work charged for the time it was on the CPU.
    pub j_per_gop: Option<Statistic>,
    /// Whether every trial's thread was pinned to the CPU alone (`None`: simulated).
    pub pinned: Option<bool>,
    /// The highest nice level a trial ran at (-20: the priority was raised; `None`: simulated).
    pub nice: Option<i32>,
    /// The highest nice level of the measuring process's autogroup in a trial, where the
    /// kernel groups tasks by session (`None`: it does not, or simulated).
    pub group_nice: Option<i32>,
    /// The windows and convergence on the other clock than the report's (`None`: simulated).
    pub other_clock: Option<ClockView>,
    /// Time the thread spent off its CPU in a trial (ms), and how often it was taken off
    /// (`None`: simulated).
    pub off_cpu_ms: Option<Statistic>,
    pub interruptions: Option<Statistic>,
    /// Each trial as it ran, the disturbed ones too.
    pub per_trial: Vec<TrialRecord>,
    /// Trials still disturbed after being repeated: they are left out of the figures unless
    /// every trial was disturbed.
    pub disturbed_trials: usize,
    /// Trials that were repeated because another task took too much of the CPU.
    pub repeated_trials: usize,
    /// How quiet the CPU was before measuring.
    pub quiet: Option<Quiet>,
    /// The RAPL domain the energy figures come from (`package-0`).
    pub energy_domain: Option<String>,
}

/// The clock the windows and convergence are on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clock {
    /// The thread's own time on the CPU: what the core and its governor did.
    OnCpu,
    /// The wall clock: the scheduler's interruptions count as slowness (reports made
    /// before the clock was recorded were on it).
    #[default]
    Wall,
}

/// Windows and convergence on one clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockView {
    pub clock: Clock,
    pub windows: Vec<Window>,
    pub t95_ms: Option<Statistic>,
}

/// One trial as it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// Convergence on the report's clock.
    pub t95_ms: Option<f64>,
    /// Time other tasks had the CPU (the scheduler's run delay, else the gaps).
    pub off_cpu_ms: f64,
    /// The scheduler's own count of time waiting to run (ms), where it can be read.
    pub run_delay_ms: Option<f64>,
    /// Every gap found in the samples and taken out of the timeline (ms): other tasks'
    /// time, and interrupts' and the hypervisor's.
    #[serde(default)]
    pub gaps_ms: f64,
    pub interruptions: u64,
    /// Off the CPU for more than [`DISTURBED_SHARE`] of the run.
    pub disturbed: bool,
}

/// A trial off its CPU for more than this share of the run is disturbed: it is repeated,
/// and if it stays so, left out of the figures.
pub const DISTURBED_SHARE: f64 = 0.05;
/// How often one trial is repeated at the most.
const MAX_REPEATS: usize = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RampReport {
    pub schema: u32,
    pub kind: String,
    pub simulated: bool,
    pub settings: Settings,
    /// The clock of the runs' windows and convergence.
    #[serde(default)]
    pub clock: Clock,
    pub runs: Vec<RampRun>,
}

impl RampReport {
    /// Puts the report's figures on `clock` (the other clock's become `other_clock`).
    pub fn set_clock(&mut self, clock: Clock) {
        if clock != self.clock {
            for run in &mut self.runs {
                if let Some(other) = run.other_clock.take() {
                    let here = ClockView {
                        clock: self.clock,
                        windows: std::mem::replace(&mut run.windows, other.windows),
                        t95_ms: std::mem::replace(&mut run.t95_ms, other.t95_ms),
                    };
                    run.other_clock = Some(here);
                }
            }
            self.clock = clock;
        }
    }
}

/// How a ramp measurement runs.
#[derive(Debug, Clone, Copy)]
pub struct RampOptions {
    pub trials: usize,
    /// Long enough for the 0–1000 ms window and a steady part after it.
    pub duration: Duration,
    pub idle_wait: Duration,
    /// Measure at the highest priority (root only).
    pub raise_priority: bool,
}

impl Default for RampOptions {
    fn default() -> Self {
        RampOptions {
            trials: 5,
            duration: Duration::from_millis(1300),
            idle_wait: Duration::from_millis(300),
            raise_priority: false,
        }
    }
}

/// The CPUs to measure by default: the last online CPU of each core type (the last, because
/// CPU 0 takes more interrupts), or of `core_type` alone when one is given. Empty when no
/// online CPU is of that type. `core_type` `None` means every type present, cores without a
/// type (all alike) included.
pub fn default_cpus(snapshot: &Snapshot, core_type: Option<CoreType>) -> Vec<u32> {
    let online = snapshot.cpus.iter().filter(|cpu| cpu.online);
    let kinds: Vec<Option<CoreType>> = match core_type {
        Some(kind) => vec![Some(kind)],
        None => {
            let mut kinds: Vec<Option<CoreType>> =
                online.clone().map(|cpu| cpu.core_type).collect();
            kinds.sort();
            kinds.dedup();
            kinds
        }
    };
    kinds
        .iter()
        .filter_map(|kind| {
            online
                .clone()
                .filter(|cpu| cpu.core_type == *kind)
                .map(|cpu| cpu.id)
                .max()
        })
        .collect()
}

/// Measures the ramp on each of `cpus`, one after the other.
pub fn measure_ramp(
    root: &SysRoot,
    snapshot: &Snapshot,
    cpus: &[u32],
    options: RampOptions,
    profile: Option<String>,
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> std::io::Result<RampReport> {
    let energy = EnergyCounter::find(root, &snapshot.rapl);
    // The thread's nice -20 counts against other sessions' tasks only with its group's.
    let _group = options
        .raise_priority
        .then(AutogroupPriority::raise)
        .flatten();
    let mut runs = Vec::new();
    let mut time_left = TimeLeft::new(
        cpus.len() * options.trials,
        options.idle_wait + options.duration + TRIAL_OVERHEAD,
    );
    for &cpu in cpus {
        let setup = RampSetup {
            cpu,
            policy: snapshot.cpu(cpu).and_then(|c| c.policy),
            duration: options.duration,
            idle_wait: options.idle_wait,
            energy: energy.clone(),
            raise_priority: options.raise_priority,
        };
        let quiet = Quiet::check(cpu);
        let mut trials: Vec<Trial> = Vec::new();
        let mut repeated_trials = 0;
        'trials: for trial in 0..options.trials {
            let trial_began = Instant::now();
            let mut report = |stage, curve, mhz| {
                progress(Progress {
                    cpu,
                    trial: trial + 1,
                    trials: options.trials,
                    stage,
                    curve,
                    mhz,
                    left: time_left.left(trial_began.elapsed()),
                });
            };
            for attempt in 0..=MAX_REPEATS {
                report(Stage::Waiting, Vec::new(), Vec::new());
                // The steady rate of the trials before, for the running curve's scale.
                let steady = trials.last().map(|t| t.analysis.steady_ops_per_s / 1e9);
                let (result, watched) =
                    ramp::watched_trial(root, &setup, steady, cancel, &mut |curve, mhz| {
                        report(Stage::Running, curve, mhz);
                    })?;
                if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                    break 'trials;
                }
                let Some(mut result) = result else { break };
                let disturbed = result.off_cpu.share() > DISTURBED_SHARE;
                if disturbed && attempt < MAX_REPEATS {
                    repeated_trials += 1;
                    continue;
                }
                // The curve is the progress's alone: it goes there.
                report(Stage::Done, std::mem::take(&mut result.curve), watched.mhz);
                trials.push(result);
                break;
            }
            time_left.trial_done();
        }
        if trials.is_empty() {
            continue;
        }
        runs.push(run_of(
            snapshot,
            cpu,
            &trials,
            repeated_trials,
            quiet,
            energy.as_ref(),
        ));
    }
    let first = cpus.first().copied().unwrap_or(0);
    Ok(RampReport {
        schema: SCHEMA,
        kind: "ramp".to_owned(),
        simulated: false,
        settings: Settings::of(snapshot, first, profile),
        clock: Clock::OnCpu,
        runs,
    })
}

/// The windows of `analyses`, one statistic each.
fn windows<'a>(analyses: impl Iterator<Item = &'a crate::trace::Analysis> + Clone) -> Vec<Window> {
    WINDOWS_MS
        .iter()
        .enumerate()
        .map(|(index, &end_ms)| Window {
            end_ms,
            pct: Statistic::of_each(analyses.clone().filter_map(|a| a.windows_pct[index])),
        })
        .collect()
}

/// One CPU's figures from its trials: over the undisturbed ones (all of them when every one
/// was disturbed), on the core's own time, with the wall clock's beside them.
fn run_of(
    snapshot: &Snapshot,
    cpu: u32,
    trials: &[Trial],
    repeated_trials: usize,
    quiet: Quiet,
    energy: Option<&EnergyCounter>,
) -> RampRun {
    let disturbed = |t: &Trial| t.off_cpu.share() > DISTURBED_SHARE;
    let disturbed_trials = trials.iter().filter(|t| disturbed(t)).count();
    let kept: Vec<&Trial> = if disturbed_trials < trials.len() {
        trials.iter().filter(|t| !disturbed(t)).collect()
    } else {
        trials.iter().collect()
    };
    // Power: the package's over each run. J/Gop: the run's energy charged to the work for
    // the time its thread was on the CPU (crate::energy).
    let energy_trials: Vec<(f64, f64)> = kept
        .iter()
        .filter_map(|t| {
            let energy = t.energy?;
            Some((energy.power_w(), energy.j_per_gop(t.operations)?))
        })
        .collect();
    let median = |mut values: Vec<f64>| crate::stats::median(&mut values).unwrap_or(0.0);
    RampRun {
        cpu,
        core_type: snapshot.cpu(cpu).and_then(|c| c.core_type),
        trials: kept.len(),
        idle_wait_ms: median(kept.iter().map(|t| t.idle_wait_ms).collect()),
        sample_period_us: Some(median(
            kept.iter().map(|t| t.analysis.sample_period_us).collect(),
        )),
        sampling_overhead_pct: Some(median(
            kept.iter().map(|t| t.sampling_overhead_pct).collect(),
        )),
        windows: windows(kept.iter().map(|t| &t.analysis)),
        t95_ms: Statistic::of_each(kept.iter().filter_map(|t| t.analysis.t95_ms)),
        steady_mops: Statistic::of_each(kept.iter().map(|t| t.analysis.steady_ops_per_s / 1e6)),
        power_w: Statistic::of_each(energy_trials.iter().map(|e| e.0)),
        j_per_gop: Statistic::of_each(energy_trials.iter().map(|e| e.1)),
        pinned: Some(trials.iter().all(|t| t.conditions.pinned)),
        nice: trials.iter().map(|t| t.conditions.nice).max(),
        group_nice: trials.iter().filter_map(|t| t.conditions.group_nice).max(),
        other_clock: Some(ClockView {
            clock: Clock::Wall,
            windows: windows(kept.iter().map(|t| &t.wall)),
            t95_ms: Statistic::of_each(kept.iter().filter_map(|t| t.wall.t95_ms)),
        }),
        off_cpu_ms: Statistic::of_each(kept.iter().map(|t| t.off_cpu.ms())),
        interruptions: Statistic::of_each(kept.iter().map(|t| t.off_cpu.interruptions() as f64)),
        per_trial: trials
            .iter()
            .map(|t| TrialRecord {
                t95_ms: t.analysis.t95_ms,
                off_cpu_ms: t.off_cpu.ms(),
                run_delay_ms: t.off_cpu.counters.run_delay_ns.map(|ns| ns as f64 / 1e6),
                gaps_ms: t.off_cpu.gaps_ms(),
                interruptions: t.off_cpu.interruptions(),
                disturbed: disturbed(t),
            })
            .collect(),
        disturbed_trials,
        repeated_trials,
        quiet: Some(quiet),
        energy_domain: energy
            .filter(|_| !energy_trials.is_empty())
            .map(|counter| counter.domain.clone()),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn snapshot(model: &str, offline: &[u32]) -> (tempfile::TempDir, Snapshot) {
        let dir = tempfile::tempdir().unwrap();
        pacer_core::sim::model(model)
            .unwrap()
            .render(dir.path())
            .unwrap();
        if !offline.is_empty() {
            // The machine-wide list is what counts.
            let online: pacer_core::CpuSet = (0..16).filter(|cpu| !offline.contains(cpu)).collect();
            // Read-only, as in sysfs, where root alone writes through that: made writable.
            let file = dir.path().join("sys/devices/system/cpu/online");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            std::fs::write(file, format!("{online}\n")).unwrap();
        }
        let snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
        (dir, snapshot)
    }

    #[test]
    fn the_last_online_cpu_of_each_core_type() {
        let (_dir, hybrid) = snapshot("intel-hybrid", &[]);
        assert_eq!(default_cpus(&hybrid, None), [7, 15]);
        assert_eq!(default_cpus(&hybrid, Some(CoreType::Performance)), [7]);
        assert_eq!(default_cpus(&hybrid, Some(CoreType::Efficiency)), [15]);
        assert!(default_cpus(&hybrid, Some(CoreType::LowPower)).is_empty());
    }

    #[test]
    fn offline_cpus_are_passed_over() {
        let (_dir, hybrid) = snapshot("intel-hybrid", &[7, 15]);
        assert_eq!(default_cpus(&hybrid, None), [6, 14]);
    }

    #[test]
    fn settings_are_the_kernels_values_and_read_back_as_written() {
        let (_dir, hybrid) = snapshot("intel-hybrid", &[]);
        let settings = Settings::of(&hybrid, 0, Some("balanced".into()));
        assert_eq!(settings.mode, Some(DriverMode::Active));
        assert_eq!(settings.governor, Some(Governor::powersave()));
        assert_eq!(settings.epp, Some(Epp::BalancePerformance));
        let json = serde_json::to_value(&settings).unwrap();
        assert_eq!(json["mode"], "active");
        assert_eq!(json["governor"], "powersave");
        assert_eq!(json["epp"], "balance_performance");
        let back: Settings = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, settings);

        // A raw EPP number reads back as one; text the kernel could not print is refused,
        // named in the error.
        let mut raw = json.clone();
        raw["epp"] = "77".into();
        let back: Settings = serde_json::from_value(raw).unwrap();
        assert_eq!(back.epp, Some(Epp::Raw(77)));
        let mut garbled = json;
        garbled["governor"] = "Fast Please".into();
        let error = serde_json::from_value::<Settings>(garbled).unwrap_err();
        assert!(error.to_string().contains("\"Fast Please\""), "{error}");
    }

    #[test]
    fn cores_all_alike_give_one_cpu() {
        let (_dir, vm) = snapshot("vm", &[]);
        assert_eq!(default_cpus(&vm, None), [3]);
        assert!(default_cpus(&vm, Some(CoreType::Performance)).is_empty());
    }
}
