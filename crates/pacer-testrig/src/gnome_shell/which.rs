// SPDX-License-Identifier: GPL-3.0-or-later
//! Which GNOME Shell a test runs: Debian 12's 43, installed on this machine, or Debian 13's
//! 48, in the root `build-aux/shell-48-root.sh` lays out. Only gnome-shell itself runs in the
//! root: its X server, its buses and everything a test starts (the profile daemon, Pacer) are
//! this machine's, and the shell reaches them through the host's /tmp, which it sees at the
//! same path (a chroot shares the host's abstract X sockets anyway).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable naming the root of GNOME Shell 48 (`build-aux/test.sh --lane shell-48` sets
/// it).
pub const ROOT_VARIABLE: &str = "PACER_SHELL_48_ROOT";

/// A GNOME Shell the tests can run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shell {
    /// Debian 12's GNOME Shell 43, this machine's.
    #[default]
    Host43,
    /// Debian 13's GNOME Shell 48, in a chroot of the root `PACER_SHELL_48_ROOT` names.
    Root48,
}

impl Shell {
    /// The build of Pacer's extension it loads (`shell-extension/build.py --api`).
    pub fn api(self) -> &'static str {
        match self {
            Shell::Host43 => "legacy",
            Shell::Root48 => "esm",
        }
    }

    /// Its major version, as `shell-version` in an extension's metadata names it.
    pub fn version(self) -> &'static str {
        match self {
            Shell::Host43 => "43",
            Shell::Root48 => "48",
        }
    }

    /// The test probe's folder for this shell's module system.
    pub(super) fn probe(self, uuid: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("shell-probe")
            .join(self.api())
            .join(uuid)
    }

    /// `gnome-shell` with `args`, and with `env` and nothing else of the test's own
    /// environment in the root (the test's variables name this machine's programs and
    /// libraries); `dir`, the shell's folder, holds what the root needs of its own.
    pub(super) fn command(self, args: &[&str], env: &[(String, String)], dir: &Path) -> Command {
        let env = env.iter().map(|(name, value)| (name, value));
        match self {
            Shell::Host43 => {
                let mut command = Command::new("gnome-shell");
                command.args(args).envs(env);
                command
            }
            Shell::Root48 => {
                let root = root();
                assert!(
                    std::env::temp_dir() == Path::new("/tmp"),
                    "GNOME Shell 48 sees this machine's /tmp only: run the tests without TMPDIR"
                );
                // Pacer names its tray icons' folder in the checkout (data/icons): the shell
                // finds it at the same path.
                let checkout = Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../..")
                    .canonicalize()
                    .expect("the checkout");
                let (layers, merged) = (dir.join("root-layers"), dir.join("root"));
                for folder in [&layers, &merged] {
                    std::fs::create_dir_all(folder).expect("a folder for the root");
                }
                let mut command = Command::new("unshare");
                command
                    .args([
                        "--mount",
                        "--propagation",
                        "private",
                        "sh",
                        "-euc",
                        ROOT_SHELL,
                    ])
                    .arg("sh")
                    .args([&root, &layers, &merged, &checkout])
                    .arg("gnome-shell")
                    .args(args)
                    .env_clear()
                    .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
                    .env("LANG", "C.UTF-8")
                    .envs(env);
                command
            }
        }
    }
}

/// `sh -c` with ROOT LAYERS MERGED CHECKOUT COMMAND…: runs COMMAND chrooted in ROOT, in the
/// mount namespace `unshare` made for it, so that every mount goes with it, however it ends.
/// The root is the lower layer of an overlay whose upper layer is a tmpfs: the cached root is
/// never written, and folders can be made in it to mount on. Inside: /proc, /sys, /dev, this
/// machine's /tmp (the test's folders, buses and X socket at the same paths) and the checkout
/// read-only. (`crate::root_48` runs Pacer's GTK 4.18 build this way, CHECKOUT its folder.)
pub(crate) const ROOT_SHELL: &str = r#"
root=$1 layers=$2 merged=$3 checkout=$4
shift 4
mount -t tmpfs layers "$layers"
mkdir "$layers/upper" "$layers/work"
mount -t overlay shell-48 -o "lowerdir=$root,upperdir=$layers/upper,workdir=$layers/work" "$merged"
mount -t proc proc "$merged/proc"
mount --rbind /sys "$merged/sys"
mount --rbind /dev "$merged/dev"
mount --bind /tmp "$merged/tmp"
mkdir -p "$merged$checkout"
mount --bind "$checkout" "$merged$checkout"
mount -o remount,bind,ro "$merged$checkout"
exec chroot "$merged" "$@"
"#;

/// The root of GNOME Shell 48; a test without it fails.
pub(crate) fn root() -> PathBuf {
    let root = std::env::var_os(ROOT_VARIABLE).map(PathBuf::from);
    match root {
        Some(root) if root.join("usr/bin/gnome-shell").exists() => root,
        _ => panic!(
            "no GNOME Shell 48 root in {ROOT_VARIABLE} ({root:?}): \
             build-aux/test.sh --lane shell-48 lays it out (as root) and runs these tests"
        ),
    }
}
