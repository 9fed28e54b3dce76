// SPDX-License-Identifier: GPL-3.0-or-later
//! The ramp measured over trials on real CPUs, into its report in the schema-1 JSON contract
//! (`docs/contracts.md` 3, `pacer_dbus::measurement::report`), and the CPUs it measures by
//! default.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use pacer_core::machine::Snapshot;
use pacer_core::values::CoreType;
use pacer_core::SysRoot;
use pacer_dbus::measurement::progress::{Progress, Stage};
use pacer_dbus::measurement::report::{
    Clock, ClockView, Quiet, RampReport, RampRun, Settings, TrialRecord, Window, SCHEMA,
};

use crate::energy::EnergyCounter;
use crate::ramp::{self, RampSetup, Trial};
use crate::sched::{check_quiet, AutogroupPriority};
use crate::stats::statistic_of_each;
use crate::time_left::{TimeLeft, TRIAL_OVERHEAD};
use crate::trace::{T95_RESOLUTION_MS, WINDOWS_MS};

/// A trial off its CPU for more than this share of the run is disturbed: it is repeated,
/// and if it stays so, left out of the figures.
pub const DISTURBED_SHARE: f64 = 0.05;
/// How often one trial is repeated at the most.
const MAX_REPEATS: usize = 2;

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
        let quiet = check_quiet(cpu);
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
            pct: statistic_of_each(analyses.clone().filter_map(|a| a.windows_pct[index])),
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
        t95_ms: statistic_of_each(kept.iter().filter_map(|t| t.analysis.t95_ms)),
        t95_resolution_ms: Some(T95_RESOLUTION_MS),
        steady_mops: statistic_of_each(kept.iter().map(|t| t.analysis.steady_ops_per_s / 1e6)),
        power_w: statistic_of_each(energy_trials.iter().map(|e| e.0)),
        j_per_gop: statistic_of_each(energy_trials.iter().map(|e| e.1)),
        pinned: Some(trials.iter().all(|t| t.conditions.pinned)),
        nice: trials.iter().map(|t| t.conditions.nice).max(),
        group_nice: trials.iter().filter_map(|t| t.conditions.group_nice).max(),
        other_clock: Some(ClockView {
            clock: Clock::Wall,
            windows: windows(kept.iter().map(|t| &t.wall)),
            t95_ms: statistic_of_each(kept.iter().filter_map(|t| t.wall.t95_ms)),
        }),
        off_cpu_ms: statistic_of_each(kept.iter().map(|t| t.off_cpu.ms())),
        interruptions: statistic_of_each(kept.iter().map(|t| t.off_cpu.interruptions() as f64)),
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
    fn cores_all_alike_give_one_cpu() {
        let (_dir, vm) = snapshot("vm", &[]);
        assert_eq!(default_cpus(&vm, None), [3]);
        assert!(default_cpus(&vm, Some(CoreType::Performance)).is_empty());
    }
}
