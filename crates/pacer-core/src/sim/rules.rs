// SPDX-License-Identifier: GPL-3.0-or-later
//! The kernel's rules for writes to a simulated machine: what each file accepts, the errno it
//! answers otherwise, and the side effects (`docs/kernel.md`; sections cited per rule).
//! This is the one code path for every write to a simulated machine: the helper's and the
//! tests' alike.

use std::fmt;

use crate::i18n::{fill, gettext};

use super::lists::{AMD_EPP_VALUES, EPP_NAMES, GENERIC_GOVERNORS};
use super::{SimDriver, SimMachine, SimPolicy, PLATFORM_PROFILE};

/// The kernel's answer to a write that fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteError {
    /// `EBUSY`: EPP above 0 under the performance policy (`docs/kernel.md` 2.3, 3); `off`
    /// while HWP is on (intel_pstate.c `intel_pstate_update_status()`, docs/kernel.md 2.1); any
    /// attribute of an inactive policy (cpufreq.c `show()` and `store()`, docs/kernel.md 1.1).
    Busy,
    /// `EINVAL`: a value the file does not take.
    Invalid,
    /// `EOPNOTSUPP`: `sched_energy_aware` when EAS is impossible (kernel/sched/topology.c
    /// `sched_energy_aware_handler()`, `docs/kernel.md` 4.3).
    NotSupported,
    /// `EACCES`: a read-only attribute opened for writing.
    ReadOnly,
    /// `ENOENT`: no such file on this machine.
    NoFile,
    /// `ENODATA`: a powercap constraint the zone cannot set (powercap_sys.c
    /// `store_constraint_*()`).
    NoData,
}

impl WriteError {
    pub fn errno(self) -> i32 {
        match self {
            WriteError::Busy => 16,
            WriteError::Invalid => 22,
            WriteError::NotSupported => 95,
            WriteError::ReadOnly => 13,
            WriteError::NoFile => 2,
            WriteError::NoData => 61,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            WriteError::Busy => "EBUSY",
            WriteError::Invalid => "EINVAL",
            WriteError::NotSupported => "EOPNOTSUPP",
            WriteError::ReadOnly => "EACCES",
            WriteError::NoFile => "ENOENT",
            WriteError::NoData => "ENODATA",
        }
    }

    /// The error as `std::io` reports it, so messages read as on hardware.
    pub fn to_io(self) -> std::io::Error {
        std::io::Error::from_raw_os_error(self.errno())
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = self.to_io().to_string();
        let message = message
            .split(" (os error")
            .next()
            .unwrap_or(&message)
            .to_owned();
        f.write_str(&fill(
            gettext("{message} ({name})"),
            &[("message", &message), ("name", &self.name())],
        ))
    }
}

impl std::error::Error for WriteError {}

const CPU: &str = "sys/devices/system/cpu/";
/// The governor a driver starts with after (re)registering: a setpolicy driver's own
/// powersave, or the kernel's default generic governor (schedutil in distribution kernels).
const SETPOLICY_DEFAULT: &str = "powersave";
const GENERIC_DEFAULT: &str = "schedutil";

/// What a sysfs store sees: the text with the newline `echo` adds removed.
fn value_of(text: &str) -> &str {
    text.strip_suffix('\n').unwrap_or(text).trim_end()
}

/// `kstrtouint`: a plain decimal number (a trailing newline already gone).
fn uint(text: &str) -> Result<u32, WriteError> {
    crate::values::parse_decimal(text).map_err(|()| WriteError::Invalid)
}

/// `kstrtoull(…, 10, …)`.
pub(super) fn uint64(text: &str) -> Result<u64, WriteError> {
    crate::values::parse_decimal(text).map_err(|()| WriteError::Invalid)
}

/// `kstrtou8(…, 0, …)`: decimal, `0x` hexadecimal or `0` octal, up to 255.
fn uint8_any_base(text: &str) -> Option<u8> {
    let (digits, radix) =
        if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            (hex, 16)
        } else if text.len() > 1 && text.starts_with('0') {
            (&text[1..], 8)
        } else {
            (text, 10)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u8::from_str_radix(digits, radix).ok()
}

/// `kstrtobool`: 0/1, y/n, on/off.
pub(super) fn boolean(text: &str) -> Result<bool, WriteError> {
    match text.to_ascii_lowercase().as_str() {
        "1" | "y" | "yes" | "on" | "true" => Ok(true),
        "0" | "n" | "no" | "off" | "false" => Ok(false),
        _ => Err(WriteError::Invalid),
    }
}

