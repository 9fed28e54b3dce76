// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's privileged helper on the system bus, as a library: the binary `pacer-helper` runs
//! [`daemon::run`]; tests, benchmarks and fuzz targets reach the parts directly.

pub mod activity;
mod announcements;
mod authority;
pub mod daemon;
pub mod fanotify;
mod followers;
mod history_service;
pub mod journal;
mod kept;
pub mod kernel;
pub mod privileged;
mod recorded;
pub mod recorder;
mod service;
mod status_cache;
pub mod validate;
pub mod writers;

pub use daemon::Options;
