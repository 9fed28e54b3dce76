// SPDX-License-Identifier: GPL-3.0-or-later
//! The ramp-up chart: how quickly throughput reaches its steady state after work arrives, one
//! colour per measured setting and one line style per core type, on a logarithmic time axis
//! from 1 ms to 1 s; while a measurement runs, each trial's curve as it grows and the measured
//! CPU's frequency in a strip beneath.
//!
//! Plotters draws the axes; the series go straight to cairo, which can dash them.
//!
//! Longer than most files: the chart, its frequency strip and their tests (a third of it).

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::CoreType;
use plotters::prelude::*;
use plotters_cairo::CairoBackend;
use relm4::gtk::cairo::{Context, LineJoin};

use super::canvas::{self, LegendEntry, Marker, FONT_FAMILY, FONT_SIZE};
use super::error::PlotError;
use super::history::TYPES_IN_ORDER;
use super::palette::Palette;

/// What the chart shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RampChart {
    pub series: Vec<RampSeries>,
    /// The measured CPU's frequency during the trial running now, drawn beneath.
    pub frequency: Option<FrequencyTrace>,
}

/// One line: a setting's mean ramp-up on one CPU, or a single trial's.
#[derive(Debug, Clone, PartialEq)]
pub struct RampSeries {
    /// Names the line in the legend, already translated; `None` leaves it out (trials).
    pub label: Option<String>,
    /// The setting's place in a comparison (0 for a plain measurement); picks the colour.
    pub setting: usize,
    /// The type of the core measured; picks the dash and marker.
    pub core_type: Option<CoreType>,
    pub line: Line,
    /// (end of the measuring window in ms since work began, throughput in % of steady state),
    /// in time order.
    pub points: Vec<(f64, f64)>,
}

/// How a line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// The mean over trials: bold, with a marker at each window.
    Mean,
    /// A finished trial: thin and faint, behind the means.
    Trial,
    /// The trial running now: thin and full.
    Running,
}

/// A CPU's frequency over a trial.
#[derive(Debug, Clone, PartialEq)]
pub struct FrequencyTrace {
    /// `CPU 7 (P-core)`, already translated.
    pub label: String,
    pub setting: usize,
    pub core_type: Option<CoreType>,
    /// (ms since work began, MHz).
    pub points: Vec<(f64, f64)>,
}

/// The time axis, in ms.
const FIRST_MS: f64 = 1.0;
const LAST_MS: f64 = 1000.0;
/// The throughput axis, in % of steady state: a little headroom above 100 for overshoot.
const TOP_PERCENT: f64 = 110.0;
/// Where the ramp counts as done.
const REACHED_PERCENT: f64 = 95.0;
const MIN_WIDTH: u32 = 160;
const MIN_HEIGHT: u32 = 100;
/// The frequency strip's height, below the chart's time axis.
const STRIP_HEIGHT: u32 = 64;
/// Core types' dashes, in [`TYPES_IN_ORDER`]: P solid, E dashed, LP dotted, untyped dash-dot.
const DASHES: [&[f64]; 4] = [&[], &[7.0, 3.0], &[2.0, 2.5], &[9.0, 3.0, 2.0, 3.0]];

/// Draws the chart into `cr`, which covers `width` × `height` pixels from its origin. The
/// background is left as it is.
pub fn draw_ramp(
    cr: &Context,
    width: u32,
    height: u32,
    chart: &RampChart,
    palette: &Palette,
) -> Result<(), PlotError> {
    canvas::draw_saved(cr, (width, height), (MIN_WIDTH, MIN_HEIGHT), || {
        let strip = chart
            .frequency
            .as_ref()
            .filter(|trace| !trace.points.is_empty() && height >= MIN_HEIGHT + STRIP_HEIGHT);
        let chart_height = height - strip.map_or(0, |_| STRIP_HEIGHT);
        // Plotters scales the context from the clip to the size it is given: the chart's
        // own part, so that it is drawn there at scale 1.
        cr.save()?;
        cr.rectangle(0.0, 0.0, f64::from(width), f64::from(chart_height));
        cr.clip();
        let area = draw(cr, width, chart_height, &chart.series, palette);
        cr.restore()?;
        let area = area?;
        if let Some(trace) = strip {
            let top = f64::from(chart_height) + 4.0;
            draw_frequency(cr, &area, (top, f64::from(height) - 4.0), trace, palette)?;
        }
        Ok(())
    })
}

