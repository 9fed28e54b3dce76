// SPDX-License-Identifier: GPL-3.0-or-later
//! What a profile implies for the CPU: the EPP, EPB and governor the daemon writes
//! (`docs/power-profiles.md` 2). Only power-profiles-daemon with a CPU driver has a fixed
//! mapping; for everything else Pacer says so instead of guessing.

use std::fmt;

use crate::i18n::{fill, gettext};
use crate::machine::Driver;
use crate::values::{DriverMode, Epp, Governor};

use super::daemon::{DaemonKind, ProfileState};

/// The settings a profile implies. A list holds every acceptable value (balanced on a
/// battery-aware daemon when the power source is unknown accepts both balanced EPPs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    pub epp: Vec<Epp>,
    pub epb: Vec<u8>,
    /// The governor the daemon sets or forces, where it does.
    pub governor: Option<Governor>,
}

/// Why there is no expectation to check against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoExpectation {
    /// tuned-ppd, tlp-pd and others map profiles to their own settings.
    NoFixedMapping(DaemonKind),
    /// The daemon does not drive the CPU (platform_profile or placeholder only).
    NoCpuDriver,
    /// power-profiles-daemon 0.30 writes nothing while amd-pstate is not in active mode.
    DriverNotActive,
    /// A profile name outside power-saver/balanced/performance.
    UnknownProfile(String),
}

impl fmt::Display for NoExpectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&match self {
            NoExpectation::NoFixedMapping(daemon) => fill(
                gettext(
                    "{daemon} maps profiles to its own settings, so there is no fixed EPP to check",
                ),
                &[("daemon", daemon)],
            ),
            NoExpectation::NoCpuDriver => {
                gettext("the profile daemon does not set the CPU's EPP on this machine")
            }
            NoExpectation::DriverNotActive => gettext(
                "power-profiles-daemon writes nothing while amd-pstate is not in active mode",
            ),
            NoExpectation::UnknownProfile(name) => fill(
                gettext("the profile {profile} has no known meaning"),
                &[("profile", name)],
            ),
        })
    }
}

