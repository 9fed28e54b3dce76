// SPDX-License-Identifier: GPL-3.0-or-later
//! The reference trees: the `/sys` files of the seven kinds of machine Pacer is checked
//! against (Intel hybrid in each driver mode, AMD, Arm big.LITTLE, a VM without cpufreq),
//! kept in the repository as one listing each, `tests/reference-trees/NAME.jsonl`, and laid
//! out as real files for a test. A listing, not the files themselves: git keeps neither a
//! file's mode (sysfs has read-only and write-only files) nor an empty directory (a VM's
//! `cpufreq/` is one), and both change what Pacer reads. `tests/reference-trees/README.md`
//! says what each tree stands for and how the listings are made.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The reference trees, by name.
pub const TREES: [&str; 7] = [
    "intel-hybrid-active",
    "intel-hybrid-active-eas",
    "intel-hybrid-passive-schedutil",
    "intel-hybrid-passive-eas",
    "amd-zen4-epp",
    "arm-biglittle-eas",
    "vm-no-cpufreq",
];

/// One directory, file or symbolic link of a tree, its path relative to the tree's root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Entry {
    /// `mode` in octal, as `ls -l` would count it (`755`).
    Dir {
        path: String,
        mode: String,
    },
    File {
        path: String,
        mode: String,
        content: String,
    },
    Link {
        path: String,
        target: String,
    },
}

impl Entry {
    pub fn path(&self) -> &str {
        match self {
            Entry::Dir { path, .. } | Entry::File { path, .. } | Entry::Link { path, .. } => path,
        }
    }
}

/// Where the listing of tree `name` is kept.
pub fn listing_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/reference-trees")
        .join(format!("{name}.jsonl"))
}

/// Every entry under `root`, sorted by path; the simulated machine's own state
/// (`.pacer-sim`) is left out, as a real machine has none.
pub fn describe(root: &Path) -> Vec<Entry> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).expect("a readable directory") {
            let full = entry.expect("a directory entry").path();
            let path = full
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .into_owned();
            if path.starts_with(".pacer-sim") {
                continue;
            }
            let meta = fs::symlink_metadata(&full).expect("an entry's metadata");
            let mode = format!("{:o}", meta.permissions().mode() & 0o777);
            found.push(if meta.is_symlink() {
                let target = fs::read_link(&full).expect("a link's target");
                Entry::Link {
                    path,
                    target: target.to_string_lossy().into_owned(),
                }
            } else if meta.is_dir() {
                pending.push(full);
                Entry::Dir { path, mode }
            } else {
                let content = fs::read_to_string(&full)
                    .unwrap_or_else(|e| panic!("{} is not text: {e}", full.display()));
                Entry::File {
                    path,
                    mode,
                    content,
                }
            });
        }
    }
    found.sort_by(|a, b| a.path().cmp(b.path()));
    found
}

/// The listing of tree `name`; a missing or damaged listing fails the test that needs it.
pub fn listing(name: &str) -> Vec<Entry> {
    let path = listing_path(name);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "the reference tree {name} is not listed in {}: {e}",
            path.display()
        )
    });
    text.lines()
        .enumerate()
        .map(|(number, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: not an entry: {e}", path.display(), number + 1))
        })
        .collect()
}

/// Writes `entries` as the listing of tree `name`, one JSON object per line.
pub fn write_listing(name: &str, entries: &[Entry]) {
    let mut text = String::new();
    for entry in entries {
        text.push_str(&serde_json::to_string(entry).expect("an entry as JSON"));
        text.push('\n');
    }
    fs::write(listing_path(name), text).expect("the listing is written");
}

/// Tree `name` laid out as files in a temporary directory, modes included.
pub fn lay_out(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let entries = listing(name);
    for entry in &entries {
        let path = dir.path().join(entry.path());
        match entry {
            Entry::Dir { .. } => fs::create_dir_all(&path),
            Entry::File { content, .. } => fs::write(&path, content),
            Entry::Link { target, .. } => std::os::unix::fs::symlink(target, &path),
        }
        .unwrap_or_else(|e| panic!("cannot lay out {}: {e}", path.display()));
    }
    // Modes last: a read-only directory could not be filled.
    for entry in entries.iter().rev() {
        if let Entry::Dir { path, mode } | Entry::File { path, mode, .. } = entry {
            let mode = u32::from_str_radix(mode, 8)
                .unwrap_or_else(|e| panic!("{name}: {path}: mode {mode}: {e}"));
            fs::set_permissions(dir.path().join(path), fs::Permissions::from_mode(mode))
                .unwrap_or_else(|e| panic!("{name}: {path}: {e}"));
        }
    }
    dir
}
