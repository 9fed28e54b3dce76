// SPDX-License-Identifier: GPL-3.0-or-later
//! The window's two background loops, both on relm4's runtime and never on the GTK main
//! loop: the machine's state every few seconds (and at once when the profile daemon says
//! something changed, or after a change of ours), and each CPU's frequency at the plot's
//! rate. Both wait, doing nothing at all, while nobody watches the window.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use pacer_core::limits::LimitWatch;
use pacer_core::machine::{FrequencySampler, Snapshot, SnapshotError};
use pacer_core::profile::{client, ProfileProblem, ProfileReading};
use pacer_core::status::Status;
use pacer_core::SysRoot;
use relm4::Sender;
use tokio::sync::Notify;
use tokio::time::Instant;

/// How often the full state is read when nothing announces a change.
const STATUS_PERIOD: Duration = Duration::from_secs(2);
/// How often the full state is read while only the tray shows it.
const BACKGROUND_FULL_PERIOD: Duration = Duration::from_secs(30);
/// How often the frequencies are sampled while only callers on the session bus follow them.
const LISTENED_PERIOD: Duration = Duration::from_secs(1);
/// How long to wait before trying an unreachable system bus again.
const RECONNECT_PERIOD: Duration = Duration::from_secs(10);

/// What the loops send the window.
#[derive(Debug)]
pub enum FeedEvent {
    /// The machine's state (shared by the window and its pages, never copied per reading),
    /// or why it could not be read.
    Status(Result<Arc<Status>, SnapshotError>),
    /// Time since sampling began, and each sampled CPU's kHz in the order of `cpus`.
    Frequencies {
        at: Duration,
        cpus: Arc<[u32]>,
        khz: Vec<Option<u32>>,
    },
}

/// Shared between the window and its loops.
#[derive(Debug)]
pub struct FeedControl {
    watched: AtomicBool,
    /// Something shows the state while the window is hidden (the tray): it is then read
    /// cheaply instead of not at all.
    background: AtomicBool,
    /// Callers on the session bus follow the frequencies: they are sampled while the window
    /// is hidden, at most once a second.
    listened: AtomicBool,
    period_us: AtomicU64,
    /// Bumped when the window switches machines: the loops start over on the new root.
    generation: AtomicU64,
    root: Mutex<PathBuf>,
    wake: Notify,
    refresh: Notify,
}

impl FeedControl {
    pub fn new(root: PathBuf, period: Duration) -> Arc<FeedControl> {
        Arc::new(FeedControl {
            // Until the window is mapped.
            watched: AtomicBool::new(false),
            background: AtomicBool::new(false),
            listened: AtomicBool::new(false),
            period_us: AtomicU64::new(period.as_micros().try_into().unwrap_or(u64::MAX)),
            generation: AtomicU64::new(0),
            root: Mutex::new(root),
            wake: Notify::new(),
            refresh: Notify::new(),
        })
    }

    /// Whether anyone sees the window; returns whether that changed.
    pub fn set_watched(&self, watched: bool) -> bool {
        let changed = self.watched.swap(watched, Ordering::Relaxed) != watched;
        if changed {
            self.wake.notify_waiters();
        }
        changed
    }

    pub fn set_background(&self, background: bool) {
        if self.background.swap(background, Ordering::Relaxed) != background {
            self.wake.notify_waiters();
        }
    }

    /// Whether callers on the session bus follow the frequencies; returns whether that
    /// changed.
    pub fn set_listened(&self, listened: bool) -> bool {
        let changed = self.listened.swap(listened, Ordering::Relaxed) != listened;
        if changed {
            self.wake.notify_waiters();
        }
        changed
    }

    pub fn period(&self) -> Duration {
        Duration::from_micros(self.period_us.load(Ordering::Relaxed))
    }

    /// Whether anyone sees the frequencies, in the window or through the session bus.
    pub fn sampled(&self) -> bool {
        self.watched.load(Ordering::Relaxed) || self.listened.load(Ordering::Relaxed)
    }

    /// How often the frequencies are sampled: the window's period while it is seen, else
    /// no faster than the bus shows them.
    pub fn sampling_period(&self) -> Duration {
        if self.watched.load(Ordering::Relaxed) {
            self.period()
        } else {
            self.period().max(LISTENED_PERIOD)
        }
    }

    /// Reads the state again now (after a change of ours).
    pub fn refresh(&self) {
        self.refresh.notify_one();
    }

    /// Both loops start over on `root`.
    pub fn switch_root(&self, root: PathBuf) {
        if let Ok(mut current) = self.root.lock() {
            *current = root;
        }
        self.generation.fetch_add(1, Ordering::Relaxed);
        self.wake.notify_waiters();
        self.refresh.notify_one();
    }

    fn root(&self) -> SysRoot {
        SysRoot::new(self.root.lock().map(|r| r.clone()).unwrap_or_default())
    }

    fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed)
    }

    /// Returns once someone sees the frequencies.
    async fn until_sampled(&self) {
        self.until(FeedControl::sampled).await;
    }

    /// Returns once someone watches the window or the tray shows the state.
    async fn until_followed(&self) {
        self.until(|control| {
            control.watched.load(Ordering::Relaxed) || control.background.load(Ordering::Relaxed)
        })
        .await;
    }

    async fn until(&self, ready: impl Fn(&FeedControl) -> bool) {
        loop {
            // Registered before the check, so a wake-up between the two is not lost.
            let woken = self.wake.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if ready(self) {
                return;
            }
            woken.await;
        }
    }
}

