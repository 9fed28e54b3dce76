// SPDX-License-Identifier: GPL-3.0-or-later
//! What the helper's benchmarks share: a private system bus with python-dbusmock's polkitd
//! allowing every action, and the helper on a simulated 16-CPU laptop of its own.

#![allow(clippy::unwrap_used, dead_code)]

use pacer_dbus::actions;
use pacer_testrig::{Service, SystemBus};

pub struct BenchRig {
    pub bus: SystemBus,
    /// The simulated laptop's tree.
    pub tree: tempfile::TempDir,
    pub helper: Service,
    _polkit: Service,
    _state: tempfile::TempDir,
}

impl BenchRig {
    /// The helper as its unit runs it (exiting after its default minute without calls).
    pub fn start() -> BenchRig {
        let bus = SystemBus::start();
        let polkit = bus.polkit(&actions::ALL);
        let tree = pacer_testrig::model_tree("intel-hybrid");
        let state = tempfile::tempdir().unwrap();
        let helper = bus.pacer_helper_with(
            tree.path(),
            state.path(),
            &["--idle-timeout".as_ref(), "60".as_ref()],
        );
        BenchRig {
            bus,
            tree,
            helper,
            _polkit: polkit,
            _state: state,
        }
    }

    /// The helper's process id.
    pub fn pid(&self) -> u32 {
        self.helper.pid().unwrap()
    }

    /// A new client connection to the bus.
    pub async fn connect(&self) -> zbus::Connection {
        zbus::connection::Builder::address(self.bus.address())
            .unwrap()
            .build()
            .await
            .unwrap()
    }
}

/// A runtime of `threads` workers for the clients (one: a current-thread runtime).
pub fn runtime(threads: usize) -> tokio::runtime::Runtime {
    let mut builder = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(threads);
        builder
    };
    builder.enable_all().build().unwrap()
}
