// SPDX-License-Identifier: GPL-3.0-or-later
//! Why a core type runs slower than it could, in one line (`docs/kernel.md` 8.7): what
//! holds it back, at what frequency, since when. The headline ([`limiter_line`]) names the
//! core type, for the tray and the details' heading; the verdict ([`verdict`]) leaves it to
//! the row it is the subtitle of, whose bar says it again with the figures
//! ([`bar_description`]). Each link of the chain in words, for the details, is in
//! `chain`. Only what the chain read is said; the kernel's tokens stay in the details'
//! "Kernel values" and in `pacerctl`.

use pacer_core::i18n::{fill, gettext};
use pacer_core::limits::{CoolingDevice, CoreLimits, Limiter, ThermalLink};
use pacer_core::machine::cores_heading;
use pacer_core::values::CoreType;
use pacer_core::values::Khz;

use crate::words::time::clock;

mod chain;

pub use chain::{chain, LinkWords};

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
    let line = match verdict_of(limits, Detail::Full) {
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

/// "Held at 1.36 GHz by a thermal limit since 14:02": the verdict alone, under a heading
/// that names the core type, short enough for a row's subtitle (the cooling level is in the
/// details).
pub fn verdict(limits: &CoreLimits) -> String {
    let line = match verdict_of(limits, Detail::Short) {
        Verdict::Free => gettext("Nothing holds them back"),
        Verdict::BoostOff(Some(at)) => fill(
            gettext("Held at {frequency}: turbo boost is off"),
            &[("frequency", &at)],
        ),
        Verdict::BoostOff(None) => gettext("Turbo boost is off"),
        Verdict::Held { at: Some(at), by } => fill(
            gettext("Held at {frequency} by {limit}"),
            &[("frequency", &at), ("limit", &by)],
        ),
        Verdict::Held { at: None, by } => fill(gettext("Held back by {limit}"), &[("limit", &by)]),
    };
    with_since(line, limits)
}

/// What the chain's bar is, for a screen reader: "Performance cores: requested and delivered
/// speed".
pub fn bar_name(core_type: Option<CoreType>) -> String {
    fill(
        gettext("{cores}: requested and delivered speed"),
        &[("cores", &cores_heading(core_type))],
    )
}

/// What the chain's bar shows, on hover and for a screen reader: the verdict, then the
/// speed requested and the speed delivered, a line each.
pub fn bar_description(limits: &CoreLimits) -> String {
    let mut lines = vec![verdict(limits)];
    if let Some(requested) = limits.requested_khz {
        lines.push(fill(
            gettext("Requested: up to {frequency}"),
            &[("frequency", &requested.words())],
        ));
    }
    if let Some(delivered) = limits.delivered_khz {
        lines.push(fill(
            gettext("Delivered: {frequency}"),
            &[("frequency", &delivered.words())],
        ));
    }
    lines.join("\n")
}

/// Whether a verdict names the cooling level behind a thermal limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Detail {
    Full,
    Short,
}

fn verdict_of(limits: &CoreLimits, detail: Detail) -> Verdict {
    let at = limits.ceiling_khz.map(Khz::words);
    let by = match limits.limiter {
        Limiter::None => return Verdict::Free,
        Limiter::Firmware if limits.firmware.boost == Some(false) => {
            return Verdict::BoostOff(at);
        }
        Limiter::Settings => gettext("the settings"),
        Limiter::Firmware => gettext("a firmware limit"),
        Limiter::Platform => gettext("a platform limit"),
        Limiter::Thermal => match deepest(&limits.thermal).filter(|_| detail == Detail::Full) {
            Some(device) => fill(
                gettext("a thermal limit (cooling level {state} of {max})"),
                &[("state", &device.cur_state), ("max", &device.max_state)],
            ),
            None => gettext("a thermal limit"),
        },
        Limiter::Power => gettext("a power limit"),
    };
    Verdict::Held { at, by }
}

/// The cooling device in use that allows the least: the one that holds the cores.
fn deepest(link: &ThermalLink) -> Option<&CoolingDevice> {
    link.cooling
        .iter()
        .min_by_key(|device| device.ceiling_khz.map_or(u32::MAX, |khz| khz.0))
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
