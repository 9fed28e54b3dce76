// SPDX-License-Identifier: GPL-3.0-or-later
//! Each link of the limit chain in one line: what was read, with the kernel's file names and
//! tokens, and unknown with the reason where nothing could be read (`docs/kernel.md` 8.1-8.6).

use std::time::Duration;

use pacer_core::i18n::{fill, gettext, ngettext};
use pacer_core::limits::{CoolingDevice, CoolingKind, CoreLimits, PowerLink};
use pacer_core::machine::{Policy, Snapshot};
use pacer_core::status::Status;
use pacer_core::values::Khz;

use super::figures::{count, frequency, seconds, watts};

pub(super) fn is_intel(snapshot: &Snapshot) -> bool {
    snapshot
        .driver
        .name
        .as_deref()
        .is_some_and(|name| name.starts_with("intel_"))
}

pub(super) fn policies<'a>(snapshot: &'a Snapshot, ids: &[u32]) -> Vec<&'a Policy> {
    ids.iter().filter_map(|id| snapshot.policy(*id)).collect()
}

/// The different values the policies have, in their order, as one text ("powersave" or
/// "powersave/performance" where they disagree).
fn values<T: ToString>(values: impl Iterator<Item = T>) -> Option<String> {
    let mut seen: Vec<String> = Vec::new();
    for value in values.map(|value| value.to_string()) {
        if !seen.contains(&value) {
            seen.push(value);
        }
    }
    (!seen.is_empty()).then(|| seen.join("/"))
}

/// The requested link: the profile, the settings, and the highest frequency they ask for.
pub(super) fn requested(status: &Status, core: &CoreLimits) -> String {
    let members = policies(&status.snapshot, &core.policies);
    let mut parts = Vec::new();
    if let Some(profile) = status.active_profile() {
        parts.push(fill(gettext("profile {profile}"), &[("profile", &profile)]));
    }
    let settings: [(&str, Option<String>); 4] = [
        (
            "scaling_governor",
            values(members.iter().filter_map(|p| p.governor.as_ref())),
        ),
        (
            "energy_performance_preference",
            values(members.iter().filter_map(|p| p.epp)),
        ),
        (
            "scaling_min_freq",
            values(members.iter().filter_map(|p| p.min_khz.map(frequency))),
        ),
        (
            "scaling_max_freq",
            values(members.iter().filter_map(|p| p.max_khz.map(frequency))),
        ),
    ];
    parts.extend(
        settings
            .into_iter()
            .filter_map(|(file, value)| Some(format!("{file} {}", value?))),
    );
    if let Some(asked) = core.settings.asked_max_khz {
        parts.push(fill(
            gettext("scaling_max_freq {frequency} before the sleep"),
            &[("frequency", &frequency(asked))],
        ));
    }
    if let Some(requested) = core.requested_khz {
        parts.push(fill(
            gettext("up to {frequency}"),
            &[("frequency", &frequency(requested))],
        ));
    }
    if parts.is_empty() {
        return gettext("unknown: no setting of these policies could be read");
    }
    parts.join(", ")
}

/// The firmware link: the driver's highest frequency, turbo/boost, the performance share.
pub(super) fn firmware(snapshot: &Snapshot, core: &CoreLimits) -> String {
    let link = &core.firmware;
    if link.max_khz.is_none() && link.boost.is_none() && link.max_perf_pct.is_none() {
        return gettext("unknown: neither cpuinfo_max_freq nor a boost switch could be read");
    }
    let mut parts = vec![match link.max_khz {
        Some(max) => format!("cpuinfo_max_freq {}", frequency(max)),
        None => gettext("cpuinfo_max_freq unknown: it could not be read"),
    }];
    parts.push(match (link.boost, is_intel(snapshot)) {
        (Some(true), true) => format!("intel_pstate/no_turbo 0 ({})", gettext("turbo allowed")),
        (Some(false), true) => format!("intel_pstate/no_turbo 1 ({})", gettext("turbo off")),
        (Some(true), false) => format!("cpufreq/boost 1 ({})", gettext("boost allowed")),
        (Some(false), false) => format!("cpufreq/boost 0 ({})", gettext("boost off")),
        (None, _) => gettext("boost unknown: no boost switch was read"),
    });
    if let Some(pct) = link.max_perf_pct {
        parts.push(format!("intel_pstate/max_perf_pct {pct}"));
    }
    if let Some(perf) = link.highest_perf {
        parts.push(format!("amd_pstate_highest_perf {perf}"));
    }
    if let Some(max) = link.boost_max_khz {
        parts.push(format!("amd_pstate_max_freq {}", frequency(max)));
    }
    parts.extend(holds_at(link.ceiling_khz));
    parts.join(", ")
}

