// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl set` and `pacerctl fix` through the real helper on a private system bus, with
//! python-dbusmock's polkitd, on a simulated machine (and with Debian's power-profiles-daemon
//! for the profile fix).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Output;

use pacer_testrig::{Service, SystemBus, PPD_ACTIONS};

const PACERCTL: &str = env!("CARGO_BIN_EXE_pacerctl");

struct Rig {
    bus: SystemBus,
    tree: tempfile::TempDir,
    _state: tempfile::TempDir,
    _services: Vec<Service>,
}

impl Rig {
    fn start(model: &str, with_ppd: bool) -> Rig {
        let bus = SystemBus::start();
        let mut allowed: Vec<&str> = pacer_dbus::actions::ALL.to_vec();
        allowed.extend(PPD_ACTIONS);
        let mut services = vec![bus.polkit(&allowed)];
        let tree = pacer_testrig::model_tree(model);
        if with_ppd {
            services.push(bus.power_profiles_daemon(tree.path()));
        }
        let state = tempfile::tempdir().unwrap();
        services.push(bus.pacer_helper(tree.path(), state.path()));
        Rig {
            bus,
            tree,
            _state: state,
            _services: services,
        }
    }

    fn pacerctl(&self, args: &[&str]) -> Output {
        self.bus
            .command(PACERCTL)
            .args(args)
            .arg("--sysfs-root")
            .arg(self.tree.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap()
    }

    fn read(&self, policy: u32, file: &str) -> String {
        let path = self.tree.path().join(format!(
            "sys/devices/system/cpu/cpufreq/policy{policy}/{file}"
        ));
        std::fs::read_to_string(path).unwrap().trim_end().to_owned()
    }
}

fn out(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn err(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn set_a_core_type_in_one_command() {
    let rig = Rig::start("intel-hybrid", false);
    let output = rig.pacerctl(&[
        "set",
        "governor",
        "performance",
        "--core-type",
        "performance",
    ]);
    assert!(output.status.success(), "{}", err(&output));
    assert_eq!(
        out(&output),
        "the governor is now performance on policy 0-7\n"
    );
    assert_eq!(rig.read(7, "scaling_governor"), "performance");
    assert_eq!(
        rig.read(8, "scaling_governor"),
        "powersave",
        "E-cores untouched"
    );

    // The kernel's refusal, explained.
    let output = rig.pacerctl(&["set", "epp", "power", "--policies", "2-3"]);
    assert_eq!(output.status.code(), Some(1));
    let message = err(&output);
    assert!(
        message.starts_with(
            "pacerctl: the kernel refuses for now: the performance governor on policy 2-3"
        ),
        "{message}"
    );
    assert!(
        message.contains("set the governor to powersave first"),
        "{message}"
    );

    let output = rig.pacerctl(&["set", "epp", "power", "--core-type", "efficiency"]);
    assert!(output.status.success(), "{}", err(&output));
    assert_eq!(out(&output), "the EPP is now power on policy 8-15\n");
    let output = rig.pacerctl(&["set", "boost", "off"]);
    assert_eq!(out(&output), "turbo is now off on policy 0-15\n");
}

#[test]
fn refusals_and_a_missing_helper_are_said_plainly() {
    let rig = Rig::start("amd-zen4", false);
    rig.bus.set_allowed(&[pacer_dbus::actions::SET_CPU_POWER]);
    let output = rig.pacerctl(&["set", "mode", "passive"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        err(&output)
            .contains("not allowed: not authorized for io.github.pacerapp.Pacer.set-driver-mode"),
        "{}",
        err(&output)
    );
    let output = rig.pacerctl(&["set", "governor", "powersave", "--core-type", "efficiency"]);
    assert!(err(&output).contains("this machine has no efficiency cores"));
    let output = rig.pacerctl(&["set", "governor", "powersave", "--policies", "1-x"]);
    assert!(err(&output).contains("--policies 1-x"));
    let output = rig.pacerctl(&["set", "governor", "ondemand"]);
    assert!(
        err(&output).contains("does not offer the ondemand governor"),
        "{}",
        err(&output)
    );

    let empty = SystemBus::start();
    let output = empty
        .command(PACERCTL)
        .args(["set", "boost", "on", "--sysfs-root"])
        .arg(rig.tree.path())
        .output()
        .unwrap();
    assert!(
        err(&output).contains("pacer-helper is not installed"),
        "{}",
        err(&output)
    );
}

#[test]
fn fix_repairs_an_epp_changed_behind_the_daemons_back() {
    let rig = Rig::start("intel-hybrid", true);
    let epp = rig
        .tree
        .path()
        .join("sys/devices/system/cpu/cpufreq/policy4/energy_performance_preference");
    std::fs::write(&epp, "power\n").unwrap();
    let output = rig.pacerctl(&["fix", "--dry-run"]);
    assert!(out(&output)
        .contains("EPP is power on policy 4, but the balanced profile sets balance_performance"));
    assert_eq!(
        rig.read(4, "energy_performance_preference"),
        "power",
        "a dry run changes nothing"
    );

    let output = rig.pacerctl(&["fix"]);
    assert!(output.status.success(), "{}", err(&output));
    assert!(
        out(&output).contains("switched to power-saver and back to balanced"),
        "{}",
        out(&output)
    );
    assert_eq!(
        rig.read(4, "energy_performance_preference"),
        "balance_performance"
    );
    let output = rig.pacerctl(&["fix"]);
    assert_eq!(out(&output), "Nothing to fix: no findings.\n");
}

#[test]
fn fix_puts_the_governor_back_through_the_helper() {
    let rig = Rig::start("intel-hybrid", true);
    let output = rig.pacerctl(&["set", "governor", "performance", "--policies", "0"]);
    assert!(output.status.success(), "{}", err(&output));
    let output = rig.pacerctl(&["fix"]);
    assert!(output.status.success(), "{}", err(&output));
    assert!(
        out(&output).contains("the governor is now powersave on policy 0"),
        "{}",
        out(&output)
    );
    assert_eq!(
        rig.read(0, "energy_performance_preference"),
        "balance_performance",
        "restored by the kernel"
    );
    assert_eq!(
        out(&rig.pacerctl(&["fix"])),
        "Nothing to fix: no findings.\n"
    );
}

#[test]
fn an_epp_the_kernels_dynamic_epp_holds_is_refused_and_left_alone() {
    let rig = Rig::start("amd-dynamic-epp", false);
    let before = rig.read(0, "energy_performance_preference");
    let output = rig.pacerctl(&["set", "epp", "power"]);
    assert_eq!(output.status.code(), Some(1), "{}", out(&output));
    // The helper refuses before asking the kernel, and says why: dynamic EPP owns it.
    assert_eq!(rig.read(0, "scaling_governor"), "powersave");
    assert_eq!(
        err(&output),
        "pacerctl: the kernel refuses for now: the kernel sets the energy-performance preference itself here (amd-pstate's dynamic EPP) and refuses any other; switch dynamic EPP off to choose it\n"
    );
    assert_eq!(rig.read(0, "energy_performance_preference"), before);
    // The kernel's own answer to the write, as `pacerctl simulate write` gives it.
    let epp = "/sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference";
    let output = rig.pacerctl(&["simulate", "write", epp, "power"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        err(&output),
        format!("pacerctl: {epp}: the kernel refuses power: Device or resource busy (EBUSY)\n")
    );
}
