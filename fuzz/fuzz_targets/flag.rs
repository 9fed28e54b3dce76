// SPDX-License-Identifier: GPL-3.0-or-later
//! `Flag::from_str`: 0/1 files (`no_turbo`, `boost`, `smt/active`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacer_core::values::Flag;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(Flag(on)) = text.parse::<Flag>() {
        assert_eq!(text, if on { "1" } else { "0" });
    }
});
