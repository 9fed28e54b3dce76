// SPDX-License-Identifier: GPL-3.0-or-later
//! The ramp-up chart as a PNG image, for export: drawn without a display (tests and tools
//! export too), on the palette's background.

use std::path::Path;

use relm4::gtk::cairo::{Context, Format, ImageSurface};
use relm4::gtk::gdk_pixbuf::{Colorspace, Pixbuf};
use relm4::gtk::glib;

use super::canvas;
use super::error::PlotError;
use super::palette::Palette;
use super::ramp::{draw_ramp, RampChart};

/// Saves the chart as a PNG image of `width` × `height` pixels on the palette's background.
pub fn ramp_png(
    path: &Path,
    width: u32,
    height: u32,
    chart: &RampChart,
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
        draw_ramp(&cr, width, height, chart, palette)?;
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
    use super::super::ramp::{Line, RampSeries};
    use super::*;
    use pacer_core::values::CoreType;

    fn settings() -> RampChart {
        let series = |setting, core_type| RampSeries {
            label: Some("a".into()),
            setting,
            core_type: Some(core_type),
            line: Line::Mean,
            points: vec![(1.0, 20.0), (10.0, 80.0), (1000.0, 100.0)],
        };
        RampChart {
            series: vec![
                series(0, CoreType::Performance),
                series(1, CoreType::Efficiency),
            ],
            frequency: None,
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
