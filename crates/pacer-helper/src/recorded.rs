// SPDX-License-Identifier: GPL-3.0-or-later
//! The recording as the recording thread, the helper's own writes and what it follows (the
//! profile daemon, logind) reach it: each takes the recorder's lock, adds its events, and
//! announces them to the watchers.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use pacer_core::history::{History, Setting, Writer};
use pacer_core::profile::daemon::Hold;

use crate::announcements::Announcements;
use crate::recorder::Recorder;

/// The recording, as the recording thread and the helper's own writes reach it.
#[derive(Debug, Clone)]
pub struct Log {
    /// The recording's events: kept after a recording stops, for as long as the helper runs.
    pub(crate) recorded: Arc<Mutex<Option<Recorder>>>,
    /// Events to announce (`Changed`).
    announcements: Announcements,
    /// Where the events are kept for the boot when a recording stops (`/run`), for the next
    /// helper to go on from; `None`: for as long as the helper runs.
    kept: Option<PathBuf>,
}

impl Log {
    /// A log to announce its events to `announcements`, kept for the boot in `kept`.
    pub fn new(announcements: Announcements, kept: Option<PathBuf>) -> Log {
        Log {
            recorded: Arc::default(),
            announcements,
            kept,
        }
    }

    /// Makes the helper's own write(s) `write` with the recording held, then takes them in
    /// as Pacer's for `on_behalf` (the caller served; `None`: the helper's own restoring),
    /// with what the kernel changed after them. Held, the recording cannot take a write
    /// half-way, nor re-read the files between the write and the kernel's side of it.
    pub fn writing<R>(&self, on_behalf: Option<&Writer>, write: impl FnOnce() -> R) -> R {
        let mut recorded = lock(&self.recorded);
        let result = write();
        if let Some(recorder) = recorded.as_mut() {
            let ids = recorder.record(on_behalf);
            self.announce(recorder, &ids);
        }
        result
    }

    /// The events an earlier helper of this boot kept, in a ring of [`History::CAPACITY`];
    /// a new one where none were kept.
    pub(crate) fn kept_history(&self) -> History {
        match &self.kept {
            Some(kept) => crate::kept::read(kept),
            None => History::new(History::CAPACITY),
        }
    }

    /// Keeps the events for the boot, for the next helper.
    pub(crate) fn keep(&self, recorder: &Recorder) {
        let Some(kept) = &self.kept else { return };
        if let Err(error) = crate::kept::write(kept, recorder.history().since(0)) {
            eprintln!(
                "pacer-helper: cannot keep the history in {}: {error}",
                kept.display()
            );
        }
    }

    /// The machine goes to sleep (`start`) or woke, if recording.
    pub(crate) fn sleep(&self, start: bool) {
        let mut recorded = lock(&self.recorded);
        if let Some(recorder) = recorded.as_mut() {
            let ids = recorder.sleep(start);
            self.announce(recorder, &ids);
        }
    }

    /// Records the holds the profile daemon took on (`true`) or let go, if recording.
    pub(crate) fn daemon_held(&self, holds: Vec<(Hold, bool)>, daemon: Option<Writer>) {
        let mut recorded = lock(&self.recorded);
        if let Some(recorder) = recorded.as_mut() {
            let ids: Vec<u64> = holds
                .into_iter()
                .map(|(held, taken)| recorder.daemon_held(held, taken, daemon.clone()))
                .collect();
            self.announce(recorder, &ids);
        }
    }

    /// Records the profile daemon's change of its active profile, if recording.
    pub(crate) fn daemon_changed(&self, old: Option<String>, new: String, daemon: Option<Writer>) {
        let mut recorded = lock(&self.recorded);
        if let Some(recorder) = recorded.as_mut() {
            let id = recorder.daemon_changed(Setting::Profile, old, new, daemon);
            self.announce(recorder, &[id]);
        }
    }

    /// Announces the events `ids` (new, so counting up from the first).
    pub(crate) fn announce(&self, recorder: &Recorder, ids: &[u64]) {
        let Some(&first) = ids.first() else { return };
        for event in recorder.history().since(first - 1) {
            if let Ok(json) = serde_json::to_string(event) {
                self.announcements.send(json);
            }
        }
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
