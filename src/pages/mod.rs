// SPDX-License-Identifier: GPL-3.0-or-later
//! The window's pages, one component each: the overview, the CPUs by core type, the
//! ramp-up measurement, and the history of who changed what.

pub(crate) mod cpus;
pub(crate) mod history;
pub(crate) mod measure;
pub(crate) mod overview;
