// SPDX-License-Identifier: GPL-3.0-or-later
//! What the desktop rigs (GNOME Shell, Xfce's panel) share: an X server of their own, a
//! private HOME and runtime directory, and the variables a client of theirs is given.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::Service;

/// An Xvfb on a free display, its log in `dir`.
pub(crate) fn x_server(dir: &Path) -> (Service, String) {
    // A display's abstract socket, which a shell in a root would reach too, may be there
    // without its files.
    let abstract_sockets = fs::read_to_string("/proc/net/unix").unwrap_or_default();
    for number in 140..240 {
        if Path::new(&format!("/tmp/.X{number}-lock")).exists()
            || Path::new(&format!("/tmp/.X11-unix/X{number}")).exists()
            || abstract_sockets.contains(&format!("@/tmp/.X11-unix/X{number}\n"))
        {
            continue;
        }
        let display = format!(":{number}");
        let mut command = Command::new("Xvfb");
        command.args([&display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"]);
        let mut xvfb = Service::spawn_command(&format!("xvfb{number}"), dir, &mut command);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline && xvfb.is_running() {
            if Path::new(&format!("/tmp/.X11-unix/X{number}")).exists() {
                return (xvfb, display);
            }
            sleep(Duration::from_millis(50));
        }
        // Taken meanwhile, or slow: the next one.
    }
    panic!("no free X display between :140 and :239 (the test command installs xvfb)")
}

/// A HOME (with its config, data and cache folders) and a runtime directory under `dir`, so
/// that nothing a desktop writes lands in the user's; returns their variables.
pub(crate) fn private_home(dir: &Path) -> Vec<(String, String)> {
    let home = dir.join("home");
    let runtime = dir.join("runtime");
    let folders = [
        ("HOME", home.clone()),
        ("XDG_CONFIG_HOME", home.join(".config")),
        ("XDG_DATA_HOME", home.join(".local/share")),
        ("XDG_CACHE_HOME", home.join(".cache")),
        ("XDG_RUNTIME_DIR", runtime.clone()),
    ];
    for (_, folder) in &folders {
        fs::create_dir_all(folder).expect("the private HOME");
    }
    set_private(&runtime);
    folders
        .into_iter()
        .map(|(name, folder)| (name.to_owned(), folder.display().to_string()))
        .collect()
}

/// Sets each of `env` in `command` that it does not set already.
pub(crate) fn add_unset(command: &mut Command, env: &[(String, String)]) {
    for (name, value) in env {
        if !command.get_envs().any(|(set, _)| set == name.as_str()) {
            command.env(name, value);
        }
    }
}

/// GLib refuses a runtime directory others can read.
fn set_private(folder: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(folder, fs::Permissions::from_mode(0o700))
        .expect("the runtime directory is private");
}
