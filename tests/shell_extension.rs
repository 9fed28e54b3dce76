// SPDX-License-Identifier: GPL-3.0-or-later
//! The GNOME Shell extension's two builds, as far as this machine (GNOME Shell 43) can check
//! them without a shell: both pass eslint with GNOME Shell's rules (ES modules for 45–50,
//! scripts for 43–44); the view logic (state.js) gives the same views for the same states
//! when gjs loads it as an ES module and as a legacy module; every ES module of the 45–50
//! build parses in gjs; the zips for extensions.gnome.org hold what the shell loads, with
//! the translations, and `gnome-extensions install` takes them. The 43 build runs in a real
//! shell in tests/gnome_shell.rs, the 45–50 build in GNOME Shell 48 (in a Debian 13 root) in
//! tests/gnome_shell_48.rs and in GNOME Shell 50 (in a Debian testing root) in
//! tests/gnome_shell_50.rs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pacer_testrig::gnome_shell::build_extension;

const UUID: &str = "pacer@pacerapp.github.io";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e} (the test command installs it)"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The extension built for `api` in `dir`.
fn build(api: &str, dir: &Path) -> PathBuf {
    build_extension(api, "io.github.pacerapp.Pacer", &dir.join(api))
}

#[test]
fn both_builds_pass_eslint_with_gnome_shells_rules() {
    let dir = tempfile::tempdir().unwrap();
    for (api, source_type) in [("esm", "module"), ("legacy", "script")] {
        let built = build(api, dir.path());
        // Debian's eslint finds its modules under /usr/share/nodejs.
        run(Command::new("eslint")
            .current_dir(&built)
            .env("NODE_PATH", "/usr/share/nodejs")
            .args(["--format", "unix", "--no-eslintrc", "--config"])
            .arg(root().join("shell-extension/.eslintrc.json"))
            .args(["--parser-options", &format!("sourceType:{source_type}")])
            .args(MODULES));
    }
}

/// The extension's JavaScript, as the build writes it for either shell.
const MODULES: [&str; 6] = [
    "extension.js",
    "gnomeToggle.js",
    "menu.js",
    "state.js",
    "ui.js",
    "widgets.js",
];

/// States of State1 (as gjs unpacks them) and what the view must show for each; the third
/// from a Pacer older than CoreTypeLabels and Limits.
const STATES: &str = r#"[
  null,
  {"Profile": "balanced", "Profiles": ["power-saver", "balanced", "performance"],
   "ProfileDaemon": "power-profiles-daemon", "Holds": [], "DegradedReason": "",
   "CoreTypes": [["performance", "balance_performance", "powersave"],
                 ["efficiency", "balance_power", "powersave"]],
   "CoreTypeLabels": [["performance", "Balanced performance", "Power saving governor"],
                      ["efficiency", "Balanced power saving", "Power saving governor"]],
   "Frequencies": [["performance", 3200000], ["efficiency", 800000]],
   "Limits": [["performance", "settings", "Performance cores: held at 2.00 GHz by the settings"],
              ["efficiency", "thermal", "Efficiency cores: held at 1.36 GHz by cooling"]],
   "Findings": [], "Measuring": false},
  {"Profile": "performance", "Profiles": ["balanced", "performance"],
   "ProfileDaemon": "power-profiles-daemon",
   "Holds": [["performance", "org.gnome.Builder", "compiling"]],
   "DegradedReason": "lap-detected",
   "CoreTypes": [["", "balance_performance", "powersave"]], "Frequencies": [],
   "Findings": [["epp-mismatch@0,1", "warning", "EPP is not what Performance sets", "something wrote it", true],
                ["no-eas@", "info", "EAS is off", "schedutil is not used", false]],
   "Measuring": true},
  {"Profile": "", "Profiles": [], "ProfileDaemon": "", "Holds": [], "DegradedReason": "",
   "CoreTypes": [["", "", "performance"]], "CoreTypeLabels": [["", "", "Performance governor"]],
   "Frequencies": [["", 0]], "Limits": [["", "none", "All cores: nothing holds them back"]],
   "Findings": [], "Measuring": false}
]"#;

