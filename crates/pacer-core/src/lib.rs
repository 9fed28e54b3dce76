//! Pacer's pure logic: the machine model read from sysfs, the value types of the kernel's
//! CPU power interfaces, and the rules that interpret them. No GUI, no D-Bus.

pub mod cpuset;
pub mod i18n;
pub mod machine;
pub mod sim;
pub mod status_json;
pub mod sysfs;
pub mod values;

pub use cpuset::CpuSet;
pub use machine::{Snapshot, SnapshotError};
pub use sysfs::{Problem, SysRoot};
