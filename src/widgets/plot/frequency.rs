// SPDX-License-Identifier: GPL-3.0-or-later
//! The live plot: each CPU's frequency over the last minute, one colour per core type, with
//! the policy limits (min, base, max) as dashed lines.
//!
//! The window redraws it at 10 Hz, so the data lines bypass both plotters and cairo's stroker:
//! they are traced into spans of rows per pixel column (`trace`), rasterised (`raster`) and
//! kept from frame to frame (`strip`). Plotters draws the axes, grid and tick labels; cairo
//! the limits and the legend.
//!
//! Over 500 lines with its unit tests.

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::CoreType;
use pacer_measure::table::cores_of_type;
use plotters::prelude::*;
use plotters_cairo::CairoBackend;
use relm4::gtk::cairo::{Context, Format, ImageSurface};

use super::canvas::{self, LegendEntry, FONT_FAMILY, FONT_SIZE};
use super::error::PlotError;
use super::history::{FrequencyHistory, TYPES_IN_ORDER};
use super::palette::Palette;
use super::strip::{FrameLayout, LineStrip, LineStyle, Shown};
use super::trace::{RasterMap, WINDOW};

/// The frequency limits of the CPUs of one core type, drawn as dashed lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrequencyMarks {
    pub core_type: Option<CoreType>,
    pub min_khz: Option<u32>,
    pub base_khz: Option<u32>,
    pub max_khz: Option<u32>,
}

/// Below this size there is no room for axes and data; nothing is drawn.
const MIN_WIDTH: u32 = 120;
const MIN_HEIGHT: u32 = 80;
/// The strip above the plotting area that holds the legend.
const LEGEND_HEIGHT: u32 = 22;
/// How thick a CPU's line is, in pixels, where it runs flat.
const DATA_LINE_WIDTH: f64 = 1.25;
const MARK_DASH: [f64; 2] = [5.0, 3.0];
/// Half the width of a change's triangle, in pixels; its line's dots.
const CHANGE_SIZE: f64 = 4.0;
const CHANGE_DOTS: [f64; 2] = [1.0, 3.0];

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

/// The plot drawn in three layers: the axes and grid under the lines, the lines, and the
/// limits and legend over them. Only the lines move from one sample to the next, so the
/// other two are kept and drawn again only when their [`LayerKey`] changes: text and dashes
/// cost most of a frame. Each frame starts as a copy of the pixels under the lines, has the
/// lines copied in (`strip`), and the layer over them composited only on the rows where it
/// has anything; then it is painted once. (Three full-size composites a frame were most of
/// the window's CPU at 10 Hz.)
#[derive(Debug, Default)]
pub struct FrequencyLayers {
    kept: Option<Layers>,
    shown: Shown,
    /// Where the readout points, in seconds before the latest sample.
    cursor: Option<f64>,
    /// When the power state changed, in seconds before the latest sample.
    changes: Vec<f64>,
}

#[derive(Debug)]
struct Layers {
    key: LayerKey,
    /// Where the plotting area lies.
    area: Area,
    /// The axes and grid as ARGB32 pixels, laid out as `over`'s.
    under: Vec<u8>,
    /// The limits and legend: only the runs of rows that hold anything, most of the plot
    /// being empty there.
    over: Vec<RowRun>,
    /// How the frame's pixels are laid out.
    layout: FrameLayout,
    lines: LineStrip,
    /// The last frame drawn, to draw the next one into.
    last_frame: Option<ImageSurface>,
}

impl FrequencyLayers {
    /// Whether the plot shows each core type's band and median, or each CPU's line (from the
    /// next frame on).
    pub fn set_shown(&mut self, shown: Shown) {
        self.shown = shown;
    }

    /// Marks the moment `seconds_ago` with a vertical line (the readout's), or nothing.
    pub fn set_cursor(&mut self, seconds_ago: Option<f64>) {
        self.cursor = seconds_ago;
    }

