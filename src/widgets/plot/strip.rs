// SPDX-License-Identifier: GPL-3.0-or-later
//! The live plot's lines, kept from one frame to the next as a ring of pixel columns.
//!
//! Each column holds a fixed span of time (`trace::RasterMap`), and a column no longer changes
//! once a later one has a sample. So a new sample needs only the newest columns traced again;
//! the others stay where they are in the ring and are copied one place further left. Tracing
//! every line anew on each frame was most of the plot's time at 10 Hz.
//!
//! The ring holds its columns already drawn over the plotting area's plain background (its
//! colour and horizontal grid lines, alike in every column), so that a frame copies them
//! rather than compositing: compositing a transparent layer of lines cost more than the
//! tracing it saved. The few columns where the background is not plain (the vertical grid
//! lines, the axis) are traced straight over it on every frame.

use super::history::{BandSeries, FrequencyHistory, TYPES_IN_ORDER};
use super::palette::Palette;
use super::raster::ColumnRaster;
use super::trace::{first_sample_for, trace_cpu, RasterMap};

/// Where the lines go in a frame: premultiplied ARGB32 pixels (cairo's `Format::ARgb32`).
#[derive(Debug, Clone, Copy)]
pub(super) struct FrameLayout {
    pub(super) width: i32,
    pub(super) height: i32,
    /// Bytes from one row to the next.
    pub(super) stride: usize,
    /// The plotting area's top left corner, in device pixels.
    pub(super) left: i32,
    pub(super) top: i32,
    /// Device pixels per logical pixel.
    pub(super) scale: i32,
}

/// What the plot draws for the CPUs of a core type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shown {
    /// A band from the lowest to the highest CPU at each moment, with the median CPU as a
    /// line: as legible at 256 CPUs as at 2.
    #[default]
    Bands,
    /// Each CPU's own line.
    EachCpu,
}

/// How the lines look.
#[derive(Debug, Clone, Copy)]
pub(super) struct LineStyle {
    pub(super) palette: Palette,
    /// Image rows, where a line runs flat.
    pub(super) width: f64,
    pub(super) shown: Shown,
}

/// How opaque a core type's band is: the grid shows through, and where two types' bands
/// overlap both stay visible.
const BAND_OPACITY: f64 = 0.28;
/// How much thicker a median line is than a CPU's own line.
const MEDIAN_WIDTH: f64 = 1.6;

/// The lines of the last `map.columns + 1` columns: the plotting area and the column at its
/// right edge, where the latest sample lies.
#[derive(Debug)]
pub(super) struct LineStrip {
    map: RasterMap,
    style: LineStyle,
    frame: FrameLayout,
    /// Columns `0..slots` of the plot, laid out as the frame (`slots` device columns wide,
    /// times the scale), `rows` high; the column `c` of the history lies in slot `c mod slots`.
    ring: Vec<u8>,
    slots: i64,
    rows: i32,
    /// One device column of the plain background, top to bottom.
    plain: Vec<u8>,
    /// The places, from the left edge, whose background is not plain.
    special: Vec<i64>,
    /// What the ring holds, if anything yet.
    drawn: Option<Drawn>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Drawn {
    generation: u64,
    /// The latest column: the only one not yet complete.
    latest: i64,
}

impl LineStrip {
    /// An empty strip for `map`, over the background `under` laid out as `frame`. The lines
    /// may reach a pixel beyond the plotting area's right and bottom edges.
    pub(super) fn new(
        map: RasterMap,
        style: LineStyle,
        frame: FrameLayout,
        under: &[u8],
    ) -> LineStrip {
        let scale = frame.scale.max(1);
        let frame = FrameLayout { scale, ..frame };
        let slots = map.columns.max(0) + 1;
        let rows = (map.height.ceil() as i32 + 1)
            .min(frame.height - frame.top)
            .max(0);
        // Places whose device columns lie wholly inside the frame.
        let places = i64::from((frame.width - frame.left).max(0) / scale).min(slots);
        let columns = 0..(places as i32 * scale);
        let at = |x: i32, row: i32| pixel(under, frame.stride, frame.left + x, frame.top + row);
        // The plain background is, row by row, what most of the row holds (found by majority
        // vote, which needs no counts). The choice only matters for speed: a place that
        // differs anywhere is traced straight over the background.
        let plain: Vec<u8> = (0..rows)
            .flat_map(|row| {
                let mut vote = ([0; 4], 0usize);
                for x in columns.clone() {
                    let pixel = at(x, row);
                    vote = match vote {
                        (_, 0) => (pixel, 1),
                        (held, count) if held == pixel => (held, count + 1),
                        (held, count) => (held, count - 1),
                    };
                }
                vote.0
            })
            .collect();
        let special = (0..places)
            .filter(|&place| {
                let x = place as i32 * scale;
                (x..x + scale)
                    .any(|x| (0..rows).any(|row| at(x, row)[..] != plain[row as usize * 4..][..4]))
            })
            .collect();
        let ring_stride = slots as usize * scale as usize * 4;
        LineStrip {
            map,
            style,
            frame,
            ring: vec![0; ring_stride * rows as usize],
            slots,
            rows,
            plain,
            special,
            drawn: None,
        }
    }

