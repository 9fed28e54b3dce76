// SPDX-License-Identifier: GPL-3.0-or-later
//! A wake-up measurement's report (`docs/measurement.md` 4), in the schema-1 contract
//! (`docs/contracts.md` 3).

use serde::{Deserialize, Serialize};

use super::report::Settings;
use super::statistic::Statistic;

/// A round trip's time (µs) over each run's first stretch (cold) and after it (steady).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundTrip {
    pub cold: Option<Statistic>,
    pub steady: Option<Statistic>,
}

/// A wake-up measurement in the schema-1 contract (`docs/contracts.md` 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WakeupReport {
    pub schema: u32,
    pub kind: String,
    pub simulated: bool,
    pub settings: Settings,
    pub cpus: [u32; 2],
    pub round_trip_us: RoundTrip,
    pub round_trips_per_s: Option<Statistic>,
    /// Both threads on the first CPU: the cost without a cross-CPU wake-up, to set it off.
    pub same_cpu_control_us: Option<Statistic>,
}
