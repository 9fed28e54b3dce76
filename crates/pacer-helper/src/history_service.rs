//! The helper's `io.github.pacerapp.Pacer.History1` interface: who changed the machine's
//! power state. Recording runs while some caller keeps a watch open (`WatchChanges`), on a
//! thread of its own (`crate::recorder`); a watch ends when its caller leaves the bus or
//! stops it, and while one is open the helper does not idle out. Every event is announced
//! (`Changed`) and kept in the ring for as long as the helper runs (`History`). Reading needs
//! polkit's `io.github.pacerapp.Pacer.read-history`.

use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use pacer_core::history::{watched_files, History, Setting, Writer};
use pacer_core::profile::client as profile_client;
use pacer_core::profile::daemon::Hold;
use pacer_core::{Snapshot, SysRoot};
use pacer_dbus::{actions, Problem, Topic};
use zbus::message::Header;
use zbus::object_server::SignalEmitter;

use crate::activity::{Activity, Call};
use crate::authority::{details, Authority, Policies};
use crate::recorder::Recorder;

/// How often the files are read again for changes no write showed.
const REREAD_EVERY: Duration = Duration::from_secs(5);

/// A caller's open watch: it keeps the helper from idling out.
#[derive(Debug)]
struct Watch {
    handle: u32,
    owner: String,
    _keeps_busy: Call,
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

/// The recording, as the recording thread and the helper's own writes reach it.
#[derive(Debug, Clone)]
pub struct Log {
    /// The recording's events: kept after a recording stops, for as long as the helper runs.
    recorded: Arc<Mutex<Option<Recorder>>>,
    /// Events to announce (`Changed`).
    announcements: tokio::sync::mpsc::UnboundedSender<String>,
    /// Where the events are kept for the boot when a recording stops (`/run`), for the next
    /// helper to go on from; `None`: for as long as the helper runs.
    kept: Option<PathBuf>,
}

impl Log {
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
    /// a new one where none were kept, or what was kept cannot be read (said on stderr).
    fn kept_history(&self) -> History {
        let Some(kept) = &self.kept else {
            return History::new(History::CAPACITY);
        };
        let events = match std::fs::read(kept) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|error| {
                eprintln!(
                    "pacer-helper: starting a new history: {} is not one ({error})",
                    kept.display()
                );
                Vec::new()
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(error) => {
                eprintln!(
                    "pacer-helper: starting a new history: cannot read {}: {error}",
                    kept.display()
                );
                Vec::new()
            }
        };
        History::from_events(History::CAPACITY, events)
    }

    /// Keeps the events for the boot: written beside, then renamed over, so a reader finds
    /// the old or the new whole.
    fn keep(&self, recorder: &Recorder) {
        let Some(kept) = &self.kept else { return };
        let events: Vec<_> = recorder.history().since(0).collect();
        let beside = kept.with_extension("json.new");
        let written = serde_json::to_vec(&events)
            .map_err(std::io::Error::other)
            .and_then(|bytes| std::fs::write(&beside, bytes))
            .and_then(|()| std::fs::rename(&beside, kept));
        if let Err(error) = written {
            eprintln!(
                "pacer-helper: cannot keep the history in {}: {error}",
                kept.display()
            );
        }
    }

    /// The machine goes to sleep (`start`) or woke, if recording.
    fn sleep(&self, start: bool) {
        let mut recorded = lock(&self.recorded);
        if let Some(recorder) = recorded.as_mut() {
            let ids = recorder.sleep(start);
            self.announce(recorder, &ids);
        }
    }

