// SPDX-License-Identifier: GPL-3.0-or-later
//! A rasteriser for many thin lines that run left to right, for the live plot.
//!
//! Cairo strokes a minute of 16 jagged CPU lines in tens of milliseconds (its stroker and scan
//! converter work per segment and per edge); the window redraws at 10 Hz and has a few
//! milliseconds in all. A line that advances by at most a pixel column per sample is fully
//! described by the span of rows it covers in each column, so this writes those spans straight
//! into an image, with exact coverage at their ends, which anti-aliases the shallow parts.

use plotters::style::RGBColor;

/// Spans drawn over a premultiplied ARGB32 image (cairo's `Format::ARgb32`).
#[derive(Debug)]
pub struct ColumnRaster<'a> {
    data: &'a mut [u8],
    stride: usize,
    width: i32,
    height: i32,
}

impl<'a> ColumnRaster<'a> {
    /// `data` holds `height` rows of `stride` bytes, each starting with `width` pixels.
    pub fn new(data: &'a mut [u8], stride: usize, width: i32, height: i32) -> Self {
        ColumnRaster {
            data,
            stride,
            width,
            height,
        }
    }

    /// Paints column `x` from `from` down to `to` (pixel rows; row `r` spans `r..r + 1`) in
    /// `color`, over what is there. Anything outside the image is ignored.
    pub fn span(&mut self, x: i32, from: f64, to: f64, color: RGBColor) {
        self.span_with_opacity(x, from, to, color, 1.0);
    }

    /// [`Self::span`] with `color` at `opacity` (0 to 1): a band behind the lines.
    pub fn span_with_opacity(&mut self, x: i32, from: f64, to: f64, color: RGBColor, opacity: f64) {
        if x < 0 || x >= self.width || !from.is_finite() || !to.is_finite() || from > to {
            return;
        }
        let opacity = opacity.clamp(0.0, 1.0);
        let (top, bottom) = (from.max(0.0), to.min(f64::from(self.height)));
        if top >= bottom || opacity == 0.0 {
            return;
        }
        // Rows `full_from..full_to` lie wholly inside the span (both ends are within the
        // image, so not negative: truncation is the floor).
        let (first_row, full_to) = (top as i32, bottom as i32);
        let full_from = if f64::from(first_row) < top {
            first_row + 1
        } else {
            first_row
        };
        if full_from > full_to {
            // Within a single row.
            self.blend(x, first_row, (bottom - top) * opacity, color);
            return;
        }
        if full_from > first_row {
            self.blend(x, first_row, (f64::from(full_from) - top) * opacity, color);
        }
        if opacity < 1.0 {
            for row in full_from..full_to {
                self.blend(x, row, opacity, color);
            }
        } else {
            // Steep lines cover long runs of whole pixels: those need no blending.
            let opaque = 0xff00_0000
                | u32::from(color.0) << 16
                | u32::from(color.1) << 8
                | u32::from(color.2);
            let column = x as usize * 4;
            let pixel = opaque.to_ne_bytes();
            for row in full_from..full_to {
                let at = row as usize * self.stride + column;
                if let Some(bytes) = self.data.get_mut(at..at + 4) {
                    bytes.copy_from_slice(&pixel);
                }
            }
        }
        if bottom > f64::from(full_to) {
            self.blend(x, full_to, (bottom - f64::from(full_to)) * opacity, color);
        }
    }

    /// Composites `color` at `coverage` over the pixel, in premultiplied integer arithmetic.
    fn blend(&mut self, x: i32, y: i32, coverage: f64, color: RGBColor) {
        // Both are within the image: `span` checked them.
        let at = y as usize * self.stride + x as usize * 4;
        let Some(bytes) = self.data.get_mut(at..at + 4) else {
            return;
        };
        let dst = u32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let alpha = (coverage * 255.0 + 0.5) as u32;
        let keep = 255 - alpha;
        let mix = |shift: u32, source: u32| {
            let under = (dst >> shift) & 0xff;
            ((source * alpha + under * keep + 127) / 255) << shift
        };
        let out = mix(24, 255)
            | mix(16, u32::from(color.0))
            | mix(8, u32::from(color.1))
            | mix(0, u32::from(color.2));
        bytes.copy_from_slice(&out.to_ne_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixel(data: &[u8], stride: usize, x: usize, y: usize) -> u32 {
        let at = y * stride + x * 4;
        u32::from_ne_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]])
    }

    #[test]
    fn covers_whole_rows_fully_and_ends_partly() {
        let mut data = vec![0u8; 4 * 3 * 6];
        let red = RGBColor(255, 0, 0);
        ColumnRaster::new(&mut data, 12, 3, 6).span(1, 1.5, 4.25, red);
        let column: Vec<u32> = (0..6).map(|y| pixel(&data, 12, 1, y)).collect();
        // Half of row 1, rows 2 and 3, a quarter of row 4; premultiplied.
        assert_eq!(
            column,
            [0, 0x8080_0000, 0xffff_0000, 0xffff_0000, 0x4040_0000, 0]
        );
        assert!((0..6).all(|y| pixel(&data, 12, 0, y) == 0 && pixel(&data, 12, 2, y) == 0));
    }

    #[test]
    fn blends_over_what_is_there() {
        let mut data = 0xffff_ffffu32.to_ne_bytes().to_vec();
        ColumnRaster::new(&mut data, 4, 1, 1).span(0, 0.0, 0.5, RGBColor(0, 0, 0));
        assert_eq!(pixel(&data, 4, 0, 0), 0xff7f_7f7f);
    }

    #[test]
    fn a_translucent_span_lets_what_is_under_it_show() {
        let mut data = [0xffff_ffffu32; 3]
            .iter()
            .flat_map(|p| p.to_ne_bytes())
            .collect::<Vec<u8>>();
        ColumnRaster::new(&mut data, 4, 1, 3).span_with_opacity(
            0,
            0.5,
            3.0,
            RGBColor(0, 0, 0),
            0.5,
        );
        let column: Vec<u32> = (0..3).map(|y| pixel(&data, 4, 0, y)).collect();
        // A quarter of black over row 0 (half covered at half opacity), half over the rest.
        assert_eq!(column, [0xffbf_bfbf, 0xff7f_7f7f, 0xff7f_7f7f]);
    }

    #[test]
    fn ignores_what_lies_outside() {
        let mut data = vec![0u8; 4 * 2 * 2];
        let mut raster = ColumnRaster::new(&mut data, 8, 2, 2);
        let blue = RGBColor(0, 0, 255);
        raster.span(-1, 0.0, 2.0, blue);
        raster.span(2, 0.0, 2.0, blue);
        raster.span(0, 5.0, 9.0, blue);
        raster.span(0, -9.0, -5.0, blue);
        raster.span(0, f64::NAN, 1.0, blue);
        raster.span(0, 1.0, 0.0, blue);
        raster.span(0, f64::NEG_INFINITY, f64::INFINITY, blue);
        assert!(data.iter().all(|&byte| byte == 0));
        let mut raster = ColumnRaster::new(&mut data, 8, 2, 2);
        raster.span(1, -100.0, 100.0, blue);
        assert_eq!(pixel(&data, 8, 1, 0), 0xff00_00ff);
        assert_eq!(pixel(&data, 8, 1, 1), 0xff00_00ff);
    }
}