/// Where the plotting area lies on the surface.
#[derive(Debug)]
struct Area {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Area {
    fn x(&self, ms: f64) -> f64 {
        let decades = (ms / FIRST_MS).log10() / (LAST_MS / FIRST_MS).log10();
        self.left + decades * (self.right - self.left)
    }

    fn y(&self, percent: f64) -> f64 {
        self.bottom - percent / TOP_PERCENT * (self.bottom - self.top)
    }
}

/// Draws the axes and the series; returns where the plotting area lies.
fn draw(
    cr: &Context,
    width: u32,
    height: u32,
    series: &[RampSeries],
    palette: &Palette,
) -> Result<Area, PlotError> {
    let area = {
        let backend = CairoBackend::new(cr, (width, height))
            .map_err(|error| PlotError::Layout(error.to_string()))?;
        let root = backend.into_drawing_area();
        // Ticks at each decade, light grid lines at 2–9 times each.
        let light: Vec<f64> = [1.0, 10.0, 100.0]
            .iter()
            .flat_map(|decade| (2..10).map(move |n| decade * f64::from(n)))
            .collect();
        let x_axis = (FIRST_MS..LAST_MS)
            .log_scale()
            .with_key_points(vec![1.0, 10.0, 100.0, 1000.0])
            .with_light_points(light);
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .margin_left(4)
            // Room for the last tick label, centred on the right edge.
            .margin_right(26)
            .x_label_area_size(38)
            .y_label_area_size(50)
            .build_cartesian_2d(x_axis, 0.0..TOP_PERCENT)?;
        let text = (FONT_FAMILY, FONT_SIZE)
            .into_font()
            .color(&palette.foreground);
        let ms_template = gettext("{n} ms");
        let ms = |ms: &f64| fill(ms_template.clone(), &[("n", &format!("{ms:.0}"))]);
        let percent = |percent: &f64| format!("{percent:.0}");
        chart
            .configure_mesh()
            .bold_line_style(palette.grid.stroke_width(1))
            .light_line_style(palette.grid.mix(0.45).stroke_width(1))
            .axis_style(palette.foreground.stroke_width(1))
            .y_labels(6)
            .x_label_formatter(&ms)
            .y_label_formatter(&percent)
            .label_style(text.clone())
            .axis_desc_style(text)
            .x_desc(gettext("time since work began"))
            .y_desc(gettext("throughput, % of steady state"))
            .draw()?;
        let (left, bottom) = chart.backend_coord(&(FIRST_MS, 0.0));
        let (right, top) = chart.backend_coord(&(LAST_MS, TOP_PERCENT));
        Area {
            left: f64::from(left),
            right: f64::from(right),
            top: f64::from(top),
            bottom: f64::from(bottom),
        }
    };

    cr.save()?;
    cr.rectangle(
        area.left,
        area.top,
        area.right - area.left + 1.0,
        area.bottom - area.top + 1.0,
    );
    cr.clip();
    draw_reached_line(cr, &area, palette)?;
    cr.set_line_join(LineJoin::Round);
    // Trials behind, then the running one, then the means on top.
    for line in [Line::Trial, Line::Running, Line::Mean] {
        for one in series.iter().filter(|one| one.line == line) {
            draw_series(cr, &area, one, palette)?;
        }
    }
    cr.restore()?;

    let entries: Vec<LegendEntry<'_>> = series
        .iter()
        .filter_map(|one| {
            Some(LegendEntry {
                label: one.label.as_deref()?,
                color: palette.setting(one.setting),
                dash: dash_of(one.core_type),
                marker: (one.line == Line::Mean).then(|| marker_of(one.core_type)),
            })
        })
        .collect();
    canvas::legend_box(
        cr,
        &entries,
        area.right - 6.0,
        area.bottom - 6.0,
        palette.foreground,
        palette.background,
        palette.grid,
    )?;
    Ok(area)
}

/// The place of `core_type` in [`TYPES_IN_ORDER`], which picks its line style.
fn type_index(core_type: Option<CoreType>) -> usize {
    TYPES_IN_ORDER
        .iter()
        .position(|&t| t == core_type)
        .unwrap_or(0)
}

fn dash_of(core_type: Option<CoreType>) -> &'static [f64] {
    DASHES[type_index(core_type)]
}

fn marker_of(core_type: Option<CoreType>) -> Marker {
    Marker::ALL[type_index(core_type)]
}

