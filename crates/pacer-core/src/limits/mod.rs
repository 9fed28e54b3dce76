// SPDX-License-Identifier: GPL-3.0-or-later
//! The limit chain: why a core type runs slower than its settings ask (`docs/kernel.md` 8).
//!
//! Between what the settings request and what the CPUs deliver stand four links, each able
//! to set a ceiling: the firmware (boost, the highest frequency the driver offers), the
//! platform (the BIOS limit, a maximum frequency lowered behind the user's back, as some
//! machines do on waking), thermal cooling (cooling devices, Intel's throttle counters) and
//! power (the package's RAPL limits). For each core type the chain reads every link and
//! names the one that holds the CPUs back now: the [`Limiter`].
//!
//! The files are found once and then read once per refresh ([`LimitReader`], `reader`,
//! with the thermal and power links in `thermal` and `power`); the readings of the last
//! seconds are kept ([`LimitWatch`], `watch`), because delivered frequency, throttle
//! counters and energy only mean something over time; and the verdict is worked out from
//! them (`verdict`). Only what was read is said: a link that could not be read is unknown.

mod power;
mod reader;
mod thermal;
mod verdict;
mod watch;

#[cfg(test)]
mod tests;

use std::time::SystemTime;

use serde::Serialize;

use crate::values::{CoreType, Khz};

pub use power::PowerLink;
pub use reader::{LimitReader, LimitReading, PolicyReading};
pub use thermal::{CoolingDevice, CoolingKind, ThermalLink, ThrottleReading};
pub use watch::LimitWatch;

/// The link of the chain that holds a core type back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limiter {
    /// Nothing holds the cores below the hardware's highest frequency.
    None,
    /// The settings themselves ask for less: a lowered maximum, the generic `powersave`
    /// governor.
    Settings,
    /// Boost off, or the driver's highest frequency or performance percentage lowered.
    Firmware,
    /// The BIOS limit, or a maximum frequency lowered by the kernel or firmware (a clamp
    /// left after resume).
    Platform,
    /// A cooling device in use, or throttle counters rising.
    Thermal,
    /// The package drawing what its power limit allows, with the limit below its default.
    Power,
}

impl Limiter {
    /// The links that can hold the cores, in the chain's order from the settings to the
    /// delivered frequency.
    pub const CHAIN: [Limiter; 5] = [
        Limiter::Settings,
        Limiter::Firmware,
        Limiter::Platform,
        Limiter::Thermal,
        Limiter::Power,
    ];

    /// The token of `pacerctl` and JSON: `none`, `settings`, `firmware`, …
    pub fn as_str(self) -> &'static str {
        match self {
            Limiter::None => "none",
            Limiter::Settings => "settings",
            Limiter::Firmware => "firmware",
            Limiter::Platform => "platform",
            Limiter::Thermal => "thermal",
            Limiter::Power => "power",
        }
    }

    /// Whether this is a limit the user did not choose: worth a word in the tray.
    pub fn is_outside_settings(self) -> bool {
        !matches!(self, Limiter::None | Limiter::Settings)
    }
}

/// What the settings ask of one core type (`docs/kernel.md` 8.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingsLink {
    /// The highest frequency the settings allow, where they allow less than the hardware's
    /// highest: the maximum the user or profile set, or the minimum under the generic
    /// `powersave` governor.
    pub ceiling_khz: Option<Khz>,
    /// The maximum frequency set before the kernel or firmware lowered it (a clamp found by
    /// the helper's recording across a sleep).
    pub asked_max_khz: Option<Khz>,
}

/// The firmware's side (`docs/kernel.md` 8.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FirmwareLink {
    /// `cpuinfo_max_freq` now (lower with boost off on some drivers).
    pub max_khz: Option<Khz>,
    /// Turbo/boost allowed (`cpufreq/boost`, or not `intel_pstate/no_turbo`).
    pub boost: Option<bool>,
    /// intel_pstate's `max_perf_pct`.
    pub max_perf_pct: Option<u32>,
    /// amd-pstate's `amd_pstate_highest_perf`.
    pub highest_perf: Option<u32>,
    /// amd-pstate's `amd_pstate_max_freq`: the highest frequency with boost.
    pub boost_max_khz: Option<Khz>,
    pub ceiling_khz: Option<Khz>,
}

/// The platform's side (`docs/kernel.md` 8.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlatformLink {
    /// `bios_limit`, where the driver has one (acpi-cpufreq).
    pub bios_limit_khz: Option<Khz>,
    /// `/sys/firmware/acpi/platform_profile`.
    pub platform_profile: Option<String>,
    /// The maximum frequency now, where it is lower than the one asked for before a sleep.
    pub clamped_max_khz: Option<Khz>,
    pub ceiling_khz: Option<Khz>,
}

/// The chain of one core type, and its verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoreLimits {
    /// `None` where all cores are alike.
    pub core_type: Option<CoreType>,
    pub policies: Vec<u32>,
    /// The highest frequency the settings ask for.
    pub requested_khz: Option<Khz>,
    /// The highest the hardware can run at, boost included.
    pub hardware_max_khz: Option<Khz>,
    /// What the CPUs ran at over the last seconds, on average over the policies.
    pub delivered_khz: Option<Khz>,
    /// Where the delivered frequency comes from: `cpuinfo_avg_freq` or `scaling_cur_freq`.
    pub delivered_source: Option<&'static str>,
    pub limiter: Limiter,
    /// The frequency the limiter holds the cores at, where it is known.
    pub ceiling_khz: Option<Khz>,
    /// The policies the limiter holds (all of the core type's, or some).
    pub held_policies: Vec<u32>,
    /// Since when the limiter has held them, as far as the watch saw.
    #[serde(serialize_with = "serialize_since")]
    pub since: Option<SystemTime>,
    pub settings: SettingsLink,
    pub firmware: FirmwareLink,
    pub platform: PlatformLink,
    pub thermal: ThermalLink,
    pub power: PowerLink,
}

fn serialize_since<S: serde::Serializer>(
    since: &Option<SystemTime>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match since {
        Some(time) => crate::rfc3339::serialize(time, serializer),
        None => serializer.serialize_none(),
    }
}
