// SPDX-License-Identifier: GPL-3.0-or-later
//! Reading the chain's files: found once ([`LimitReader::new`]), then each read once per
//! refresh ([`LimitReader::read`]). What does not change while the machine runs (a cooling
//! device's type and CPU, a power limit's default, the boost frequency) is read when the
//! reader is made, so that a tray refreshing every second reads only what moves.

use std::time::{Instant, SystemTime};

use crate::machine::Snapshot;
use crate::sysfs::{Expected, KeptFiles, Need, Probe, Problem, SysRoot};
use crate::values::{CoreType, Decimal, Flag, Khz};

use super::power::{PowerFiles, PowerReading};
use super::thermal::{CoolingFiles, ThrottleFiles, ThrottleReading};

const CPU_DIR: &str = "sys/devices/system/cpu";
const PLATFORM_PROFILE: &str = "sys/firmware/acpi/platform_profile";

/// What is known of one active policy before any refresh.
#[derive(Debug, Clone)]
pub(super) struct PolicyFiles {
    pub id: u32,
    pub core_type: Option<CoreType>,
    /// `scaling_max_freq`, `cpuinfo_max_freq`, the delivered frequency's file and
    /// `bios_limit` (where it exists), paths made once.
    files: [String; 3],
    bios_limit_file: Option<String>,
    /// `cpuinfo_avg_freq` exists: the delivered frequency comes from it rather than from
    /// `scaling_cur_freq` (`docs/kernel.md` 8.6).
    pub avg_freq: bool,
    /// The highest frequency seen for the hardware: `cpuinfo_max_freq` when the reader was
    /// made, or amd-pstate's boost frequency where higher.
    pub hardware_max_khz: Option<Khz>,
    /// amd-pstate's `amd_pstate_max_freq` and `amd_pstate_highest_perf`.
    pub boost_max_khz: Option<Khz>,
    pub highest_perf: Option<u32>,
    /// The frequencies the driver offers, highest first, where it lists them (a cpufreq
    /// cooling device's states step down through them).
    pub frequencies: Vec<Khz>,
    /// The cooling devices that hold the policy, and its CPUs among the throttle readings:
    /// indices found once, so that a refresh goes through each device and CPU once.
    pub cooling: Vec<usize>,
    pub throttle: Vec<usize>,
}

/// Where turbo/boost is switched, and whether the file says "off" with a 1.
#[derive(Debug, Clone)]
struct BoostFile {
    path: String,
    inverted: bool,
}

/// The chain's files of a machine, found once.
#[derive(Debug)]
pub struct LimitReader {
    pub(super) policies: Vec<PolicyFiles>,
    boost: Option<BoostFile>,
    max_perf_pct: bool,
    platform_profile: bool,
    pub(super) cooling: Vec<CoolingFiles>,
    throttle: ThrottleFiles,
    pub(super) power: Option<PowerFiles>,
    /// The policies' files, kept open between refreshes: most of what is read each time.
    kept: KeptFiles,
    /// What could not be read while finding the files.
    pub problems: Vec<Problem>,
}

/// One policy's moving values at one refresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyReading {
    pub id: u32,
    /// `scaling_max_freq`: the maximum in force, the user's and the kernel's together.
    pub max_khz: Option<Khz>,
    /// `cpuinfo_max_freq`.
    pub cpuinfo_max_khz: Option<Khz>,
    pub delivered_khz: Option<Khz>,
    pub bios_limit_khz: Option<Khz>,
}

/// Everything the chain reads at one refresh.
#[derive(Debug, Clone)]
pub struct LimitReading {
    pub at: Instant,
    pub wall: SystemTime,
    /// In the reader's order of policies.
    pub policies: Vec<PolicyReading>,
    pub boost: Option<bool>,
    pub max_perf_pct: Option<u32>,
    pub platform_profile: Option<String>,
    /// Each cooling device's `cur_state`, in the reader's order of devices.
    pub cooling_states: Vec<Option<u32>>,
    pub throttle: ThrottleReading,
    pub power: Option<PowerReading>,
    pub problems: Vec<Problem>,
}

