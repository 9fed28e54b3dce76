// SPDX-License-Identifier: GPL-3.0-or-later
//! `Epp::from_str`: `energy_performance_preference`, a name or a raw number 0-255.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacer_core::values::Epp;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match text.parse::<Epp>() {
        Ok(epp) => {
            let printed = epp.as_kernel_str();
            assert_eq!(printed.parse::<Epp>(), Ok(epp));
            assert_eq!(epp.to_string(), printed);
            if !Epp::NAMED.contains(&epp) {
                assert!(text.bytes().all(|b| b.is_ascii_digit()), "{text:?}");
            }
            let json = serde_json::to_string(&epp).unwrap();
            assert_eq!(json, format!("\"{printed}\""));
        }
        Err(error) => {
            assert_eq!(error.0, text);
            let _ = error.to_string();
        }
    }
});
