// SPDX-License-Identifier: GPL-3.0-or-later
//! tuned-ppd's controller as `tuned/ppd/controller.py` (TuneD 2.28.0-rc.1) has it: the active
//! and base profile, the holds, and `PerformanceDegraded`, with the refusals worded as its
//! `DBusException`s are. Each change lists the signals it owes in [`Event`]s.

use std::collections::BTreeMap;

use pacer_core::sim::SimDir;

use super::tuned::{self, ApplyError, PpdProfile};

/// The D-Bus name of every error tuned-ppd returns: a plain `dbus.exceptions.DBusException`
/// as its exporter names it (`tuned/exports/dbus_exporter.py`, `_method_reply_error()`).
pub const DBUS_EXCEPTION: &str = "org.freedesktop.DBus.Python.dbus.exceptions.DBusException";

const NO_TURBO: &str = "/sys/devices/system/cpu/intel_pstate/no_turbo";
const LAP_MODE: &str = "/sys/bus/platform/devices/thinkpad_acpi/dytc_lapmode";

/// A call tuned-ppd refuses: the message of its `DBusException`.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

/// What a change owes the bus, in the order tuned-ppd sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// `PropertiesChanged` for this property, with its new value.
    Changed(&'static str),
    /// `ProfileReleased(cookie)`.
    Released(u32),
}

#[derive(Debug)]
pub struct Hold {
    pub profile: PpdProfile,
    pub reason: String,
    pub app_id: String,
    /// The unique bus name that asked: only it may release the hold, and its leaving does.
    caller: String,
}

#[derive(Debug)]
pub struct Controller {
    dir: SimDir,
    active: PpdProfile,
    /// The profile to come back to when the last hold goes.
    base: PpdProfile,
    holds: BTreeMap<u32, Hold>,
    last_cookie: u32,
    degraded: &'static str,
}

impl Controller {
    /// Starts as tuned-ppd does without a saved base profile: on `ppd.conf`'s default,
    /// balanced (`initialize()`); [`Controller::apply_base`] writes it.
    pub fn new(dir: SimDir) -> Controller {
        let base = PpdProfile::Balanced;
        Controller {
            dir,
            active: base,
            base,
            holds: BTreeMap::new(),
            last_cookie: 0,
            degraded: "",
        }
    }

    /// Applies the base profile at start. tuned-ppd goes on serving when TuneD could not
    /// write something (TuneD logs it and reports the profile applied), and so does the
    /// simulation: the caller says what was refused.
    pub fn apply_base(&mut self) -> Result<(), ApplyError> {
        let applied = tuned::apply(&self.dir, self.base);
        self.check_performance_degraded(&mut Vec::new());
        applied
    }

