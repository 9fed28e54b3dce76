// SPDX-License-Identifier: GPL-3.0-or-later
//! The plot's three layers, kept from frame to frame: the axes and grid under the lines, the
//! lines, and the limits and legend over them; how a frame is put together from them and
//! painted, with the changes and the cursor on top.

use relm4::gtk::cairo::{Context, Format, ImageSurface};

use super::super::canvas;
use super::super::error::PlotError;
use super::super::history::{FrequencyHistory, TYPES_IN_ORDER};
use super::super::palette::Palette;
use super::super::strip::{FrameLayout, LineStrip, LineStyle, Shown};
use super::super::trace::{RasterMap, WINDOW};
use super::changes::{draw_changes, draw_cursor};
use super::marks::{draw_legend, draw_marks};
use super::mesh::{axis_top_ghz, draw_mesh, Area};
use super::row_run::RowRun;
use super::{FrequencyMarks, LayerKey};

/// Below this size there is no room for axes and data; nothing is drawn.
const MIN_WIDTH: u32 = 120;
const MIN_HEIGHT: u32 = 80;
/// How thick a CPU's line is, in pixels, where it runs flat.
const DATA_LINE_WIDTH: f64 = 1.25;

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

    /// Where the plotting area of the last frame lies (the unit tests look).
    #[cfg(test)]
    pub(super) fn area(&self) -> Option<&Area> {
        self.kept.as_ref().map(|kept| &kept.area)
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

fn paint(cr: &Context, layer: &ImageSurface) -> Result<(), PlotError> {
    cr.save()?;
    cr.set_source_surface(layer, 0.0, 0.0)?;
    cr.paint()?;
    cr.restore()?;
    Ok(())
}
