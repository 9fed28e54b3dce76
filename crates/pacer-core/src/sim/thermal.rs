// SPDX-License-Identifier: GPL-3.0-or-later
//! The thermal links of a simulated machine (`docs/kernel.md` 8): the cooling devices that
//! cap CPU frequencies (drivers/thermal/thermal_sysfs.c, drivers/acpi/processor_thermal.c,
//! drivers/thermal/cpufreq_cooling.c), writes to their `cur_state`, and Intel's throttle
//! counters (arch/x86/kernel/cpu/mce/therm_throt.c).

use super::rules::WriteError;
use super::tree::Tree;
use super::{SimCooling, SimMachine, SimPolicy};

const THERMAL: &str = "sys/devices/virtual/thermal";
/// The ACPI processor devices (`ACPI0007`, declared as devices under `\_SB`).
const ACPI_PROCESSORS: &str = "sys/devices/LNXSYSTM:00/LNXSYBUS:00";
/// processor_thermal.c: each cpufreq step takes 20 % of `cpuinfo_max_freq` off
/// (`cpufreq_thermal_reduction_pctg`), up to three steps (`cpufreq_thermal_max_step`).
const REDUCTION_PCT: u32 = 20;
const CPUFREQ_STEPS: u8 = 3;

/// The throttle counters of one CPU's `thermal_throttle/`, all `%lu` and read-only: the
/// core's always, the package's where the CPU reports package thermal status
/// (`X86_FEATURE_PTS`, every modelled Intel part). The power-limit counters need the
/// `int_pln_enable` boot option and are left out.
pub(super) const THROTTLE_FILES: [&str; 6] = [
    "core_throttle_count",
    "core_throttle_max_time_ms",
    "core_throttle_total_time_ms",
    "package_throttle_count",
    "package_throttle_max_time_ms",
    "package_throttle_total_time_ms",
];

/// `thermal_throttle/` of `cpu`.
pub(super) fn throttle_dir(cpu: u32) -> String {
    format!("sys/devices/system/cpu/cpu{cpu}/thermal_throttle")
}

/// One cooling device: its type, highest state and state now.
struct Device {
    kind: String,
    max_state: u32,
    cur_state: u32,
}

impl SimMachine {
    /// The cooling devices, numbered as the kernel registers them: the ACPI processors first,
    /// one per CPU; or the cpufreq policies, one per policy.
    fn cooling_devices(&self) -> Vec<Device> {
        match self.cooling {
            SimCooling::None => Vec::new(),
            SimCooling::AcpiProcessor { step, t_states } => self
                .cpus
                .iter()
                .map(|cpu| Device {
                    kind: "Processor".into(),
                    max_state: u32::from(CPUFREQ_STEPS) + u32::from(t_states.saturating_sub(1)),
                    cur_state: u32::from(step) + u32::from(cpu.t_state),
                })
                .collect(),
            SimCooling::Cpufreq => self
                .policies
                .iter()
                .map(|policy| Device {
                    kind: format!(
                        "cpufreq-cpu{}",
                        policy.cpus.first().copied().unwrap_or(policy.id)
                    ),
                    max_state: policy
                        .opps
                        .as_ref()
                        .map_or(0, |opps| opps.len().saturating_sub(1))
                        as u32,
                    cur_state: u32::from(policy.cooling_state),
                })
                .collect(),
        }
    }

    /// The frequency `policy`'s cooling device holds it to (a `FREQ_QOS_MAX` request, so it
    /// shows in `scaling_max_freq`), where it holds it below the top.
    pub(super) fn cooling_cap_khz(&self, policy: &SimPolicy) -> Option<u32> {
        match self.cooling {
            SimCooling::AcpiProcessor { step, .. } if step > 0 => {
                let percent = u64::from(100 - u32::from(step) * REDUCTION_PCT);
                u32::try_from(u64::from(policy.hw_max_khz) * percent / 100).ok()
            }
            SimCooling::Cpufreq if policy.cooling_state > 0 => {
                let opps = policy.opps.as_ref()?;
                let index = opps
                    .len()
                    .checked_sub(1 + usize::from(policy.cooling_state))?;
                Some(opps[index].khz)
            }
            _ => None,
        }
    }

    /// A write to `cooling_deviceN/cur_state` (`cur_state_store()`): a number up to
    /// `max_state` or EINVAL. A `Processor` device takes states up to 3 as the package's
    /// cpufreq step, and above 3 sets step 3 and the CPU's T-state
    /// (`processor_set_cur_state()`); a `cpufreq-cpuN` device holds its policy to the
    /// state-th operating point from the top.
    pub(super) fn write_cooling(&mut self, device: usize, value: &str) -> Result<(), WriteError> {
        let max_state = self
            .cooling_devices()
            .get(device)
            .map(|d| d.max_state)
            .ok_or(WriteError::NoFile)?;
        // sscanf("%ld"): a leading number, negative refused.
        let state: i64 = value
            .trim_start()
            .split(|c: char| !(c.is_ascii_digit() || c == '-'))
            .next()
            .and_then(|n| n.parse().ok())
            .ok_or(WriteError::Invalid)?;
        let state = u32::try_from(state)
            .ok()
            .filter(|s| *s <= max_state)
            .ok_or(WriteError::Invalid)?;
        let narrow = |n: u32| u8::try_from(n).map_err(|_| WriteError::Invalid);
        match &mut self.cooling {
            SimCooling::AcpiProcessor { step, .. } => {
                let cpufreq = state.min(u32::from(CPUFREQ_STEPS));
                *step = narrow(cpufreq)?;
                self.cpus[device].t_state = narrow(state - cpufreq)?;
            }
            SimCooling::Cpufreq => self.policies[device].cooling_state = narrow(state)?,
            SimCooling::None => return Err(WriteError::NoFile),
        }
        Ok(())
    }
}