    /// Records the holds the profile daemon took on (`true`) or let go, if recording.
    fn daemon_held(&self, holds: Vec<(Hold, bool)>, daemon: Option<Writer>) {
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
    fn daemon_changed(&self, old: Option<String>, new: String, daemon: Option<Writer>) {
        let mut recorded = lock(&self.recorded);
        if let Some(recorder) = recorded.as_mut() {
            let id = recorder.daemon_changed(Setting::Profile, old, new, daemon);
            self.announce(recorder, &[id]);
        }
    }

    /// Announces the events `ids` (new, so counting up from the first).
    fn announce(&self, recorder: &Recorder, ids: &[u64]) {
        let Some(&first) = ids.first() else { return };
        for event in recorder.history().since(first - 1) {
            if let Ok(json) = serde_json::to_string(event) {
                let _ = self.announcements.send(json);
            }
        }
    }
}

#[derive(Debug)]
pub struct HistoryService {
    root: PathBuf,
    /// Where the profile daemon is followed (the system bus; none on the session bus).
    profile_bus: Option<zbus::Connection>,
    authority: Authority,
    activity: Activity,
    state: Mutex<State>,
    log: Log,
}

impl HistoryService {
    /// A service for the machine under `root`; `announce` takes the events to signal.
    pub fn new(
        root: PathBuf,
        runtime_dir: Option<&std::path::Path>,
        profile_bus: Option<zbus::Connection>,
        authority: Authority,
        activity: Activity,
        announce: tokio::sync::mpsc::UnboundedSender<String>,
    ) -> HistoryService {
        HistoryService {
            root,
            profile_bus,
            authority,
            activity,
            state: Mutex::default(),
            log: Log {
                recorded: Arc::default(),
                announcements: announce,
                kept: runtime_dir.map(|dir| dir.join("history.json")),
            },
        }
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
        let recorder = Recorder::start(&self.root, watched_files(&self.root, &snapshot), history)
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
                tokio::spawn(follow_profile(bus.clone(), self.log.clone())),
                tokio::spawn(follow_sleep(bus, self.log.clone())),
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

/// Records each change of the profile daemon's active profile and of its holds, for as long
/// as it runs (the recording aborts it). The daemon says what it changed, not who asked it
/// to: the event names the daemon (and a hold, the application that asked for it).
async fn follow_profile(bus: zbus::Connection, log: Log) {
    let Ok(mut changes) = profile_client::changes(&bus).await else {
        return;
    };
    let first = profile_client::read(&bus).await.state;
    let mut active = first.as_ref().map(|s| s.active.clone());
    let mut holds = first.map(|s| s.holds).unwrap_or_default();
    while changes.next().await.is_some() {
        let Some(state) = profile_client::read(&bus).await.state else {
            continue;
        };
        let taken = state.holds.iter().filter(|h| !holds.contains(h));
        let let_go = holds.iter().filter(|h| !state.holds.contains(h));
        let held: Vec<(Hold, bool)> = taken
            .map(|h| (h.clone(), true))
            .chain(let_go.map(|h| (h.clone(), false)))
            .collect();
        let switched = active.as_ref() != Some(&state.active);
        if held.is_empty() && !switched {
            continue;
        }
        let daemon = process_of(&bus, &state.bus_name).await;
        holds.clone_from(&state.holds);
        // A hold first: it is why the daemon switches.
        if !held.is_empty() {
            log.daemon_held(held, daemon.clone());
        }
        if switched {
            log.daemon_changed(active.replace(state.active.clone()), state.active, daemon);
        }
    }
}

/// logind's manager, for its word that the machine goes to sleep and wakes.
#[zbus::proxy(
    interface = "org.freedesktop.login1.Manager",
    default_service = "org.freedesktop.login1",
    default_path = "/org/freedesktop/login1"
)]
trait Login1 {
    #[zbus(signal)]
    fn prepare_for_sleep(&self, start: bool) -> zbus::Result<()>;
}

/// Records each sleep and waking logind announces, and what changed across it.
async fn follow_sleep(bus: zbus::Connection, log: Log) {
    let Ok(login) = Login1Proxy::new(&bus).await else {
        return;
    };
    let Ok(mut sleeps) = login.receive_prepare_for_sleep().await else {
        return;
    };
    while let Some(signal) = sleeps.next().await {
        if let Ok(args) = signal.args() {
            log.sleep(*args.start());
        }
    }
}

/// The process that owns `name` on the bus.
async fn process_of(bus: &zbus::Connection, name: &str) -> Option<Writer> {
    let proxy = zbus::fdo::DBusProxy::new(bus).await.ok()?;
    let name = zbus::names::BusName::try_from(name).ok()?;
    let pid = proxy.get_connection_unix_process_id(name).await.ok()?;
    Some(crate::recorder::writer(pid))
}

/// What went wrong inside the helper, for its caller.
fn internal(error: impl std::fmt::Display) -> Problem {
    Problem::Internal {
        error: error.to_string(),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

fn caller(header: &Header<'_>) -> String {
    header.sender().map(ToString::to_string).unwrap_or_default()
}

/// The process behind the caller of a call, as the bus knows it (`None` when the bus cannot
/// say: the caller left).
pub async fn caller_process(bus: &zbus::Connection, header: &Header<'_>) -> Option<Writer> {
    process_of(bus, header.sender()?.as_str()).await
}

#[zbus::interface(name = "io.github.pacerapp.Pacer.History1")]
impl HistoryService {
    /// Records changes until the caller leaves the bus or stops the watch; returns its handle.
    async fn watch_changes(
        &self,
        #[zbus(header)] header: Header<'_>,
    ) -> Result<u32, pacer_dbus::HelperError> {
        let call = self.activity.call()?;
        self.authority
            .check(
                &header,
                actions::READ_HISTORY,
                &details(Topic::History, "watch", Policies::All),
            )
            .await?;
        let mut state = self.state();
        self.record(&mut state)?;
        state.next_handle += 1;
        let handle = state.next_handle;
        state.watches.push(Watch {
            handle,
            owner: caller(&header),
            _keeps_busy: call,
        });
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
