// SPDX-License-Identifier: GPL-3.0-or-later
//! The Flatpak manifests (`flatpak/`) are valid and stay in step with the workspace: they
//! validate against flatpak-builder's JSON schema (Flathub's, kept in `flatpak/schema/` with
//! its origin and licence), flatpak-builder itself reads them without a warning, they ask for exactly the sandbox permissions Pacer needs, and
//! `flatpak/cargo-sources.json` lists exactly the crates of `Cargo.lock` (regenerate it with
//! `flatpak/update-cargo-sources.sh`).
//!
//! A missing tool fails the test with the Debian package that has it (`build-aux/test.sh`
//! installs them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const RELEASE: &str = "flatpak/io.github.pacerapp.Pacer.json";
const DEVEL: &str = "flatpak/io.github.pacerapp.Pacer.Devel.json";
const CARGO_SOURCES: &str = "flatpak/cargo-sources.json";
const SCHEMA: &str = "flatpak/schema/flatpak-manifest.schema.json";

/// The whole sandbox: a window (Wayland or X11, GL), the helper and the profile daemon (under
/// both names), UPower's OnBattery and polkit (asked about the callers of State1, whose
/// requests the window carries out) on the system bus, the tray and notifications on the
/// session bus. The machine is read from /sys/devices and /proc, which every Flatpak sees.
const FINISH_ARGS: [&str; 11] = [
    "--share=ipc",
    "--socket=fallback-x11",
    "--socket=wayland",
    "--device=dri",
    "--system-talk-name=io.github.pacerapp.Pacer.Helper1",
    "--system-talk-name=org.freedesktop.UPower.PowerProfiles",
    "--system-talk-name=net.hadess.PowerProfiles",
    "--system-talk-name=org.freedesktop.UPower",
    "--system-talk-name=org.freedesktop.PolicyKit1",
    "--talk-name=org.kde.StatusNotifierWatcher",
    "--talk-name=org.freedesktop.Notifications",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// Runs `program` with `args` in `dir`; a missing program fails the test naming `package`.
fn run(program: &str, package: &str, args: &[&str], dir: &Path) -> std::process::Output {
    match Command::new(program).args(args).current_dir(dir).output() {
        Ok(output) => output,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            panic!("{program} is missing: install the Debian package {package}")
        }
        Err(error) => panic!("cannot run {program}: {error}"),
    }
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|v| v.as_str().unwrap_or_else(|| panic!("not a string: {v}")))
        .collect()
}

/// The one module, `pacer`, of a manifest.
fn pacer_module(manifest: &Value) -> &Value {
    let modules = manifest["modules"].as_array().expect("modules");
    assert_eq!(modules.len(), 1, "one module, pacer: {modules:?}");
    assert_eq!(modules[0]["name"], "pacer");
    &modules[0]
}

const VALIDATE: &str = r##"
import json, sys
try:
    import jsonschema
except ImportError:
    sys.exit("MISSING")
schema = json.load(open(sys.argv[1]))
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
failed = False
# A manifest against the whole schema; each entry of a sources file against its `source`.
source = dict(schema, **{"$ref": "#/$defs/source"})
for key in ("properties", "patternProperties", "allOf", "additionalProperties", "required"):
    source.pop(key, None)
for path in sys.argv[2:]:
    document = json.load(open(path))
    if isinstance(document, list):
        checks = [(cls(source), entry, "%s[%d]" % (path, i)) for i, entry in enumerate(document)]
    else:
        checks = [(cls(schema), document, path)]
    for validator, instance, name in checks:
        for error in validator.iter_errors(instance):
            failed = True
            print("%s: %s: %s" % (name, "/".join(map(str, error.absolute_path)), error.message))
sys.exit(1 if failed else 0)
"##;

#[test]
fn manifests_validate_against_the_schema() {
    let schema = root().join(SCHEMA);
    assert!(
        schema.is_file(),
        "flatpak-builder's manifest schema is not at {}: the manifests cannot be checked",
        schema.display()
    );
    let schema = schema.to_str().unwrap();
    let documents = [RELEASE, DEVEL, CARGO_SOURCES];
    let mut args = vec!["-c", VALIDATE, schema];
    args.extend(documents);
    // Debian's python3, where python3-jsonschema is installed (not a pyenv or venv one).
    let python = if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    };
    let output = run(python, "python3-jsonschema", &args, &root());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.trim() == "MISSING" {
        panic!("Python's jsonschema is missing: install the Debian package python3-jsonschema");
    }
    assert!(
        output.status.success(),
        "{documents:?} do not match {schema}:\n{stdout}{stderr}"
    );
}

