// SPDX-License-Identifier: GPL-3.0-or-later
//! Running `pacerctl` as a user would, away from this machine's own system bus.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub mod chain;

pub const PACERCTL: &str = env!("CARGO_BIN_EXE_pacerctl");

/// `pacerctl ARGS` with no root from the environment, messages in English, a system bus
/// that is not there (tests that need one start their own), and one reading of the limit
/// chain unless `--interval` says otherwise (a second's wait is for the tests of the chain).
pub fn pacerctl(args: &[&str]) -> Output {
    run(&mut Command::new(PACERCTL), args)
}

fn run(command: &mut Command, args: &[&str]) -> Output {
    command
        .args(args)
        .env_remove("PACER_SYSFS_ROOT")
        .env("PACER_INTERVAL", "0")
        .env("LC_ALL", "C")
        .env(
            "DBUS_SYSTEM_BUS_ADDRESS",
            "unix:path=/nonexistent/system_bus_socket",
        )
        .output()
        .unwrap()
}

/// `pacerctl ARGS --sysfs-root ROOT` as a user, who meets EACCES on files only root may
/// read. Root reads everything, so as root the binary runs as `nobody` (util-linux
/// `setpriv`), with `root` opened to others; as a user it simply runs.
pub fn pacerctl_as_user(root: &Path, args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend(["--sysfs-root", root.to_str().unwrap()]);
    let is_root = fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(1) == Some("0"));
    if !is_root {
        return pacerctl(&all);
    }
    // The test binary may live under a directory `nobody` cannot enter: copy it out.
    let bin_dir = tempfile::tempdir().unwrap();
    let bin = bin_dir.path().join("pacerctl");
    fs::copy(PACERCTL, &bin).unwrap();
    open_to_others(bin_dir.path());
    open_to_others(root);
    let mut setpriv = Command::new("setpriv");
    setpriv
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(&bin);
    run(&mut setpriv, &all)
}

/// Makes every directory of the tree under `dir` traversable and listable by others.
fn open_to_others(dir: &Path) {
    for entry in walk(dir) {
        let meta = fs::symlink_metadata(&entry).unwrap();
        if meta.is_dir() {
            fs::set_permissions(&entry, fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = vec![dir.to_owned()];
    let mut index = 0;
    while index < found.len() {
        let path = found[index].clone();
        if fs::symlink_metadata(&path).unwrap().is_dir() {
            for entry in fs::read_dir(&path).unwrap() {
                found.push(entry.unwrap().path());
            }
        }
        index += 1;
    }
    found
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// OpenMetrics text parsed by prometheus_client's parser (Debian's python3-prometheus-client),
/// as `[{name, type, unit, help, samples: [{name, labels, value}]}]`; text the parser refuses
/// fails the test with its reason.
pub fn openmetrics(text: &str) -> serde_json::Value {
    parse_metrics(text, &[])
}

/// The Prometheus text format parsed the same way, with the rules of node_exporter's parser.
pub fn prometheus_text(text: &str) -> serde_json::Value {
    parse_metrics(text, &["--prometheus"])
}

fn parse_metrics(text: &str, args: &[&str]) -> serde_json::Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/common/openmetrics.py");
    let mut child = Command::new("/usr/bin/python3")
        .arg(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("/usr/bin/python3 runs (Debian packages python3 and python3-prometheus-client)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "the parser refuses the exposition: {}\n{text}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}
