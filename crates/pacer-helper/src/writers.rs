// SPDX-License-Identifier: GPL-3.0-or-later
//! Who wrote: a writer as `/proc` describes it (PID, command, executable, systemd unit from
//! its cgroup, user), trusted only while its pidfd shows the process that wrote still running,
//! since a PID is another process's once its writer has exited.

use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::{Path, PathBuf};

use pacer_core::bounded::bounded_text;
use pacer_core::history::Writer;

use crate::fanotify::Writing;

/// The most bytes read of a `/proc` file of a writer (its cgroup, its command line).
const PROC_READ_LIMIT: u64 = 4096;

/// Who wrote: what `/proc` says of process `pid`, as long as `writing` shows that process
/// still running once it is read; only its PID when it had exited (a writer that exits at
/// once), as its PID may be another process's by then.
pub fn writer(pid: u32, writing: &Writing) -> Writer {
    let gone = Writer {
        pid,
        comm: None,
        exe: None,
        unit: None,
        uid: None,
    };
    if matches!(writing, Writing::Exited) {
        return gone;
    }
    let described = describe(pid);
    match writing {
        Writing::Running(pidfd) if exited(pidfd.as_fd()) => gone,
        _ => described,
    }
}

/// Whether the process behind `pidfd` has exited: its pidfd is then readable.
fn exited(pidfd: BorrowedFd<'_>) -> bool {
    let mut ready = [rustix::event::PollFd::new(
        &pidfd,
        rustix::event::PollFlags::IN,
    )];
    rustix::event::poll(&mut ready, Some(&rustix::event::Timespec::default())).is_ok_and(|n| n > 0)
}

/// What `/proc` says of process `pid` now.
/// Each text bounded: a process chooses its name, and its cgroup's (see
/// [`pacer_core::bounded`]).
pub fn describe(pid: u32) -> Writer {
    let proc = PathBuf::from(format!("/proc/{pid}"));
    let text = |name: &str| read_bounded(&proc.join(name), PROC_READ_LIMIT);
    Writer {
        pid,
        comm: text("comm").map(|comm| bounded_text(full_name(comm.trim(), &proc))),
        exe: std::fs::read_link(proc.join("exe"))
            .ok()
            .map(|exe| bounded_text(exe.display().to_string())),
        unit: text("cgroup")
            .and_then(|cgroup| unit_of(&cgroup))
            .map(bounded_text),
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
    let started_as = read_bounded(&proc.join("cmdline"), PROC_READ_LIMIT).and_then(|cmdline| {
        let first = cmdline.split('\0').next()?;
        let name = Path::new(first).file_name()?;
        Some(name.to_str()?.to_owned())
    });
    started_as
        .filter(|name| name.starts_with(comm))
        .unwrap_or_else(|| comm.to_owned())
}

/// The systemd unit of a process from its `/proc/PID/cgroup` (the unified hierarchy's line):
/// the innermost service or scope, else the cgroup's path.
pub(crate) fn unit_of(cgroup: &str) -> Option<String> {
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

/// The start of a file, at most `limit` bytes, as text.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Option<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(limit)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
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
        let me = describe(std::process::id());
        assert!(me.comm.is_some_and(|comm| !comm.is_empty()));
        assert!(me.exe.is_some());
        assert_eq!(me.uid, Some(rustix::process::getuid().as_raw()));
    }
}
