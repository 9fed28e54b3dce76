// SPDX-License-Identifier: GPL-3.0-or-later
//! A simulated machine's files as a tree in memory, and synchronising a directory with it:
//! unchanged files are left alone, changed ones replaced atomically (so a reader never sees
//! half a value), and files that no longer exist removed (for example `hwp_dynamic_boost`
//! after a switch to passive mode).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::i18n::{fill, gettext};

/// The top-level directories a simulated machine owns under its root.
const OWNED_DIRS: [&str; 2] = ["sys", "proc"];

/// Why a machine could not be laid out or loaded.
#[derive(Debug)]
pub enum RenderError {
    /// The directory holds something that is not a simulated machine; Pacer never overwrites it.
    NotEmpty(PathBuf),
    Io {
        path: PathBuf,
        source: io::Error,
    },
    State {
        path: PathBuf,
        source: serde_json::Error,
    },
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&match self {
            RenderError::NotEmpty(dir) => fill(
                gettext(
                    "{dir} is neither empty nor a simulated machine; choose an empty directory",
                ),
                &[("dir", &dir.display())],
            ),
            RenderError::Io { path, source } => fill(
                gettext("cannot write {path}: {error}"),
                &[("path", &path.display()), ("error", source)],
            ),
            RenderError::State { path, source } => fill(
                gettext("{path} is not a valid simulated machine: {error}"),
                &[("path", &path.display()), ("error", source)],
            ),
        })
    }
}

impl std::error::Error for RenderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RenderError::NotEmpty(_) => None,
            RenderError::Io { source, .. } => Some(source),
            RenderError::State { source, .. } => Some(source),
        }
    }
}

pub(super) fn io_error(path: &Path) -> impl FnOnce(io::Error) -> RenderError + '_ {
    move |source| RenderError::Io {
        path: path.to_owned(),
        source,
    }
}

/// One thing in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Node {
    File {
        content: String,
        mode: u32,
    },
    /// A file the running simulation keeps up to date (a current frequency, a throttle or
    /// energy counter): written when missing, otherwise left to the [`super::Ticker`].
    Live {
        content: String,
        mode: u32,
    },
    Link(String),
    /// A directory that exists even when empty (`cpufreq/` without a driver, an empty
    /// `energy_model/`).
    Dir,
}

/// The tree being built: path relative to the root → node.
#[derive(Debug, Default)]
pub(super) struct Tree(pub(super) BTreeMap<String, Node>);

impl Tree {
    pub(super) fn put(&mut self, path: impl Into<String>, mode: u32, content: impl Into<String>) {
        self.0.insert(
            path.into(),
            Node::File {
                content: content.into(),
                mode,
            },
        );
    }
    pub(super) fn live(&mut self, path: impl Into<String>, mode: u32, value: impl fmt::Display) {
        self.0.insert(
            path.into(),
            Node::Live {
                content: format!("{value}\n"),
                mode,
            },
        );
    }
    /// A read-only attribute: the value and a newline.
    pub(super) fn ro(&mut self, path: impl Into<String>, value: impl fmt::Display) {
        self.put(path, 0o444, format!("{value}\n"));
    }
    /// A writable attribute.
    pub(super) fn rw(&mut self, path: impl Into<String>, value: impl fmt::Display) {
        self.put(path, 0o644, format!("{value}\n"));
    }
    pub(super) fn link(&mut self, path: impl Into<String>, target: impl Into<String>) {
        self.0.insert(path.into(), Node::Link(target.into()));
    }
    pub(super) fn dir(&mut self, path: impl Into<String>) {
        self.0.insert(path.into(), Node::Dir);
    }
}

/// The live files (see [`Node::Live`]) a ticker writes, changed in place as sysfs changes
/// an attribute: the same file, so that readers keep their descriptor and read it again from
/// the start (as they do on sysfs), rather than open it anew every time it was replaced.
/// Each is kept open for writing from when it was made, since its mode says read-only, as the
/// kernel's does.
#[derive(Debug, Default)]
pub(super) struct LiveFiles {
    open: BTreeMap<String, fs::File>,
}

