// SPDX-License-Identifier: GPL-3.0-or-later
//! Running `pacerctl` as a user would, away from this machine's own system bus.

#![allow(dead_code, clippy::unwrap_used)]

use std::process::{Command, Output};

pub const PACERCTL: &str = env!("CARGO_BIN_EXE_pacerctl");

/// `pacerctl ARGS` with no root from the environment, messages in English, and a system
/// bus that is not there (tests that need one start their own).
pub fn pacerctl(args: &[&str]) -> Output {
    Command::new(PACERCTL)
        .args(args)
        .env_remove("PACER_SYSFS_ROOT")
        .env("LC_ALL", "C")
        .env(
            "DBUS_SYSTEM_BUS_ADDRESS",
            "unix:path=/nonexistent/system_bus_socket",
        )
        .output()
        .unwrap()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
