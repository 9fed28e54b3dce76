// SPDX-License-Identifier: GPL-3.0-or-later
//! A real GNOME Shell for tests (Debian 12's 43.9, or Debian 13's 48 or Debian testing's 50
//! in a root of its own: [`Shell`]): on its own Xvfb (50, which has no X11 session, headless
//! beside it), with a private HOME whose settings are a keyfile, its own session bus (which
//! can start services such as Pacer by D-Bus activation) and the system bus it is given. It
//! is driven and read from inside by the probe extension in
//! `shell-probe/API/shell-probe@pacerapp.github.io/` (`org.gnome.Shell.Eval` needs unsafe
//! mode). One shell runs at a time: they share the machine's two cores.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::desktop::{add_unset, private_home, x_server};
use crate::{Service, SystemBus};

mod which;
pub(crate) use which::in_root;
pub use which::Shell;

/// The probe's uuid, always enabled.
pub const PROBE: &str = "shell-probe@pacerapp.github.io";
/// Debian's AppIndicator extension (gnome-shell-extension-appindicator).
pub const APPINDICATOR: &str = "ubuntu-appindicators@ubuntu.com";

const PROBE_PATH: &str = "/org/pacerapp/ShellProbe";
const READY_LIMIT: Duration = Duration::from_secs(90);

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// What a shell starts with.
#[derive(Debug, Default)]
pub struct ShellSetup {
    /// Which shell.
    pub shell: Shell,
    /// Extension folders (each named by its uuid) installed in the private HOME.
    pub extensions: Vec<PathBuf>,
    /// The uuids enabled besides the probe.
    pub enabled: Vec<String>,
    /// The system bus's address (the shell dies without one).
    pub system_bus: String,
    /// Services the session bus starts by activation: bus name and `.service` file text.
    pub session_services: Vec<(String, String)>,
    /// Variables for what the session bus starts, besides the shell's own.
    pub service_env: Vec<(String, String)>,
    /// A program started before the shell, on its display and buses with its variables,
    /// and the bus name it owns once up (a tray item before the panel that shows it).
    pub first: Option<(Command, String)>,
}

/// A running shell; everything it started stops when it is dropped.
#[derive(Debug)]
pub struct GnomeShell {
    // Fields drop in order: the shell before its buses and X server.
    shell: Service,
    first: Option<Service>,
    session: SystemBus,
    _xvfb: Service,
    env: Vec<(String, String)>,
    dir: tempfile::TempDir,
    which: Shell,
    _turn: MutexGuard<'static, ()>,
}

