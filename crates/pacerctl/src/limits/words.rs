// SPDX-License-Identifier: GPL-3.0-or-later
//! The limit chain in words, for engineers: per core type a line for each link (`links`), the
//! link that holds marked, and the verdict, which names the limiter with its figures
//! (`docs/kernel.md` 8.7).

use std::fmt::Write;
use std::time::Duration;

use pacer_core::i18n::{fill, gettext, ngettext};
use pacer_core::limits::{CoreLimits, Limiter};
use pacer_core::machine::{cores_heading, Snapshot};
use pacer_core::status::Status;
use pacer_core::values::Governor;
use pacer_core::CpuSet;

use super::figures::{count, frequency, watts};
use super::links::{delivered, firmware, is_intel, platform, policies, power, requested, thermal};
use crate::sections::{no_cpufreq, problems_section};
use crate::style::Style;

/// `pacerctl limits`: each core type's chain and verdict, then what could not be read.
pub fn render(status: &Status, interval: Duration, style: &Style) -> String {
    let mut out = String::new();
    if status.limits.is_empty() {
        let _ = writeln!(out, "{}", no_cpufreq());
    }
    let labels = [
        gettext("Requested"),
        gettext("Firmware"),
        gettext("Platform"),
        gettext("Thermal"),
        gettext("Power"),
        gettext("Delivered"),
    ];
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    for (index, core) in status.limits.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}", style.heading(&subject(core, &core.policies)));
        // Each line with the link it stands for (the requested one is the settings').
        let links = [
            (Some(Limiter::Settings), requested(status, core)),
            (Some(Limiter::Firmware), firmware(&status.snapshot, core)),
            (Some(Limiter::Platform), platform(core)),
            (Some(Limiter::Thermal), thermal(core, interval)),
            (Some(Limiter::Power), power(&core.power, interval)),
            (None, delivered(core, interval)),
        ];
        for (label, (link, text)) in labels.iter().zip(links) {
            let padded = format!("{label:width$}");
            if link == Some(core.limiter) {
                let mark = gettext("← holds these cores");
                let _ = writeln!(out, "  {}  {text}  {}", style.warning(&padded), mark);
            } else {
                let _ = writeln!(out, "  {}  {text}", style.dim(&padded));
            }
        }
        let _ = writeln!(out, "  {}", style.heading(&verdict(core, &status.snapshot)));
    }
    out.push_str(&problems_section(&status.snapshot.problems, style));
    out
}

/// The verdict in one line: "Efficiency cores held at 1.36 GHz by a thermal limit (cooling
/// state 3 of 10)".
pub fn verdict(core: &CoreLimits, snapshot: &Snapshot) -> String {
    let held = &core.held_policies;
    let cores = if !held.is_empty() && held.len() < core.policies.len() {
        subject(core, held)
    } else {
        cores_heading(core.core_type)
    };
    let holder = match core.limiter {
        Limiter::None => {
            return match core.hardware_max_khz {
                Some(max) => fill(
                    gettext("{cores} not held back: they may run up to {frequency}"),
                    &[("cores", &cores), ("frequency", &frequency(max))],
                ),
                None => fill(gettext("{cores} not held back"), &[("cores", &cores)]),
            };
        }
        Limiter::Settings => gettext("their settings"),
        Limiter::Firmware => gettext("the firmware"),
        Limiter::Platform => gettext("a platform limit"),
        Limiter::Thermal => gettext("a thermal limit"),
        Limiter::Power => gettext("a power limit"),
    };
    let text = match core.ceiling_khz {
        Some(ceiling) => fill(
            gettext("{cores} held at {frequency} by {limiter}"),
            &[
                ("cores", &cores),
                ("frequency", &frequency(ceiling)),
                ("limiter", &holder),
            ],
        ),
        None => fill(
            gettext("{cores} held by {limiter}"),
            &[("cores", &cores), ("limiter", &holder)],
        ),
    };
    match why(core, snapshot) {
        Some(why) => format!("{text} ({why})"),
        None => text,
    }
}

/// "Efficiency cores (policy 8-15)".
fn subject(core: &CoreLimits, policies: &[u32]) -> String {
    let policies: CpuSet = policies.iter().copied().collect();
    fill(
        gettext("{cores} (policy {policies})"),
        &[
            ("cores", &cores_heading(core.core_type)),
            ("policies", &policies),
        ],
    )
}

/// What the limiter is, in a few words and the kernel's names.
fn why(core: &CoreLimits, snapshot: &Snapshot) -> Option<String> {
    match core.limiter {
        Limiter::None => None,
        Limiter::Settings => {
            // The generic powersave governor holds a policy at its minimum (`docs/kernel.md`
            // 8.1); otherwise it is the maximum set.
            let powersave = !snapshot.driver.is_setpolicy()
                && policies(snapshot, &core.held_policies).iter().any(|p| {
                    p.governor
                        .as_ref()
                        .is_some_and(|g| g.is(Governor::POWERSAVE))
                });
            Some(if powersave {
                "scaling_governor powersave".to_owned()
            } else {
                "scaling_max_freq".to_owned()
            })
        }
        Limiter::Firmware => {
            let link = &core.firmware;
            Some(match (link.boost, link.max_perf_pct) {
                (Some(false), _) if is_intel(snapshot) => gettext("turbo off"),
                (Some(false), _) => gettext("boost off"),
                (_, Some(pct)) if pct < 100 => format!("intel_pstate/max_perf_pct {pct}"),
                _ => "cpuinfo_max_freq".to_owned(),
            })
        }
        Limiter::Platform => Some(if core.platform.clamped_max_khz.is_some() {
            gettext("scaling_max_freq lowered across a sleep")
        } else {
            "bios_limit".to_owned()
        }),
        Limiter::Thermal => {
            let tightest = core
                .thermal
                .cooling
                .iter()
                .min_by_key(|device| device.ceiling_khz.map_or(u32::MAX, |khz| khz.0));
            match (tightest, core.thermal.throttle_events) {
                (Some(device), _) => Some(fill(
                    gettext("cooling state {state} of {max}"),
                    &[("state", &device.cur_state), ("max", &device.max_state)],
                )),
                (None, Some(events)) => Some(fill(
                    ngettext(
                        "{count} throttle event",
                        "{count} throttle events",
                        count(events),
                    ),
                    &[("count", &events)],
                )),
                (None, None) => None,
            }
        }
        Limiter::Power => {
            let power = &core.power;
            let (limit, default) = (power.long_term_uw?, power.long_term_default_uw?);
            Some(fill(
                gettext("long-term limit {limit}, default {default}"),
                &[("limit", &watts(limit)), ("default", &watts(default))],
            ))
        }
    }
}
