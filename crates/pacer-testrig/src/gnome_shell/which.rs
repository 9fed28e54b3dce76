// SPDX-License-Identifier: GPL-3.0-or-later
//! Which GNOME Shell a test runs: Debian 12's 43, installed on this machine, Debian 13's 48
//! or Debian testing's 50, each in the root `build-aux/shell-root.sh 48|50` lays out. Only
//! gnome-shell itself runs in a root: its X server, its buses and everything a test starts
//! (the profile daemon, Pacer) are this machine's, and the shell reaches them through the
//! host's /tmp, which it sees at the same path (a chroot shares the host's abstract X sockets
//! anyway). 50 has no X11 session: it runs headless, a Wayland compositor of its own virtual
//! monitor, while Pacer stays on the test's X server (the checks read and drive the shell
//! from inside, through the probe extension).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Service, SystemBus};

/// A GNOME Shell the tests can run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shell {
    /// Debian 12's GNOME Shell 43, this machine's.
    #[default]
    Host43,
    /// Debian 13's GNOME Shell 48, in a chroot of the root `PACER_SHELL_48_ROOT` names.
    Root48,
    /// Debian testing's GNOME Shell 50, in a chroot of the root `PACER_SHELL_50_ROOT` names.
    Root50,
}

impl Shell {
    /// The build of Pacer's extension it loads (`shell-extension/build.py --api`).
    pub fn api(self) -> &'static str {
        match self {
            Shell::Host43 => "legacy",
            Shell::Root48 | Shell::Root50 => "esm",
        }
    }

    /// Its major version, as `shell-version` in an extension's metadata names it.
    pub fn version(self) -> &'static str {
        match self {
            Shell::Host43 => "43",
            Shell::Root48 => "48",
            Shell::Root50 => "50",
        }
    }

    /// The power-profiles-daemon of its distribution: Debian 12's (0.12) owns only the
    /// name net.hadess.PowerProfiles, 43's; 48 and later follow the daemon under the name
    /// 0.20 and later own as well, org.freedesktop.UPower.PowerProfiles, and show no power
    /// toggle without it.
    pub fn has_own_profile_daemon(self) -> bool {
        self.root_variable().is_some()
    }

    /// The power-profiles-daemon of its distribution (`has_own_profile_daemon`) on `bus`,
    /// reading and writing the tree under `testbed`: this machine's for 43, else the one in
    /// the shell's root, run there as the shell is.
    pub fn profile_daemon(self, bus: &SystemBus, testbed: &Path) -> Service {
        if !self.has_own_profile_daemon() {
            return bus.power_profiles_daemon(testbed);
        }
        let env = [("DBUS_SYSTEM_BUS_ADDRESS", bus.address())]
            .map(|(name, value)| (name.to_owned(), value.to_owned()));
        let dir = bus.dir().join("profile-daemon-root");
        let daemon = "/usr/libexec/power-profiles-daemon";
        bus.start_profile_daemon(self.command(daemon, &[], &env, &dir), testbed)
    }

    /// Whether it runs headless, as a Wayland compositor: 50 has no X11 session.
    pub fn headless(self) -> bool {
        self == Shell::Root50
    }

    /// How it shows itself: an X11 compositor on the test's X server, or headless, with a
    /// virtual monitor the size of that X server's screen (where clicks land alike).
    pub(super) fn display_args(self) -> &'static [&'static str] {
        if self.headless() {
            &[
                "--headless",
                "--wayland",
                "--no-x11",
                "--virtual-monitor",
                "1280x800",
            ]
        } else {
            &["--x11", "--replace", "--sm-disable"]
        }
    }

    /// Its session's variables. Beside a headless shell, GTK programs (Pacer) are told to
    /// stay on the test's X server: the shell's Wayland socket is in the same runtime
    /// directory, and the shell passes it on to what the session bus starts.
    pub(super) fn session_env(self) -> &'static [(&'static str, &'static str)] {
        if self.headless() {
            &[("XDG_SESSION_TYPE", "wayland"), ("GDK_BACKEND", "x11")]
        } else {
            &[("XDG_SESSION_TYPE", "x11")]
        }
    }

    /// The variable naming its root (`build-aux/test.sh --lane shell-VERSION` sets it), for
    /// a shell that runs in one.
    fn root_variable(self) -> Option<&'static str> {
        match self {
            Shell::Host43 => None,
            Shell::Root48 => Some("PACER_SHELL_48_ROOT"),
            Shell::Root50 => Some("PACER_SHELL_50_ROOT"),
        }
    }

    /// The test probe's folder for this shell's module system.
    pub(super) fn probe(self, uuid: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("shell-probe")
            .join(self.api())
            .join(uuid)
    }

    /// `program` (gnome-shell, or the shell's power-profiles-daemon) with `args`: this
    /// machine's for 43; for a shell in a root, the root's, with `env` and nothing else of
    /// the test's own environment (the test's variables name this machine's programs and
    /// libraries). `dir`, a folder of the caller's, holds what the root needs of its own.
    pub fn command(
        self,
        program: &str,
        args: &[&str],
        env: &[(String, String)],
        dir: &Path,
    ) -> Command {
        let env = env.iter().map(|(name, value)| (name, value));
        match self.root_variable() {
            None => {
                let mut command = Command::new(program);
                command.args(args).envs(env);
                command
            }
            Some(variable) => {
                // Pacer names its tray icons' folder in the checkout (data/icons): the shell
                // finds it at the same path.
                let checkout = Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../..")
                    .canonicalize()
                    .expect("the checkout");
                let line = in_root(&root(self, variable), &checkout, dir);
                let mut command = Command::new(&line[0]);
                command
                    .args(&line[1..])
                    .arg(program)
                    .args(args)
                    .env_clear()
                    .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
                    .env("LANG", "C.UTF-8")
                    .envs(env);
                command
            }
        }
    }

    /// The root it runs in, for a shell that runs in one; a test without it fails.
    pub(crate) fn root(self) -> Option<PathBuf> {
        self.root_variable().map(|variable| root(self, variable))
    }
}

