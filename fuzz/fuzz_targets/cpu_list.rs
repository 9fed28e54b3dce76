// SPDX-License-Identifier: GPL-3.0-or-later
//! `CpuSet::parse`: range lists (`0-3,8`) and space-separated lists (`0 1 2 3`), as in
//! `online`, `related_cpus`, `thread_siblings_list`, energy-model `cpus`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacer_core::cpuset::{CpuSet, MAX_CPUS};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match CpuSet::parse(text) {
        Ok(set) => {
            assert!(set.len() <= MAX_CPUS as usize);
            assert!(set.iter().all(|cpu| cpu < MAX_CPUS));
            assert!(set.iter().zip(set.iter().skip(1)).all(|(a, b)| a < b));
            // Both spellings of the set read back as the same set.
            let ranges = set.to_string();
            assert_eq!(CpuSet::parse(&ranges), Ok(set.clone()), "{ranges:?}");
            // (Only for short lists: a long one is slow to spell out, and no new path.)
            if set.len() <= 64 {
                let spaced: Vec<String> = set.iter().map(|cpu| cpu.to_string()).collect();
                assert_eq!(CpuSet::parse(&spaced.join(" ")), Ok(set.clone()));
            }
            assert_eq!(set.first(), set.iter().next());
            assert!(set.is_subset(&set));
            let json = serde_json::to_string(&set).unwrap();
            assert!(json.starts_with('['));
        }
        Err(error) => {
            let _ = error.to_string();
        }
    }
});
