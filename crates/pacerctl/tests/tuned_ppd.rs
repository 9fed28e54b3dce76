// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl simulate daemon tuned-ppd` on a private system bus over a simulated machine:
//! what `pacerctl status` makes of it, and what its profile changes, holds and refusals do
//! to the machine's files (`docs/power-profiles.md` 4.1).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use pacer_testrig::{Service, SystemBus};
use serde_json::Value;

const PACERCTL: &str = env!("CARGO_BIN_EXE_pacerctl");
const UPOWER: &str = "org.freedesktop.UPower.PowerProfiles";
const UPOWER_PATH: &str = "/org/freedesktop/UPower/PowerProfiles";
const LEGACY: &str = "net.hadess.PowerProfiles";
const NO_TURBO: &str = "sys/devices/system/cpu/intel_pstate/no_turbo";
const DBUS_EXCEPTION: &str = "org.freedesktop.DBus.Python.dbus.exceptions.DBusException";

struct Rig {
    bus: SystemBus,
    tree: tempfile::TempDir,
    daemon: Service,
}

impl Rig {
    fn start(model: &str) -> Rig {
        let bus = SystemBus::start();
        let tree = pacer_testrig::model_tree(model);
        let daemon = Service::spawn_command(
            "tuned-ppd",
            bus.dir(),
            bus.command(PACERCTL)
                .args(["simulate", "daemon", "tuned-ppd", "--sysfs-root"])
                .arg(tree.path())
                .env("LC_ALL", "C"),
        );
        bus.wait_for_name(UPOWER, Duration::from_secs(10));
        bus.wait_for_name(LEGACY, Duration::from_secs(10));
        Rig { bus, tree, daemon }
    }

    fn root(&self) -> &Path {
        self.tree.path()
    }

    fn status(&self) -> Value {
        let output = self
            .bus
            .command(PACERCTL)
            .args(["status", "--json", "--sysfs-root"])
            .arg(self.root())
            .env("LC_ALL", "C")
            .env("PACER_INTERVAL", "0")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root().join(path))
            .unwrap_or_else(|e| panic!("{path}: {e}"))
            .trim_end()
            .to_owned()
    }

    /// Every active policy's `file`, in policy order.
    fn policies(&self, file: &str) -> Vec<String> {
        let status = self.status();
        status["policies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|policy| {
                let id = policy["id"].as_u64().unwrap();
                self.read(&format!("sys/devices/system/cpu/cpufreq/policy{id}/{file}"))
            })
            .collect()
    }

    /// Every file of the tree with its contents, to see that nothing changed.
    fn files(&self) -> BTreeMap<String, String> {
        fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let meta = std::fs::symlink_metadata(&path).unwrap();
                if meta.is_dir() {
                    walk(&path, root, out);
                } else if meta.is_file() && !path.ends_with("lock") {
                    let name = path.strip_prefix(root).unwrap().display().to_string();
                    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into();
                    out.insert(name, text);
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(self.root(), self.root(), &mut out);
        out
    }

    /// Asserts that the tree holds `before`, naming the files that differ.
    fn assert_unchanged(&self, before: &BTreeMap<String, String>) {
        let now = self.files();
        let changed: Vec<&String> = before
            .keys()
            .chain(now.keys())
            .filter(|name| before.get(*name) != now.get(*name))
            .collect();
        assert!(changed.is_empty(), "changed: {changed:?}");
    }

    fn get(&self, property: &str) -> String {
        self.bus
            .call(
                UPOWER,
                UPOWER_PATH,
                "org.freedesktop.DBus.Properties.Get",
                &[UPOWER, property],
            )
            .unwrap()
    }

    fn set_profile(&self, profile: &str) -> Result<String, String> {
        self.bus.call(
            UPOWER,
            UPOWER_PATH,
            "org.freedesktop.DBus.Properties.Set",
            &[UPOWER, "ActiveProfile", &format!("<'{profile}'>")],
        )
    }

    /// A connection of the test's own to the bus, for holds that last while it does.
    fn connect(&self) -> (tokio::runtime::Runtime, zbus::Connection) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let connection = runtime.block_on(async {
            zbus::connection::Builder::address(self.bus.address())
                .unwrap()
                .build()
                .await
                .unwrap()
        });
        (runtime, connection)
    }
}

fn call<B>(
    runtime: &tokio::runtime::Runtime,
    connection: &zbus::Connection,
    method: &str,
    body: &B,
) -> zbus::Result<zbus::Message>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
{
    runtime.block_on(connection.call_method(Some(UPOWER), UPOWER_PATH, Some(UPOWER), method, body))
}

