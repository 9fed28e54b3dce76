// SPDX-License-Identifier: GPL-3.0-or-later
//! What needs CAP_SYS_ADMIN, done by a short-lived privileged step so that the long-running
//! helper holds no such capability: making a fanotify group (only CAP_SYS_ADMIN may make one;
//! marking files and reading the group afterwards need nothing) and writing the EAS sysctl
//! (the kernel checks CAP_SYS_ADMIN on every write of `/proc/sys/kernel/sched_energy_aware`,
//! not when it is opened, so no descriptor opened beforehand would do).
//!
//! Under systemd the step is `pacer-helper --privileged-step`, started for each connection to
//! [`SOCKET`] by `pacer-helper-privileged.socket` (`Accept=yes`) with CAP_SYS_ADMIN alone; it
//! answers one request of a process of `pacer-helper.service` and exits. Without a socket
//! (development, tests run as root) the helper does these itself, with its own capabilities.
//!
//! The exchange is one line each way: `fanotify` or `eas 0`/`eas 1`; `ok` (with the group's
//! descriptor for `fanotify`) or `error ERRNO`.

use std::io::{IoSlice, IoSliceMut, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use rustix::io::Errno;
use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags,
};

use crate::fanotify::{errno_of, Group};

/// Where the helper's unit finds the step (`pacer-helper-privileged.socket`).
pub const SOCKET: &str = "/run/pacer-helper-privileged.socket";

/// The only unit whose processes the step serves.
pub const SERVED_UNIT: &str = "pacer-helper.service";

/// How long the helper waits for the step's answer.
const STEP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The EAS sysctl, the one file the step writes.
const EAS_SYSCTL: &str = "/proc/sys/kernel/sched_energy_aware";

/// Who does what needs CAP_SYS_ADMIN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Privileged {
    /// The helper itself (it has the capability, or the request fails as the kernel says).
    Itself,
    /// The step behind this socket.
    Step(PathBuf),
}

/// A request to the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Request {
    Fanotify,
    Eas(bool),
}

impl Request {
    fn line(self) -> &'static str {
        match self {
            Request::Fanotify => "fanotify\n",
            Request::Eas(false) => "eas 0\n",
            Request::Eas(true) => "eas 1\n",
        }
    }

    fn parse(line: &[u8]) -> Option<Request> {
        match line {
            b"fanotify\n" => Some(Request::Fanotify),
            b"eas 0\n" => Some(Request::Eas(false)),
            b"eas 1\n" => Some(Request::Eas(true)),
            _ => None,
        }
    }
}

impl Privileged {
    /// A new fanotify group for the recorder.
    pub fn fanotify(&self) -> Result<Group, Errno> {
        match self {
            Privileged::Itself => Group::new(),
            Privileged::Step(socket) => {
                let fd = ask(socket, Request::Fanotify)?.ok_or(Errno::PROTO)?;
                Ok(Group::from_fd(fd))
            }
        }
    }

    /// Turns EAS on or off on this machine (the real sysctl, never a simulated tree's).
    pub fn write_eas(&self, on: bool) -> Result<(), Errno> {
        match self {
            Privileged::Itself => write_eas(on),
            Privileged::Step(socket) => ask(socket, Request::Eas(on)).map(drop),
        }
    }
}

/// Sends `request` to the step at `socket`; its answer, with the descriptor it came with.
fn ask(socket: &Path, request: Request) -> Result<Option<OwnedFd>, Errno> {
    let mut stream = UnixStream::connect(socket).map_err(|error| errno_of(&error))?;
    // systemd starts the step in milliseconds; one that hangs must not hang the helper.
    for set in [UnixStream::set_read_timeout, UnixStream::set_write_timeout] {
        set(&stream, Some(STEP_TIMEOUT)).map_err(|error| errno_of(&error))?;
    }
    stream
        .write_all(request.line().as_bytes())
        .map_err(|error| errno_of(&error))?;
    let mut line = [0u8; 64];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let received = rustix::net::recvmsg(
        &stream,
        &mut [IoSliceMut::new(&mut line)],
        &mut control,
        RecvFlags::CMSG_CLOEXEC,
    )?;
    let mut fd = None;
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(mut fds) = message {
            fd = fds.next();
        }
    }
    match answer(&line[..received.bytes]) {
        Some(Ok(())) => Ok(fd),
        Some(Err(errno)) => Err(errno),
        None => Err(Errno::PROTO),
    }
}

/// `ok` or `error ERRNO`, as the step answers.
fn answer(line: &[u8]) -> Option<Result<(), Errno>> {
    let line = std::str::from_utf8(line).ok()?.strip_suffix('\n')?;
    if line == "ok" {
        return Some(Ok(()));
    }
    let errno: i32 = line.strip_prefix("error ")?.parse().ok()?;
    Some(Err(Errno::from_raw_os_error(errno)))
}

fn write_eas(on: bool) -> Result<(), Errno> {
    std::fs::write(EAS_SYSCTL, if on { "1" } else { "0" }).map_err(|error| errno_of(&error))
}

/// Why the step served nobody.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error("standard input is not a connected socket ({0})")]
    NoPeer(Errno),
    #[error(
        "refused process {pid} (user {uid}, unit {unit}): only root's {SERVED_UNIT} is served"
    )]
    Refused { pid: i32, uid: u32, unit: String },
    #[error("not a request: {0:?}")]
    NotARequest(String),
    #[error("cannot answer: {0}")]
    Answer(Errno),
}