    /// Writes the lines up to the latest sample of `history` into `pixels`, which hold the
    /// background `under` (both laid out as the frame this strip was made for).
    pub(super) fn draw(&mut self, pixels: &mut [u8], under: &[u8], history: &FrequencyHistory) {
        let Some(latest) = history.latest_time().map(|at| self.map.column(at)) else {
            self.drawn = None;
            return;
        };
        self.update(history, latest);
        self.copy_into(pixels, latest);
        for &place in &self.special {
            self.restore_place(pixels, under, place);
            self.trace_place(pixels, history, latest, place);
        }
    }

    /// Brings the ring up to the column `latest`: the columns since the last update are
    /// traced, and all of them where the ring held another history or is too far behind.
    fn update(&mut self, history: &FrequencyHistory, latest: i64) {
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
        let (slots, scale) = (self.slots, self.frame.scale);
        let ring_stride = self.ring_stride();
        for column in dirty..=latest {
            let at = column.rem_euclid(slots) as usize * scale as usize * 4;
            for (row, plain) in self
                .ring
                .chunks_exact_mut(ring_stride)
                .zip(self.plain.chunks_exact(4))
            {
                for pixel in row[at..at + scale as usize * 4].chunks_exact_mut(4) {
                    pixel.copy_from_slice(plain);
                }
            }
        }
        let width = i32::try_from(slots * i64::from(scale)).unwrap_or(i32::MAX);
        let mut raster = ColumnRaster::new(&mut self.ring, ring_stride, width, self.rows);
        trace_lines(
            &mut raster,
            history,
            &self.map,
            &self.style,
            (dirty, latest),
            |column| (column.rem_euclid(slots) as i32) * scale,
            scale,
        );
        self.drawn = Some(Drawn {
            generation: history.generation(),
            latest,
        });
    }

    /// Copies the ring into the plotting area of `pixels`, oldest column at the left edge.
    fn copy_into(&self, pixels: &mut [u8], latest: i64) {
        let frame = &self.frame;
        let ring_stride = self.ring_stride();
        // The oldest column shown lies in slot `wrap`: slots `wrap..` go first, from the left
        // edge, then slots `..wrap` after them; all of it as far as the frame reaches.
        let wrap = (latest + 1).rem_euclid(self.slots) as usize * frame.scale as usize * 4;
        let room = (frame.width - frame.left).max(0) as usize * 4;
        let (older, newer) = (ring_stride - wrap, wrap);
        for (row, ring_row) in (0..self.rows).zip(self.ring.chunks_exact(ring_stride)) {
            let at = (frame.top + row) as usize * frame.stride + frame.left as usize * 4;
            let Some(target) = pixels.get_mut(at..at + room.min(ring_stride)) else {
                continue;
            };
            let (first, second) = target.split_at_mut(older.min(target.len()));
            first.copy_from_slice(&ring_row[wrap..wrap + first.len()]);
            second.copy_from_slice(&ring_row[..second.len().min(newer)]);
        }
    }

    /// Puts the background back at `place`, where the ring holds the plain one instead.
    fn restore_place(&self, pixels: &mut [u8], under: &[u8], place: i64) {
        let frame = &self.frame;
        let x = (frame.left + place as i32 * frame.scale) as usize * 4;
        let bytes = frame.scale as usize * 4;
        for row in frame.top..frame.top + self.rows {
            let at = row as usize * frame.stride + x;
            if let (Some(target), Some(source)) =
                (pixels.get_mut(at..at + bytes), under.get(at..at + bytes))
            {
                target.copy_from_slice(source);
            }
        }
    }

