// SPDX-License-Identifier: GPL-3.0-or-later
//! logind's side of a test: python-dbusmock's logind template, told what to announce.

use crate::SystemBus;

impl SystemBus {
    /// Has python-dbusmock's logind say that the machine goes to sleep (`start`) or woke
    /// (logind's `PrepareForSleep`); returns the error text where the mock does not answer.
    pub fn prepare_for_sleep(&self, start: bool) -> Result<String, String> {
        self.call(
            "org.freedesktop.login1",
            "/org/freedesktop/login1",
            "org.freedesktop.DBus.Mock.EmitSignal",
            &[
                "org.freedesktop.login1.Manager",
                "PrepareForSleep",
                "b",
                &format!("[<{start}>]"),
            ],
        )
    }
}
