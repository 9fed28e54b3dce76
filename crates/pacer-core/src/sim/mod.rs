// SPDX-License-Identifier: GPL-3.0-or-later
//! Simulated machines: models of real machine kinds that lay out a complete sysfs, procfs and
//! debugfs tree in a directory, byte for byte as the kernel prints it (`docs/kernel.md`; the
//! machine kinds are in its section 7).
//!
//! A model's state is what the kernel knows, including what it keeps hidden (the raw EPP
//! byte, intel_pstate's saved EPP); the tree is rendered from it, so the files always agree
//! with each other. The state lives beside the tree in [`STATE_FILE`], which also marks the
//! directory as a simulated machine.

mod dir;
mod dynamics;
mod lists;
mod machines;
mod models;
mod render;
mod rules;
mod ticker;
mod tree;

use serde::{Deserialize, Serialize};

pub use dir::{MachineRoot, SimDir, SimError};
pub use dynamics::{Dynamics, Ramp};
pub use models::{model, Model, MODELS};
pub use rules::WriteError;
pub use ticker::{Ticker, TICKER_THREAD};
pub use tree::RenderError;

/// Where a simulated machine keeps its state, relative to its root.
pub const STATE_FILE: &str = ".pacer-sim/machine.json";

/// The kind of a simulated core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SimCoreKind {
    /// Intel P-core (Golden Cove), listed in `cpu_core`.
    IntelP,
    /// Intel E-core (Gracemont), listed in `cpu_atom`.
    IntelE,
    /// A core of a non-hybrid Intel part (Sapphire Rapids): no `cpu_core`/`cpu_atom` PMU.
    IntelCore,
    /// AMD Zen 4: all cores alike.
    Zen4,
    /// Arm Cortex-A55 (LITTLE).
    CortexA55,
    /// Arm Cortex-A76 (big).
    CortexA76,
    /// A virtual CPU.
    Virtual,
}

/// One logical CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimCpu {
    pub id: u32,
    pub kind: SimCoreKind,
    pub online: bool,
    /// `cpu_capacity` (1024 for the biggest).
    pub capacity: u32,
    /// The CPUs of this CPU's core (itself, and its SMT sibling).
    pub core_cpus: Vec<u32>,
    /// Intel EPB, 0–15; `None` where the CPU has none.
    pub epb: Option<u8>,
    /// amd-pstate preferred-core ranking.
    pub prefcore_ranking: Option<u32>,
}

/// One cpufreq policy, with the hidden per-policy state drivers keep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimPolicy {
    pub id: u32,
    pub cpus: Vec<u32>,
    pub governor: String,
    pub min_khz: u32,
    pub max_khz: u32,
    pub hw_min_khz: u32,
    pub hw_max_khz: u32,
    /// Guaranteed frequency (`base_frequency`, intel_pstate with HWP).
    pub base_khz: Option<u32>,
    pub cur_khz: u32,
    /// The EPP byte in the hardware request register (HWP/CPPC); `None` without EPP.
    pub epp_raw: Option<u8>,
    /// intel_pstate's `epp_powersave`: the EPP saved on entering the performance policy.
    pub epp_saved: Option<u8>,
    /// The operating points (`cpufreq-dt`), lowest first.
    pub opps: Option<Vec<Opp>>,
    /// The device tree's `dynamic-power-coefficient`, from which the energy model's power
    /// figures come (`cpufreq-dt`).
    pub dynamic_power_coefficient: Option<u32>,
    /// The per-policy `boost` switch, where the driver has one.
    pub boost: Option<bool>,
}

/// An operating point: a frequency and the voltage it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opp {
    pub khz: u32,
    pub microvolts: u32,
}

/// The frequency driver and its global state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "driver", rename_all = "kebab-case")]
pub enum SimDriver {
    /// intel_pstate with HWP: `active` (setpolicy) or `passive` (intel_cpufreq).
    IntelPstate {
        passive: bool,
        no_turbo: bool,
        /// The model's EPP numbers for performance, balance_performance, balance_power, power.
        epp_values: [u8; 4],
    },
    /// amd-pstate: `active` (amd-pstate-epp), `passive` or `guided` (amd-pstate).
    AmdPstate { status: String, boost: bool },
    /// cpufreq-dt: one policy per cluster, generic governors.
    CpufreqDt { boost: bool },
    /// No cpufreq driver at all (a VM).
    None,
}

