// SPDX-License-Identifier: GPL-3.0-or-later
//! fanotify, as the recorder uses it: a notification group, inode marks for writes, and the
//! writes read back with the writer as a pidfd.
//!
//! Only making a group needs CAP_SYS_ADMIN. Marking a file (an inode mark) and reading the
//! group's events need no capability when the group was made by a process that had it, so the
//! long-running helper holds none: under its unit it receives a group made by a short-lived
//! privileged step (`crate::privileged`), and marks and reads it itself.
//!
//! The writer comes as a pidfd (`FAN_REPORT_PIDFD`, Linux 5.15), not only as a PID: a PID can
//! be taken by another process once the writer exits, a pidfd cannot. What `/proc/PID` says is
//! trusted only while the pidfd shows the writer still running (see `recorder::writer`).
//!
//! Unsafe code is confined to this module: the two system calls libc declares, and taking
//! ownership of the descriptors the kernel placed in this process's table with each event.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::io::Errno;

/// A fanotify notification group.
#[derive(Debug)]
pub struct Group {
    fd: OwnedFd,
}

/// One notice read from a group.
#[derive(Debug)]
pub enum Notice {
    /// The kernel's queue overflowed: writes were lost.
    Overflow,
    /// A write to a marked file.
    Write {
        /// The file written, opened read-only for this process.
        file: OwnedFd,
        /// The writer's PID (its thread group's).
        pid: i32,
        writing: Writing,
    },
}

/// The writer of a write, as the notice found it.
#[derive(Debug)]
pub enum Writing {
    /// Running when the notice was read: its pidfd.
    Running(OwnedFd),
    /// Exited before the notice was read: its PID may be another process's already.
    Exited,
    /// Not known: a kernel older than 5.15 reports the PID alone.
    Unknown,
}

/// The size of `struct fanotify_event_metadata`, the fixed part of each notice.
const METADATA_LEN: usize = 24;

impl Group {
    /// A new notification group for writes, non-blocking, reporting writers as pidfds (as a
    /// PID alone on a kernel older than 5.15). Needs CAP_SYS_ADMIN.
    pub fn new() -> Result<Group, Errno> {
        let flags = libc::FAN_CLASS_NOTIF | libc::FAN_CLOEXEC | libc::FAN_NONBLOCK;
        let event_flags = (libc::O_RDONLY | libc::O_CLOEXEC | libc::O_LARGEFILE) as libc::c_uint;
        match init(flags | libc::FAN_REPORT_PIDFD, event_flags) {
            Err(Errno::INVAL) => init(flags, event_flags),
            made => made,
        }
    }

    /// A group made by another process (the privileged step), received over a socket.
    pub fn from_fd(fd: OwnedFd) -> Group {
        Group { fd }
    }

    /// Marks the file at `path` (never a symlink's target) for writes.
    pub fn mark(&self, path: &Path) -> Result<(), Errno> {
        let path = CString::new(path.as_os_str().as_bytes()).map_err(|_| Errno::INVAL)?;
        // SAFETY: a valid descriptor and a NUL-terminated path that outlives the call.
        let done = unsafe {
            libc::fanotify_mark(
                self.fd.as_raw_fd(),
                libc::FAN_MARK_ADD | libc::FAN_MARK_DONT_FOLLOW,
                libc::FAN_MODIFY,
                libc::AT_FDCWD,
                path.as_ptr(),
            )
        };
        if done == 0 {
            Ok(())
        } else {
            Err(errno_of(&std::io::Error::last_os_error()))
        }
    }

    /// The notices waiting, at most a page of them; none when none wait.
    pub fn read(&self) -> Result<Vec<Notice>, Errno> {
        let mut buffer = [0u8; 4096];
        let read = match rustix::io::read(&self.fd, &mut buffer) {
            Ok(read) => read,
            Err(Errno::AGAIN) => return Ok(Vec::new()),
            Err(errno) => return Err(errno),
        };
        Ok(parse(&buffer[..read]))
    }
}

