// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer built against GTK 4.18 and libadwaita 1.7 (its `gnome_48` feature, which
//! `build-aux/gtk-48-build.sh` builds in the Debian 13 root of GNOME Shell 48), run in that
//! root as the shell runs there (`gnome_shell::Shell::Root48`): on this machine's X server
//! and buses, which it reaches through this machine's /tmp.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::gnome_shell::{in_root, Shell};

/// The variable naming the GTK 4.18 build of Pacer (`build-aux/test.sh --lane shell-48` sets
/// it).
pub const PACER_VARIABLE: &str = "PACER_GTK_48";

/// The GTK 4.18 build of Pacer; a test without it fails.
pub fn pacer() -> PathBuf {
    let pacer = std::env::var_os(PACER_VARIABLE).map(PathBuf::from);
    match pacer {
        Some(pacer) if pacer.is_file() => pacer,
        _ => panic!(
            "no GTK 4.18 build of Pacer in {PACER_VARIABLE} ({pacer:?}): build-aux/test.sh \
             --lane shell-48 builds it (build-aux/gtk-48-build.sh) and runs these tests"
        ),
    }
}

/// The command line that runs `program` chrooted in the root of GNOME Shell 48 (the
/// variable `PACER_SHELL_48_ROOT` names it), with the folder two levels above it (a cargo
/// target directory: `debug/pacer`, and the settings schema `build.rs` compiled beside it)
/// read-only at its own path. `dir` holds the root's mount points; it stays in use until the
/// program ends. The arguments follow.
pub fn command_line(program: &Path, dir: &Path) -> Vec<OsString> {
    let root = Shell::Root48.root().expect("GNOME Shell 48 runs in a root");
    let target = program
        .parent()
        .and_then(Path::parent)
        .expect("the program in a cargo target directory");
    let mut line = in_root(&root, target, dir);
    line.push(program.as_os_str().to_owned());
    line
}
