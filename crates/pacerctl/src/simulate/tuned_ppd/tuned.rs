// SPDX-License-Identifier: GPL-3.0-or-later
//! The TuneD side of the simulated tuned-ppd: which TuneD profile each power profile means
//! (`ppd.conf`) and what the stock TuneD profiles' `[cpu]` and `[acpi]` sections write
//! (`docs/power-profiles.md` 4.1), written to the simulated machine through the kernel's
//! rules.

use std::fmt;
use std::fs;

use pacer_core::i18n::{fill, gettext};
use pacer_core::sim::{SimDir, SimError, WriteError};

/// The power profiles tuned-ppd offers, in the order of `ppd.conf`'s `[profiles]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PpdProfile {
    PowerSaver,
    Balanced,
    Performance,
}

impl PpdProfile {
    pub const ALL: [PpdProfile; 3] = [
        PpdProfile::PowerSaver,
        PpdProfile::Balanced,
        PpdProfile::Performance,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PpdProfile::PowerSaver => "power-saver",
            PpdProfile::Balanced => "balanced",
            PpdProfile::Performance => "performance",
        }
    }

    pub fn parse(name: &str) -> Option<PpdProfile> {
        PpdProfile::ALL.into_iter().find(|p| p.name() == name)
    }

    /// What the TuneD profile `ppd.conf` maps this profile to sets (on AC: the simulated
    /// machine has no UPower, so `balanced-battery` never applies).
    fn tuned(self) -> TunedProfile {
        match self {
            // profiles/powersave/tuned.conf
            PpdProfile::PowerSaver => TunedProfile {
                governors: &["schedutil", "conservative", "powersave"],
                epp: "power",
                boost: false,
                platform_profiles: &["low-power", "quiet"],
            },
            // profiles/balanced/tuned.conf
            PpdProfile::Balanced => TunedProfile {
                governors: &["schedutil", "ondemand", "powersave"],
                epp: "balance_performance",
                boost: true,
                platform_profiles: &["balanced"],
            },
            // profiles/throughput-performance/tuned.conf
            PpdProfile::Performance => TunedProfile {
                governors: &["performance"],
                epp: "performance",
                boost: true,
                platform_profiles: &["performance"],
            },
        }
    }
}

/// The CPU settings of a stock TuneD profile: each list is "the first available".
struct TunedProfile {
    governors: &'static [&'static str],
    epp: &'static str,
    boost: bool,
    platform_profiles: &'static [&'static str],
}

/// Why a TuneD profile could not be applied.
#[derive(Debug)]
pub enum ApplyError {
    /// The kernel refused `value` in `path` (the simulated machine is as it was).
    Refused {
        path: String,
        value: String,
        error: WriteError,
    },
    /// The simulated machine's directory could not be read or written.
    Sim(SimError),
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplyError::Refused { path, value, error } => f.write_str(&fill(
                gettext("{path}: the kernel refuses {value}: {error}"),
                &[("path", path), ("value", value), ("error", error)],
            )),
            ApplyError::Sim(error) => error.fmt(f),
        }
    }
}

impl From<SimError> for ApplyError {
    fn from(error: SimError) -> Self {
        ApplyError::Sim(error)
    }
}

const CPUFREQ: &str = "/sys/devices/system/cpu/cpufreq";
const NO_TURBO: &str = "/sys/devices/system/cpu/intel_pstate/no_turbo";
const PLATFORM_PROFILE: &str = "/sys/firmware/acpi/platform_profile";

/// Applies the TuneD profile `profile` maps to, as TuneD's plugins write it. A write the
/// kernel refuses undoes the ones before it, so the machine stays as it was.
pub fn apply(dir: &SimDir, profile: PpdProfile) -> Result<(), ApplyError> {
    let mut done = Vec::new();
    let result = writes(dir, profile.tuned())?
        .into_iter()
        .try_for_each(|(path, value)| {
            let old = read(dir, &path);
            dir.write(&path, &value)?
                .map_err(|error| ApplyError::Refused {
                    path: path.clone(),
                    value,
                    error,
                })?;
            done.push((path, old));
            Ok(())
        });
    if result.is_err() {
        // Last first, so that a governor comes back before the EPP it allows.
        for (path, old) in done.into_iter().rev() {
            let Some(old) = old else { continue };
            match dir.write(&path, &old) {
                Ok(Ok(())) => {}
                Ok(Err(error)) => eprintln!("{path}: {error}"),
                Err(error) => eprintln!("{path}: {error}"),
            }
        }
    }
    result
}

/// The writes TuneD makes for `tuned`, in its order: the `[cpu]` plugin's commands one after
/// the other over every online CPU (governor, then boost, then EPP: their order in
/// `tuned/plugins/plugin_cpu.py`), then the `[acpi]` plugin's platform profile.
fn writes(dir: &SimDir, tuned: TunedProfile) -> Result<Vec<(String, String)>, SimError> {
    let machine = dir.machine()?;
    let policies: Vec<String> = machine
        .active_policies()
        .map(|policy| format!("{CPUFREQ}/policy{}", policy.id))
        .collect();
    let mut writes = Vec::new();
    for policy in &policies {
        let available = read(dir, &format!("{policy}/scaling_available_governors"));
        if let Some(governor) = first_available(tuned.governors, available.as_deref()) {
            writes.push((format!("{policy}/scaling_governor"), governor.to_owned()));
        }
    }
    // `_set_boost()`: the per-policy `boost` file where the kernel has one (6.11+), and on
    // intel_pstate `no_turbo` as well, its inverse.
    let boost = if tuned.boost { "1" } else { "0" };
    for policy in &policies {
        let path = format!("{policy}/boost");
        if read(dir, &path).is_some() {
            writes.push((path, boost.to_owned()));
        }
    }
    if read(dir, NO_TURBO).is_some() {
        let no_turbo = if tuned.boost { "0" } else { "1" };
        writes.push((NO_TURBO.to_owned(), no_turbo.to_owned()));
    }
    // `_set_energy_performance_preference()`: a name only where the policy lists it.
    for policy in &policies {
        let available = read(
            dir,
            &format!("{policy}/energy_performance_available_preferences"),
        );
        if let Some(epp) = first_available(&[tuned.epp], available.as_deref()) {
            writes.push((
                format!("{policy}/energy_performance_preference"),
                epp.to_owned(),
            ));
        }
    }
    let choices = read(dir, "/sys/firmware/acpi/platform_profile_choices");
    if let Some(choice) = first_available(tuned.platform_profiles, choices.as_deref()) {
        writes.push((PLATFORM_PROFILE.to_owned(), choice.to_owned()));
    }
    Ok(writes)
}

/// The first of `wanted` that the space-separated `available` lists (TuneD's `a|b|c`).
fn first_available(wanted: &[&'static str], available: Option<&str>) -> Option<&'static str> {
    let available = available?;
    wanted
        .iter()
        .copied()
        .find(|name| available.split_whitespace().any(|offered| offered == *name))
}

/// A file of the simulated machine, trimmed; `None` where it is missing or unreadable.
pub fn read(dir: &SimDir, path: &str) -> Option<String> {
    fs::read_to_string(dir.root().join(path.trim_start_matches('/')))
        .ok()
        .map(|text| text.trim_end().to_owned())
}

#[cfg(test)]
mod tests;
