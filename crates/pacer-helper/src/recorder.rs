// SPDX-License-Identifier: GPL-3.0-or-later
//! The recorder of who changed it: fanotify marks on every power-state file of the machine
//! (`pacer_core::history::watched_files`), each write to one of them turned into an event
//! that names the process that made it (PID, command, executable, systemd unit from its
//! cgroup, user), the value before and after. Changes no process wrote (the kernel's own,
//! such as intel_pstate restoring the EPP when the governor changes) raise no event: they are
//! found by reading the files again, right after a governor or driver-mode write (then they
//! are the kernel's, caused by that write) and on a slow re-read (then who made them is not
//! known, and the event says so). Its fanotify group is made with CAP_SYS_ADMIN
//! (`crate::privileged`); marking and reading need no capability.
//!
//! The marks are on the files themselves (their inodes), not on a mount: a write is seen
//! whichever mount it goes through — the helper's unit gives it mounts of its own of /sys, the
//! writers write through the system's. A file made anew (the kernel recreates a driver's files
//! when its mode changes; a simulated machine's kernel replaces a file to change it) is
//! marked again when a re-read finds it. fanotify merges a writer's writes to one file that
//! wait unread into one event, which stands for them with the value read after the last.

use std::collections::HashMap;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use pacer_core::history::{
    hold, recording, sleep, Event, History, Setting, Source, WatchedFile, Writer,
};
use pacer_core::profile::daemon::Hold;
use rustix::io::Errno;

use crate::fanotify::{errno_of, Group, Notice};
use crate::writers::{read_bounded, writer};

/// The most writes one [`Recorder::record`] takes in (about a millisecond's work each at
/// worst, reading the writer from /proc).
const RECORD_AT_ONCE: usize = 512;

/// Why recording could not start.
#[derive(Debug, thiserror::Error)]
pub enum RecorderError {
    /// No fanotify group: no CAP_SYS_ADMIN and no privileged step, or a seccomp filter
    /// without its calls.
    #[error("cannot watch for changes (fanotify_init: {0})")]
    Init(Errno),
    #[error("cannot watch {path} (fanotify_mark: {errno})")]
    Mark { path: PathBuf, errno: Errno },
}

/// A watched file and what it held when last read.
#[derive(Debug)]
struct Marked {
    file: WatchedFile,
    path: PathBuf,
    /// The file marked there (device and inode): an event's descriptor is matched to it.
    inode: Option<(u64, u64)>,
    value: Option<String>,
}

/// Records the changes to a machine's power-state files while it lives.
#[derive(Debug)]
pub struct Recorder {
    fanotify: Group,
    marked: Vec<Marked>,
    /// Where each marked file (device and inode) is in `marked`.
    by_inode: HashMap<(u64, u64), usize>,
    began: Instant,
    history: History,
    /// How often the kernel's queue of writes overflowed: writes were lost, not recorded.
    overflows: u64,
    /// Between logind's word that the machine goes to sleep and its word that it woke: the
    /// slow re-read waits, so that what the sleep changed is found on the waking, as its.
    asleep: bool,
}

impl Recorder {
    /// Marks each of `files` under `root` in the new group `fanotify`, adding to `history` (a
    /// new one, or an earlier recording's, whose ids it goes on from). A file that cannot be
    /// watched fails the whole, by name: a recording that silently misses a file would mislead.
    pub fn start(
        root: &Path,
        files: Vec<WatchedFile>,
        history: History,
        fanotify: Group,
    ) -> Result<Recorder, RecorderError> {
        let mut marked = Vec::with_capacity(files.len());
        for file in files {
            let path = root.join(&file.path);
            let inode = mark(&fanotify, &path).map_err(|errno| RecorderError::Mark {
                path: path.clone(),
                errno,
            })?;
            marked.push(Marked {
                value: read_value(&path),
                inode: Some(inode),
                path,
                file,
            });
        }
        let by_inode = marked
            .iter()
            .enumerate()
            .filter_map(|(index, m)| Some((m.inode?, index)))
            .collect();
        let mut recorder = Recorder {
            fanotify,
            marked,
            by_inode,
            began: Instant::now(),
            history,
            overflows: 0,
            asleep: false,
        };
        recorder.note(recording::STARTED);
        Ok(recorder)
    }

    /// Records that the recording stops here: what follows is not known until it starts
    /// again. Returns the event's id.
    pub fn stop(&mut self) -> u64 {
        self.note(recording::STOPPED)
    }