/// The step: answers the one request on `stream` (the connection systemd accepted), when it
/// comes from a root process of [`SERVED_UNIT`].
pub fn serve(stream: BorrowedFd<'_>) -> Result<(), StepError> {
    // Read before anything is answered: a socket closed with a request unread is reset, and
    // the asker would be told nothing.
    let mut line = [0u8; 64];
    let read = rustix::io::read(stream, &mut line).map_err(StepError::NoPeer)?;
    let peer = rustix::net::sockopt::socket_peercred(stream).map_err(StepError::NoPeer)?;
    let unit = std::fs::read_to_string(format!("/proc/{}/cgroup", peer.pid.as_raw_nonzero()))
        .ok()
        .and_then(|cgroup| crate::writers::unit_of(&cgroup))
        .unwrap_or_default();
    if !peer.uid.is_root() || unit != SERVED_UNIT {
        // Answered, so that the asker is told why rather than left with a closed socket.
        let _ = reply(stream, Err(Errno::PERM), None);
        return Err(StepError::Refused {
            pid: peer.pid.as_raw_nonzero().get(),
            uid: peer.uid.as_raw(),
            unit,
        });
    }
    let Some(request) = Request::parse(&line[..read]) else {
        let _ = reply(stream, Err(Errno::INVAL), None);
        return Err(StepError::NotARequest(
            String::from_utf8_lossy(&line[..read]).into(),
        ));
    };
    let (result, fd) = match request {
        Request::Fanotify => match Group::new() {
            Ok(group) => (Ok(()), Some(OwnedFd::from(group))),
            Err(errno) => (Err(errno), None),
        },
        Request::Eas(on) => (write_eas(on), None),
    };
    reply(stream, result, fd.as_ref().map(AsFd::as_fd))
}

fn reply(
    stream: BorrowedFd<'_>,
    result: Result<(), Errno>,
    fd: Option<BorrowedFd<'_>>,
) -> Result<(), StepError> {
    let line = match result {
        Ok(()) => "ok\n".to_owned(),
        Err(errno) => format!("error {}\n", errno.raw_os_error()),
    };
    let fds: Vec<BorrowedFd<'_>> = fd.into_iter().collect();
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() {
        control.push(SendAncillaryMessage::ScmRights(&fds));
    }
    rustix::net::sendmsg(
        stream,
        &[IoSlice::new(line.as_bytes())],
        &mut control,
        SendFlags::NOSIGNAL,
    )
    .map(drop)
    .map_err(StepError::Answer)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_answers_read_as_they_are_written() {
        for request in [Request::Fanotify, Request::Eas(false), Request::Eas(true)] {
            assert_eq!(Request::parse(request.line().as_bytes()), Some(request));
        }
        for odd in [&b"eas 2\n"[..], b"fanotify", b"../etc/passwd\n", b""] {
            assert_eq!(Request::parse(odd), None);
        }
        assert_eq!(answer(b"ok\n"), Some(Ok(())));
        assert_eq!(answer(b"error 1\n"), Some(Err(Errno::PERM)));
        assert_eq!(answer(b"error x\n"), None);
        assert_eq!(answer(b"okay\n"), None);
    }

    #[test]
    fn the_helper_receives_what_the_step_sends_and_its_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("step.socket");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let step = std::thread::spawn(move || {
            // A descriptor stands in for the group: the way it travels is what is tested.
            let sent = tempfile::tempfile().unwrap();
            for answer in [Some(Ok(())), Some(Err(Errno::PERM)), None] {
                let (stream, _) = listener.accept().unwrap();
                let mut line = [0u8; 64];
                let read = rustix::io::read(&stream, &mut line).unwrap();
                assert_eq!(&line[..read], b"fanotify\n");
                match answer {
                    Some(Ok(())) => reply(stream.as_fd(), Ok(()), Some(sent.as_fd())).unwrap(),
                    Some(Err(errno)) => reply(stream.as_fd(), Err(errno), None).unwrap(),
                    None => (&stream).write_all(b"hello\n").unwrap(),
                }
            }
        });
        let privileged = Privileged::Step(path);
        let group = privileged.fanotify().unwrap();
        assert!(rustix::fs::fstat(&group).is_ok());
        assert_eq!(privileged.fanotify().unwrap_err(), Errno::PERM);
        assert_eq!(privileged.fanotify().unwrap_err(), Errno::PROTO);
        step.join().unwrap();
        // No step there at all: said as the connection's error.
        let gone = Privileged::Step(dir.path().join("none.socket"));
        assert_eq!(gone.fanotify().unwrap_err(), Errno::NOENT);
    }

    #[test]
    fn the_step_serves_only_its_unit() {
        // This test's process runs in no pacer-helper.service: refused, whatever it asks.
        let (ours, theirs) = UnixStream::pair().unwrap();
        (&ours).write_all(b"fanotify\n").unwrap();
        let refused = serve(theirs.as_fd()).unwrap_err();
        drop(theirs);
        assert!(matches!(refused, StepError::Refused { .. }), "{refused}");
        let mut line = String::new();
        std::io::Read::read_to_string(&mut &ours, &mut line).unwrap();
        assert_eq!(answer(line.as_bytes()), Some(Err(Errno::PERM)));
    }
}
