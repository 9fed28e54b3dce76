// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl status` and `watch` against the real power-profiles-daemon (Debian's 0.12) on a
//! private system bus, python-dbusmock's polkitd as polkit, and a simulated machine's tree
//! as the daemon's sysfs (`UMOCKDEV_DIR`).
//!
//! Longer than most files: each test starts the real daemon on its private bus, and the
//! scenarios share the rig's set-up here.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Output;

use common::openmetrics;
use pacer_testrig::{Service, SystemBus, PPD_ACTIONS};
use serde_json::Value;

const PACERCTL: &str = env!("CARGO_BIN_EXE_pacerctl");

struct Rig {
    bus: SystemBus,
    tree: tempfile::TempDir,
    _polkit: Service,
    ppd: Service,
}

impl Rig {
    fn start(model: &str) -> Rig {
        let bus = SystemBus::start();
        let polkit = bus.polkit(&PPD_ACTIONS);
        let tree = pacer_testrig::model_tree(model);
        let ppd = bus.power_profiles_daemon(tree.path());
        Rig {
            bus,
            tree,
            _polkit: polkit,
            ppd,
        }
    }

    fn root(&self) -> &Path {
        self.tree.path()
    }

    fn pacerctl(&self, args: &[&str]) -> Output {
        self.bus
            .command(PACERCTL)
            .args(args)
            .arg("--sysfs-root")
            .arg(self.root())
            .env("LC_ALL", "C")
            .env("PACER_INTERVAL", "0")
            .output()
            .unwrap()
    }

