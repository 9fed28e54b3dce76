// SPDX-License-Identifier: GPL-3.0-or-later
//! The application's GSettings: whether closing the window keeps Pacer in the tray, and
//! whether it notifies about new warnings.
//!
//! The schema `io.github.pacerapp.Pacer` (`data/io.github.pacerapp.Pacer.gschema.xml`) is
//! looked up where it is installed, and otherwise in the build tree, where `build.rs` compiles
//! it. `gio::Settings::new` aborts the process when its schema is missing, so it is never
//! called: a missing schema is an error that the caller shows instead.

use pacer_core::i18n::{fill, gettext};
use relm4::gtk::gio;

/// The schema id, which is also the application id.
pub const SCHEMA_ID: &str = "io.github.pacerapp.Pacer";

/// Closing the window keeps Pacer running in the tray (boolean, default false).
pub const RUN_IN_BACKGROUND: &str = "run-in-background";

/// Notify about new warnings while the window is closed (boolean, default true).
pub const NOTIFY_FINDINGS: &str = "notify-findings";
/// The frequency plot's samples per second (1–20).
pub const REFRESH_HZ: &str = "refresh-hz";
/// The page shown last: `overview`, `cpus` or `measure`.
pub const LAST_PAGE: &str = "last-page";

/// Every key Pacer reads: a schema without one of them (an older installed Pacer) is skipped,
/// since reading a key the schema lacks aborts the process too.
const KEYS: [&str; 4] = [RUN_IN_BACKGROUND, NOTIFY_FINDINGS, REFRESH_HZ, LAST_PAGE];

/// Why the application's settings cannot be had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// No schema with Pacer's id is installed or in the build tree.
    #[error("{}", fill(
        // Translators: {schema} is a GSettings schema id such as io.github.pacerapp.Pacer;
        // glib-compile-schemas is a program, libglib2.0-bin the Debian package that has it.
        gettext(
            "The settings schema “{schema}” is not installed, so settings cannot be changed \
             or kept. Install Pacer, or build it with glib-compile-schemas available (Debian \
             package libglib2.0-bin).",
        ),
        &[("schema", &SCHEMA_ID)],
    ))]
    Missing,
    /// The schema found is an older Pacer's, without some of the keys this one reads.
    #[error("{}", fill(
        // Translators: {schema} is a GSettings schema id such as io.github.pacerapp.Pacer.
        gettext(
            "The installed settings schema “{schema}” is from an older Pacer and lacks some \
             settings. Install this version of Pacer to use them.",
        ),
        &[("schema", &SCHEMA_ID)],
    ))]
    Outdated,
}

/// The application's settings, or why they are not available.
pub fn open() -> Result<gio::Settings, SettingsError> {
    open_with_backend(None)
}

/// The application's settings stored in `backend` (`None`: the default one, dconf on GNOME).
pub fn open_with_backend(
    backend: Option<&gio::SettingsBackend>,
) -> Result<gio::Settings, SettingsError> {
    let schema = find_schema()?;
    Ok(gio::Settings::new_full(&schema, backend, None))
}

/// The schema as installed, else as compiled into the build tree by `build.rs`.
fn find_schema() -> Result<gio::SettingsSchema, SettingsError> {
    let installed = gio::SettingsSchemaSource::default();
    let build_tree = option_env!("PACER_DEV_SCHEMA_DIR").and_then(|dir| {
        gio::SettingsSchemaSource::from_directory(dir, installed.as_ref(), false).ok()
    });
    let mut problem = SettingsError::Missing;
    for source in installed.iter().chain(build_tree.iter()) {
        if let Some(schema) = source.lookup(SCHEMA_ID, true) {
            if KEYS.iter().all(|key| schema.has_key(key)) {
                return Ok(schema);
            }
            problem = SettingsError::Outdated;
        }
    }
    Err(problem)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use relm4::gtk::prelude::*;

    #[test]
    fn the_build_tree_schema_is_found() {
        assert!(
            option_env!("PACER_DEV_SCHEMA_DIR").is_some(),
            "build.rs did not compile the schema: is glib-compile-schemas (libglib2.0-bin) \
             installed?"
        );
        let settings = open_with_backend(Some(&gio::memory_settings_backend_new())).unwrap();
        assert_eq!(settings.schema_id().as_deref(), Some(SCHEMA_ID));
        // `open` itself only reads the default backend here, it never writes.
        assert!(open().is_ok());
    }

    #[test]
    fn defaults_are_as_documented() {
        let settings = open_with_backend(Some(&gio::memory_settings_backend_new())).unwrap();
        assert!(!settings.boolean(RUN_IN_BACKGROUND));
        assert!(settings.boolean(NOTIFY_FINDINGS));
        // Writes stay in the memory backend, and are read back.
        settings.set_boolean(RUN_IN_BACKGROUND, true).unwrap();
        assert!(settings.boolean(RUN_IN_BACKGROUND));
    }
}
