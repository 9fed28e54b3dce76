// SPDX-License-Identifier: GPL-3.0-or-later
//! The verdict: which link holds each core type back (`docs/kernel.md` 8.7).
//!
//! Each policy's chain is worked out first. A link holds a policy when it sets a ceiling
//! below what the settings request, or when it is seen acting without saying a frequency
//! (throttle counters rising, the package at its power limit: their ceiling is then what the
//! CPUs deliver). The limiter is the link with the lowest ceiling, the earlier in the chain
//! where two are equal; where no link holds, the settings hold the policy if they ask for
//! less than the hardware's highest, and nothing does otherwise. A core type's limiter is
//! the one that holds most of its policies, a setting counting after any other link.

use std::cmp::Reverse;

use crate::machine::{Policy, Snapshot};
use crate::values::{CoreType, Governor, Khz};

use super::reader::{LimitReader, LimitReading, PolicyFiles};
use super::thermal::{CoolingDevice, ThermalLink};
use super::{CoreLimits, FirmwareLink, Limiter, PlatformLink, PowerLink, SettingsLink};

/// A ceiling counts when it is below this share of what it is compared with: frequencies
/// read back rounded to a driver's step, and a limit of 99 % of the request holds nothing
/// anyone would notice.
const BELOW_PERCENT: u64 = 98;

/// `a` is meaningfully lower than `b`.
fn below(a: Khz, b: Khz) -> bool {
    u64::from(a.0) * 100 < u64::from(b.0) * BELOW_PERCENT
}

/// One policy's chain.
#[derive(Debug, Clone)]
struct PolicyChain {
    id: u32,
    core_type: Option<CoreType>,
    requested: Option<Khz>,
    hardware_max: Option<Khz>,
    delivered: Option<Khz>,
    limiter: Limiter,
    ceiling: Option<Khz>,
    settings: SettingsLink,
    firmware: FirmwareLink,
    platform: PlatformLink,
    thermal: ThermalLink,
}

/// Everything the verdict reads, over the readings of the last seconds (oldest first).
pub(super) struct Evidence<'a> {
    pub reader: &'a LimitReader,
    pub snapshot: &'a Snapshot,
    pub readings: &'a [LimitReading],
}

/// The chain of each core type: performance cores first, then efficiency, low-power, and
/// cores of no particular type. Empty without a reading.
pub(super) fn core_limits(evidence: &Evidence<'_>) -> Vec<CoreLimits> {
    let (Some(first), Some(last)) = (evidence.readings.first(), evidence.readings.last()) else {
        return Vec::new();
    };
    let seconds = last.at.duration_since(first.at).as_secs_f64();
    let power = match (&evidence.reader.power, &first.power, &last.power) {
        (Some(files), Some(old), Some(new)) => files.link(old, new, seconds),
        _ => PowerLink::default(),
    };
    let chains: Vec<PolicyChain> = evidence
        .reader
        .policies
        .iter()
        .enumerate()
        .map(|(index, files)| policy_chain(evidence, index, files, power.holds))
        .collect();
    let source = evidence.reader.policies.first().map(|files| {
        if files.avg_freq {
            "cpuinfo_avg_freq"
        } else {
            "scaling_cur_freq"
        }
    });
    let mut types: Vec<Option<CoreType>> = CoreType::ALL.iter().copied().map(Some).collect();
    types.push(None);
    types
        .into_iter()
        .filter_map(|core_type| {
            let members: Vec<&PolicyChain> =
                chains.iter().filter(|c| c.core_type == core_type).collect();
            let mut limits = combine(core_type, &members, &power)?;
            limits.delivered_source = source;
            Some(limits)
        })
        .collect()
}