/// The 95 % line, labelled at its left end where ramps are still low.
fn draw_reached_line(cr: &Context, area: &Area, palette: &Palette) -> Result<(), PlotError> {
    let y = area.y(REACHED_PERCENT).round() + 0.5;
    canvas::set_source(cr, palette.foreground);
    cr.set_line_width(1.0);
    cr.set_dash(&[3.0, 3.0], 0.0);
    cr.move_to(area.left, y);
    cr.line_to(area.right, y);
    cr.stroke()?;
    cr.set_dash(&[], 0.0);
    canvas::select_font(cr, FONT_SIZE - 1.0);
    let label = fill(gettext("{n} %"), &[("n", &REACHED_PERCENT)]);
    canvas::show_text(cr, area.left + 4.0, y - 4.0, &label)?;
    Ok(())
}

fn draw_series(
    cr: &Context,
    area: &Area,
    series: &RampSeries,
    palette: &Palette,
) -> Result<(), PlotError> {
    // A logarithmic axis has no place for times of zero or less.
    let points = || {
        series
            .points
            .iter()
            .filter(|(ms, percent)| *ms > 0.0 && ms.is_finite() && percent.is_finite())
            .map(|&(ms, percent)| (area.x(ms), area.y(percent)))
    };
    let (width, alpha) = match series.line {
        Line::Mean => (2.0, 1.0),
        Line::Trial => (1.0, 0.35),
        Line::Running => (1.5, 1.0),
    };
    let color = palette.setting(series.setting);
    canvas::set_source_alpha(cr, color, alpha);
    cr.set_line_width(width);
    cr.set_dash(dash_of(series.core_type), 0.0);
    trace_path(cr, points());
    cr.stroke()?;
    cr.set_dash(&[], 0.0);
    if series.line == Line::Mean {
        let marker = marker_of(series.core_type);
        for (x, y) in points() {
            marker.add_to_path(cr, x, y, 6.0);
        }
        cr.fill()?;
    }
    Ok(())
}

/// A path through `points`.
fn trace_path(cr: &Context, points: impl Iterator<Item = (f64, f64)>) {
    for (index, (x, y)) in points.enumerate() {
        if index == 0 {
            cr.move_to(x, y);
        } else {
            cr.line_to(x, y);
        }
    }
}

/// The frequency strip between `top` and `bottom`, on the chart's time axis: the trace from
/// 0 to its highest reading, labelled with the CPU and that reading.
fn draw_frequency(
    cr: &Context,
    area: &Area,
    (top, bottom): (f64, f64),
    trace: &FrequencyTrace,
    palette: &Palette,
) -> Result<(), PlotError> {
    let highest = trace
        .points
        .iter()
        .map(|&(_, mhz)| mhz)
        .filter(|mhz| mhz.is_finite())
        .fold(0.0, f64::max);
    if highest <= 0.0 {
        return Ok(());
    }
    let strip = Area {
        left: area.left,
        right: area.right,
        top: top + FONT_SIZE + 2.0,
        bottom,
    };
    // The strip's frame and its scale: 0 at the bottom, the highest reading at the top.
    canvas::set_source(cr, palette.grid);
    cr.set_line_width(1.0);
    cr.rectangle(
        strip.left.round() + 0.5,
        strip.top.round() + 0.5,
        (strip.right - strip.left).round(),
        (strip.bottom - strip.top).round(),
    );
    cr.stroke()?;
    let y = |mhz: f64| strip.bottom - mhz / highest * (strip.bottom - strip.top);
    canvas::select_font(cr, FONT_SIZE - 1.0);
    canvas::set_source(cr, palette.foreground);
    let label = fill(
        gettext("{cpu}: frequency, up to {ghz} GHz"),
        &[
            ("cpu", &trace.label),
            ("ghz", &format!("{:.2}", highest / 1000.0)),
        ],
    );
    canvas::show_text(cr, strip.left, top + FONT_SIZE - 2.0, &label)?;
    cr.save()?;
    cr.rectangle(
        strip.left,
        strip.top,
        strip.right - strip.left,
        strip.bottom - strip.top,
    );
    cr.clip();
    canvas::set_source(cr, palette.setting(trace.setting));
    cr.set_line_width(1.5);
    cr.set_dash(dash_of(trace.core_type), 0.0);
    trace_path(
        cr,
        trace
            .points
            .iter()
            .filter(|(ms, mhz)| *ms > 0.0 && ms.is_finite() && mhz.is_finite())
            .map(|&(ms, mhz)| (area.x(ms), y(mhz))),
    );
    cr.stroke()?;
    cr.set_dash(&[], 0.0);
    cr.restore()?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
