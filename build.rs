// SPDX-License-Identifier: GPL-3.0-or-later
//! Compiles the GSettings schema into `$OUT_DIR/schemas`, so that a development build finds
//! its settings without installing them (see `src/app/settings.rs`), and the GResource bundle
//! (`resources/`) into `$OUT_DIR/pacer.gresource`, which `src/main.rs` embeds in the binary.

use std::path::{Path, PathBuf};
use std::process::Command;

const SCHEMA: &str = "data/io.github.pacerapp.Pacer.gschema.xml";
const RESOURCES_DIR: &str = "resources";
const RESOURCES: &str = "resources/resources.gresource.xml";

fn main() {
    let Some(out_dir) = std::env::var_os("OUT_DIR") else {
        println!("cargo:warning=OUT_DIR is not set; the GSettings schema is not compiled");
        return;
    };
    let out_dir = PathBuf::from(out_dir);
    compile_schema(&out_dir);
    compile_resources(&out_dir);
}

fn compile_schema(out_dir: &Path) {
    println!("cargo:rerun-if-changed={SCHEMA}");
    let target = out_dir.join("schemas");
    if let Err(error) = std::fs::create_dir_all(&target) {
        println!("cargo:warning=cannot create {}: {error}", target.display());
        return;
    }
    let mut targetdir = std::ffi::OsString::from("--targetdir=");
    targetdir.push(&target);
    match Command::new("glib-compile-schemas")
        .arg("--strict")
        .arg(targetdir)
        .arg("data/")
        .status()
    {
        Ok(status) if status.success() => {
            println!("cargo:rustc-env=PACER_DEV_SCHEMA_DIR={}", target.display());
        }
        Ok(status) => {
            // A broken schema is a bug in this repository: fail loudly.
            eprintln!("glib-compile-schemas --strict rejected {SCHEMA} ({status})");
            std::process::exit(1);
        }
        Err(error) => println!(
            "cargo:warning=glib-compile-schemas is not available ({error}): install the Debian \
             package libglib2.0-bin; until then Pacer's settings work only once installed"
        ),
    }
}

/// The binary cannot be built without its resources (the CSS among them), so unlike the
/// schema a missing `glib-compile-resources` stops the build.
fn compile_resources(out_dir: &Path) {
    println!("cargo:rerun-if-changed={RESOURCES}");
    let sourcedir = format!("--sourcedir={RESOURCES_DIR}");
    let listed = run_compile_resources(&[&sourcedir, "--generate-dependencies", RESOURCES]);
    for file in String::from_utf8_lossy(&listed)
        .lines()
        .filter(|l| !l.is_empty())
    {
        println!("cargo:rerun-if-changed={file}");
    }
    let target = out_dir.join("pacer.gresource");
    let target = format!("--target={}", target.display());
    run_compile_resources(&[&sourcedir, &target, RESOURCES]);
}

/// Runs `glib-compile-resources ARGS`, returning its output; exits with the reason otherwise.
fn run_compile_resources(args: &[&str]) -> Vec<u8> {
    match Command::new("glib-compile-resources").args(args).output() {
        Ok(output) if output.status.success() => output.stdout,
        Ok(output) => {
            eprintln!(
                "glib-compile-resources {} failed ({}):\n{}",
                args.join(" "),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
            std::process::exit(1);
        }
        Err(error) => {
            eprintln!(
                "glib-compile-resources is not available ({error}): it builds the resources \
                 embedded in pacer (resources/). Install the Debian package \
                 libglib2.0-dev-bin (pulled in by libgtk-4-dev), or your distribution's \
                 glib2 development tools."
            );
            std::process::exit(1);
        }
    }
}
