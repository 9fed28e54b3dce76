//! The data files that the tray and background mode install are valid: the GSettings schema,
//! the autostart entry and the tray icons, checked with the tools that their consumers use.
//!
//! A missing tool fails the test with the Debian package that has it (`build-aux/test.sh`
//! installs them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

const SCHEMA: &str = "data/io.github.pacerapp.Pacer.gschema.xml";
const AUTOSTART: &str = "data/io.github.pacerapp.Pacer.Autostart.desktop";
const ICON_DIR: &str = "data/icons/hicolor/symbolic/apps";
const PROFILES: [&str; 3] = ["power-saver", "balanced", "performance"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `program` with `args` in the workspace root and fails the test, with its output,
/// unless it succeeds.
fn check(program: &str, package: &str, args: &[&str]) {
    let output = match Command::new(program)
        .args(args)
        .current_dir(root())
        .output()
    {
        Ok(output) => output,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            panic!("{program} is missing: install the Debian package {package}")
        }
        Err(error) => panic!("cannot run {program}: {error}"),
    };
    assert!(
        output.status.success(),
        "{program} {} failed ({}):\n{}{}",
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
}

fn icons() -> Vec<String> {
    PROFILES
        .iter()
        .flat_map(|profile| {
            [
                format!("{ICON_DIR}/io.github.pacerapp.Pacer-{profile}-symbolic.svg"),
                format!("{ICON_DIR}/io.github.pacerapp.Pacer-{profile}-warning-symbolic.svg"),
            ]
        })
        .collect()
}

#[test]
fn the_schema_compiles_strictly() {
    check(
        "glib-compile-schemas",
        "libglib2.0-bin",
        &["--strict", "--dry-run", "data/"],
    );
    // build.rs compiles every schema in data/: this one must be the only one.
    let schemas: Vec<_> = std::fs::read_dir(root().join("data"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".gschema.xml"))
        .collect();
    assert_eq!(
        schemas,
        [Path::new(SCHEMA).file_name().unwrap().to_string_lossy()]
    );
}

#[test]
fn the_autostart_entry_is_valid() {
    check("desktop-file-validate", "desktop-file-utils", &[AUTOSTART]);
    let entry = std::fs::read_to_string(root().join(AUTOSTART)).unwrap();
    for line in [
        "Exec=pacer --background --autostart",
        "NoDisplay=true",
        "X-GNOME-Autostart-enabled=true",
    ] {
        assert!(entry.lines().any(|l| l == line), "{AUTOSTART} lacks {line}");
    }
}

#[test]
fn the_tray_icons_exist_and_are_well_formed() {
    let icons = icons();
    assert_eq!(icons.len(), 6);
    for icon in &icons {
        assert!(root().join(icon).is_file(), "{icon} is missing");
        let svg = std::fs::read_to_string(root().join(icon)).unwrap();
        assert!(svg.contains(r#"viewBox="0 0 16 16""#), "{icon}: not 16×16");
        check("xmllint", "libxml2-utils", &["--noout", icon]);
    }
}
