//! The recorder of who changed it: fanotify marks on every power-state file of the machine
//! (`pacer_core::history::watched_files`), each write to one of them turned into an event
//! that names the process that made it (PID, command, executable, systemd unit from its
//! cgroup, user), the value before and after. Changes no process wrote (the kernel's own,
//! such as intel_pstate restoring the EPP when the governor changes) raise no event: they are
//! found by reading the files again, right after a governor or driver-mode write (then they
//! are the kernel's, caused by that write) and on a slow re-read (then who made them is not
//! known, and the event says so). Needs CAP_SYS_ADMIN, as fanotify does.
//!
//! The marks are on the files themselves (their inodes), not on a mount: a write is seen
//! whichever mount it goes through — the helper's unit gives it mounts of its own of /sys, the
//! writers write through the system's. A file made anew (the kernel recreates a driver's files
//! when its mode changes; a simulated machine's kernel replaces a file to change it) is
//! marked again when a re-read finds it. fanotify merges a writer's writes to one file that
//! wait unread into one event, which stands for them with the value read after the last.

use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use nix::errno::Errno;
use nix::sys::fanotify::{EventFFlags, Fanotify, InitFlags, MarkFlags, MaskFlags};
use pacer_core::history::{
    hold, recording, sleep, Event, History, Setting, Source, WatchedFile, Writer,
};
use pacer_core::profile::daemon::Hold;

/// The most writes one [`Recorder::record`] takes in (about a millisecond's work each at
/// worst, reading the writer from /proc).
const RECORD_AT_ONCE: usize = 512;

/// Why recording could not start.
#[derive(Debug, thiserror::Error)]
pub enum RecorderError {
    /// fanotify is refused: no CAP_SYS_ADMIN, or a seccomp filter without its calls.
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
    fanotify: Fanotify,
    marked: Vec<Marked>,
    began: Instant,
    history: History,
    /// How often the kernel's queue of writes overflowed: writes were lost, not recorded.
    overflows: u64,
    /// Between logind's word that the machine goes to sleep and its word that it woke: the
    /// slow re-read waits, so that what the sleep changed is found on the waking, as its.
    asleep: bool,
}

