// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl history` through the real helper on a private system bus (python-dbusmock's
//! polkitd), on a simulated laptop beside Debian's power-profiles-daemon: the EPP-restore scenario
//! (`docs/kernel.md` 2.4) —
//! one tool sets the performance governor, the profile goes to performance, another tool
//! sets powersave, and intel_pstate restores an EPP the profile does not want — reads as its
//! chain of causes, each change named with who made it; and `pacerctl fix` fixes what only
//! the recording shows, a maximum frequency the machine woke with lower.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pacer_testrig::{Service, SystemBus, PPD_ACTIONS};
use serde_json::Value;

const PACERCTL: &str = env!("CARGO_BIN_EXE_pacerctl");
const GOVERNOR: &str = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor";
const MAX_FREQ: &str = "sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq";

struct Rig {
    bus: SystemBus,
    tree: tempfile::TempDir,
    bin: tempfile::TempDir,
    _state: tempfile::TempDir,
    _services: Vec<Service>,
}

impl Rig {
    fn start() -> Rig {
        let bus = SystemBus::start();
        let mut allowed: Vec<&str> = pacer_dbus::actions::ALL.to_vec();
        allowed.extend(PPD_ACTIONS);
        let tree = pacer_testrig::model_tree("intel-hybrid");
        let state = tempfile::tempdir().unwrap();
        let services = vec![
            bus.polkit(&allowed),
            bus.power_profiles_daemon(tree.path()),
            bus.pacer_helper(tree.path(), state.path()),
        ];
        Rig {
            bus,
            tree,
            bin: tempfile::tempdir().unwrap(),
            _state: state,
            _services: services,
        }
    }

    fn pacerctl(&self, args: &[&str]) -> Command {
        let mut command = self.bus.command(PACERCTL);
        command
            .args(args)
            .arg("--sysfs-root")
            .arg(self.tree.path())
            .env("LC_ALL", "C");
        command
    }

    /// Debian's python3 running `script` on the bus, once it printed its first line (which
    /// is returned); it goes on until its standard input closes.
    fn python(&self, script: &str) -> (Child, String) {
        let mut child = self
            .bus
            .command("/usr/bin/python3")
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        (child, line)
    }

    /// A tool called `name` writing `value` to the governor of policy 0 through the
    /// simulated kernel's rules (pacerctl under that name: the kernel names a process by the
    /// file it was started from). The helper names a writer only while it still runs (a PID
    /// is another process's once its writer has exited), so the tool's standard output is a
    /// full pipe: after its write it blocks on its "written" line until [`Tool::finish`].
    fn tool_writes(&self, name: &str, value: &str) -> Tool {
        let program = self.bin.path().join(name);
        std::os::unix::fs::symlink(PACERCTL, &program).unwrap();
        let (output, full) = rustix::pipe::pipe().unwrap();
        let capacity = rustix::pipe::fcntl_getpipe_size(&full).unwrap();
        let mut full = std::fs::File::from(full);
        full.write_all(&vec![b'.'; capacity]).unwrap();
        let child = Command::new(&program)
            .args(["--sysfs-root"])
            .arg(self.tree.path())
            .args(["simulate", "write", GOVERNOR, value])
            .stdout(full)
            .spawn()
            .unwrap();
        Tool {
            child,
            output: output.into(),
        }
    }
}

/// A tool that wrote and now waits, blocked on its full standard output.
struct Tool {
    child: Child,
    output: std::fs::File,
}

impl Tool {
    fn id(&self) -> u32 {
        self.child.id()
    }

    /// Lets the tool print and exit; whether it succeeded.
    fn finish(&mut self) -> bool {
        std::io::copy(&mut self.output, &mut std::io::sink()).unwrap();
        self.child.wait().unwrap().success()
    }
}

/// The events `pacerctl history --follow --json` prints, one per line.
struct Follower {
    child: Child,
    lines: mpsc::Receiver<Value>,
    seen: Vec<Value>,
}

