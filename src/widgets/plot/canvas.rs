// SPDX-License-Identifier: GPL-3.0-or-later
//! What both plots draw directly with cairo rather than through plotters: text placed by its
//! measured size, series markers and legends. Plotters takes only integer coordinates, knows
//! no dash patterns and lays legends out in a fixed box; these helpers fill those gaps.

use plotters::style::RGBColor;
use relm4::gtk::cairo::{self, Context, FontSlant, FontWeight};

use super::error::PlotError;

/// The family plotters asks cairo for too, so that all text of a plot matches.
pub const FONT_FAMILY: &str = "sans-serif";
/// Tick labels, legends and line labels, in pixels.
pub const FONT_SIZE: f64 = 12.0;

pub fn set_source(cr: &Context, color: RGBColor) {
    cr.set_source_rgb(
        f64::from(color.0) / 255.0,
        f64::from(color.1) / 255.0,
        f64::from(color.2) / 255.0,
    );
}

pub fn set_source_alpha(cr: &Context, color: RGBColor, alpha: f64) {
    cr.set_source_rgba(
        f64::from(color.0) / 255.0,
        f64::from(color.1) / 255.0,
        f64::from(color.2) / 255.0,
        alpha,
    );
}

pub fn select_font(cr: &Context, size: f64) {
    cr.select_font_face(FONT_FAMILY, FontSlant::Normal, FontWeight::Normal);
    cr.set_font_size(size);
}

/// How far the text advances the pen with the selected font.
pub fn text_width(cr: &Context, text: &str) -> Result<f64, cairo::Error> {
    Ok(cr.text_extents(text)?.x_advance())
}

/// Writes `text` with its baseline's left end at (`x`, `y`) in the current source and font.
pub fn show_text(cr: &Context, x: f64, y: f64, text: &str) -> Result<(), cairo::Error> {
    cr.move_to(x, y);
    cr.show_text(text)
}

/// A shape drawn at each point of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
}

impl Marker {
    /// Markers in the order series of one core type take them.
    pub const ALL: [Marker; 4] = [
        Marker::Circle,
        Marker::Square,
        Marker::Triangle,
        Marker::Diamond,
    ];

    /// Adds the marker centred on (`x`, `y`) to the current path, `size` pixels across.
    pub fn add_to_path(self, cr: &Context, x: f64, y: f64, size: f64) {
        let r = size / 2.0;
        cr.new_sub_path();
        match self {
            Marker::Circle => cr.arc(x, y, r, 0.0, std::f64::consts::TAU),
            Marker::Square => cr.rectangle(x - r, y - r, size, size),
            Marker::Triangle => {
                cr.move_to(x, y - r * 1.15);
                cr.line_to(x + r * 1.15, y + r * 0.85);
                cr.line_to(x - r * 1.15, y + r * 0.85);
                cr.close_path();
            }
            Marker::Diamond => {
                cr.move_to(x, y - r * 1.3);
                cr.line_to(x + r * 1.3, y);
                cr.line_to(x, y + r * 1.3);
                cr.line_to(x - r * 1.3, y);
                cr.close_path();
            }
        }
    }
}

/// How one series looks in a legend.
#[derive(Debug, Clone, Copy)]
pub struct LegendEntry<'a> {
    pub label: &'a str,
    pub color: RGBColor,
    /// Empty for a solid line.
    pub dash: &'a [f64],
    pub marker: Option<Marker>,
}

/// Length of the line sample in front of each legend label.
const SAMPLE: f64 = 18.0;
/// Space between the sample and its label.
const SAMPLE_GAP: f64 = 5.0;
/// Space between two entries of a row.
const ENTRY_GAP: f64 = 14.0;

/// Draws the line sample of `entry` from `x` along the text line at baseline `y`.
fn draw_sample(cr: &Context, entry: &LegendEntry<'_>, x: f64, y: f64) -> Result<(), cairo::Error> {
    let middle = y - FONT_SIZE * 0.35;
    set_source(cr, entry.color);
    cr.set_line_width(2.0);
    cr.set_dash(entry.dash, 0.0);
    cr.move_to(x, middle);
    cr.line_to(x + SAMPLE, middle);
    cr.stroke()?;
    cr.set_dash(&[], 0.0);
    if let Some(marker) = entry.marker {
        marker.add_to_path(cr, x + SAMPLE / 2.0, middle, 6.0);
        cr.fill()?;
    }
    Ok(())
}