    /// Traces the column shown at `place` straight over the background in `pixels`.
    fn trace_place(&self, pixels: &mut [u8], history: &FrequencyHistory, latest: i64, place: i64) {
        let frame = &self.frame;
        let start = frame.top as usize * frame.stride + frame.left as usize * 4;
        let Some(area) = pixels.get_mut(start..) else {
            return;
        };
        let mut raster = ColumnRaster::new(area, frame.stride, frame.width - frame.left, self.rows);
        let column = latest - (self.slots - 1) + place;
        let scale = frame.scale;
        trace_lines(
            &mut raster,
            history,
            &self.map,
            &self.style,
            (column, column),
            |_| place as i32 * scale,
            scale,
        );
    }

    fn ring_stride(&self) -> usize {
        self.slots as usize * self.frame.scale as usize * 4
    }
}

/// The four bytes of the pixel at (`x`, `y`); transparent outside the image.
fn pixel(image: &[u8], stride: usize, x: i32, y: i32) -> [u8; 4] {
    let at = y as usize * stride + x as usize * 4;
    image
        .get(at..at + 4)
        .and_then(|bytes| bytes.try_into().ok())
        .unwrap_or([0; 4])
}

/// Traces the lines (each CPU's, or each core type's band and median: see [`Shown`]) in the
/// columns `from..=to` into `raster`, each history column at the image column `x_of(column)`
/// and `scale` columns wide.
fn trace_lines(
    raster: &mut ColumnRaster<'_>,
    history: &FrequencyHistory,
    map: &RasterMap,
    style: &LineStyle,
    (from, to): (i64, i64),
    x_of: impl Fn(i64) -> i32,
    scale: i32,
) {
    let first = first_sample_for(history, map, from);
    let half_width = style.width / 2.0;
    let paint = |raster: &mut ColumnRaster<'_>, series: usize, half: f64, color| {
        trace_cpu(history, series, first, to, map, |column, low, high| {
            if (from..=to).contains(&column) {
                let x = x_of(column);
                for x in x..x + scale {
                    raster.span(x, low - half, high + half, color);
                }
            }
        });
    };
    // The fastest cores last, on top: they are the ones whose ramp matters most.
    match style.shown {
        Shown::EachCpu => {
            for core_type in TYPES_IN_ORDER.into_iter().rev() {
                let color = style.palette.core(core_type);
                for (index, cpu) in history.cpus().iter().enumerate() {
                    if cpu.core_type == core_type {
                        paint(raster, index, half_width, color);
                    }
                }
            }
        }
        Shown::Bands => {
            let types: Vec<_> = history.core_types().collect();
            // Every band under every median line.
            for &core_type in types.iter().rev() {
                if let Some(band) = history.band(core_type) {
                    let color = style.palette.core(core_type);
                    let extent = band_extent(history, band, first, (from, to), map);
                    for (column, top, bottom) in extent {
                        let x = x_of(column);
                        for x in x..x + scale {
                            raster.span_with_opacity(
                                x,
                                top - half_width,
                                bottom + half_width,
                                color,
                                BAND_OPACITY,
                            );
                        }
                    }
                }
            }
            for &core_type in types.iter().rev() {
                if let Some(band) = history.band(core_type) {
                    let color = style.palette.core(core_type);
                    paint(raster, band.median, half_width * MEDIAN_WIDTH, color);
                }
            }
        }
    }
}