impl Recorder {
    /// Marks each of `files` under `root`, adding to `history` (a new one, or an earlier
    /// recording's, whose ids it goes on from). A file that cannot be watched fails the
    /// whole, by name: a recording that silently misses a file would mislead.
    pub fn start(
        root: &Path,
        files: Vec<WatchedFile>,
        history: History,
    ) -> Result<Recorder, RecorderError> {
        let fanotify = Fanotify::init(
            InitFlags::FAN_CLASS_NOTIF | InitFlags::FAN_CLOEXEC | InitFlags::FAN_NONBLOCK,
            EventFFlags::O_RDONLY | EventFFlags::O_CLOEXEC,
        )
        .map_err(RecorderError::Init)?;
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
        let mut recorder = Recorder {
            fanotify,
            marked,
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
            let Ok(batch) = self.fanotify.read_events() else {
                break;
            };
            if batch.is_empty() {
                break;
            }
            taken += batch.len();
            for notice in batch {
                if notice.mask().contains(MaskFlags::FAN_Q_OVERFLOW) {
                    self.overflows += 1;
                    ids.push(self.note(recording::LOST));
                    continue;
                }
                let Some(fd) = notice.fd() else { continue };
                let Ok(stat) = rustix::fs::fstat(fd) else {
                    continue;
                };
                let inode = Some((stat.st_dev, stat.st_ino));
                let Some(index) = self.marked.iter().position(|m| m.inode == inode) else {
                    continue;
                };
                let new = read_fd(fd).unwrap_or_default();
                let pid = u32::try_from(notice.pid()).unwrap_or(0);
                let (source, process) = if pid == std::process::id() {
                    (Source::Pacer, on_behalf.cloned())
                } else {
                    (Source::Process, Some(writer(pid)))
                };
                let id = self.push(index, new, source, process, None);
                ids.push(id);
                if matches!(
                    self.marked[index].file.setting,
                    Setting::Governor | Setting::DriverMode
                ) {
                    ids.extend(self.reread(Some(id)));
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
        let mut ids = Vec::new();
        // The recording thread may run on waking before logind says so.
        if cause.is_none() && self.asleep {
            return ids;
        }
        for index in 0..self.marked.len() {
            let marked = &mut self.marked[index];
            let now = std::fs::metadata(&marked.path)
                .ok()
                .map(|meta| (meta.dev(), meta.ino()));
            if now.is_some() && now != marked.inode {
                // Unmarked until marked again: a file that cannot be is a gap, not a stop.
                marked.inode = mark(&self.fanotify, &marked.path).ok();
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
fn mark(fanotify: &Fanotify, path: &Path) -> Result<(u64, u64), Errno> {
    let meta = std::fs::symlink_metadata(path)
        .map_err(|error| Errno::from_raw(error.raw_os_error().unwrap_or(0)))?;
    fanotify.mark(
        MarkFlags::FAN_MARK_ADD | MarkFlags::FAN_MARK_DONT_FOLLOW,
        MaskFlags::FAN_MODIFY,
        nix::fcntl::AT_FDCWD,
        Some(path),
    )?;
    Ok((meta.dev(), meta.ino()))
}

/// The first line of a file, as the kernel prints a value.
fn read_value(path: &Path) -> Option<String> {
    Some(std::fs::read_to_string(path).ok()?.trim().to_owned())
}

/// The value behind an event's descriptor, read from the start.
fn read_fd(fd: BorrowedFd<'_>) -> Option<String> {
    let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
    let mut buffer = [0u8; 256];
    let read = file.read_at(&mut buffer, 0).ok()?;
    Some(String::from_utf8_lossy(&buffer[..read]).trim().to_owned())
}

/// What `/proc` says of process `pid`; only its PID when it is already gone (what a writer
/// that exits at once leaves: fanotify gives the PID, not the process).
pub fn writer(pid: u32) -> Writer {
    let proc = PathBuf::from(format!("/proc/{pid}"));
    let text = |name: &str| std::fs::read_to_string(proc.join(name)).ok();
    Writer {
        pid,
        comm: text("comm").map(|comm| full_name(comm.trim(), &proc)),
        exe: std::fs::read_link(proc.join("exe"))
            .ok()
            .map(|exe| exe.display().to_string()),
        unit: text("cgroup").and_then(|cgroup| unit_of(&cgroup)),
        uid: text("status").and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("Uid:"))?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        }),
    }
}

/// The kernel cuts a command's name to 15 bytes (`power-profiles-`): then the name it was
/// started under, the file name of its first argument, when that begins the same way (only
/// the name: never its arguments).
fn full_name(comm: &str, proc: &Path) -> String {
    const CUT: usize = 15;
    if comm.len() < CUT {
        return comm.to_owned();
    }
    let started_as = std::fs::read(proc.join("cmdline"))
        .ok()
        .and_then(|cmdline| {
            let first = cmdline.split(|&byte| byte == 0).next()?;
            let name = Path::new(std::str::from_utf8(first).ok()?).file_name()?;
            Some(name.to_str()?.to_owned())
        });
    started_as
        .filter(|name| name.starts_with(comm))
        .unwrap_or_else(|| comm.to_owned())
}

/// The systemd unit of a process from its `/proc/PID/cgroup` (the unified hierarchy's line):
/// the innermost service or scope, else the cgroup's path.
fn unit_of(cgroup: &str) -> Option<String> {
    let path = cgroup
        .lines()
        .find_map(|line| line.strip_prefix("0::"))?
        .trim();
    let unit = path
        .rsplit('/')
        .find(|part| part.ends_with(".service") || part.ends_with(".scope"));
    // The root cgroup is no unit: nothing to say.
    Some(unit.unwrap_or(path).to_owned()).filter(|unit| !unit.is_empty() && unit != "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_is_the_innermost_service_or_scope() {
        assert_eq!(
            unit_of("0::/system.slice/tlp.service\n").as_deref(),
            Some("tlp.service")
        );
        assert_eq!(
            unit_of("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-1234.scope\n")
                .as_deref(),
            Some("app-gnome-firefox-1234.scope")
        );
        assert_eq!(unit_of("0::/init.scope\n").as_deref(), Some("init.scope"));
        // Outside systemd: the cgroup's path.
        assert_eq!(unit_of("0::/docker/abc\n").as_deref(), Some("/docker/abc"));
        assert_eq!(unit_of("12:cpu:/x\n"), None);
        assert_eq!(unit_of("0::/\n"), None);
    }

    #[test]
    fn a_name_the_kernel_cut_is_the_name_it_was_started_under() {
        let proc = tempfile::tempdir().unwrap();
        std::fs::write(
            proc.path().join("cmdline"),
            b"/usr/libexec/power-profiles-daemon\0--verbose\0",
        )
        .unwrap();
        assert_eq!(
            full_name("power-profiles-", proc.path()),
            "power-profiles-daemon"
        );
        // Short names stand; a first argument of another name is not taken.
        assert_eq!(full_name("tlp", proc.path()), "tlp");
        assert_eq!(full_name("something-else1", proc.path()), "something-else1");
        assert_eq!(
            full_name("power-profiles-", Path::new("/nonexistent")),
            "power-profiles-"
        );
    }

    #[test]
    fn this_process_is_described_from_proc() {
        let me = writer(std::process::id());
        assert!(me.comm.is_some_and(|comm| !comm.is_empty()));
        assert!(me.exe.is_some());
        assert_eq!(me.uid, Some(rustix::process::getuid().as_raw()));
    }
}
