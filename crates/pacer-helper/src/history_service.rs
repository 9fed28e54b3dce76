// SPDX-License-Identifier: GPL-3.0-or-later
//! The helper's `io.github.pacerapp.Pacer.History1` interface: who changed the machine's
//! power state. Recording runs while some caller keeps a watch open (`WatchChanges`), on a
//! thread of its own (`crate::recorder`); a watch ends when its caller leaves the bus or
//! stops it, and while one is open the helper does not idle out. Every event is announced
//! (`Changed`) to the watchers alone, and kept in the ring for as long as the helper runs
//! (`History`). Reading needs polkit's `io.github.pacerapp.Pacer.read-history`.
//!
//! A connection has one watch at most (asked again, it gets the same handle), and watches are
//! counted apart from the calls in flight: no caller can use up what others need.

use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pacer_core::history::watched_files;
use pacer_core::{Snapshot, SysRoot};
use pacer_dbus::{actions, details, Policies, Problem, Topic};
use zbus::message::Header;
use zbus::object_server::SignalEmitter;

use crate::activity::{Activity, Watching};
use crate::announcements::Announcements;
use crate::authority::Authority;
use crate::privileged::Privileged;
use crate::recorded::{lock, Log};
use crate::recorder::{Recorder, RecorderError};

/// How often the files are read again for changes no write showed.
const REREAD_EVERY: Duration = Duration::from_secs(5);

/// A caller's open watch: it keeps the helper from idling out.
#[derive(Debug)]
struct Watch {
    handle: u32,
    owner: String,
    _keeps_running: Watching,
}

