// SPDX-License-Identifier: GPL-3.0-or-later
//! A ramp report from a simulated machine's model instead of a measurement: what its
//! governor and EPP would give, in the same schema-1 report.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pacer_core::machine::Snapshot;
use pacer_core::sim::{Ramp, SimMachine};

use pacer_dbus::measurement::progress::{Progress, Stage};
use pacer_dbus::measurement::report::{Clock, RampReport, RampRun, Settings, Window, SCHEMA};
use pacer_dbus::measurement::statistic::Statistic;

use crate::live::{curve_times, REPORT_EVERY};
use crate::time_left::TimeLeft;
use crate::trace::WINDOWS_MS;

/// The recurrence's operations per clock cycle on the simulated cores: one dependent
/// multiply and add, about eight cycles.
const MODEL_OPS_PER_CYCLE: f64 = 0.125;

/// The step a model's time to 95 % is given in (ms): a tenth, as the window writes times
/// under 10 ms, so that a ramp at 95 % from the start reads "< 0.1 ms".
pub const MODEL_T95_RESOLUTION_MS: f64 = 0.1;

/// The ramp of each of `cpus` on a simulated machine, from its model.
pub fn simulated_ramp(
    machine: &SimMachine,
    snapshot: &Snapshot,
    cpus: &[u32],
    profile: Option<String>,
) -> RampReport {
    let runs = cpus
        .iter()
        .filter_map(|&cpu| {
            let (ramp, steady_mhz) = model_of(machine, cpu)?;
            Some(RampRun {
                cpu,
                core_type: snapshot.cpu(cpu).and_then(|c| c.core_type),
                trials: 1,
                idle_wait_ms: 0.0,
                sample_period_us: None,
                sampling_overhead_pct: None,
                windows: WINDOWS_MS
                    .iter()
                    .map(|&end_ms| Window {
                        end_ms,
                        pct: Some(Statistic::exact(100.0 * ramp.average_until(end_ms as f64))),
                    })
                    .collect(),
                t95_ms: Some(Statistic::exact(ramp.time_to(0.95))),
                t95_resolution_ms: Some(MODEL_T95_RESOLUTION_MS),
                steady_mops: Some(Statistic::exact(steady_mhz * MODEL_OPS_PER_CYCLE)),
                ..RampRun::default()
            })
        })
        .collect();
    RampReport {
        schema: SCHEMA,
        kind: "ramp".to_owned(),
        simulated: true,
        settings: Settings::of(snapshot, cpus.first().copied().unwrap_or(0), profile),
        // A model has no scheduler: both clocks are the same.
        clock: Clock::OnCpu,
        runs,
    }
}

/// The model's ramp of each of `cpus` played out in time as a measurement runs: a run of
/// `duration` on each CPU, one after the other, its curve and frequency reported as they
/// grow, then the report of the CPUs played to the end (`cancel` stops it).
pub fn played_ramp(
    machine: &SimMachine,
    snapshot: &Snapshot,
    cpus: &[u32],
    profile: Option<String>,
    duration: Duration,
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> RampReport {
    let mut played = Vec::new();
    let mut time_left = TimeLeft::new(cpus.len(), duration);
    for &cpu in cpus {
        let Some((ramp, steady_mhz)) = model_of(machine, cpu) else {
            continue;
        };
        let began = Instant::now();
        let mut report = |stage, until_ms: f64| {
            progress(Progress {
                cpu,
                trial: 1,
                trials: 1,
                stage,
                curve: curve_times(until_ms)
                    .map(|ms| (ms, 100.0 * ramp.average_until(ms)))
                    .collect(),
                mhz: curve_times(until_ms)
                    .map(|ms| (ms, steady_mhz * ramp.fraction_at(ms)))
                    .collect(),
                left: time_left.left(began.elapsed()),
            });
        };
        report(Stage::Waiting, 0.0);
        loop {
            std::thread::sleep(REPORT_EVERY.min(duration.saturating_sub(began.elapsed())));
            if cancel.load(Ordering::Relaxed) {
                return simulated_ramp(machine, snapshot, &played, profile);
            }
            let elapsed = began.elapsed();
            if elapsed >= duration {
                report(Stage::Done, duration.as_secs_f64() * 1e3);
                break;
            }
            report(Stage::Running, elapsed.as_secs_f64() * 1e3);
        }
        time_left.trial_done();
        played.push(cpu);
    }
    simulated_ramp(machine, snapshot, &played, profile)
}

/// The ramp of `cpu`'s cores and the frequency (MHz) it settles at.
fn model_of(machine: &SimMachine, cpu: u32) -> Option<(Ramp, f64)> {
    let sim_cpu = machine.cpu(cpu)?;
    let policy = machine.policies.iter().find(|p| p.cpus.contains(&cpu))?;
    Some((
        machine.ramp(policy, sim_cpu.kind),
        f64::from(machine.steady_khz(policy)) / 1000.0,
    ))
}
