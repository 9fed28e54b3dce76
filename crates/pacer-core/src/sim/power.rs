// SPDX-License-Identifier: GPL-3.0-or-later
//! The package's power on a simulated machine: the RAPL zones of `/sys/class/powercap` with
//! their energy counters and power limits (drivers/powercap/powercap_sys.c,
//! intel_rapl_common.c; `docs/kernel.md` 5 and 8), the writes to the limits, the energy the
//! package draws, and the frequency a long-term limit below the default holds the cores to.

use std::collections::BTreeMap;

use super::rules::{uint64, WriteError};
use super::tree::Tree;
use super::{SimConstraint, SimMachine, SimPolicy, SimPower, SimRapl};

const POWERCAP: &str = "sys/devices/virtual/powercap/intel-rapl";
/// RAPL's power unit on Intel clients (`MSR_RAPL_POWER_UNIT` bits 3:0 = 3): 1/8 W.
const POWER_UNIT_UW: u64 = 125_000;
/// The power-limit fields are 15 bits wide (`POWER_LIMIT1_MASK`).
const POWER_LIMIT_MASK: u64 = 0x7FFF;
/// RAPL's time unit on Intel clients (bits 19:16 = 10): 2^-10 s, 976 µs as the kernel
/// rounds it (`rapl_default_check_unit()`).
const TIME_UNIT_US: u64 = 976;
/// The zone the package's limits belong to.
const PACKAGE_ZONE: &str = "intel-rapl:0";

/// One RAPL zone as the simulated platform has it.
struct Zone {
    /// The path below `POWERCAP`; its last part names the zone.
    path: &'static str,
    name: &'static str,
    /// The energy counter when the machine is laid out.
    energy_uj: u64,
    /// The zone's share of the package's power, and the watts it draws besides.
    share: f64,
    extra_w: f64,
}

const INTEL_ZONES: [Zone; 4] = [
    zone("intel-rapl:0", "package-0", 48_213_367_521, 1.0, 0.0),
    zone(
        "intel-rapl:0/intel-rapl:0:0",
        "core",
        21_901_877_410,
        0.55,
        0.0,
    ),
    zone(
        "intel-rapl:0/intel-rapl:0:1",
        "uncore",
        903_117_264,
        0.03,
        0.0,
    ),
    // The platform: the package and the rest of the laptop (screen, memory, storage).
    zone("intel-rapl:1", "psys", 91_877_212_553, 1.0, 4.0),
];
const AMD_ZONES: [Zone; 2] = [
    zone("intel-rapl:0", "package-0", 31_877_456_120, 1.0, 0.0),
    zone(
        "intel-rapl:0/intel-rapl:0:0",
        "core",
        4_409_712_330,
        0.6,
        0.0,
    ),
];

const fn zone(
    path: &'static str,
    name: &'static str,
    energy_uj: u64,
    share: f64,
    extra_w: f64,
) -> Zone {
    Zone {
        path,
        name,
        energy_uj,
        share,
        extra_w,
    }
}

/// The zones of `rapl` and where their counters wrap: 0xffffffff energy units of 2^-14 J
/// (Intel) or 2^-16 J (AMD).
fn zones(rapl: SimRapl) -> (&'static [Zone], u64) {
    match rapl {
        SimRapl::Intel => (&INTEL_ZONES, 262_143_328_850),
        SimRapl::Amd => (&AMD_ZONES, 65_532_610_987),
        SimRapl::None => (&[], 0),
    }
}