fn policy_chain(
    evidence: &Evidence<'_>,
    index: usize,
    files: &PolicyFiles,
    power_holds: bool,
) -> PolicyChain {
    let readings = evidence.readings;
    let last = readings.last().and_then(|r| r.policies.get(index));
    let policy = evidence.snapshot.policy(files.id);
    let cpuinfo_max = last.and_then(|p| p.cpuinfo_max_khz);
    let max_now = last.and_then(|p| p.max_khz);
    let hardware_max = files.hardware_max_khz.max(cpuinfo_max);
    let delivered = average(
        readings
            .iter()
            .filter_map(|r| r.policies.get(index)?.delivered_khz),
    );

    let last_reading = readings.last();
    let firmware = firmware_link(files, policy, last_reading, cpuinfo_max, hardware_max);
    let bios_limit = last
        .and_then(|p| p.bios_limit_khz)
        .filter(|limit| cpuinfo_max.is_none_or(|max| below(*limit, max)));
    let platform = PlatformLink {
        bios_limit_khz: last.and_then(|p| p.bios_limit_khz),
        platform_profile: last_reading.and_then(|r| r.platform_profile.clone()),
        clamped_max_khz: None,
        ceiling_khz: bios_limit,
    };
    let thermal = thermal_link(evidence, files, cpuinfo_max);
    // `scaling_max_freq` shows the lowest of every maximum asked (the user's, a cooling
    // device's, the BIOS's: `docs/kernel.md` 8.1): at a link's ceiling, it is that link's,
    // and the user's own maximum underneath is not known.
    let max_set = max_now.filter(|max| {
        [platform.ceiling_khz, thermal.ceiling_khz]
            .into_iter()
            .flatten()
            .all(|ceiling| below(*max, ceiling))
    });
    let settings = SettingsLink {
        ceiling_khz: settings_ceiling(evidence.snapshot, policy, max_set, cpuinfo_max),
        asked_max_khz: None,
    };
    let requested = settings.ceiling_khz.or(hardware_max);

    // Each link that holds, with the ceiling it holds at (what the CPUs deliver for one
    // seen acting without a frequency of its own).
    let acting = |ceiling: Option<Khz>, active: bool| match (ceiling, requested) {
        (Some(ceiling), Some(requested)) if below(ceiling, requested) => Some(Some(ceiling)),
        (None, _) if active => Some(delivered),
        _ => None,
    };
    let thermal_active = thermal.throttle_events.is_some_and(|events| events > 0);
    let holding = [
        (Limiter::Firmware, acting(firmware.ceiling_khz, false)),
        (Limiter::Platform, acting(platform.ceiling_khz, false)),
        (
            Limiter::Thermal,
            acting(thermal.ceiling_khz, thermal_active),
        ),
        (Limiter::Power, acting(None, power_holds)),
    ];
    let binding = holding
        .iter()
        .enumerate()
        .filter_map(|(order, (limiter, ceiling))| Some((order, *limiter, (*ceiling)?)))
        // An unknown ceiling is a hold seen acting whose frequency is unknown: lowest.
        .min_by_key(|(order, _, ceiling)| (ceiling.map_or(0, |khz| khz.0), *order));
    let (limiter, ceiling) = match binding {
        Some((_, limiter, ceiling)) => (limiter, ceiling),
        None => match (settings.ceiling_khz, hardware_max) {
            (Some(asked), Some(max)) if below(asked, max) => (Limiter::Settings, Some(asked)),
            _ => (Limiter::None, None),
        },
    };
    PolicyChain {
        id: files.id,
        core_type: files.core_type,
        requested,
        hardware_max,
        delivered,
        limiter,
        ceiling,
        settings,
        firmware,
        platform,
        thermal,
    }
}