    /// Marks each moment of `seconds_ago` (a change of the power state) with a small
    /// triangle on the top edge and a dotted line down the plot.
    pub fn set_changes(&mut self, seconds_ago: impl IntoIterator<Item = f64>) {
        // Set each frame: the same buffer, no allocation.
        self.changes.clear();
        self.changes.extend(seconds_ago);
    }

    /// The moment under the horizontal position `x` (logical pixels) of the last frame, in
    /// seconds before its latest sample; `None` outside the plotting area.
    pub fn seconds_ago_at(&self, x: f64) -> Option<f64> {
        let area = &self.kept.as_ref()?.area;
        let width = area.right - area.left;
        (width > 0.0 && (area.left..=area.right).contains(&x))
            .then(|| (area.right - x) / width * WINDOW.as_secs_f64())
    }

    /// Draws the plot into `cr`, which covers `width` × `height` pixels from its origin.
    pub fn draw(
        &mut self,
        cr: &Context,
        width: u32,
        height: u32,
        history: &FrequencyHistory,
        marks: &[FrequencyMarks],
        palette: &Palette,
    ) -> Result<(), PlotError> {
        canvas::draw_saved(cr, (width, height), (MIN_WIDTH, MIN_HEIGHT), || {
            let key = LayerKey {
                size: (width, height),
                scale: device_scale(cr)?,
                top_ghz: axis_top_ghz(history, marks),
                palette: *palette,
                marks: marks.to_vec(),
                types: TYPES_IN_ORDER
                    .into_iter()
                    .filter(|&t| history.cpus().iter().any(|cpu| cpu.core_type == t))
                    .collect(),
                shown: self.shown,
            };
            let mut layers = match self.kept.take() {
                Some(kept) if kept.key == key => kept,
                _ => Layers::draw(key, history)?,
            };
            let painted = layers.frame(history).and_then(|frame| paint(cr, frame));
            let changes = draw_changes(cr, &layers.area, &self.changes, palette);
            let cursor = match self.cursor {
                Some(seconds_ago) => draw_cursor(cr, &layers.area, seconds_ago, palette),
                None => Ok(()),
            };
            self.kept = Some(layers);
            painted.and(changes).and(cursor)
        })
    }
}

impl Layers {
    fn draw(key: LayerKey, history: &FrequencyHistory) -> Result<Layers, PlotError> {
        let (mut under, area) = layer(&key, |cr| draw_mesh(cr, &key))?;
        let (over, ()) = layer(&key, |cr| {
            draw_marks(cr, &area, &key.marks, &key.palette)?;
            draw_legend(cr, &area, history, &key.palette)
        })?;
        let under = under.data()?.to_vec();
        // Columns in logical pixels, rows in device pixels: a line is as thick at any scale.
        let scale = key.scale;
        let map = RasterMap {
            columns: (area.right - area.left) as i64,
            height: (area.bottom - area.top) * scale,
            top_ghz: area.top_ghz,
        };
        let style = LineStyle {
            palette: key.palette,
            width: DATA_LINE_WIDTH * scale,
            shown: key.shown,
        };
        let layout = FrameLayout {
            width: over.width(),
            height: over.height(),
            stride: usize::try_from(over.stride()).unwrap_or(0),
            left: (area.left * scale) as i32,
            top: (area.top * scale) as i32,
            scale: scale as i32,
        };
        let lines = LineStrip::new(map, style, layout, &under);
        Ok(Layers {
            area,
            key,
            under,
            over: RowRun::all_in(over)?,
            layout,
            lines,
            last_frame: None,
        })
    }