impl GnomeShell {
    /// Starts the shell and returns once it has loaded its extensions, with the overview
    /// hidden and the root session's notifications dropped.
    pub fn start(setup: ShellSetup) -> GnomeShell {
        let turn = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut env = private_home(dir.path());
        let home = dir.path().join("home");
        let installed = home.join(".local/share/gnome-shell/extensions");
        for folder in [&installed, &home.join(".config/glib-2.0/settings")] {
            fs::create_dir_all(folder).expect("the private HOME");
        }
        let probe = setup.shell.probe(PROBE);
        for extension in setup.extensions.iter().chain([&probe]) {
            let uuid = extension.file_name().expect("a folder named by its uuid");
            copy_folder(extension, &installed.join(uuid));
        }
        let enabled: Vec<String> = setup
            .enabled
            .iter()
            .map(String::as_str)
            .chain([PROBE])
            .map(|uuid| format!("'{uuid}'"))
            .collect();
        // The keyfile backend reads a plain file: no dconf, nothing written outside HOME.
        fs::write(
            home.join(".config/glib-2.0/settings/keyfile"),
            format!(
                "[org/gnome/shell]\nenabled-extensions=[{}]\ndisable-user-extensions=false\n\
                 welcome-dialog-last-shown-version='999'\n\n\
                 [org/gnome/desktop/interface]\nenable-animations=false\n",
                enabled.join(", ")
            ),
        )
        .expect("the settings keyfile");

        let (xvfb, display) = x_server(dir.path());
        env.extend(
            [
                ("GSETTINGS_BACKEND", "keyfile".to_owned()),
                ("DBUS_SYSTEM_BUS_ADDRESS", setup.system_bus.clone()),
                ("DISPLAY", display),
                ("XDG_CURRENT_DESKTOP", "GNOME".to_owned()),
                ("LIBGL_ALWAYS_SOFTWARE", "1".to_owned()),
                ("NO_AT_BRIDGE", "1".to_owned()),
            ]
            .into_iter()
            .chain(
                setup
                    .shell
                    .session_env()
                    .iter()
                    .map(|&(name, value)| (name, value.to_owned())),
            )
            .map(|(name, value)| (name.to_owned(), value)),
        );
        let mut service_env = env.clone();
        service_env.extend(setup.service_env.iter().cloned());
        let service_env: Vec<(&str, &str)> = service_env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        let services = &setup.session_services;
        let session = SystemBus::start_session_with(
            |folder| {
                for (name, text) in services {
                    fs::write(folder.join(format!("{name}.service")), text)
                        .expect("a session service file");
                }
                services.iter().map(|(name, _)| name.clone()).collect()
            },
            &service_env,
        );
        env.push((
            "DBUS_SESSION_BUS_ADDRESS".to_owned(),
            session.address().to_owned(),
        ));
        let first = setup.first.map(|(mut command, name)| {
            add_unset(&mut command, &env);
            let started = Service::spawn_command("first", dir.path(), &mut command);
            session.wait_for_name(&name, READY_LIMIT);
            started
        });
        let mut command =
            setup
                .shell
                .command("gnome-shell", setup.shell.display_args(), &env, dir.path());
        let shell = Service::spawn_command("gnome-shell", dir.path(), &mut command);
        let mut shell = GnomeShell {
            shell,
            first,
            session,
            _xvfb: xvfb,
            env,
            dir,
            which: setup.shell,
            _turn: turn,
        };
        shell.wait_until_ready();
        shell
    }

