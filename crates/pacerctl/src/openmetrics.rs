// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl status --openmetrics` and `--prometheus`: the status as metrics, for fleets that
//! already run Prometheus (`docs/contracts.md` 5).
//!
//! Settings are state sets (one sample per state, labelled with the family's own name, 1 for
//! the current state), frequencies and power are gauges in base units (hertz, watts) named
//! with their unit, findings are info metrics. The families are written once here; how each
//! format spells them is `exposition`'s. The HELP texts stay in English on purpose: an
//! exposition is read by programs, and one metric must say the same on every host it is
//! scraped from.

mod exposition;

#[cfg(test)]
mod tests;

use pacer_core::limits::{CoreLimits, Limiter, PowerLink};
use pacer_core::machine::{Policy, Snapshot};
use pacer_core::status::Status;
use pacer_core::values::{CoreType, Khz};
use pacer_core::CpuSet;

use exposition::Exposition;
pub use exposition::Format;

/// The label value of cores of no particular type (all cores alike).
const ALL_CORES: &str = "all";

/// The whole exposition of `status` in `format`.
pub fn render(status: &Status, format: Format) -> String {
    let mut out = Exposition::new(format);
    profile(&mut out, status);
    settings(&mut out, &status.snapshot);
    frequencies(&mut out, &status.limits);
    limiters(&mut out, &status.limits);
    power(&mut out, &status.limits);
    findings(&mut out, status);
    out.finish()
}

fn core_label(core_type: Option<CoreType>) -> &'static str {
    core_type.map_or(ALL_CORES, CoreType::as_str)
}

/// Each value once, in the order met.
fn distinct(values: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = Vec::new();
    for value in values {
        if !seen.contains(&value) {
            seen.push(value);
        }
    }
    seen
}

fn profile(out: &mut Exposition, status: &Status) {
    out.family(
        "pacer_profile",
        "stateset",
        None,
        "The power profile the profile daemon has active, among those it offers.",
    );
    if let Some(profile) = &status.profile {
        let listed = distinct(profile.available.iter().map(|info| info.profile.clone()));
        out.states(
            "pacer_profile",
            &[],
            &listed,
            std::slice::from_ref(&profile.active),
        );
    }
}

/// The active policies of each core type: performance first, then efficiency, low-power, and
/// cores of no particular type.
fn core_types(snapshot: &Snapshot) -> Vec<(Option<CoreType>, Vec<&Policy>)> {
    let mut types: Vec<Option<CoreType>> = CoreType::ALL.iter().copied().map(Some).collect();
    types.push(None);
    types
        .into_iter()
        .map(|core_type| {
            let policies = snapshot
                .policies
                .iter()
                .filter(|policy| policy.is_active() && policy.core_type == core_type)
                .collect();
            (core_type, policies)
        })
        .filter(|(_, policies): &(_, Vec<&Policy>)| !policies.is_empty())
        .collect()
}

/// The governor and EPP of each core type, as state sets (several states at 1 where its
/// policies disagree).
fn settings(out: &mut Exposition, snapshot: &Snapshot) {
    let types = core_types(snapshot);
    out.family(
        "pacer_governor",
        "stateset",
        None,
        "The cpufreq governor of each core type (scaling_governor), among those the kernel offers.",
    );
    for (core_type, policies) in &types {
        let listed = distinct(
            policies
                .iter()
                .flat_map(|p| p.available_governors.iter().flatten())
                .map(ToString::to_string),
        );
        let current = distinct(
            policies
                .iter()
                .filter_map(|p| p.governor.as_ref())
                .map(ToString::to_string),
        );
        let labels = [("core_type", core_label(*core_type))];
        out.states("pacer_governor", &labels, &listed, &current);
    }
    out.family(
        "pacer_epp",
        "stateset",
        None,
        "The energy-performance preference of each core type (energy_performance_preference), among those the kernel offers.",
    );
    for (core_type, policies) in &types {
        let listed = distinct(
            policies
                .iter()
                .flat_map(|p| p.available_epp.iter().flatten())
                .map(ToString::to_string),
        );
        let current = distinct(policies.iter().filter_map(|p| p.epp).map(|e| e.to_string()));
        let labels = [("core_type", core_label(*core_type))];
        out.states("pacer_epp", &labels, &listed, &current);
    }
}

fn hertz(khz: Khz) -> u64 {
    u64::from(khz.0) * 1000
}