impl LimitReader {
    /// Finds the chain's files for the active policies of `snapshot`.
    pub fn new(root: &SysRoot, snapshot: &Snapshot) -> LimitReader {
        let mut probe = Probe::new(root);
        let active: Vec<_> = snapshot
            .policies
            .iter()
            .filter(|policy| policy.is_active())
            .collect();
        // A driver gives every policy the same attributes (`docs/kernel.md` 1.2): the first
        // says which exist.
        let has = |name: &str| {
            active
                .first()
                .is_some_and(|policy| root.exists(&format!("{}/{name}", policy_dir(policy.id))))
        };
        let (avg_freq, bios_limit) = (has("cpuinfo_avg_freq"), has("bios_limit"));
        let (amd_max, amd_perf) = (has("amd_pstate_max_freq"), has("amd_pstate_highest_perf"));
        let listed = has("scaling_available_frequencies");
        // In id order, as the snapshot's: found by halving below.
        let mut policies: Vec<PolicyFiles> = active
            .iter()
            .map(|policy| {
                let dir = policy_dir(policy.id);
                let boost_max_khz: Option<Khz> = amd_max
                    .then(|| {
                        let file = format!("{dir}/amd_pstate_max_freq");
                        probe.value(&file, Need::Required, Expected::Frequency)
                    })
                    .flatten();
                let highest_perf = amd_perf
                    .then(|| {
                        let file = format!("{dir}/amd_pstate_highest_perf");
                        probe.value::<Decimal<u32>>(&file, Need::Required, Expected::Number)
                    })
                    .flatten()
                    .map(|perf| perf.0);
                let mut frequencies: Vec<Khz> = if listed {
                    let file = format!("{dir}/scaling_available_frequencies");
                    probe
                        .list(&file, Need::Required, Expected::Frequency)
                        .unwrap_or_default()
                } else {
                    Vec::new()
                };
                frequencies.sort_unstable_by(|a, b| b.cmp(a));
                let delivered = if avg_freq {
                    "cpuinfo_avg_freq"
                } else {
                    "scaling_cur_freq"
                };
                PolicyFiles {
                    id: policy.id,
                    core_type: policy.core_type,
                    files: ["scaling_max_freq", "cpuinfo_max_freq", delivered]
                        .map(|name| format!("{dir}/{name}")),
                    bios_limit_file: bios_limit.then(|| format!("{dir}/bios_limit")),
                    avg_freq,
                    hardware_max_khz: policy.hw_max_khz.max(boost_max_khz),
                    boost_max_khz,
                    highest_perf,
                    frequencies,
                    cooling: Vec::new(),
                    throttle: Vec::new(),
                }
            })
            .collect();
        let boost = boost_file(root, snapshot);
        let max_perf_pct = boost.as_ref().is_some_and(|file| file.inverted)
            && root.exists(&format!("{CPU_DIR}/intel_pstate/max_perf_pct"));
        let cooling = CoolingFiles::find(&mut probe, snapshot);
        let throttle = ThrottleFiles::find(&mut probe, snapshot);
        let index_of = |policies: &[PolicyFiles], id: u32| {
            policies.binary_search_by_key(&id, |files| files.id).ok()
        };
        for (device, files) in cooling.iter().enumerate() {
            if let Some(index) = index_of(&policies, files.policy) {
                policies[index].cooling.push(device);
            }
        }
        for (cpu, policy) in throttle.policies().enumerate() {
            if let Some(index) = policy.and_then(|id| index_of(&policies, id)) {
                policies[index].throttle.push(cpu);
            }
        }
        let power = PowerFiles::find(&mut probe);
        LimitReader {
            policies,
            boost,
            max_perf_pct,
            platform_profile: root.exists(PLATFORM_PROFILE),
            cooling,
            throttle,
            power,
            kept: KeptFiles::default(),
            problems: probe.problems,
        }
    }

    /// Reads every moving value once.
    pub fn read(&mut self, root: &SysRoot) -> LimitReading {
        let mut probe = Probe::new(root);
        let kept = &mut self.kept;
        let mut frequency = |probe: &mut Probe<'_>, file: &str| {
            probe.value_kept::<Khz>(kept, file, Need::Required, Expected::Frequency)
        };
        let policies = self
            .policies
            .iter()
            .map(|policy| {
                let [max, cpuinfo_max, delivered] = &policy.files;
                PolicyReading {
                    id: policy.id,
                    max_khz: frequency(&mut probe, max),
                    cpuinfo_max_khz: frequency(&mut probe, cpuinfo_max),
                    delivered_khz: frequency(&mut probe, delivered),
                    bios_limit_khz: policy
                        .bios_limit_file
                        .as_ref()
                        .and_then(|file| frequency(&mut probe, file)),
                }
            })
            .collect();
        let boost = self.boost.as_ref().and_then(|file| {
            let flag: Flag = probe.value(&file.path, Need::Required, Expected::Flag)?;
            Some(flag.0 != file.inverted)
        });
        let max_perf_pct = self
            .max_perf_pct
            .then(|| {
                let file = format!("{CPU_DIR}/intel_pstate/max_perf_pct");
                probe.value::<Decimal<u32>>(&file, Need::Required, Expected::Number)
            })
            .flatten()
            .map(|pct| pct.0);
        let platform_profile = self
            .platform_profile
            .then(|| probe.text(PLATFORM_PROFILE, Need::Required))
            .flatten();
        let cooling_states = self
            .cooling
            .iter()
            .map(|device| device.read_state(&mut probe, &mut self.kept))
            .collect();
        let throttle = self.throttle.read(&mut probe);
        let power = self.power.as_ref().map(|power| power.read(&mut probe));
        LimitReading {
            at: Instant::now(),
            wall: SystemTime::now(),
            policies,
            boost,
            max_perf_pct,
            platform_profile,
            cooling_states,
            throttle,
            power,
            problems: probe.problems,
        }
    }
}

fn policy_dir(id: u32) -> String {
    format!("{CPU_DIR}/cpufreq/policy{id}")
}

/// intel_pstate's `no_turbo` (1 is off), or cpufreq's global `boost` (1 is on)
/// (`docs/kernel.md` 1.3, 8.2).
fn boost_file(root: &SysRoot, snapshot: &Snapshot) -> Option<BoostFile> {
    let intel = snapshot
        .driver
        .name
        .as_deref()
        .is_some_and(|name| name.starts_with("intel_"));
    let file = if intel {
        BoostFile {
            path: format!("{CPU_DIR}/intel_pstate/no_turbo"),
            inverted: true,
        }
    } else {
        BoostFile {
            path: format!("{CPU_DIR}/cpufreq/boost"),
            inverted: false,
        }
    };
    root.exists(&file.path).then_some(file)
}
