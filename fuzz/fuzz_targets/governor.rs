// SPDX-License-Identifier: GPL-3.0-or-later
//! `Governor::from_str`: `scaling_governor` (and each item of `scaling_available_governors`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacer_core::values::Governor;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match text.parse::<Governor>() {
        Ok(governor) => {
            assert_eq!(governor.as_str(), text);
            assert!(governor.is(text));
            assert!((1..=15).contains(&text.len()));
            assert_eq!(
                governor.to_string().parse::<Governor>(),
                Ok(governor.clone())
            );
            let json = serde_json::to_string(&governor).unwrap();
            assert_eq!(json, format!("\"{text}\""));
        }
        Err(error) => {
            assert_eq!(error.0, text);
            let _ = error.to_string();
        }
    }
});
