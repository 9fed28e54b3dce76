// SPDX-License-Identifier: GPL-3.0-or-later
//! Each link of a core type's chain in words, from what the settings request to what the
//! cores deliver (`docs/kernel.md` 8.1–8.6), for the details: its value in one line, the
//! readings behind it by the names `pacerctl status --json` and the kernel give them, and
//! whether it is the link that holds the cores. A link that could not be read says so, and
//! why, instead of a guess.

use pacer_core::i18n::{fill, gettext, ngettext};
use pacer_core::limits::{
    CoolingKind, CoreLimits, FirmwareLink, Limiter, PlatformLink, PowerLink, ThermalLink,
};
use pacer_core::values::Khz;

/// One link of the chain, as the details list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkWords {
    /// "Thermal".
    pub name: String,
    /// "Cooling level 3 of 10: at most 1.36 GHz", or "Unknown: …" with the reason.
    pub value: String,
    /// The readings behind it, `name=value` as `pacerctl` and the kernel write them; empty
    /// where there are none.
    pub kernel: String,
    /// This is the link that holds the cores.
    pub holds: bool,
}

/// The six links, in the chain's order: requested, firmware, platform, thermal, power,
/// delivered.
pub fn chain(limits: &CoreLimits) -> Vec<LinkWords> {
    let holds = |limiter: Limiter| limits.limiter == limiter;
    vec![
        LinkWords {
            name: gettext("Requested"),
            value: requested(limits),
            kernel: readings([
                ("requested_khz", khz(limits.requested_khz)),
                ("hardware_max_khz", khz(limits.hardware_max_khz)),
                ("asked_max_khz", khz(limits.settings.asked_max_khz)),
            ]),
            holds: holds(Limiter::Settings),
        },
        LinkWords {
            name: gettext("Firmware"),
            value: firmware(&limits.firmware, limits.hardware_max_khz),
            kernel: firmware_readings(&limits.firmware),
            holds: holds(Limiter::Firmware),
        },
        LinkWords {
            name: gettext("Platform"),
            value: platform(&limits.platform),
            kernel: readings([
                ("bios_limit", khz(limits.platform.bios_limit_khz)),
                ("platform_profile", limits.platform.platform_profile.clone()),
                ("scaling_max_freq", khz(limits.platform.clamped_max_khz)),
            ]),
            holds: holds(Limiter::Platform),
        },
        LinkWords {
            name: gettext("Thermal"),
            value: thermal(&limits.thermal),
            kernel: thermal_readings(&limits.thermal),
            holds: holds(Limiter::Thermal),
        },
        LinkWords {
            name: gettext("Power"),
            value: power(&limits.power),
            kernel: power_readings(&limits.power),
            holds: holds(Limiter::Power),
        },
        LinkWords {
            name: gettext("Delivered"),
            value: match limits.delivered_khz {
                Some(delivered) => fill(
                    gettext("{frequency} on average over the last seconds"),
                    &[("frequency", &delivered.words())],
                ),
                None => gettext("Unknown: the kernel does not say how fast they ran"),
            },
            kernel: readings([(
                limits.delivered_source.unwrap_or("scaling_cur_freq"),
                khz(limits.delivered_khz),
            )]),
            holds: false,
        },
    ]
}

fn requested(limits: &CoreLimits) -> String {
    match (
        limits.requested_khz,
        limits.settings.ceiling_khz,
        limits.hardware_max_khz,
    ) {
        (_, Some(asked), Some(highest)) => fill(
            gettext("Up to {frequency}, less than the hardware's {highest}"),
            &[("frequency", &asked.words()), ("highest", &highest.words())],
        ),
        (Some(requested), _, _) => fill(
            gettext("Up to {frequency}, the hardware's highest"),
            &[("frequency", &requested.words())],
        ),
        (None, _, _) => gettext("Unknown: the settings could not be read"),
    }
}

fn firmware(link: &FirmwareLink, hardware_max: Option<Khz>) -> String {
    let read = link.max_khz.is_some() || link.boost.is_some() || link.max_perf_pct.is_some();
    match (link.boost, link.ceiling_khz) {
        _ if !read => gettext("Unknown: the driver does not say its highest frequency"),
        (Some(false), Some(ceiling)) => fill(
            gettext("Turbo boost is off: at most {frequency}"),
            &[("frequency", &ceiling.words())],
        ),
        (Some(false), None) => gettext("Turbo boost is off"),
        (_, Some(ceiling)) => fill(
            gettext("At most {frequency}"),
            &[("frequency", &ceiling.words())],
        ),
        (_, None) => match hardware_max {
            Some(highest) => fill(
                gettext("No limit: up to {frequency}"),
                &[("frequency", &highest.words())],
            ),
            None => gettext("No limit"),
        },
    }
}

fn platform(link: &PlatformLink) -> String {
    match (link.clamped_max_khz, link.ceiling_khz) {
        (Some(clamped), _) => fill(
            gettext("Maximum lowered to {frequency} while the computer slept"),
            &[("frequency", &clamped.words())],
        ),
        (None, Some(ceiling)) => fill(
            gettext("The BIOS allows at most {frequency}"),
            &[("frequency", &ceiling.words())],
        ),
        (None, None) if link.bios_limit_khz.is_none() && link.platform_profile.is_none() => {
            gettext("Unknown: the firmware offers no limit to read")
        }
        (None, None) => gettext("No limit"),
    }
}

