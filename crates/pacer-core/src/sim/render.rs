// SPDX-License-Identifier: GPL-3.0-or-later
//! Laying a simulated machine out as files, byte for byte as the kernel prints them: the
//! tree of files is computed in memory, then the directory is made to match it
//! ([`super::tree`]).

use std::fs;
use std::io;
use std::path::Path;

use crate::cpuset::CpuSet;

use super::lists::{AMD_EPP_VALUES, EPP_NAMES, GENERIC_GOVERNORS};
use super::platform::platform_files;
use super::power::rapl_files;
use super::thermal::{cooling_files, throttle_files};
use super::tree::{io_error, sync, write_atomically, RenderError, Tree};
use super::{SimCoreKind, SimDriver, SimMachine, SimPolicy, STATE_FILE};

/// The list `energy_performance_available_preferences` prints: each name and a space, then a
/// newline.
const EPP_AVAILABLE: &str = "default performance balance_performance balance_power power \n";
/// amd-pstate's list since Linux 7.1, which takes raw numbers (`EPP_INDEX_CUSTOM`).
const EPP_AVAILABLE_CUSTOM: &str =
    "default performance balance_performance balance_power power custom \n";
/// What setpolicy drivers list: exactly this, without a trailing space.
const SETPOLICY_GOVERNORS: &str = "performance powersave\n";

const CPU: &str = "sys/devices/system/cpu";

