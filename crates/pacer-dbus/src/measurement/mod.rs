// SPDX-License-Identifier: GPL-3.0-or-later
//! A measurement's documents as they cross the bus and the `pacerctl measure --json` contract
//! (`docs/contracts.md` 3): the ramp report and what it is made of, the wake-up report, the
//! comparison under several settings, and a measurement's progress. Plain data with the
//! conversions that keep it in step with the contract; measuring, the statistics and the
//! tables are `pacer-measure`'s, which builds on these, so that the helper's clients read
//! them without depending on the measuring itself.

pub mod compare;
pub mod progress;
pub mod report;
pub mod statistic;
pub mod wakeup;