    /// This frame's picture: the lines over the axes, under the limits and legend. Drawn
    /// into the last frame's image where nothing else holds it any more (a drawing area's
    /// recording keeps a copy), so that a frame allocates nothing.
    fn frame(&mut self, history: &FrequencyHistory) -> Result<&ImageSurface, PlotError> {
        let scale = self.key.scale;
        let layout = &self.layout;
        let reusable = self
            .last_frame
            .take()
            .and_then(|last| last.take_data().ok())
            .filter(|last| last.as_ref().len() == self.under.len());
        let frame = match reusable {
            Some(mut last) => {
                let pixels = last.as_mut();
                pixels.copy_from_slice(&self.under);
                self.lines.draw(pixels, &self.under, history);
                let frame = last.into_inner();
                frame.mark_dirty();
                frame
            }
            None => {
                let mut pixels = self.under.clone();
                self.lines.draw(&mut pixels, &self.under, history);
                ImageSurface::create_for_data(
                    pixels,
                    Format::ARgb32,
                    layout.width,
                    layout.height,
                    i32::try_from(layout.stride).unwrap_or(0),
                )?
            }
        };
        frame.set_device_scale(scale, scale);
        if !self.over.is_empty() {
            let cr = Context::new(&frame)?;
            for run in &self.over {
                cr.set_source_surface(&run.image, 0.0, f64::from(run.top) / scale)?;
                cr.paint()?;
            }
        }
        frame.flush();
        Ok(self.last_frame.insert(frame))
    }
}

/// A run of rows of a layer, cut out of it.
#[derive(Debug)]
struct RowRun {
    /// Its first row in the layer, in device pixels.
    top: i32,
    image: ImageSurface,
}

impl RowRun {
    /// The runs of rows of `layer` that hold a pixel that is not fully transparent.
    fn all_in(mut layer: ImageSurface) -> Result<Vec<RowRun>, PlotError> {
        let (width, height, stride) = (layer.width(), layer.height(), layer.stride());
        let (scale, _) = layer.device_scale();
        let pixels = layer.data()?;
        let row_bytes = usize::try_from(stride).unwrap_or(0).max(1);
        let rows: Vec<&[u8]> = pixels.chunks(row_bytes).take(height as usize).collect();
        let mut runs = Vec::new();
        let mut row = 0;
        while row < rows.len() {
            // Premultiplied: a transparent pixel is all zeros.
            let in_use = |row: &&[u8]| row.iter().any(|&byte| byte != 0);
            let Some(first) = rows[row..].iter().position(in_use).map(|n| row + n) else {
                break;
            };
            let end = rows[first..]
                .iter()
                .position(|row| !in_use(row))
                .map_or(rows.len(), |n| first + n);
            let data = rows[first..end].concat();
            let image = ImageSurface::create_for_data(
                data,
                Format::ARgb32,
                width,
                (end - first) as i32,
                stride,
            )?;
            image.set_device_scale(scale, scale);
            runs.push(RowRun {
                top: first as i32,
                image,
            });
            row = end;
        }
        Ok(runs)
    }
}

/// The target's pixels per logical pixel (2 on HiDPI image targets; GTK's recording
/// surfaces report 1 and scale the image up as a whole).
fn device_scale(cr: &Context) -> Result<f64, PlotError> {
    let (ctm_x, ctm_y) = cr.user_to_device_distance(1.0, 1.0)?;
    let (device_x, device_y) = cr.target().device_scale();
    Ok((ctm_x * device_x)
        .abs()
        .max((ctm_y * device_y).abs())
        .round()
        .clamp(1.0, 4.0))
}

/// A transparent image of the plot's size at the target's scale, after `draw` drew on it.
fn layer<T>(
    key: &LayerKey,
    draw: impl FnOnce(&Context) -> Result<T, PlotError>,
) -> Result<(ImageSurface, T), PlotError> {
    let pixels = |logical: u32| {
        i32::try_from((f64::from(logical) * key.scale).ceil() as i64)
            .map_err(|_| PlotError::Layout(format!("a plot {logical} pixels wide")))
    };
    let image = ImageSurface::create(Format::ARgb32, pixels(key.size.0)?, pixels(key.size.1)?)?;
    image.set_device_scale(key.scale, key.scale);
    let drawn = {
        let cr = Context::new(&image)?;
        draw(&cr)?
    };
    image.flush();
    Ok((image, drawn))
}

