// SPDX-License-Identifier: GPL-3.0-or-later
//! Figures as the chain in words gives them: frequencies in GHz (MHz below 1 GHz), power in
//! watts, seconds, each with at most the decimals that mean something.

use std::time::Duration;

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::Khz;

/// ngettext's count: large counts take the plural anyway.
pub(super) fn count(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// "4.7 GHz", "1.36 GHz", "400 MHz".
pub(super) fn frequency(khz: Khz) -> String {
    if khz.0 < 1_000_000 {
        fill(gettext("{mhz} MHz"), &[("mhz", &khz.mhz())])
    } else {
        let ghz = decimal(f64::from(khz.0) / 1e6, 2);
        fill(gettext("{ghz} GHz"), &[("ghz", &ghz)])
    }
}

/// "28 W", "7.6 W".
pub(super) fn watts(microwatts: u64) -> String {
    let watts = decimal(microwatts as f64 / 1e6, 1);
    fill(gettext("{watts} W"), &[("watts", &watts)])
}

pub(super) fn seconds(interval: Duration) -> String {
    decimal(interval.as_secs_f64(), 2)
}

/// `value` with at most `places` decimals, trailing zeros dropped.
pub(super) fn decimal(value: f64, places: usize) -> String {
    let text = format!("{value:.places$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}
