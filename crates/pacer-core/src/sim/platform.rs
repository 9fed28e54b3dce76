// SPDX-License-Identifier: GPL-3.0-or-later
//! The platform's side of a simulated machine (`docs/kernel.md` 3 and 8): the ACPI platform
//! profile (drivers/acpi/platform_profile.c), amd-pstate's dynamic EPP that follows it
//! (Linux 7.1, drivers/cpufreq/amd-pstate.c), and what a suspend and resume does.

use super::lists::AMD_EPP_VALUES;
use super::rules::{boolean, WriteError};
use super::tree::Tree;
use super::{ResumeQuirk, SimDriver, SimMachine, PLATFORM_PROFILE};

/// `profile_names[]`, in the order the choices are listed.
const PROFILE_NAMES: [&str; 7] = [
    "low-power",
    "cool",
    "quiet",
    "balanced",
    "balanced-performance",
    "performance",
    "custom",
];
/// What amd-pstate's own platform-profile handlers offer (`amd_pstate_profile_probe()`).
const AMD_PSTATE_CHOICES: [&str; 3] = ["low-power", "balanced", "performance"];

impl SimMachine {
    /// Whether amd-pstate drives EPP itself: `dynamic_epp` on, in active mode.
    pub(super) fn dynamic_epp_on(&self) -> bool {
        matches!(&self.driver, SimDriver::AmdPstate { status, dynamic_epp: Some(true), .. }
            if status == "active")
    }

    /// The choices of every platform-profile handler together
    /// (`platform_profile_choices_show()`): those all of them offer, in `profile_names[]`
    /// order. With dynamic EPP on, amd-pstate registers a handler per CPU.
    fn profile_choices(&self) -> Vec<&'static str> {
        let Some(platform) = &self.platform_profile else {
            return Vec::new();
        };
        PROFILE_NAMES
            .into_iter()
            .filter(|name| platform.choices.iter().any(|c| c == name))
            .filter(|name| !self.dynamic_epp_on() || AMD_PSTATE_CHOICES.contains(name))
            .collect()
    }

    /// `platform_profile_store()`: a profile name or EINVAL (`custom` too); one some handler
    /// does not offer is EOPNOTSUPP. Every handler takes it, amd-pstate's by setting EPP.
    pub(super) fn write_platform_profile(&mut self, value: &str) -> Result<(), WriteError> {
        if self.platform_profile.is_none() {
            return Err(WriteError::NoFile);
        }
        if !PROFILE_NAMES.contains(&value) || value == "custom" {
            return Err(WriteError::Invalid);
        }
        if !self.profile_choices().contains(&value) {
            return Err(WriteError::NotSupported);
        }
        if let Some(platform) = &mut self.platform_profile {
            platform.profile = value.to_owned();
        }
        self.apply_dynamic_epp();
        Ok(())
    }

    /// Takes in a profile written straight to the file (power-profiles-daemon writes it so),
    /// where it is one the handlers offer.
    pub(super) fn absorb_platform_profile(&mut self, text: &str) {
        if self.profile_choices().contains(&text) {
            if let Some(platform) = &mut self.platform_profile {
                platform.profile = text.to_owned();
            }
            self.apply_dynamic_epp();
        }
    }

    /// With dynamic EPP on, the EPP of every policy under powersave follows the platform
    /// profile (`amd_pstate_set_dynamic_epp()`, `amd_pstate_profile_set()`): power under
    /// low-power, performance under performance, and under balanced the AC default,
    /// performance (the model runs on AC power; on battery it would be
    /// balance_performance).
    pub(super) fn apply_dynamic_epp(&mut self) {
        if !self.dynamic_epp_on() {
            return;
        }
        let profile = self
            .platform_profile
            .as_ref()
            .map_or("balanced", |p| p.profile.as_str());
        let epp = match profile {
            "low-power" => AMD_EPP_VALUES[3],
            _ => AMD_EPP_VALUES[0],
        };
        for policy in self
            .policies
            .iter_mut()
            .filter(|p| p.governor != "performance")
        {
            policy.epp_raw = Some(epp);
            policy.epp_written_raw = false;
        }
    }

    /// `amd_pstate/dynamic_epp` (Linux 7.1): a boolean, in active mode only (EINVAL
    /// otherwise); a change re-registers the driver, which resets governors and limits, and
    /// sets EPP from the profile or, turned off, to balance_performance.
    pub(super) fn write_dynamic_epp(&mut self, value: &str) -> Result<(), WriteError> {
        let SimDriver::AmdPstate {
            status,
            dynamic_epp: Some(current),
            ..
        } = &mut self.driver
        else {
            return Err(WriteError::NoFile);
        };
        let on = boolean(value)?;
        if status != "active" {
            return Err(WriteError::Invalid);
        }
        if *current == on {
            return Ok(());
        }
        *current = on;
        for policy in &mut self.policies {
            policy.governor = "powersave".into();
            policy.min_khz = policy.hw_min_khz;
            policy.max_khz = policy.hw_max_khz;
            policy.epp_raw = Some(AMD_EPP_VALUES[1]);
            policy.epp_written_raw = false;
        }
        self.apply_dynamic_epp();
        Ok(())
    }

    /// Puts the machine through a suspend and resume: what the kernel restores comes back
    /// as it was, and the model's resume quirk applies.
    pub fn resume(&mut self) {
        match &self.resume_quirk {
            Some(ResumeQuirk::MaxFreqClamp { policies, khz }) => {
                for policy in self
                    .policies
                    .iter_mut()
                    .filter(|p| policies.contains(&p.id))
                {
                    policy.max_khz = *khz;
                    policy.min_khz = policy.min_khz.min(*khz);
                    policy.cur_khz = policy.cur_khz.min(*khz);
                }
            }
            None => {}
        }
    }
}

/// `platform_profile` and `platform_profile_choices`, present while a handler is.
pub(super) fn platform_files(tree: &mut Tree, machine: &SimMachine) {
    let Some(platform) = &machine.platform_profile else {
        return;
    };
    tree.rw(PLATFORM_PROFILE, &platform.profile);
    tree.ro(
        format!("{PLATFORM_PROFILE}_choices"),
        machine.profile_choices().join(" "),
    );
}