fn zone_id(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The energy counters the [`super::Ticker`] moves: relative path and wrap-around range.
pub(super) fn energy_files(machine: &SimMachine) -> Vec<(String, u64)> {
    let (zones, range) = zones(machine.rapl);
    zones
        .iter()
        .map(|zone| (format!("{POWERCAP}/{}/energy_uj", zone.path), range))
        .collect()
}

/// An Intel client's limits with a package of `tdp_w` (PL1, 28 s), `pl2_w` (2.44 ms) and,
/// where intel_rapl_msr lists the CPU in `pl4_support_ids`, `peak_w`. The package's
/// `POWER_INFO` gives PL1's maximum (the thermal spec power) and PL2's (its maximum power
/// field, 0 on client parts; PL4's is twice that). Core, uncore and psys have limit
/// registers but no `POWER_INFO`: their `max_power_uw` fails to read, and so does PL4's
/// time window, so those files are left out.
pub(super) fn intel_power(tdp_w: u64, pl2_w: u64, peak_w: Option<u64>) -> SimPower {
    let constraint =
        |name: &str, watts: u64, window_us: Option<u64>, max_w: Option<u64>| SimConstraint {
            name: name.into(),
            power_limit_uw: watts * 1_000_000,
            time_window_us: window_us,
            max_power_uw: max_w.map(|w| w * 1_000_000),
        };
    // 2^14 · 7/4 time units: 28 s; 2 · 5/4 units: 2.44 ms; an unset window reads one unit.
    let (long, short) = (Some(27_983_872), Some(2_440));
    let mut package = vec![
        constraint("long_term", tdp_w, long, Some(tdp_w)),
        constraint("short_term", pl2_w, short, Some(0)),
    ];
    package.extend(peak_w.map(|w| constraint("peak_power", w, None, Some(0))));
    let unset = || vec![constraint("long_term", 0, Some(TIME_UNIT_US), None)];
    let limits = BTreeMap::from([
        (PACKAGE_ZONE.to_owned(), package),
        ("intel-rapl:0:0".to_owned(), unset()),
        ("intel-rapl:0:1".to_owned(), unset()),
        (
            "intel-rapl:1".to_owned(),
            vec![
                constraint("long_term", 0, long, None),
                constraint("short_term", 0, Some(TIME_UNIT_US), None),
            ],
        ),
    ]);
    SimPower {
        tdp_uw: tdp_w * 1_000_000,
        limits,
    }
}

/// AMD's RAPL: energy counters only. The limit registers are missing, so
/// `rapl_detect_powerlimit()` drops every constraint.
pub(super) fn amd_power(tdp_w: u64) -> SimPower {
    SimPower {
        tdp_uw: tdp_w * 1_000_000,
        limits: BTreeMap::new(),
    }
}

/// The RAPL files: each zone's name, energy (root-only), range, `enabled` and constraints.
pub(super) fn rapl_files(tree: &mut Tree, machine: &SimMachine) {
    let (zones, max_range) = zones(machine.rapl);
    if zones.is_empty() {
        return;
    }
    tree.rw(format!("{POWERCAP}/enabled"), 1);
    tree.link(
        "sys/class/powercap/intel-rapl",
        "../../devices/virtual/powercap/intel-rapl",
    );
    for zone in zones {
        let dir = format!("{POWERCAP}/{}", zone.path);
        tree.ro(format!("{dir}/name"), zone.name);
        tree.live(format!("{dir}/energy_uj"), 0o400, zone.energy_uj);
        tree.ro(format!("{dir}/max_energy_range_uj"), max_range);
        tree.rw(format!("{dir}/enabled"), 1);
        let id = zone_id(zone.path);
        tree.link(
            format!("sys/class/powercap/{id}"),
            format!("../../devices/virtual/powercap/intel-rapl/{}", zone.path),
        );
        let constraints = machine.power.as_ref().and_then(|p| p.limits.get(id));
        for (i, constraint) in constraints.into_iter().flatten().enumerate() {
            let file = |attr: &str| format!("{dir}/constraint_{i}_{attr}");
            tree.ro(file("name"), &constraint.name);
            tree.rw(file("power_limit_uw"), constraint.power_limit_uw);
            if let Some(window) = constraint.time_window_us {
                tree.rw(file("time_window_us"), window);
            }
            if let Some(max) = constraint.max_power_uw {
                tree.ro(file("max_power_uw"), max);
            }
        }
    }
}

/// A time window as the hardware keeps it: 2^Y · (1 + F/4) time units
/// (`rapl_default_compute_time_window()`), so a write reads back rounded down.
fn rounded_window(us: u64) -> u64 {
    let units = us / TIME_UNIT_US;
    if units == 0 {
        // A raw 0 reads back as one unit.
        return TIME_UNIT_US;
    }
    let y = units.ilog2();
    if y > 0x1f {
        // The 7-bit field saturates.
        return (1u64 << 0x1f) * 7 * TIME_UNIT_US / 4;
    }
    let f = 4 * (units - (1 << y)) / (1 << y);
    (1u64 << y) * (4 + f) * TIME_UNIT_US / 4
}

impl SimMachine {
    /// A write to `constraint_N_ATTR` of `zone` (`store_constraint_*()` of powercap_sys.c):
    /// a decimal number or EINVAL; a limit the zone cannot take is ENODATA.
    pub(super) fn write_constraint(
        &mut self,
        zone: &str,
        file: &str,
        value: &str,
    ) -> Result<(), WriteError> {
        let Some((index, attr)) = file
            .strip_prefix("constraint_")
            .and_then(|rest| rest.split_once('_'))
            .and_then(|(index, attr)| Some((index.parse::<usize>().ok()?, attr)))
        else {
            return Err(WriteError::ReadOnly);
        };
        let constraint = self
            .power
            .as_mut()
            .and_then(|power| power.limits.get_mut(zone))
            .and_then(|limits| limits.get_mut(index))
            .ok_or(WriteError::NoFile)?;
        match attr {
            "power_limit_uw" => {
                let uw = uint64(value)?;
                constraint.power_limit_uw =
                    ((uw / POWER_UNIT_UW) & POWER_LIMIT_MASK) * POWER_UNIT_UW;
                Ok(())
            }
            "time_window_us" => {
                let us = uint64(value)?;
                let window = constraint
                    .time_window_us
                    .as_mut()
                    .ok_or(WriteError::NoData)?;
                *window = rounded_window(us);
                Ok(())
            }
            _ => Err(WriteError::ReadOnly),
        }
    }

    /// Sets the package's long-term limit (PL1), as firmware or another tool does.
    pub(super) fn set_long_term_limit(&mut self, uw: u64) {
        let long_term = self
            .power
            .as_mut()
            .and_then(|power| power.limits.get_mut(PACKAGE_ZONE))
            .and_then(|limits| limits.iter_mut().find(|c| c.name == "long_term"));
        if let Some(constraint) = long_term {
            constraint.power_limit_uw = uw;
        }
    }

    /// The package's long-term limit, where it is below the thermal design power.
    fn lowered_limit_uw(&self) -> Option<u64> {
        let power = self.power.as_ref()?;
        let limit = power
            .limits
            .get(PACKAGE_ZONE)?
            .iter()
            .find(|c| c.name == "long_term")?
            .power_limit_uw;
        (limit < power.tdp_uw).then_some(limit)
    }

    /// The frequency a lowered long-term limit holds `policy`'s cores to under sustained load:
    /// the base frequency is what the package sustains at its thermal design power, and
    /// dynamic power grows about as the cube of the frequency, so the base frequency times
    /// the cube root of the limit's share of the design power.
    pub(super) fn power_cap_khz(&self, policy: &SimPolicy) -> Option<u32> {
        let limit = self.lowered_limit_uw()? as f64;
        let tdp = self.power.as_ref()?.tdp_uw as f64;
        let base = f64::from(policy.base_khz.unwrap_or(policy.hw_max_khz));
        Some((base * (limit / tdp).cbrt()).round() as u32)
    }

    /// What each zone draws (µW) while the policies run at `khz`: the package from a tenth
    /// of its design power idle to all of it at full speed, or its lowered long-term limit,
    /// at which a package held by that limit runs.
    pub(super) fn zone_draws_uw(&self, khz: &[u32]) -> Vec<f64> {
        let (zones, _) = zones(self.rapl);
        let Some(power) = &self.power else {
            return vec![0.0; zones.len()];
        };
        let package = match self.lowered_limit_uw() {
            Some(limit) => limit as f64,
            None => {
                let loads: Vec<f64> = self
                    .policies
                    .iter()
                    .zip(khz)
                    .map(|(policy, &khz)| {
                        let span = f64::from(policy.hw_max_khz.saturating_sub(policy.hw_min_khz));
                        (f64::from(khz.saturating_sub(policy.hw_min_khz)) / span.max(1.0))
                            .clamp(0.0, 1.0)
                    })
                    .collect();
                let load = loads.iter().sum::<f64>() / loads.len().max(1) as f64;
                power.tdp_uw as f64 * (0.1 + 0.9 * load)
            }
        };
        zones
            .iter()
            .map(|zone| package * zone.share + zone.extra_w * 1e6)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_windows_round_as_the_hardware_keeps_them() {
        assert_eq!(rounded_window(28_000_000), 27_983_872);
        // 2.5 units truncate to 2 before the fraction is taken: what reads 2440 (2^1 · 5/4
        // units) does not survive a write of itself.
        assert_eq!(rounded_window(2_440), 1_952);
        assert_eq!(rounded_window(100), TIME_UNIT_US);
        assert_eq!(rounded_window(1_000_000), 999_424);
    }
}
