// SPDX-License-Identifier: GPL-3.0-or-later
//! The laptop's sleep as logind announces it, for the tests of what the machine wakes with:
//! python-dbusmock's logind on the laptop's bus, heard by the helper's recording.

use std::thread::sleep;
use std::time::Duration;

use super::{wait_until, Laptop};

impl Laptop {
    /// python-dbusmock's logind on this laptop's bus, for the helper to hear the machine
    /// sleep and wake from; it runs while the returned service lives.
    pub fn logind(&self) -> pacer_testrig::Service {
        self.bus.dbusmock("logind", "org.freedesktop.login1")
    }

    /// The machine goes to sleep, `asleep` happens, and it wakes: the logind stand-in of
    /// [`Laptop::logind`] says each until the helper's recording shows it (a recording must
    /// be open: Pacer's, say), so that what changed while asleep is the sleep's doing.
    pub fn sleep_through(&self, asleep: impl FnOnce()) {
        self.logind_says(true);
        asleep();
        self.logind_says(false);
    }

    /// Has the logind stand-in say that the machine goes to sleep (`start`) or woke, again
    /// until the helper records it (its follower listens from the moment a recording opens:
    /// a word said before is not heard).
    fn logind_says(&self, start: bool) {
        let value = if start {
            pacer_core::history::sleep::SUSPENDING
        } else {
            pacer_core::history::sleep::RESUMED
        };
        let recorded = || {
            self.bus.call(
                "io.github.pacerapp.Pacer.Helper1",
                "/io/github/pacerapp/Pacer/Helper1",
                "io.github.pacerapp.Pacer.History1.History",
                &["0"],
            )
        };
        let before = recorded().unwrap_or_default();
        let quoted = format!("\"{value}\"");
        wait_until(
            Duration::from_secs(20),
            &format!("the helper records the machine {value}"),
            || {
                self.bus
                    .prepare_for_sleep(start)
                    .map_err(|e| format!("the logind mock emits PrepareForSleep: {e}"))?;
                sleep(Duration::from_millis(500));
                let now = recorded()?;
                (now.matches(&quoted).count() > before.matches(&quoted).count())
                    .then_some(())
                    .ok_or(now)
            },
        );
    }
}
