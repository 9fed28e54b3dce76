// SPDX-License-Identifier: GPL-3.0-or-later
//! The limit chain of a simulated machine as the tests of `pacerctl limits` read it: the
//! commands with their interval, the JSON per core type, writes through the kernel's rules,
//! and the simulated kernel's ticker running beside a test.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{pacerctl, text, PACERCTL};

/// The package's energy counter: it moves only while a ticker runs.
const ENERGY: &str = "sys/class/powercap/intel-rapl:0/energy_uj";

/// `pacerctl ARGS --sysfs-root ROOT --interval SECONDS`, which must succeed.
pub fn run_at(root: &Path, args: &[&str], seconds: &str) -> String {
    let mut all = args.to_vec();
    all.extend([
        "--sysfs-root",
        root.to_str().unwrap(),
        "--interval",
        seconds,
    ]);
    let output = pacerctl(&all);
    assert!(
        output.status.success(),
        "pacerctl {all:?}: {}",
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// `pacerctl limits --json` over `seconds`: the chain per core type, after checking the
/// document's schema.
pub fn limits_json(root: &Path, seconds: &str) -> Vec<Value> {
    let document: Value =
        serde_json::from_str(&run_at(root, &["limits", "--json"], seconds)).unwrap();
    assert_eq!(document["schema"], 2);
    document["limits"].as_array().unwrap().clone()
}

/// The chain of the cores of `core_type` (`performance`, `efficiency`).
pub fn core<'a>(limits: &'a [Value], core_type: &str) -> &'a Value {
    limits
        .iter()
        .find(|core| core["core_type"] == core_type)
        .unwrap_or_else(|| panic!("no {core_type} cores in {limits:#?}"))
}

/// Writes `value` to `path` (as from /) of the simulated machine under `root` through the
/// kernel's rules, as `pacerctl simulate write` does; the kernel must take it.
pub fn simulate_write(root: &Path, path: &str, value: &str) {
    let output = pacerctl(&[
        "simulate",
        "write",
        "--sysfs-root",
        root.to_str().unwrap(),
        path,
        value,
    ]);
    assert!(
        output.status.success(),
        "{path} {value}: {}",
        text(&output.stderr)
    );
    assert_eq!(text(&output.stdout), format!("{path}: written\n"));
}

/// `pacerctl simulate run MODEL --sysfs-root ROOT` in the background: the simulated kernel
/// moving the frequencies, throttle counters and energy counters, until dropped.
pub struct SimRun(Child);

impl SimRun {
    /// Starts the ticker on the machine under `root` (laid out there, or laid out now) and
    /// waits until its energy counter moves: a machine with RAPL.
    pub fn start(model: &str, root: &Path) -> SimRun {
        let before = fs::read_to_string(root.join(ENERGY)).ok();
        let child = Command::new(PACERCTL)
            .args(["simulate", "run", model, "--sysfs-root"])
            .arg(root)
            .env("LC_ALL", "C")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut running = SimRun(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let now = fs::read_to_string(root.join(ENERGY)).ok();
            if now.is_some() && now != before {
                return running;
            }
            if let Some(status) = running.0.try_wait().unwrap() {
                let mut stderr = String::new();
                std::io::Read::read_to_string(running.0.stderr.as_mut().unwrap(), &mut stderr)
                    .unwrap();
                panic!("pacerctl simulate run {model} ended ({status}): {stderr}");
            }
            assert!(
                Instant::now() < deadline,
                "the ticker of {model} did not move {ENERGY} in 20 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for SimRun {
    fn drop(&mut self) {
        // Only this child, by its id.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