/// Where the moment `seconds_ago` lies across the plotting area; `None` outside the window.
fn x_of(area: &Area, seconds_ago: f64) -> Option<f64> {
    let window = WINDOW.as_secs_f64();
    (0.0..=window)
        .contains(&seconds_ago)
        .then(|| area.right - seconds_ago / window * (area.right - area.left))
}

fn set_foreground(cr: &Context, palette: &Palette) {
    let color = palette.foreground;
    cr.set_source_rgb(
        f64::from(color.0) / 255.0,
        f64::from(color.1) / 255.0,
        f64::from(color.2) / 255.0,
    );
}

/// The changes of the power state: a triangle pointing down from the top edge at each, and
/// a dotted line below it, in the text's colour (a core type's would read as its limit).
fn draw_changes(
    cr: &Context,
    area: &Area,
    changes: &[f64],
    palette: &Palette,
) -> Result<(), PlotError> {
    if changes.is_empty() {
        return Ok(());
    }
    cr.save()?;
    set_foreground(cr, palette);
    for x in changes.iter().filter_map(|&ago| x_of(area, ago)) {
        let x = x.round() + 0.5;
        cr.move_to(x - CHANGE_SIZE, area.top);
        cr.line_to(x + CHANGE_SIZE, area.top);
        cr.line_to(x, area.top + CHANGE_SIZE * 1.5);
        cr.close_path();
        cr.fill()?;
    }
    cr.set_line_width(1.0);
    cr.set_dash(&CHANGE_DOTS, 0.0);
    for x in changes.iter().filter_map(|&ago| x_of(area, ago)) {
        cr.move_to(x.round() + 0.5, area.top + CHANGE_SIZE * 1.5);
        cr.line_to(x.round() + 0.5, area.bottom);
    }
    cr.stroke()?;
    cr.restore()?;
    Ok(())
}

/// The readout's moment: a vertical line across the plotting area.
fn draw_cursor(
    cr: &Context,
    area: &Area,
    seconds_ago: f64,
    palette: &Palette,
) -> Result<(), PlotError> {
    let window = WINDOW.as_secs_f64();
    let x = area.right - seconds_ago.clamp(0.0, window) / window * (area.right - area.left);
    cr.save()?;
    set_foreground(cr, palette);
    cr.set_line_width(1.0);
    cr.move_to(x.round() + 0.5, area.top);
    cr.line_to(x.round() + 0.5, area.bottom);
    cr.stroke()?;
    cr.restore()?;
    Ok(())
}

fn paint(cr: &Context, layer: &ImageSurface) -> Result<(), PlotError> {
    cr.save()?;
    cr.set_source_surface(layer, 0.0, 0.0)?;
    cr.paint()?;
    cr.restore()?;
    Ok(())
}

