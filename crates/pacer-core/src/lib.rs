// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's logic: the machine model read from sysfs, the value types of the kernel's CPU
//! power interfaces, the power-profile daemon's client, and the rules that interpret them
//! (findings, EAS, simulated machines). No GUI.

pub mod bounded;
pub mod cpuset;
pub mod findings;
pub mod history;
pub mod i18n;
pub mod limits;
pub mod machine;
pub mod managers;
pub mod profile;
mod rfc3339;
pub mod sim;
pub mod status;
pub mod status_json;
pub mod suspend;
pub mod sysfs;
pub mod values;
pub mod who;

pub use cpuset::CpuSet;
pub use machine::{Snapshot, SnapshotError};
pub use sysfs::{Problem, SysRoot};
