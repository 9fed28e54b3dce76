// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's window in its own X server, driven and photographed like a user would, for the
//! tests of the window and of the tray.

#![allow(dead_code)] // Each test file uses its own part.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

mod logind;

pub const PACER: &str = env!("CARGO_BIN_EXE_pacer");

/// Where screenshots go: `PACER_SCREENSHOTS` (the README's come from `docs/screenshots`),
/// else the target directory.
pub fn screenshot_dir() -> PathBuf {
    let dir = std::env::var_os("PACER_SCREENSHOTS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots"),
        PathBuf::from,
    );
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The environment Pacer runs with in every test: the renderer that works under Xvfb,
/// settings that start from their defaults and are not kept between tests, its debug log,
/// and untranslated words.
pub const PACER_ENV: [(&str, &str); 4] = [
    ("GSK_RENDERER", "cairo"),
    ("GSETTINGS_BACKEND", "memory"),
    ("G_MESSAGES_DEBUG", "pacer"),
    ("LC_ALL", "C.UTF-8"),
];

/// Pacer in its own X server (and session bus), with its log in a file.
pub struct Gui {
    xvfb: Child,
    dir: tempfile::TempDir,
    display: String,
    xauthority: String,
    pid: String,
    focused: std::cell::Cell<bool>,
}

impl Gui {
    /// Pacer with `args`, on the system bus at `system_bus` (none: no system bus at all), with
    /// a session bus of its own.
    pub fn start(args: &[&str], system_bus: Option<&str>) -> Gui {
        Gui::start_on(args, system_bus, None)
    }

    /// The same on the session bus at `session_bus` when given.
    pub fn start_on(args: &[&str], system_bus: Option<&str>, session_bus: Option<&str>) -> Gui {
        Gui::start_program(&[PACER.into()], args, system_bus, session_bus)
    }

