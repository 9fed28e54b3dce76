//! A ramp report from a simulated machine's model instead of a measurement: what its
//! governor and EPP would give, in the same schema-1 report.

use pacer_core::machine::Snapshot;
use pacer_core::sim::SimMachine;

use crate::report::{Clock, RampReport, RampRun, Settings, Window, SCHEMA};
use crate::stats::Statistic;
use crate::trace::WINDOWS_MS;

/// The recurrence's operations per clock cycle on the simulated cores: one dependent
/// multiply and add, about eight cycles.
const MODEL_OPS_PER_CYCLE: f64 = 0.125;

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
            let sim_cpu = machine.cpu(cpu)?;
            let policy = machine.policies.iter().find(|p| p.cpus.contains(&cpu))?;
            let ramp = machine.ramp(policy, sim_cpu.kind);
            let steady_mhz = f64::from(machine.steady_khz(policy)) / 1000.0;
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
