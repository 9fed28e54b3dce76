// SPDX-License-Identifier: GPL-3.0-or-later
//! Reading files under a root directory that stands for `/`, and recording what went wrong.
//!
//! Nothing here panics on the machine's data: a file that is missing, unreadable or garbled
//! becomes `None` plus a [`Problem`] that names the file and the reason.
//!
//! Over 500 lines with its unit tests.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;

use rustix::fs::{Mode, OFlags};

use serde::Serialize;

use crate::i18n::{fill, gettext};

/// The largest file Pacer reads. sysfs attributes are at most a page; anything longer is not
/// an attribute the kernel wrote.
const MAX_FILE_BYTES: usize = 64 * 1024;

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
        self.log(rel);
        let mut buf = Vec::new();
        let len = read_to(File::open(self.path(rel))?, &mut buf, ONE_OFF_BYTES)?;
        buf.truncate(len);
        String::from_utf8(buf).map_err(|_| not_text())
    }

    fn log(&self, rel: &str) {
        if let Some(log) = &self.read_log {
            if let Ok(mut log) = log.lock() {
                log.push(self.path(rel));
            }
        }
    }

    /// Reads a whole file into `buf` through `cache` (see [`DirCache`]) and returns its text.
    fn read_in<'b>(
        &self,
        cache: &mut DirCache,
        rel: &str,
        buf: &'b mut Vec<u8>,
    ) -> Result<&'b str, ReadError> {
        self.log(rel);
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

/// Directories a probe keeps open, so that a file's path is resolved from the nearest of
/// them instead of from `/`: resolving names is most of the cost of opening a sysfs
/// attribute, and a large machine has thousands. Kept: the root, and the directory and the
/// directory above it of the last file read, each opened from the second file read under
/// it on (opening a directory costs about as much as opening a file, so one read for a
/// single file is not opened). Paths are relative to the root.
#[derive(Debug, Default)]
pub struct DirCache {
    root: Option<OwnedFd>,
    parent: Option<OpenDir>,
    grandparent: Option<OpenDir>,
}

/// A kept directory: its path under the root, and its descriptor once a second file under
/// it was read.
#[derive(Debug)]
struct OpenDir {
    path: String,
    fd: Option<OwnedFd>,
}

impl OpenDir {
    fn new(path: &str) -> OpenDir {
        OpenDir {
            path: path.to_owned(),
            fd: None,
        }
    }
}

/// Which kept directory a file is opened from.
#[derive(Debug, Clone, Copy)]
enum Base {
    Root,
    Parent,
    Grandparent,
}

/// A kept directory's descriptor, once it is open.
fn opened(dir: &Option<OpenDir>) -> Option<&OwnedFd> {
    dir.as_ref()?.fd.as_ref()
}

fn open_dir(base: &OwnedFd, rel: &str) -> Option<OwnedFd> {
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    rustix::fs::openat(base, rel, flags, Mode::empty()).ok()
}

impl DirCache {
    /// Opens `rel` under `root` from the nearest open directory; `None` when the caller
    /// should open the full path (the root cannot be opened, so the error is reported for
    /// the file exactly).
    fn open(&mut self, root: &Path, rel: &str) -> Option<io::Result<File>> {
        if self.root.is_none() {
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            self.root = Some(rustix::fs::open(root, flags, Mode::empty()).ok()?);
        }
        let (base, rest) = self.base_for(rel);
        let fd = match base {
            Base::Root => self.root.as_ref(),
            Base::Parent => opened(&self.parent),
            Base::Grandparent => opened(&self.grandparent),
        }?;
        let opened = rustix::fs::openat(fd, rest, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty());
        Some(opened.map(File::from).map_err(io::Error::from))
    }

