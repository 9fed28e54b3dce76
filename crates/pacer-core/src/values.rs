// SPDX-License-Identifier: GPL-3.0-or-later
//! Value types for what cpufreq and friends print, each parsed strictly so that a value that
//! exists is one the kernel could have printed. Facts: `docs/kernel.md` 1–3.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::i18n::{fill, gettext};

/// A frequency in kHz, the unit of every cpufreq file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Khz(pub u32);

impl Khz {
    /// Rounded to the nearest MHz (without overflowing near `u32::MAX` kHz).
    pub fn mhz(self) -> u32 {
        self.0 / 1000 + u32::from(self.0 % 1000 >= 500)
    }

    /// The frequency for people: "4.2 GHz" to the nearest 10 MHz, "400 MHz" below 1 GHz.
    pub fn words(self) -> String {
        let mhz = self.mhz();
        if mhz < 1000 {
            return fill(gettext("{mhz} MHz"), &[("mhz", &mhz)]);
        }
        let ghz = format!("{:.2}", f64::from(mhz) / 1000.0);
        let ghz = ghz.trim_end_matches('0').trim_end_matches('.');
        fill(gettext("{ghz} GHz"), &[("ghz", &ghz)])
    }
}

impl FromStr for Khz {
    type Err = ();
    /// `"%u\n"` with the newline already stripped: digits only, no sign, fits in 32 bits.
    fn from_str(text: &str) -> Result<Self, ()> {
        parse_decimal(text).map(Khz)
    }
}

/// Parses the kernel's `%u`/`%lu` output for a non-negative number: ASCII digits only (the
/// standard parsers also take a sign, which the kernel never prints), within `T`'s range.
pub(crate) fn parse_decimal<T: FromStr>(text: &str) -> Result<T, ()> {
    if text.is_empty() || text.len() > 20 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(());
    }
    text.parse().map_err(|_| ())
}

/// A plain non-negative number file (`cpu_capacity`, `max_energy_range_uj`, rankings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Decimal<T>(pub T);

impl<T: FromStr> FromStr for Decimal<T> {
    type Err = ();
    fn from_str(text: &str) -> Result<Self, ()> {
        parse_decimal(text).map(Decimal)
    }
}

/// An energy-performance preference, as `energy_performance_preference` prints and accepts it.
///
/// The kernel prints one of the named preferences when the hardware value matches that name's
/// model-specific number, and the number otherwise; Pacer compares names, never numbers,
/// because the mapping differs between CPU models (intel_pstate.c `intel_epp_default[]`,
/// `docs/kernel.md` 2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Epp {
    /// Printed for a raw 0 that is not this model's `performance` value (Meteor Lake and later).
    Default,
    Performance,
    BalancePerformance,
    BalancePower,
    Power,
    /// A raw hardware value that matches none of the names.
    Raw(u8),
}

impl Epp {
    pub const NAMED: [Epp; 5] = [
        Epp::Default,
        Epp::Performance,
        Epp::BalancePerformance,
        Epp::BalancePower,
        Epp::Power,
    ];

    pub fn as_kernel_str(self) -> std::borrow::Cow<'static, str> {
        match self {
            Epp::Default => "default".into(),
            Epp::Performance => "performance".into(),
            Epp::BalancePerformance => "balance_performance".into(),
            Epp::BalancePower => "balance_power".into(),
            Epp::Power => "power".into(),
            Epp::Raw(value) => value.to_string().into(),
        }
    }
}

/// Why a text is not an EPP value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an energy-performance preference (a name such as balance_performance, or a number 0-255)")]
pub struct EppError(pub String);

impl FromStr for Epp {
    type Err = EppError;
    fn from_str(text: &str) -> Result<Self, EppError> {
        Ok(match text {
            "default" => Epp::Default,
            "performance" => Epp::Performance,
            "balance_performance" => Epp::BalancePerformance,
            "balance_power" => Epp::BalancePower,
            "power" => Epp::Power,
            _ => Epp::Raw(parse_decimal(text).map_err(|()| EppError(text.into()))?),
        })
    }
}

