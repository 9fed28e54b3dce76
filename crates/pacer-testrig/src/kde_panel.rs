// SPDX-License-Identifier: GPL-3.0-or-later
//! KDE Plasma's panel (Debian's plasmashell 5.27) for tests: a StatusNotifier host besides
//! GNOME Shell's AppIndicator extension and Xfce's panel. kded5's statusnotifierwatcher
//! module owns `org.kde.StatusNotifierWatcher`; plasmashell's system tray registers as a host
//! (`org.kde.StatusNotifierHost-<pid>`) and shows each item as a button. The panel runs with
//! a layout of its own (`data/plasma-tray-only-appletsrc`: one panel with only the tray) on
//! an Xvfb of its own, with no window manager and Qt's software renderer, on a session bus
//! of its own that activates the KDE services plasmashell asks for (its activity manager,
//! its global shortcuts) and the accessibility bus, through which a test reads what the
//! tray shows: Qt puts plasmashell on it, each tray item a push button named after the
//! item's title, described by its tooltip's text, at its place on the screen.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

pub use crate::desktop::Screenshot;
use crate::desktop::{
    add_unset, deref_to_panel_session, private_home, running, wait_for_panel, x_server,
    PanelSession,
};
use crate::{Service, SystemBus, WATCHER};

/// The layout, as plasmashell reads it from the config folder.
const LAYOUT: &str = include_str!("../data/plasma-tray-only-appletsrc");
const LAYOUT_FILE: &str = "plasma-org.kde.plasma.desktop-appletsrc";
/// Where Debian's D-Bus service files are, and the ones of those the session bus activates:
/// KDE's (the activity manager, without which plasmashell loads no shell, its global
/// shortcuts, its screen setup) and the accessibility bus.
const SERVICE_FILES: &str = "/usr/share/dbus-1/services";
const ACCESSIBILITY_BUS: &str = "org.a11y.Bus.service";
/// It comes up in about 4 s on two idle cores.
const READY_LIMIT: Duration = Duration::from_secs(90);
/// The button the tray always has, which opens its hidden items: the tray is shown.
pub const EXPAND_BUTTON: &str = "Expand System Tray";

/// Prints plasmashell's push buttons on the accessibility bus as JSON: name, description
/// and extents on the screen.
const BUTTONS: &str = r#"
import json, sys, pyatspi
found = []
def walk(node, depth):
    if node is None or depth > 40:
        return
    if node.getRole() == pyatspi.ROLE_PUSH_BUTTON:
        try:
            e = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
            place = {"x": e.x, "y": e.y, "width": e.width, "height": e.height}
        except NotImplementedError:  # not on the screen (the hidden items' popup)
            place = {"x": 0, "y": 0, "width": 0, "height": 0}
        found.append({"name": node.name or "", "description": node.description or "", **place})
    for i in range(min(node.childCount, 500)):
        walk(node.getChildAtIndex(i), depth + 1)
apps = [a for a in pyatspi.Registry.getDesktop(0) if a is not None and a.name == "plasmashell"]
if not apps:
    sys.exit("plasmashell is not on the accessibility bus")
for app in apps:
    walk(app, 0)
print(json.dumps(found))
"#;

/// A push button in the panel, as the accessibility tree has it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct Button {
    pub name: String,
    pub description: String,
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
}

impl Button {
    /// Its middle, on the screen.
    pub fn centre(&self) -> (i64, i64) {
        (self.x + self.width / 2, self.y + self.height / 2)
    }
}

/// A running panel; everything it started stops when it is dropped, what the session bus
/// activated for it too.
#[derive(Debug)]
pub struct KdePanel {
    // Fields drop in order: plasmashell before kded5, the bus and the X server.
    plasmashell: Service,
    kded: Service,
    desktop: PanelSession,
}

deref_to_panel_session!(KdePanel);

