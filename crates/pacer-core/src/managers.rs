// SPDX-License-Identifier: GPL-3.0-or-later
//! Other power managers running at once: each writes EPP, governors or the platform profile
//! on its own schedule, so two of them undo each other's work.

use serde::Serialize;

use crate::profile::{DaemonKind, ProfileState};
use crate::sysfs::SysRoot;

/// A power manager found running, and how it was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PowerManager {
    /// `power-profiles-daemon`, `tuned`, `tlp`, `auto-cpufreq`, `system76-power`, `asusd`.
    pub name: &'static str,
    /// What gave it away: `process 1234`, `bus name com.redhat.tuned`, `/run/tlp`.
    pub evidence: Vec<String>,
}

/// Process names (`comm`, cut to 15 characters) of power managers.
const PROCESSES: [(&str, &str); 7] = [
    ("power-profiles-", "power-profiles-daemon"),
    ("tuned", "tuned"),
    ("tuned-ppd", "tuned"),
    ("tlp-pd", "tlp"),
    ("auto-cpufreq", "auto-cpufreq"),
    ("system76-power", "system76-power"),
    ("asusd", "asusd"),
];

/// Bus names of power managers (the profile-daemon names are told apart by their owner).
const BUS_NAMES: [(&str, &str); 4] = [
    ("com.redhat.tuned", "tuned"),
    ("com.system76.PowerDaemon", "system76-power"),
    ("org.asuslinux.Daemon", "asusd"),
    ("xyz.ljones.Asusd", "asusd"),
];

fn manager_of_daemon(kind: DaemonKind) -> Option<&'static str> {
    match kind {
        DaemonKind::PowerProfilesDaemon => Some("power-profiles-daemon"),
        DaemonKind::TunedPpd => Some("tuned"),
        DaemonKind::TlpPd => Some("tlp"),
        DaemonKind::System76Power => Some("system76-power"),
        DaemonKind::Unknown => None,
    }
}

/// Finds power managers by their processes (under `root`'s `proc`), bus names, and TLP's run
/// directory (TLP has no daemon: it runs at boot and on power-source changes).
pub fn detect(
    root: &SysRoot,
    bus_names: &[String],
    profile: Option<&ProfileState>,
) -> Vec<PowerManager> {
    let mut found: Vec<PowerManager> = Vec::new();
    let mut note = |name: &'static str, evidence: String| match found
        .iter_mut()
        .find(|manager| manager.name == name)
    {
        Some(manager) => manager.evidence.push(evidence),
        None => found.push(PowerManager {
            name,
            evidence: vec![evidence],
        }),
    };

    if let Some(state) = profile {
        if let Some(name) = manager_of_daemon(state.daemon) {
            note(name, format!("bus name {}", state.bus_name));
        }
    }
    for bus_name in bus_names {
        if let Some((_, name)) = BUS_NAMES.iter().find(|(known, _)| known == bus_name) {
            note(name, format!("bus name {bus_name}"));
        }
    }
    for pid in root.list_dir("proc").unwrap_or_default() {
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // A process may exit between listing and reading: that is not a problem.
        let Ok(comm) = root.read_text(&format!("proc/{pid}/comm")) else {
            continue;
        };
        let comm = comm.trim_end();
        if let Some((_, name)) = PROCESSES.iter().find(|(process, _)| *process == comm) {
            if runs_as_root(root, &pid) {
                note(name, format!("process {pid}"));
            }
        }
    }
    if root.path("run/tlp").is_dir() {
        note("tlp", "/run/tlp".to_owned());
    }
    found
}

/// Whether process `pid` runs as root, as power managers do: any user may start a program
/// named `tuned`, and it could not change a thing. A process whose status cannot be read (a
/// tree that lists its name alone) is taken as its name says.
fn runs_as_root(root: &SysRoot, pid: &str) -> bool {
    let Ok(status) = root.read_text(&format!("proc/{pid}/status")) else {
        return true;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|uids| uids.split_whitespace().next())
        .is_none_or(|uid| uid == "0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_managers_by_process_bus_name_and_run_directory() {
        let dir = tempfile::tempdir().unwrap();
        for (pid, comm) in [
            ("1", "systemd"),
            ("40", "auto-cpufreq"),
            ("41", "tuned"),
            ("42", "power-profiles-"),
        ] {
            std::fs::create_dir_all(dir.path().join(format!("proc/{pid}"))).unwrap();
            std::fs::write(
                dir.path().join(format!("proc/{pid}/comm")),
                format!("{comm}\n"),
            )
            .unwrap();
        }
        // A user's program of a manager's name is not one.
        std::fs::create_dir_all(dir.path().join("proc/43")).unwrap();
        std::fs::write(dir.path().join("proc/43/comm"), "tlp-pd\n").unwrap();
        std::fs::write(
            dir.path().join("proc/43/status"),
            "Name:\ttlp-pd\nUid:\t1000\t1000\t1000\t1000\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("proc/41/status"),
            "Name:\ttuned\nUid:\t0\t0\t0\t0\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("proc/self")).unwrap();
        std::fs::create_dir_all(dir.path().join("run/tlp")).unwrap();
        let root = SysRoot::new(dir.path());
        let managers = detect(
            &root,
            &["com.redhat.tuned".to_owned(), ":1.4".to_owned()],
            None,
        );
        let names: Vec<&str> = managers.iter().map(|m| m.name).collect();
        assert_eq!(
            names,
            ["tuned", "auto-cpufreq", "power-profiles-daemon", "tlp"]
        );
        assert_eq!(
            managers[0].evidence,
            ["bus name com.redhat.tuned", "process 41"]
        );
    }

    #[test]
    fn a_quiet_machine_has_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(detect(&SysRoot::new(dir.path()), &[], None).is_empty());
    }
}
