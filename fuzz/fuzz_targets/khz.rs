// SPDX-License-Identifier: GPL-3.0-or-later
//! `Khz::from_str`: every cpufreq frequency file (`scaling_max_freq`, `base_frequency`, ...).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacer_core::values::Khz;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(khz) = text.parse::<Khz>() {
        assert!(text.bytes().all(|b| b.is_ascii_digit()), "{text:?}");
        assert_eq!(khz.0.to_string().parse::<Khz>(), Ok(khz));
        let mhz = khz.mhz();
        assert_eq!(u64::from(mhz), (u64::from(khz.0) + 500) / 1000);
        assert_eq!(serde_json::to_string(&khz).unwrap(), khz.0.to_string());
    }
});