/// The EPP, EPB and governor `profile` implies for this daemon, version, CPU driver and power
/// source.
pub fn expectation(state: &ProfileState, driver: &Driver) -> Result<Expectation, NoExpectation> {
    let Some(version) = state.ppd_version() else {
        return Err(NoExpectation::NoFixedMapping(state.daemon));
    };
    let amd = match state.cpu_driver.as_deref() {
        Some("intel_pstate") => false,
        Some("amd_pstate") => true,
        _ => return Err(NoExpectation::NoCpuDriver),
    };
    if amd && version.at_least(0, 30) && driver.mode != Some(DriverMode::Active) {
        return Err(NoExpectation::DriverNotActive);
    }
    // From 0.21 balanced means balance_power (EPB 8) on battery, unless BatteryAware is off.
    let battery_aware = version.at_least(0, 21) && state.battery_aware != Some(false);
    let balanced_epp = match (battery_aware, state.on_battery) {
        (false, _) | (true, Some(false)) => vec![Epp::BalancePerformance],
        (true, Some(true)) => vec![Epp::BalancePower],
        (true, None) => vec![Epp::BalancePerformance, Epp::BalancePower],
    };
    let balanced_epb = match (battery_aware, state.on_battery) {
        (false, _) | (true, Some(false)) => vec![6],
        (true, Some(true)) => vec![8],
        (true, None) => vec![6, 8],
    };
    let (epp, epb) = match state.active.as_str() {
        "power-saver" => (vec![Epp::Power], vec![15]),
        "balanced" => (balanced_epp, balanced_epb),
        "performance" => (vec![Epp::Performance], vec![0]),
        other => return Err(NoExpectation::UnknownProfile(other.to_owned())),
    };
    let governor = if amd && version.at_least(0, 20) {
        // 0.20 on writes the governor at every switch, then the EPP.
        Some(if state.active == "performance" {
            Governor::performance()
        } else {
            Governor::powersave()
        })
    } else {
        // intel_pstate (and amd_pstate in 0.13) force powersave once, at start.
        Some(Governor::powersave())
    };
    Ok(Expectation { epp, epb, governor })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::daemon::ProfileInfo;

    fn state(
        daemon: DaemonKind,
        version: Option<&str>,
        cpu: Option<&str>,
        active: &str,
    ) -> ProfileState {
        ProfileState {
            daemon,
            version: version.map(str::to_owned),
            active: active.into(),
            available: ["power-saver", "balanced", "performance"]
                .map(|p| ProfileInfo {
                    profile: p.into(),
                    driver: None,
                    cpu_driver: None,
                    platform_driver: None,
                })
                .to_vec(),
            cpu_driver: cpu.map(str::to_owned),
            platform_driver: None,
            degraded: None,
            holds: Vec::new(),
            bus_name: "net.hadess.PowerProfiles".into(),
            battery_aware: None,
            on_battery: None,
        }
    }

    fn active_driver() -> Driver {
        Driver {
            name: Some("intel_pstate".into()),
            mode: Some(DriverMode::Active),
            boost: Some(true),
            dynamic_epp: None,
        }
    }

    use Epp::{BalancePerformance as BP, BalancePower as BW, Performance as P, Power as W};

    /// daemon version × CPU driver × battery → EPP, EPB, governor for balanced, and the
    /// other two profiles, straight from ppd's driver sources (src/ppd-driver-intel-pstate.c,
    /// src/ppd-driver-amd-pstate.c; `docs/power-profiles.md` 2).
    #[test]
    fn mapping_table() {
        type Row = (
            Option<&'static str>,
            &'static str,
            Option<bool>,
            &'static str,
            &'static [Epp],
            &'static [u8],
            &'static str,
        );
        let rows: &[Row] = &[
            // version, cpu driver, on battery, profile, EPP, EPB, governor
            (
                None,
                "intel_pstate",
                None,
                "balanced",
                &[BP],
                &[6],
                "powersave",
            ),
            (
                None,
                "intel_pstate",
                Some(true),
                "balanced",
                &[BP],
                &[6],
                "powersave",
            ),
            (
                None,
                "intel_pstate",
                None,
                "power-saver",
                &[W],
                &[15],
                "powersave",
            ),
            (
                None,
                "intel_pstate",
                None,
                "performance",
                &[P],
                &[0],
                "powersave",
            ),
            (
                Some("0.20"),
                "intel_pstate",
                Some(true),
                "balanced",
                &[BP],
                &[6],
                "powersave",
            ),
            (
                Some("0.21"),
                "intel_pstate",
                Some(true),
                "balanced",
                &[BW],
                &[8],
                "powersave",
            ),
            (
                Some("0.21"),
                "intel_pstate",
                Some(false),
                "balanced",
                &[BP],
                &[6],
                "powersave",
            ),
            (
                Some("0.30"),
                "intel_pstate",
                None,
                "balanced",
                &[BP, BW],
                &[6, 8],
                "powersave",
            ),
            (
                Some("0.30"),
                "intel_pstate",
                Some(true),
                "power-saver",
                &[W],
                &[15],
                "powersave",
            ),
            (
                None,
                "amd_pstate",
                None,
                "performance",
                &[P],
                &[0],
                "powersave",
            ),
            (
                Some("0.20"),
                "amd_pstate",
                None,
                "performance",
                &[P],
                &[0],
                "performance",
            ),
            (
                Some("0.22"),
                "amd_pstate",
                Some(true),
                "balanced",
                &[BW],
                &[8],
                "powersave",
            ),
            (
                Some("0.30"),
                "amd_pstate",
                Some(false),
                "power-saver",
                &[W],
                &[15],
                "powersave",
            ),
        ];
        for &(version, cpu, battery, profile, epp, epb, governor) in rows {
            let mut state = state(DaemonKind::PowerProfilesDaemon, version, Some(cpu), profile);
            state.on_battery = battery;
            let expected = expectation(&state, &active_driver()).unwrap();
            let row = format!("{version:?} {cpu} battery={battery:?} {profile}");
            assert_eq!(expected.epp, epp, "{row}");
            assert_eq!(expected.epb, epb, "{row}");
            assert_eq!(
                expected.governor.as_ref().map(Governor::as_str),
                Some(governor),
                "{row}"
            );
        }
    }

    #[test]
    fn battery_awareness_switched_off() {
        let mut state = state(
            DaemonKind::PowerProfilesDaemon,
            Some("0.30"),
            Some("intel_pstate"),
            "balanced",
        );
        state.on_battery = Some(true);
        state.battery_aware = Some(false);
        assert_eq!(expectation(&state, &active_driver()).unwrap().epp, [BP]);
    }

    #[test]
    fn no_mapping_is_said_not_guessed() {
        let driver = active_driver();
        for daemon in [
            DaemonKind::TunedPpd,
            DaemonKind::TlpPd,
            DaemonKind::System76Power,
            DaemonKind::Unknown,
        ] {
            let state = state(daemon, Some("0.23"), Some("intel_pstate"), "balanced");
            assert_eq!(
                expectation(&state, &driver),
                Err(NoExpectation::NoFixedMapping(daemon))
            );
        }
        let platform = state(DaemonKind::PowerProfilesDaemon, None, None, "balanced");
        assert_eq!(
            expectation(&platform, &driver),
            Err(NoExpectation::NoCpuDriver)
        );
        let passive_amd = Driver {
            name: Some("amd-pstate".into()),
            mode: Some(DriverMode::Passive),
            boost: None,
            dynamic_epp: None,
        };
        let amd = state(
            DaemonKind::PowerProfilesDaemon,
            Some("0.30"),
            Some("amd_pstate"),
            "balanced",
        );
        assert_eq!(
            expectation(&amd, &passive_amd),
            Err(NoExpectation::DriverNotActive)
        );
        let odd = state(
            DaemonKind::PowerProfilesDaemon,
            None,
            Some("intel_pstate"),
            "unknown",
        );
        assert!(matches!(
            expectation(&odd, &driver),
            Err(NoExpectation::UnknownProfile(_))
        ));
        assert!(!NoExpectation::NoFixedMapping(DaemonKind::TunedPpd)
            .to_string()
            .is_empty());
    }
}
