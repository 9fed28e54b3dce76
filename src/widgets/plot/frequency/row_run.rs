// SPDX-License-Identifier: GPL-3.0-or-later
//! The layer over the lines cut into the runs of rows that hold anything, most of the plot
//! being empty there, so that a frame composites only those.

use relm4::gtk::cairo::{Format, ImageSurface};

use super::super::error::PlotError;

/// A run of rows of a layer, cut out of it.
#[derive(Debug)]
pub(super) struct RowRun {
    /// Its first row in the layer, in device pixels.
    pub(super) top: i32,
    pub(super) image: ImageSurface,
}

impl RowRun {
    /// The runs of rows of `layer` that hold a pixel that is not fully transparent.
    pub(super) fn all_in(mut layer: ImageSurface) -> Result<Vec<RowRun>, PlotError> {
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