impl Follower {
    fn start(rig: &Rig) -> Follower {
        let mut child = rig
            .pacerctl(&["history", "--follow", "--json"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.unwrap();
                let event = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not a JSON event ({e}): {line}"));
                if sender.send(event).is_err() {
                    break;
                }
            }
        });
        Follower {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits for an event that `wanted` takes, and returns it.
    fn wait_for(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(found) = self.seen.iter().find(|e| wanted(e)) {
            return found.clone();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            let Ok(event) = self.lines.recv_timeout(left) else {
                break;
            };
            self.seen.push(event.clone());
            if wanted(&event) {
                return event;
            }
        }
        panic!("no {what} among {:#?}", self.seen);
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is(event: &Value, setting: &str, new: &str, source: &str) -> bool {
    event["setting"] == setting
        && event["new"] == new
        && event["source"] == source
        && (event["policies"] == serde_json::json!([0])
            || event["policies"] == serde_json::json!([]))
}

#[test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
fn the_epp_restore_scenario_reads_as_a_chain_of_causes() {
    let rig = Rig::start();
    let mut follow = Follower::start(&rig);
    follow.wait_for("start of the recording", |e| {
        is(e, "recording", "started", "pacer")
    });

    let mut tlp = rig.tool_writes("tlp", "performance");
    let first = follow.wait_for("governor written by tlp", |e| {
        is(e, "governor", "performance", "process")
    });
    assert!(tlp.finish());
    assert_eq!(first["process"]["comm"], "tlp");
    assert_eq!(first["process"]["pid"], tlp.id());
    let forced = follow.wait_for("EPP forced by the kernel", |e| {
        is(e, "epp", "performance", "kernel")
    });
    assert_eq!(forced["cause"], first["id"]);

    rig.bus.set_profile("performance").unwrap();
    let profile = follow.wait_for("the daemon's profile", |e| {
        is(e, "profile", "performance", "daemon")
    });
    assert_eq!(profile["old"], "balanced");
    let daemon = profile["process"]["comm"].as_str().unwrap();
    assert!(daemon.starts_with("power-profiles"), "{profile}");
    // The daemon writes the EPP itself: each write is its process's.
    let written = follow.wait_for("an EPP written by the daemon", |e| {
        e["setting"] == "epp" && e["source"] == "process" && e["policies"] == serde_json::json!([5])
    });
    assert_eq!(written["process"]["comm"], daemon);
    assert_eq!(written["new"], "performance");

    let mut other = rig.tool_writes("auto-cpufreq", "powersave");
    let second = follow.wait_for("governor written by auto-cpufreq", |e| {
        is(e, "governor", "powersave", "process")
    });
    assert!(other.finish());
    assert_eq!(second["process"]["comm"], "auto-cpufreq");
    let restored = follow.wait_for("EPP restored by the kernel", |e| {
        is(e, "epp", "balance_performance", "kernel")
    });
    assert_eq!(restored["cause"], second["id"]);
    assert_eq!(restored["old"], "performance");

    // The same chain in words, from the history the helper keeps.
    let output = rig
        .pacerctl(&["history", "--since", "10m"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    for line in [
        format!(
            "governor on policy 0: powersave → performance  by tlp (pid {}",
            tlp.id()
        ),
        format!(
            "EPP on policy 0: balance_performance → performance  by the kernel, after change #{}",
            first["id"]
        ),
        "power profile: balanced → performance  by the profile daemon, power-profiles".to_owned(),
        format!(
            "EPP on policy 0: performance → balance_performance  by the kernel, after change #{}",
            second["id"]
        ),
    ] {
        assert!(text.contains(&line), "no «{line}» in:\n{text}");
    }
}

/// Has the logind stand-in say that the machine goes to sleep (`start`) or woke, until the
/// recording `follow` shows it (the helper's logind follower subscribes as the watch opens:
/// the first word may come before it listens).
fn logind_says(rig: &Rig, follow: &mut Follower, start: bool) {
    let value = if start { "suspending" } else { "resumed" };
    let signal = format!("[<{start}>]");
    for _ in 0..10 {
        let args = [
            "org.freedesktop.login1.Manager",
            "PrepareForSleep",
            "b",
            &signal,
        ];
        rig.bus
            .call(
                "org.freedesktop.login1",
                "/org/freedesktop/login1",
                "org.freedesktop.DBus.Mock.EmitSignal",
                &args,
            )
            .expect("the logind mock emits PrepareForSleep");
        while let Ok(event) = follow.lines.recv_timeout(Duration::from_millis(300)) {
            follow.seen.push(event.clone());
            if is(&event, "sleep", value, "kernel") {
                return;
            }
        }
    }
    panic!("the helper never recorded the machine {value}");
}

#[test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
fn fix_restores_a_maximum_frequency_the_machine_woke_with_lower() {
    let rig = Rig::start();
    let _logind = rig.bus.dbusmock("logind", "org.freedesktop.login1");
    let mut follow = Follower::start(&rig);
    follow.wait_for("start of the recording", |e| {
        is(e, "recording", "started", "pacer")
    });
    logind_says(&rig, &mut follow, true);
    // Policy 0 wakes held at 400 MHz: the file replaced, as the kernel does, no process's write.
    let max = rig.tree.path().join(MAX_FREQ);
    std::fs::write(max.with_extension("resume"), "400000\n").unwrap();
    std::fs::rename(max.with_extension("resume"), &max).unwrap();
    logind_says(&rig, &mut follow, false);

    let output = rig.pacerctl(&["fix"]).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let out = String::from_utf8_lossy(&output.stdout);
    for line in [
        "The maximum frequency of policy 0 came back from sleep lower: 4.7 GHz → 400 MHz",
        "echo 4700000 | sudo tee /sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq",
        "the maximum frequency is now 4.7 GHz on policy 0",
    ] {
        assert!(out.contains(line), "no «{line}» in:\n{out}");
    }
    assert_eq!(std::fs::read_to_string(&max).unwrap(), "4700000\n");
    let again = rig.pacerctl(&["fix"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        "Nothing to fix: no findings.\n"
    );
}

/// An application holding a profile while it runs, with python-dbus (the daemon lets a hold
/// go when its application leaves the bus): held until its standard input closes.
const HOLDER: &str = "
import sys, dbus
daemon = dbus.SystemBus().get_object('net.hadess.PowerProfiles', '/net/hadess/PowerProfiles')
cookie = daemon.HoldProfile('performance', 'playing a film', 'org.example.Player',
                            dbus_interface='net.hadess.PowerProfiles')
print(cookie, flush=True)
sys.stdin.read()
";

#[test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
fn a_profile_hold_is_the_daemons_with_its_application_and_reason() {
    let rig = Rig::start();
    let mut follow = Follower::start(&rig);
    follow.wait_for("start of the recording", |e| {
        is(e, "recording", "started", "pacer")
    });
    let (mut holder, cookie) = rig.python(HOLDER);
    assert!(
        cookie.trim().parse::<u32>().is_ok(),
        "no cookie: {cookie:?}"
    );

    let held = follow.wait_for("the hold", |e| {
        e["setting"] == "profile-hold" && e["new"] == "held"
    });
    assert_eq!(
        held["hold"],
        serde_json::json!({
            "application_id": "org.example.Player",
            "profile": "performance",
            "reason": "playing a film"
        })
    );
    assert_eq!(held["source"], "daemon");
    assert!(held["process"]["comm"]
        .as_str()
        .unwrap()
        .starts_with("power-profiles"));
    // The daemon switches to the held profile: after the hold, as its consequence.
    let switched = follow.wait_for("the switch to the held profile", |e| {
        is(e, "profile", "performance", "daemon")
    });
    assert!(switched["id"].as_u64() > held["id"].as_u64());

    // The application leaves: its hold goes.
    drop(holder.stdin.take());
    assert!(holder.wait().unwrap().success());
    let released = follow.wait_for("the release", |e| {
        e["setting"] == "profile-hold" && e["new"] == "released"
    });
    assert_eq!(released["hold"]["application_id"], "org.example.Player");

    let output = rig.pacerctl(&["history"]).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    for line in [
        "org.example.Player holds the performance profile: playing a film  by the profile daemon",
        "org.example.Player released its hold on the performance profile (playing a film)",
    ] {
        assert!(text.contains(line), "no «{line}» in:\n{text}");
    }
}

#[test]
fn bad_requests_are_refused_by_name() {
    let rig = Rig::start();
    let output = rig
        .pacerctl(&["history", "--since", "ten"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("ten is not a duration"));
    // Nobody watching: nothing recorded, and it says why.
    let output = rig.pacerctl(&["history"]).output().unwrap();
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("nothing recorded"));
    // polkit refuses: the refusal, in words.
    rig.bus.set_allowed(&[pacer_dbus::actions::SET_CPU_POWER]);
    let output = rig.pacerctl(&["history"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("not allowed") || error.contains("not authori"),
        "{error}"
    );
}

/// Applications holding a profile each, with a reason of a megabyte, as any application on the
/// bus may ask the daemon for; held until standard input closes.
const HUGE_HOLDS: &str = "
import sys, dbus
daemon = dbus.SystemBus().get_object('net.hadess.PowerProfiles', '/net/hadess/PowerProfiles')
for n in range(8):
    daemon.HoldProfile('performance', 'r' * 1000000, 'org.example.Flood%d' % n,
                       dbus_interface='net.hadess.PowerProfiles')
print('held', flush=True)
sys.stdin.read()
";

/// The unit's `MemoryMax=`, in bytes.
fn unit_memory_max() -> u64 {
    let unit = include_str!("../../../data/pacer-helper.service.in");
    let value = unit
        .lines()
        .find_map(|line| line.strip_prefix("MemoryMax="))
        .expect("the unit sets MemoryMax=");
    let megabytes: u64 = value.strip_suffix('M').unwrap().parse().unwrap();
    megabytes << 20
}

#[test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
fn huge_holds_and_100000_writes_leave_the_helper_within_its_units_memory() {
    let rig = Rig::start();
    let helper = rig._services[2].pid().unwrap();
    let mut follow = Follower::start(&rig);
    follow.wait_for("start of the recording", |e| {
        is(e, "recording", "started", "pacer")
    });
    let (mut holder, held) = rig.python(HUGE_HOLDS);
    assert_eq!(held.trim(), "held");
    let hold = follow.wait_for("a huge hold", |e| {
        e["setting"] == "profile-hold" && e["new"] == "held"
    });
    let reason = hold["hold"]["reason"].as_str().unwrap();
    assert!(
        reason.len() <= 256 && reason.ends_with('…'),
        "{}",
        reason.len()
    );

    // 100,000 writes, as fast as a shell makes them.
    let governor = rig.tree.path().join(GOVERNOR);
    let flood = Command::new("/bin/sh")
        .args([
            "-c",
            &format!(
                "i=0; while [ $i -lt 50000 ]; do echo performance > {0}; echo powersave > {0}; i=$((i+1)); done",
                governor.display()
            ),
        ])
        .status()
        .unwrap();
    assert!(flood.success());
    follow.wait_for("the flood's last write", |e| {
        e["setting"] == "governor" && e["new"] == "powersave" && e["source"] == "process"
    });
    let status = std::fs::read_to_string(format!("/proc/{helper}/status")).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
        .unwrap();
    let limit = unit_memory_max();
    eprintln!(
        "helper's peak memory: {} KiB of the unit's {} KiB",
        peak_kib,
        limit >> 10
    );
    assert!(peak_kib << 10 < limit, "{peak_kib} KiB");
    drop(holder.stdin.take());
    assert!(holder.wait().unwrap().success());
}