impl Epp {
    /// The named preference whose number is closest to `raw` (`docs/kernel.md` 9.2): on
    /// `driver`'s table where its name is given (amd-pstate's balance_power is 191), on
    /// intel_pstate's generic one otherwise; at equal distance, the one towards performance.
    /// A model may number its names differently (intel_pstate's overrides, 2.2), so this is
    /// a guide to what a number is near, not what the kernel would print.
    pub fn nearest_name(raw: u8, driver: Option<&str>) -> Epp {
        let balance_power = if driver.is_some_and(|name| name.starts_with("amd-pstate")) {
            191
        } else {
            192
        };
        let table = [
            (Epp::Performance, 0u8),
            (Epp::BalancePerformance, 128),
            (Epp::BalancePower, balance_power),
            (Epp::Power, 255),
        ];
        table
            .into_iter()
            .min_by_key(|(_, number)| raw.abs_diff(*number))
            .map_or(Epp::Performance, |(name, _)| name)
    }
}

impl fmt::Display for Epp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_kernel_str())
    }
}

impl Serialize for Epp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.as_kernel_str())
    }
}

impl<'de> Deserialize<'de> for Epp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        parsed_text(deserializer)
    }
}

/// A value that is read back from the text it is written as (a report saved as JSON), by the
/// same strict parser that reads the kernel's files.
fn parsed_text<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr,
    T::Err: fmt::Display,
{
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(serde::de::Error::custom)
}

/// A cpufreq governor name. Any registered governor may appear, so this is not a closed set,
/// but a name is what the kernel allows: 1–15 characters (`CPUFREQ_NAME_LEN` is 16 with the
/// terminator) of lower-case letters, digits and `_`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Governor(String);

/// Why a text is not a governor name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a cpufreq governor name")]
pub struct GovernorError(pub String);

impl Governor {
    pub const SCHEDUTIL: &'static str = "schedutil";
    pub const PERFORMANCE: &'static str = "performance";
    pub const POWERSAVE: &'static str = "powersave";

    /// The kernel's own governors that Pacer names itself.
    pub fn schedutil() -> Governor {
        Governor(Self::SCHEDUTIL.to_owned())
    }

    pub fn performance() -> Governor {
        Governor(Self::PERFORMANCE.to_owned())
    }

    pub fn powersave() -> Governor {
        Governor(Self::POWERSAVE.to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is(&self, name: &str) -> bool {
        self.0 == name
    }
}

impl FromStr for Governor {
    type Err = GovernorError;
    fn from_str(text: &str) -> Result<Self, GovernorError> {
        let valid = (1..=15).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if valid {
            Ok(Governor(text.to_owned()))
        } else {
            Err(GovernorError(text.to_owned()))
        }
    }
}

impl<'de> Deserialize<'de> for Governor {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        parsed_text(deserializer)
    }
}

impl fmt::Display for Governor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The mode of the CPU frequency driver, where the driver has modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DriverMode {
    /// The driver picks frequencies itself (intel_pstate, amd-pstate-epp): no generic governors.
    Active,
    /// The driver takes frequencies from a generic governor (intel_cpufreq, amd-pstate).
    Passive,
    /// amd-pstate's guided autonomous mode: the platform picks within the governor's limits.
    Guided,
}

impl fmt::Display for DriverMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DriverMode::Active => "active",
            DriverMode::Passive => "passive",
            DriverMode::Guided => "guided",
        })
    }
}

/// Why a text is not a driver mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a driver mode (active, passive or guided)")]
pub struct DriverModeError(pub String);

impl FromStr for DriverMode {
    type Err = DriverModeError;
    fn from_str(text: &str) -> Result<Self, DriverModeError> {
        match text.parse::<DriverStatus>() {
            Ok(DriverStatus::Mode(mode)) => Ok(mode),
            _ => Err(DriverModeError(text.to_owned())),
        }
    }
}