/// What the settings allow, where it is less than the driver's highest: the minimum under
/// the generic `powersave` governor, or the maximum in force (`max`; see
/// [`CoreLimits::clamped`] for one the platform lowered).
fn settings_ceiling(
    snapshot: &Snapshot,
    policy: Option<&Policy>,
    max: Option<Khz>,
    cpuinfo_max: Option<Khz>,
) -> Option<Khz> {
    let policy = policy?;
    let generic_powersave = !snapshot.driver.is_setpolicy()
        && policy
            .governor
            .as_ref()
            .is_some_and(|governor| governor.is(Governor::POWERSAVE));
    if generic_powersave {
        return policy.min_khz;
    }
    max.filter(|max| cpuinfo_max.is_none_or(|top| below(*max, top)))
}

fn firmware_link(
    files: &PolicyFiles,
    policy: Option<&Policy>,
    reading: Option<&LimitReading>,
    cpuinfo_max: Option<Khz>,
    hardware_max: Option<Khz>,
) -> FirmwareLink {
    let boost = reading.and_then(|r| r.boost);
    let max_perf_pct = reading.and_then(|r| r.max_perf_pct);
    // Boost off holds a driver that keeps `cpuinfo_max_freq` at the turbo frequency
    // (intel_pstate before it follows HWP_CAP) at its base frequency.
    let base = (boost == Some(false))
        .then(|| policy.and_then(|p| p.base_khz))
        .flatten();
    let percent = max_perf_pct.filter(|pct| *pct < 100).and_then(|pct| {
        let max = u64::from(hardware_max?.0);
        u32::try_from(max * u64::from(pct) / 100).ok().map(Khz)
    });
    let lowered_max = cpuinfo_max.filter(|max| hardware_max.is_some_and(|top| below(*max, top)));
    FirmwareLink {
        max_khz: cpuinfo_max,
        boost,
        max_perf_pct,
        highest_perf: files.highest_perf,
        boost_max_khz: files.boost_max_khz,
        ceiling_khz: min_known([lowered_max, base, percent]),
    }
}

fn thermal_link(
    evidence: &Evidence<'_>,
    files: &PolicyFiles,
    cpuinfo_max: Option<Khz>,
) -> ThermalLink {
    let (Some(first), Some(last)) = (evidence.readings.first(), evidence.readings.last()) else {
        return ThermalLink::default();
    };
    let mut link = ThermalLink::default();
    for &index in &files.cooling {
        let (Some(device), Some(state)) = (
            evidence.reader.cooling.get(index),
            last.cooling_states.get(index),
        ) else {
            continue;
        };
        link.cooling_devices += 1;
        let Some(state) = state.filter(|state| *state > 0) else {
            continue;
        };
        let ceiling_khz = device.ceiling(state, cpuinfo_max, &files.frequencies);
        link.ceiling_khz = min_known([link.ceiling_khz, ceiling_khz]);
        link.cooling.push(CoolingDevice {
            device: device.name.clone(),
            kind: device.kind,
            cur_state: state,
            max_state: device.max_state,
            ceiling_khz,
        });
    }
    let events = |reading: &LimitReading| -> Option<u64> {
        let counts = files.throttle.iter();
        counts
            .filter_map(|&cpu| reading.throttle.counts.get(cpu).copied())
            .reduce(u64::saturating_add)
    };
    link.throttle_events = events(last).map(|new| new.saturating_sub(events(first).unwrap_or(new)));
    link
}