    /// The machine goes to sleep (`start`) or has woken. Going: what changed until now is
    /// taken in, so that the values held are those it sleeps with. Woken: the waking is an
    /// event, and whatever differs now is the kernel's (or the firmware's) doing across the
    /// sleep, caused by it. Returns the ids of the new events.
    pub fn sleep(&mut self, start: bool) -> Vec<u64> {
        if start {
            let mut ids = self.record(None);
            ids.extend(self.reread(None));
            ids.push(self.sleep_event(sleep::SUSPENDING));
            self.asleep = true;
            ids
        } else {
            self.asleep = false;
            // Writes made meanwhile are their writers', not the sleep's.
            let mut ids = self.record(None);
            let woke = self.sleep_event(sleep::RESUMED);
            ids.push(woke);
            ids.extend(self.reread(Some(woke)));
            ids
        }
    }

    fn sleep_event(&mut self, what: &str) -> u64 {
        self.history.push(Event {
            source: Source::Kernel,
            ..now(self.began, Setting::Sleep, what.to_owned())
        })
    }

    /// Records that the profile daemon `daemon` changed `setting` (its active profile) from
    /// `old` to `new`. Returns the event's id.
    pub fn daemon_changed(
        &mut self,
        setting: Setting,
        old: Option<String>,
        new: String,
        daemon: Option<Writer>,
    ) -> u64 {
        self.history.push(Event {
            old,
            source: Source::Daemon,
            process: daemon,
            ..now(self.began, setting, new)
        })
    }

    /// Records that the profile daemon lists `held` among its holds (`taken`) or no longer.
    /// Returns the event's id.
    pub fn daemon_held(&mut self, held: Hold, taken: bool, daemon: Option<Writer>) -> u64 {
        let what = if taken { hold::HELD } else { hold::RELEASED };
        self.history.push(Event {
            source: Source::Daemon,
            process: daemon,
            hold: Some(held),
            ..now(self.began, Setting::ProfileHold, what.to_owned())
        })
    }

    /// An event of the recording itself (`what` of [`recording`]).
    fn note(&mut self, what: &str) -> u64 {
        self.history
            .push(now(self.began, Setting::Recording, what.to_owned()))
    }

