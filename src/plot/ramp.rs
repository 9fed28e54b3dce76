//! The ramp-up chart: how quickly throughput reaches its steady state after work arrives, one
//! line per measured setting, on a logarithmic time axis from 1 ms to 1 s, and its export to
//! PNG.
//!
//! Plotters draws the axes; the series go straight to cairo, which can dash them, so that
//! settings measured on the same core type (same colour) stay apart by dash and marker.

use std::path::Path;

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::CoreType;
use plotters::prelude::*;
use plotters_cairo::CairoBackend;
use relm4::gtk::cairo::{Context, Format, ImageSurface, LineJoin};
use relm4::gtk::gdk_pixbuf::{Colorspace, Pixbuf};
use relm4::gtk::glib;

use super::canvas::{self, LegendEntry, Marker, FONT_FAMILY, FONT_SIZE};
use super::error::PlotError;
use super::palette::Palette;

/// One measured setting's ramp-up.
#[derive(Debug, Clone, PartialEq)]
pub struct RampSeries {
    /// Names the setting in the legend, already translated.
    pub label: String,
    /// The type of the core measured; picks the colour.
    pub core_type: Option<CoreType>,
    /// (end of the measuring window in ms since work began, throughput in % of steady state),
    /// in time order.
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
/// How series of one core type tell themselves apart, by their order among that type.
const DASHES: [&[f64]; 4] = [&[], &[7.0, 3.0], &[2.0, 2.5], &[9.0, 3.0, 2.0, 3.0]];

/// Draws the chart into `cr`, which covers `width` × `height` pixels from its origin. The
/// background is left as it is.
pub fn draw_ramp(
    cr: &Context,
    width: u32,
    height: u32,
    series: &[RampSeries],
    palette: &Palette,
) -> Result<(), PlotError> {
    canvas::draw_saved(cr, (width, height), (MIN_WIDTH, MIN_HEIGHT), || {
        draw(cr, width, height, series, palette)
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

fn draw(
    cr: &Context,
    width: u32,
    height: u32,
    series: &[RampSeries],
    palette: &Palette,
) -> Result<(), PlotError> {
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
    let styles = series_styles(series);
    cr.set_line_join(LineJoin::Round);
    for (one, &(dash, marker)) in series.iter().zip(&styles) {
        draw_series(cr, &area, one, dash, marker, palette)?;
    }
    cr.restore()?;

    let entries: Vec<LegendEntry<'_>> = series
        .iter()
        .zip(&styles)
        .map(|(one, &(dash, marker))| LegendEntry {
            label: &one.label,
            color: palette.core(one.core_type),
            dash,
            marker: Some(marker),
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
    Ok(())
}

/// The dash and marker of each series: the n-th series of a core type takes the n-th of each.
fn series_styles(series: &[RampSeries]) -> Vec<(&'static [f64], Marker)> {
    series
        .iter()
        .enumerate()
        .map(|(index, one)| {
            let nth = series[..index]
                .iter()
                .filter(|earlier| earlier.core_type == one.core_type)
                .count();
            (
                DASHES[nth % DASHES.len()],
                Marker::ALL[nth % Marker::ALL.len()],
            )
        })
        .collect()
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
    dash: &[f64],
    marker: Marker,
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
    canvas::set_source(cr, palette.core(series.core_type));
    cr.set_line_width(2.0);
    cr.set_dash(dash, 0.0);
    for (index, (x, y)) in points().enumerate() {
        if index == 0 {
            cr.move_to(x, y);
        } else {
            cr.line_to(x, y);
        }
    }
    cr.stroke()?;
    cr.set_dash(&[], 0.0);
    for (x, y) in points() {
        marker.add_to_path(cr, x, y, 6.0);
    }
    cr.fill()?;
    Ok(())
}

/// Saves the chart as a PNG image of `width` × `height` pixels on the palette's background.
pub fn ramp_png(
    path: &Path,
    width: u32,
    height: u32,
    series: &[RampSeries],
    palette: &Palette,
) -> Result<(), PlotError> {
    let too_large = || PlotError::Layout(format!("an image of {width} × {height} pixels"));
    let (w, h) = (
        i32::try_from(width).map_err(|_| too_large())?,
        i32::try_from(height).map_err(|_| too_large())?,
    );
    if w == 0 || h == 0 {
        return Err(too_large());
    }
    let mut surface = ImageSurface::create(Format::ARgb32, w, h)?;
    {
        let cr = Context::new(&surface)?;
        canvas::set_source(&cr, palette.background);
        cr.paint()?;
        draw_ramp(&cr, width, height, series, palette)?;
    }
    let stride = usize::try_from(surface.stride()).map_err(|_| too_large())?;
    let rgba = unpremultiplied_rgba(&surface.data()?, stride, width as usize, height as usize);
    // Gdk-pixbuf rather than a GdkTexture: a texture may only be made once GTK runs, on its
    // main thread, and an export must also work from tests and tools without a display.
    let pixbuf = Pixbuf::from_bytes(
        &glib::Bytes::from_owned(rgba),
        Colorspace::Rgb,
        true,
        8,
        w,
        h,
        w.checked_mul(4).ok_or_else(too_large)?,
    );
    pixbuf.savev(path, "png", &[])?;
    Ok(())
}

/// Cairo's ARGB32 (native-endian words, colour premultiplied by alpha) as the RGBA bytes with
/// straight alpha that gdk-pixbuf takes, rows packed.
fn unpremultiplied_rgba(data: &[u8], stride: usize, width: usize, height: usize) -> Vec<u8> {
    let mut rgba = Vec::with_capacity(width * height * 4);
    for row in data.chunks(stride).take(height) {
        for pixel in row[..(width * 4).min(row.len())].chunks_exact(4) {
            let argb = u32::from_ne_bytes([pixel[0], pixel[1], pixel[2], pixel[3]]);
            let alpha = argb >> 24;
            let straight = |shift: u32| {
                let channel = (argb >> shift) & 0xff;
                // Fully transparent pixels have no colour to recover.
                (channel * 255 + alpha / 2)
                    .checked_div(alpha)
                    .map_or(0, |straight| straight.min(255) as u8)
            };
            rgba.extend_from_slice(&[straight(16), straight(8), straight(0), alpha as u8]);
        }
    }
    rgba
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::canvas::testing::{count_pixels, render};
    use super::*;

    fn curve(core_type: Option<CoreType>, tau_ms: f64) -> RampSeries {
        RampSeries {
            label: format!("tau {tau_ms} ms"),
            core_type,
            points: (0..30)
                .map(|n| {
                    let ms = 10f64.powf(f64::from(n) / 10.0);
                    (ms, 100.0 * (1.0 - (-ms / tau_ms).exp()))
                })
                .collect(),
        }
    }

    fn settings() -> Vec<RampSeries> {
        vec![
            curve(Some(CoreType::Performance), 5.0),
            curve(Some(CoreType::Performance), 50.0),
            curve(Some(CoreType::Efficiency), 30.0),
        ]
    }

    #[test]
    fn draws_each_series_in_its_core_type_colour() {
        let series = settings();
        let mut surface = render(640, 300, |cr| {
            draw_ramp(cr, 640, 300, &series, &Palette::LIGHT)
        });
        let (from, to) = ((60, 10), (600, 250));
        assert!(count_pixels(&mut surface, Palette::LIGHT.performance, from, to) > 300);
        assert!(count_pixels(&mut surface, Palette::LIGHT.efficiency, from, to) > 150);
    }

    #[test]
    fn series_of_one_core_type_differ_in_dash_and_marker() {
        let series = settings();
        let styles = series_styles(&series);
        assert_ne!(styles[0].0, styles[1].0);
        assert_ne!(styles[0].1, styles[1].1);
        // The first of another type is drawn like the first of the first type, in its colour.
        assert_eq!(styles[2], styles[0]);
    }

    #[test]
    fn marks_95_percent_with_a_dashed_line() {
        let area = Area {
            left: 0.0,
            right: 200.0,
            top: 0.0,
            bottom: 110.0,
        };
        let mut surface = render(200, 110, |cr| draw_reached_line(cr, &area, &Palette::LIGHT));
        let row = area.y(REACHED_PERCENT) as usize;
        let dashes = count_pixels(
            &mut surface,
            Palette::LIGHT.foreground,
            (0, row),
            (200, row + 1),
        );
        assert!((80..=120).contains(&dashes), "{dashes}");
        // And its label above it.
        let label = count_pixels(
            &mut surface,
            Palette::LIGHT.foreground,
            (0, 0),
            (40, row - 2),
        );
        assert!(label > 10, "{label}");
    }

    #[test]
    fn no_series_and_unusable_points_draw_without_error() {
        let odd = RampSeries {
            label: "odd".into(),
            core_type: None,
            points: vec![
                (0.0, 50.0),
                (-3.0, 10.0),
                (f64::NAN, 1.0),
                (5.0, f64::INFINITY),
            ],
        };
        for series in [vec![], vec![odd]] {
            render(640, 300, |cr| {
                draw_ramp(cr, 640, 300, &series, &Palette::DARK)
            });
        }
    }

    #[test]
    fn exports_an_opaque_png() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ramp.png");
        ramp_png(&path, 640, 300, &settings(), &Palette::DARK).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes[..8], *b"\x89PNG\r\n\x1a\n");
        assert!(bytes.len() > 1024, "{}", bytes.len());
        let image = Pixbuf::from_file(&path).unwrap();
        assert_eq!((image.width(), image.height()), (640, 300));
        let corner = &image.read_pixel_bytes()[..4];
        let dark = Palette::DARK.background;
        assert_eq!(corner, [dark.0, dark.1, dark.2, 255]);
    }

    #[test]
    fn an_empty_image_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ramp.png");
        assert!(ramp_png(&path, 0, 300, &settings(), &Palette::LIGHT).is_err());
        assert!(!path.exists());
    }

    #[test]
    fn straightens_premultiplied_colour() {
        // Half-transparent pure red, premultiplied: 0x80800000 in cairo's native-endian words.
        let pixel = 0x8080_0000u32.to_ne_bytes();
        assert_eq!(unpremultiplied_rgba(&pixel, 4, 1, 1), [255, 0, 0, 0x80]);
        assert_eq!(unpremultiplied_rgba(&[0; 4], 4, 1, 1), [0, 0, 0, 0]);
    }
}