impl AsFd for Group {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl From<Group> for OwnedFd {
    fn from(group: Group) -> OwnedFd {
        group.fd
    }
}

/// The errno behind an I/O error (EIO where it carries none).
pub(crate) fn errno_of(error: &std::io::Error) -> Errno {
    Errno::from_io_error(error).unwrap_or(Errno::IO)
}

fn init(flags: libc::c_uint, event_flags: libc::c_uint) -> Result<Group, Errno> {
    // SAFETY: plain integer arguments; the result is a new descriptor or -1.
    let fd = unsafe { libc::fanotify_init(flags, event_flags) };
    if fd < 0 {
        return Err(errno_of(&std::io::Error::last_os_error()));
    }
    // SAFETY: the kernel just made `fd` for this call alone; nothing else owns it.
    Ok(Group {
        fd: unsafe { OwnedFd::from_raw_fd(fd) },
    })
}

/// Takes ownership of a descriptor the kernel placed in this process's table with a notice.
fn owned(fd: i32) -> Option<OwnedFd> {
    // SAFETY: a non-negative descriptor in a notice was installed for this read alone and is
    // taken exactly once (each notice's field is read once).
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The notices in what one read gave: each descriptor in them owned, so none leaks, even of
/// a notice that is not understood.
fn parse(bytes: &[u8]) -> Vec<Notice> {
    let mut notices = Vec::new();
    let mut rest = bytes;
    while rest.len() >= METADATA_LEN {
        let u16_at = |at: usize| u16::from_ne_bytes([rest[at], rest[at + 1]]);
        let u32_at =
            |at: usize| u32::from_ne_bytes([rest[at], rest[at + 1], rest[at + 2], rest[at + 3]]);
        let event_len = u32_at(0) as usize;
        let metadata_len = usize::from(u16_at(6));
        if event_len < METADATA_LEN || event_len > rest.len() || metadata_len < METADATA_LEN {
            break;
        }
        let mask = u64::from(u32_at(8)) | (u64::from(u32_at(12)) << 32);
        let file = owned(u32_at(16) as i32);
        let pid = u32_at(20) as i32;
        let mut writing = Writing::Unknown;
        // The records after the metadata: only the pidfd's is asked for.
        let mut at = metadata_len;
        while at + 4 <= event_len {
            let (kind, len) = (rest[at], usize::from(u16_at(at + 2)));
            if len < 4 || at + len > event_len {
                break;
            }
            if kind == libc::FAN_EVENT_INFO_TYPE_PIDFD && len >= 8 {
                // FAN_NOPIDFD or FAN_EPIDFD when it had exited.
                writing = owned(u32_at(at + 4) as i32).map_or(Writing::Exited, Writing::Running);
            }
            at += len;
        }
        if mask & libc::FAN_Q_OVERFLOW != 0 {
            notices.push(Notice::Overflow);
        } else if let Some(file) = file {
            notices.push(Notice::Write { file, pid, writing });
        }
        rest = &rest[event_len..];
    }
    notices
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn notices_that_are_cut_or_odd_are_left_without_reading_past_them() {
        // No descriptors in these (-1), so nothing is taken.
        let mut notice = Vec::new();
        notice.extend_from_slice(&(METADATA_LEN as u32).to_ne_bytes());
        notice.extend_from_slice(&[3, 0]);
        notice.extend_from_slice(&(METADATA_LEN as u16).to_ne_bytes());
        notice.extend_from_slice(&libc::FAN_Q_OVERFLOW.to_ne_bytes());
        notice.extend_from_slice(&(-1i32).to_ne_bytes());
        notice.extend_from_slice(&0i32.to_ne_bytes());
        assert!(matches!(parse(&notice)[..], [Notice::Overflow]));
        assert!(parse(&notice[..10]).is_empty());
        let mut longer = notice.clone();
        longer[0] = 200;
        assert!(parse(&longer).is_empty());
    }
}