    fn status(&self) -> Value {
        let output = self.pacerctl(&["status", "--json"]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }

    fn write(&self, policy: u32, file: &str, value: &str) {
        let path = self.root().join(format!(
            "sys/devices/system/cpu/cpufreq/policy{policy}/{file}"
        ));
        std::fs::write(path, format!("{value}\n")).unwrap();
    }

    fn read(&self, policy: u32, file: &str) -> String {
        let path = self.root().join(format!(
            "sys/devices/system/cpu/cpufreq/policy{policy}/{file}"
        ));
        std::fs::read_to_string(path).unwrap().trim_end().to_owned()
    }
}

fn kinds(status: &Value) -> Vec<String> {
    status["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn switching_the_profile_changes_epp_and_shows_no_finding() {
    let rig = Rig::start("intel-hybrid");
    let status = rig.status();
    assert_eq!(status["profile"]["daemon"], "power-profiles-daemon");
    assert_eq!(status["profile"]["active"], "balanced");
    assert_eq!(
        status["profile"]["version"],
        Value::Null,
        "0.12 has no Version"
    );
    assert_eq!(status["profile"]["cpu_driver"], "intel_pstate");
    assert_eq!(kinds(&status), Vec::<String>::new(), "{status:#}");

    rig.bus.set_profile("performance").unwrap();
    assert_eq!(rig.read(5, "energy_performance_preference"), "performance");
    let status = rig.status();
    assert_eq!(status["profile"]["active"], "performance");
    assert_eq!(kinds(&status), Vec::<String>::new(), "{status:#}");

    // OpenMetrics: the profile as a state set over those the daemon offers.
    let output = rig.pacerctl(&["status", "--openmetrics"]);
    let families = openmetrics(&String::from_utf8(output.stdout).unwrap());
    let profile = families
        .as_array()
        .unwrap()
        .iter()
        .find(|family| family["name"] == "pacer_profile")
        .unwrap();
    let states: Vec<(&str, f64)> = profile["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|sample| {
            let state = sample["labels"]["pacer_profile"].as_str().unwrap();
            (state, sample["value"].as_f64().unwrap())
        })
        .collect();
    assert_eq!(
        states,
        [
            ("power-saver", 0.0),
            ("balanced", 0.0),
            ("performance", 1.0)
        ]
    );
}

/// Policies named by a finding of `kind`.
fn policies_of(status: &Value, kind: &str) -> Vec<Vec<u64>> {
    status["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == kind)
        .map(|f| {
            f["policies"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_u64().unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn epp_changed_behind_the_daemons_back_names_those_policies() {
    let rig = Rig::start("intel-hybrid");
    for policy in [2, 3, 9] {
        rig.write(policy, "energy_performance_preference", "power");
    }
    assert_eq!(
        rig.bus.profile().unwrap(),
        "balanced",
        "the daemon does not notice"
    );
    let status = rig.status();
    assert_eq!(kinds(&status), ["epp-mismatch"], "{status:#}");
    assert_eq!(policies_of(&status, "epp-mismatch"), [vec![2, 3, 9]]);
    let finding = &status["findings"][0];
    assert_eq!(finding["expected"], "balance_performance");
    assert_eq!(finding["actual"], "power");
    assert_eq!(finding["severity"], "warning");
    assert_eq!(finding["fix"]["action"], "cycle-profile");
    assert_eq!(finding["fix"]["back"], "balanced");

    // The human output says it in words, with the fix.
    let text = String::from_utf8(rig.pacerctl(&["status"]).stdout).unwrap();
    assert!(
        text.contains("Profile  balanced (power-profiles-daemon)"),
        "{text}"
    );
    assert!(
        text.contains(
            "! EPP is power on policy 2-3,9, but the balanced profile sets balance_performance"
        ),
        "{text}"
    );
    assert!(
        text.contains("Fix: Switch to power-saver and back to balanced"),
        "{text}"
    );

    // Setting the same profile does nothing; away and back repairs it.
    rig.bus.set_profile("balanced").unwrap();
    assert_eq!(kinds(&rig.status()), ["epp-mismatch"]);
    rig.bus.set_profile("power-saver").unwrap();
    rig.bus.set_profile("balanced").unwrap();
    assert_eq!(kinds(&rig.status()), Vec::<String>::new());
}

#[test]
fn a_write_failing_part_way_leaves_a_mixed_state_and_a_finding() {
    let rig = Rig::start("intel-hybrid");
    // What EBUSY does on hardware: one policy's EPP cannot be written.
    let file = rig
        .root()
        .join("sys/devices/system/cpu/cpufreq/policy4/energy_performance_preference");
    std::fs::remove_file(&file).unwrap();
    std::fs::create_dir(&file).unwrap();
    let error = rig.bus.set_profile("performance").unwrap_err();
    assert!(error.contains("policy4"), "{error}");
    assert_eq!(
        rig.bus.profile().unwrap(),
        "balanced",
        "the daemon keeps the old profile"
    );

    // ppd stops at the first failing file (in directory order): the policies before it hold
    // the new EPP, the rest the old one.
    let written: Vec<u64> = (0..16)
        .filter(|&p| p != 4 && rig.read(p, "energy_performance_preference") == "performance")
        .map(u64::from)
        .collect();
    assert!(
        !written.is_empty() && written.len() < 15,
        "mixed: {written:?}"
    );
    let status = rig.status();
    assert_eq!(
        policies_of(&status, "epp-mismatch"),
        [written],
        "{status:#}"
    );
    assert_eq!(status["findings"][0]["actual"], "performance");
    let problems = status["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("policy4/energy_performance_preference"))),
        "the unreadable file is named: {problems:?}"
    );
}

#[test]
fn performance_governor_behind_the_daemons_back_forces_epp() {
    let rig = Rig::start("intel-hybrid");
    for policy in [0, 1] {
        rig.write(policy, "scaling_governor", "performance");
    }
    let status = rig.status();
    assert_eq!(kinds(&status), ["epp-forced-by-governor"], "{status:#}");
    assert_eq!(policies_of(&status, "epp-forced-by-governor"), [vec![0, 1]]);
    let finding = &status["findings"][0];
    assert_eq!(finding["severity"], "warning");
    assert_eq!(finding["fix"]["action"], "set-governor");
    assert_eq!(finding["fix"]["governor"], "powersave");
    assert!(finding["detail"].as_str().unwrap().contains("EBUSY"));
}

/// Reads `pacerctl watch --json` lines as they come.
struct Watch {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<Value>,
}

impl Watch {
    fn start(rig: &Rig) -> Watch {
        let mut child = rig
            .bus
            .command(PACERCTL)
            .args(["watch", "--json", "--sysfs-root"])
            .arg(rig.root())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(serde_json::from_str(&line).unwrap()).is_err() {
                    break;
                }
            }
        });
        let watch = Watch { child, lines };
        watch.expect("the start line", |l| l["event"] == "watching");
        watch
    }

    /// Waits (at most 3 s) for a line matching `test`, skipping others.
    fn expect(&self, what: &str, test: impl Fn(&Value) -> bool) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if test(&line) => return line,
                Ok(_) => {}
                Err(_) => panic!("no line for {what} within 3 s"),
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn watch_follows_files_and_the_daemon_stopping_and_starting() {
    let mut rig = Rig::start("intel-hybrid");
    let watch = Watch::start(&rig);

    rig.write(6, "energy_performance_preference", "power");
    let started = std::time::Instant::now();
    let line = watch.expect("the EPP change", |l| l["event"] == "epp");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(1),
        "noticed within a second"
    );
    assert_eq!(line["policies"], serde_json::json!([6]));
    assert_eq!(
        (line["from"].as_str(), line["to"].as_str()),
        (Some("balance_performance"), Some("power"))
    );
    let line = watch.expect("the finding", |l| l["event"] == "finding-appeared");
    assert_eq!(line["finding"]["kind"], "epp-mismatch");

    rig.bus.set_profile("performance").unwrap();
    let line = watch.expect("the profile change", |l| l["event"] == "profile");
    assert_eq!(
        (line["from"].as_str(), line["to"].as_str()),
        (Some("balanced"), Some("performance"))
    );
    watch.expect("the finding clearing", |l| l["event"] == "finding-cleared");

    rig.ppd.stop();
    let line = watch.expect("the daemon stopping", |l| l["event"] == "profile");
    assert_eq!(line["to"], Value::Null);

    rig.ppd = rig.bus.power_profiles_daemon(rig.tree.path());
    let line = watch.expect("the daemon starting", |l| l["event"] == "profile");
    assert_eq!(line["to"], "performance", "ppd restores its saved profile");
}

/// A dbusmock daemon on `template` with JSON `parameters`.
fn mock_daemon(bus: &SystemBus, template: &str, owns: &str, parameters: &str) -> Service {
    let mut command = bus.command("/usr/bin/python3");
    command.args([
        "-m",
        "dbusmock",
        "--system",
        "--template",
        template,
        "--parameters",
        parameters,
    ]);
    let service = Service::spawn_command("dbusmock-profiles", bus.dir(), &mut command);
    bus.wait_for_name(owns, std::time::Duration::from_secs(10));
    service
}

fn template(name: &str) -> String {
    format!("{}/tests/templates/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn status_with(bus: &SystemBus, tree: &Path) -> Value {
    let output = bus
        .command(PACERCTL)
        .args(["status", "--json", "--sysfs-root"])
        .arg(tree)
        .env("PACER_INTERVAL", "0")
        .output()
        .unwrap();
    assert!(output.status.success());
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_newer_api_shape_is_read() {
    let bus = SystemBus::start();
    let tree = pacer_testrig::model_tree("intel-hybrid");
    let _daemon = mock_daemon(
        &bus,
        &template("upower_power_profiles.py"),
        "org.freedesktop.UPower.PowerProfiles",
        r#"{"ActiveProfile": "performance", "Version": "0.30", "Driver": "multiple",
            "CpuDriver": "intel_pstate", "PlatformDriver": "platform_profile",
            "BatteryAware": true, "PerformanceDegraded": "lap-detected",
            "Holds": [{"ApplicationId": "org.gnome.Builder", "Profile": "performance", "Reason": "compiling"}]}"#,
    );
    let status = status_with(&bus, tree.path());
    let profile = &status["profile"];
    assert_eq!(profile["version"], "0.30");
    assert_eq!(profile["active"], "performance");
    assert_eq!(
        profile["available"],
        serde_json::json!(["power-saver", "balanced", "performance"])
    );
    assert_eq!(profile["cpu_driver"], "intel_pstate");
    assert_eq!(profile["platform_driver"], "platform_profile");
    assert_eq!(profile["degraded"], "lap-detected");
    assert_eq!(profile["holds"][0]["application_id"], "org.gnome.Builder");
    assert_eq!(profile["bus_name"], "org.freedesktop.UPower.PowerProfiles");
    // The mock writes no EPP: the tree still says balance_performance on every policy.
    assert_eq!(kinds(&status), ["epp-mismatch"]);
    assert_eq!(policies_of(&status, "epp-mismatch")[0].len(), 16);
}

#[test]
fn debians_template_with_its_holds_type_bug_is_tolerated() {
    let bus = SystemBus::start();
    let tree = pacer_testrig::model_tree("amd-zen4");
    let _daemon = mock_daemon(
        &bus,
        "power_profiles_daemon",
        "net.hadess.PowerProfiles",
        "{}",
    );
    // No hold: the template sends `a(aa{sv})` instead of `aa{sv}`.
    let status = status_with(&bus, tree.path());
    assert_eq!(status["profile"]["active"], "balanced");
    assert_eq!(
        status["profile"]["daemon"], "unknown",
        "python3 with a 'dbusmock' driver"
    );
    assert_eq!(status["profile"]["holds"], serde_json::json!([]));
    assert_eq!(status["problems"], serde_json::json!([]));
    // A hold: the template now sends `aa{ss}`.
    bus.call(
        "net.hadess.PowerProfiles",
        "/net/hadess/PowerProfiles",
        "net.hadess.PowerProfiles.HoldProfile",
        &["performance", "rendering", "org.example.Renderer"],
    )
    .unwrap();
    let status = status_with(&bus, tree.path());
    let hold = &status["profile"]["holds"][0];
    assert_eq!(hold["application_id"], "org.example.Renderer");
    assert_eq!(hold["reason"], "rendering");
}

#[test]
fn a_tuned_like_daemon_has_no_mapping_and_no_mismatch_is_claimed() {
    let bus = SystemBus::start();
    let tree = pacer_testrig::model_tree("intel-hybrid");
    let _daemon = mock_daemon(
        &bus,
        &template("upower_power_profiles.py"),
        "org.freedesktop.UPower.PowerProfiles",
        r#"{"ActiveProfile": "power-saver", "Version": "0.23", "Driver": "tuned"}"#,
    );
    let status = status_with(&bus, tree.path());
    assert_eq!(status["profile"]["daemon"], "tuned-ppd");
    assert_eq!(kinds(&status), Vec::<String>::new(), "{status:#}");
    let output = bus
        .command(PACERCTL)
        .args(["status", "--sysfs-root"])
        .arg(tree.path())
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("power-saver (tuned-ppd 0.23); tuned-ppd maps profiles to its own settings, so there is no fixed EPP to check"),
        "{text}"
    );
}

#[test]
fn no_bus_and_no_daemon_leave_the_profile_out_with_a_reason() {
    let tree = pacer_testrig::model_tree("vm");
    let run = |address: &str| -> Value {
        let output = std::process::Command::new(PACERCTL)
            .args(["status", "--json", "--sysfs-root"])
            .arg(tree.path())
            .env("DBUS_SYSTEM_BUS_ADDRESS", address)
            .output()
            .unwrap();
        assert!(output.status.success());
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let missing = tree.path().join("no-such-socket");
    let status = run(&format!("unix:path={}", missing.display()));
    assert_eq!(status["profile"], Value::Null);
    assert_eq!(status["problems"][0]["kind"], "no-bus");

    let bus = SystemBus::start();
    let status = run(bus.address());
    assert_eq!(status["profile"], Value::Null);
    assert_eq!(status["problems"][0]["kind"], "no-daemon");
}

#[test]
fn on_battery_balanced_means_balance_power_from_0_21() {
    let bus = SystemBus::start();
    let tree = pacer_testrig::model_tree("intel-hybrid");
    let _upower = mock_daemon(
        &bus,
        "upower",
        "org.freedesktop.UPower",
        r#"{"OnBattery": true}"#,
    );
    let _daemon = mock_daemon(
        &bus,
        &template("upower_power_profiles.py"),
        "org.freedesktop.UPower.PowerProfiles",
        r#"{"ActiveProfile": "balanced", "Version": "0.30", "CpuDriver": "intel_pstate"}"#,
    );
    let status = status_with(&bus, tree.path());
    assert_eq!(status["profile"]["on_battery"], true);
    assert_eq!(kinds(&status), ["epp-mismatch"]);
    assert_eq!(status["findings"][0]["expected"], "balance_power");
}

#[test]
fn a_daemon_that_never_answers_costs_a_second_not_a_hang() {
    let bus = SystemBus::start();
    let tree = pacer_testrig::model_tree("intel-hybrid");
    // Owns the name, then sleeps without ever serving a call.
    let mut command = bus.command("/usr/bin/python3");
    command.args([
        "-c",
        "import dbus, time; bus = dbus.SystemBus(); \
         bus.request_name('net.hadess.PowerProfiles'); time.sleep(60)",
    ]);
    let _stuck = Service::spawn_command("stuck-daemon", bus.dir(), &mut command);
    bus.wait_for_name(
        "net.hadess.PowerProfiles",
        std::time::Duration::from_secs(10),
    );
    let started = std::time::Instant::now();
    let status = status_with(&bus, tree.path());
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(4), "took {took:?}");
    assert_eq!(status["profile"], Value::Null);
    let problem = &status["problems"][0];
    assert_eq!(problem["kind"], "timeout", "{problem}");
    assert!(problem["message"]
        .as_str()
        .unwrap()
        .contains("did not answer within one second"));
}