/// What `intel_pstate/status` or `amd_pstate/status` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverStatus {
    Mode(DriverMode),
    /// `off` (intel_pstate) or `disable` (amd-pstate): the driver is not registered.
    Off,
}

impl FromStr for DriverStatus {
    type Err = ();
    fn from_str(text: &str) -> Result<Self, ()> {
        match text {
            "active" => Ok(DriverStatus::Mode(DriverMode::Active)),
            "passive" => Ok(DriverStatus::Mode(DriverMode::Passive)),
            "guided" => Ok(DriverStatus::Mode(DriverMode::Guided)),
            "off" | "disable" => Ok(DriverStatus::Off),
            _ => Err(()),
        }
    }
}

/// The kind of a core, where cores differ.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum CoreType {
    /// Intel P-cores (`cpu_core`), or the highest-capacity cores elsewhere.
    Performance,
    /// Intel E-cores (`cpu_atom`), or the lower-capacity cores elsewhere (Arm LITTLE).
    Efficiency,
    /// Intel LP E-cores (`cpu_lowpower`), outside the compute tile.
    LowPower,
}

impl CoreType {
    /// Every kind, fastest first.
    pub const ALL: [CoreType; 3] = [
        CoreType::Performance,
        CoreType::Efficiency,
        CoreType::LowPower,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CoreType::Performance => "performance",
            CoreType::Efficiency => "efficiency",
            CoreType::LowPower => "low-power",
        }
    }
}

/// A 0/1 flag file (`no_turbo`, `boost`, `smt/active`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag(pub bool);

impl FromStr for Flag {
    type Err = ();
    fn from_str(text: &str) -> Result<Self, ()> {
        match text {
            "0" => Ok(Flag(false)),
            "1" => Ok(Flag(true)),
            _ => Err(()),
        }
    }
}

/// The energy-performance bias, `cpuN/power/energy_perf_bias`: 0 (performance) to 15 (power).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Epb(u8);

impl Epb {
    pub fn new(value: u8) -> Option<Self> {
        (value <= 15).then_some(Epb(value))
    }

    pub fn value(self) -> u8 {
        self.0
    }
}

impl FromStr for Epb {
    type Err = ();
    fn from_str(text: &str) -> Result<Self, ()> {
        Epb::new(parse_decimal(text)?).ok_or(())
    }
}

/// What `/proc/sys/kernel/sched_energy_aware` reads (kernel/sched/topology.c
/// `sched_energy_aware_handler()`, `docs/kernel.md` 4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EasSysctl {
    /// Empty read (kernel 6.7+): EAS is impossible on this machine as it is set up now.
    Impossible,
    /// `0`: possible, but switched off by the administrator.
    Disabled,
    /// `1`: allowed (and, on 6.7+, possible).
    Enabled,
}

impl EasSysctl {
    pub fn as_kernel_str(self) -> &'static str {
        match self {
            EasSysctl::Impossible => "",
            EasSysctl::Disabled => "0",
            EasSysctl::Enabled => "1",
        }
    }
}

impl FromStr for EasSysctl {
    type Err = ();
    fn from_str(text: &str) -> Result<Self, ()> {
        match text {
            "" => Ok(EasSysctl::Impossible),
            "0" => Ok(EasSysctl::Disabled),
            "1" => Ok(EasSysctl::Enabled),
            _ => Err(()),
        }
    }
}

/// Governors, EPP values and driver modes cross D-Bus as the names the kernel prints (they
/// serialise as those names): a client's call carries the typed value, and the helper
/// parses and checks the text it receives like any other input.
macro_rules! travels_as_text {
    ($($value:ty),*) => {$(
        impl zbus::zvariant::Type for $value {
            const SIGNATURE: &'static zbus::zvariant::Signature = &zbus::zvariant::Signature::Str;
        }
    )*};
}
travels_as_text!(Governor, Epp, DriverMode);

#[cfg(test)]
mod tests;
