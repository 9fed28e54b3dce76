// SPDX-License-Identifier: GPL-3.0-or-later
//! Real services for tests, started and stopped by the test itself: a private system bus
//! (`dbus-daemon` with its own configuration), python-dbusmock services such as the polkitd
//! template, and Debian's real power-profiles-daemon against a tree of files
//! (`UMOCKDEV_DIR`). The recipe is in `docs/power-profiles.md` 5. Besides, whole desktops
//! that show Pacer: GNOME Shell (`gnome_shell`), Xfce's panel (`xfce_panel`) and KDE Plasma's
//! (`kde_panel`); and Pacer's builds against GTK 4.18 and 4.24 in the roots of GNOME Shell 48
//! and 50 (`gtk_root`). Every process is stopped by its own handle when the value holding it
//! is dropped.

#![allow(clippy::expect_used, clippy::panic)]

mod desktop;
pub mod gnome_shell;
pub mod gtk_root;
pub mod kde_panel;
mod logind;
pub mod reference_trees;
pub mod xfce_panel;

pub use desktop::PanelSession;

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// Debian's `python3`, which has python3-dbusmock (the one first on PATH may not).
const PYTHON: &str = "/usr/bin/python3";
/// Debian's power-profiles-daemon: `PACER_PPD` (set by `build-aux/test.sh`, which unpacks it
/// when the package is not installed), or the installed one.
fn ppd_binary() -> String {
    std::env::var("PACER_PPD").unwrap_or_else(|_| "/usr/libexec/power-profiles-daemon".to_owned())
}

/// The StatusNotifierWatcher (a tray's list of items and hosts), its name and path.
pub const WATCHER: &str = "org.kde.StatusNotifierWatcher";
pub const WATCHER_PATH: &str = "/StatusNotifierWatcher";

/// Every polkit action power-profiles-daemon checks, old and new names.
pub const PPD_ACTIONS: [&str; 6] = [
    "net.hadess.PowerProfiles.switch-profile",
    "net.hadess.PowerProfiles.hold-profile",
    "org.freedesktop.UPower.PowerProfiles.switch-profile",
    "org.freedesktop.UPower.PowerProfiles.hold-profile",
    "org.freedesktop.UPower.PowerProfiles.configure-action",
    "org.freedesktop.UPower.PowerProfiles.configure-battery-aware",
];

/// A child process stopped (TERM, then KILL) when dropped.
#[derive(Debug)]
pub struct Service {
    child: Option<Child>,
    log: PathBuf,
}

impl Service {
    /// Starts `command`, its output going to `log_dir/name.log`.
    pub fn spawn_command(name: &str, log_dir: &Path, command: &mut Command) -> Service {
        let log = log_dir.join(format!("{name}.log"));
        let file = fs::File::create(&log).expect("a log file in the rig directory");
        let child = command
            .stdin(Stdio::null())
            .stdout(file.try_clone().expect("a second handle on the log"))
            .stderr(file)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e} (the test command installs it)"));
        Service {
            child: Some(child),
            log,
        }
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// What the service printed so far.
    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.child.as_mut().map(|c| c.try_wait()), Some(Ok(None)))
    }

    /// Stops the process: TERM, then KILL after two seconds.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A private "system" bus: nothing on it is bus-activated, so a missing service fails fast.
/// The configuration of every private bus (shared with build-aux/flatpak-test.sh).
const BUS_CONFIG: &str = include_str!("../data/bus.conf.in");

#[derive(Debug)]
pub struct SystemBus {
    dir: tempfile::TempDir,
    address: String,
    _daemon: Service,
}

impl SystemBus {
    pub fn start() -> SystemBus {
        SystemBus::start_with(|_| Vec::new())
    }

    /// A bus that activates the services whose `.service` files `services` writes into the
    /// directory it is given (and returns the names of).
    pub fn start_with(services: impl FnOnce(&Path) -> Vec<String>) -> SystemBus {
        SystemBus::start_daemon(services, None)
    }

    /// A session bus that activates `services` as [`Self::start_with`] does, with `env` in
    /// the environment of what it starts (where dbus-daemon makes it their session bus).
    pub fn start_session_with(
        services: impl FnOnce(&Path) -> Vec<String>,
        env: &[(&str, &str)],
    ) -> SystemBus {
        SystemBus::start_daemon(services, Some(env))
    }

