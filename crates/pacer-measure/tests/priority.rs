// SPDX-License-Identifier: GPL-3.0-or-later
//! The measuring process's autogroup raised to nice -20 while it measures, and put back
//! (`pacer_measure::sched::AutogroupPriority`), on this machine's kernel: raising a group
//! needs CAP_SYS_NICE, so this runs as root, apart from the unit tests.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;

use pacer_measure::sched::{autogroup_nice, AutogroupPriority};

const AUTOGROUP: &str = "/proc/self/autogroup";

#[test]
#[ignore = "needs root, to raise a priority: build-aux/test.sh --lane system runs it"]
fn the_group_is_raised_while_measuring_and_put_back() {
    match autogroup_nice() {
        Some(before) => {
            {
                let _raised = AutogroupPriority::raise().expect("as root the group can be raised");
                assert_eq!(autogroup_nice(), Some(-20));
            }
            assert_eq!(autogroup_nice(), Some(before));
        }
        // No group to raise: a kernel built without autogroups (no file), or a process in
        // the kernel's root group, which the file shows as empty (a process tree that never
        // called setsid, as CI's; its tasks already compete one by one, by their own nice).
        // Raising says so, and nothing is written.
        None => {
            let shown = fs::read_to_string(AUTOGROUP);
            match &shown {
                Err(error) => assert_eq!(
                    error.kind(),
                    std::io::ErrorKind::NotFound,
                    "{AUTOGROUP} exists but cannot be read"
                ),
                Ok(text) => assert_eq!(text, "", "{AUTOGROUP} says what is not a group"),
            }
            assert!(AutogroupPriority::raise().is_none());
            assert_eq!(fs::read_to_string(AUTOGROUP).ok(), shown.ok());
        }
    }
}