fn thermal(link: &ThermalLink) -> String {
    if let Some(device) = super::deepest(link) {
        let (state, max) = (device.cur_state, device.max_state);
        return match device.ceiling_khz {
            Some(ceiling) => fill(
                gettext("Cooling level {state} of {max}: at most {frequency}"),
                &[
                    ("state", &state),
                    ("max", &max),
                    ("frequency", &ceiling.words()),
                ],
            ),
            None => fill(
                gettext("Cooling level {state} of {max}"),
                &[("state", &state), ("max", &max)],
            ),
        };
    }
    match link.throttle_events {
        Some(events) if events > 0 => fill(
            ngettext(
                "Slowed down {count} time in the last seconds to cool",
                "Slowed down {count} times in the last seconds to cool",
                u32::try_from(events).unwrap_or(u32::MAX),
            ),
            &[("count", &events)],
        ),
        None if link.cooling_devices == 0 => {
            gettext("Unknown: no cooling device or throttle counter to read")
        }
        _ => gettext("No cooling in use"),
    }
}

fn power(link: &PowerLink) -> String {
    if link.zone.is_none() {
        return gettext("Unknown: no package power limit to read");
    }
    let Some(limit) = link.long_term_uw else {
        return gettext("No long-term power limit");
    };
    let limit = watts(limit);
    match (
        link.holds,
        link.lowered,
        link.long_term_default_uw.map(watts),
    ) {
        (true, _, Some(default)) => fill(
            gettext("At its limit of {limit}, lowered from {default}"),
            &[("limit", &limit), ("default", &default)],
        ),
        (true, _, None) => fill(gettext("At its limit of {limit}"), &[("limit", &limit)]),
        (false, true, Some(default)) => fill(
            gettext("Limit lowered to {limit} from {default}, not reached"),
            &[("limit", &limit), ("default", &default)],
        ),
        _ => fill(gettext("Up to {limit}"), &[("limit", &limit)]),
    }
}

/// "8 W", "7.6 W": microwatts to a tenth of a watt.
fn watts(microwatts: u64) -> String {
    #[allow(clippy::cast_precision_loss)] // Microwatts a package draws fit a float.
    let watts = format!("{:.1}", microwatts as f64 / 1e6);
    let watts = watts.trim_end_matches('0').trim_end_matches('.');
    fill(gettext("{watts} W"), &[("watts", &watts)])
}

fn firmware_readings(link: &FirmwareLink) -> String {
    readings([
        ("cpuinfo_max_freq", khz(link.max_khz)),
        ("boost", link.boost.map(|on| u8::from(on).to_string())),
        ("max_perf_pct", link.max_perf_pct.map(|pct| pct.to_string())),
        (
            "amd_pstate_highest_perf",
            link.highest_perf.map(|perf| perf.to_string()),
        ),
        ("amd_pstate_max_freq", khz(link.boost_max_khz)),
    ])
}

/// The cooling devices in use, those at the same state told once with their count
/// (an ACPI processor's has one per CPU), and the throttle events counted.
fn thermal_readings(link: &ThermalLink) -> String {
    let mut told: Vec<(String, usize)> = Vec::new();
    for device in &link.cooling {
        // The kernel's `type` of the device (`cpufreq-cpuN` without its CPU).
        let kind = match device.kind {
            CoolingKind::Processor => "Processor",
            CoolingKind::Cpufreq => "cpufreq",
        };
        let line = format!(
            "{kind} cur_state={} max_state={}",
            device.cur_state, device.max_state
        );
        match told.iter_mut().find(|(known, _)| *known == line) {
            Some((_, count)) => *count += 1,
            None => told.push((line, 1)),
        }
    }
    let mut lines: Vec<String> = told
        .into_iter()
        .map(|(line, count)| match count {
            1 => line,
            count => format!("{line} ×{count}"),
        })
        .collect();
    if let Some(events) = link.throttle_events {
        lines.push(format!("thermal_throttle +{events}"));
    }
    lines.join(", ")
}

fn power_readings(link: &PowerLink) -> String {
    let Some(zone) = &link.zone else {
        return String::new();
    };
    let constraint = |limit: Option<u64>, default: Option<u64>| {
        limit.map(|limit| match default {
            Some(default) => format!("{limit}/{default}"),
            None => limit.to_string(),
        })
    };
    let rest = readings([
        (
            "long_term",
            constraint(link.long_term_uw, link.long_term_default_uw),
        ),
        (
            "short_term",
            constraint(link.short_term_uw, link.short_term_default_uw),
        ),
        ("drawn_uw", link.drawn_uw.map(|uw| uw.to_string())),
        (
            "drawn_unreadable",
            link.drawn_unreadable.then(|| "true".to_owned()),
        ),
    ]);
    format!("{zone}: {rest}")
}

/// `name=value` for each reading there is, comma-separated.
fn readings<const N: usize>(pairs: [(&str, Option<String>); N]) -> String {
    pairs
        .into_iter()
        .filter_map(|(name, value)| Some(format!("{name}={}", value?)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn khz(khz: Option<Khz>) -> Option<String> {
    khz.map(|khz| khz.0.to_string())
}
