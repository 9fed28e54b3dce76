// SPDX-License-Identifier: GPL-3.0-or-later
//! What a run cost in energy. RAPL's package counter covers the whole run, the time other
//! tasks had the CPU included; so the power is the package's over the run, and the measured
//! work is charged only for the time its thread was on the CPU (the rest is the other
//! tasks' energy, spent at about the same power: the core stayed busy meanwhile).

use pacer_core::machine::RaplZone;
use pacer_core::SysRoot;

/// Where to read the package's energy: `energy_uj` and its wrap-around range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnergyCounter {
    /// The RAPL domain, as the kernel names it (`package-0`).
    pub domain: String,
    file: String,
    range_uj: u64,
}

impl EnergyCounter {
    /// The first package zone whose counter this process can read.
    pub fn find(root: &SysRoot, zones: &[RaplZone]) -> Option<EnergyCounter> {
        zones
            .iter()
            .filter(|zone| {
                zone.name
                    .as_deref()
                    .is_some_and(|n| n.starts_with("package"))
            })
            .find(|zone| zone.energy_readable)
            .map(|zone| EnergyCounter {
                domain: zone.name.clone().unwrap_or_default(),
                file: format!("sys/class/powercap/{}/energy_uj", zone.zone),
                range_uj: zone.max_energy_range_uj.unwrap_or(u64::MAX),
            })
            .filter(|counter| counter.read(root).is_some())
    }

    /// The counter now (µJ); `None` when it cannot be read or is not a number.
    pub fn read(&self, root: &SysRoot) -> Option<u64> {
        root.read_text(&self.file).ok()?.trim().parse().ok()
    }

    /// The energy used between two readings (µJ). The counter wraps at its range (the
    /// powercap class's `max_energy_range_uj`): once at most, so it must be read more often
    /// than a wrap takes (at least minutes at a package's power).
    pub fn used_between(&self, before: u64, after: u64) -> u64 {
        if after >= before {
            after - before
        } else {
            after + self.range_uj.saturating_sub(before)
        }
    }
}

/// The package's energy over one run, and how that run's time divided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunEnergy {
    /// Energy the package used between the readings before and after the run (µJ).
    pub used_uj: u64,
    /// The time between those readings (ns).
    pub wall_ns: u64,
    /// The part of it the measuring thread was on its CPU (ns).
    pub on_cpu_ns: u64,
}

impl RunEnergy {
    /// The package's average power over the run (W).
    pub fn power_w(&self) -> f64 {
        self.used_uj as f64 / 1e6 / (self.wall_ns.max(1) as f64 / 1e9)
    }

    /// The energy charged to the measured work (J): the run's power over the time the
    /// thread worked.
    pub fn work_j(&self) -> f64 {
        self.power_w() * self.on_cpu_ns.min(self.wall_ns) as f64 / 1e9
    }

    /// Joules per billion operations of the measured work; `None` when it did none.
    pub fn j_per_gop(&self, operations: u64) -> Option<f64> {
        (operations > 0).then(|| self.work_j() / (operations as f64 / 1e9))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter(range_uj: u64) -> EnergyCounter {
        EnergyCounter {
            domain: "package-0".into(),
            file: "energy_uj".into(),
            range_uj,
        }
    }

    #[test]
    fn the_counter_wraps_once() {
        assert_eq!(counter(1000).used_between(100, 250), 150);
        // Intel's range (2^-14 J units): 262143328850 µJ.
        assert_eq!(
            counter(262_143_328_850).used_between(262_143_328_000, 150),
            1000
        );
        assert_eq!(counter(10).used_between(5, 5), 0);
    }

    #[test]
    fn an_undisturbed_run_is_charged_all_its_energy() {
        // 13 J over 1.3 s, all of it on the CPU: 10 W; 2 Gop for 13 J.
        let run = RunEnergy {
            used_uj: 13_000_000,
            wall_ns: 1_300_000_000,
            on_cpu_ns: 1_300_000_000,
        };
        assert!((run.power_w() - 10.0).abs() < 1e-9);
        assert!((run.work_j() - 13.0).abs() < 1e-9);
        assert!((run.j_per_gop(2_000_000_000).unwrap() - 6.5).abs() < 1e-9);
    }

    #[test]
    fn time_other_tasks_had_is_not_charged_to_the_work() {
        // The same package energy, but another task had the CPU for 0.3 s of the 1.3 s:
        // the power is still the package's (10 W, not 13 W over the thread's second), and
        // the work is charged 10 J, not 13.
        let run = RunEnergy {
            used_uj: 13_000_000,
            wall_ns: 1_300_000_000,
            on_cpu_ns: 1_000_000_000,
        };
        assert!((run.power_w() - 10.0).abs() < 1e-9);
        assert!((run.work_j() - 10.0).abs() < 1e-9);
        assert!((run.j_per_gop(2_000_000_000).unwrap() - 5.0).abs() < 1e-9);
        assert_eq!(run.j_per_gop(0), None);
    }

    #[test]
    fn nonsense_times_do_not_divide_by_zero_or_overcharge() {
        let run = RunEnergy {
            used_uj: 1_000,
            wall_ns: 0,
            on_cpu_ns: 5,
        };
        assert!(run.power_w().is_finite());
        // On-CPU time beyond the run (clock skew) is capped at the run.
        assert!(run.work_j() <= 1e-3 + 1e-12);
    }
}
