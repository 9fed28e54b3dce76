// SPDX-License-Identifier: GPL-3.0-or-later
//! The layer under the lines: the axes, their labels and the grid, drawn by plotters; where
//! the plotting area lies, and how high the frequency axis reaches.

use pacer_core::i18n::gettext;
use plotters::prelude::*;
use plotters_cairo::CairoBackend;
use relm4::gtk::cairo::Context;

use super::super::canvas::{FONT_FAMILY, FONT_SIZE};
use super::super::error::PlotError;
use super::super::history::FrequencyHistory;
use super::super::trace::WINDOW;
use super::{FrequencyMarks, LayerKey};

/// The strip above the plotting area that holds the legend.
const LEGEND_HEIGHT: u32 = 22;

/// The axes, their labels and the grid; returns where the plotting area lies.
pub(super) fn draw_mesh(cr: &Context, key: &LayerKey) -> Result<Area, PlotError> {
    let (width, height) = key.size;
    let (palette, top_ghz) = (&key.palette, key.top_ghz);
    let backend = CairoBackend::new(cr, (width, height))
        .map_err(|error| PlotError::Layout(error.to_string()))?;
    let root = backend.into_drawing_area();
    let mut chart = ChartBuilder::on(&root)
        .margin_top(LEGEND_HEIGHT)
        .margin_right(14)
        .margin_left(4)
        .margin_bottom(4)
        .x_label_area_size(34)
        .y_label_area_size(44)
        .build_cartesian_2d(-WINDOW.as_secs_f64()..0.0, 0.0..top_ghz)?;
    let text = (FONT_FAMILY, FONT_SIZE)
        .into_font()
        .color(&palette.foreground);
    let seconds_ago = |seconds: &f64| format!("{:.0}", seconds.abs());
    let ghz = |ghz: &f64| format_ghz(*ghz);
    chart
        .configure_mesh()
        .bold_line_style(palette.grid.stroke_width(1))
        .light_line_style(TRANSPARENT)
        .axis_style(palette.foreground.stroke_width(1))
        .x_labels(7)
        .y_labels(6)
        .x_label_formatter(&seconds_ago)
        .y_label_formatter(&ghz)
        .label_style(text.clone())
        .axis_desc_style(text)
        .x_desc(gettext("seconds ago"))
        .y_desc(gettext("GHz"))
        .draw()?;
    let (left, bottom) = chart.backend_coord(&(-WINDOW.as_secs_f64(), 0.0));
    let (right, top) = chart.backend_coord(&(0.0, top_ghz));
    Ok(Area {
        left: f64::from(left),
        right: f64::from(right),
        top: f64::from(top),
        bottom: f64::from(bottom),
        top_ghz,
    })
}

/// Where the plotting area lies on the surface, and the frequency at its top.
#[derive(Debug, Clone)]
pub(super) struct Area {
    pub(super) left: f64,
    pub(super) right: f64,
    pub(super) top: f64,
    pub(super) bottom: f64,
    pub(super) top_ghz: f64,
}

impl Area {
    pub(super) fn y(&self, khz: u32) -> f64 {
        self.bottom - f64::from(khz) / 1e6 / self.top_ghz * (self.bottom - self.top)
    }

    pub(super) fn clip(&self, cr: &Context) {
        cr.rectangle(
            self.left,
            self.top,
            self.right - self.left + 1.0,
            self.bottom - self.top + 1.0,
        );
        cr.clip();
    }
}

/// A little above the highest mark or sample, on a half-GHz step, so that the highest line
/// does not run along the frame; 1 GHz while nothing is known.
pub(super) fn axis_top_ghz(history: &FrequencyHistory, marks: &[FrequencyMarks]) -> f64 {
    let highest_mark = marks
        .iter()
        .flat_map(|mark| [mark.min_khz, mark.base_khz, mark.max_khz])
        .flatten()
        .max();
    let highest = highest_mark.max(history.max_khz()).unwrap_or(0);
    let ghz = f64::from(highest) / 1e6 * 1.08;
    ((ghz * 2.0).ceil() / 2.0).max(1.0)
}

/// Whole numbers without decimals, others with one.
pub(super) fn format_ghz(ghz: f64) -> String {
    if (ghz - ghz.round()).abs() < 1e-9 {
        format!("{ghz:.0}")
    } else {
        format!("{ghz:.1}")
    }
}
