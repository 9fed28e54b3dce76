// SPDX-License-Identifier: GPL-3.0-or-later
//! Why a core type runs slower than it could, in one line (`docs/kernel.md` 8.7): what
//! holds it back, at what frequency, since when. The headline ([`limiter_line`]) names the
//! core type, for the tray and the details' heading. Only what the chain read is said; the
//! kernel's tokens stay in `pacerctl`.

use pacer_core::i18n::{fill, gettext};
use pacer_core::limits::{CoreLimits, Limiter};
use pacer_core::machine::cores_heading;

use crate::words::setting::frequency;
use crate::words::time::clock;

/// What holds the cores back, as one line says it.
enum Verdict {
    /// Nothing: they may run as fast as the hardware goes.
    Free,
    /// Turbo boost switched off, holding them at this frequency where it is known.
    BoostOff(Option<String>),
    /// A link (`by`, in words) holding them at this frequency where it is known.
    Held { at: Option<String>, by: String },
}

/// "Efficiency cores held at 1.36 GHz by a thermal limit (cooling level 3 of 10) since
/// 14:02": the core type and its verdict in one line, for the tray and the details.
pub fn limiter_line(limits: &CoreLimits) -> String {
    let cores = cores_heading(limits.core_type);
    let line = match verdict_of(limits) {
        Verdict::Free => fill(
            gettext("{cores}: nothing holds them back"),
            &[("cores", &cores)],
        ),
        Verdict::BoostOff(Some(at)) => fill(
            gettext("{cores} held at {frequency}: turbo boost is off"),
            &[("cores", &cores), ("frequency", &at)],
        ),
        Verdict::BoostOff(None) => {
            fill(gettext("{cores}: turbo boost is off"), &[("cores", &cores)])
        }
        Verdict::Held { at: Some(at), by } => fill(
            gettext("{cores} held at {frequency} by {limit}"),
            &[("cores", &cores), ("frequency", &at), ("limit", &by)],
        ),
        Verdict::Held { at: None, by } => fill(
            gettext("{cores} held back by {limit}"),
            &[("cores", &cores), ("limit", &by)],
        ),
    };
    with_since(line, limits)
}

fn verdict_of(limits: &CoreLimits) -> Verdict {
    let at = limits.ceiling_khz.map(frequency);
    let by = match limits.limiter {
        Limiter::None => return Verdict::Free,
        Limiter::Firmware if limits.firmware.boost == Some(false) => {
            return Verdict::BoostOff(at);
        }
        Limiter::Settings => gettext("the settings"),
        Limiter::Firmware => gettext("a firmware limit"),
        Limiter::Platform => gettext("a platform limit"),
        Limiter::Thermal => thermal_limit(limits),
        Limiter::Power => gettext("a power limit"),
    };
    Verdict::Held { at, by }
}

/// "a thermal limit", with the level of the cooling device that sets the lowest ceiling
/// where one is in use.
fn thermal_limit(limits: &CoreLimits) -> String {
    let deepest = limits
        .thermal
        .cooling
        .iter()
        .min_by_key(|device| device.ceiling_khz.map_or(u32::MAX, |khz| khz.0));
    match deepest {
        Some(device) => fill(
            gettext("a thermal limit (cooling level {state} of {max})"),
            &[("state", &device.cur_state), ("max", &device.max_state)],
        ),
        None => gettext("a thermal limit"),
    }
}

/// `line` with since when its limit has held the cores, where the chain saw it begin.
fn with_since(line: String, limits: &CoreLimits) -> String {
    match limits.since.filter(|_| limits.limiter != Limiter::None) {
        Some(since) => fill(
            gettext("{verdict} since {time}"),
            &[("verdict", &line), ("time", &clock(since))],
        ),
        None => line,
    }
}

#[cfg(test)]
mod tests;
