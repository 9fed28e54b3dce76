// SPDX-License-Identifier: GPL-3.0-or-later
//! What the desktop rigs (GNOME Shell, Xfce's panel, Plasma's panel) share: an X server of
//! their own, a private HOME and runtime directory, the variables a client of theirs is
//! given, and screenshots of their screen.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::{Service, SystemBus};

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

/// The whole screen of the display in `env`, saved as a PNG at `path` and read back.
pub(crate) fn screenshot(env: &[(String, String)], path: &Path) -> Screenshot {
    let mut import = Command::new("import");
    add_unset(&mut import, env);
    let status = import
        .args(["-window", "root"])
        .arg(path)
        .status()
        .expect("import runs (the test command installs imagemagick)");
    assert!(status.success(), "import -window root {}", path.display());
    Screenshot::read(path)
}

/// GLib refuses a runtime directory others can read.
fn set_private(folder: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(folder, fs::Permissions::from_mode(0o700))
        .expect("the runtime directory is private");
}

/// A screenshot's pixels, as RGB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screenshot {
    pub width: usize,
    pub height: usize,
    rgb: Vec<u8>,
}

impl Screenshot {
    /// The image at `path`, through ImageMagick's binary PPM (no image crate needed).
    pub fn read(path: &Path) -> Screenshot {
        let output = Command::new("convert")
            .arg(path)
            .args(["-depth", "8", "ppm:-"])
            .output()
            .expect("convert runs (the test command installs imagemagick)");
        assert!(output.status.success(), "convert {}", path.display());
        Screenshot::from_ppm(&output.stdout)
            .unwrap_or_else(|| panic!("{}: not the PPM convert writes", path.display()))
    }

    /// A binary PPM (`P6`, 8 bits) as convert writes it: its four header fields each
    /// followed by one whitespace character, no comments.
    fn from_ppm(bytes: &[u8]) -> Option<Screenshot> {
        let mut fields = Vec::new();
        let mut at = 0;
        while fields.len() < 4 {
            let end = at + bytes.get(at..)?.iter().position(u8::is_ascii_whitespace)?;
            fields.push(std::str::from_utf8(&bytes[at..end]).ok()?);
            at = end + 1;
        }
        let (width, height) = (fields[1].parse().ok()?, fields[2].parse().ok()?);
        let rgb = bytes.get(at..at + width * height * 3)?.to_vec();
        (fields[0] == "P6" && fields[3] == "255").then_some(Screenshot { width, height, rgb })
    }

    /// The colour at (`x`, `y`).
    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let at = (y * self.width + x) * 3;
        [self.rgb[at], self.rgb[at + 1], self.rgb[at + 2]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ppm_reads_as_its_pixels() {
        let mut ppm = b"P6\n2 1\n255\n".to_vec();
        ppm.extend([1, 2, 3, 250, 251, 252]);
        let image = Screenshot::from_ppm(&ppm).expect("a 2×1 image");
        assert_eq!((image.width, image.height), (2, 1));
        assert_eq!(image.pixel(1, 0), [250, 251, 252]);
        assert_eq!(Screenshot::from_ppm(&ppm[..ppm.len() - 1]), None);
    }
}

/// What a panel's rig (Xfce's, Plasma's) runs its panel in: an X server, a session bus, a
/// private HOME and a folder of its own; and what a test asks of it, the same in both. The
/// rigs dereference to it.
#[derive(Debug)]
pub struct PanelSession {
    // Fields drop in order: the bus before the X server, the folder last.
    session: SystemBus,
    _xvfb: Service,
    env: Vec<(String, String)>,
    dir: tempfile::TempDir,
}

impl PanelSession {
    /// The session of the X server `xvfb` and the bus `session`, whose clients get `env`,
    /// with its files in `dir`.
    pub(crate) fn new(
        dir: tempfile::TempDir,
        xvfb: Service,
        session: SystemBus,
        env: Vec<(String, String)>,
    ) -> PanelSession {
        PanelSession {
            session,
            _xvfb: xvfb,
            env,
            dir,
        }
    }

    /// `program` as one of the desktop's own: its display, buses and HOME.
    pub(crate) fn command(&self, program: &Path) -> Command {
        let mut command = Command::new(program);
        // The session's own manager, if the tests run inside one, is not this panel's.
        command.env_remove("SESSION_MANAGER");
        add_unset(&mut command, &self.env);
        command
    }

    /// The variables of a client of the display and buses.
    pub(crate) fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// The watcher's `IsStatusNotifierHostRegistered`.
    pub fn host_registered(&self) -> Result<bool, String> {
        self.session.status_notifier_host_registered()
    }

    /// The items the watcher lists, as "service/path".
    pub fn items(&self) -> Result<Vec<String>, String> {
        self.session.status_notifier_items()
    }

    /// The whole screen, saved as a PNG at `path` and read back.
    pub fn screenshot(&self, path: &Path) -> Screenshot {
        screenshot(&self.env, path)
    }

    /// The session bus the panel, and its clients, are on.
    pub fn session(&self) -> &SystemBus {
        &self.session
    }

    /// Gives `command` the panel's variables that it does not set itself: a client of the
    /// panel's display and buses.
    pub fn client(&self, command: &mut Command) {
        add_unset(command, &self.env);
    }

    /// A folder for the test's files, removed with the panel.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// Waits until `ready` says the panel that `program` runs is ready; fails when the program
/// ends or `limit` passes, saying `what`, why not yet, and what the panel logged (`log`).
pub(crate) fn wait_for_panel(
    program: &Service,
    limit: Duration,
    what: &str,
    log: impl Fn() -> String,
    mut ready: impl FnMut() -> Result<(), String>,
) {
    let deadline = Instant::now() + limit;
    loop {
        assert!(
            program.pid().is_some_and(running),
            "{what}: it ended:\n{}",
            log()
        );
        let not_yet = match ready() {
            Ok(()) => return,
            Err(why) => why,
        };
        assert!(
            Instant::now() < deadline,
            "{what} within {limit:?} ({not_yet}):\n{}",
            log()
        );
        sleep(Duration::from_millis(200));
    }
}

/// Makes the panel rig `$rig`, whose field `desktop` is its PanelSession, dereference to it.
macro_rules! deref_to_panel_session {
    ($rig:ty) => {
        /// What the panel runs in: its display, buses and folder, and what a test asks of
        /// them.
        impl std::ops::Deref for $rig {
            type Target = $crate::desktop::PanelSession;

            fn deref(&self) -> &Self::Target {
                &self.desktop
            }
        }
    };
}
pub(crate) use deref_to_panel_session;

/// Whether process `pid` is there and not a zombie.
pub(crate) fn running(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(") ")
                .map(|(_, rest)| !rest.starts_with('Z'))
        })
        .unwrap_or(false)
}