    /// Readable when writes wait to be taken.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fanotify.as_fd()
    }

    /// How many files it watches.
    pub fn watched(&self) -> usize {
        self.marked.len()
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// Stops recording; what it recorded stays.
    pub fn into_history(self) -> History {
        self.history
    }

    /// How often writes were lost because the kernel's queue overflowed (a flood of writes
    /// faster than they are taken): a gap in the recording, never filled in.
    pub fn overflows(&self) -> u64 {
        self.overflows
    }

    /// Takes in the writes made since the last call (at most [`RECORD_AT_ONCE`] of them), and
    /// after a write to a governor or driver mode what the kernel changed with it; returns the
    /// ids of the new events. This
    /// process's own writes are Pacer's, made for `on_behalf` (the caller whose request they
    /// served) when given.
    pub fn record(&mut self, on_behalf: Option<&Writer>) -> Vec<u64> {
        let mut ids = Vec::new();
        let mut taken = 0;
        // Each read takes what fits a page; the queue may hold more. Bounded, so that a
        // writer flooding the queue cannot keep one call (and the lock its caller holds)
        // going: what is left is taken on the next call, the descriptor still readable.
        while taken < RECORD_AT_ONCE {
            let Ok(batch) = self.fanotify.read() else {
                break;
            };
            if batch.is_empty() {
                break;
            }
            taken += batch.len();
            for notice in batch {
                let (file, pid, writing) = match notice {
                    Notice::Overflow => {
                        self.overflows += 1;
                        ids.push(self.note(recording::LOST));
                        continue;
                    }
                    Notice::Write { file, pid, writing } => (file, pid, writing),
                };
                let Ok(stat) = rustix::fs::fstat(&file) else {
                    continue;
                };
                let Some(&index) = self.by_inode.get(&(stat.st_dev, stat.st_ino)) else {
                    continue;
                };
                let new = read_fd(file.as_fd()).unwrap_or_default();
                let pid = u32::try_from(pid).unwrap_or(0);
                let (source, process) = if pid == std::process::id() {
                    (Source::Pacer, on_behalf.cloned())
                } else {
                    (Source::Process, Some(writer(pid, &writing)))
                };
                let id = self.push(index, new, source, process, None);
                ids.push(id);
                // What the kernel changes with a write: a governor's, its own policy's files
                // (and the machine's, as EAS follows the governors); a driver mode's, all.
                match self.marked[index].file.setting {
                    Setting::Governor => {
                        let policies = self.marked[index].file.policies.clone();
                        ids.extend(self.reread_within(Some(id), Some(&policies)));
                    }
                    Setting::DriverMode => ids.extend(self.reread(Some(id))),
                    _ => {}
                }
            }
        }
        ids
    }

    /// Reads every file again and records what changed without a write seen: the kernel's
    /// doing after the write `cause`, or, without one (the slow re-read, which waits while
    /// the machine sleeps), of no known source.
    /// A file made anew since it was marked is marked again.
    pub fn reread(&mut self, cause: Option<u64>) -> Vec<u64> {
        self.reread_within(cause, None)
    }

    /// [`Recorder::reread`] of the files of `policies` and the machine's alone (`None`: all):
    /// a write on one policy of 256 reads that policy's files again, not the machine's 1,500.
    fn reread_within(&mut self, cause: Option<u64>, policies: Option<&[u32]>) -> Vec<u64> {
        let mut ids = Vec::new();
        // The recording thread may run on waking before logind says so.
        if cause.is_none() && self.asleep {
            return ids;
        }
        for index in 0..self.marked.len() {
            let marked = &mut self.marked[index];
            let theirs = &marked.file.policies;
            if policies.is_some_and(|policies| {
                !theirs.is_empty() && !theirs.iter().any(|p| policies.contains(p))
            }) {
                continue;
            }
            let now = std::fs::metadata(&marked.path)
                .ok()
                .map(|meta| (meta.dev(), meta.ino()));
            if now.is_some() && now != marked.inode {
                // Unmarked until marked again: a file that cannot be is a gap, not a stop.
                if let Some(old) = marked.inode.take() {
                    self.by_inode.remove(&old);
                }
                marked.inode = mark(&self.fanotify, &marked.path).ok();
                if let Some(new) = marked.inode {
                    self.by_inode.insert(new, index);
                }
            }
            let now = read_value(&self.marked[index].path);
            let Some(now) = now.filter(|now| self.marked[index].value.as_ref() != Some(now)) else {
                continue;
            };
            let source = if cause.is_some() {
                Source::Kernel
            } else {
                Source::Unknown
            };
            ids.push(self.push(index, now, source, None, cause));
        }
        ids
    }

    fn push(
        &mut self,
        index: usize,
        new: String,
        source: Source,
        process: Option<Writer>,
        cause: Option<u64>,
    ) -> u64 {
        let marked = &mut self.marked[index];
        let event = Event {
            policies: marked.file.policies.clone(),
            old: marked.value.replace(new.clone()),
            source,
            process,
            cause,
            ..now(self.began, marked.file.setting, new)
        };
        self.history.push(event)
    }
}

/// An event of `setting` becoming `new` now, in a recording that began at `began`: of the
/// machine as a whole, by Pacer, until said otherwise.
fn now(began: Instant, setting: Setting, new: String) -> Event {
    Event {
        id: 0,
        time: SystemTime::now(),
        monotonic_ms: began.elapsed().as_millis() as u64,
        setting,
        policies: Vec::new(),
        old: None,
        new,
        source: Source::Pacer,
        process: None,
        cause: None,
        hold: None,
    }
}

/// Marks the file at `path` (never a symlink's target) for writes; returns its device and
/// inode, as events are matched by them.
fn mark(fanotify: &Group, path: &Path) -> Result<(u64, u64), Errno> {
    let meta = std::fs::symlink_metadata(path).map_err(|error| errno_of(&error))?;
    fanotify.mark(path)?;
    Ok((meta.dev(), meta.ino()))
}

/// The most bytes read of a value: every watched file holds a word or a number.
const VALUE_READ_LIMIT: u64 = 256;

/// A file's value, as the kernel prints it.
fn read_value(path: &Path) -> Option<String> {
    Some(read_bounded(path, VALUE_READ_LIMIT)?.trim().to_owned())
}

/// The value behind an event's descriptor, read from the start.
fn read_fd(fd: BorrowedFd<'_>) -> Option<String> {
    let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
    let mut buffer = [0u8; VALUE_READ_LIMIT as usize];
    let read = file.read_at(&mut buffer, 0).ok()?;
    Some(String::from_utf8_lossy(&buffer[..read]).trim().to_owned())
}
