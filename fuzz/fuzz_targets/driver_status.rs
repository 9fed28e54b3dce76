// SPDX-License-Identifier: GPL-3.0-or-later
//! `DriverStatus::from_str`: `intel_pstate/status`, `amd_pstate/status`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacer_core::values::DriverStatus;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(status) = text.parse::<DriverStatus>() {
        match status {
            DriverStatus::Mode(mode) => {
                assert_eq!(mode.to_string(), text);
                assert_eq!(text.parse(), Ok(DriverStatus::Mode(mode)));
                let json = serde_json::to_string(&mode).unwrap();
                assert_eq!(json, format!("\"{text}\""));
            }
            DriverStatus::Off => assert!(text == "off" || text == "disable", "{text:?}"),
        }
    }
});