    /// The same with the Pacer that `program` starts (a command line, the arguments after
    /// it): one that runs its GTK 4.18 build in Debian 13's root, say.
    pub fn start_program(
        program: &[std::ffi::OsString],
        args: &[&str],
        system_bus: Option<&str>,
        session_bus: Option<&str>,
    ) -> Gui {
        let dir = tempfile::tempdir().unwrap();
        // The display, its cookie and Pacer's pid are written out before Pacer starts.
        let script = r#"
            echo "$DISPLAY" > "$OUT/display"; echo "$XAUTHORITY" > "$OUT/xauthority"
            echo $$ > "$OUT/pid"; exec "$@" > "$OUT/log" 2>&1
        "#;
        let mut command = Command::new("xvfb-run");
        command.args(["-a", "-s", "-screen 0 900x760x24 -noreset"]);
        match session_bus {
            Some(address) => command.env("DBUS_SESSION_BUS_ADDRESS", address),
            None => command.args(["dbus-run-session", "--"]),
        };
        command
            .args(["sh", "-c", script, "sh"])
            .args(program)
            .args(args)
            .env("OUT", dir.path())
            .envs(PACER_ENV)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        match system_bus {
            Some(address) => command.env("DBUS_SYSTEM_BUS_ADDRESS", address),
            // No system bus at all: the window must say so and go on.
            None => command.env("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/bus"),
        };
        let xvfb = command
            .spawn()
            .expect("xvfb-run runs (the test command installs xvfb)");
        let read = |name: &str| {
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                if let Ok(text) = std::fs::read_to_string(dir.path().join(name)) {
                    if text.ends_with('\n') {
                        return text.trim().to_owned();
                    }
                }
                assert!(Instant::now() < deadline, "xvfb-run did not start Pacer");
                sleep(Duration::from_millis(50));
            }
        };
        let (display, xauthority, pid) = (read("display"), read("xauthority"), read("pid"));
        Gui {
            xvfb,
            dir,
            display,
            xauthority,
            pid,
            focused: std::cell::Cell::new(false),
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    /// The files Pacer's process has mapped now: its program and the libraries it loaded.
    pub fn mapped_files(&self) -> String {
        std::fs::read_to_string(format!("/proc/{}/maps", self.pid)).unwrap()
    }

    pub fn wait_for_log(&self, text: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        while !self.log().contains(text) {
            assert!(self.alive(), "pacer died:\n{}", self.log());
            assert!(
                Instant::now() < deadline,
                "no {text:?} in Pacer's log within {limit:?}:\n{}",
                self.log()
            );
            sleep(Duration::from_millis(100));
        }
    }

    pub fn alive(&self) -> bool {
        Path::new(&format!("/proc/{}", self.pid)).exists()
    }

    pub fn x(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("DISPLAY", &self.display)
            .env("XAUTHORITY", &self.xauthority);
        command
    }

    /// `xdotool` acting on Pacer's window (`args` empty: printing its id).
    pub fn on_window(&self, args: &[&str]) -> Command {
        let mut command = self.x("xdotool");
        command.args(["search", "--onlyvisible", "--name", "^Pacer$"]);
        command.args(args);
        command
    }

    /// Presses `keys` (space-separated) in the window, focused first. Focus is not asked for
    /// again while a popover is open: that would close it.
    pub fn key(&self, keys: &str) {
        if !self.focused.replace(true) {
            let status = self
                .on_window(&["windowfocus", "--sync"])
                .status()
                .expect("xdotool runs (the test command installs it)");
            assert!(status.success(), "xdotool windowfocus");
        }
        let status = self
            .x("xdotool")
            .args(["key", "--delay", "150"])
            .args(keys.split_whitespace())
            .status()
            .unwrap();
        assert!(status.success(), "xdotool key {keys}");
        sleep(Duration::from_millis(700));
    }

    /// Resizes the window; returns the width it then has (GTK keeps it at least as wide
    /// as its content needs).
    pub fn resize(&self, width: u32, height: u32) -> u32 {
        let status = self
            .on_window(&[
                "windowsize",
                "--sync",
                &width.to_string(),
                &height.to_string(),
            ])
            .status()
            .unwrap();
        assert!(status.success());
        sleep(Duration::from_millis(1000));
        let geometry = self
            .on_window(&["getwindowgeometry", "--shell"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&geometry.stdout)
            .lines()
            .find_map(|line| line.strip_prefix("WIDTH=")?.parse().ok())
            .expect("xdotool reports the window's width")
    }

    /// Saves Pacer's window as `name`.png and checks it holds a drawn window.
    pub fn screenshot(&self, name: &str) -> PathBuf {
        let window = self.on_window(&[]).output().unwrap();
        let id = String::from_utf8_lossy(&window.stdout)
            .lines()
            .next()
            .unwrap_or("root")
            .to_owned();
        self.screenshot_of(&id, name)
    }

    /// Saves the screen as `name`.png with the dialog called `title` over the window, placed
    /// as a window manager would (Xvfb has none: it opens at the screen's corner).
    pub fn screenshot_with_dialog(&self, title: &str, name: &str) {
        let found = self
            .x("xdotool")
            .args(["search", "--onlyvisible", "--name", &format!("^{title}$")])
            .args(["windowmove", "170", "120"])
            .status()
            .unwrap();
        assert!(found.success(), "no dialog called {title}");
        self.screenshot_of("root", name);
    }

    /// Saves the X window `id` ("root": the whole screen, a dialog over the window with it)
    /// as `name`.png and checks it holds a drawn window.
    pub fn screenshot_of(&self, id: &str, name: &str) -> PathBuf {
        // What the log reports is drawn at the next frame.
        sleep(Duration::from_millis(500));
        let path = screenshot_dir().join(format!("{name}.png"));
        let status = self
            .x("import")
            .args(["-window", id])
            .arg(&path)
            .status()
            .expect("import runs (the test command installs imagemagick)");
        assert!(status.success(), "import {name}");
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(
            size > 10_000,
            "{name}.png is only {size} bytes: nothing drawn?"
        );
        assert!(self.alive(), "pacer died:\n{}", self.log());
        path
    }
}

impl Drop for Gui {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(&self.pid).status();
        let _ = self.xvfb.wait();
    }
}

/// A simulated laptop with its system bus: polkit's stand-in allowing every action, the real
/// power-profiles-daemon and pacer-helper, all over one simulated tree.
pub struct Laptop {
    pub bus: pacer_testrig::SystemBus,
    pub tree: tempfile::TempDir,
    _state: tempfile::TempDir,
    profile_daemon: pacer_testrig::Service,
    _services: Vec<pacer_testrig::Service>,
}

impl Laptop {
    pub fn start(model: &str) -> Laptop {
        Laptop::start_for(pacer_testrig::gnome_shell::Shell::Host43, model)
    }

