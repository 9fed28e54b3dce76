// SPDX-License-Identifier: GPL-3.0-or-later
//! What the kernel's files list, shared by the rules (what a write may say) and the
//! rendering (what the files print).

/// The EPP names in `energy_perf_strings[]` order, after `default`
/// (`drivers/cpufreq/intel_pstate.c`, `drivers/cpufreq/amd-pstate.c`).
pub(super) const EPP_NAMES: [&str; 4] = [
    "performance",
    "balance_performance",
    "balance_power",
    "power",
];
/// amd-pstate's EPP value for each of [`EPP_NAMES`] (`epp_values[]`).
pub(super) const AMD_EPP_VALUES: [u8; 4] = [0x00, 0x80, 0xBF, 0xFF];
/// The generic governors a distribution kernel registers.
pub(super) const GENERIC_GOVERNORS: [&str; 6] = [
    "conservative",
    "ondemand",
    "userspace",
    "powersave",
    "performance",
    "schedutil",
];
