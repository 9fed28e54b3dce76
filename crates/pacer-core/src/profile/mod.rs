// SPDX-License-Identifier: GPL-3.0-or-later
//! The power-profile daemon: who it is, what it says, and what its profile implies for the
//! CPU (`docs/power-profiles.md`).

pub mod client;
pub mod daemon;
pub mod expect;

pub use client::{ProfileProblem, ProfileReading};
pub use daemon::{DaemonKind, PpdVersion, ProfileState};
pub use expect::{expectation, Expectation, NoExpectation};