#[test]
fn status_names_tuned_ppd_and_claims_no_mismatch() {
    let rig = Rig::start("intel-hybrid");
    let status = rig.status();
    let profile = &status["profile"];
    assert_eq!(profile["daemon"], "tuned-ppd", "{status:#}");
    assert_eq!(profile["version"], "0.23");
    assert_eq!(profile["active"], "balanced");
    // The balanced TuneD profile's EPP, written at start.
    assert!(rig
        .policies("energy_performance_preference")
        .iter()
        .all(|epp| epp == "balance_performance"));
    let kinds: Vec<&str> = status["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert!(!kinds.contains(&"epp-mismatch"), "{kinds:?}");

    assert!(rig.get("Profiles").contains("'Driver': <'tuned'>"));
    assert!(!rig.get("Profiles").contains("CpuDriver"));
    assert_eq!(rig.get("Actions"), "(<@as []>,)\n");
    assert_eq!(rig.get("Version"), "(<'0.23'>,)\n");
    // The legacy name answers the same.
    let legacy = rig
        .bus
        .call(
            LEGACY,
            "/net/hadess/PowerProfiles",
            "org.freedesktop.DBus.Properties.Get",
            &[LEGACY, "ActiveProfile"],
        )
        .unwrap();
    assert_eq!(legacy, "(<'balanced'>,)\n");
}

#[test]
fn power_saver_writes_power_and_turns_turbo_off() {
    let mut rig = Rig::start("intel-hybrid");
    assert_eq!(rig.read(NO_TURBO), "0");
    rig.set_profile("power-saver").unwrap();
    assert!(rig
        .policies("energy_performance_preference")
        .iter()
        .all(|epp| epp == "power"));
    assert_eq!(rig.read(NO_TURBO), "1");
    assert_eq!(rig.get("ActiveProfile"), "(<'power-saver'>,)\n");
    // tuned-ppd reads its own no_turbo as a hot CPU.
    assert_eq!(
        rig.get("PerformanceDegraded"),
        "(<'high-operating-temperature'>,)\n"
    );
    let status = rig.status();
    assert_eq!(status["profile"]["active"], "power-saver");

    rig.set_profile("performance").unwrap();
    assert!(rig
        .policies("energy_performance_preference")
        .iter()
        .all(|epp| epp == "performance"));
    assert!(rig
        .policies("scaling_governor")
        .iter()
        .all(|governor| governor == "performance"));
    assert_eq!(rig.read(NO_TURBO), "0");
    assert_eq!(rig.get("PerformanceDegraded"), "(<''>,)\n");
    // And back: the governor first, so that the kernel takes the EPP.
    rig.set_profile("balanced").unwrap();
    assert!(rig
        .policies("energy_performance_preference")
        .iter()
        .all(|epp| epp == "balance_performance"));
    assert!(rig.daemon.is_running());
}

#[test]
fn a_hold_lasts_until_released_or_its_holder_leaves() {
    let rig = Rig::start("intel-hybrid");
    let (runtime, holder) = rig.connect();
    let reply = call(
        &runtime,
        &holder,
        "HoldProfile",
        &("performance", "compiling", "org.example.Builder"),
    )
    .unwrap();
    let cookie: u32 = reply.body().deserialize().unwrap();
    assert_eq!(rig.get("ActiveProfile"), "(<'performance'>,)\n");
    assert!(rig
        .policies("energy_performance_preference")
        .iter()
        .all(|epp| epp == "performance"));
    let holds = rig.get("ActiveProfileHolds");
    assert!(
        holds.contains("'ApplicationId': <'org.example.Builder'>"),
        "{holds}"
    );
    assert!(holds.contains("'Reason': <'compiling'>"), "{holds}");

    // Only the holder may release it.
    let other = rig
        .bus
        .call(
            UPOWER,
            UPOWER_PATH,
            &format!("{UPOWER}.ReleaseProfile"),
            &[&cookie.to_string()],
        )
        .unwrap_err();
    assert!(other.contains(DBUS_EXCEPTION), "{other}");
    assert!(other.contains("Cannot release a profile hold"), "{other}");

    call(&runtime, &holder, "ReleaseProfile", &(cookie,)).unwrap();
    assert_eq!(rig.get("ActiveProfile"), "(<'balanced'>,)\n");
    assert_eq!(rig.get("ActiveProfileHolds"), "(<@aa{sv} []>,)\n");
    assert!(rig
        .policies("energy_performance_preference")
        .iter()
        .all(|epp| epp == "balance_performance"));
    let again = call(&runtime, &holder, "ReleaseProfile", &(cookie,)).unwrap_err();
    assert!(
        again
            .to_string()
            .contains(&format!("No active hold for cookie '{cookie}'")),
        "{again}"
    );

    // Balanced cannot be held; a holder that leaves takes its hold with it.
    let refused = call(
        &runtime,
        &holder,
        "HoldProfile",
        &("balanced", "", "org.example.Builder"),
    )
    .unwrap_err();
    assert!(refused.to_string().contains("may be held"), "{refused}");
    call(
        &runtime,
        &holder,
        "HoldProfile",
        &("power-saver", "battery low", "org.example.Saver"),
    )
    .unwrap();
    assert_eq!(rig.get("ActiveProfile"), "(<'power-saver'>,)\n");
    drop(holder);
    drop(runtime);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while rig.get("ActiveProfile") != "(<'balanced'>,)\n" {
        assert!(std::time::Instant::now() < deadline, "the hold stayed");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(rig.read(NO_TURBO), "0");
}

#[test]
fn an_unknown_profile_is_refused_and_changes_nothing() {
    let rig = Rig::start("intel-hybrid");
    let before = rig.files();
    let error = rig.set_profile("turbo").unwrap_err();
    assert!(error.contains(DBUS_EXCEPTION), "{error}");
    assert!(error.contains("Invalid profile 'turbo'"), "{error}");
    rig.assert_unchanged(&before);
    assert_eq!(rig.get("ActiveProfile"), "(<'balanced'>,)\n");
}

#[test]
fn a_write_the_kernel_refuses_names_the_file_and_changes_nothing() {
    // The kernel owns EPP under dynamic EPP and answers EBUSY; the boost written before it
    // comes back.
    let rig = Rig::start("amd-dynamic-epp");
    assert!(rig.daemon.log().contains("EBUSY"), "{}", rig.daemon.log());
    let before = rig.files();
    let error = rig.set_profile("power-saver").unwrap_err();
    assert!(error.contains(DBUS_EXCEPTION), "{error}");
    assert!(
        error.contains("Error setting profile power-saver'"),
        "{error}"
    );
    assert!(
        error.contains("/energy_performance_preference: the kernel refuses power"),
        "{error}"
    );
    assert!(error.contains("(EBUSY)"), "{error}");
    rig.assert_unchanged(&before);
    assert_eq!(rig.get("ActiveProfile"), "(<'balanced'>,)\n");
}