/// `flatpak-builder --show-manifest` loads a manifest as a build would (the sources file
/// included) and prints it back: it must load without a warning (an unknown property or
/// source type is only a warning to it) and keep every source.
fn show_manifest(manifest: &str) -> Value {
    let state = tempfile::tempdir().unwrap(); // it creates .flatpak-builder/ in its directory
    let path = root().join(manifest);
    let output = run(
        "flatpak-builder",
        "flatpak-builder",
        &["--show-manifest", path.to_str().unwrap()],
        state.path(),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "flatpak-builder rejects {manifest}:\n{stderr}"
    );
    assert!(
        !stderr.contains("WARNING") && !stderr.contains("CRITICAL"),
        "flatpak-builder warns about {manifest}:\n{stderr}"
    );
    serde_json::from_slice(&output.stdout).expect("flatpak-builder prints JSON")
}

#[test]
#[ignore = "needs flatpak-builder: build-aux/test.sh --lane flatpak runs it"]
fn flatpak_builder_reads_the_manifests() {
    let cargo_sources = read_json(&root().join(CARGO_SOURCES));
    let cargo_sources = cargo_sources
        .as_array()
        .expect("cargo-sources.json is a list");
    for (manifest, id, sources) in [
        (RELEASE, "io.github.pacerapp.Pacer", 1 + cargo_sources.len()),
        (DEVEL, "io.github.pacerapp.Pacer.Devel", 1),
    ] {
        let shown = show_manifest(manifest);
        assert_eq!(shown["id"], id, "{manifest}");
        assert_eq!(shown["command"], "pacer", "{manifest}");
        assert_eq!(strings(&shown["finish-args"]), FINISH_ARGS, "{manifest}");
        let module = pacer_module(&shown);
        assert_eq!(module["buildsystem"], "meson", "{manifest}");
        let loaded = module["sources"].as_array().expect("sources").len();
        assert_eq!(
            loaded, sources,
            "{manifest}: sources as flatpak-builder loads them"
        );
    }
}

#[test]
fn manifests_ask_for_exactly_what_pacer_needs() {
    for (manifest, profile) in [(RELEASE, "default"), (DEVEL, "development")] {
        let json = read_json(&root().join(manifest));
        assert_eq!(strings(&json["finish-args"]), FINISH_ARGS, "{manifest}");
        assert_eq!(json["runtime"], "org.gnome.Platform", "{manifest}");
        assert_eq!(json["sdk"], "org.gnome.Sdk", "{manifest}");
        assert_eq!(
            json["runtime-version"],
            read_json(&root().join(RELEASE))["runtime-version"]
        );
        // GNOME 48's runtime and newer have GTK 4.18 and libadwaita 1.7 or newer, where meson
        // builds the window with today's GNOME widgets (gnome_48, or gnome_50 from GNOME 50's
        // runtime on): the kind of build build-aux/flatpak-test.sh tests.
        let gnome: u32 = json["runtime-version"]
            .as_str()
            .and_then(|version| version.parse().ok())
            .unwrap_or_else(|| panic!("{manifest}: runtime-version is not GNOME's number"));
        assert!(
            gnome >= 48,
            "{manifest}: GNOME {gnome}'s runtime has no gnome_48 build"
        );
        assert_eq!(
            strings(&json["sdk-extensions"]),
            ["org.freedesktop.Sdk.Extension.rust-stable"],
            "{manifest}"
        );
        let module = pacer_module(&json);
        // The helper runs on the host, never in the sandbox; the shell loads its extension
        // from the host too.
        assert_eq!(
            strings(&module["config-opts"]),
            [
                "-Dhelper=false",
                "-Dshell-extension=false",
                format!("-Dprofile={profile}").as_str()
            ],
            "{manifest}"
        );
        let options = &module["build-options"];
        assert_eq!(
            options["append-path"], "/usr/lib/sdk/rust-stable/bin",
            "{manifest}"
        );
        assert_eq!(
            options["env"]["CARGO_HOME"], "/run/build/pacer/cargo",
            "{manifest}"
        );
        let sources = module["sources"].as_array().expect("sources");
        assert_eq!(sources[0]["type"], "dir", "{manifest}");
        assert_eq!(sources[0]["path"], "..", "{manifest}");
        let skipped = strings(&sources[0]["skip"]);
        assert!(
            skipped.contains(&"target"),
            "{manifest}: cargo's target/ is not copied"
        );
        if manifest == RELEASE {
            // Offline, from the crates listed in cargo-sources.json.
            assert_eq!(options["env"]["CARGO_NET_OFFLINE"], "true");
            assert!(
                options.get("build-args").is_none(),
                "no network while building"
            );
            assert_eq!(sources.len(), 2);
            assert_eq!(sources[1], "cargo-sources.json");
        } else {
            assert_eq!(strings(&options["build-args"]), ["--share=network"]);
        }
    }
}

