// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's measurements: how fast a core reaches full speed when work arrives, and what
//! waking a task on another core costs, exact enough for a patch mail; and their
//! presentation (the table of `docs/measurement.md`, comparisons under several settings
//! included), with the time to 95 % in honest units, the settings of a comparison that ran
//! the same, and a verdict against published figures, shared by `pacerctl` and the window.
//! The reports they fill in are the wire contract's (`pacer_dbus::measurement`), which the
//! helper's clients read without this crate.

pub mod convergence;
pub mod disturb;
pub mod energy;
pub mod live;
pub mod model;
pub mod offcpu;
pub mod ramp;
pub mod report;
pub mod same;
pub mod sched;
pub mod source;
pub mod stats;
pub mod table;
mod time_left;
pub mod trace;
pub mod verdict;
pub mod wakeup;
