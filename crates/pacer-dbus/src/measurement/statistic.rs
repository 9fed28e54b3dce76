// SPDX-License-Identifier: GPL-3.0-or-later
//! One quantity over trials as a report carries it. Summing trials up into one is
//! `pacer-measure`'s (`stats`); this is the figure's shape in the contract.

use serde::{Deserialize, Serialize};

/// Mean, spread and range of one quantity over trials, and its median and interquartile
/// range, which one odd trial does not move.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Statistic {
    pub mean: f64,
    /// Sample standard deviation (0 for a single trial).
    pub sd: f64,
    pub min: f64,
    pub max: f64,
    /// (Absent from reports made before these were added.)
    #[serde(default)]
    pub median: f64,
    /// The third quartile less the first (linear interpolation between trials).
    #[serde(default)]
    pub iqr: f64,
}

impl Statistic {
    /// One value, exactly (a model's figure).
    pub fn exact(value: f64) -> Statistic {
        Statistic {
            mean: value,
            sd: 0.0,
            min: value,
            max: value,
            median: value,
            iqr: 0.0,
        }
    }
}
