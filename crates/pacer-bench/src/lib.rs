//! Pacer's measurements: how fast a core reaches full speed when work arrives, and what
//! waking a task on another core costs, exact enough for a patch mail.

pub mod ramp;
pub mod report;
pub mod stats;
pub mod trace;
pub mod wakeup;