/// At most this many live files are kept open (two per policy of a 256-policy machine):
/// the rest are replaced at each write, as before.
const KEPT_LIVE_FILES: usize = 512;

impl LiveFiles {
    /// Forgets the files kept: the tree may have been laid out anew.
    pub(super) fn forget(&mut self) {
        self.open.clear();
    }

    /// Writes `value` and a newline to the live file at `rel`. The value goes at the start
    /// in one write, then the file is cut to its length: a reader in between sees the new
    /// value's line followed by the old value's last bytes, one number on its first line
    /// either way.
    pub(super) fn write(
        &mut self,
        root: &Path,
        rel: &str,
        value: impl fmt::Display,
        mode: u32,
    ) -> Result<(), RenderError> {
        use std::os::unix::fs::{FileExt, MetadataExt};

        let path = root.join(rel);
        let content = format!("{value}\n");
        // Kept while it is still the file at `path`.
        let kept = self
            .open
            .get(rel)
            .filter(|file| file.metadata().is_ok_and(|meta| meta.nlink() > 0));
        if let Some(file) = kept {
            return file
                .write_all_at(content.as_bytes(), 0)
                .and_then(|()| file.set_len(content.len() as u64))
                .map_err(io_error(&path));
        }
        let file = replace_file(&path, content.as_bytes(), mode)?;
        if self.open.len() < KEPT_LIVE_FILES || self.open.contains_key(rel) {
            self.open.insert(rel.to_owned(), file);
        }
        Ok(())
    }
}

/// Makes the directory match the tree, touching only what differs. The file `written` (a
/// write a process made through the kernel's rules) is written last and in place, whatever
/// it held: the process's own write to it, after the kernel's side effects of that write are
/// in place (the real kernel makes them within the write). Every other change replaces its
/// file, a new file where the old one was: no write to the file a watcher of it marked (the
/// history's recorder finds such changes by reading again, as it finds the real kernel's).
pub(super) fn sync(root: &Path, tree: &Tree, written: Option<&str>) -> Result<(), RenderError> {
    let mut existing = BTreeMap::new();
    for top in OWNED_DIRS {
        collect(root, &root.join(top), &mut existing)?;
    }
    let mut needed_dirs: BTreeSet<String> = BTreeSet::new();
    let mut in_place = None;
    for (path, node) in &tree.0 {
        let mut parent = Path::new(path).parent();
        while let Some(dir) = parent.filter(|dir| !dir.as_os_str().is_empty()) {
            needed_dirs.insert(dir.to_string_lossy().into_owned());
            parent = dir.parent();
        }
        let full = root.join(path);
        match node {
            Node::Dir => {
                needed_dirs.insert(path.clone());
                fs::create_dir_all(&full).map_err(io_error(&full))?;
            }
            Node::Live { content, mode } => {
                if !matches!(existing.get(path), Some(Existing::File)) {
                    make_parent(&full)?;
                    write_atomically(&full, content.as_bytes(), *mode)?;
                }
            }
            Node::File { content, .. }
                if written == Some(path.as_str())
                    && matches!(existing.get(path), Some(Existing::File)) =>
            {
                in_place = Some((full, content));
            }
            Node::File { content, mode } => {
                // The same value, whatever its line's end: a writer such as the profile daemon
                // writes a value without the newline the kernel prints, and the kernel does
                // not make a file anew for a value it holds already (a watcher's marks on it
                // stay, as on a real machine).
                let unchanged = matches!(existing.get(path), Some(Existing::File))
                    && fs::read(&full).is_ok_and(|old| {
                        old.trim_ascii_end() == content.as_bytes().trim_ascii_end()
                    })
                    && fs::metadata(&full).is_ok_and(|m| m.permissions().mode() & 0o777 == *mode);
                if !unchanged {
                    make_parent(&full)?;
                    write_atomically(&full, content.as_bytes(), *mode)?;
                }
            }
            Node::Link(target) => {
                let unchanged = fs::read_link(&full).is_ok_and(|old| old == Path::new(target));
                if !unchanged {
                    make_parent(&full)?;
                    remove_any(&full)?;
                    std::os::unix::fs::symlink(target, &full).map_err(io_error(&full))?;
                }
            }
        }
    }
    // Remove what the machine no longer has, deepest first so directories empty out.
    for (path, kind) in existing.iter().rev() {
        let keep = match kind {
            Existing::Dir => needed_dirs.contains(path),
            Existing::File | Existing::Link => tree.0.contains_key(path),
        };

        if !keep {
            remove_any(&root.join(path))?;
        }
    }
    if let Some((full, content)) = in_place {
        // One write(2) from the start, as `echo >` makes.
        fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&full)
            .and_then(|mut file| io::Write::write_all(&mut file, content.as_bytes()))
            .map_err(io_error(&full))?;
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Existing {
    File,
    Link,
    Dir,
}

/// Everything under `dir`, relative to `root`, without following links.
fn collect(
    root: &Path,
    dir: &Path,
    found: &mut BTreeMap<String, Existing>,
) -> Result<(), RenderError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(io_error(dir)(error)),
    };
    for entry in entries {
        let entry = entry.map_err(io_error(dir))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(io_error(&path))?;
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        if kind.is_symlink() {
            found.insert(rel, Existing::Link);
        } else if kind.is_dir() {
            found.insert(rel, Existing::Dir);
            collect(root, &path, found)?;
        } else {
            found.insert(rel, Existing::File);
        }
    }
    Ok(())
}

