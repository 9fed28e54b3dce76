// SPDX-License-Identifier: GPL-3.0-or-later
//! The helper's files in `data/`: well-formed and valid where a DTD is at hand, the polkit
//! actions matching the code's, the systemd unit's exposure at most 1.5 with no
//! CAP_SYS_ADMIN, and the privileged step that holds it started per request, for the helper.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(name)
}

fn xmllint(args: &[&str], file: &Path) {
    let output = Command::new("xmllint")
        .arg("--noout")
        .args(args)
        .arg(file)
        .output()
        .expect("xmllint (libxml2-utils) runs");
    assert!(
        output.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn xml_files_are_valid() {
    xmllint(&[], &data("io.github.pacerapp.Pacer.Helper1.xml"));
    xmllint(&[], &data("io.github.pacerapp.Pacer.Helper1.conf"));
    let polkit_dtd = Path::new("/usr/share/polkit-1/policyconfig-1.dtd");
    let policy = data("io.github.pacerapp.Pacer.policy");
    if polkit_dtd.exists() {
        xmllint(&["--dtdvalid", polkit_dtd.to_str().unwrap()], &policy);
    } else {
        xmllint(&[], &policy);
    }
}

#[test]
fn the_policy_declares_exactly_the_actions_the_helper_checks() {
    let policy = std::fs::read_to_string(data("io.github.pacerapp.Pacer.policy")).unwrap();
    let declared: Vec<&str> = policy
        .split("<action id=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    assert_eq!(declared, pacer_dbus::actions::ALL);
    // governor/EPP/boost like power-profiles-daemon's switch-profile; the rest keep admin
    // authentication.
    let defaults_of = |id: &str| {
        let start = policy.find(&format!("<action id=\"{id}\"")).unwrap();
        let block = &policy[start..start + policy[start..].find("</action>").unwrap()];
        block
            .split("<allow_active>")
            .nth(1)
            .unwrap()
            .split('<')
            .next()
            .unwrap()
            .to_owned()
    };
    assert_eq!(defaults_of(pacer_dbus::actions::SET_CPU_POWER), "yes");
    assert_eq!(defaults_of(pacer_dbus::actions::READ_HISTORY), "yes");
    for id in [
        pacer_dbus::actions::SET_SCHEDULER,
        pacer_dbus::actions::SET_DRIVER_MODE,
        pacer_dbus::actions::RUN_MEASUREMENT,
    ] {
        assert_eq!(defaults_of(id), "auth_admin_keep", "{id}");
    }
}

#[test]
fn the_bus_policy_lets_only_root_own_the_name() {
    let conf = std::fs::read_to_string(data("io.github.pacerapp.Pacer.Helper1.conf")).unwrap();
    let owners: Vec<&str> = conf
        .match_indices("<allow own=")
        .map(|(at, _)| &conf[..at])
        .collect();
    assert_eq!(owners.len(), 1);
    assert!(owners[0].trim_end().ends_with("<policy user=\"root\">"));
}

#[test]
fn the_unit_is_hardened_to_an_exposure_of_at_most_1_5() {
    let unit = std::fs::read_to_string(data("pacer-helper.service.in")).unwrap();
    let (score, line) = exposure("pacer-helper.service", &unit);
    assert!(score <= 1.5, "{line}");
    // The access the helper needs stays: the files it writes writable under the read-only
    // /sys and /proc/sys, pinning and priority for a measurement, root-owned files, restarts.
    let needed = &[
        "ProtectKernelTunables=yes",
        "-/sys/devices/system/cpu/cpufreq",
        "-/sys/devices/system/cpu/intel_pstate",
        "-/sys/devices/system/cpu/amd_pstate",
        "-/proc/sys/kernel/sched_energy_aware",
        "SystemCallFilter=sched_setaffinity setpriority fanotify_mark",
        "ProtectProc=default",
        "CapabilityBoundingSet=CAP_SYS_NICE\n",
        "--privileged-socket /run/pacer-helper-privileged.socket",
        "Requires=pacer-helper-privileged.socket",
        "MemoryMax=",
        "TasksMax=",
        "StateDirectory=pacer-helper",
        "Restart=on-failure",
        "Slice=pacer.slice",
    ];
    has_all(&unit, needed);
    // In its settings, not the comments that say why.
    let settings: Vec<&str> = unit.lines().filter(|line| !line.starts_with('#')).collect();
    for forbidden in [
        "ReadOnlyPaths=/sys",
        "User=",
        "CAP_DAC_OVERRIDE",
        "CAP_SYS_ADMIN",
        "fanotify_init",
    ] {
        assert!(
            !settings.iter().any(|line| line.contains(forbidden)),
            "{forbidden}"
        );
    }
    assert!(
        unit.contains("Type=dbus") && unit.contains("BusName=io.github.pacerapp.Pacer.Helper1")
    );
}

/// Each of `needed` stands in `text`.
fn has_all(text: &str, needed: &[&str]) {
    for needed in needed {
        assert!(text.contains(needed), "{needed}");
    }
}

/// `systemd-analyze security`'s overall exposure of the unit `text`, named `name`, and its line.
fn exposure(name: &str, text: &str) -> (f64, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text.replace("@libexecdir@", "/usr/libexec")).unwrap();
    let output = Command::new("systemd-analyze")
        .args(["security", "--offline=yes", "--no-pager"])
        .arg(&file)
        .output()
        .expect("systemd-analyze runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text
        .lines()
        .find(|line| line.contains("Overall exposure level"))
        .unwrap_or_else(|| panic!("{text}{}", String::from_utf8_lossy(&output.stderr)));
    let score: f64 = line
        .split(": ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    (score, line.to_owned())
}

#[test]
fn the_privileged_step_holds_cap_sys_admin_alone_for_root_s_helper() {
    let socket = std::fs::read_to_string(data("pacer-helper-privileged.socket")).unwrap();
    let needed = &[
        "ListenStream=/run/pacer-helper-privileged.socket\n",
        "SocketUser=root\n",
        "SocketMode=0600\n",
        "Accept=yes\n",
        "RemoveOnStop=yes\n",
    ];
    has_all(&socket, needed);
    let step = std::fs::read_to_string(data("pacer-helper-privileged@.service.in")).unwrap();
    let needed = &[
        "ExecStart=@libexecdir@/pacer-helper --privileged-step\n",
        "StandardInput=socket\n",
        "CapabilityBoundingSet=CAP_SYS_ADMIN\n",
        "SystemCallFilter=fanotify_init\n",
        "ReadWritePaths=-/proc/sys/kernel/sched_energy_aware\n",
        "RuntimeMaxSec=",
    ];
    has_all(&step, needed);
    // All but the one capability taken away, it scores as well as the helper.
    let (score, line) = exposure("pacer-helper-privileged@.service", &step);
    assert!(score <= 1.5, "{line}");
}

#[test]
fn the_activation_file_names_the_unit() {
    let service =
        std::fs::read_to_string(data("io.github.pacerapp.Pacer.Helper1.service.in")).unwrap();
    assert!(service.contains("Name=io.github.pacerapp.Pacer.Helper1\n"));
    assert!(service.contains("SystemdService=pacer-helper.service\n"));
    assert!(service.contains("User=root\n"));
}

#[test]
fn the_slice_weighs_the_helper_above_the_other_top_slices() {
    let slice = data("pacer.slice");
    let text = std::fs::read_to_string(&slice).unwrap();
    // 100 times user.slice's and system.slice's default weight (CFS weights count among
    // siblings only; nice does not cross cgroups).
    assert!(text.contains("\nCPUWeight=10000\n"), "{text}");
    let output = Command::new("systemd-analyze")
        .args(["verify", "--no-pager"])
        .arg(&slice)
        .output()
        .expect("systemd-analyze runs");
    let complaints = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && complaints.trim().is_empty(),
        "{complaints}"
    );
}