/// The core type's chain from its policies' chains; `None` where it has none.
fn combine(
    core_type: Option<CoreType>,
    members: &[&PolicyChain],
    power: &PowerLink,
) -> Option<CoreLimits> {
    let first = members.first()?;
    // The limiter holding most policies, any link before the settings, the earlier link of
    // the chain on a tie.
    let limiter = Limiter::CHAIN
        .iter()
        .enumerate()
        .map(|(order, limiter)| {
            let count = members.iter().filter(|c| c.limiter == *limiter).count();
            (*limiter, count, order)
        })
        .filter(|(_, count, _)| *count > 0)
        .max_by_key(|(limiter, count, order)| {
            (*limiter != Limiter::Settings, *count, Reverse(*order))
        })
        .map_or(Limiter::None, |(limiter, _, _)| limiter);
    let held: Vec<&PolicyChain> = members
        .iter()
        .copied()
        .filter(|c| limiter != Limiter::None && c.limiter == limiter)
        .collect();
    let shown = held.first().copied().unwrap_or(first);
    let mut thermal = shown.thermal.clone();
    thermal.cooling = Vec::new();
    thermal.cooling_devices = 0;
    for chain in members {
        for device in &chain.thermal.cooling {
            if !thermal
                .cooling
                .iter()
                .any(|known| known.device == device.device)
            {
                thermal.cooling.push(device.clone());
            }
        }
        thermal.cooling_devices += chain.thermal.cooling_devices;
    }
    thermal.throttle_events = members
        .iter()
        .filter_map(|c| c.thermal.throttle_events)
        .reduce(u64::saturating_add);
    Some(CoreLimits {
        core_type,
        policies: members.iter().map(|c| c.id).collect(),
        requested_khz: members.iter().filter_map(|c| c.requested).max(),
        hardware_max_khz: members.iter().filter_map(|c| c.hardware_max).max(),
        delivered_khz: average(members.iter().filter_map(|c| c.delivered)),
        delivered_source: None,
        limiter,
        ceiling_khz: held_at(&held),
        held_policies: held.iter().map(|c| c.id).collect(),
        since: None,
        settings: shown.settings.clone(),
        firmware: shown.firmware.clone(),
        platform: shown.platform.clone(),
        thermal,
        power: power.clone(),
    })
}

/// The frequency the limiter holds the `held` policies at: the lowest of their ceilings, or,
/// for a link seen acting without a frequency of its own (the package at its power limit,
/// throttle counters rising), what they deliver on average rather than the slowest policy.
fn held_at(held: &[&PolicyChain]) -> Option<Khz> {
    let acting_only = held.iter().all(|chain| match chain.limiter {
        Limiter::Power => true,
        Limiter::Thermal => chain.thermal.ceiling_khz.is_none(),
        _ => false,
    });
    if acting_only {
        average(held.iter().filter_map(|chain| chain.delivered))
    } else {
        held.iter().filter_map(|chain| chain.ceiling).min()
    }
}

fn average(values: impl Iterator<Item = Khz>) -> Option<Khz> {
    let (sum, count) = values.fold((0u64, 0u64), |(sum, count), khz| {
        (sum + u64::from(khz.0), count + 1)
    });
    (count > 0)
        .then(|| u32::try_from(sum / count).ok())
        .flatten()
        .map(Khz)
}

fn min_known<const N: usize>(values: [Option<Khz>; N]) -> Option<Khz> {
    values.into_iter().flatten().min()
}

impl CoreLimits {
    /// Judges the chain again knowing that the maximum frequency of `policies` was `asked`
    /// before a sleep lowered it (as the helper recorded: `crate::suspend`). Read alone, a
    /// lowered maximum looks like the user's choice; known to have come back lower from a
    /// sleep, it is the platform's. Nothing changes where another link holds the cores, or
    /// where none of these policies is held by the maximum.
    pub fn clamped(&mut self, policies: &[u32], asked: Khz) {
        let held: Vec<u32> = self
            .held_policies
            .iter()
            .copied()
            .filter(|id| policies.contains(id))
            .collect();
        if self.limiter != Limiter::Settings || held.is_empty() {
            return;
        }
        self.limiter = Limiter::Platform;
        self.held_policies = held;
        self.platform.clamped_max_khz = self.ceiling_khz;
        self.platform.ceiling_khz = min_known([self.platform.ceiling_khz, self.ceiling_khz]);
        self.settings.asked_max_khz = Some(asked);
        self.settings.ceiling_khz = self
            .hardware_max_khz
            .is_none_or(|max| below(asked, max))
            .then_some(asked);
        self.requested_khz = self.requested_khz.max(Some(asked));
    }
}