    pub fn active_profile(&self) -> &'static str {
        self.active.name()
    }

    pub fn performance_degraded(&self) -> &'static str {
        self.degraded
    }

    pub fn holds(&self) -> impl Iterator<Item = &Hold> {
        self.holds.values()
    }

    /// `set_active_profile()`: the profile becomes the base one, and every hold goes.
    pub fn set_active_profile(
        &mut self,
        name: &str,
        events: &mut Vec<Event>,
    ) -> Result<(), Refusal> {
        let Some(profile) = PpdProfile::parse(name) else {
            return Err(Refusal(format!("Invalid profile '{name}'")));
        };
        // Unlike tuned-ppd, the writes come first: a refused one leaves holds and profile
        // as they were.
        let mut switched = Vec::new();
        self.switch(profile, &mut switched)
            .map_err(|error| failed(profile, &error))?;
        // The holds' events before the switch's, as tuned-ppd sends them.
        self.clear_holds(events);
        events.append(&mut switched);
        self.base = profile;
        Ok(())
    }

    /// `HoldProfile`: power-saver or performance, the effective hold applied at once.
    pub fn hold(
        &mut self,
        name: &str,
        reason: String,
        app_id: String,
        caller: String,
        events: &mut Vec<Event>,
    ) -> Result<u32, Refusal> {
        let profile = match PpdProfile::parse(name) {
            Some(profile @ (PpdProfile::PowerSaver | PpdProfile::Performance)) => profile,
            _ => {
                return Err(Refusal(
                    "Only 'power-saver' and 'performance' profiles may be held".to_owned(),
                ))
            }
        };
        let effective = effective(self.holds.values().map(|h| h.profile).chain([profile]));
        let mut switched = Vec::new();
        self.switch(effective, &mut switched)
            .map_err(|error| failed(effective, &error))?;
        let cookie = self.new_cookie();
        self.holds.insert(
            cookie,
            Hold {
                profile,
                reason,
                app_id,
                caller,
            },
        );
        events.push(Event::Changed("ActiveProfileHolds"));
        events.append(&mut switched);
        Ok(cookie)
    }

    /// `ReleaseProfile`: only the caller that holds `cookie` may release it.
    pub fn release(
        &mut self,
        cookie: u32,
        caller: &str,
        events: &mut Vec<Event>,
    ) -> Result<(), Refusal> {
        match self.holds.get(&cookie) {
            None => Err(Refusal(format!("No active hold for cookie '{cookie}'"))),
            // (sic) tuned-ppd's own spelling.
            Some(hold) if hold.caller != caller => Err(Refusal(
                "Cannot release a profile hold inititated by another process.".to_owned(),
            )),
            Some(_) => self.remove(cookie, events),
        }
    }

    /// A caller left the bus: its holds go (`_removal_callback()`).
    pub fn caller_left(&mut self, name: &str, events: &mut Vec<Event>) {
        let cookies: Vec<u32> = self
            .holds
            .iter()
            .filter(|(_, hold)| hold.caller == name)
            .map(|(cookie, _)| *cookie)
            .collect();
        for cookie in cookies {
            if let Err(Refusal(error)) = self.remove(cookie, events) {
                eprintln!("tuned-ppd: releasing hold {cookie}: {error}");
            }
        }
    }

    /// `check_performance_degraded()`: `no_turbo` = 1 reads as a high temperature, and the
    /// lap mode wins over it.
    pub fn check_performance_degraded(&mut self, events: &mut Vec<Event>) {
        let set = |path| tuned::read(&self.dir, path).as_deref() == Some("1");
        let degraded = if set(LAP_MODE) {
            "lap-detected"
        } else if set(NO_TURBO) {
            "high-operating-temperature"
        } else {
            ""
        };
        if degraded != self.degraded {
            self.degraded = degraded;
            events.push(Event::Changed("PerformanceDegraded"));
        }
    }

    /// `ProfileHoldManager.remove()`: the next effective hold, or the base profile.
    fn remove(&mut self, cookie: u32, events: &mut Vec<Event>) -> Result<(), Refusal> {
        let rest: Vec<PpdProfile> = self
            .holds
            .iter()
            .filter(|(other, _)| **other != cookie)
            .map(|(_, hold)| hold.profile)
            .collect();
        let next = if rest.is_empty() {
            self.base
        } else {
            effective(rest)
        };
        let mut switched = Vec::new();
        self.switch(next, &mut switched)
            .map_err(|error| failed(next, &error))?;
        self.holds.remove(&cookie);
        events.extend([
            Event::Released(cookie),
            Event::Changed("ActiveProfileHolds"),
        ]);
        events.append(&mut switched);
        Ok(())
    }

    fn clear_holds(&mut self, events: &mut Vec<Event>) {
        for cookie in std::mem::take(&mut self.holds).into_keys() {
            events.extend([
                Event::Released(cookie),
                Event::Changed("ActiveProfileHolds"),
            ]);
        }
    }

    /// `switch_profile()`: TuneD is asked only for a profile it is not already running.
    fn switch(&mut self, profile: PpdProfile, events: &mut Vec<Event>) -> Result<(), ApplyError> {
        if self.active == profile {
            return Ok(());
        }
        tuned::apply(&self.dir, profile)?;
        self.active = profile;
        events.push(Event::Changed("ActiveProfile"));
        // tuned-ppd's inotify watch on `no_turbo` sees what the profile's boost did.
        self.check_performance_degraded(events);
        Ok(())
    }

    /// A random non-zero cookie in tuned-ppd; here the next free one, as predictable tests
    /// like.
    fn new_cookie(&mut self) -> u32 {
        loop {
            self.last_cookie = self.last_cookie.wrapping_add(1);
            if self.last_cookie != 0 && !self.holds.contains_key(&self.last_cookie) {
                return self.last_cookie;
            }
        }
    }
}

/// `_effective_hold_profile()`: power-saver wins over performance.
fn effective(holds: impl IntoIterator<Item = PpdProfile>) -> PpdProfile {
    if holds.into_iter().any(|p| p == PpdProfile::PowerSaver) {
        PpdProfile::PowerSaver
    } else {
        PpdProfile::Performance
    }
}

/// A profile the simulated machine refused: tuned-ppd's words (its stray quote included),
/// then the file and the kernel's answer.
fn failed(profile: PpdProfile, error: &ApplyError) -> Refusal {
    Refusal(format!(
        "Error setting profile {}': {error}",
        profile.name()
    ))
}