/// The axes, their labels and the grid; returns where the plotting area lies.
fn draw_mesh(cr: &Context, key: &LayerKey) -> Result<Area, PlotError> {
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
struct Area {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    top_ghz: f64,
}

impl Area {
    fn y(&self, khz: u32) -> f64 {
        self.bottom - f64::from(khz) / 1e6 / self.top_ghz * (self.bottom - self.top)
    }

    fn clip(&self, cr: &Context) {
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
fn axis_top_ghz(history: &FrequencyHistory, marks: &[FrequencyMarks]) -> f64 {
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
fn format_ghz(ghz: f64) -> String {
    if (ghz - ghz.round()).abs() < 1e-9 {
        format!("{ghz:.0}")
    } else {
        format!("{ghz:.1}")
    }
}

/// Which limit a mark line shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    Max,
    Base,
    Min,
}

fn draw_marks(
    cr: &Context,
    area: &Area,
    marks: &[FrequencyMarks],
    palette: &Palette,
) -> Result<(), PlotError> {
    const LABEL_SIZE: f64 = FONT_SIZE - 1.0;
    // Types often share a limit (the same minimum): one line in the text colour then says it
    // for all, rather than one type's colour hiding the other's.
    let mut lines: Vec<(Limit, u32, RGBColor)> = Vec::with_capacity(marks.len() * 3);
    for mark in marks {
        for (limit, khz) in [
            (Limit::Max, mark.max_khz),
            (Limit::Base, mark.base_khz),
            (Limit::Min, mark.min_khz),
        ] {
            let Some(khz) = khz else { continue };
            let color = palette.core(mark.core_type);
            match lines.iter_mut().find(|(l, k, _)| (*l, *k) == (limit, khz)) {
                Some((_, _, shared)) if *shared != color => *shared = palette.foreground,
                Some(_) => {}
                None => lines.push((limit, khz, color)),
            }
        }
    }

    cr.save()?;
    area.clip(cr);
    cr.set_line_width(1.0);
    cr.set_dash(&MARK_DASH, 0.0);
    for &(_, khz, color) in &lines {
        // Snapped to the pixel grid: a crisp 1-pixel line.
        let y = area.y(khz).round() + 0.5;
        canvas::set_source(cr, color);
        cr.move_to(area.left, y);
        cr.line_to(area.right, y);
        cr.stroke()?;
    }

    canvas::select_font(cr, LABEL_SIZE);
    // Labels already written, as (left, top, right, bottom), so that limits that lie close
    // together do not print over each other.
    let mut taken: Vec<(f64, f64, f64, f64)> = Vec::with_capacity(lines.len());
    for &(limit, khz, color) in &lines {
        let template = match limit {
            Limit::Max => gettext("max {ghz} GHz"),
            Limit::Base => gettext("base {ghz} GHz"),
            Limit::Min => gettext("min {ghz} GHz"),
        };
        let label = fill(
            template,
            &[("ghz", &format!("{:.1}", f64::from(khz) / 1e6))],
        );
        let width = canvas::text_width(cr, &label)?;
        let y = area.y(khz).round() + 0.5;
        // Above the line where there is room, otherwise below it.
        let baseline = if y - LABEL_SIZE - 3.0 > area.top {
            y - 4.0
        } else {
            y + LABEL_SIZE + 2.0
        };
        let (top, bottom) = (baseline - LABEL_SIZE, baseline + 3.0);
        let mut left = area.left + 4.0;
        while let Some(&(_, _, right, _)) = taken.iter().find(|&&(l, t, r, b)| {
            left < r + 6.0 && l < left + width + 6.0 && top < b && t < bottom
        }) {
            left = right + 8.0;
        }
        if left + width > area.right {
            continue;
        }
        taken.push((left, top, left + width, bottom));
        // On a veil of the background, as the data lines run behind.
        canvas::set_source_alpha(cr, palette.background, 0.8);
        cr.rectangle(left - 2.0, top - 1.0, width + 4.0, bottom - top + 1.0);
        cr.fill()?;
        canvas::set_source(cr, color);
        canvas::show_text(cr, left, baseline, &label)?;
    }
    cr.restore()?;
    Ok(())
}

/// One entry per core type that the history follows, right-aligned above the plotting area.
fn draw_legend(
    cr: &Context,
    area: &Area,
    history: &FrequencyHistory,
    palette: &Palette,
) -> Result<(), PlotError> {
    let labels: Vec<(Option<CoreType>, String)> = TYPES_IN_ORDER
        .into_iter()
        .filter(|&core_type| history.cpus().iter().any(|cpu| cpu.core_type == core_type))
        .map(|core_type| (core_type, cores_of_type(core_type)))
        .collect();
    let entries: Vec<LegendEntry<'_>> = labels
        .iter()
        .map(|(core_type, label)| LegendEntry {
            label,
            color: palette.core(*core_type),
            dash: &[],
            marker: None,
        })
        .collect();
    canvas::legend_row(cr, &entries, area.right, area.top - 7.0, palette.foreground)?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::canvas::testing::{count_pixels, render};
    use std::time::Duration;

    use super::super::history::testing::hybrid_history;
    use super::*;
    use relm4::gtk::cairo::{Format, ImageSurface};

    const W: u32 = 640;
    const H: u32 = 280;
    /// Well inside the plotting area, below the legend and right of the tick labels.
    const INSIDE: ((usize, usize), (usize, usize)) = ((80, 40), (600, 230));

    fn draw_light(history: &FrequencyHistory, marks: &[FrequencyMarks]) -> ImageSurface {
        render(W, H, |cr| {
            FrequencyLayers::default().draw(cr, W, H, history, marks, &Palette::LIGHT)
        })
    }

    #[test]
    fn kept_layers_draw_what_fresh_ones_do() {
        let marks = [FrequencyMarks {
            core_type: Some(CoreType::Performance),
            min_khz: Some(400_000),
            base_khz: Some(2_100_000),
            max_khz: Some(4_700_000),
        }];
        let mut layers = FrequencyLayers::default();
        let mut history = hybrid_history(100, |cpu, n| {
            Some(1_000_000 + (cpu as u32 + n as u32) * 10_000)
        });
        let data = |history: &FrequencyHistory, layers: &mut FrequencyLayers| {
            let mut surface = render(W, H, |cr| {
                layers.draw(cr, W, H, history, &marks, &Palette::LIGHT)
            });
            let bytes = surface.data().unwrap().to_vec();
            bytes
        };
        let first = data(&history, &mut layers);
        history.push(Duration::from_secs(11), &[Some(2_500_000); 4]);
        let kept = data(&history, &mut layers);
        assert_ne!(first, kept, "the new sample is drawn");
        assert!(kept == data(&history, &mut FrequencyLayers::default()));
    }

    #[test]
    fn lines_kept_from_frame_to_frame_draw_what_fresh_ones_do() {
        // Samples 200 ms apart (two columns each at this width), now and then unknown, with a
        // pause of 10 s and one longer than the plot's minute; the ring of columns wraps
        // around several times. The history reaches further back than the minute, so that a
        // fresh drawing knows what entered from the left edge too.
        let mut history = hybrid_history(0, |_, _| None);
        let mut layers = FrequencyLayers::default();
        let mut at = Duration::ZERO;
        let mut compared = 0;
        for n in 0..480u32 {
            at += Duration::from_millis(match n {
                150 => 10_000,
                300 => 75_000,
                _ => 200,
            });
            let khz: Vec<_> = (0..4u32)
                .map(|cpu| {
                    ((n + cpu) % 23 != 0)
                        .then_some(800_000 + (n * 7_919 + cpu * 104_729) % 3_900_000)
                })
                .collect();
            history.push(at, &khz);
            let kept = render(W, H, |cr| {
                layers.draw(cr, W, H, &history, &[], &Palette::DARK)
            });
            if n % 20 == 19 || (148..=152).contains(&n) || (298..=302).contains(&n) {
                let fresh = render(W, H, |cr| {
                    FrequencyLayers::default().draw(cr, W, H, &history, &[], &Palette::DARK)
                });
                let (mut kept, mut fresh) = (kept, fresh);
                let kept = kept.data().unwrap().to_vec();
                assert!(kept == fresh.data().unwrap().to_vec(), "after sample {n}");
                compared += 1;
            }
        }
        assert_eq!(compared, 33);
        // The lines were there to compare.
        let mut last = render(W, H, |cr| {
            layers.draw(cr, W, H, &history, &[], &Palette::DARK)
        });
        let (from, to) = INSIDE;
        assert!(count_pixels(&mut last, Palette::DARK.performance, from, to) > 300);
    }

    #[test]
    fn a_cleared_history_leaves_no_line_behind() {
        // Between 1 and 3 GHz from one sample to the next: steep, so whole pixels are inked.
        let khz = |n: u64| Some(if n % 2 == 0 { 1_000_000 } else { 3_000_000 });
        let mut history = hybrid_history(300, |_, n| khz(n));
        let mut layers = FrequencyLayers::default();
        let draw = |history: &FrequencyHistory, layers: &mut FrequencyLayers| {
            let mut surface = render(W, H, |cr| {
                layers.draw(cr, W, H, history, &[], &Palette::LIGHT)
            });
            let (from, to) = INSIDE;
            let inked = count_pixels(&mut surface, Palette::LIGHT.performance, from, to);
            let pixels = surface.data().unwrap().to_vec();
            (inked, pixels)
        };
        assert!(draw(&history, &mut layers).0 > 300);
        // Sampling starts again later, as after the window was hidden; the same highest
        // frequency keeps the axes, so only the lines can differ.
        history.clear();
        history.push(Duration::from_secs(40), &[khz(1); 4]);
        history.push(Duration::from_millis(40_100), &[khz(2); 4]);
        let (inked, after) = draw(&history, &mut layers);
        assert!(inked < 10, "{inked}");
        assert!(after == draw(&history, &mut FrequencyLayers::default()).1);
    }

    #[test]
    fn a_layer_keeps_only_its_rows_in_use() {
        let mut layer = ImageSurface::create(Format::ARgb32, 3, 10).unwrap();
        {
            let mut data = layer.data().unwrap();
            let stride = 12;
            for (row, x) in [(2, 0), (3, 2), (7, 1), (9, 2)] {
                data[row * stride + x * 4..][..4].copy_from_slice(&[1, 2, 3, 4]);
            }
        }
        let runs = RowRun::all_in(layer).unwrap();
        let shape: Vec<_> = runs
            .iter()
            .map(|run| (run.top, run.image.height()))
            .collect();
        assert_eq!(shape, [(2, 2), (7, 1), (9, 1)]);
        let mut second_row_of_first = runs.into_iter().next().unwrap().image;
        let data = second_row_of_first.data().unwrap();
        assert_eq!(&data[12 + 8..12 + 12], [1, 2, 3, 4]);
    }

    #[test]
    fn draws_each_core_type_in_its_colour() {
        // P-cores at 3 GHz, E-cores moving between 1 and 2 GHz.
        let history = hybrid_history(600, |cpu, n| {
            Some(if cpu < 2 {
                3_000_000
            } else {
                1_000_000 + (n % 50) as u32 * 20_000
            })
        });
        let mut surface = draw_light(&history, &[]);
        let (from, to) = INSIDE;
        assert!(count_pixels(&mut surface, Palette::LIGHT.performance, from, to) > 300);
        assert!(count_pixels(&mut surface, Palette::LIGHT.efficiency, from, to) > 300);
        assert_eq!(
            count_pixels(&mut surface, Palette::LIGHT.low_power, from, to),
            0
        );
    }

    #[test]
    fn draws_the_limits_as_lines_of_the_type_colour() {
        let history = hybrid_history(0, |_, _| None);
        let marks = [FrequencyMarks {
            core_type: Some(CoreType::Performance),
            min_khz: Some(800_000),
            base_khz: None,
            max_khz: Some(4_700_000),
        }];
        let mut surface = draw_light(&history, &marks);
        let (from, to) = INSIDE;
        // Two dashed lines across the plot, each about 5/8 inked.
        let inked = count_pixels(&mut surface, Palette::LIGHT.performance, from, to);
        assert!(inked > 500, "{inked}");
    }

    #[test]
    fn a_change_is_marked_at_its_moment_from_the_top_edge_down() {
        let history = hybrid_history(0, |_, _| None);
        let foreground = |changes: Vec<f64>| {
            let mut layers = FrequencyLayers::default();
            layers.set_changes(changes);
            let mut surface = render(W, H, |cr| {
                layers.draw(cr, W, H, &history, &[], &Palette::LIGHT)
            });
            let area = layers.kept.as_ref().unwrap().area.clone();
            // Half way: the column at 30 s ago, and the one at 10 s ago.
            let middle = ((area.left + area.right) / 2.0) as usize;
            let late = (area.right - (area.right - area.left) / 6.0) as usize;
            let (top, bottom) = (area.top as usize, area.bottom as usize);
            let column = |surface: &mut ImageSurface, x: usize| {
                count_pixels(
                    surface,
                    Palette::LIGHT.foreground,
                    (x, top),
                    (x + 2, bottom),
                )
            };
            (column(&mut surface, middle), column(&mut surface, late))
        };
        let unmarked = foreground(Vec::new());
        // 90 s ago is before the plot's minute: not drawn.
        let marked = foreground(vec![30.0, 90.0]);
        // The triangle and a dotted line (a dot every four pixels) down the plot.
        assert!(
            marked.0 > unmarked.0 + (H as usize / 8),
            "{unmarked:?} → {marked:?}"
        );
        assert_eq!(marked.1, unmarked.1, "only at its moment");
    }

    #[test]
    fn empty_and_unknown_histories_draw_axes_only() {
        for history in [
            hybrid_history(0, |_, _| None),
            hybrid_history(600, |_, _| None),
            FrequencyHistory::new(Vec::new(), 10),
        ] {
            let mut surface = draw_light(&history, &[]);
            let (from, to) = INSIDE;
            assert_eq!(
                count_pixels(&mut surface, Palette::LIGHT.performance, from, to),
                0
            );
            let axes = count_pixels(&mut surface, Palette::LIGHT.foreground, (0, 0), (640, 280));
            assert!(axes > 200, "{axes}");
        }
    }

    #[test]
    fn a_surface_too_small_for_a_plot_is_left_alone() {
        let history = hybrid_history(10, |_, _| Some(1_000_000));
        let mut surface = render(50, 30, |cr| {
            FrequencyLayers::default().draw(cr, 50, 30, &history, &[], &Palette::DARK)
        });
        let white = RGBColor(255, 255, 255);
        assert_eq!(count_pixels(&mut surface, white, (0, 0), (50, 30)), 50 * 30);
    }

    #[test]
    fn the_axis_reaches_a_little_above_the_highest_mark_or_sample() {
        let empty = hybrid_history(0, |_, _| None);
        assert_eq!(axis_top_ghz(&empty, &[]), 1.0);
        let marks = [FrequencyMarks {
            core_type: None,
            min_khz: Some(400_000),
            base_khz: None,
            max_khz: Some(4_700_000),
        }];
        assert_eq!(axis_top_ghz(&empty, &marks), 5.5);
        let busy = hybrid_history(5, |_, _| Some(5_200_000));
        assert_eq!(axis_top_ghz(&busy, &marks), 6.0);
        assert_eq!(format_ghz(5.0), "5");
        assert_eq!(format_ghz(5.5), "5.5");
    }

    #[test]
    fn draws_sharp_lines_on_a_scaled_target() {
        let history = hybrid_history(600, |cpu, n| {
            (cpu == 0).then_some(1_000_000 + (n % 20) as u32 * 150_000)
        });
        let surface = ImageSurface::create(Format::ARgb32, 2 * W as i32, 2 * H as i32).unwrap();
        surface.set_device_scale(2.0, 2.0);
        let cr = Context::new(&surface).unwrap();
        FrequencyLayers::default()
            .draw(&cr, W, H, &history, &[], &Palette::LIGHT)
            .unwrap();
        drop(cr);
        let mut surface = surface;
        let inked = count_pixels(
            &mut surface,
            Palette::LIGHT.performance,
            (160, 80),
            (1200, 460),
        );
        // Twice as many device pixels per line as at scale 1, none of them doubled up blurrily.
        assert!(inked > 2000, "{inked}");
    }
}
