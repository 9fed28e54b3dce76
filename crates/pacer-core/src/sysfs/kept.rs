// SPDX-License-Identifier: GPL-3.0-or-later
//! Files kept open between refreshes and read again from their start, as sysfs allows (it
//! renders an attribute afresh for a read at offset 0): one system call per value instead of
//! opening, reading and closing. Reading what moves, once a second, on a machine with
//! hundreds of policies costs a fraction as much this way.
//!
//! A simulated machine's files are replaced rather than rewritten, which leaves a kept
//! descriptor on a file with no name: such a file (no links left) is opened again. Sysfs
//! never replaces a file under its name, so a file on sysfs is not checked.

use std::collections::HashMap;
use std::io;
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

use super::root::{ReadError, SysRoot};

/// The `f_type` of sysfs in `statfs` (`SYSFS_MAGIC`, include/uapi/linux/magic.h).
const SYSFS_MAGIC: u32 = 0x6265_6572;

/// The most files kept open: beyond them a file is opened at each read, so that a machine
/// of thousands of policies does not use up the process's descriptors.
const MOST_KEPT: usize = 4096;

/// The longest value read through a kept file: every attribute kept is a number.
const VALUE_BYTES: usize = 64;

/// One file kept open, and whether it is on sysfs.
#[derive(Debug)]
pub(crate) struct KeptFile {
    fd: OwnedFd,
    on_sysfs: bool,
}

impl KeptFile {
    /// Opens `name` in the directory `dir`.
    pub(crate) fn open_at(dir: &OwnedFd, name: &str) -> io::Result<KeptFile> {
        let flags = OFlags::RDONLY | OFlags::CLOEXEC;
        Ok(KeptFile::kept(rustix::fs::openat(
            dir,
            name,
            flags,
            Mode::empty(),
        )?))
    }

    fn open(path: &Path) -> io::Result<KeptFile> {
        let flags = OFlags::RDONLY | OFlags::CLOEXEC;
        Ok(KeptFile::kept(rustix::fs::open(
            path,
            flags,
            Mode::empty(),
        )?))
    }

    fn kept(fd: OwnedFd) -> KeptFile {
        let on_sysfs = rustix::fs::fstatfs(&fd)
            .is_ok_and(|stat| u32::try_from(stat.f_type) == Ok(SYSFS_MAGIC));
        KeptFile { fd, on_sysfs }
    }

    /// Whether the file is still the one under its name (see the module's notes).
    pub(crate) fn still_named(&self) -> bool {
        self.on_sysfs || rustix::fs::fstat(&self.fd).is_ok_and(|stat| stat.st_nlink > 0)
    }

    /// Reads the file from its start into `buffer`; says how many bytes came.
    pub(crate) fn read_start(&self, buffer: &mut [u8]) -> io::Result<usize> {
        Ok(rustix::io::pread(&self.fd, buffer, 0)?)
    }

    #[cfg(test)]
    pub(crate) fn on_sysfs(&self) -> bool {
        self.on_sysfs
    }
}

/// Files kept open by their path under a root.
#[derive(Debug, Default)]
pub struct KeptFiles {
    files: HashMap<String, KeptFile>,
    buffer: Vec<u8>,
}

impl KeptFiles {
    /// The text of `rel` under `root`, read through its kept descriptor (opened on first
    /// use, and again where the file was replaced). A file that fails to read is let go, so
    /// that the next refresh opens it afresh.
    pub(crate) fn read(&mut self, root: &SysRoot, rel: &str) -> Result<&str, ReadError> {
        root.note_read(rel);
        self.buffer.resize(VALUE_BYTES, 0);
        let read = match self.files.get(rel).filter(|file| file.still_named()) {
            Some(file) => file.read_start(&mut self.buffer),
            None => {
                let file = KeptFile::open(&root.path(rel))?;
                let read = file.read_start(&mut self.buffer);
                if self.files.len() < MOST_KEPT {
                    self.files.insert(rel.to_owned(), file);
                }
                read
            }
        };
        let read = read.inspect_err(|_| {
            self.files.remove(rel);
        })?;
        std::str::from_utf8(&self.buffer[..read]).map_err(|_| {
            ReadError::Io(io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
        })
    }
}

/// Raises this process's soft limit on open files to its hard limit. The soft limit stays
/// at 1024 by default only for programs that still use `select()`; one that keeps a file
/// per policy open on a large machine raises it itself, as systemd asks of such programs.
/// Where it cannot, files beyond the limit are opened at each read, as before.
pub fn raise_open_file_limit() {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current < limit.maximum {
        limit.current = limit.maximum;
        // Refused only where the hard limit is below the soft one, which it cannot be.
        let _ = setrlimit(Resource::Nofile, limit);
    }
}
