// SPDX-License-Identifier: GPL-3.0-or-later
//! The data files are valid, checked with the tools that their consumers use: the GSettings
//! schema, the autostart entry and the tray icons that the tray and background mode install,
//! the desktop file, and the metainfo that software centres and Flathub read
//! (`appstreamcli validate --pedantic`, and what Flathub asks of it besides, its screenshots
//! included). `meson test --suite data` checks the same files as meson builds them.
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
const METAINFO: &str = "data/io.github.pacerapp.Pacer.metainfo.xml.in.in";
const DESKTOP: &str = "data/io.github.pacerapp.Pacer.desktop.in.in";
/// The application ids of the release and of the development profile.
const APP_IDS: [&str; 2] = ["io.github.pacerapp.Pacer", "io.github.pacerapp.Pacer.Devel"];
/// Where the metainfo's screenshots are published: this repository's main branch.
const SCREENSHOT_URL: &str = "https://raw.githubusercontent.com/pacerapp/pacer/main/";

/// What `appstreamcli validate --pedantic` says of the metainfo that it cannot avoid (tag and
/// hint, None for any hint); data/meson.build allows the same. The capitals of the id, which
/// reverse DNS under io.github gives every GNOME-style application id, and, from AppStream
/// before 1.0 (Debian 12 has 0.16), `<developer>`: 1.0 and Flathub want it in place of the
/// deprecated `<developer_name>`, which 1.0 reports.
const UNAVOIDABLE: [(&str, Option<&str>); 2] = [
    ("cid-contains-uppercase-letter", None),
    ("unknown-tag", Some("developer")),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `program` with `args` in the workspace root and fails the test, with its output,
/// unless it succeeds; returns what it printed.
fn check(program: &str, package: &str, args: &[&str]) -> std::process::Output {
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
    output
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

/// `template` with `@APP_ID@` and `@ICON@` filled in for `app_id`, as meson configures it, written
/// to `dir` under the name it is installed with (`suffix` after the id).
fn configured(template: &str, app_id: &str, suffix: &str, dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(root().join(template)).unwrap();
    let path = dir.join(format!("{app_id}{suffix}"));
    std::fs::write(
        &path,
        text.replace("@APP_ID@", app_id).replace("@ICON@", app_id),
    )
    .unwrap();
    path
}

/// Every issue of `appstreamcli validate --pedantic` on `metainfo` but the unavoidable ones,
/// one line each (`P: ID:LINE: TAG HINT`); a failed validation fails the test.
fn pedantic_issues(metainfo: &Path) -> Vec<String> {
    let path = metainfo.to_str().unwrap();
    let output = check(
        "appstreamcli",
        "appstream",
        &["validate", "--no-net", "--pedantic", "--explain", path],
    );
    let report = String::from_utf8_lossy(&output.stdout);
    report
        .lines()
        .filter(|line| {
            let Some(issue) = ["E: ", "W: ", "I: ", "P: "]
                .iter()
                .find_map(|severity| line.strip_prefix(severity))
            else {
                return false; // an explanation, or the verdict
            };
            // LOCATION TAG [HINT]
            let mut words = issue.splitn(3, ' ').skip(1);
            let (tag, hint) = (words.next().unwrap_or_default(), words.next());
            !UNAVOIDABLE.iter().any(|&(allowed, allowed_hint)| {
                tag == allowed && allowed_hint.is_none_or(|h| Some(h) == hint)
            })
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_metainfo_passes_the_pedantic_validator() {
    let dir = tempfile::tempdir().unwrap();
    for app_id in APP_IDS {
        let metainfo = configured(METAINFO, app_id, ".metainfo.xml", dir.path());
        let issues = pedantic_issues(&metainfo);
        assert!(
            issues.is_empty(),
            "appstreamcli validate --pedantic on the metainfo of {app_id}:\n{}",
            issues.join("\n")
        );
    }
}

#[test]
fn the_pedantic_validation_fails_on_any_hint() {
    // A name that ends in a dot is a pedantic hint, a summary that ends in one an info: each
    // fails the check, and only its own issue is reported.
    let dir = tempfile::tempdir().unwrap();
    let metainfo = configured(METAINFO, APP_IDS[0], ".metainfo.xml", dir.path());
    let good = std::fs::read_to_string(&metainfo).unwrap();
    for (from, to, tag) in [
        (
            "<name>Pacer</name>",
            "<name>Pacer.</name>",
            "name-has-dot-suffix",
        ),
        (
            "power state</summary>",
            "power state.</summary>",
            "summary-has-dot-suffix",
        ),
    ] {
        assert!(good.contains(from), "{METAINFO} lacks {from}");
        std::fs::write(&metainfo, good.replacen(from, to, 1)).unwrap();
        let issues = pedantic_issues(&metainfo);
        assert!(
            issues.len() == 1 && issues[0].contains(tag),
            "{to}: expected {tag} alone, got {issues:?}"
        );
    }
}

/// The value of the XPath `expression` (a string or a number) in `file`.
fn xpath(file: &Path, expression: &str) -> String {
    let output = Command::new("xmllint")
        .args(["--xpath", expression, file.to_str().unwrap()])
        .output()
        .expect("xmllint is missing: install the Debian package libxml2-utils");
    assert!(
        output.status.success(),
        "xmllint --xpath {expression}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

fn is_colour(text: &str) -> bool {
    text.len() == 7 && text.starts_with('#') && text[1..].chars().all(|c| c.is_ascii_hexdigit())
}

#[test]
fn the_metainfo_has_what_flathub_asks_for() {
    let dir = tempfile::tempdir().unwrap();
    let app_id = APP_IDS[0];
    let file = configured(METAINFO, app_id, ".metainfo.xml", dir.path());
    let value = |expression: &str| xpath(&file, expression);
    let count =
        |expression: &str| -> usize { value(&format!("count({expression})")).parse().unwrap() };

    assert_eq!(value("string(/component/@type)"), "desktop-application");
    assert_eq!(value("string(/component/id)"), app_id);
    assert_eq!(
        value("string(/component/launchable[@type='desktop-id'])"),
        format!("{app_id}.desktop")
    );
    for binary in ["pacer", "pacerctl"] {
        assert_eq!(
            count(&format!("/component/provides/binary[.='{binary}']")),
            1,
            "{binary}"
        );
    }
    // The developer by id and name; the toplevel <developer_name> is deprecated.
    assert!(
        !value("string(/component/developer/@id)").is_empty(),
        "<developer id>"
    );
    assert!(
        !value("string(/component/developer/name)").is_empty(),
        "<developer><name>"
    );
    assert_eq!(
        count("/component/developer_name"),
        0,
        "<developer_name> is deprecated"
    );
    assert_eq!(value("string(/component/content_rating/@type)"), "oars-1.1");
    for kind in ["homepage", "bugtracker", "vcs-browser"] {
        let url = value(&format!("string(/component/url[@type='{kind}'])"));
        assert!(
            url.starts_with("https://"),
            "<url type=\"{kind}\">: {url:?}"
        );
    }
    // The gettext domain of the translations, as meson's project name and po/ have it.
    assert_eq!(
        value("string(/component/translation[@type='gettext'])"),
        "pacer"
    );
    assert_eq!(count("/component/requires/display_length"), 1);
    assert!(
        count("/component/supports/control") >= 2,
        "<supports><control>"
    );

    // A primary colour for the light and for the dark scheme.
    let light =
        value("string(/component/branding/color[@type='primary'][@scheme_preference='light'])");
    let dark =
        value("string(/component/branding/color[@type='primary'][@scheme_preference='dark'])");
    assert!(
        is_colour(&light) && is_colour(&dark),
        "branding colours {light:?}, {dark:?}"
    );
    assert_ne!(light, dark);

    // The newest release first: this version, dated, with notes.
    assert_eq!(
        value("string(/component/releases/release[1]/@version)"),
        env!("CARGO_PKG_VERSION"),
        "the newest release of the metainfo is not Cargo.toml's version"
    );
    let date = value("string(/component/releases/release[1]/@date)");
    assert!(
        date.len() == 10 && date.split('-').map(str::len).eq([4, 2, 2]),
        "release date {date:?}"
    );
    assert!(
        count("/component/releases/release[1]/description/*") >= 1,
        "release notes"
    );
}

/// Width and height of the PNG at `path`, from its header.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert!(
        bytes.len() > 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR",
        "{} is not a PNG",
        path.display()
    );
    let number = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (number(16), number(20))
}

#[test]
fn the_screenshots_of_the_metainfo_are_in_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let file = configured(METAINFO, APP_IDS[0], ".metainfo.xml", dir.path());
    let screenshots: usize = xpath(&file, "count(/component/screenshots/screenshot)")
        .parse()
        .unwrap();
    assert!(screenshots >= 3, "{screenshots} screenshots");
    assert_eq!(
        xpath(
            &file,
            "count(/component/screenshots/screenshot[@type='default'])"
        ),
        "1",
        "one default screenshot"
    );
    for n in 1..=screenshots {
        let screenshot = format!("/component/screenshots/screenshot[{n}]");
        let url = xpath(&file, &format!("string({screenshot}/image)"));
        let caption = xpath(&file, &format!("string({screenshot}/caption)"));
        assert!(!caption.is_empty(), "{url}: no caption");
        // The published file is this repository's, under docs/screenshots.
        let path = url
            .strip_prefix(SCREENSHOT_URL)
            .unwrap_or_else(|| panic!("{url} is not under {SCREENSHOT_URL}"));
        assert!(path.starts_with("docs/screenshots/"), "{url}");
        let png = root().join(path);
        assert!(png.is_file(), "{url}: {path} is not in the repository");
        // AppStream asks for 620 pixels wide at least; small files for the store to fetch.
        let (width, height) = png_size(&png);
        assert!(width >= 620 && height >= 350, "{path}: {width}×{height}");
        let size = std::fs::metadata(&png).unwrap().len();
        assert!(
            size < 200_000,
            "{path}: {size} bytes, optimise it (optipng)"
        );
    }
}

#[test]
fn the_desktop_file_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    for app_id in APP_IDS {
        let desktop = configured(DESKTOP, app_id, ".desktop", dir.path());
        let desktop = desktop.to_str().unwrap();
        // Not even a hint (such as two main categories, which newer versions point out).
        let output = check("desktop-file-validate", "desktop-file-utils", &[desktop]);
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(said.trim().is_empty(), "desktop-file-validate:\n{said}");
        let entry = std::fs::read_to_string(desktop).unwrap();
        assert!(
            entry.lines().any(|l| l == format!("Icon={app_id}")),
            "{DESKTOP}: the icon is not named after {app_id}"
        );
    }
}