/// Draws the entries side by side on one text line, ending at `right`, baseline `y`.
pub fn legend_row(
    cr: &Context,
    entries: &[LegendEntry<'_>],
    right: f64,
    y: f64,
    text: RGBColor,
) -> Result<(), cairo::Error> {
    select_font(cr, FONT_SIZE);
    let mut width = 0.0;
    for entry in entries {
        width += SAMPLE + SAMPLE_GAP + text_width(cr, entry.label)? + ENTRY_GAP;
    }
    let mut x = right - (width - ENTRY_GAP);
    for entry in entries {
        draw_sample(cr, entry, x, y)?;
        x += SAMPLE + SAMPLE_GAP;
        set_source(cr, text);
        show_text(cr, x, y, entry.label)?;
        x += text_width(cr, entry.label)? + ENTRY_GAP;
    }
    Ok(())
}

/// Draws the entries one under the other in a framed box whose bottom right corner is at
/// (`right`, `bottom`), filled with `background` so that lines behind it do not cross the text.
pub fn legend_box(
    cr: &Context,
    entries: &[LegendEntry<'_>],
    right: f64,
    bottom: f64,
    text: RGBColor,
    background: RGBColor,
    frame: RGBColor,
) -> Result<(), cairo::Error> {
    if entries.is_empty() {
        return Ok(());
    }
    const PADDING: f64 = 6.0;
    let line_height = FONT_SIZE * 1.4;
    select_font(cr, FONT_SIZE);
    let mut widest: f64 = 0.0;
    for entry in entries {
        widest = widest.max(text_width(cr, entry.label)?);
    }
    let width = PADDING * 2.0 + SAMPLE + SAMPLE_GAP + widest;
    let height = PADDING * 2.0 + line_height * entries.len() as f64;
    let (left, top) = (
        (right - width).round() + 0.5,
        (bottom - height).round() + 0.5,
    );
    cr.rectangle(left, top, width.round(), height.round());
    set_source(cr, background);
    cr.fill_preserve()?;
    set_source(cr, frame);
    cr.set_line_width(1.0);
    cr.stroke()?;
    let mut y = top + PADDING + FONT_SIZE;
    for entry in entries {
        draw_sample(cr, entry, left + PADDING, y)?;
        set_source(cr, text);
        show_text(cr, left + PADDING + SAMPLE + SAMPLE_GAP, y, entry.label)?;
        y += line_height;
    }
    Ok(())
}

/// Runs `draw` with the context's state saved and restored (plotters scales the context for
/// its own use and never restores it); an area smaller than `min` is left blank.
pub fn draw_saved(
    cr: &Context,
    (width, height): (u32, u32),
    min: (u32, u32),
    draw: impl FnOnce() -> Result<(), PlotError>,
) -> Result<(), PlotError> {
    if width < min.0 || height < min.1 {
        return Ok(());
    }
    cr.save()?;
    let drawn = draw();
    cr.restore()?;
    drawn
}

/// Drawing into memory and reading the result back, for the plots' tests.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub mod testing {
    use super::*;
    use relm4::gtk::cairo::{Format, ImageSurface};

    /// A white surface of `width` × `height` pixels after `draw` drew on it.
    pub fn render(
        width: u32,
        height: u32,
        draw: impl FnOnce(&Context) -> Result<(), PlotError>,
    ) -> ImageSurface {
        let surface = ImageSurface::create(Format::ARgb32, width as i32, height as i32).unwrap();
        {
            let cr = Context::new(&surface).unwrap();
            cr.set_source_rgb(1.0, 1.0, 1.0);
            cr.paint().unwrap();
            draw(&cr).unwrap();
        }
        surface
    }

    /// How many pixels in the rectangle from (`x0`, `y0`) to (`x1`, `y1`), excluded, are
    /// `color` laid over white at 40 % coverage or more, as anti-aliased edges are.
    pub fn count_pixels(
        surface: &mut ImageSurface,
        color: RGBColor,
        (x0, y0): (usize, usize),
        (x1, y1): (usize, usize),
    ) -> usize {
        let stride = surface.stride() as usize;
        let data = surface.data().unwrap();
        let target = [color.0, color.1, color.2].map(f64::from);
        let mut count = 0;
        for y in y0..y1 {
            for x in x0..x1 {
                let at = y * stride + x * 4;
                let argb = u32::from_ne_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
                let pixel = [16, 8, 0].map(|shift| f64::from((argb >> shift) & 0xff));
                // The coverage each channel implies, where the colour differs from white.
                let coverages: Vec<f64> = (0..3)
                    .filter(|&c| 255.0 - target[c] > 40.0)
                    .map(|c| (255.0 - pixel[c]) / (255.0 - target[c]))
                    .collect();
                let coverage = if coverages.is_empty() {
                    1.0
                } else {
                    coverages.iter().sum::<f64>() / coverages.len() as f64
                };
                let matches = (0..3).all(|c| {
                    let expected = 255.0 + coverage * (target[c] - 255.0);
                    (pixel[c] - expected).abs() <= 20.0
                });
                if coverage >= 0.4 && matches {
                    count += 1;
                }
            }
        }
        count
    }
}
