// SPDX-License-Identifier: GPL-3.0-or-later
//! What the helper's bus tests share: a private system bus with python-dbusmock's polkitd,
//! a helper on a simulated machine, and the helper's refusals read back as problems.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use pacer_dbus::{actions, ErrorKind, Helper1Proxy, HelperError, Problem};
use pacer_testrig::{Service, SystemBus};

pub const HELPER: &str = env!("CARGO_BIN_EXE_pacer-helper");
pub const CPUFREQ: &str = "sys/devices/system/cpu/cpufreq";

pub struct Rig {
    pub bus: SystemBus,
    pub tree: tempfile::TempDir,
    pub state: tempfile::TempDir,
    _polkit: Service,
    pub helper: Option<Service>,
}

impl Rig {
    pub fn start(model: &str) -> Rig {
        let tree = pacer_testrig::model_tree(model);
        Rig::with_tree(tree)
    }

    pub fn with_tree(tree: tempfile::TempDir) -> Rig {
        let bus = SystemBus::start();
        let polkit = bus.polkit(&actions::ALL);
        let mut rig = Rig {
            bus,
            tree,
            state: tempfile::tempdir().unwrap(),
            _polkit: polkit,
            helper: None,
        };
        rig.start_helper();
        rig
    }

    pub fn start_helper(&mut self) {
        self.helper = Some(self.bus.pacer_helper(self.tree.path(), self.state.path()));
    }

    pub fn root(&self) -> &Path {
        self.tree.path()
    }

    pub fn read(&self, policy: u32, file: &str) -> String {
        fs::read_to_string(self.root().join(format!("{CPUFREQ}/policy{policy}/{file}")))
            .unwrap()
            .trim_end()
            .to_owned()
    }

    /// Every file of the tree with its content, to show nothing changed.
    pub fn tree_contents(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut found = BTreeMap::new();
        let mut pending = vec![self.root().join("sys"), self.root().join("proc")];
        while let Some(dir) = pending.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                // A file being replaced (written beside under a temporary name, then renamed)
                // may be gone between the listing and the read: it is not a setting.
                let replacing = path
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy().ends_with(".pacer-tmp"));
                let Ok(meta) = fs::symlink_metadata(&path) else {
                    continue;
                };
                if meta.is_dir() {
                    pending.push(path);
                } else if meta.is_file() && !replacing && !path.ends_with("scaling_cur_freq") {
                    found.insert(path.clone(), fs::read(&path).unwrap());
                }
            }
        }
        found
    }

    pub async fn proxy(&self) -> Helper1Proxy<'static> {
        connect(&self.bus).await.1
    }
}

/// A connection of its own to `bus`, and the helper's proxy on it.
pub async fn connect(bus: &SystemBus) -> (zbus::Connection, Helper1Proxy<'static>) {
    let connection = zbus::connection::Builder::address(bus.address())
        .unwrap()
        .build()
        .await
        .unwrap();
    let proxy = Helper1Proxy::new(&connection).await.unwrap();
    (connection, proxy)
}

pub fn error<T: std::fmt::Debug>(result: zbus::Result<T>) -> HelperError {
    HelperError::from_call(result.expect_err("the call must fail"))
}

/// The helper's problem with its kind, and its words in this (the test's) language.
pub fn refusal<T: std::fmt::Debug>(result: zbus::Result<T>) -> (ErrorKind, Problem, String) {
    match error(result) {
        HelperError::Helper(problem) => (problem.kind(), problem.clone(), problem.to_string()),
        other => panic!("not the helper's refusal: {other:?}"),
    }
}

/// A bus that starts the helper on the first call (D-Bus activation), on a simulated machine
/// of its own with its journal in a directory of its own, exiting after a second without
/// calls; polkit's stand-in allows every action.
pub struct Activated {
    pub bus: SystemBus,
    _tree: tempfile::TempDir,
    _state: tempfile::TempDir,
    _polkit: Service,
}

impl Activated {
    pub fn start(model: &str) -> Activated {
        let tree = pacer_testrig::model_tree(model);
        let state = tempfile::tempdir().unwrap();
        let bus = SystemBus::start_with(|services| {
            fs::write(
                services.join("io.github.pacerapp.Pacer.Helper1.service"),
                format!(
                    "[D-BUS Service]\nName={}\nExec={HELPER} --sysfs-root {} --state-dir {} --idle-timeout 1\nUser=root\n",
                    pacer_dbus::BUS_NAME,
                    tree.path().display(),
                    state.path().display()
                ),
            )
            .unwrap();
            vec![pacer_dbus::BUS_NAME.to_owned()]
        });
        let polkit = bus.polkit(&actions::ALL);
        Activated {
            bus,
            _tree: tree,
            _state: state,
            _polkit: polkit,
        }
    }
}

/// A governor, EPP or driver mode by name, as clients send it.
pub fn typed<T: std::str::FromStr>(name: &str) -> T
where
    T::Err: std::fmt::Debug,
{
    name.parse().unwrap()
}

/// A call with a value no client's proxy can send (the proxy takes typed values): text as
/// anyone on the bus may send it, which the helper must refuse itself.
pub async fn raw_call<R>(
    helper: &Helper1Proxy<'_>,
    method: &str,
    body: &(impl serde::Serialize + zbus::zvariant::Type),
) -> zbus::Result<R>
where
    R: for<'d> zbus::zvariant::DynamicDeserialize<'d>,
{
    helper.inner().call(method, body).await
}
