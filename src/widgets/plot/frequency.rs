// SPDX-License-Identifier: GPL-3.0-or-later
//! The live plot: each CPU's frequency over the last minute, one colour per core type, with
//! the policy limits (min, base, max) as dashed lines.
//!
//! The window redraws it at 10 Hz, so the data lines bypass both plotters and cairo's stroker:
//! they are traced into spans of rows per pixel column (`trace`), rasterised (`raster`) and
//! kept from frame to frame (`strip`). Plotters draws the axes, grid and tick labels; cairo
//! the limits and the legend.
//!
//! In files by concern: the layers kept from frame to frame and how a frame is put together
//! (`layers`), the axes and grid (`mesh`), the policy limits and the legend (`marks`), the
//! changes of the power state and the readout's cursor (`changes`), and the rows of the
//! layer over the lines that hold anything (`row_run`). This file holds what they share: the
//! limits the window passes in and what the kept layers depend on.

mod changes;
mod layers;
mod marks;
mod mesh;
mod row_run;

pub use self::layers::FrequencyLayers;

use pacer_core::values::CoreType;

use super::palette::Palette;
use super::strip::Shown;

/// The frequency limits of the CPUs of one core type, drawn as dashed lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrequencyMarks {
    pub core_type: Option<CoreType>,
    pub min_khz: Option<u32>,
    pub base_khz: Option<u32>,
    pub max_khz: Option<u32>,
}

/// What the layers under and over the lines depend on: when it changes, they are drawn anew.
#[derive(Debug, Clone, PartialEq)]
struct LayerKey {
    size: (u32, u32),
    scale: f64,
    top_ghz: f64,
    palette: Palette,
    marks: Vec<FrequencyMarks>,
    /// The core types in the legend.
    types: Vec<Option<CoreType>>,
    shown: Shown,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
