// SPDX-License-Identifier: GPL-3.0-or-later
//! `EasSysctl::from_str`: `/proc/sys/kernel/sched_energy_aware` (empty, `0` or `1`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacer_core::values::EasSysctl;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(value) = text.parse::<EasSysctl>() {
        assert_eq!(value.as_kernel_str(), text);
    }
});
