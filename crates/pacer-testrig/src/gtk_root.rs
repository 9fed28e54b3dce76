// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer built against a newer GNOME's GTK and libadwaita, in the root of that GNOME's shell
//! (`build-aux/gtk-build.sh 48|50`): its `gnome_48` feature against Debian 13's GTK 4.18 and
//! libadwaita 1.7, its `gnome_50` feature against Debian testing's GTK 4.24 and libadwaita
//! 1.10. Either runs in its root as the shell runs there (`gnome_shell::Shell::Root48`,
//! `Root50`): on this machine's X server and buses, which it reaches through this machine's
//! /tmp (GNOME 50 has no X11 session, but its GTK still has the X11 backend, and the test's
//! X server is the one Pacer's checks drive).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::gnome_shell::{in_root, Shell};

/// The variable naming the build of Pacer against the GTK of `shell`'s root
/// (`build-aux/test.sh --lane shell-VERSION` sets it).
pub fn pacer_variable(shell: Shell) -> &'static str {
    match shell {
        Shell::Host43 => panic!("GNOME 43's GTK is this machine's: plain cargo builds Pacer"),
        Shell::Root48 => "PACER_GTK_48",
        Shell::Root50 => "PACER_GTK_50",
    }
}

/// The build of Pacer against the GTK of `shell`'s root; a test without it fails.
pub fn pacer(shell: Shell) -> PathBuf {
    let variable = pacer_variable(shell);
    let pacer = std::env::var_os(variable).map(PathBuf::from);
    let version = shell.version();
    match pacer {
        Some(pacer) if pacer.is_file() => pacer,
        _ => panic!(
            "no build of Pacer with the gnome_{version} feature in {variable} ({pacer:?}): \
             build-aux/test.sh --lane shell-{version} builds it (build-aux/gtk-build.sh \
             {version}) and runs these tests"
        ),
    }
}

/// The command line that runs `program` chrooted in the root of `shell` (the variable
/// `PACER_SHELL_VERSION_ROOT` names it), with the folder two levels above it (a cargo target
/// directory: `debug/pacer`, and the settings schema `build.rs` compiled beside it) read-only
/// at its own path. `dir` holds the root's mount points; it stays in use until the program
/// ends. The arguments follow.
pub fn command_line(shell: Shell, program: &Path, dir: &Path) -> Vec<OsString> {
    let root = shell.root().expect("the shell runs in a root");
    let target = program
        .parent()
        .and_then(Path::parent)
        .expect("the program in a cargo target directory");
    let mut line = in_root(&root, target, dir);
    line.push(program.as_os_str().to_owned());
    line
}