/// The cooling devices under `/sys/devices/virtual/thermal` and their class links; a
/// `Processor` device links to its ACPI processor, which links to its CPU
/// (`physical_node`, and the CPU back through `firmware_node`) and to the device
/// (`thermal_cooling`).
pub(super) fn cooling_files(tree: &mut Tree, machine: &SimMachine) {
    for (n, device) in machine.cooling_devices().into_iter().enumerate() {
        let dir = format!("{THERMAL}/cooling_device{n}");
        tree.ro(format!("{dir}/type"), &device.kind);
        tree.ro(format!("{dir}/max_state"), device.max_state);
        tree.rw(format!("{dir}/cur_state"), device.cur_state);
        tree.link(
            format!("sys/class/thermal/cooling_device{n}"),
            format!("../../devices/virtual/thermal/cooling_device{n}"),
        );
        if let (SimCooling::AcpiProcessor { .. }, Some(cpu)) =
            (machine.cooling, machine.cpus.get(n))
        {
            let acpi = format!("LNXSYSTM:00/LNXSYBUS:00/ACPI0007:{n:02x}");
            tree.link(format!("{dir}/device"), format!("../../../{acpi}"));
            let processor = format!("{ACPI_PROCESSORS}/ACPI0007:{n:02x}");
            tree.link(
                format!("{processor}/physical_node"),
                format!("../../../system/cpu/cpu{}", cpu.id),
            );
            tree.link(
                format!("{processor}/thermal_cooling"),
                format!("../../../virtual/thermal/cooling_device{n}"),
            );
            tree.link(
                format!("sys/devices/system/cpu/cpu{}/firmware_node", cpu.id),
                format!("../../../{acpi}"),
            );
        }
    }
}

/// Each online CPU's `thermal_throttle/` (made when the CPU comes online), counters at 0
/// until the ticker moves them.
pub(super) fn throttle_files(tree: &mut Tree, machine: &SimMachine) {
    if machine.throttle.is_none() {
        return;
    }
    for cpu in machine.cpus.iter().filter(|cpu| cpu.online) {
        for file in THROTTLE_FILES {
            tree.live(format!("{}/{file}", throttle_dir(cpu.id)), 0o444, 0);
        }
    }
}

/// One CPU's throttle counters, in the order of [`THROTTLE_FILES`].
pub(super) type Counters = [u64; 6];

/// Advances one CPU's counters by a tick of `ms` milliseconds throttled (core, package):
/// each tick is one event from threshold high to low, counted at its start and timed at
/// its end (`therm_throt_process()`).
pub(super) fn advance(counters: &mut Counters, core: bool, package: bool, ms: u64) {
    for (hot, at) in [(core, 0), (package, 3)] {
        if hot {
            counters[at] += 1;
            counters[at + 1] = counters[at + 1].max(ms);
            counters[at + 2] += ms;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_throttled_tick_counts_one_event_and_its_time() {
        let mut counters = [0; 6];
        advance(&mut counters, true, false, 100);
        advance(&mut counters, true, false, 40);
        assert_eq!(counters, [2, 100, 140, 0, 0, 0]);
        advance(&mut counters, false, true, 10);
        assert_eq!(counters, [2, 100, 140, 1, 10, 10]);
    }

    #[test]
    fn processor_steps_take_a_fifth_of_the_maximum_each() {
        let mut machine = crate::sim::model("intel-hybrid").unwrap();
        assert_eq!(machine.cooling_cap_khz(&machine.policies[8]), None);
        machine.write_cooling(8, "3\n").unwrap();
        // The step is the package's: every CPU, P- and E-cores alike.
        assert_eq!(
            machine.cooling_cap_khz(&machine.policies[8]),
            Some(1_360_000)
        );
        assert_eq!(
            machine.cooling_cap_khz(&machine.policies[0]),
            Some(1_880_000)
        );
        machine.write_cooling(8, "10").unwrap();
        assert_eq!(machine.cpus[8].t_state, 7);
        assert_eq!(machine.write_cooling(8, "11"), Err(WriteError::Invalid));
        assert_eq!(machine.write_cooling(8, "-1"), Err(WriteError::Invalid));
        assert_eq!(machine.write_cooling(99, "1"), Err(WriteError::NoFile));
    }
}