    fn wait_until_ready(&mut self) {
        let deadline = Instant::now() + READY_LIMIT;
        loop {
            assert!(self.shell.is_running(), "gnome-shell died:\n{}", self.log());
            let ready = self.eval("Main.layoutManager._startingUp === false");
            if ready == Ok(true.into()) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "gnome-shell was not ready within {READY_LIMIT:?} (the probe: {ready:?}):\n{}",
                self.log()
            );
            sleep(Duration::from_millis(200));
        }
        // The shell asked for, not another on the same display or bus.
        let version = self.eval("Config.PACKAGE_VERSION");
        let major = self.which.version();
        assert!(
            version.as_ref().is_ok_and(|v| v
                .as_str()
                .is_some_and(|v| v.starts_with(&format!("{major}.")))),
            "GNOME Shell {major} was asked for, {version:?} runs"
        );
        // A root session opens the overview and says it is privileged.
        self.eval(
            "Main.messageTray.getSources().forEach(source => source.destroy()); \
             Main.overview.hide(); true",
        )
        .expect("the overview hides");
        sleep(Duration::from_millis(300));
    }

    /// The value of `code`, run inside the shell, as JSON; an exception as its text.
    pub fn eval(&self, code: &str) -> Result<serde_json::Value, String> {
        let output = Command::new("busctl")
            .arg(format!("--address={}", self.session.address()))
            .args(["--json=short", "call", "org.gnome.Shell", PROBE_PATH])
            .args(["org.pacerapp.ShellProbe", "Eval", "s", code])
            .output()
            .map_err(|error| format!("busctl: {error}"))?;
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).into_owned());
        }
        let reply: serde_json::Value = serde_json::from_slice(&output.stdout)
            .map_err(|error| format!("busctl's reply: {error}"))?;
        match (reply["data"][0].as_bool(), reply["data"][1].as_str()) {
            (Some(true), Some(value)) => serde_json::from_str(value)
                .map_err(|error| format!("the probe's value {value:?}: {error}")),
            (Some(false), Some(exception)) => Err(exception.to_owned()),
            _ => Err(format!("the probe answered {reply}")),
        }
    }

    /// Waits up to `limit` for `code` to give something other than null or false, and
    /// returns it; otherwise fails with what it last gave.
    pub fn wait_for(&self, what: &str, limit: Duration, code: &str) -> serde_json::Value {
        let deadline = Instant::now() + limit;
        loop {
            let value = self.eval(code);
            match &value {
                Ok(serde_json::Value::Null | serde_json::Value::Bool(false)) | Err(_) => {}
                Ok(found) => return found.clone(),
            }
            assert!(
                Instant::now() < deadline,
                "{what}: not within {limit:?}; last {value:?}\nshell log:\n{}",
                self.log()
            );
            sleep(Duration::from_millis(100));
        }
    }

    /// Which shell it is.
    pub fn which(&self) -> Shell {
        self.which
    }

    /// The whole stage as a PNG at `path`, taken from inside the shell (the shell writes it
    /// into its own folder, which a shell in a root sees too).
    pub fn screenshot(&self, path: &Path) {
        let shot = self.dir().join("screenshot.png");
        let _ = fs::remove_file(&shot);
        let started = self.eval(&format!(
            "global._pacerShot = 'pending'; \
             const shot = new Shell.Screenshot(); \
             const stream = Gio.File.new_for_path({:?}).replace(null, false, 0, null); \
             shot.screenshot(false, stream, (self, result) => {{ \
               try {{ self.screenshot_finish(result); global._pacerShot = 'done'; }} \
               catch (error) {{ global._pacerShot = String(error); }} \
               stream.close(null); }}); true",
            shot.display().to_string()
        ));
        assert_eq!(started, Ok(true.into()), "the screenshot starts");
        let done = self.wait_for(
            "the screenshot",
            Duration::from_secs(10),
            "global._pacerShot === 'pending' ? null : global._pacerShot",
        );
        assert_eq!(done, "done", "the screenshot");
        fs::copy(&shot, path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }

    /// A real click of the primary button at (`x`, `y`) on the stage: the X server's pointer
    /// (xdotool) for a shell on one; for a headless one, a virtual pointer of its own seat,
    /// whose events go through the shell's input handling as a mouse's do.
    pub fn click_at(&self, x: i64, y: i64) {
        if !self.which.headless() {
            let status = Command::new("xdotool")
                .envs(self.env())
                .args(["mousemove", &x.to_string(), &y.to_string(), "click", "1"])
                .status()
                .expect("xdotool");
            assert!(status.success(), "xdotool clicks");
            return;
        }
        // The seat's pointer starts at 0, 0, in the hot corner: a motion away from it in x is
        // held at x 0 by the corner's barrier, and pushing on it opens the overview. Made, the
        // virtual pointer leaves the corner straight down first, as a mouse might; then it
        // moves until the shell has it where the click goes.
        self.wait_for(
            &format!("the virtual pointer moves to {x}, {y}"),
            Duration::from_secs(5),
            &format!(
                "(() => {{ if (!global._pacerPointer) {{ \
                   global._pacerPointer = Clutter.get_default_backend().get_default_seat() \
                     .create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE); \
                   global._pacerPointer.notify_absolute_motion(GLib.get_monotonic_time(), \
                     0, global.stage.height / 2); }} \
                 const [atX, atY] = global.get_pointer(); \
                 if (atX === {x} && atY === {y}) return true; \
                 global._pacerPointer.notify_absolute_motion(GLib.get_monotonic_time(), {x}, {y}); \
                 return false; }})()"
            ),
        );
        let clicked = self.eval(
            "(() => { for (const state of [Clutter.ButtonState.PRESSED, Clutter.ButtonState.RELEASED]) \
               global._pacerPointer.notify_button(GLib.get_monotonic_time(), Clutter.BUTTON_PRIMARY, state); \
             return true; })()",
        );
        assert_eq!(clicked, Ok(true.into()), "the virtual pointer clicks");
    }

    /// The program started before the shell, if any.
    pub fn first(&mut self) -> Option<&mut Service> {
        self.first.as_mut()
    }

    /// The session bus the shell, and what it starts, are on.
    pub fn session(&self) -> &SystemBus {
        &self.session
    }

    /// The shell's environment, for a client of its display and buses.
    pub fn env(&self) -> impl Iterator<Item = (&str, &str)> {
        self.env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// Gives `command` the shell's variables that it does not set itself: a client of the
    /// shell's display and buses.
    pub fn client(&self, command: &mut Command) {
        add_unset(command, &self.env);
    }

    /// A folder for the test's files, removed with the shell.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// What the shell logged so far.
    pub fn log(&self) -> String {
        self.shell.log()
    }

    /// The lines of the shell's log that report a JavaScript error or warning, a critical
    /// warning (of gjs or of `console.error`), or a failed call, with the stack lines after
    /// each. Left out: the services a bare session lacks (GeoClue, the calendar server, GDM),
    /// unless a line names Pacer.
    pub fn errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        let mut in_error = false;
        for line in self.log().lines() {
            let marked = [
                "JS ERROR",
                "JS WARNING",
                "Error:",
                "Gjs-CRITICAL",
                // console.error(), which extensions for 45 and later use for their errors.
                "Gjs-Console-CRITICAL",
                "Exception",
            ]
            .iter()
            .any(|mark| line.contains(mark));
            let absent_service = line.contains("was not provided by any .service files")
                && !line.contains("pacerapp");
            if marked {
                in_error = !absent_service;
            } else if !line.contains('@') {
                // A stack line is `function@file:line:column`.
                in_error = false;
            }
            if in_error {
                errors.push(line.to_owned());
            }
        }
        errors
    }

    /// The CPU time the shell's process has used so far.
    pub fn cpu_time(&self) -> Duration {
        let pid = self.shell.pid().expect("the shell runs");
        process_cpu_time(pid)
    }

    pub fn pid(&self) -> u32 {
        self.shell.pid().expect("the shell runs")
    }
}

