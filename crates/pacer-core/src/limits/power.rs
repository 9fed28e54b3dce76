// SPDX-License-Identifier: GPL-3.0-or-later
//! The power link: the package's RAPL limits against their defaults, and the power it draws
//! (`docs/kernel.md` 5, 8.5). A long-term limit set far below the default holds every core
//! once the package draws what the limit allows.

use serde::Serialize;

use crate::sysfs::{Expected, Need, Probe, ReadError};
use crate::values::Decimal;

const POWERCAP_DIR: &str = "sys/class/powercap";

/// A limit counts as lowered below this share of its default, and as reached above
/// [`AT_LIMIT_PERCENT`] of itself: RAPL averages over its time window, so the power drawn
/// sits just under a limit that holds.
const LOWERED_PERCENT: u64 = 95;
const AT_LIMIT_PERCENT: u64 = 90;

/// One constraint of the package zone: its index in `constraint_N_*` and its default.
#[derive(Debug, Clone, Copy)]
struct Constraint {
    index: u32,
    /// `constraint_N_max_power_uw`, where the zone has it.
    default_uw: Option<u64>,
}

/// The first package zone's files, found once.
#[derive(Debug, Clone)]
pub(super) struct PowerFiles {
    zone: String,
    long_term: Option<Constraint>,
    short_term: Option<Constraint>,
    max_energy_uj: Option<u64>,
}

/// The moving values at one refresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PowerReading {
    pub long_term_uw: Option<u64>,
    pub short_term_uw: Option<u64>,
    /// `energy_uj`; `None` where it could not be read (root only since 5.10).
    pub energy_uj: Option<u64>,
    /// The counter exists but only root may read it.
    pub energy_denied: bool,
}

/// The power link as the chain shows it (the same for every core type: RAPL limits the
/// package).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PowerLink {
    /// `intel-rapl:0`, where a package zone exists.
    pub zone: Option<String>,
    /// The long-term limit's file (`sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw`).
    pub long_term_file: Option<String>,
    pub long_term_uw: Option<u64>,
    pub long_term_default_uw: Option<u64>,
    pub short_term_uw: Option<u64>,
    pub short_term_default_uw: Option<u64>,
    /// The package's power over the last seconds, from its energy counter.
    pub drawn_uw: Option<u64>,
    /// The energy counter exists but only root may read it, so the power drawn is unknown.
    pub drawn_unreadable: bool,
    /// The long-term limit is below its default.
    pub lowered: bool,
    /// The package draws what the lowered limit allows: the limit holds the cores.
    pub holds: bool,
}

impl PowerFiles {
    pub(super) fn find(probe: &mut Probe<'_>) -> Option<PowerFiles> {
        let names = probe.root().list_dir(POWERCAP_DIR).ok()?;
        let zone = names.into_iter().find(|name| {
            name.starts_with("intel-rapl:") && name.matches(':').count() == 1 && {
                let file = format!("{POWERCAP_DIR}/{name}/name");
                probe
                    .text(&file, Need::Required)
                    .is_some_and(|text| text.starts_with("package-"))
            }
        })?;
        let dir = format!("{POWERCAP_DIR}/{zone}");
        let mut files = PowerFiles {
            long_term: None,
            short_term: None,
            max_energy_uj: number(probe, &format!("{dir}/max_energy_range_uj")),
            zone,
        };
        for index in 0.. {
            let name = format!("{dir}/constraint_{index}_name");
            let Some(name) = probe.text(&name, Need::Optional) else {
                break;
            };
            // A zone that does not know its maximum prints 0 (`docs/kernel.md` 8.5): no default.
            let default_uw = probe
                .root()
                .exists(&format!("{dir}/constraint_{index}_max_power_uw"))
                .then(|| number(probe, &format!("{dir}/constraint_{index}_max_power_uw")))
                .flatten()
                .filter(|uw| *uw > 0);
            let constraint = Some(Constraint { index, default_uw });
            match name.as_str() {
                "long_term" => files.long_term = constraint,
                "short_term" => files.short_term = constraint,
                _ => {}
            }
        }
        Some(files)
    }

    pub(super) fn read(&self, probe: &mut Probe<'_>) -> PowerReading {
        let dir = format!("{POWERCAP_DIR}/{}", self.zone);
        let limit = |probe: &mut Probe<'_>, constraint: Option<Constraint>| {
            let index = constraint?.index;
            number(probe, &format!("{dir}/constraint_{index}_power_limit_uw"))
        };
        let long_term_uw = limit(probe, self.long_term);
        let short_term_uw = limit(probe, self.short_term);
        let energy = format!("{dir}/energy_uj");
        let (energy_uj, energy_denied) = match probe.read(&energy) {
            Ok(text) => (
                probe
                    .parse::<Decimal<u64>>(&energy, text.trim_end(), Expected::Number)
                    .map(|energy| energy.0),
                false,
            ),
            Err(ReadError::Io(error)) if error.kind() == std::io::ErrorKind::PermissionDenied => {
                (None, true)
            }
            Err(ReadError::Missing) => (None, false),
            Err(ReadError::Io(error)) => {
                probe.report_io(&energy, &error);
                (None, false)
            }
        };
        PowerReading {
            long_term_uw,
            short_term_uw,
            energy_uj,
            energy_denied,
        }
    }

    /// The link from the first and last readings of the last seconds (`seconds` apart).
    pub(super) fn link(
        &self,
        first: &PowerReading,
        last: &PowerReading,
        seconds: f64,
    ) -> PowerLink {
        let drawn_uw = match (first.energy_uj, last.energy_uj) {
            (Some(old), Some(new)) if seconds > 0.0 => {
                // The counter wraps at `max_energy_range_uj` (`docs/kernel.md` 5).
                let spent = if new >= old {
                    Some(new - old)
                } else {
                    self.max_energy_uj
                        .and_then(|max| new.checked_add(max)?.checked_sub(old))
                };
                spent.map(|spent| (spent as f64 / seconds) as u64)
            }
            _ => None,
        };
        let default = self.long_term.and_then(|c| c.default_uw);
        let lowered = matches!(
            (last.long_term_uw, default),
            (Some(limit), Some(default)) if u128::from(limit) * 100 < u128::from(default) * u128::from(LOWERED_PERCENT)
        );
        let holds = lowered
            && matches!(
                (drawn_uw, last.long_term_uw),
                (Some(drawn), Some(limit)) if u128::from(drawn) * 100 >= u128::from(limit) * u128::from(AT_LIMIT_PERCENT)
            );
        PowerLink {
            zone: Some(self.zone.clone()),
            long_term_file: self.long_term.map(|constraint| {
                let index = constraint.index;
                format!(
                    "{POWERCAP_DIR}/{}/constraint_{index}_power_limit_uw",
                    self.zone
                )
            }),
            long_term_uw: last.long_term_uw,
            long_term_default_uw: default,
            short_term_uw: last.short_term_uw,
            short_term_default_uw: self.short_term.and_then(|c| c.default_uw),
            drawn_uw,
            drawn_unreadable: last.energy_denied,
            lowered,
            holds,
        }
    }
}

fn number(probe: &mut Probe<'_>, file: &str) -> Option<u64> {
    probe
        .value::<Decimal<u64>>(file, Need::Required, Expected::Number)
        .map(|value| value.0)
}
