// SPDX-License-Identifier: GPL-3.0-or-later
//! What the rules share: policies as a set and grouped by a value, EPP values in words, and
//! the shell command that writes a sysfs file of each policy.

use std::collections::BTreeMap;

use crate::cpuset::CpuSet;
use crate::i18n::gettext;
use crate::machine::Policy;
use crate::values::Epp;

/// The policies as one set, written as the kernel writes CPU lists (`0-3,8`).
pub(crate) fn set(policies: &[u32]) -> CpuSet {
    policies.iter().copied().collect()
}

/// The shell command that writes `value` into the sysfs `file` of each of `policies`.
pub(crate) fn sysfs_command(value: &str, policies: &[u32], file: &str) -> String {
    let set = set(policies);
    let paths = if policies.len() == 1 {
        format!("/sys/devices/system/cpu/cpufreq/policy{set}/{file}")
    } else {
        let list: Vec<String> = policies.iter().map(u32::to_string).collect();
        format!(
            "/sys/devices/system/cpu/cpufreq/policy{{{}}}/{file}",
            list.join(",")
        )
    };
    tee_command(value, &paths)
}

/// The shell command that writes `value` into `path` as root.
pub(super) fn tee_command(value: &str, path: &str) -> String {
    format!("echo {value} | sudo tee {path}")
}

/// The policies (but the `forced` ones) grouped by the value `of` gives them; policies it
/// gives none are left out.
pub(super) fn group_by(
    active: &[&Policy],
    forced: &[u32],
    of: impl Fn(&Policy) -> Option<String>,
) -> BTreeMap<String, Vec<u32>> {
    let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for policy in active.iter().filter(|p| !forced.contains(&p.id)) {
        if let Some(value) = of(policy) {
            groups.entry(value).or_default().push(policy.id);
        }
    }
    groups
}

pub(super) fn join_epp(values: &[Epp]) -> String {
    let names: Vec<String> = values.iter().map(ToString::to_string).collect();
    names.join(&gettext(" or "))
}
