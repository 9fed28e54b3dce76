// SPDX-License-Identifier: GPL-3.0-or-later
//! Xfce's panel (Debian's 4.18) for tests: a StatusNotifier host other than GNOME Shell's
//! AppIndicator extension. Its systray plugin owns `org.kde.StatusNotifierWatcher` itself and
//! registers as a host, then draws each item's icon in the panel. It runs with its default
//! layout (`/etc/xdg/xfce4/panel/default.xml`, copied into a private HOME on its first start)
//! on an Xvfb of its own, with no window manager (`--disable-wm-check`), on a session bus of
//! its own where xfconfd, the settings store it reads that layout from, runs beside it.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::desktop::Screenshot;
use crate::desktop::{
    deref_to_panel_session, private_home, wait_for_panel, x_server, PanelSession,
};
use crate::{Service, SystemBus};

/// The settings store's name, and its D-Bus service file (which names the program: it lives
/// in an architecture's library folder).
const XFCONF: &str = "org.xfce.Xfconf";
const XFCONF_SERVICE_FILE: &str = "/usr/share/dbus-1/services/org.xfce.Xfconf.service";
/// It comes up in about 4 s on two busy cores.
const READY_LIMIT: Duration = Duration::from_secs(60);

/// A running panel; everything it started stops when it is dropped.
#[derive(Debug)]
pub struct XfcePanel {
    // Fields drop in order: the panel before its settings store, buses and X server.
    panel: Service,
    _xfconfd: Service,
    desktop: PanelSession,
}

deref_to_panel_session!(XfcePanel);

impl XfcePanel {
    /// Starts the panel, with `system_bus` as its (and its clients') system bus, and returns
    /// once its systray plugin owns the watcher and is registered there as a host.
    pub fn start(system_bus: &str) -> XfcePanel {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut env = private_home(dir.path());
        let (xvfb, display) = x_server(dir.path());
        let session = SystemBus::start_session_with(|_| Vec::new(), &[]);
        env.extend(
            [
                ("DISPLAY", display.as_str()),
                ("DBUS_SESSION_BUS_ADDRESS", session.address()),
                ("DBUS_SYSTEM_BUS_ADDRESS", system_bus),
                ("NO_AT_BRIDGE", "1"),
            ]
            .map(|(name, value)| (name.to_owned(), value.to_owned())),
        );
        let desktop = PanelSession::new(dir, xvfb, session, env);
        // Started here rather than by the bus, so that it is stopped with the panel.
        let xfconfd =
            Service::spawn_command("xfconfd", desktop.dir(), &mut desktop.command(&xfconfd()));
        desktop
            .session()
            .wait_for_name(XFCONF, Duration::from_secs(10));
        let mut command = desktop.command(Path::new("xfce4-panel"));
        command.arg("--disable-wm-check");
        let panel = Service::spawn_command("xfce4-panel", desktop.dir(), &mut command);
        let panel = XfcePanel {
            panel,
            _xfconfd: xfconfd,
            desktop,
        };
        panel.wait_until_ready();
        panel
    }

    fn wait_until_ready(&self) {
        let ready = || match self.host_registered() {
            Ok(true) => Ok(()),
            host => Err(format!("IsStatusNotifierHostRegistered: {host:?}")),
        };
        let what = "Xfce's panel registered no StatusNotifier host";
        wait_for_panel(&self.panel, READY_LIMIT, what, || self.log(), ready);
    }

    /// What the panel (and its plugins) logged so far.
    pub fn log(&self) -> String {
        self.panel.log()
    }
}

/// xfconfd, as xfconf's D-Bus service file names it.
fn xfconfd() -> PathBuf {
    let text = fs::read_to_string(XFCONF_SERVICE_FILE).unwrap_or_else(|e| {
        panic!("{XFCONF_SERVICE_FILE}: {e} (the test command installs xfconf)")
    });
    text.lines()
        .find_map(|line| line.strip_prefix("Exec="))
        .map(|exec| PathBuf::from(exec.trim()))
        .unwrap_or_else(|| panic!("{XFCONF_SERVICE_FILE} has no Exec line"))
}
