// SPDX-License-Identifier: GPL-3.0-or-later
//! How busy the helper is: calls in flight, watches open and when the last call ended, so
//! that it exits only when idle, and takes no more calls at once than it can answer. Watches
//! (`History1.WatchChanges`, one per connection) are counted apart: they last as long as their
//! callers like, and must never use up the calls others need.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pacer_dbus::Problem;

/// The most calls in flight at once (a change may wait for the user's password); past that
/// a call is answered at once with [`Problem::TooManyCalls`].
pub const MAX_CALLS: usize = 64;

#[derive(Debug)]
struct State {
    in_flight: usize,
    watches: usize,
    last: Instant,
}

/// Shared by every call and the main loop.
#[derive(Debug, Clone)]
pub struct Activity(Arc<Mutex<State>>);

/// A call in flight; it ends when dropped.
#[derive(Debug)]
pub struct Call(Activity);

/// A watch open: the helper does not idle out while it lasts. It ends when dropped.
#[derive(Debug)]
pub struct Watching(Activity);

impl Default for Activity {
    fn default() -> Self {
        Activity(Arc::new(Mutex::new(State {
            in_flight: 0,
            watches: 0,
            last: Instant::now(),
        })))
    }
}

impl Activity {
    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        let mut state = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut state)
    }

    /// Counts a call in, unless [`MAX_CALLS`] are in flight already.
    pub fn call(&self) -> Result<Call, Problem> {
        self.with(|state| {
            if state.in_flight >= MAX_CALLS {
                return Err(Problem::TooManyCalls);
            }
            state.in_flight += 1;
            state.last = Instant::now();
            Ok(Call(self.clone()))
        })
    }

    /// A watch opens: the helper stays while it lasts, whatever the calls.
    pub fn watching(&self) -> Watching {
        self.with(|state| state.watches += 1);
        Watching(self.clone())
    }

    /// Something happened that is not a call (a measurement's progress).
    pub fn touch(&self) {
        self.with(|state| state.last = Instant::now());
    }

    /// How long no call has been in flight; `None` while one is, or a watch is open.
    pub fn idle_for(&self) -> Option<Duration> {
        self.with(|state| {
            (state.in_flight == 0 && state.watches == 0).then(|| state.last.elapsed())
        })
    }

    /// Whether no call is in flight (watches aside): the calls a stopping helper waits for.
    pub fn calls_answered(&self) -> bool {
        self.with(|state| state.in_flight == 0)
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        self.0.with(|state| {
            state.watches = state.watches.saturating_sub(1);
            state.last = Instant::now();
        });
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        self.0.with(|state| {
            state.in_flight = state.in_flight.saturating_sub(1);
            state.last = Instant::now();
        });
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn calls_in_flight_are_never_idle_and_are_bounded() {
        let activity = Activity::default();
        let calls: Vec<Call> = (0..MAX_CALLS).map(|_| activity.call().unwrap()).collect();
        assert_eq!(activity.idle_for(), None);
        assert_eq!(activity.call().unwrap_err(), Problem::TooManyCalls);
        drop(calls);
        assert!(activity.idle_for().unwrap() < Duration::from_secs(1));
        assert!(activity.call().is_ok());
    }

    #[test]
    fn watches_keep_it_running_without_taking_calls() {
        let activity = Activity::default();
        let watches: Vec<Watching> = (0..10 * MAX_CALLS).map(|_| activity.watching()).collect();
        assert_eq!(activity.idle_for(), None);
        assert!(activity.calls_answered());
        let calls: Vec<Call> = (0..MAX_CALLS).map(|_| activity.call().unwrap()).collect();
        drop(calls);
        drop(watches);
        assert!(activity.idle_for().is_some());
    }
}