/// Requested, delivered and highest frequency of each core type, and the ceiling its limiter
/// holds it at.
fn frequencies(out: &mut Exposition, limits: &[CoreLimits]) {
    type Field = fn(&CoreLimits) -> Option<Khz>;
    let gauges: [(&str, &str, Field); 4] = [
        (
            "pacer_requested_frequency_hertz",
            "The highest frequency the settings of each core type ask for.",
            |core| core.requested_khz,
        ),
        (
            "pacer_delivered_frequency_hertz",
            "The frequency each core type ran at, on average over its policies and the readings.",
            |core| core.delivered_khz,
        ),
        (
            "pacer_hardware_max_frequency_hertz",
            "The highest frequency the hardware of each core type can run at, boost included.",
            |core| core.hardware_max_khz,
        ),
        (
            "pacer_ceiling_frequency_hertz",
            "The frequency the limiter holds each core type at, where it is known.",
            |core| core.ceiling_khz,
        ),
    ];
    for (name, help, field) in gauges {
        out.family(name, "gauge", Some("hertz"), help);
        for core in limits {
            if let Some(khz) = field(core) {
                out.sample(
                    name,
                    &[("core_type", core_label(core.core_type))],
                    hertz(khz),
                );
            }
        }
    }
}

/// Which link of the limit chain holds each core type back.
fn limiters(out: &mut Exposition, limits: &[CoreLimits]) {
    out.family(
        "pacer_limiter",
        "stateset",
        None,
        "The link of the limit chain that holds each core type below what its settings ask for (none: nothing does).",
    );
    let listed: Vec<String> = std::iter::once(Limiter::None)
        .chain(Limiter::CHAIN)
        .map(|limiter| limiter.as_str().to_owned())
        .collect();
    for core in limits {
        let labels = [("core_type", core_label(core.core_type))];
        let current = [core.limiter.as_str().to_owned()];
        out.states("pacer_limiter", &labels, &listed, &current);
    }
}

/// The package's RAPL limits, their defaults and the power drawn (the same for every core
/// type: RAPL limits the package).
fn power(out: &mut Exposition, limits: &[CoreLimits]) {
    let link = limits.first().map(|core| &core.power);
    let zone = link.and_then(|link| Some((link, link.zone.as_deref()?)));
    let watts = |microwatts: u64| microwatts as f64 / 1e6;
    // Each constraint by the name the kernel gives it (`constraint_N_name`).
    type Values = fn(&PowerLink) -> [(&'static str, Option<u64>); 2];
    let families: [(&str, &str, Values); 2] = [
        (
            "pacer_power_limit_watts",
            "The package's RAPL power limit of each constraint (constraint_N_power_limit_uw).",
            |link| {
                [
                    ("long_term", link.long_term_uw),
                    ("short_term", link.short_term_uw),
                ]
            },
        ),
        (
            "pacer_power_limit_default_watts",
            "The default of each RAPL constraint of the package (constraint_N_max_power_uw).",
            |link| {
                [
                    ("long_term", link.long_term_default_uw),
                    ("short_term", link.short_term_default_uw),
                ]
            },
        ),
    ];
    for (name, help, values) in families {
        out.family(name, "gauge", Some("watts"), help);
        let Some((link, zone)) = zone else { continue };
        for (constraint, value) in values(link) {
            if let Some(microwatts) = value {
                let labels = [("zone", zone), ("constraint", constraint)];
                out.sample(name, &labels, watts(microwatts));
            }
        }
    }
    let name = "pacer_power_drawn_watts";
    out.family(
        name,
        "gauge",
        Some("watts"),
        "The power the package drew between the readings, from its RAPL energy counter.",
    );
    if let Some((link, zone)) = zone {
        if let Some(drawn) = link.drawn_uw {
            out.sample(name, &[("zone", zone)], watts(drawn));
        }
    }
}

/// One info sample per finding: its kind, severity and policies.
fn findings(out: &mut Exposition, status: &Status) {
    out.family(
        "pacer_finding",
        "info",
        None,
        "A finding: a setting that is not what the profile implies, or something that holds the CPU back.",
    );
    let mut seen: Vec<[String; 3]> = Vec::new();
    for finding in &status.findings {
        let policies: CpuSet = finding.policies.iter().copied().collect();
        let labels = [
            token(&finding.kind),
            token(&finding.severity),
            policies.to_string(),
        ];
        // Two findings of one kind on the same policies are one series.
        if seen.contains(&labels) {
            continue;
        }
        let [kind, severity, policies] = &labels;
        out.sample(
            "pacer_finding_info",
            &[
                ("kind", kind),
                ("severity", severity),
                ("policies", policies),
            ],
            1,
        );
        seen.push(labels);
    }
}

/// A value's JSON token (`epp-mismatch`, `warning`).
fn token(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(token)) => token,
        _ => String::new(),
    }
}