impl KdePanel {
    /// Starts the panel, with `system_bus` as its (and its clients') system bus, and returns
    /// once its tray is registered as a host and shown on the accessibility bus.
    pub fn start(system_bus: &str) -> KdePanel {
        let plasmashell = which("plasmashell").unwrap_or_else(|| {
            panic!(
                "no plasmashell on PATH: the KDE panel test needs KDE Plasma (the test command \
                 installs plasma-workspace and plasma-desktop-data)"
            )
        });
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut env = private_home(dir.path());
        let config = env
            .iter()
            .find(|(name, _)| name == "XDG_CONFIG_HOME")
            .map(|(_, folder)| Path::new(folder).join(LAYOUT_FILE))
            .expect("private_home sets XDG_CONFIG_HOME");
        fs::write(config, LAYOUT).expect("the panel's layout");
        let (xvfb, display) = x_server(dir.path());
        env.extend(
            [
                ("DISPLAY", display.as_str()),
                ("DBUS_SYSTEM_BUS_ADDRESS", system_bus),
                ("QT_QPA_PLATFORM", "xcb"),
                // Drawn without a GPU.
                ("QT_QUICK_BACKEND", "software"),
                ("LIBGL_ALWAYS_SOFTWARE", "1"),
                // On the accessibility bus, which the test reads the tray from.
                ("QT_ACCESSIBILITY", "1"),
                ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1"),
                ("XDG_CURRENT_DESKTOP", "KDE"),
                ("KDE_FULL_SESSION", "true"),
                ("KDE_SESSION_VERSION", "5"),
            ]
            .map(|(name, value)| (name.to_owned(), value.to_owned())),
        );
        // What the bus activates has the display and the private HOME too (it inherits the
        // daemon's environment, not its caller's): KDE's services abort without a display.
        let bus_env: Vec<(&str, &str)> = env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        let session = SystemBus::start_session_with(kde_services, &bus_env);
        env.push((
            "DBUS_SESSION_BUS_ADDRESS".to_owned(),
            session.address().to_owned(),
        ));
        let desktop = PanelSession::new(dir, xvfb, session, env);
        // Its statusnotifierwatcher module owns the watcher; plasmashell does not start it.
        let kded = Service::spawn_command(
            "kded5",
            desktop.dir(),
            &mut desktop.command(Path::new("kded5")),
        );
        desktop
            .session()
            .wait_for_name(WATCHER, Duration::from_secs(30));
        let mut command = desktop.command(&plasmashell);
        command.arg("--no-respawn");
        let plasmashell = Service::spawn_command("plasmashell", desktop.dir(), &mut command);
        let panel = KdePanel {
            plasmashell,
            kded,
            desktop,
        };
        panel.wait_until_ready();
        panel
    }

    fn wait_until_ready(&self) {
        let ready = || {
            // The accessibility bus is first asked for once the host is there: started
            // before plasmashell, it missed plasmashell at times.
            let host = self.host_registered();
            if host != Ok(true) {
                return Err(format!("IsStatusNotifierHostRegistered: {host:?}"));
            }
            let buttons = self.buttons()?;
            match buttons.iter().any(|b| b.name == EXPAND_BUTTON) {
                true => Ok(()),
                false => Err(format!("no {EXPAND_BUTTON:?} button in {buttons:?}")),
            }
        };
        let what = "Plasma's panel showed no system tray";
        wait_for_panel(&self.plasmashell, READY_LIMIT, what, || self.log(), ready);
    }

    /// The panel's push buttons, as its accessibility tree has them: the tray's items, and
    /// its own expand button.
    pub fn buttons(&self) -> Result<Vec<Button>, String> {
        let mut python = Command::new("/usr/bin/python3");
        add_unset(&mut python, self.env());
        let output = python.args(["-c", BUTTONS]).output().map_err(|e| {
            format!("Debian's python3: {e} (the test command installs python3-pyatspi)")
        })?;
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).into_owned());
        }
        serde_json::from_slice(&output.stdout).map_err(|e| format!("{e}"))
    }

    /// Runs `xdotool` with `args` on the panel's display.
    pub fn xdotool(&self, args: &[&str]) {
        let mut xdotool = Command::new("xdotool");
        add_unset(&mut xdotool, self.env());
        let status = xdotool
            .args(args)
            .status()
            .expect("xdotool runs (the test command installs it)");
        assert!(status.success(), "xdotool {args:?}");
    }

    /// What plasmashell (and kded5) logged so far.
    pub fn log(&self) -> String {
        format!(
            "{}\n--- kded5:\n{}",
            self.plasmashell.log(),
            self.kded.log()
        )
    }
}

impl Drop for KdePanel {
    /// Stops what the bus started for the panel (the activity manager, the accessibility
    /// bus, ...), which would outlive the bus, then (as the fields drop) the rest.
    fn drop(&mut self) {
        self.plasmashell.stop();
        let ours = [Some(std::process::id()), self.kded.pid()];
        let activated: Vec<u32> = self
            .session()
            .connection_pids()
            .into_iter()
            .filter(|pid| !ours.contains(&Some(*pid)))
            .collect();
        for pid in &activated {
            let _ = Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
        }
        // The bus, their parent, reaps them once they are gone.
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline && activated.iter().any(|pid| running(*pid)) {
            sleep(Duration::from_millis(50));
        }
        for pid in activated.iter().filter(|pid| running(**pid)) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}

/// `program` on PATH.
fn which(program: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// Writes the service files the session bus activates into `dir`: Debian's for KDE and
/// for the accessibility bus.
fn kde_services(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let entries = fs::read_dir(SERVICE_FILES)
        .unwrap_or_else(|e| panic!("{SERVICE_FILES}: {e} (the test command installs dbus)"));
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.starts_with("org.kde.") || file == ACCESSIBILITY_BUS {
            fs::copy(entry.path(), dir.join(&file)).expect("a service file");
            names.push(file.trim_end_matches(".service").to_owned());
        }
    }
    names
}
