// SPDX-License-Identifier: GPL-3.0-or-later
//! Reading files under a root directory that stands for `/`, and recording what went wrong.
//!
//! Nothing here panics on the machine's data: a file that is missing, unreadable or garbled
//! becomes `None` plus a [`Problem`] that names the file and the reason.
//!
//! The root and reading a file (`root`), the directories kept open on the way
//! (`dir_cache`), files kept open between refreshes (`kept`), what went wrong (`problem`) and the typed reading (`probe`).

mod dir_cache;
mod kept;
mod probe;
mod problem;
mod root;

pub use self::dir_cache::DirCache;
pub(crate) use self::kept::KeptFile;
pub use self::kept::{raise_open_file_limit, KeptFiles};
pub use self::probe::{Need, Probe};
pub use self::problem::{Expected, Problem, ProblemKind};
pub use self::root::{ReadError, SysRoot};

#[cfg(test)]
mod tests;