/// The device of a cooling device's `cur_state` path, through the class or the device.
fn cooling_device(path: &str) -> Option<usize> {
    let rest = path
        .strip_prefix("sys/class/thermal/")
        .or_else(|| path.strip_prefix("sys/devices/virtual/thermal/"))?;
    let (device, file) = rest.split_once('/')?;
    if file != "cur_state" {
        return None;
    }
    device.strip_prefix("cooling_device")?.parse().ok()
}

/// The zone and file of a powercap constraint's path, through the class or the device.
fn powercap_file(path: &str) -> Option<(&str, &str)> {
    let rest = path
        .strip_prefix("sys/class/powercap/")
        .or_else(|| path.strip_prefix("sys/devices/virtual/powercap/intel-rapl/"))?;
    let (dirs, file) = rest.rsplit_once('/')?;
    let zone = dirs.rsplit('/').next()?;
    file.starts_with("constraint_").then_some((zone, file))
}

impl SimMachine {
    /// Applies `value` written to `path` (relative to the root, as from `/`) by the kernel's
    /// rules. On error nothing changes.
    pub fn write(&mut self, path: &str, value: &str) -> Result<(), WriteError> {
        let path = path.trim_start_matches('/');
        let value = value_of(value);
        if path == "proc/sys/kernel/sched_energy_aware" {
            return self.write_eas(value);
        }
        if path == PLATFORM_PROFILE {
            return self.write_platform_profile(value);
        }
        if let Some(device) = cooling_device(path) {
            return self.write_cooling(device, value);
        }
        if let Some((zone, file)) = powercap_file(path) {
            return self.write_constraint(zone, file, value);
        }
        let Some(rest) = path.strip_prefix(CPU) else {
            return Err(WriteError::ReadOnly);
        };
        let parts: Vec<&str> = rest.split('/').collect();
        match parts.as_slice() {
            ["cpufreq", policy, file] => match policy.strip_prefix("policy").map(str::parse::<u32>)
            {
                Some(Ok(id)) => self.write_policy(id, file, value),
                _ => Err(WriteError::ReadOnly),
            },
            ["cpufreq", "boost"] => self.write_global_boost(value),
            ["intel_pstate", "status"] => self.write_intel_status(value),
            ["intel_pstate", "no_turbo"] => self.write_no_turbo(value),
            ["amd_pstate", "status"] => self.write_amd_status(value),
            ["amd_pstate", "dynamic_epp"] => self.write_dynamic_epp(value),
            [cpu, "power", "energy_perf_bias"] => {
                match cpu.strip_prefix("cpu").map(str::parse::<u32>) {
                    Some(Ok(id)) => self.write_epb(id, value),
                    _ => Err(WriteError::ReadOnly),
                }
            }
            _ => Err(WriteError::ReadOnly),
        }
    }

    fn policy_index(&self, id: u32) -> Result<usize, WriteError> {
        let index = self
            .policies
            .iter()
            .position(|policy| policy.id == id)
            .ok_or(WriteError::NoFile)?;
        // cpufreq's `store()` answers EBUSY for a policy whose CPUs are all offline.
        let active = self.active_policies().any(|policy| policy.id == id);
        if active {
            Ok(index)
        } else {
            Err(WriteError::Busy)
        }
    }

    fn write_policy(&mut self, id: u32, file: &str, value: &str) -> Result<(), WriteError> {
        let index = self.policy_index(id)?;
        match file {
            "scaling_governor" => self.write_governor(index, value),
            "energy_performance_preference" => self.write_epp(index, value),
            "scaling_min_freq" | "scaling_max_freq" => {
                let khz = uint(value)?;
                let policy = &mut self.policies[index];
                // A frequency QoS request: the effective limit is clamped to the hardware's,
                // and the minimum never above the maximum.
                let khz = khz.clamp(policy.hw_min_khz, policy.hw_max_khz);
                if file == "scaling_min_freq" {
                    policy.min_khz = khz.min(policy.max_khz);
                } else {
                    policy.max_khz = khz;
                    policy.min_khz = policy.min_khz.min(khz);
                }
                Ok(())
            }
            "boost" => {
                let on = boolean(value)?;
                match &mut self.policies[index].boost {
                    Some(boost) => {
                        *boost = on;
                        Ok(())
                    }
                    None => Err(WriteError::NoFile),
                }
            }
            // Any other attribute of the policy: read-only, or missing (SimDir::write says).
            _ => Err(WriteError::ReadOnly),
        }
    }