    /// `session`: a session bus, with this environment for what it starts.
    fn start_daemon(
        services: impl FnOnce(&Path) -> Vec<String>,
        session: Option<&[(&str, &str)]>,
    ) -> SystemBus {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let service_dir = dir.path().join("services");
        fs::create_dir_all(&service_dir).expect("the service directory");
        let activatable = !services(&service_dir).is_empty();
        let servicedir = if activatable {
            format!("<servicedir>{}</servicedir>", service_dir.display())
        } else {
            String::new()
        };
        let socket = dir.path().join("system_bus_socket");
        let config = dir.path().join("bus.conf");
        // What it starts has it as the bus of this type (dbus-daemon sets the address
        // variable for its type).
        let bus_type = if session.is_some() {
            "session"
        } else {
            "system"
        };
        fs::write(
            &config,
            BUS_CONFIG
                .replace("@TYPE@", bus_type)
                .replace("@SOCKET@", &socket.display().to_string())
                .replace("@SERVICEDIR@", &servicedir),
        )
        .expect("the bus configuration");
        let address = format!("unix:path={}", socket.display());
        let mut command = Command::new("dbus-daemon");
        command
            .arg(format!("--config-file={}", config.display()))
            .args(["--nofork", "--nopidfile"]);
        if let Some(env) = session {
            command.envs(env.iter().copied());
        }
        let daemon = Service::spawn_command("dbus-daemon", dir.path(), &mut command);
        let bus = SystemBus {
            dir,
            address,
            _daemon: daemon,
        };
        bus.wait_for_name("org.freedesktop.DBus", Duration::from_secs(5));
        bus
    }