/// Pacer's extension as `shell-extension/build.py` builds it for `api` (legacy: GNOME Shell
/// 43–44, esm: 45–50; [`Shell::api`]), following the Pacer on `bus_name`, in `dir`/its uuid.
pub fn build_extension(api: &str, bus_name: &str, dir: &Path) -> PathBuf {
    let out = dir.join("pacer@pacerapp.github.io");
    let build = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shell-extension/build.py");
    let status = Command::new("python3")
        .arg(&build)
        .args(["--api", api, "--bus-name", bus_name, "--out"])
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("python3 {}: {e}", build.display()));
    assert!(status.success(), "{} --api {api} failed", build.display());
    out
}

/// The CPU time (user and system) process `pid` has used so far.
pub fn process_cpu_time(pid: u32) -> Duration {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command (which may hold spaces): utime is the 14th, stime the 15th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = after
        .split_whitespace()
        .filter_map(|field| field.parse().ok())
        .collect();
    let ticks = fields.get(10).unwrap_or(&0) + fields.get(11).unwrap_or(&0);
    Duration::from_millis(ticks * 1000 / clock_ticks())
}

fn clock_ticks() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|output| String::from_utf8_lossy(&output.stdout).trim().parse().ok())
        .filter(|ticks| *ticks > 0)
        .unwrap_or(100)
}

fn copy_folder(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("an extension folder");
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.expect("a folder entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target)
                .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
        }
    }
}

/// JavaScript literal for `text`.
pub fn js_string(text: &str) -> String {
    let mut literal = String::from("'");
    for c in text.chars() {
        match c {
            '\'' | '\\' => {
                literal.push('\\');
                literal.push(c);
            }
            '\n' => literal.push_str("\\n"),
            c if c.is_control() => {
                let _ = write!(literal, "\\u{{{:x}}}", c as u32);
            }
            c => literal.push(c),
        }
    }
    literal.push('\'');
    literal
}
