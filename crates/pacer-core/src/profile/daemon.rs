// SPDX-License-Identifier: GPL-3.0-or-later
//! What a power-profile daemon says about itself, and which daemon it is
//! (`docs/power-profiles.md` 1, 4).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize, Serializer};

use crate::bounded::bounded_text;
use zbus::zvariant::OwnedValue;

/// Who serves the power-profiles API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DaemonKind {
    PowerProfilesDaemon,
    TunedPpd,
    TlpPd,
    System76Power,
    Unknown,
}

impl DaemonKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DaemonKind::PowerProfilesDaemon => "power-profiles-daemon",
            DaemonKind::TunedPpd => "tuned-ppd",
            DaemonKind::TlpPd => "tlp-pd",
            DaemonKind::System76Power => "system76-power",
            DaemonKind::Unknown => "unknown",
        }
    }
}

impl fmt::Display for DaemonKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A power-profiles-daemon version, `major.minor`. Missing means 0.13 or older: `Version`
/// appeared in 0.20.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PpdVersion {
    pub major: u32,
    pub minor: u32,
}

impl PpdVersion {
    /// The newest version without a `Version` property.
    pub const LEGACY: PpdVersion = PpdVersion::new(0, 13);

    pub const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }

    /// Parses `0.30`, `0.21.1`; anything else (`tlp-pd 1.10.1`) is not a ppd version.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        if parts.any(|part| part.parse::<u32>().is_err()) {
            return None;
        }
        Some(Self { major, minor })
    }

    pub fn at_least(self, major: u32, minor: u32) -> bool {
        self.cmp(&PpdVersion::new(major, minor)) != Ordering::Less
    }
}

/// A profile hold (`ActiveProfileHolds`): an application keeping a profile on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hold {
    pub application_id: String,
    pub profile: String,
    pub reason: String,
}

/// One entry of `Profiles`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProfileInfo {
    pub profile: String,
    /// `Driver` (≤ 0.13, kept later: `multiple` when both kinds handle it).
    pub driver: Option<String>,
    pub cpu_driver: Option<String>,
    pub platform_driver: Option<String>,
}

/// The profile daemon's state as read from the bus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProfileState {
    pub daemon: DaemonKind,
    /// `Version` as the daemon prints it (absent before power-profiles-daemon 0.20).
    pub version: Option<String>,
    pub active: String,
    #[serde(serialize_with = "profile_names")]
    pub available: Vec<ProfileInfo>,
    pub cpu_driver: Option<String>,
    pub platform_driver: Option<String>,
    /// `PerformanceDegraded`: why performance is limited (`lap-detected`,
    /// `high-operating-temperature`); `None` when it is not.
    pub degraded: Option<String>,
    pub holds: Vec<Hold>,
    /// The bus name it answered on.
    pub bus_name: String,
    /// `BatteryAware` (0.30): whether balanced follows the battery.
    pub battery_aware: Option<bool>,
    /// UPower's `OnBattery`, when UPower answers.
    pub on_battery: Option<bool>,
}

fn profile_names<S: Serializer>(
    profiles: &[ProfileInfo],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(profiles.iter().map(|info| &info.profile))
}

impl ProfileState {
    /// The power-profiles-daemon version, when this is power-profiles-daemon.
    pub fn ppd_version(&self) -> Option<PpdVersion> {
        if self.daemon != DaemonKind::PowerProfilesDaemon {
            return None;
        }
        Some(match &self.version {
            Some(text) => PpdVersion::parse(text).unwrap_or(PpdVersion::LEGACY),
            None => PpdVersion::LEGACY,
        })
    }

    pub fn profile_names(&self) -> impl Iterator<Item = &str> {
        self.available.iter().map(|info| info.profile.as_str())
    }
}

/// Properties as `GetAll` returned them. Values of an unexpected type are treated as absent
/// (python-dbusmock's template, for one, sends `ActiveProfileHolds` as `a(aa{sv})`).
pub type Properties = HashMap<String, OwnedValue>;

/// The most entries of a list the daemon sends that are kept (`Profiles`,
/// `ActiveProfileHolds`): any application may hold a profile, with a reason of its own making
/// ([`bounded_text`] keeps each text short), and what Pacer and its helper keep of it must
/// stay bounded.
pub const LIST_LIMIT: usize = 32;

fn string(properties: &Properties, name: &str) -> Option<String> {
    properties
        .get(name)
        .and_then(|value| String::try_from(value.try_clone().ok()?).ok())
        .map(bounded_text)
}

