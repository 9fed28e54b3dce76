// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's plots: the live frequency of each CPU and the ramp-up chart, drawn with plotters
//! and cairo, as GTK widgets and (the ramp-up chart) as PNG images.
//!
//! Only `widget` knows GTK widgets; the other modules refer to each other through `super::`
//! alone, so that `benches/plot.rs` can compile them without the rest of the GUI.

mod canvas;
mod error;
mod frequency;
mod history;
mod palette;
mod png;
mod ramp;
mod raster;
mod readout;
mod strip;
mod trace;
mod widget;

pub use self::{
    canvas::{set_source, set_source_alpha},
    frequency::{FrequencyLayers, FrequencyMarks},
    history::{FrequencyHistory, TracedCpu, TypeSummary},
    palette::Palette,
    png::ramp_png,
    ramp::{draw_ramp, FrequencyTrace, Line, RampChart, RampSeries},
    readout::{PlotChange, Readout},
    strip::Shown,
    widget::{current_palette, plot_area, FrequencyPlot, RampPlot},
};