fn make_parent(path: &Path) -> Result<(), RenderError> {
    match path.parent() {
        Some(parent) => fs::create_dir_all(parent).map_err(io_error(parent)),
        None => Ok(()),
    }
}

fn remove_any(path: &Path) -> Result<(), RenderError> {
    let result = match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir(path),
        Ok(_) => fs::remove_file(path),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    };
    match result {
        // A directory still holding files the caller keeps is left in place.
        Err(error) if error.kind() == io::ErrorKind::DirectoryNotEmpty => Ok(()),
        other => other.map_err(io_error(path)),
    }
}

/// Writes through a temporary file and a rename, so readers see the old or the new value.
pub(super) fn write_atomically(path: &Path, content: &[u8], mode: u32) -> Result<(), RenderError> {
    make_parent(path)?;
    replace_file(path, content, mode).map(drop)
}

/// Replaces the file at `path` at once: readers see the old content or the new, never part.
/// Returns it open for writing, whatever its mode.
fn replace_file(path: &Path, content: &[u8], mode: u32) -> Result<fs::File, RenderError> {
    use std::io::Write;

    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.pacer-tmp"));
    let mut file = fs::File::create(&temporary).map_err(io_error(&temporary))?;
    file.write_all(content).map_err(io_error(&temporary))?;
    fs::set_permissions(&temporary, fs::Permissions::from_mode(mode))
        .map_err(io_error(&temporary))?;
    fs::rename(&temporary, path).map_err(io_error(path))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::os::unix::fs::MetadataExt;

    use super::*;

    #[test]
    fn a_live_file_changes_in_place_and_stays_read_only() {
        let root = tempfile::tempdir().unwrap();
        let rel = "policy0/scaling_cur_freq";
        fs::create_dir_all(root.path().join("policy0")).unwrap();
        let path = root.path().join(rel);
        let mut files = LiveFiles::default();
        files.write(root.path(), rel, 800_000, 0o444).unwrap();
        let made = fs::metadata(&path).unwrap();
        assert_eq!(made.mode() & 0o777, 0o444);
        // Longer, then shorter: the same file, holding exactly the value and a newline.
        for khz in [1_200_000, 800_000, 4_700_000] {
            files.write(root.path(), rel, khz, 0o444).unwrap();
            assert_eq!(fs::read_to_string(&path).unwrap(), format!("{khz}\n"));
            assert_eq!(fs::metadata(&path).unwrap().ino(), made.ino());
        }
        // Replaced behind its back (a tree laid out anew): the new file is written.
        replace_file(&path, b"1\n", 0o444).unwrap();
        files.write(root.path(), rel, 2_000_000, 0o444).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "2000000\n");
    }
}