/// The rows a band covers in each of the columns `from..=to`: from the top of its highest
/// CPU's line down to the bottom of its lowest's (where both have samples).
fn band_extent(
    history: &FrequencyHistory,
    band: BandSeries,
    first: usize,
    (from, to): (i64, i64),
    map: &RasterMap,
) -> Vec<(i64, f64, f64)> {
    let mut tops: Vec<(i64, f64)> = Vec::with_capacity((to - from + 1).clamp(0, 4096) as usize);
    trace_cpu(history, band.high, first, to, map, |column, low, _| {
        if (from..=to).contains(&column) {
            tops.push((column, low));
        }
    });
    let mut extent = Vec::with_capacity(tops.len());
    let mut tops = tops.into_iter().peekable();
    trace_cpu(history, band.low, first, to, map, |column, _, high| {
        while tops
            .next_if(|&(top_column, _)| top_column < column)
            .is_some()
        {}
        if let Some((_, top)) = tops.next_if(|&(top_column, _)| top_column == column) {
            extent.push((column, top.min(high), high.max(top)));
        }
    });
    extent
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::time::Duration;

    use super::super::history::testing::hybrid_history;
    use super::*;

    const WIDTH: i32 = 140;
    const HEIGHT: i32 = 60;

    /// A background like the plot's: a colour, horizontal grid lines every 10 rows, vertical
    /// ones at two places and the axis at the area's left edge; transparent in the margins.
    fn background(frame: &FrameLayout) -> Vec<u8> {
        let mut under = vec![0u8; frame.stride * frame.height as usize];
        for y in frame.top..frame.height {
            for x in frame.left..frame.width {
                let place = (x - frame.left) / frame.scale;
                let pixel: u32 = if place == 0 || place == 37 || place == 90 {
                    0xff30_3030
                } else if (y - frame.top) % 10 == 0 {
                    0xffd0_d0d0
                } else {
                    0xffff_ffff
                };
                let at = y as usize * frame.stride + x as usize * 4;
                under[at..at + 4].copy_from_slice(&pixel.to_ne_bytes());
            }
        }
        under
    }

    /// The frame with every column traced straight over the background.
    fn traced_straight(strip: &LineStrip, under: &[u8], history: &FrequencyHistory) -> Vec<u8> {
        let mut pixels = under.to_vec();
        let latest = strip.map.column(history.latest_time().unwrap());
        for place in 0..strip.slots {
            strip.trace_place(&mut pixels, history, latest, place);
        }
        pixels
    }

    #[test]
    fn columns_kept_over_the_plain_background_equal_lines_traced_straight_over_it() {
        for (scale, shown) in [1, 2]
            .into_iter()
            .flat_map(|s| [(s, Shown::EachCpu), (s, Shown::Bands)])
        {
            let frame = FrameLayout {
                width: WIDTH * scale,
                height: HEIGHT * scale,
                stride: (WIDTH * scale * 4) as usize,
                left: 20 * scale,
                top: 5 * scale,
                scale,
            };
            let map = RasterMap {
                columns: 100,
                height: f64::from(45 * scale),
                top_ghz: 5.0,
            };
            let style = LineStyle {
                shown,
                palette: Palette::LIGHT,
                width: 1.25 * f64::from(scale),
            };
            let under = background(&frame);
            let mut strip = LineStrip::new(map, style, frame, &under);
            assert_eq!(strip.special, [0, 37, 90], "at scale {scale}");
            // Samples 500 ms apart, 0.6 s a column: the ring wraps around several times.
            let mut history = hybrid_history(0, |_, _| None);
            for n in 0..400u32 {
                let khz: Vec<_> = (0..4u32)
                    .map(|cpu| Some(400_000 + (n * 7_919 + cpu * 104_729) % 4_500_000))
                    .collect();
                history.push(Duration::from_millis(u64::from(n) * 500), &khz);
                let mut pixels = under.clone();
                strip.draw(&mut pixels, &under, &history);
                if n % 25 == 0 || n == 399 {
                    let straight = traced_straight(&strip, &under, &history);
                    assert!(pixels == straight, "{shown:?} at scale {scale}, sample {n}");
                    assert!(
                        pixels != under,
                        "{shown:?} at scale {scale}, sample {n}: nothing drawn"
                    );
                }
            }
        }
    }

    #[test]
    fn an_empty_history_leaves_the_background_as_it_is() {
        let frame = FrameLayout {
            width: WIDTH,
            height: HEIGHT,
            stride: (WIDTH * 4) as usize,
            left: 20,
            top: 5,
            scale: 1,
        };
        let map = RasterMap {
            columns: 100,
            height: 45.0,
            top_ghz: 5.0,
        };
        let style = LineStyle {
            shown: Shown::EachCpu,
            palette: Palette::DARK,
            width: 1.25,
        };
        let under = background(&frame);
        let mut strip = LineStrip::new(map, style, frame, &under);
        let mut pixels = under.clone();
        strip.draw(&mut pixels, &under, &hybrid_history(0, |_, _| None));
        assert!(pixels == under);
    }
}
