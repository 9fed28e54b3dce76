// SPDX-License-Identifier: GPL-3.0-or-later
//! The rules about what holds the CPUs back, from the limit chain (`crate::limits`): cores
//! held by a thermal limit, and a package power limit set below its default. Neither is
//! something Pacer can set right: heat passes once the machine cools, and the power limit
//! is the firmware's or another tool's, so their fix is advice (with the command, where
//! there is one).

use crate::i18n::{fill, gettext, ngettext};
use crate::limits::{CoreLimits, Limiter};

use super::finding::{Finding, FindingKind, Fix, FixAction, Severity};
use super::group::tee_command;

/// The findings the chains of `limits` call for.
pub fn limit_findings(limits: &[CoreLimits]) -> Vec<Finding> {
    let mut findings = Vec::new();
    thermal(limits, &mut findings);
    power(limits, &mut findings);
    findings
}

/// One finding for all core types a thermal limit holds.
fn thermal(limits: &[CoreLimits], findings: &mut Vec<Finding>) {
    let held: Vec<&CoreLimits> = limits
        .iter()
        .filter(|core| core.limiter == Limiter::Thermal)
        .collect();
    let Some(first) = held.first() else {
        return;
    };
    let mut policies: Vec<u32> = held
        .iter()
        .flat_map(|core| core.held_policies.clone())
        .collect();
    policies.sort_unstable();
    let how = match first
        .thermal
        .cooling
        .iter()
        .max_by_key(|device| device.cur_state)
    {
        Some(device) => fill(
            gettext("cooling state {state} of {max}"),
            &[("state", &device.cur_state), ("max", &device.max_state)],
        ),
        None => {
            let count = first.thermal.throttle_events.unwrap_or(0);
            fill(
                ngettext(
                    "{count} throttle event in the last seconds",
                    "{count} throttle events in the last seconds",
                    u32::try_from(count).unwrap_or(u32::MAX),
                ),
                &[("count", &count)],
            )
        }
    };
    // Each core type at its own frequency: P-cores and E-cores stop at different ones.
    let held_at: Vec<String> = held
        .iter()
        .map(|core| {
            let policies = super::set(&core.held_policies);
            match core.ceiling_khz {
                Some(khz) => fill(
                    gettext("policy {policies} at {frequency}"),
                    &[("policies", &policies), ("frequency", &khz.words())],
                ),
                None => fill(gettext("policy {policies}"), &[("policies", &policies)]),
            }
        })
        .collect();
    let summary = fill(
        gettext("A thermal limit holds {held} ({how})"),
        &[("held", &held_at.join(", ")), ("how", &how)],
    );
    findings.push(Finding {
        kind: FindingKind::ThermalLimit,
        severity: Severity::Warning,
        policies,
        expected: None,
        actual: Some(how),
        summary,
        detail: gettext("The processor is hot, so the kernel's cooling or the hardware itself slows the cores down until it cools. It steps back by itself; a lasting limit points at blocked vents, a soft surface under the machine, dust, or a heavy load that runs for long."),
        fix: Fix {
            action: FixAction::Advice,
            description: gettext("Let the machine cool: keep its vents clear and the load lighter"),
            command: None,
        },
        cause: Vec::new(),
    });
}

/// The package's long-term limit below its default, a warning while it holds the cores.
fn power(limits: &[CoreLimits], findings: &mut Vec<Finding>) {
    let Some(link) = limits
        .first()
        .map(|core| &core.power)
        .filter(|link| link.lowered)
    else {
        return;
    };
    let (Some(zone), Some(limit), Some(default)) = (
        &link.long_term_file,
        link.long_term_uw,
        link.long_term_default_uw,
    ) else {
        return;
    };
    let watts = |microwatts: u64| format!("{:.0}", microwatts as f64 / 1e6);
    let holds = limits.iter().any(|core| core.limiter == Limiter::Power);
    let drawn = match (link.drawn_uw, link.drawn_unreadable) {
        (Some(drawn), _) => fill(
            gettext("The package draws {watts} W now."),
            &[("watts", &watts(drawn))],
        ),
        (None, true) => {
            gettext("Only root can read the energy counter, so the power drawn now is not known.")
        }
        (None, false) => gettext("The power drawn now is not known."),
    };
    findings.push(Finding {
        kind: FindingKind::PowerLimitLowered,
        severity: if holds {
            Severity::Warning
        } else {
            Severity::Info
        },
        policies: Vec::new(),
        expected: Some(default.to_string()),
        actual: Some(limit.to_string()),
        summary: fill(
            gettext("The long-term power limit is {limit} W, below its default of {default} W"),
            &[("limit", &watts(limit)), ("default", &watts(default))],
        ),
        detail: fill(
            gettext("The firmware or another tool set the package's sustained power limit (RAPL PL1) lower than the processor's rated power, so under a long load the cores slow down to stay within it. {drawn}"),
            &[("drawn", &drawn)],
        ),
        fix: Fix {
            action: FixAction::Advice,
            description: fill(
                gettext("Set the long-term power limit back to {default} W, if the machine can cool that much"),
                &[("default", &watts(default))],
            ),
            command: Some(tee_command(
                &default.to_string(),
                &format!("/{zone}"),
            )),
        },
        cause: Vec::new(),
    });
}
