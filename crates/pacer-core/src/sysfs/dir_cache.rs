// SPDX-License-Identifier: GPL-3.0-or-later
//! The directories a probe keeps open, so that opening thousands of attributes does not
//! resolve every path from `/`.

use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

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
    /// Whether the directory above the last file's is open (the unit tests look).
    #[cfg(test)]
    pub(super) fn grandparent_is_open(&self) -> bool {
        opened(&self.grandparent).is_some()
    }

    /// Opens `rel` under `root` from the nearest open directory; `None` when the caller
    /// should open the full path (the root cannot be opened, so the error is reported for
    /// the file exactly).
    pub(super) fn open(&mut self, root: &Path, rel: &str) -> Option<io::Result<File>> {
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
