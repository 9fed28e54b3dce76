// SPDX-License-Identifier: GPL-3.0-or-later
//! Reading typed values from a root, collecting problems instead of failing.

use std::io;
use std::str::FromStr;

use super::dir_cache::DirCache;
use super::kept::KeptFiles;
use super::problem::{Expected, Problem, ProblemKind};
use super::root::{ReadError, SysRoot};

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
    pub(super) cache: DirCache,
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

    /// Like [`Probe::value`], read through `kept` (see [`KeptFiles`]).
    pub fn value_kept<T: FromStr>(
        &mut self,
        kept: &mut KeptFiles,
        rel: &str,
        need: Need,
        expected: Expected,
    ) -> Option<T> {
        let result = kept.read(self.root, rel);
        self.use_outcome(rel, need, result, |probe, text| {
            probe.parse(rel, text, expected)
        })
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
        let result = self.root.read_in(&mut self.cache, rel, &mut buf);
        let outcome = self.use_outcome(rel, need, result, use_text);
        self.buf = buf;
        outcome
    }

    /// What `use_text` makes of a read's text, or the problem of a failed read.
    fn use_outcome<R>(
        &mut self,
        rel: &str,
        need: Need,
        result: Result<&str, ReadError>,
        use_text: impl FnOnce(&mut Self, &str) -> Option<R>,
    ) -> (Option<R>, bool) {
        match result {
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
        }
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