    /// `store_scaling_governor()`: a setpolicy driver takes only `performance` and
    /// `powersave` (`docs/kernel.md` 2.1); a target driver any registered governor.
    /// intel_pstate's EPP save and restore runs only when the policy changes
    /// (`intel_pstate_hwp_set()`, docs/kernel.md 2.4); amd-pstate pins EPP to 0 under performance
    /// and keeps it after (`amd_pstate_epp_update_limit()`, docs/kernel.md 3).
    fn write_governor(&mut self, index: usize, value: &str) -> Result<(), WriteError> {
        let setpolicy = !self.has_generic_governors();
        let governor = value.to_ascii_lowercase();
        let allowed = if setpolicy {
            governor == "performance" || governor == "powersave"
        } else {
            GENERIC_GOVERNORS.contains(&governor.as_str())
        };
        if !allowed {
            return Err(WriteError::Invalid);
        }
        let driver = self.driver.clone();
        let policy = &mut self.policies[index];
        if policy.governor == governor {
            return Ok(());
        }
        if setpolicy {
            match driver {
                SimDriver::IntelPstate { .. } => {
                    let current = policy.epp_raw.unwrap_or(0);
                    if governor == "performance" {
                        policy.epp_saved = Some(current);
                        policy.epp_raw = policy.epp_raw.map(|_| 0);
                    } else if let (Some(saved), 0) = (policy.epp_saved, current) {
                        // The kernel cannot tell a forced 0 from a chosen one: it restores.
                        policy.epp_raw = Some(saved);
                    }
                }
                SimDriver::AmdPstate { .. } if governor == "performance" => {
                    policy.epp_raw = policy.epp_raw.map(|_| 0);
                }
                _ => {}
            }
        }
        policy.governor = governor;
        // Back under powersave, dynamic EPP (Linux 7.1) takes the policy again.
        self.apply_dynamic_epp();
        Ok(())
    }

    /// `store_energy_performance_preference()` of intel_pstate.c and amd-pstate.c
    /// (`docs/kernel.md` 2.2, 3).
    fn write_epp(&mut self, index: usize, value: &str) -> Result<(), WriteError> {
        let active_mode = !self.has_generic_governors();
        let policy = &self.policies[index];
        if policy.epp_raw.is_none() {
            return Err(WriteError::NoFile);
        }
        let mut written_raw = false;
        let raw = match &self.driver {
            SimDriver::IntelPstate { epp_values, .. } => {
                if value == "default" {
                    epp_values[1]
                } else if let Some(index) = EPP_NAMES.iter().position(|name| *name == value) {
                    epp_values[index]
                } else {
                    // Raw numbers since 5.9; above 255 is EINVAL.
                    let number = uint(value)?;
                    u8::try_from(number).map_err(|_| WriteError::Invalid)?
                }
            }
            SimDriver::AmdPstate {
                status,
                dynamic_epp,
                ..
            } if status == "active" => {
                // Linux 7.1: refused while dynamic EPP is on; raw numbers taken.
                if *dynamic_epp == Some(true) {
                    return Err(WriteError::Busy);
                }
                if let Some(number) = uint8_any_base(value).filter(|_| dynamic_epp.is_some()) {
                    written_raw = true;
                    number
                } else if value == "default" {
                    // 7.1 writes the balanced default: on AC power, performance.
                    AMD_EPP_VALUES[if dynamic_epp.is_some() { 0 } else { 1 }]
                } else {
                    // Before 7.1 `sysfs_match_string()` only: raw numbers are EINVAL.
                    let index = EPP_NAMES
                        .iter()
                        .position(|name| *name == value)
                        .ok_or(WriteError::Invalid)?;
                    AMD_EPP_VALUES[index]
                }
            }
            _ => return Err(WriteError::NoFile),
        };
        // In active mode the performance policy allows only EPP 0 (`docs/kernel.md` 2.3, 3).
        if active_mode && policy.governor == "performance" && raw > 0 {
            return Err(WriteError::Busy);
        }
        self.policies[index].epp_raw = Some(raw);
        self.policies[index].epp_written_raw = written_raw;
        Ok(())
    }