/// Reads the machine's state until the window goes away.
pub async fn status_loop<C: From<FeedEvent>>(control: Arc<FeedControl>, out: Sender<C>) {
    let mut connection: Option<zbus::Connection> = None;
    let mut unreachable: Option<ProfileProblem> = None;
    let mut changes = None;
    let mut last_connect: Option<Instant> = None;
    // The last full reading, refreshed cheaply in place while only the tray shows it: the
    // loop's own copy, so an unchanged refresh copies nothing.
    let mut last: Option<(Status, Instant, u64)> = None;
    // The limit chain's readings of the last seconds, for the machine of one generation:
    // refreshed at every turn, the full reading's or the cheap one's.
    let mut limits: Option<(LimitWatch, u64)> = None;
    let mut asked = true;
    loop {
        control.until_followed().await;
        let watched = control.watched.load(Ordering::Relaxed);
        let full = watched
            || asked
            || last.as_ref().is_none_or(|(_, at, generation)| {
                at.elapsed() >= BACKGROUND_FULL_PERIOD || *generation != control.generation()
            });
        let status = if full {
            let due = last_connect.is_none_or(|at| at.elapsed() >= RECONNECT_PERIOD);
            if connection.is_none() && due {
                last_connect = Some(Instant::now());
                match client::connect().await {
                    Ok(fresh) => {
                        changes = client::changes(&fresh).await.ok();
                        connection = Some(fresh);
                        unreachable = None;
                    }
                    Err(problem) => unreachable = Some(problem),
                }
            }
            let root = control.root();
            let generation = control.generation();
            let reading = match &connection {
                Some(connection) => client::read(connection).await,
                None => ProfileReading {
                    problems: unreachable.iter().cloned().collect(),
                    ..ProfileReading::default()
                },
            };
            let status = Snapshot::read(&root).map(|snapshot| {
                let mut status = Status::assemble(&root, snapshot, reading);
                let watch = match &mut limits {
                    Some((watch, known)) if *known == generation => watch,
                    _ => {
                        &mut limits
                            .insert((LimitWatch::new(&root, &status.snapshot), generation))
                            .0
                    }
                };
                watch.refresh(&root);
                status.read_limits(watch);
                status
            });
            last = status
                .as_ref()
                .ok()
                .map(|status| (status.clone(), Instant::now(), generation));
            Some(status.map(Arc::new))
        } else {
            // In the background: only the governor and EPP, which change behind everyone's
            // back, and the limit chain; the profile daemon announces its changes, and the
            // rest is read fully now and then. Nothing is sent when nothing changed.
            last.as_mut().and_then(|(status, _, _)| {
                let root = control.root();
                let settings_changed = status.snapshot.refresh_settings(&root);
                if settings_changed {
                    status.refresh_findings();
                }
                let limiter_changed = limits.as_mut().is_some_and(|(watch, _)| {
                    watch.refresh(&root);
                    status.read_limits(watch)
                });
                (settings_changed || limiter_changed).then(|| Ok(Arc::new(status.clone())))
            })
        };
        if let Some(status) = status {
            out.emit(FeedEvent::Status(status).into());
        }
        let announced = async {
            match &mut changes {
                Some(stream) => {
                    // A daemon that goes away ends the stream: poll from then on.
                    if stream.next().await.is_none() {
                        std::future::pending::<()>().await;
                    }
                }
                None => std::future::pending().await,
            }
        };
        asked = tokio::select! {
            () = tokio::time::sleep(STATUS_PERIOD) => false,
            () = control.refresh.notified() => true,
            () = control.wake.notified() => true,
            () = announced => {
                // Several properties change at once: read once they all have.
                tokio::time::sleep(Duration::from_millis(50)).await;
                true
            }
        };
    }
}

/// Samples each online CPU's frequency while anyone sees them, until the window goes away.
pub async fn frequency_loop<C: From<FeedEvent>>(control: Arc<FeedControl>, out: Sender<C>) {
    let started = Instant::now();
    loop {
        control.until_sampled().await;
        let generation = control.generation();
        let root = control.root();
        let Ok(snapshot) = Snapshot::read(&root) else {
            // No machine to read yet: try again at the status pace.
            tokio::time::sleep(STATUS_PERIOD).await;
            continue;
        };
        let cpus: Arc<[u32]> = snapshot
            .cpus
            .iter()
            .filter(|cpu| cpu.online)
            .map(|cpu| cpu.id)
            .collect();
        let mut sampler = FrequencySampler::new(&root, &snapshot, &cpus);
        let mut next = Instant::now();
        while control.generation() == generation && control.sampled() {
            let khz = sampler.sample();
            let event = FeedEvent::Frequencies {
                at: started.elapsed(),
                cpus: Arc::clone(&cpus),
                khz,
            };
            out.emit(event.into());
            // A steady pace: late samples do not push the later ones back.
            next += control.sampling_period();
            let now = Instant::now();
            if next < now {
                next = now;
            }
            tokio::select! {
                () = tokio::time::sleep_until(next) => {}
                () = control.wake.notified() => {}
            }
        }
    }
}
