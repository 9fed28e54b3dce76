//! The live plot's lines, kept from one frame to the next as a ring of pixel columns.
//!
//! Each column holds a fixed span of time (`trace::RasterMap`), and a column no longer changes
//! once a later one has a sample. So a new sample needs only the newest columns traced again;
//! the others stay where they are in the ring and are painted one place further left. Tracing
//! every line anew on each frame was most of the plot's time at 10 Hz.

use relm4::gtk::cairo::{Context, Format, ImageSurface};

use super::error::PlotError;
use super::history::{FrequencyHistory, TYPES_IN_ORDER};
use super::palette::Palette;
use super::raster::ColumnRaster;
use super::trace::{first_sample_for, trace_cpu, RasterMap};

/// The lines of the last `map.columns + 1` columns: the plotting area and the column at its
/// right edge, where the latest sample lies.
#[derive(Debug)]
pub(super) struct LineStrip {
    /// One column per slot; the column `c` lies in slot `c mod slots`.
    image: ImageSurface,
    slots: i64,
    /// Device pixels per logical pixel.
    scale: i32,
    /// What the image holds, if anything yet.
    drawn: Option<Drawn>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Drawn {
    generation: u64,
    /// The latest column: the only one not yet complete.
    latest: i64,
}

impl LineStrip {
    /// An empty strip for `map`, `rows` image rows high, at `scale` device pixels per pixel.
    pub(super) fn new(map: &RasterMap, rows: i32, scale: i32) -> Result<LineStrip, PlotError> {
        let slots = map.columns.max(0) + 1;
        let width = i32::try_from(slots)
            .ok()
            .and_then(|slots| slots.checked_mul(scale))
            .ok_or_else(|| PlotError::Layout(format!("a plot {slots} pixels wide")))?;
        let image = ImageSurface::create(Format::ARgb32, width, rows.max(1))?;
        image.set_device_scale(f64::from(scale), f64::from(scale));
        Ok(LineStrip {
            image,
            slots,
            scale,
            drawn: None,
        })
    }

    /// Brings the lines up to the latest sample of `history`, in `palette`'s colours, each
    /// `line_width` image rows thick where it runs flat: the columns since the last update are
    /// traced, and all of them where the strip held another history or is too far behind.
    pub(super) fn update(
        &mut self,
        history: &FrequencyHistory,
        map: &RasterMap,
        palette: &Palette,
        line_width: f64,
    ) -> Result<(), PlotError> {
        let Some(latest) = history.latest_time().map(|at| map.column(at)) else {
            self.drawn = None;
            return self.clear(0, self.slots);
        };
        let oldest_shown = latest - (self.slots - 1);
        // The columns from `dirty` to `latest` are traced; those before it are complete.
        let dirty = match self.drawn {
            Some(drawn)
                if drawn.generation == history.generation()
                    && drawn.latest <= latest
                    && drawn.latest > oldest_shown =>
            {
                drawn.latest
            }
            _ => oldest_shown,
        };
        self.clear(dirty, latest + 1)?;
        let first = first_sample_for(history, map, dirty);
        let (slots, scale) = (self.slots, self.scale);
        let half_width = line_width / 2.0;
        let (width, height, stride) = (self.image.width(), self.image.height(), self.stride());
        let mut data = self.image.data()?;
        let mut raster = ColumnRaster::new(&mut data, stride, width, height);
        // The fastest cores last, on top: they are the ones whose ramp matters most.
        for core_type in TYPES_IN_ORDER.into_iter().rev() {
            let color = palette.core(core_type);
            for (index, cpu) in history.cpus().iter().enumerate() {
                if cpu.core_type != core_type {
                    continue;
                }
                trace_cpu(history, index, first, map, |column, low, high| {
                    if (dirty..=latest).contains(&column) {
                        // A slot is less than `slots`, which fits an `i32` times `scale`.
                        let x = (column.rem_euclid(slots) as i32) * scale;
                        for x in x..x + scale {
                            raster.span(x, low - half_width, high + half_width, color);
                        }
                    }
                });
            }
        }
        drop(data);
        self.drawn = Some(Drawn {
            generation: history.generation(),
            latest,
        });
        Ok(())
    }

    /// Paints the lines over `cr` with the latest column at `right` and the rows' top at
    /// `top` (in `cr`'s units, logical pixels).
    pub(super) fn paint(&self, cr: &Context, right: f64, top: f64) -> Result<(), PlotError> {
        let Some(drawn) = self.drawn else {
            return Ok(());
        };
        // The oldest column shown lies in slot `wrap`: slots `wrap..` are painted first, from
        // the left edge, then slots `..wrap` after them.
        let wrap = (drawn.latest + 1).rem_euclid(self.slots) as f64;
        let (slots, rows) = (
            self.slots as f64,
            f64::from(self.image.height()) / f64::from(self.scale),
        );
        let left = right + 1.0 - slots;
        for (from, to, offset) in [
            (left, left + slots - wrap, left - wrap),
            (left + slots - wrap, right + 1.0, left + slots - wrap),
        ] {
            if to <= from {
                continue;
            }
            cr.save()?;
            cr.rectangle(from, top, to - from, rows);
            cr.clip();
            cr.set_source_surface(&self.image, offset, top)?;
            cr.paint()?;
            cr.restore()?;
        }
        Ok(())
    }

    fn stride(&self) -> usize {
        usize::try_from(self.image.stride()).unwrap_or(0)
    }

    /// Makes the columns `from..to` transparent: all slots when that is as many as there are.
    fn clear(&mut self, from: i64, to: i64) -> Result<(), PlotError> {
        let (slots, scale, stride) = (self.slots, self.scale as usize, self.stride());
        let mut data = self.image.data()?;
        if to - from >= slots {
            data.fill(0);
            return Ok(());
        }
        for column in from..to {
            let at = column.rem_euclid(slots) as usize * scale * 4;
            for row in data.chunks_mut(stride.max(1)) {
                if let Some(pixels) = row.get_mut(at..at + scale * 4) {
                    pixels.fill(0);
                }
            }
        }
        Ok(())
    }
}
