//! Pacer's privileged helper on the system bus, as a library: the binary `pacer-helper` runs
//! [`daemon::run`]; tests, benchmarks and fuzz targets reach the parts directly.

pub mod activity;
mod authority;
pub mod daemon;
mod history_service;
pub mod journal;
pub mod kernel;
pub mod recorder;
mod service;
mod status_cache;
pub mod validate;

pub use daemon::Options;
