// SPDX-License-Identifier: GPL-3.0-or-later
//! `Epb::from_str`: `cpuN/power/energy_perf_bias`, 0 to 15.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacer_core::values::Epb;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(epb) = text.parse::<Epb>() {
        assert!(epb.value() <= 15);
        assert!(text.bytes().all(|b| b.is_ascii_digit()), "{text:?}");
        assert_eq!(Epb::new(epb.value()), Some(epb));
        assert_eq!(epb.value().to_string().parse::<Epb>(), Ok(epb));
        assert_eq!(
            serde_json::to_string(&epb).unwrap(),
            epb.value().to_string()
        );
    }
});