    /// `intel_pstate/status`: `active` ↔ `passive` re-registers the driver, which resets the
    /// governor and limits (`docs/kernel.md` 2.1); `off` is refused while HWP is on
    /// (`intel_pstate_update_status()`).
    fn write_intel_status(&mut self, value: &str) -> Result<(), WriteError> {
        let SimDriver::IntelPstate { passive, .. } = &mut self.driver else {
            return Err(WriteError::NoFile);
        };
        let to_passive = match value {
            "active" => false,
            "passive" => true,
            "off" => return Err(WriteError::Busy),
            _ => return Err(WriteError::Invalid),
        };
        if *passive == to_passive {
            return Ok(());
        }
        *passive = to_passive;
        let governor = if to_passive {
            GENERIC_DEFAULT
        } else {
            SETPOLICY_DEFAULT
        };
        self.policies
            .iter_mut()
            .for_each(|policy| reset(policy, governor));
        Ok(())
    }

    fn write_no_turbo(&mut self, value: &str) -> Result<(), WriteError> {
        let SimDriver::IntelPstate { no_turbo, .. } = &mut self.driver else {
            return Err(WriteError::NoFile);
        };
        *no_turbo = uint(value)? > 0;
        Ok(())
    }

    /// `amd_pstate/status`: `active` (amd-pstate-epp), `passive` and `guided` (amd-pstate).
    fn write_amd_status(&mut self, value: &str) -> Result<(), WriteError> {
        let SimDriver::AmdPstate { status, .. } = &mut self.driver else {
            return Err(WriteError::NoFile);
        };
        match value {
            "active" | "passive" | "guided" => {}
            // Unregistering the driver is not modelled: the machine would lose cpufreq.
            "disable" => return Err(WriteError::NotSupported),
            _ => return Err(WriteError::Invalid),
        }
        if status == value {
            return Ok(());
        }
        let was_active = status == "active";
        *status = value.to_owned();
        if was_active != (value == "active") {
            let governor = if value == "active" {
                SETPOLICY_DEFAULT
            } else {
                GENERIC_DEFAULT
            };
            self.policies
                .iter_mut()
                .for_each(|policy| reset(policy, governor));
        }
        self.apply_dynamic_epp();
        Ok(())
    }

    fn write_global_boost(&mut self, value: &str) -> Result<(), WriteError> {
        let on = boolean(value)?;
        match &mut self.driver {
            SimDriver::AmdPstate { boost, .. } | SimDriver::CpufreqDt { boost } => {
                *boost = on;
                Ok(())
            }
            _ => Err(WriteError::NoFile),
        }
    }

    /// `energy_perf_bias`: 0–15 or a name (with hyphens, unlike EPP)
    /// (arch/x86/kernel/cpu/intel_epb.c, `docs/kernel.md` 1.3).
    fn write_epb(&mut self, id: u32, value: &str) -> Result<(), WriteError> {
        let hybrid = self.model.starts_with("intel-hybrid");
        let cpu = self
            .cpus
            .iter_mut()
            .find(|cpu| cpu.id == id)
            .ok_or(WriteError::NoFile)?;
        if cpu.epb.is_none() {
            return Err(WriteError::NoFile);
        }
        let epb = match value {
            "performance" => 0,
            "balance-performance" => 4,
            // 7 on Alder Lake-L, Gracemont and Raptor Lake-P, 6 elsewhere.
            "normal" => {
                if hybrid {
                    7
                } else {
                    6
                }
            }
            "balance-power" => 8,
            "power" => 15,
            _ => {
                let number = uint(value)?;
                u8::try_from(number)
                    .ok()
                    .filter(|n| *n <= 15)
                    .ok_or(WriteError::Invalid)?
            }
        };
        cpu.epb = Some(epb);
        Ok(())
    }

    /// `sched_energy_aware` (`docs/kernel.md` 4.3): refused with EOPNOTSUPP when EAS is
    /// impossible, else 0 or 1.
    fn write_eas(&mut self, value: &str) -> Result<(), WriteError> {
        if !self.eas_support {
            return Err(WriteError::NoFile);
        }
        if !self.eas_possible() {
            return Err(WriteError::NotSupported);
        }
        self.eas_knob = match value {
            "0" => false,
            "1" => true,
            _ => return Err(WriteError::Invalid),
        };
        Ok(())
    }
}

/// What re-registering a driver does to a policy: the start-up governor, the hardware
/// limits, and no saved EPP.
fn reset(policy: &mut SimPolicy, governor: &str) {
    policy.governor = governor.to_owned();
    policy.min_khz = policy.hw_min_khz;
    policy.max_khz = policy.hw_max_khz;
    policy.epp_saved = None;
}