    /// The kept directory to open `rel` from, and the rest of its path from there. Keeps
    /// `rel`'s directory and the one above it, opening each from the second file read under
    /// it on.
    fn base_for<'r>(&mut self, rel: &'r str) -> (Base, &'r str) {
        let Some((parent, name)) = rel.rsplit_once('/') else {
            return (Base::Root, rel);
        };
        let (grandparent, parent_name) = parent.rsplit_once('/').unwrap_or(("", parent));
        let kept = |dir: &Option<OpenDir>, path: &str| dir.as_ref().is_some_and(|d| d.path == path);
        if kept(&self.parent, parent) {
            // A second file in the same directory (under the same one above it).
            if let Some(dir) = self.parent.as_mut().filter(|dir| dir.fd.is_none()) {
                dir.fd = match opened(&self.grandparent) {
                    Some(above) => open_dir(above, parent_name),
                    None => self.root.as_ref().and_then(|root| open_dir(root, parent)),
                };
            }
            return match opened(&self.parent) {
                Some(_) => (Base::Parent, name),
                None => (Base::Root, rel),
            };
        }
        self.parent = Some(OpenDir::new(parent));
        if !kept(&self.grandparent, grandparent) {
            self.grandparent = Some(OpenDir::new(grandparent));
            return (Base::Root, rel);
        }
        // A second directory under the same one: keep that one open.
        if let Some(dir) = self.grandparent.as_mut().filter(|dir| dir.fd.is_none()) {
            dir.fd = self
                .root
                .as_ref()
                .and_then(|root| open_dir(root, grandparent));
        }
        match opened(&self.grandparent) {
            // `parent_name/name`: the end of `rel`.
            Some(_) => (
                Base::Grandparent,
                &rel[rel.len() - parent_name.len() - 1 - name.len()..],
            ),
            None => (Base::Root, rel),
        }
    }
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

/// What a file was expected to hold, for the message about a garbled one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expected {
    Frequency,
    CpuList,
    Governor,
    GovernorList,
    Epp,
    EppList,
    Flag,
    Epb,
    DriverStatus,
    EasSysctl,
    Number,
    Name,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&match self {
            Expected::Frequency => gettext("a frequency in kHz"),
            Expected::CpuList => gettext("a list of CPU numbers"),
            Expected::Governor => gettext("a governor name"),
            Expected::GovernorList => gettext("a list of governor names"),
            Expected::Epp => gettext("an energy-performance preference"),
            Expected::EppList => gettext("a list of energy-performance preferences"),
            Expected::Flag => gettext("0 or 1"),
            Expected::Epb => gettext("an energy-performance bias from 0 to 15"),
            Expected::DriverStatus => gettext("a driver status"),
            Expected::EasSysctl => gettext("0, 1 or nothing"),
            Expected::Number => gettext("a whole number"),
            Expected::Name => gettext("a name"),
        })
    }
}

/// Something about the machine that could not be read as the kernel would print it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file as found (under the root).
    pub path: PathBuf,
    #[serde(flatten)]
    pub kind: ProblemKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ProblemKind {
    /// A file the kernel always provides in this situation is not there.
    Missing,
    /// The file exists but reading it failed; `error` is the system's message, with the errno.
    Unreadable { error: String, errno: Option<i32> },
    /// The content is not what the kernel prints there.
    Garbled { found: String, expected: Expected },
    /// Files that disagree with each other.
    Inconsistent { detail: String },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.path.display();
        let text = match &self.kind {
            ProblemKind::Missing => fill(gettext("{file} is missing"), &[("file", &file)]),
            ProblemKind::Unreadable { error, .. } => fill(
                gettext("{file} cannot be read: {error}"),
                &[("file", &file), ("error", error)],
            ),
            ProblemKind::Garbled { found, expected } => fill(
                gettext("{file} holds {found}, not {expected}"),
                &[
                    ("file", &file),
                    ("found", &format!("{:?}", shorten(found))),
                    ("expected", expected),
                ],
            ),
            ProblemKind::Inconsistent { detail } => fill(
                gettext("{file}: {detail}"),
                &[("file", &file), ("detail", detail)],
            ),
        };
        f.write_str(&text)
    }
}

/// Keeps messages about garbled files to one line.
fn shorten(text: &str) -> String {
    const LIMIT: usize = 40;
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Whether a file's absence is a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The kernel always provides it where Pacer looks: absence is reported.
    Required,
    /// It exists only with some drivers or hardware: absence means "not there".
    Optional,
}

/// Reads typed values from a [`SysRoot`], collecting problems instead of failing.
#[derive(Debug)]
pub struct Probe<'a> {
    root: &'a SysRoot,
    cache: DirCache,
    /// Each file is read into this, so that reading a value allocates nothing.
    buf: Vec<u8>,
    pub problems: Vec<Problem>,
}

impl<'a> Probe<'a> {
    pub fn new(root: &'a SysRoot) -> Self {
        Self {
            root,
            cache: DirCache::default(),
            buf: Vec::new(),
            problems: Vec::new(),
        }
    }

