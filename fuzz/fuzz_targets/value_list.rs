// SPDX-License-Identifier: GPL-3.0-or-later
//! `Probe::parse_list` as `Probe::list` uses it: `scaling_available_governors` and
//! `energy_performance_available_preferences` (space-separated, with the kernel's trailing
//! space), after `Probe::text` has taken off the newline; and the message about a garbled
//! file, which shortens what was found.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacer_core::sysfs::{Expected, Probe};
use pacer_core::values::{Epp, Governor};
use pacer_core::SysRoot;

const GOVERNORS: &str = "sys/devices/system/cpu/cpufreq/policy0/scaling_available_governors";
const EPPS: &str =
    "sys/devices/system/cpu/cpufreq/policy0/energy_performance_available_preferences";

fuzz_target!(|data: &[u8]| {
    let Ok(read) = std::str::from_utf8(data) else {
        return;
    };
    // What `Probe::text` hands on: the file without its one trailing newline.
    let text = read.strip_suffix('\n').unwrap_or(read);
    let root = SysRoot::new("/nonexistent-fuzz-root");
    let mut probe = Probe::new(&root);

    let governors = probe.parse_list::<Governor>(GOVERNORS, text, Expected::GovernorList);
    let epps = probe.parse_list::<Epp>(EPPS, text, Expected::EppList);
    let items = text.split_ascii_whitespace().count();
    for list in [
        governors.as_ref().map(Vec::len),
        epps.as_ref().map(Vec::len),
    ] {
        if let Some(len) = list {
            assert!(len > 0);
            assert_eq!(len, items);
        }
    }
    let garbled = usize::from(governors.is_none()) + usize::from(epps.is_none());
    assert_eq!(probe.problems.len(), garbled);
    for problem in &probe.problems {
        let message = problem.to_string();
        assert!(!message.is_empty());
        let _ = serde_json::to_string(problem).unwrap();
    }
});
