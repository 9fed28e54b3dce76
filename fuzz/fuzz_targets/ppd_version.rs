// SPDX-License-Identifier: GPL-3.0-or-later
//! `PpdVersion::parse`: the profile daemon's `Version` property (`0.30`, `0.21.1`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacer_core::profile::daemon::PpdVersion;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(version) = PpdVersion::parse(text) {
        let printed = format!("{}.{}", version.major, version.minor);
        assert_eq!(PpdVersion::parse(&printed), Some(version));
        assert!(version.at_least(version.major, version.minor));
        assert!(version.at_least(0, 0));
    }
});