    /// The laptop with the power-profiles-daemon of `shell`'s distribution.
    pub fn start_for(shell: pacer_testrig::gnome_shell::Shell, model: &str) -> Laptop {
        let bus = pacer_testrig::SystemBus::start();
        let mut allowed: Vec<&str> = pacer_dbus::actions::ALL.to_vec();
        allowed.extend(pacer_testrig::PPD_ACTIONS);
        let tree = pacer_testrig::model_tree(model);
        let state = tempfile::tempdir().unwrap();
        let polkit = bus.polkit(&allowed);
        let profile_daemon = shell.profile_daemon(&bus, tree.path());
        let helper = bus.pacer_helper(tree.path(), state.path());
        Laptop {
            profile_daemon,
            _services: vec![polkit, helper],
            bus,
            tree,
            _state: state,
        }
    }

    /// Stops power-profiles-daemon, as a user who removes it does: no profile daemon then.
    pub fn stop_profile_daemon(&mut self) {
        self.profile_daemon.stop();
    }

    /// The tree's root, for `--sysfs-root`.
    pub fn root(&self) -> &str {
        self.tree.path().to_str().unwrap()
    }

    /// A file of the tree, by its path under the root.
    pub fn file(&self, path: &str) -> PathBuf {
        self.tree.path().join(path)
    }

    /// The EPP policy 0 reads now.
    pub fn epp(&self) -> String {
        let file =
            self.file("sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference");
        std::fs::read_to_string(file).unwrap().trim_end().to_owned()
    }

    /// The three steps of `docs/kernel.md` 2.4 (the EPP lost behind the daemon's back): the
    /// governor to performance through the helper (intel_pstate saves the EPP), the profile
    /// to performance through the daemon (it writes EPP performance, which the kernel refuses
    /// under that governor, or which it holds anyway), then the governor back to powersave
    /// (intel_pstate restores the saved EPP behind the daemon's back): the profile says
    /// performance, the EPP says otherwise.
    pub fn lose_the_epp(&self) {
        self.pacerctl(&["set", "governor", "performance"]);
        self.bus.set_profile("performance").unwrap();
        self.pacerctl(&["set", "governor", "powersave"]);
    }

    /// `pacerctl` with `args` on this laptop's tree and bus; it must succeed.
    pub fn pacerctl(&self, args: &[&str]) {
        let mut pacerctl = self
            .bus
            .command(pacer_testrig::workspace_binary("pacerctl"));
        let ran = pacerctl.args(args).arg("--sysfs-root").arg(self.root());
        let output = ran.output().unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "pacerctl {args:?}: {said}");
    }
}

/// A session bus whose accessibility bus is started the way a desktop's is, with `env` for
/// what it starts.
pub fn a11y_session(env: &[(&str, &str)]) -> pacer_testrig::SystemBus {
    pacer_testrig::SystemBus::start_session_with(
        |dir| {
            std::fs::write(
                dir.join("org.a11y.Bus.service"),
                "[D-BUS Service]\nName=org.a11y.Bus\nExec=/usr/libexec/at-spi-bus-launcher\n",
            )
            .unwrap();
            vec!["org.a11y.Bus".to_owned()]
        },
        env,
    )
}

/// What `script` (Python, with Debian's pyatspi) prints, run on the display of `gui` against
/// the accessibility bus of `session`; a failed script fails the test. The window replaces
/// widgets as readings come (a banner, a row): a walk that meets one gone ("no longer
/// exists") is run again on the window as it now is, a few times at most.
pub fn a11y_script(gui: &Gui, session: &pacer_testrig::SystemBus, script: &str) -> String {
    for _ in 0..4 {
        let output = run_a11y_script(gui, session, script);
        let gone = String::from_utf8_lossy(&output.stderr).contains("no longer exists");
        if !gone || output.status.success() {
            return script_text(&output);
        }
        sleep(Duration::from_millis(300));
    }
    script_text(&run_a11y_script(gui, session, script))
}