/// A list of string dictionaries, sent as `aa{sv}` (as documented) or `aa{ss}` (as
/// python-dbusmock's template sends holds); non-string values are left out.
fn dicts(properties: &Properties, name: &str) -> Option<Vec<HashMap<String, String>>> {
    let value = properties.get(name)?;
    if let Ok(entries) = Vec::<HashMap<String, OwnedValue>>::try_from(value.try_clone().ok()?) {
        return Some(
            entries
                .into_iter()
                .map(|entry| {
                    entry
                        .into_iter()
                        .filter_map(|(key, value)| Some((key, String::try_from(value).ok()?)))
                        .collect()
                })
                .collect(),
        );
    }
    Vec::<HashMap<String, String>>::try_from(value.try_clone().ok()?).ok()
}

fn dict_string(dict: &HashMap<String, String>, key: &str) -> Option<String> {
    dict.get(key)
        .filter(|text| !text.is_empty())
        .map(|text| bounded_text(text.clone()))
}

/// Which of the daemon's properties had a shape Pacer could not read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Oddities(pub Vec<String>);

/// Builds the state from `GetAll`'s answer and the owner's process name (`/proc/PID/comm`).
/// `None` when even `ActiveProfile` is missing: nothing to show.
pub fn state_from_properties(
    properties: &Properties,
    bus_name: &str,
    process_name: Option<&str>,
) -> (Option<ProfileState>, Oddities) {
    let mut oddities = Oddities::default();
    let Some(active) = string(properties, "ActiveProfile") else {
        oddities.0.push("ActiveProfile".into());
        return (None, oddities);
    };
    let available: Vec<ProfileInfo> = match dicts(properties, "Profiles") {
        Some(entries) => entries
            .iter()
            .take(LIST_LIMIT)
            .filter_map(|entry| {
                Some(ProfileInfo {
                    profile: dict_string(entry, "Profile")?,
                    driver: dict_string(entry, "Driver"),
                    cpu_driver: dict_string(entry, "CpuDriver"),
                    platform_driver: dict_string(entry, "PlatformDriver"),
                })
            })
            .collect(),
        None => {
            oddities.0.push("Profiles".into());
            Vec::new()
        }
    };
    let holds = match properties.get("ActiveProfileHolds") {
        None => Vec::new(),
        Some(_) => match dicts(properties, "ActiveProfileHolds") {
            Some(entries) => entries
                .iter()
                .take(LIST_LIMIT)
                .map(|entry| Hold {
                    application_id: dict_string(entry, "ApplicationId").unwrap_or_default(),
                    profile: dict_string(entry, "Profile").unwrap_or_default(),
                    reason: dict_string(entry, "Reason").unwrap_or_default(),
                })
                .collect(),
            None => {
                oddities.0.push("ActiveProfileHolds".into());
                Vec::new()
            }
        },
    };
    let version = string(properties, "Version").filter(|v| !v.is_empty());
    let daemon = identify(process_name, version.as_deref(), &available);

    // ≥ 0.20 names the drivers per profile; ≤ 0.13 has one `Driver` for all.
    let entry = available
        .iter()
        .find(|info| info.profile == active)
        .or_else(|| available.first());
    let (mut cpu_driver, mut platform_driver) = (
        entry.and_then(|info| info.cpu_driver.clone()),
        entry.and_then(|info| info.platform_driver.clone()),
    );
    if cpu_driver.is_none() && platform_driver.is_none() {
        match entry.and_then(|info| info.driver.as_deref()) {
            Some(driver @ ("intel_pstate" | "amd_pstate")) => cpu_driver = Some(driver.into()),
            Some(driver @ "platform_profile") => platform_driver = Some(driver.into()),
            _ => {}
        }
    }
    let battery_aware = properties
        .get("BatteryAware")
        .and_then(|value| bool::try_from(value).ok());
    let state = ProfileState {
        daemon,
        version,
        active,
        available,
        cpu_driver,
        platform_driver,
        degraded: string(properties, "PerformanceDegraded").filter(|text| !text.is_empty()),
        holds,
        bus_name: bus_name.to_owned(),
        battery_aware,
        on_battery: None,
    };
    (Some(state), oddities)
}