/// The platform link: the BIOS limit, the platform profile, a maximum lowered across a sleep.
pub(super) fn platform(core: &CoreLimits) -> String {
    let link = &core.platform;
    let mut parts = Vec::new();
    if let Some(limit) = link.bios_limit_khz {
        parts.push(format!("bios_limit {}", frequency(limit)));
    }
    if let Some(profile) = &link.platform_profile {
        parts.push(format!("platform_profile {profile}"));
    }
    if let Some(clamped) = link.clamped_max_khz {
        let asked = core
            .settings
            .asked_max_khz
            .map_or_else(String::new, frequency);
        parts.push(fill(
            gettext("scaling_max_freq lowered to {frequency} across a sleep, from {asked}"),
            &[("frequency", &frequency(clamped)), ("asked", &asked)],
        ));
    }
    if parts.is_empty() {
        return gettext("no bios_limit and no platform_profile on this machine");
    }
    parts.extend(holds_at(link.ceiling_khz));
    parts.join(", ")
}

/// The thermal link: the cooling devices in use, the throttle events over the interval.
pub(super) fn thermal(core: &CoreLimits, interval: Duration) -> String {
    let link = &core.thermal;
    if link.cooling_devices == 0 && link.throttle_events.is_none() {
        return gettext(
            "unknown: no cooling device acts on these CPUs and the kernel has no throttle counters here",
        );
    }
    let mut parts: Vec<String> = cooling_groups(&link.cooling)
        .iter()
        .map(|group| cooling(group))
        .collect();
    if parts.is_empty() {
        parts.push(if link.cooling_devices == 0 {
            gettext("no cooling device acts on these CPUs")
        } else {
            fill(
                ngettext(
                    "no cooling device in use ({count} acts on these CPUs)",
                    "no cooling device in use ({count} act on these CPUs)",
                    count(link.cooling_devices as u64),
                ),
                &[("count", &link.cooling_devices)],
            )
        });
    }
    parts.push(match link.throttle_events {
        Some(_) if interval.is_zero() => {
            gettext("throttle events unknown: one reading (--interval 0)")
        }
        Some(events) => fill(
            ngettext(
                "{count} throttle event in {seconds} s",
                "{count} throttle events in {seconds} s",
                count(events),
            ),
            &[("count", &events), ("seconds", &seconds(interval))],
        ),
        None => gettext("no throttle counters (thermal_throttle)"),
    });
    parts.extend(holds_at(link.ceiling_khz));
    parts.join(", ")
}

/// Cooling devices in the same state, side by side (one per CPU of a package, often).
fn cooling_groups(devices: &[CoolingDevice]) -> Vec<Vec<&CoolingDevice>> {
    let mut groups: Vec<Vec<&CoolingDevice>> = Vec::new();
    for device in devices {
        let alike = |other: &&CoolingDevice| {
            (
                other.kind,
                other.cur_state,
                other.max_state,
                other.ceiling_khz,
            ) == (
                device.kind,
                device.cur_state,
                device.max_state,
                device.ceiling_khz,
            )
        };
        match groups
            .iter_mut()
            .find(|group| group.first().is_some_and(alike))
        {
            Some(group) => group.push(device),
            None => groups.push(vec![device]),
        }
    }
    groups
}