/// The command line, without the command, that runs a command chrooted in `root`
/// (ROOT_SHELL), `bound` read-only at its own path; `dir` holds the mount points, and stays
/// in use until the command ends.
pub(crate) fn in_root(root: &Path, bound: &Path, dir: &Path) -> Vec<OsString> {
    assert!(
        std::env::temp_dir() == Path::new("/tmp"),
        "a program in a root sees this machine's /tmp only: run the tests without TMPDIR"
    );
    let (layers, merged) = (dir.join("root-layers"), dir.join("root"));
    for folder in [&layers, &merged] {
        std::fs::create_dir_all(folder).expect("a folder for the root");
    }
    let mut line: Vec<OsString> = ["unshare", "--mount", "--propagation", "private"]
        .iter()
        .map(OsString::from)
        .collect();
    line.extend(["sh", "-euc", ROOT_SHELL, "sh"].map(OsString::from));
    line.extend([root, &layers, &merged, bound].map(|path| path.as_os_str().to_owned()));
    line
}

/// `sh -c` with ROOT LAYERS MERGED CHECKOUT COMMAND…: runs COMMAND chrooted in ROOT, in the
/// mount namespace `unshare` made for it, so that every mount goes with it, however it ends.
/// The root is the lower layer of an overlay whose upper layer is a tmpfs: the cached root is
/// never written, and folders can be made in it to mount on. Inside: /proc, /sys, /dev, this
/// machine's /tmp (the test's folders, buses and X socket at the same paths) and the checkout
/// read-only. (`crate::gtk_root` runs Pacer's GTK 4.18 and 4.24 builds this way, CHECKOUT their
/// folder.)
const ROOT_SHELL: &str = r#"
root=$1 layers=$2 merged=$3 checkout=$4
shift 4
mount -t tmpfs layers "$layers"
mkdir "$layers/upper" "$layers/work"
mount -t overlay shell-root -o "lowerdir=$root,upperdir=$layers/upper,workdir=$layers/work" "$merged"
mount -t proc proc "$merged/proc"
mount --rbind /sys "$merged/sys"
mount --rbind /dev "$merged/dev"
mount --bind /tmp "$merged/tmp"
mkdir -p "$merged$checkout"
mount --bind "$checkout" "$merged$checkout"
mount -o remount,bind,ro "$merged$checkout"
exec chroot "$merged" "$@"
"#;

/// The root of `shell`, which `variable` names; a test without it fails.
fn root(shell: Shell, variable: &str) -> PathBuf {
    let root = std::env::var_os(variable).map(PathBuf::from);
    let version = shell.version();
    match root {
        Some(root) if root.join("usr/bin/gnome-shell").exists() => root,
        _ => panic!(
            "no GNOME Shell {version} root in {variable} ({root:?}): build-aux/test.sh \
             --lane shell-{version} lays it out (as root) and runs these tests"
        ),
    }
}