/// Tells the daemons apart: by the owner's process name first, then by what it reports.
pub fn identify(
    process_name: Option<&str>,
    version: Option<&str>,
    profiles: &[ProfileInfo],
) -> DaemonKind {
    // `comm` is cut to 15 characters: "power-profiles-daemon" reads "power-profiles-".
    match process_name {
        Some(name) if name.starts_with("power-profiles") => return DaemonKind::PowerProfilesDaemon,
        Some("tuned" | "tuned-ppd") => return DaemonKind::TunedPpd,
        Some("tlp-pd") => return DaemonKind::TlpPd,
        Some(name) if name.starts_with("system76-power") => return DaemonKind::System76Power,
        _ => {}
    }
    if version.is_some_and(|v| v.starts_with("tlp-pd")) {
        return DaemonKind::TlpPd;
    }
    let drivers: Vec<&str> = profiles
        .iter()
        .filter_map(|info| info.driver.as_deref())
        .collect();
    if drivers.contains(&"tuned") {
        return DaemonKind::TunedPpd;
    }
    if drivers.iter().any(|d| d.starts_with("tlp")) {
        return DaemonKind::TlpPd;
    }
    const PPD_DRIVERS: [&str; 6] = [
        "intel_pstate",
        "amd_pstate",
        "platform_profile",
        "placeholder",
        "multiple",
        "fake",
    ];
    if !drivers.is_empty() && drivers.iter().all(|d| PPD_DRIVERS.contains(d)) {
        return DaemonKind::PowerProfilesDaemon;
    }
    DaemonKind::Unknown
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn info(profile: &str, driver: &str) -> ProfileInfo {
        ProfileInfo {
            profile: profile.into(),
            driver: Some(driver.into()),
            cpu_driver: None,
            platform_driver: None,
        }
    }

    #[test]
    fn versions() {
        assert_eq!(PpdVersion::parse("0.30"), Some(PpdVersion::new(0, 30)));
        assert_eq!(PpdVersion::parse("0.21.1"), Some(PpdVersion::new(0, 21)));
        assert_eq!(PpdVersion::parse("tlp-pd 1.10.1"), None);
        assert_eq!(PpdVersion::parse("0.x"), None);
        assert!(PpdVersion::new(0, 21).at_least(0, 21));
        assert!(!PpdVersion::new(0, 20).at_least(0, 21));
        assert!(PpdVersion::new(1, 0).at_least(0, 30));
    }

    #[test]
    fn identification() {
        let ppd = [info("balanced", "intel_pstate")];
        assert_eq!(
            identify(Some("power-profiles-"), None, &[]),
            DaemonKind::PowerProfilesDaemon
        );
        assert_eq!(identify(None, None, &ppd), DaemonKind::PowerProfilesDaemon);
        assert_eq!(
            identify(Some("tuned-ppd"), Some("0.23"), &ppd),
            DaemonKind::TunedPpd
        );
        assert_eq!(
            identify(None, Some("0.23"), &[info("balanced", "tuned")]),
            DaemonKind::TunedPpd
        );
        assert_eq!(
            identify(None, Some("tlp-pd 1.10.1"), &[]),
            DaemonKind::TlpPd
        );
        assert_eq!(
            identify(Some("system76-power"), None, &[]),
            DaemonKind::System76Power
        );
        assert_eq!(
            identify(Some("python3"), None, &[info("balanced", "magic")]),
            DaemonKind::Unknown
        );
    }

    #[test]
    fn what_the_daemon_sends_is_kept_bounded() {
        use zbus::zvariant::{Str, Value};

        use crate::bounded::TEXT_LIMIT;
        let reason = "é".repeat(500_000);
        let hold: HashMap<String, OwnedValue> = [
            ("ApplicationId", "org.example.Flood"),
            ("Profile", "performance"),
            ("Reason", reason.as_str()),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), OwnedValue::from(Str::from(value))))
        .collect();
        let holds = vec![hold; 10_000];
        let mut properties = Properties::new();
        properties.insert(
            "ActiveProfile".into(),
            OwnedValue::from(Str::from("x".repeat(100_000))),
        );
        properties.insert(
            "ActiveProfileHolds".into(),
            OwnedValue::try_from(Value::from(holds)).unwrap(),
        );
        let (state, _) = state_from_properties(&properties, "net.hadess.PowerProfiles", None);
        let state = state.unwrap();
        assert!(state.active.len() <= TEXT_LIMIT);
        assert_eq!(state.holds.len(), LIST_LIMIT);
        let first = &state.holds[0];
        assert!(first.reason.len() <= TEXT_LIMIT && first.reason.ends_with('…'));
        assert!(first.reason.starts_with("éé"));
        assert_eq!(first.application_id, "org.example.Flood");
    }
}