/// A package of Cargo.lock that comes from elsewhere than the workspace.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Locked {
    name: String,
    version: String,
    source: String,
    checksum: Option<String>,
}

/// The packages of a Cargo.lock (version 3 or 4) that have a `source`.
fn locked_packages(lock: &str) -> Vec<Locked> {
    let mut packages = Vec::new();
    for block in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            block.lines().find_map(|line| {
                let value = line.strip_prefix(key)?.trim_start().strip_prefix('=')?;
                Some(value.trim().trim_matches('"').to_owned())
            })
        };
        if let Some(source) = field("source") {
            packages.push(Locked {
                name: field("name").expect("name"),
                version: field("version").expect("version"),
                source,
                checksum: field("checksum"),
            });
        }
    }
    packages
}

#[test]
fn cargo_sources_list_every_crate_of_the_lock_file() {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    let locked = locked_packages(&lock);
    assert!(
        locked.len() > 50,
        "Cargo.lock read wrongly: {} packages",
        locked.len()
    );
    let sources = read_json(&root().join(CARGO_SOURCES));
    let sources = sources.as_array().expect("cargo-sources.json is a list");
    let text = |source: &Value, key: &str| source[key].as_str().unwrap_or_default().to_owned();

    let mut stale = Vec::new();
    let mut listed = BTreeSet::new();
    for package in &locked {
        let (name, version) = (&package.name, &package.version);
        let found = if package.source.starts_with("registry+") {
            let dest = format!("cargo/vendor/{name}-{version}");
            let url_end = format!("/{name}-{version}.crate");
            sources.iter().any(|s| {
                text(s, "dest") == dest
                    && text(s, "url").ends_with(&url_end)
                    && package
                        .checksum
                        .as_deref()
                        .is_none_or(|sum| text(s, "sha256") == sum)
            })
        } else {
            // git+URL?…#COMMIT: a git source at that commit.
            let commit = package.source.rsplit('#').next().unwrap_or_default();
            sources
                .iter()
                .any(|s| text(s, "type") == "git" && text(s, "commit") == commit)
        };
        if found {
            listed.insert(format!("cargo/vendor/{name}-{version}"));
        } else {
            stale.push(format!("{name} {version} ({})", package.source));
        }
    }
    // And nothing that the lock file no longer has.
    let extra: Vec<String> = sources
        .iter()
        .filter(|s| text(s, "type") == "archive")
        .map(|s| text(s, "dest"))
        .filter(|dest| !listed.contains(dest))
        .collect();
    assert!(
        stale.is_empty() && extra.is_empty(),
        "{CARGO_SOURCES} is out of date with Cargo.lock: run flatpak/update-cargo-sources.sh\n\
         missing: {stale:?}\nno longer locked: {extra:?}"
    );
    // The vendored crates replace crates.io for cargo, offline.
    assert!(
        sources.iter().any(|s| text(s, "dest") == "cargo"
            && text(s, "contents").contains("replace-with = \"vendored-sources\"")),
        "{CARGO_SOURCES} has no cargo configuration for the vendored crates"
    );
}
