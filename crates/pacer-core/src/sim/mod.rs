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
mod platform;
mod power;
mod render;
mod rules;
mod scenarios;
mod thermal;
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

/// The ACPI platform profile's legacy file, written by the rules and taken in from writers
/// that write it straight (power-profiles-daemon).
const PLATFORM_PROFILE: &str = "sys/firmware/acpi/platform_profile";

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
    /// The ACPI throttling state (T-state) the CPU's `Processor` cooling device holds it in
    /// (`acpi_processor_set_throttling()`); 0 is full speed.
    #[serde(default)]
    pub t_state: u8,
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
    /// The state of the policy's cpufreq cooling device ([`SimCooling::Cpufreq`]): the
    /// number of operating points below the top it is held to.
    #[serde(default)]
    pub cooling_state: u8,
    /// amd-pstate (Linux 7.1 and later) prints EPP as a number when the last write was one
    /// (`cpudata->raw_epp`).
    #[serde(default)]
    pub epp_written_raw: bool,
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
    AmdPstate {
        status: String,
        boost: bool,
        /// `amd_pstate/dynamic_epp` of Linux 7.1 and later, which also brought raw EPP
        /// numbers and the `custom` preference; `None` for an older kernel, which has none
        /// of them (`docs/kernel.md` 3).
        #[serde(default)]
        dynamic_epp: Option<bool>,
    },
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

/// How the platform cools its CPUs through cpufreq: the cooling devices of
/// `/sys/class/thermal` that cap frequencies (`docs/kernel.md` 8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SimCooling {
    /// No CPU cooling device.
    #[default]
    None,
    /// ACPI `Processor` devices, one per CPU (drivers/acpi/processor_thermal.c). States 0-3
    /// hold every CPU of the package at 100, 80, 60 or 40 % of its `cpuinfo_max_freq` (20 %
    /// a step, three steps; the step belongs to the package); the states above are the
    /// CPU's own T-states ([`SimCpu::t_state`]).
    AcpiProcessor {
        /// The package's cpufreq reduction step, 0-3.
        step: u8,
        /// ACPI throttling states per processor (`_TSS`); 0 without ACPI throttling.
        t_states: u8,
    },
    /// `cpufreq-cpuN` devices, one per policy (drivers/thermal/cpufreq_cooling.c), each in
    /// its policy's [`SimPolicy::cooling_state`].
    Cpufreq,
}

/// The throttling going on now, as Intel's thermal interrupt counts it
/// (arch/x86/kernel/cpu/mce/therm_throt.c); the counters themselves are in the files, moved
/// by the [`Ticker`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimThrottle {
    /// CPUs whose core is at its thermal limit: their core counters rise with each tick.
    pub hot_cpus: Vec<u32>,
    /// The package is at its limit: every CPU's package counters rise.
    pub package_hot: bool,
}

/// One power limit of a RAPL zone (`constraint_N_*`, drivers/powercap/intel_rapl_common.c).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimConstraint {
    /// `long_term` (PL1), `short_term` (PL2) or `peak_power` (PL4).
    pub name: String,
    pub power_limit_uw: u64,
    /// `None` where reading it fails (PL4 has no time window).
    pub time_window_us: Option<u64>,
    /// `None` where reading it fails (a zone without a power-info register).
    pub max_power_uw: Option<u64>,
}

/// The package's power: what it draws at full load, and the RAPL zones' power limits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimPower {
    /// The thermal design power (µW): what the package draws under full load, and on Intel
    /// the default long-term limit, which PL1's `max_power_uw` shows.
    pub tdp_uw: u64,
    /// Each zone's constraints by zone name (`intel-rapl:0`); none on AMD, which has no limit
    /// registers.
    pub limits: std::collections::BTreeMap<String, Vec<SimConstraint>>,
}

/// The ACPI platform profile (`/sys/firmware/acpi/platform_profile`) of the platform's own
/// handler (drivers/acpi/platform_profile.c).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimPlatformProfile {
    pub profile: String,
    pub choices: Vec<String>,
}

/// What going through suspend and resume does to the machine, beyond what it restores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ResumeQuirk {
    /// The maximum frequency of `policies` comes back at `khz` (amd-pstate's resume bug).
    MaxFreqClamp { policies: Vec<u32>, khz: u32 },
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
    #[serde(default)]
    pub cooling: SimCooling,
    /// Intel's throttle counters; `None` where the CPU has none (AMD, Arm, a VM).
    #[serde(default)]
    pub throttle: Option<SimThrottle>,
    /// `None` without RAPL.
    #[serde(default)]
    pub power: Option<SimPower>,
    #[serde(default)]
    pub platform_profile: Option<SimPlatformProfile>,
    #[serde(default)]
    pub resume_quirk: Option<ResumeQuirk>,
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

    /// `scaling_max_freq`: the policy's own maximum, or lower where a cooling device's
    /// frequency request holds it lower (freq QoS takes the lowest maximum).
    pub fn qos_max_khz(&self, policy: &SimPolicy) -> u32 {
        self.cooling_cap_khz(policy)
            .map_or(policy.max_khz, |cap| cap.min(policy.max_khz))
    }

    /// `scaling_min_freq`: the minimum, never above the maximum.
    pub fn qos_min_khz(&self, policy: &SimPolicy) -> u32 {
        policy.min_khz.min(self.qos_max_khz(policy))
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
