// SPDX-License-Identifier: GPL-3.0-or-later
//! The directory that stands for `/`, and reading a whole file under it as text.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::dir_cache::DirCache;

/// The largest file Pacer reads. sysfs attributes are at most a page; anything longer is not
/// an attribute the kernel wrote.
pub(super) const MAX_FILE_BYTES: usize = 64 * 1024;

/// A directory that stands for `/`: the real root, a fixture tree or a simulated machine.
#[derive(Debug)]
pub struct SysRoot {
    root: PathBuf,
    /// Every file read, in order, when the caller asked for a log (tests and benchmarks check
    /// that a snapshot reads each file once).
    read_log: Option<Mutex<Vec<PathBuf>>>,
}

/// Why a file could not be read.
#[derive(Debug)]
pub enum ReadError {
    Missing,
    Io(io::Error),
}

impl SysRoot {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            read_log: None,
        }
    }

    /// Like [`SysRoot::new`], recording every file read (see [`SysRoot::reads`]).
    pub fn with_read_log(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            read_log: Some(Mutex::new(Vec::new())),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path of `rel` (written as from `/`, without the leading slash) under this root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel.trim_start_matches('/'))
    }

    /// The files read so far, when logging was asked for.
    pub fn reads(&self) -> Vec<PathBuf> {
        self.read_log
            .as_ref()
            .map(|log| log.lock().map(|log| log.clone()).unwrap_or_default())
            .unwrap_or_default()
    }

    /// Reads a whole file as text.
    pub fn read_text(&self, rel: &str) -> Result<String, ReadError> {
        self.note_read(rel);
        let mut buf = Vec::new();
        let len = read_to(File::open(self.path(rel))?, &mut buf, ONE_OFF_BYTES)?;
        buf.truncate(len);
        String::from_utf8(buf).map_err(|_| not_text())
    }

    /// Records a read of `rel` where a log was asked for.
    pub(super) fn note_read(&self, rel: &str) {
        if let Some(log) = &self.read_log {
            if let Ok(mut log) = log.lock() {
                log.push(self.path(rel));
            }
        }
    }

    /// Reads a whole file into `buf` through `cache` (see [`DirCache`]) and returns its text.
    pub(super) fn read_in<'b>(
        &self,
        cache: &mut DirCache,
        rel: &str,
        buf: &'b mut Vec<u8>,
    ) -> Result<&'b str, ReadError> {
        self.note_read(rel);
        let rel = rel.trim_start_matches('/');
        let file = match cache.open(&self.root, rel) {
            Some(opened) => opened?,
            None => File::open(self.path(rel))?,
        };
        let len = read_to(file, buf, PAGE_BYTES)?;
        std::str::from_utf8(&buf[..len]).map_err(|_| not_text())
    }

    /// The names in a directory, sorted; `Missing` when it does not exist.
    pub fn list_dir(&self, rel: &str) -> Result<Vec<String>, ReadError> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(self.path(rel)).map_err(ReadError::from)? {
            let entry = entry.map_err(ReadError::from)?;
            if let Ok(name) = entry.file_name().into_string() {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    /// Whether the file can be opened for reading, without reading it (for root-only files
    /// such as RAPL's `energy_uj`, whose mere readability is what matters).
    pub fn can_open(&self, rel: &str) -> Result<(), ReadError> {
        File::open(self.path(rel))
            .map(drop)
            .map_err(ReadError::from)
    }
}

/// The first size of a probe's read buffer, kept for all its reads: a page, the most a
/// sysfs attribute holds.
const PAGE_BYTES: usize = 4096;
/// The first size of the buffer of a single read: attributes are short, and a small buffer
/// is cheaper to clear than a page.
const ONE_OFF_BYTES: usize = 256;

/// Reads a file to its end (at most [`MAX_FILE_BYTES`]) into `buf`, made at least `first`
/// bytes long and keeping its size between reads, and returns the length read. One read is
/// enough where the file is shorter than the buffer: sysfs hands out the whole value at
/// once, and so does a regular file.
fn read_to(mut file: File, buf: &mut Vec<u8>, first: usize) -> Result<usize, ReadError> {
    if buf.len() < first {
        buf.resize(first, 0);
    }
    let mut len = 0;
    loop {
        let n = file.read(&mut buf[len..])?;
        len += n;
        if n == 0 || len < buf.len() {
            return Ok(len);
        }
        if len > MAX_FILE_BYTES {
            return Err(ReadError::Io(io::Error::new(
                io::ErrorKind::InvalidData,
                "file too large",
            )));
        }
        buf.resize((buf.len() * 2).min(MAX_FILE_BYTES + 1), 0);
    }
}

fn not_text() -> ReadError {
    ReadError::Io(io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

impl From<io::Error> for ReadError {
    fn from(error: io::Error) -> Self {
        if error.kind() == io::ErrorKind::NotFound {
            ReadError::Missing
        } else {
            ReadError::Io(error)
        }
    }
}