    pub fn root(&self) -> &'a SysRoot {
        self.root
    }

    /// Maps `read` over `items` on a few threads, each with its own probe, and returns the
    /// results in order, the problems appended in order too. Reading sysfs is bound by
    /// system-call cost, so a large machine's thousands of files go faster spread over cores;
    /// a small one stays on this thread.
    pub fn map_parallel<T: Sync, R: Send>(
        &mut self,
        items: &[T],
        read: impl Fn(&mut Probe<'a>, &T) -> R + Sync,
    ) -> Vec<R> {
        const ITEMS_PER_THREAD: usize = 32;
        let threads = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(4)
            .min(items.len().div_ceil(ITEMS_PER_THREAD));
        if threads <= 1 {
            return items.iter().map(|item| read(self, item)).collect();
        }
        let root = self.root;
        let chunk = items.len().div_ceil(threads);
        let read = &read;
        let read_part = move |part: &[T]| {
            let mut probe = Probe::new(root);
            let results: Vec<R> = part.iter().map(|item| read(&mut probe, item)).collect();
            (results, probe.problems)
        };
        let mut chunks = items.chunks(chunk);
        let own = chunks.next().unwrap_or_default();
        // The calling thread takes the first share itself: one thread fewer to start.
        let parts: Vec<(Vec<R>, Vec<Problem>)> = std::thread::scope(|scope| {
            let workers: Vec<_> = chunks
                .map(|part| scope.spawn(move || read_part(part)))
                .collect();
            let mut parts = vec![read_part(own)];
            for worker in workers {
                match worker.join() {
                    Ok(part) => parts.push(part),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            parts
        });
        let mut results = Vec::with_capacity(items.len());
        for (part, problems) in parts {
            results.extend(part);
            self.problems.extend(problems);
        }
        results
    }

    /// The file's raw text, for callers that tell a missing file from another failure.
    pub fn read(&mut self, rel: &str) -> Result<String, ReadError> {
        self.root
            .read_in(&mut self.cache, rel, &mut self.buf)
            .map(str::to_owned)
    }

    /// The file's text without the one trailing newline the kernel adds.
    pub fn text(&mut self, rel: &str, need: Need) -> Option<String> {
        self.text_if_present(rel, need).0
    }

    /// Like [`Probe::text`], and also whether the file exists (it may exist and still fail
    /// to read, which is reported).
    pub fn text_if_present(&mut self, rel: &str, need: Need) -> (Option<String>, bool) {
        self.with_text(rel, need, |_, text| Some(text.to_owned()))
    }

    /// The file parsed as `T`; garbled content is reported as not being `expected`.
    pub fn value<T: FromStr>(&mut self, rel: &str, need: Need, expected: Expected) -> Option<T> {
        self.with_text(rel, need, |probe, text| probe.parse(rel, text, expected))
            .0
    }

    /// What `use_text` makes of the file's text (without the kernel's trailing newline),
    /// read into the probe's buffer without a copy; and whether the file exists. A missing
    /// file is reported when `need` says so, a failed read always.
    fn with_text<R>(
        &mut self,
        rel: &str,
        need: Need,
        use_text: impl FnOnce(&mut Self, &str) -> Option<R>,
    ) -> (Option<R>, bool) {
        // Taken out while `use_text` may report problems through `self`.
        let mut buf = std::mem::take(&mut self.buf);
        let outcome = match self.root.read_in(&mut self.cache, rel, &mut buf) {
            Ok(text) => (
                use_text(self, text.strip_suffix('\n').unwrap_or(text)),
                true,
            ),
            Err(ReadError::Missing) => {
                if need == Need::Required {
                    self.report(rel, ProblemKind::Missing);
                }
                (None, false)
            }
            Err(ReadError::Io(error)) => {
                self.report_io(rel, &error);
                (None, true)
            }
        };
        self.buf = buf;
        outcome
    }

    /// A space-separated list (governors, EPP values), tolerating the trailing space the
    /// kernel prints after lists built in a loop. Any garbled item makes the whole list `None`.
    pub fn list<T: FromStr>(
        &mut self,
        rel: &str,
        need: Need,
        expected: Expected,
    ) -> Option<Vec<T>> {
        self.with_text(rel, need, |probe, text| {
            probe.parse_list(rel, text, expected)
        })
        .0
    }

    /// Parses a list already read (see [`Probe::list`]).
    pub fn parse_list<T: FromStr>(
        &mut self,
        rel: &str,
        text: &str,
        expected: Expected,
    ) -> Option<Vec<T>> {
        let items: Result<Vec<T>, _> = text.split_ascii_whitespace().map(str::parse).collect();
        match items {
            Ok(items) if !items.is_empty() => Some(items),
            _ => {
                self.garbled(rel, text, expected);
                None
            }
        }
    }

    pub fn parse<T: FromStr>(&mut self, rel: &str, text: &str, expected: Expected) -> Option<T> {
        match text.parse() {
            Ok(value) => Some(value),
            Err(_) => {
                self.garbled(rel, text, expected);
                None
            }
        }
    }

    pub fn garbled(&mut self, rel: &str, text: &str, expected: Expected) {
        self.report(
            rel,
            ProblemKind::Garbled {
                found: text.to_owned(),
                expected,
            },
        );
    }

    pub fn report_io(&mut self, rel: &str, error: &io::Error) {
        self.report(
            rel,
            ProblemKind::Unreadable {
                error: error.to_string(),
                errno: error.raw_os_error(),
            },
        );
    }

    pub fn report(&mut self, rel: &str, kind: ProblemKind) {
        self.problems.push(Problem {
            path: self.root.path(rel),
            kind,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("freq"), "400000\n").unwrap();
        std::fs::write(dir.path().join("bad"), "four hundred\n").unwrap();
        std::fs::write(
            dir.path().join("govs"),
            "conservative ondemand schedutil \n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("dir")).unwrap();
        dir
    }

    #[test]
    fn reads_values_and_reports_problems() {
        let dir = tree();
        let root = SysRoot::new(dir.path());
        let mut probe = Probe::new(&root);
        let freq: Option<crate::values::Khz> =
            probe.value("freq", Need::Required, Expected::Frequency);
        assert_eq!(freq, Some(crate::values::Khz(400_000)));
        let govs: Option<Vec<crate::values::Governor>> =
            probe.list("govs", Need::Required, Expected::GovernorList);
        assert_eq!(govs.map(|g| g.len()), Some(3));
        assert!(probe.problems.is_empty());

        let bad: Option<crate::values::Khz> =
            probe.value("bad", Need::Required, Expected::Frequency);
        assert_eq!(bad, None);
        let absent: Option<String> = probe.text("absent", Need::Optional);
        assert_eq!(absent, None);
        assert_eq!(
            probe.problems.len(),
            1,
            "an optional file's absence is no problem"
        );
        let _ = probe.text("absent", Need::Required);
        let _ = probe.text("dir", Need::Required);
        let messages: Vec<String> = probe.problems.iter().map(ToString::to_string).collect();
        assert!(messages[0].ends_with("bad holds \"four hundred\", not a frequency in kHz"));
        assert!(messages[1].ends_with("absent is missing"));
        assert!(messages[2].contains("dir cannot be read: Is a directory (os error 21)"));
        assert!(matches!(
            probe.problems[2].kind,
            ProblemKind::Unreadable {
                errno: Some(21),
                ..
            }
        ));
    }

    #[test]
    fn files_read_through_kept_directories_are_the_right_files() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            "top", "a/b/x", "a/b/y", "a/c/x", "a/c/y", "a/c/z", "a/x", "d/x", "a/b/x", "e/f/g/x",
            "e/f/h/x",
        ];
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, format!("{file}\n")).unwrap();
        }
        let root = SysRoot::new(dir.path());
        let mut probe = Probe::new(&root);
        // Every order of going down, across and back up, with missing files between.
        for file in files.iter().chain(files.iter().rev()) {
            assert_eq!(probe.text(file, Need::Required).as_deref(), Some(*file));
            assert_eq!(probe.text(&format!("{file}-absent"), Need::Optional), None);
        }
        assert_eq!(
            probe.text("/a/c/x", Need::Required).as_deref(),
            Some("a/c/x")
        );
        assert!(probe.problems.is_empty(), "{:?}", probe.problems);
        assert!(probe
            .cache
            .grandparent
            .as_ref()
            .is_some_and(|dir| dir.fd.is_some()));
    }

    #[test]
    fn logs_reads_when_asked() {
        let dir = tree();
        let root = SysRoot::with_read_log(dir.path());
        let _ = root.read_text("freq");
        let _ = root.read_text("absent");
        assert_eq!(
            root.reads(),
            vec![dir.path().join("freq"), dir.path().join("absent")]
        );
    }

    #[test]
    fn refuses_huge_and_binary_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("huge"), vec![b'1'; MAX_FILE_BYTES * 2]).unwrap();
        std::fs::write(dir.path().join("binary"), [0xff, 0xfe, 0]).unwrap();
        let root = SysRoot::new(dir.path());
        assert!(matches!(root.read_text("huge"), Err(ReadError::Io(_))));
        assert!(matches!(root.read_text("binary"), Err(ReadError::Io(_))));
    }

    #[test]
    fn shortens_long_content() {
        assert_eq!(shorten(&"x".repeat(100)).chars().count(), 41);
        assert_eq!(shorten("short"), "short");
    }
}
