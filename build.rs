//! Compiles the GSettings schema into `$OUT_DIR/schemas`, so that a development build finds
//! its settings without installing them (see `src/settings.rs`).

use std::path::PathBuf;
use std::process::Command;

const SCHEMA: &str = "data/io.github.pacerapp.Pacer.gschema.xml";

fn main() {
    println!("cargo:rerun-if-changed={SCHEMA}");
    let Some(out_dir) = std::env::var_os("OUT_DIR") else {
        println!("cargo:warning=OUT_DIR is not set; the GSettings schema is not compiled");
        return;
    };
    let target = PathBuf::from(out_dir).join("schemas");
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