/// "cooling_device3 Processor state 3 of 10 → 1.36 GHz".
fn cooling(group: &[&CoolingDevice]) -> String {
    let Some(first) = group.first() else {
        return String::new();
    };
    let more = group.len() - 1;
    let devices = if more == 0 {
        first.device.clone()
    } else {
        fill(
            ngettext(
                "{device} and {count} more:",
                "{device} and {count} more:",
                count(more as u64),
            ),
            &[("device", &first.device), ("count", &more)],
        )
    };
    let kind = match first.kind {
        CoolingKind::Processor => "Processor",
        CoolingKind::Cpufreq => "cpufreq",
    };
    let text = fill(
        gettext("{devices} {kind} state {state} of {max}"),
        &[
            ("devices", &devices),
            ("kind", &kind),
            ("state", &first.cur_state),
            ("max", &first.max_state),
        ],
    );
    match first.ceiling_khz {
        Some(ceiling) => format!("{text} → {}", frequency(ceiling)),
        None => text,
    }
}

/// The power link: the package's RAPL limits against their defaults, the power drawn.
pub(super) fn power(link: &PowerLink, interval: Duration) -> String {
    let Some(zone) = &link.zone else {
        return gettext("unknown: no RAPL package zone (powercap intel-rapl)");
    };
    let mut parts = Vec::new();
    let constraints = [
        ("long_term", link.long_term_uw, link.long_term_default_uw),
        ("short_term", link.short_term_uw, link.short_term_default_uw),
    ];
    for (name, limit, default) in constraints {
        parts.push(match (limit, default) {
            (Some(limit), Some(default)) => fill(
                gettext("{constraint} {limit} (default {default})"),
                &[
                    ("constraint", &name),
                    ("limit", &watts(limit)),
                    ("default", &watts(default)),
                ],
            ),
            (Some(limit), None) => fill(
                gettext("{constraint} {limit} (no default given)"),
                &[("constraint", &name), ("limit", &watts(limit))],
            ),
            (None, _) => fill(gettext("{constraint} unknown"), &[("constraint", &name)]),
        });
    }
    if link.lowered {
        parts.push(gettext("the long-term limit is below its default"));
    }
    parts.push(match link.drawn_uw {
        Some(drawn) => fill(gettext("drawing {power}"), &[("power", &watts(drawn))]),
        None if link.drawn_unreadable => {
            gettext("power drawn unknown: only root can read the energy counter")
        }
        None if interval.is_zero() => gettext("power drawn unknown: one reading (--interval 0)"),
        None => gettext("power drawn unknown: the energy counter could not be read"),
    });
    if link.holds {
        parts.push(gettext("the package draws what the limit allows"));
    }
    format!("{zone}: {}", parts.join(", "))
}

/// The delivered frequency, and the file it comes from.
pub(super) fn delivered(core: &CoreLimits, interval: Duration) -> String {
    let source = core.delivered_source.unwrap_or("scaling_cur_freq");
    match core.delivered_khz {
        Some(khz) if interval.is_zero() => fill(
            gettext("{frequency} ({source}, one reading)"),
            &[("frequency", &frequency(khz)), ("source", &source)],
        ),
        Some(khz) => fill(
            gettext("{frequency} ({source}, average over {seconds} s)"),
            &[
                ("frequency", &frequency(khz)),
                ("source", &source),
                ("seconds", &seconds(interval)),
            ],
        ),
        None => fill(
            gettext("unknown: {source} could not be read"),
            &[("source", &source)],
        ),
    }
}

fn holds_at(ceiling: Option<Khz>) -> Option<String> {
    ceiling.map(|khz| {
        fill(
            gettext("holds at {frequency}"),
            &[("frequency", &frequency(khz))],
        )
    })
}