/// Runs the cases of STATES through `state.js` of the `api` build and prints the views.
fn views(api: &str, built: &Path) -> serde_json::Value {
    let cases = format!(
        "const views = {STATES}.map(state => State.viewOf(state, text => text));\n\
         print(JSON.stringify(views));\n"
    );
    let (script, args): (String, Vec<&str>) = match api {
        "esm" => (
            format!("import * as State from './state.js';\n{cases}"),
            vec!["-m"],
        ),
        _ => (
            format!(
                "imports.searchPath.unshift({:?});\nconst State = imports.state;\n{cases}",
                built.display().to_string()
            ),
            vec![],
        ),
    };
    let file = built.join("views-test.js");
    std::fs::write(&file, script).unwrap();
    let output = run(Command::new("gjs").args(args).arg(&file));
    std::fs::remove_file(file).unwrap();
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_view_logic_gives_the_same_views_in_both_module_systems() {
    let dir = tempfile::tempdir().unwrap();
    let esm = views("esm", &build("esm", dir.path()));
    let legacy = views("legacy", &build("legacy", dir.path()));
    assert_eq!(esm, legacy);

    let [stopped, hybrid, warned, no_daemon] = esm.as_array().unwrap().as_slice() else {
        panic!("four views: {esm}")
    };
    assert_eq!(stopped["running"], false);
    assert_eq!(stopped["subtitle"], "Not running");

    assert_eq!(hybrid["title"], "Balanced");
    assert_eq!(
        hybrid["subtitle"],
        "EPP Balanced performance · Balanced power saving"
    );
    assert_eq!(hybrid["checked"], false);
    assert_eq!(
        hybrid["iconName"],
        "io.github.pacerapp.Pacer-balanced-symbolic"
    );
    assert_eq!(hybrid["coreTypes"][0]["label"], "Performance cores");
    assert_eq!(hybrid["coreTypes"][0]["epp"], "Balanced performance");
    assert_eq!(hybrid["coreTypes"][1]["governor"], "Power saving governor");
    assert_eq!(hybrid["coreTypes"][0]["frequency"], "3.20 GHz");
    assert_eq!(hybrid["coreTypes"][1]["frequency"], "800 MHz");
    assert_eq!(hybrid["profiles"][1]["active"], true);
    // The limit the user did not choose, in Pacer's words; not the settings' own.
    assert_eq!(
        hybrid["limits"],
        serde_json::json!([{
            "coreType": "efficiency",
            "limiter": "thermal",
            "line": "Efficiency cores: held at 1.36 GHz by cooling"
        }])
    );

    assert_eq!(warned["title"], "Performance");
    assert_eq!(
        warned["subtitle"], "EPP differs",
        "the warning in the few words a toggle has room for, not the EPP"
    );
    assert_eq!(warned["warningBrief"], "EPP differs");
    assert_eq!(hybrid["warningBrief"], "", "no warning, nothing to say");
    assert_eq!(
        warned["findings"][0]["summary"],
        "EPP is not what Performance sets"
    );
    assert_eq!(warned["checked"], true);
    assert_eq!(
        warned["iconName"],
        "io.github.pacerapp.Pacer-performance-warning-symbolic"
    );
    assert_eq!(warned["findings"][0]["fixable"], true);
    assert_eq!(warned["findings"][1]["warning"], false);
    assert_eq!(warned["coreTypes"][0]["label"], "All cores");
    assert_eq!(
        warned["coreTypes"][0]["epp"], "balance_performance",
        "an older Pacer gives the kernel's words only"
    );
    assert_eq!(
        warned["notes"],
        serde_json::json!([
            "Performance is limited: the computer is on a lap",
            "org.gnome.Builder holds Performance: compiling"
        ])
    );
    assert_eq!(warned["measuring"], true);
    assert_eq!(
        warned["limits"],
        serde_json::json!([]),
        "an older Pacer names no limit"
    );

    assert_eq!(no_daemon["limits"], serde_json::json!([]), "nothing holds");
    assert_eq!(no_daemon["title"], "Power Profile");
    assert_eq!(no_daemon["subtitle"], "No profile daemon");
    assert_eq!(no_daemon["coreTypes"][0]["frequency"], "");
    assert_eq!(
        no_daemon["coreTypes"][0]["governor"],
        "Performance governor"
    );
}

/// gjs (SpiderMonkey 102 here) parses every module of the 45–50 build: loading stops at
/// the first import only a shell resolves, never at a syntax error.
#[test]
fn every_es_module_of_the_45_build_parses() {
    let dir = tempfile::tempdir().unwrap();
    let built = build("esm", dir.path());
    for module in MODULES {
        let loader = built.join("load-test.js");
        std::fs::write(
            &loader,
            format!(
                "import('./{module}').then(() => print('loaded'), \
                 error => print(`${{error.name}}: ${{error.message}}`));\n"
            ),
        )
        .unwrap();
        let output = run(Command::new("gjs").arg("-m").arg(&loader));
        let said = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(!said.contains("SyntaxError"), "{module}: {said}");
        match module {
            // Imports the shell's own modules, which only a shell has.
            "extension.js" => assert!(said.contains("resource:///org/gnome/shell"), "{said}"),
            _ => assert!(said.contains("loaded"), "{module}: {said}"),
        }
    }
}

#[test]
#[ignore = "needs GNOME Shell 43: build-aux/test.sh --lane shell-43 runs it"]
fn the_zips_for_extensions_gnome_org_hold_what_the_shell_loads() {
    let dir = tempfile::tempdir().unwrap();
    run(Command::new("bash")
        .arg(root().join("build-aux/shell-extension-zip.sh"))
        .arg(dir.path()));
    for (versions, shells) in [
        ("gnome43-44", "[\"43\",\"44\"]"),
        ("gnome45-50", "[\"45\",\"46\",\"47\",\"48\",\"49\",\"50\"]"),
    ] {
        let zip = dir
            .path()
            .join(format!("{UUID}-{versions}.shell-extension.zip"));
        let listing = run(Command::new("unzip").arg("-Z1").arg(&zip));
        let files = String::from_utf8_lossy(&listing.stdout).into_owned();
        for file in [
            "metadata.json",
            "io.github.pacerapp.Pacer.State1.xml",
            "icons/io.github.pacerapp.Pacer-performance-warning-symbolic.svg",
            "locale/de/LC_MESSAGES/pacer.mo",
            "locale/fr/LC_MESSAGES/pacer.mo",
        ]
        .into_iter()
        .chain(MODULES)
        {
            assert!(
                files.lines().any(|line| line == file),
                "{versions}: no {file} in\n{files}"
            );
        }
        let metadata = run(Command::new("unzip")
            .arg("-p")
            .arg(&zip)
            .arg("metadata.json"));
        let metadata: serde_json::Value = serde_json::from_slice(&metadata.stdout).unwrap();
        assert_eq!(metadata["uuid"], UUID);
        assert_eq!(metadata["bus-name"], "io.github.pacerapp.Pacer");
        assert_eq!(metadata["gettext-domain"], "pacer");
        assert_eq!(metadata["shell-version"].to_string(), shells);

        // As a user installs it by hand.
        let home = tempfile::tempdir().unwrap();
        run(Command::new("gnome-extensions")
            .env("HOME", home.path())
            .env("XDG_DATA_HOME", home.path().join("data"))
            .args(["install", "--force"])
            .arg(&zip));
        let installed = home.path().join("data/gnome-shell/extensions").join(UUID);
        assert!(installed.join("extension.js").is_file(), "{versions}");
        assert!(
            installed.join("locale/de/LC_MESSAGES/pacer.mo").is_file(),
            "{versions}"
        );
    }
}