/// The energy counters the platform has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SimRapl {
    /// package, core, uncore and psys; 2^-14 J units.
    Intel,
    /// package and core; 2^-16 J units.
    Amd,
    None,
}

/// A whole simulated machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimMachine {
    /// The model's name (`intel-hybrid`, `amd-zen4`, …).
    pub model: String,
    pub cpus: Vec<SimCpu>,
    pub policies: Vec<SimPolicy>,
    pub driver: SimDriver,
    /// `smt/control` reads `notsupported` when false.
    pub smt_possible: bool,
    /// The kernel has `CONFIG_ENERGY_MODEL` and schedutil, so the EAS sysctl exists.
    pub eas_support: bool,
    /// The administrator's EAS switch (`sched_energy_aware` when EAS is possible).
    pub eas_knob: bool,
    /// The platform registers an energy model for its CPUs.
    pub energy_model: bool,
    pub rapl: SimRapl,
}

impl SimMachine {
    /// Whether the scheduler sees SMT in use: some online core has two online threads.
    pub fn smt_active(&self) -> bool {
        self.cpus.iter().any(|cpu| {
            cpu.online
                && cpu.core_cpus.iter().any(|&sibling| {
                    sibling != cpu.id && self.cpu(sibling).is_some_and(|other| other.online)
                })
        })
    }

    /// This machine with `count` logical CPUs like its first one, each with its own copy of
    /// the first policy: a wide machine for benchmarks and load tests.
    pub fn with_cpus(mut self, count: u32) -> SimMachine {
        if let (Some(cpu), Some(policy)) =
            (self.cpus.first().cloned(), self.policies.first().cloned())
        {
            self.cpus = (0..count)
                .map(|id| SimCpu {
                    id,
                    core_cpus: vec![id],
                    ..cpu.clone()
                })
                .collect();
            self.policies = (0..count)
                .map(|id| SimPolicy {
                    id,
                    cpus: vec![id],
                    ..policy.clone()
                })
                .collect();
        }
        self
    }

    pub fn cpu(&self, id: u32) -> Option<&SimCpu> {
        self.cpus.iter().find(|cpu| cpu.id == id)
    }

    /// `sched_is_eas_possible()`: asymmetric capacities, no SMT, schedutil on every active
    /// policy (frequency invariance is assumed: every modelled platform has it).
    pub fn eas_possible(&self) -> bool {
        let online: Vec<&SimCpu> = self.cpus.iter().filter(|cpu| cpu.online).collect();
        let asymmetric = online.iter().any(|cpu| cpu.capacity != online[0].capacity);
        let schedutil_everywhere = !self.policies.is_empty()
            && self
                .active_policies()
                .all(|policy| policy.governor == "schedutil" && self.has_generic_governors());
        self.eas_support && asymmetric && !self.smt_active() && schedutil_everywhere
    }

    /// Whether EAS runs: possible, allowed, and an energy model for every CPU.
    pub fn eas_running(&self) -> bool {
        self.eas_possible() && self.eas_knob && self.energy_model
    }

    pub fn active_policies(&self) -> impl Iterator<Item = &SimPolicy> {
        self.policies.iter().filter(|policy| {
            policy
                .cpus
                .iter()
                .any(|&id| self.cpu(id).is_some_and(|cpu| cpu.online))
        })
    }

    /// The driver's name as `scaling_driver` prints it; `None` without cpufreq.
    pub fn driver_name(&self) -> Option<&'static str> {
        match &self.driver {
            SimDriver::IntelPstate { passive: false, .. } => Some("intel_pstate"),
            SimDriver::IntelPstate { passive: true, .. } => Some("intel_cpufreq"),
            SimDriver::AmdPstate { status, .. } if status == "active" => Some("amd-pstate-epp"),
            SimDriver::AmdPstate { .. } => Some("amd-pstate"),
            SimDriver::CpufreqDt { .. } => Some("cpufreq-dt"),
            SimDriver::None => None,
        }
    }

    /// Setpolicy drivers have their own `performance`/`powersave` algorithms instead of the
    /// generic governors.
    pub fn has_generic_governors(&self) -> bool {
        !matches!(
            self.driver_name(),
            Some("intel_pstate" | "amd-pstate-epp") | None
        )
    }
}