/// `cpufreq_show_cpus()`: numbers separated by single spaces.
fn spaced(cpus: &[u32]) -> String {
    cpus.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn build(machine: &SimMachine) -> Tree {
    let mut tree = Tree::default();
    let all: CpuSet = machine.cpus.iter().map(|cpu| cpu.id).collect();
    let online: CpuSet = machine
        .cpus
        .iter()
        .filter(|cpu| cpu.online)
        .map(|cpu| cpu.id)
        .collect();
    tree.ro(format!("{CPU}/online"), &online);
    tree.ro(format!("{CPU}/present"), &all);
    tree.ro(format!("{CPU}/possible"), &all);
    if machine.smt_possible {
        tree.rw(format!("{CPU}/smt/control"), "on");
    } else {
        tree.rw(format!("{CPU}/smt/control"), "notsupported");
    }
    tree.ro(format!("{CPU}/smt/active"), u8::from(machine.smt_active()));
    tree.dir(format!("{CPU}/cpufreq"));

    for cpu in &machine.cpus {
        let dir = format!("{CPU}/cpu{}", cpu.id);
        let policy = machine.policies.iter().find(|p| p.cpus.contains(&cpu.id));
        if let (Some(policy), true) = (policy, cpu.online) {
            tree.link(
                format!("{dir}/cpufreq"),
                format!("../cpufreq/policy{}", policy.id),
            );
        }
        tree.ro(format!("{dir}/cpu_capacity"), cpu.capacity);
        let core: CpuSet = cpu.core_cpus.iter().copied().collect();
        tree.ro(format!("{dir}/topology/thread_siblings_list"), &core);
        tree.ro(format!("{dir}/topology/core_cpus_list"), &core);
        // Every modelled machine has one package (socket).
        tree.ro(format!("{dir}/topology/physical_package_id"), 0);
        if let Some(epb) = cpu.epb {
            tree.rw(format!("{dir}/power/energy_perf_bias"), epb);
        }
        if let Some((midr, cluster)) = arm_identity(cpu.kind, policy) {
            tree.ro(format!("{dir}/regs/identification/midr_el1"), midr);
            tree.ro(format!("{dir}/topology/cluster_cpus_list"), cluster);
        }
    }

    for policy in &machine.policies {
        policy_files(&mut tree, machine, policy);
    }
    driver_files(&mut tree, machine);
    core_type_pmus(&mut tree, machine);
    rapl_files(&mut tree, machine);
    cooling_files(&mut tree, machine);
    throttle_files(&mut tree, machine);
    platform_files(&mut tree, machine);
    eas_files(&mut tree, machine);
    tree
}

/// An Arm CPU's `midr_el1` (the part number tells A55 from A76) and its cluster.
fn arm_identity(kind: SimCoreKind, policy: Option<&SimPolicy>) -> Option<(&'static str, CpuSet)> {
    let midr = match kind {
        SimCoreKind::CortexA55 => "0x00000000412fd050",
        SimCoreKind::CortexA76 => "0x00000000414fd0b0",
        _ => return None,
    };
    let cluster = policy
        .map(|p| p.cpus.iter().copied().collect())
        .unwrap_or_default();
    Some((midr, cluster))
}

/// How `energy_performance_preference` prints a raw EPP byte: the name whose model-specific
/// value it equals, else the number, except that an unmatched 0 prints `default`
/// (`intel_pstate_get_energy_pref_index()`, `docs/kernel.md` 2.2).
fn epp_text(raw: u8, values: [u8; 4]) -> String {
    match values.iter().position(|&value| value == raw) {
        Some(index) => EPP_NAMES[index].to_owned(),
        None if raw == 0 => "default".to_owned(),
        None => raw.to_string(),
    }
}

fn policy_files(tree: &mut Tree, machine: &SimMachine, policy: &SimPolicy) {
    let dir = format!("{CPU}/cpufreq/policy{}", policy.id);
    let online: Vec<u32> = policy
        .cpus
        .iter()
        .copied()
        .filter(|&id| machine.cpu(id).is_some_and(|cpu| cpu.online))
        .collect();
    tree.ro(format!("{dir}/affected_cpus"), spaced(&online));
    tree.ro(format!("{dir}/related_cpus"), spaced(&policy.cpus));
    tree.ro(format!("{dir}/cpuinfo_min_freq"), policy.hw_min_khz);
    tree.ro(format!("{dir}/cpuinfo_max_freq"), policy.hw_max_khz);
    tree.rw(
        format!("{dir}/scaling_min_freq"),
        machine.qos_min_khz(policy),
    );
    tree.rw(
        format!("{dir}/scaling_max_freq"),
        machine.qos_max_khz(policy),
    );
    tree.live(format!("{dir}/scaling_cur_freq"), 0o444, policy.cur_khz);
    tree.rw(format!("{dir}/scaling_governor"), &policy.governor);
    if policy.governor == "userspace" {
        tree.rw(format!("{dir}/scaling_setspeed"), policy.cur_khz);
    } else {
        tree.rw(format!("{dir}/scaling_setspeed"), "<unsupported>");
    }
    if let Some(name) = machine.driver_name() {
        tree.ro(format!("{dir}/scaling_driver"), name);
    }
    // Generic governors in registration order, each followed by a space.
    let governors = if machine.has_generic_governors() {
        GENERIC_GOVERNORS
            .iter()
            .map(|governor| format!("{governor} "))
            .collect::<String>()
            + "\n"
    } else {
        SETPOLICY_GOVERNORS.to_owned()
    };
    tree.put(
        format!("{dir}/scaling_available_governors"),
        0o444,
        governors,
    );
    if let Some(base) = policy.base_khz {
        tree.ro(format!("{dir}/base_frequency"), base);
    }
    if let Some(boost) = policy.boost {
        tree.rw(format!("{dir}/boost"), u8::from(boost));
    }

    match &machine.driver {
        SimDriver::IntelPstate {
            passive,
            epp_values,
            ..
        } => {
            tree.live(format!("{dir}/cpuinfo_avg_freq"), 0o444, policy.cur_khz);
            tree.ro(
                format!("{dir}/cpuinfo_transition_latency"),
                if *passive { 20_000 } else { 0 },
            );
            if let Some(raw) = policy.epp_raw {
                tree.put(
                    format!("{dir}/energy_performance_available_preferences"),
                    0o444,
                    EPP_AVAILABLE,
                );
                tree.rw(
                    format!("{dir}/energy_performance_preference"),
                    epp_text(raw, *epp_values),
                );
            }
        }
        SimDriver::AmdPstate {
            status,
            dynamic_epp,
            ..
        } => {
            tree.live(format!("{dir}/cpuinfo_avg_freq"), 0o444, policy.cur_khz);
            let active = status == "active";
            tree.ro(
                format!("{dir}/cpuinfo_transition_latency"),
                if active { 0 } else { 20_000 },
            );
            tree.ro(format!("{dir}/amd_pstate_max_freq"), policy.hw_max_khz);
            tree.ro(format!("{dir}/amd_pstate_lowest_nonlinear_freq"), 1_100_000);
            tree.ro(format!("{dir}/amd_pstate_highest_perf"), 196);
            if let Some(rank) = policy
                .cpus
                .first()
                .and_then(|&id| machine.cpu(id))
                .and_then(|cpu| cpu.prefcore_ranking)
            {
                tree.ro(format!("{dir}/amd_pstate_prefcore_ranking"), rank);
            }
            tree.ro(format!("{dir}/amd_pstate_hw_prefcore"), "enabled");
            if let (true, Some(raw)) = (active, policy.epp_raw) {
                // Under the performance policy the list shrinks to `performance` alone;
                // Linux 7.1 adds `custom` (raw numbers) and prints a raw number written as
                // one.
                let available = match (policy.governor.as_str(), dynamic_epp) {
                    ("performance", _) => "performance\n",
                    (_, Some(_)) => EPP_AVAILABLE_CUSTOM,
                    (_, None) => EPP_AVAILABLE,
                };
                tree.put(
                    format!("{dir}/energy_performance_available_preferences"),
                    0o444,
                    available,
                );
                let text = if policy.epp_written_raw {
                    raw.to_string()
                } else {
                    epp_text(raw, AMD_EPP_VALUES)
                };
                tree.rw(format!("{dir}/energy_performance_preference"), text);
            }
        }
        SimDriver::CpufreqDt { .. } => {
            tree.ro(format!("{dir}/cpuinfo_transition_latency"), 40_000);
            tree.live(format!("{dir}/cpuinfo_cur_freq"), 0o400, policy.cur_khz);
            if let Some(opps) = &policy.opps {
                let list: String = opps.iter().map(|opp| format!("{} ", opp.khz)).collect();
                tree.put(
                    format!("{dir}/scaling_available_frequencies"),
                    0o444,
                    format!("{list}\n"),
                );
                tree.put(format!("{dir}/scaling_boost_frequencies"), 0o444, "\n");
            }
        }
        SimDriver::None => {}
    }
}

fn driver_files(tree: &mut Tree, machine: &SimMachine) {
    match &machine.driver {
        SimDriver::IntelPstate {
            passive, no_turbo, ..
        } => {
            let dir = format!("{CPU}/intel_pstate");
            tree.rw(
                format!("{dir}/status"),
                if *passive { "passive" } else { "active" },
            );
            tree.rw(format!("{dir}/no_turbo"), u8::from(*no_turbo));
            tree.rw(format!("{dir}/max_perf_pct"), 100);
            tree.rw(format!("{dir}/min_perf_pct"), 8);
            if !passive {
                tree.rw(format!("{dir}/hwp_dynamic_boost"), 0);
            }
        }
        SimDriver::AmdPstate {
            status,
            boost,
            dynamic_epp,
        } => {
            tree.rw(format!("{CPU}/amd_pstate/status"), status);
            tree.ro(format!("{CPU}/amd_pstate/prefcore"), "enabled");
            if let Some(on) = dynamic_epp {
                tree.rw(
                    format!("{CPU}/amd_pstate/dynamic_epp"),
                    if *on { "enabled" } else { "disabled" },
                );
            }
            tree.rw(format!("{CPU}/cpufreq/boost"), u8::from(*boost));
        }
        SimDriver::CpufreqDt { boost } => {
            tree.rw(format!("{CPU}/cpufreq/boost"), u8::from(*boost));
        }
        SimDriver::None => {}
    }
}

/// The PMUs that name core types: Intel's hybrid `cpu_core`/`cpu_atom`, Arm's per-core PMUs.
fn core_type_pmus(tree: &mut Tree, machine: &SimMachine) {
    let of_kind = |kind: SimCoreKind| -> CpuSet {
        machine
            .cpus
            .iter()
            .filter(|cpu| cpu.kind == kind)
            .map(|cpu| cpu.id)
            .collect()
    };
    let pmus = [
        (SimCoreKind::IntelP, "cpu_core", "sys/devices/cpu_core"),
        (SimCoreKind::IntelE, "cpu_atom", "sys/devices/cpu_atom"),
        (
            SimCoreKind::CortexA55,
            "armv8_cortex_a55",
            "sys/devices/platform/pmu-a55/armv8_cortex_a55",
        ),
        (
            SimCoreKind::CortexA76,
            "armv8_cortex_a76",
            "sys/devices/platform/pmu-a76/armv8_cortex_a76",
        ),
    ];
    for (kind, name, device) in pmus {
        let cpus = of_kind(kind);
        if cpus.is_empty() {
            continue;
        }
        tree.ro(format!("{device}/cpus"), &cpus);
        let from_sys = device.trim_start_matches("sys/");
        tree.link(
            format!("sys/bus/event_source/devices/{name}"),
            format!("../../../{from_sys}"),
        );
    }
}

/// The EAS sysctl (empty when impossible, `docs/kernel.md` 4.3) and the energy model in
/// debugfs.
fn eas_files(tree: &mut Tree, machine: &SimMachine) {
    if !machine.eas_support {
        return;
    }
    let sysctl = "proc/sys/kernel/sched_energy_aware";
    if machine.eas_possible() {
        tree.rw(sysctl, u8::from(machine.eas_knob));
    } else {
        tree.put(sysctl, 0o644, "");
    }
    let em = "sys/kernel/debug/energy_model";
    tree.dir(em);
    if !machine.energy_model {
        return;
    }
    match machine.driver {
        SimDriver::CpufreqDt { .. } => {
            for (id, policy) in machine.policies.iter().enumerate() {
                opp_energy_model(tree, machine, policy, id);
            }
        }
        _ => {
            for cpu in &machine.cpus {
                artificial_energy_model(tree, cpu.id, cpu.kind, cpu.capacity);
            }
        }
    }
}

/// intel_pstate's artificial model: one domain per CPU, states 2–5 (40–100 % of capacity),
/// power `EM_MAX_POWER`, cost = state + 2 on P-cores and + 1 on E-cores (intel_pstate.c
/// `hybrid_register_perf_domain()`, `hybrid_get_cost()`; `docs/kernel.md` 4.2).
fn artificial_energy_model(tree: &mut Tree, cpu: u32, kind: SimCoreKind, capacity: u32) {
    let dir = format!("sys/kernel/debug/energy_model/cpu{cpu}");
    let extra = if kind == SimCoreKind::IntelP { 2 } else { 1 };
    tree.ro(format!("{dir}/cpus"), cpu);
    tree.ro(format!("{dir}/flags"), "0x4");
    tree.ro(format!("{dir}/id"), cpu);
    for state in 2..=5u32 {
        let ps = format!("{dir}/ps:{state}");
        tree.ro(format!("{ps}/frequency"), state);
        tree.ro(format!("{ps}/power"), 64_000_000);
        tree.ro(format!("{ps}/cost"), state + extra);
        tree.ro(format!("{ps}/performance"), capacity * state / 5);
        tree.ro(format!("{ps}/inefficient"), 0);
    }
}

/// An OPP-based model (cpufreq-dt): µW = C·mV²·MHz/10⁶, performance = capacity·f/fmax,
/// cost = 10·µW/performance; a state costing at least as much as a faster one is inefficient.
fn opp_energy_model(tree: &mut Tree, machine: &SimMachine, policy: &SimPolicy, id: usize) {
    let (Some(opps), Some(coefficient)) = (&policy.opps, policy.dynamic_power_coefficient) else {
        return;
    };
    let Some(first) = policy.cpus.first() else {
        return;
    };
    let capacity = machine.cpu(*first).map_or(1024, |cpu| cpu.capacity) as u64;
    let fmax = opps.last().map_or(1, |opp| opp.khz) as u64;
    let dir = format!("sys/kernel/debug/energy_model/cpu{first}");
    let cpus: CpuSet = policy.cpus.iter().copied().collect();
    tree.ro(format!("{dir}/cpus"), &cpus);
    tree.ro(format!("{dir}/id"), id);
    let states: Vec<(u64, u64, u64)> = opps
        .iter()
        .map(|opp| {
            let millivolts = u64::from(opp.microvolts / 1000);
            let mhz = u64::from(opp.khz / 1000);
            let power = u64::from(coefficient) * millivolts * millivolts * mhz / 1_000_000;
            let performance = (capacity * u64::from(opp.khz) / fmax).max(1);
            (power, performance, power * 10 / performance)
        })
        .collect();
    let mut cheapest_above = u64::MAX;
    let mut inefficient = vec![false; states.len()];
    for (index, &(_, _, cost)) in states.iter().enumerate().rev() {
        if cost >= cheapest_above {
            inefficient[index] = true;
        } else {
            cheapest_above = cost;
        }
    }
    for ((opp, &(power, performance, cost)), inefficient) in
        opps.iter().zip(&states).zip(&inefficient)
    {
        let ps = format!("{dir}/ps:{}", opp.khz);
        tree.ro(format!("{ps}/frequency"), opp.khz);
        tree.ro(format!("{ps}/power"), power);
        tree.ro(format!("{ps}/cost"), cost);
        tree.ro(format!("{ps}/performance"), performance);
        tree.ro(format!("{ps}/inefficient"), u8::from(*inefficient));
    }
    // EM_PERF_DOMAIN_MICROWATTS, plus SKIP_INEFFICIENCIES when some state is inefficient.
    let flags = if inefficient.contains(&true) {
        "0x3"
    } else {
        "0x1"
    };
    tree.ro(format!("{dir}/flags"), flags);
}

impl SimMachine {
    /// Lays the machine out under `root`, replacing any tree there, and saves its state there.
    pub fn render(&self, root: &Path) -> Result<(), RenderError> {
        self.render_after(root, None)
    }

    /// Lays the machine out again under `root` after a write to `written` (relative to
    /// `root`) went through the kernel's rules: that file is written in place, every side
    /// effect replaces its file (`tree::sync`).
    pub(super) fn render_after(
        &self,
        root: &Path,
        written: Option<&str>,
    ) -> Result<(), RenderError> {
        let state_path = root.join(STATE_FILE);
        let holds_machine = state_path.is_file();
        // Empty but for our own lock is empty.
        let empty = match fs::read_dir(root) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .all(|entry| entry.file_name() == ".pacer-sim"),
            Err(error) if error.kind() == io::ErrorKind::NotFound => true,
            Err(error) => return Err(io_error(root)(error)),
        };
        if !holds_machine && !empty {
            return Err(RenderError::NotEmpty(root.to_owned()));
        }
        let tree = build(self);
        sync(root, &tree, written)?;
        let state = serde_json::to_string_pretty(self).map_err(|source| RenderError::State {
            path: state_path.clone(),
            source,
        })?;
        write_atomically(&state_path, state.as_bytes(), 0o644)
    }

    /// Loads the machine kept in `root`; `None` when `root` holds none.
    pub fn load(root: &Path) -> Result<Option<SimMachine>, RenderError> {
        let path = root.join(STATE_FILE);
        match fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|source| RenderError::State { path, source }),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(io_error(&path)(error)),
        }
    }
}