/// The recording thread and the tasks following the profile daemon and logind, stopped
/// when dropped.
#[derive(Debug)]
struct Recording {
    stop: Arc<AtomicBool>,
    /// Wakes the thread to stop: it sleeps until a write or the next re-read otherwise.
    wake: OwnedFd,
    thread: Option<JoinHandle<()>>,
    followers: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Recording {
    fn drop(&mut self) {
        for task in &self.followers {
            task.abort();
        }
        self.stop.store(true, Ordering::Relaxed);
        // An eventfd's counter: a write of 1 makes it readable.
        let _ = rustix::io::write(&self.wake, &1u64.to_ne_bytes());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[derive(Debug, Default)]
struct State {
    watches: Vec<Watch>,
    next_handle: u32,
    recording: Option<Recording>,
}

#[derive(Debug)]
pub struct HistoryService {
    root: PathBuf,
    /// Where the profile daemon is followed (the system bus; none on the session bus).
    profile_bus: Option<zbus::Connection>,
    authority: Authority,
    activity: Activity,
    /// Who makes the recorder's fanotify group.
    privileged: Privileged,
    state: Mutex<State>,
    log: Log,
}

/// Where the history service runs: its machine, buses, and what it needs from the helper.
#[derive(Debug)]
pub struct Setup {
    pub root: PathBuf,
    /// The unit's runtime directory, where the history is kept for the boot.
    pub runtime_dir: Option<PathBuf>,
    /// The system bus, where the profile daemon and logind are followed.
    pub profile_bus: Option<zbus::Connection>,
    pub authority: Authority,
    pub activity: Activity,
    pub privileged: Privileged,
}

impl HistoryService {
    /// A service as `setup` says; `announcements` takes the events to signal.
    pub fn new(setup: Setup, announcements: Announcements) -> HistoryService {
        HistoryService {
            root: setup.root,
            profile_bus: setup.profile_bus,
            authority: setup.authority,
            activity: setup.activity,
            privileged: setup.privileged,
            state: Mutex::default(),
            log: Log::new(
                announcements,
                setup.runtime_dir.map(|dir| dir.join("history.json")),
            ),
        }
    }

    /// The unique bus names of the callers that watch, to whom changes are signalled.
    pub fn watchers(&self) -> Vec<String> {
        self.state()
            .watches
            .iter()
            .map(|w| w.owner.clone())
            .collect()
    }

    /// Where the helper's own writes go to be recorded.
    pub fn log(&self) -> Log {
        self.log.clone()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The helper stops: so does the recording, whose events are kept for the boot.
    pub fn stopping(&self) {
        let mut state = self.state();
        state.watches.clear();
        state.recording = None;
    }

    /// Ends the watches of `name`, which left the bus; the recording stops with the last.
    pub fn departed(&self, name: &str) {
        let mut state = self.state();
        state.watches.retain(|watch| watch.owner != name);
        if state.watches.is_empty() {
            state.recording = None;
        }
    }

    /// Starts recording on a thread of its own, unless it runs.
    fn record(&self, state: &mut State) -> Result<(), Problem> {
        if state.recording.is_some() {
            return Ok(());
        }
        let root = SysRoot::new(&self.root);
        let snapshot = Snapshot::read(&root).map_err(internal)?;
        // An earlier recording's events stay (this helper's, or those an earlier helper of
        // this boot kept), and the ids go on from them.
        let recorded = lock(&self.log.recorded).take();
        let history = recorded.map_or_else(|| self.log.kept_history(), Recorder::into_history);
        let group = self
            .privileged
            .fanotify()
            .map_err(|errno| internal(RecorderError::Init(errno)))?;
        let recorder = Recorder::start(
            &self.root,
            watched_files(&self.root, &snapshot),
            history,
            group,
        )
        .map_err(internal)?;
        let fd = recorder.fd().try_clone_to_owned().map_err(internal)?;
        *lock(&self.log.recorded) = Some(recorder);
        let stop = Arc::new(AtomicBool::new(false));
        let wake = rustix::event::eventfd(
            0,
            rustix::event::EventfdFlags::CLOEXEC | rustix::event::EventfdFlags::NONBLOCK,
        )
        .map_err(internal)?;
        let woken = wake.try_clone().map_err(internal)?;
        let (log, stopping) = (self.log.clone(), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("recorder".to_owned())
            .spawn(move || {
                let mut reread = Instant::now();
                while !stopping.load(Ordering::Relaxed) {
                    // Asleep until a write, the next re-read or the stop: an idle recording
                    // wakes once per re-read.
                    let mut ready = [
                        rustix::event::PollFd::new(&fd, rustix::event::PollFlags::IN),
                        rustix::event::PollFd::new(&woken, rustix::event::PollFlags::IN),
                    ];
                    let left = REREAD_EVERY.saturating_sub(reread.elapsed());
                    let timeout = rustix::event::Timespec {
                        tv_sec: left.as_secs() as i64,
                        tv_nsec: i64::from(left.subsec_nanos()),
                    };
                    let _ = rustix::event::poll(&mut ready, Some(&timeout));
                    let mut guard = lock(&log.recorded);
                    let Some(recorder) = guard.as_mut() else {
                        break;
                    };
                    let mut ids = recorder.record(None);
                    if reread.elapsed() >= REREAD_EVERY {
                        reread = Instant::now();
                        ids.extend(recorder.reread(None));
                    }
                    log.announce(recorder, &ids);
                }
                if let Some(recorder) = lock(&log.recorded).as_mut() {
                    let stopped = recorder.stop();
                    log.announce(recorder, &[stopped]);
                    log.keep(recorder);
                }
            })
            .map_err(internal)?;
        let followers = match self.profile_bus.clone() {
            Some(bus) => vec![
                tokio::spawn(crate::followers::follow_profile(
                    bus.clone(),
                    self.log.clone(),
                )),
                tokio::spawn(crate::followers::follow_sleep(bus, self.log.clone())),
            ],
            None => Vec::new(),
        };
        state.recording = Some(Recording {
            stop,
            wake,
            thread: Some(thread),
            followers,
        });
        Ok(())
    }
}

/// What went wrong inside the helper, for its caller.
fn internal(error: impl std::fmt::Display) -> Problem {
    Problem::Internal {
        error: error.to_string(),
    }
}

/// Whether the caller `name` is still on the bus; when the bus cannot say, it is taken as
/// gone (a watch nobody ends would keep the helper running).
async fn still_on_bus(bus: &zbus::Connection, name: &str) -> bool {
    let Ok(proxy) = zbus::fdo::DBusProxy::new(bus).await else {
        return false;
    };
    let Ok(name) = zbus::names::BusName::try_from(name) else {
        return false;
    };
    proxy.name_has_owner(name).await.unwrap_or(false)
}

fn caller(header: &Header<'_>) -> String {
    header.sender().map(ToString::to_string).unwrap_or_default()
}

#[zbus::interface(name = "io.github.pacerapp.Pacer.History1")]
impl HistoryService {
    /// Records changes until the caller leaves the bus or stops the watch; returns its handle
    /// (a caller that watches already gets the handle it has).
    async fn watch_changes(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] bus: &zbus::Connection,
    ) -> Result<u32, pacer_dbus::HelperError> {
        let _call = self.activity.call()?;
        self.authority
            .check(
                &header,
                actions::READ_HISTORY,
                &details(Topic::History, "watch", Policies::All),
            )
            .await?;
        let owner = caller(&header);
        let handle = {
            let mut state = self.state();
            if let Some(watch) = state.watches.iter().find(|w| w.owner == owner) {
                return Ok(watch.handle);
            }
            self.record(&mut state)?;
            state.next_handle += 1;
            let handle = state.next_handle;
            state.watches.push(Watch {
                handle,
                owner: owner.clone(),
                _keeps_running: self.activity.watching(),
            });
            handle
        };
        // The caller may have left while polkit decided: then the bus said so before the
        // watch was there to end, and nobody would end it. Asked after the watch is in place
        // (a unique name never comes back), either this finds it gone or its departure,
        // still to come, ends the watch.
        if !still_on_bus(bus, &owner).await {
            self.departed(&owner);
        }
        Ok(handle)
    }

    /// Ends the caller's watch `handle` (a handle of another caller's is refused).
    async fn stop_watching(
        &self,
        #[zbus(header)] header: Header<'_>,
        handle: u32,
    ) -> Result<(), pacer_dbus::HelperError> {
        let _call = self.activity.call()?;
        let mut state = self.state();
        let owner = caller(&header);
        let Some(index) = state
            .watches
            .iter()
            .position(|w| w.handle == handle && w.owner == owner)
        else {
            return Err(Problem::NoSuchWatch { handle }.into());
        };
        state.watches.remove(index);
        if state.watches.is_empty() {
            state.recording = None;
        }
        Ok(())
    }

    /// The events after id `since` (0: all kept), oldest first, as a JSON array (schema 1,
    /// `docs/contracts.md` 4).
    async fn history(
        &self,
        #[zbus(header)] header: Header<'_>,
        since: u64,
    ) -> Result<String, pacer_dbus::HelperError> {
        let _call = self.activity.call()?;
        self.authority
            .check(
                &header,
                actions::READ_HISTORY,
                &details(Topic::History, "read", Policies::All),
            )
            .await?;
        let recorded = lock(&self.log.recorded);
        let events: Vec<_> = recorded
            .as_ref()
            .map(|recorder| recorder.history().since(since).collect())
            .unwrap_or_default();
        serde_json::to_string(&events).map_err(|error| internal(error).into())
    }

    /// A change: one event as a JSON object (schema 1).
    #[zbus(signal)]
    pub async fn changed(emitter: &SignalEmitter<'_>, event: &str) -> zbus::Result<()>;
}