fn run_a11y_script(
    gui: &Gui,
    session: &pacer_testrig::SystemBus,
    script: &str,
) -> std::process::Output {
    gui.x("/usr/bin/python3")
        .args(["-c", script])
        .env("DBUS_SESSION_BUS_ADDRESS", session.address())
        .output()
        .expect("Debian's python3 runs (the test command installs python3-pyatspi)")
}

/// The script's output; a failed script fails the test.
fn script_text(output: &std::process::Output) -> String {
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "the script failed: {text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    text
}

/// A screenshot of `panel`'s screen saved at `path`, once two in a row are the same: the
/// panel (and a menu it fades in) done drawing.
pub fn settled_screenshot(
    panel: &pacer_testrig::PanelSession,
    path: &Path,
) -> pacer_testrig::xfce_panel::Screenshot {
    let mut last = panel.screenshot(path);
    wait_until(Duration::from_secs(20), "the screen settles", || {
        sleep(Duration::from_millis(300));
        let shot = panel.screenshot(path);
        let settled = shot == last;
        last = shot;
        settled
            .then_some(())
            .ok_or_else(|| "it still changes".to_owned())
    });
    last
}

/// Waits up to `limit` for `check` to hold, saying what was last seen otherwise.
pub fn wait_until(limit: Duration, what: &str, mut check: impl FnMut() -> Result<(), String>) {
    let deadline = Instant::now() + limit;
    loop {
        match check() {
            Ok(()) => return,
            Err(seen) if Instant::now() > deadline => panic!("{what}: {seen}"),
            Err(_) => sleep(Duration::from_millis(100)),
        }
    }
}

/// Pacer with `--background` on `laptop`, a client of `panel`'s display and buses; returned
/// once the panel's watcher lists its item, with the item's bus name and object path.
pub fn pacer_in_tray(
    panel: &pacer_testrig::PanelSession,
    laptop: &Laptop,
) -> (pacer_testrig::Service, String, String) {
    let mut command = Command::new(PACER);
    command
        .args(["--background", "--simulate", "intel-hybrid", "--sysfs-root"])
        .arg(laptop.root())
        .envs(PACER_ENV);
    panel.client(&mut command);
    let pacer = pacer_testrig::Service::spawn_command("pacer", panel.dir(), &mut command);
    let mut items = Vec::new();
    wait_until(
        Duration::from_secs(30),
        "the panel's watcher lists Pacer's item",
        || {
            items = panel.items()?;
            (items.len() == 1)
                .then_some(())
                .ok_or_else(|| format!("{items:?}\n{}", pacer.log()))
        },
    );
    let (service, path) = items[0].split_once('/').expect("service/path");
    (pacer, service.to_owned(), format!("/{path}"))
}

/// Pacer on the simulated `model` in good health: the real power-profiles-daemon serves its
/// profiles and the helper changes its settings; on the session bus at `session` (one of its
/// own when none). Returned once it has drawn its first frame.
pub fn healthy_machine_on(model: &str, session: Option<&str>) -> (Laptop, Gui) {
    let laptop = Laptop::start(model);
    let gui = Gui::start_on(
        &["--simulate", model, "--sysfs-root", laptop.root()],
        Some(laptop.bus.address()),
        session,
    );
    gui.wait_for_log("first frame drawn", Duration::from_secs(30));
    (laptop, gui)
}

/// Pacer on the simulated laptop, laid out in a new temporary folder (returned with it), with
/// no system bus and on the session bus at `session` (one of its own when none); returned
/// once it has drawn its first frame and its banner says the machine is simulated.
pub fn simulated_laptop_on(session: Option<&str>) -> (tempfile::TempDir, Gui) {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().to_str().unwrap();
    let gui = Gui::start_on(
        &["--simulate", "intel-hybrid", "--sysfs-root", root],
        None,
        session,
    );
    gui.wait_for_log("first frame drawn", Duration::from_secs(30));
    gui.wait_for_log("banner shows simulated", Duration::from_secs(10));
    (tree, gui)
}
