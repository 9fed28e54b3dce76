// SPDX-License-Identifier: GPL-3.0-or-later
//! RAPL energy counters under `/sys/class/powercap` (`docs/kernel.md` 5).

use serde::Serialize;

use crate::sysfs::{Expected, Need, Probe, ReadError};
use crate::values::Decimal;

const POWERCAP_DIR: &str = "sys/class/powercap";

/// One RAPL zone (`intel-rapl:0`, `intel-rapl:0:0`, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RaplZone {
    pub zone: String,
    /// `package-0`, `core`, `uncore`, `dram`, `psys`.
    pub name: Option<String>,
    /// Where `energy_uj` wraps around.
    pub max_energy_range_uj: Option<u64>,
    /// `energy_uj` is root-only since CVE-2020-8694, so users usually cannot read it.
    pub energy_readable: bool,
}

/// The zones present. Reading the energy itself is the measurements' business; here only
/// whether it could be read.
pub(crate) fn read(probe: &mut Probe<'_>) -> Vec<RaplZone> {
    let Ok(entries) = probe.root().list_dir(POWERCAP_DIR) else {
        return Vec::new();
    };
    entries
        .into_iter()
        // `intel-rapl` itself is the control type, `intel-rapl:N[:M]` are the zones.
        .filter(|entry| entry.starts_with("intel-rapl:") || entry.starts_with("intel-rapl-mmio:"))
        .map(|zone| {
            let dir = format!("{POWERCAP_DIR}/{zone}");
            let name = probe.text(&format!("{dir}/name"), Need::Required);
            let max_energy_range_uj = probe
                .value::<Decimal<u64>>(
                    &format!("{dir}/max_energy_range_uj"),
                    Need::Required,
                    Expected::Number,
                )
                .map(|range| range.0);
            let energy = format!("{dir}/energy_uj");
            let energy_readable = match probe.root().can_open(&energy) {
                Ok(()) => true,
                Err(ReadError::Io(error))
                    if error.kind() == std::io::ErrorKind::PermissionDenied =>
                {
                    false
                }
                Err(ReadError::Missing) => {
                    probe.report(&energy, crate::sysfs::ProblemKind::Missing);
                    false
                }
                Err(ReadError::Io(error)) => {
                    probe.report_io(&energy, &error);
                    false
                }
            };
            RaplZone {
                zone,
                name,
                max_energy_range_uj,
                energy_readable,
            }
        })
        .collect()
}