    /// The value for `DBUS_SYSTEM_BUS_ADDRESS`.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// A directory for this rig's files (logs, trees).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// A command with `DBUS_SYSTEM_BUS_ADDRESS` pointing at this bus.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env("DBUS_SYSTEM_BUS_ADDRESS", &self.address);
        command
    }

    /// Calls a method with `gdbus`; returns its output or the error text.
    pub fn call(
        &self,
        dest: &str,
        path: &str,
        method: &str,
        args: &[&str],
    ) -> Result<String, String> {
        let output = self
            .command("gdbus")
            .args([
                "call",
                "--system",
                "--dest",
                dest,
                "--object-path",
                path,
                "--method",
                method,
            ])
            .args(args)
            .output()
            .expect("gdbus (libglib2.0-bin) runs");
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        } else {
            Err(String::from_utf8_lossy(&output.stderr).into_owned())
        }
    }

    pub fn has_owner(&self, name: &str) -> bool {
        self.call(
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
            &[name],
        )
        .is_ok_and(|answer| answer.contains("true"))
    }

    /// Waits until `name` is owned; panics after `limit`.
    pub fn wait_for_name(&self, name: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        while !self.has_owner(name) {
            assert!(
                Instant::now() < deadline,
                "{name} did not appear on the bus"
            );
            sleep(Duration::from_millis(20));
        }
    }

    /// Waits until `name` has no owner; panics after `limit`.
    pub fn wait_for_name_gone(&self, name: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        while self.has_owner(name) {
            assert!(Instant::now() < deadline, "{name} did not leave the bus");
            sleep(Duration::from_millis(20));
        }
    }

    /// The `RegisteredStatusNotifierItems` of the watcher on this bus: "service/path" or
    /// the service alone.
    pub fn status_notifier_items(&self) -> Result<Vec<String>, String> {
        let answer = self.call(
            WATCHER,
            WATCHER_PATH,
            "org.freedesktop.DBus.Properties.Get",
            &[WATCHER, "RegisteredStatusNotifierItems"],
        )?;
        // gdbus prints `(<['one', 'two']>,)`: the items are every other piece between quotes.
        Ok(answer
            .split('\'')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect())
    }

    /// The `IsStatusNotifierHostRegistered` of the watcher on this bus.
    pub fn status_notifier_host_registered(&self) -> Result<bool, String> {
        let answer = self.call(
            WATCHER,
            WATCHER_PATH,
            "org.freedesktop.DBus.Properties.Get",
            &[WATCHER, "IsStatusNotifierHostRegistered"],
        )?;
        Ok(answer.contains("true"))
    }

    /// The process ids of every connection to this bus but the daemon: what it activated
    /// too, which outlives it otherwise.
    pub fn connection_pids(&self) -> Vec<u32> {
        let Ok(names) = self.call(
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.ListNames",
            &[],
        ) else {
            return Vec::new();
        };
        let mut pids: Vec<u32> = names
            .split('\'')
            .skip(1)
            .step_by(2)
            .filter(|name| name.starts_with(':'))
            .filter_map(|name| {
                let answer = self
                    .call(
                        "org.freedesktop.DBus",
                        "/org/freedesktop/DBus",
                        "org.freedesktop.DBus.GetConnectionUnixProcessID",
                        &[name],
                    )
                    .ok()?;
                // `(uint32 1234,)`
                answer
                    .trim()
                    .trim_start_matches("(uint32 ")
                    .trim_end_matches(",)")
                    .parse()
                    .ok()
            })
            .collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// python-dbusmock with `template` (a name or a file) on this bus.
    pub fn dbusmock(&self, template: &str, owns: &str) -> Service {
        let service = Service::spawn_command(
            &format!(
                "dbusmock-{}",
                template.rsplit('/').next().unwrap_or(template)
            ),
            self.dir.path(),
            self.command(PYTHON)
                .args(["-m", "dbusmock", "--system", "--template", template]),
        );
        self.wait_for_name(owns, Duration::from_secs(10));
        service
    }

    /// python-dbusmock's polkitd template, allowing `actions`.
    pub fn polkit(&self, actions: &[&str]) -> Service {
        let service = self.dbusmock("polkitd", "org.freedesktop.PolicyKit1");
        self.set_allowed(actions);
        service
    }

    /// Changes what the polkitd mock allows.
    pub fn set_allowed(&self, actions: &[&str]) {
        let list: Vec<String> = actions.iter().map(|a| format!("'{a}'")).collect();
        self.call(
            "org.freedesktop.PolicyKit1",
            "/org/freedesktop/PolicyKit1/Authority",
            "org.freedesktop.DBus.Mock.SetAllowed",
            &[&format!("[{}]", list.join(","))],
        )
        .expect("the polkit mock takes SetAllowed");
    }

    /// Debian's power-profiles-daemon, reading and writing the tree under `testbed`.
    pub fn power_profiles_daemon(&self, testbed: &Path) -> Service {
        self.start_profile_daemon(self.command(ppd_binary()), testbed)
    }

    /// Starts a power-profiles-daemon by `command` (this machine's, or one a shell's root
    /// holds: `gnome_shell::Shell::profile_daemon`), reading and writing the tree under
    /// `testbed`, and waits until it answers.
    pub fn start_profile_daemon(&self, mut command: Command, testbed: &Path) -> Service {
        let service = Service::spawn_command(
            "power-profiles-daemon",
            self.dir.path(),
            command
                .env("UMOCKDEV_DIR", testbed)
                .env("G_MESSAGES_DEBUG", "all")
                .arg("-v"),
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.profile().is_err() {
            assert!(
                Instant::now() < deadline,
                "power-profiles-daemon did not come up:\n{}",
                service.log()
            );
            sleep(Duration::from_millis(20));
        }
        service
    }

    /// The legacy interface's `ActiveProfile`.
    pub fn profile(&self) -> Result<String, String> {
        let answer = self.call(
            "net.hadess.PowerProfiles",
            "/net/hadess/PowerProfiles",
            "org.freedesktop.DBus.Properties.Get",
            &["net.hadess.PowerProfiles", "ActiveProfile"],
        )?;
        Ok(answer.split('\'').nth(1).unwrap_or_default().to_owned())
    }

    /// Switches the profile through the daemon (polkit decides).
    pub fn set_profile(&self, profile: &str) -> Result<(), String> {
        self.call(
            "net.hadess.PowerProfiles",
            "/net/hadess/PowerProfiles",
            "org.freedesktop.DBus.Properties.Set",
            &[
                "net.hadess.PowerProfiles",
                "ActiveProfile",
                &format!("<'{profile}'>"),
            ],
        )
        .map(drop)
    }
}

/// A temporary directory holding the simulated machine `model`.
pub fn model_tree(model: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    pacer_core::sim::model(model)
        .unwrap_or_else(|| panic!("no simulated machine {model}"))
        .render(dir.path())
        .expect("the simulated machine is laid out");
    dir
}

/// A binary of this workspace (`pacer-helper`, `pacerctl`), built when missing: tests of one
/// crate may need another crate's program.
pub fn workspace_binary(name: &str) -> PathBuf {
    let test = std::env::current_exe().expect("the test's own path");
    // target/<profile>/deps/<test> → target/<profile>/<name>
    let profile_dir = test
        .parent()
        .and_then(Path::parent)
        .expect("a test binary under target/<profile>/deps");
    let binary = profile_dir.join(name);
    if !binary.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        // Each of these programs is the package of its name; a bench's are built optimised.
        let mut build = Command::new(cargo);
        build.args(["build", "--package", name, "--bin", name]);
        if profile_dir.ends_with("release") {
            build.arg("--release");
        }
        let status = build.status().expect("cargo runs");
        assert!(status.success(), "cargo build --bin {name} failed");
    }
    binary
}

impl SystemBus {
    /// pacer-helper on this bus, changing the tree under `root`, its journal in `state`.
    pub fn pacer_helper(&self, root: &Path, state: &Path) -> Service {
        self.pacer_helper_with(root, state, &[])
    }

    /// [`SystemBus::pacer_helper`] with more arguments; one of them may set the idle timeout
    /// (otherwise it never idles out).
    pub fn pacer_helper_with(&self, root: &Path, state: &Path, more: &[&OsStr]) -> Service {
        let mut command = self.command(workspace_binary("pacer-helper"));
        command
            .arg("--sysfs-root")
            .arg(root)
            .arg("--state-dir")
            .arg(state);
        if !more.iter().any(|arg| *arg == "--idle-timeout") {
            command.args(["--idle-timeout", "0"]);
        }
        command.args(more);
        let service = Service::spawn_command("pacer-helper", self.dir(), &mut command);
        self.wait_for_name("io.github.pacerapp.Pacer.Helper1", Duration::from_secs(10));
        service
    }
}
