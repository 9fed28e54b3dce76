// SPDX-License-Identifier: GPL-3.0-or-later
//! Build constants, set by meson through the environment (`option_env!`), with defaults for
//! a plain `cargo build`.

/// `io.github.pacerapp.Pacer`, or `…Pacer.Devel` for development builds.
pub const APP_ID: &str = match option_env!("PACER_APP_ID") {
    Some(id) => id,
    None => "io.github.pacerapp.Pacer.Devel",
};

/// Where `pacer-helper` is installed (the demo on a simulated machine runs its own).
pub const LIBEXECDIR: &str = match option_env!("PACER_LIBEXECDIR") {
    Some(dir) => dir,
    None => "/usr/libexec",
};
