//! Where a CPU's samples fall in the image of the plotting area, and the rows its line covers
//! in each pixel column (what the `raster` then fills), for the live plot.

use std::time::Duration;

use super::history::FrequencyHistory;

/// How far back the plot looks.
pub(super) const WINDOW: Duration = Duration::from_secs(60);

/// Where samples fall in the image of the plotting area, in its pixels.
#[derive(Debug)]
pub(super) struct RasterMap {
    pub(super) width: f64,
    pub(super) height: f64,
    pub(super) top_ghz: f64,
}

impl RasterMap {
    /// `ago` before the latest sample, which is at the right edge.
    fn x(&self, ago: Duration) -> f64 {
        self.width - ago.as_secs_f64() / WINDOW.as_secs_f64() * self.width
    }

    fn y(&self, khz: u32) -> f64 {
        self.height - f64::from(khz) / 1e6 / self.top_ghz * self.height
    }
}

/// `value.floor() as i32`, inline: without SSE4.1 (not in the x86-64 baseline) `floor` is a
/// call into libm, made here once per sample of every CPU on every frame.
#[inline]
fn floor_i32(value: f64) -> i32 {
    let truncated = value as i32;
    if f64::from(truncated) > value {
        truncated - 1
    } else {
        truncated
    }
}

/// The samples of one pixel column, as image rows.
#[derive(Debug, Clone, Copy)]
struct Column {
    x: i32,
    first: f64,
    low: f64,
    high: f64,
    last: f64,
}

impl Column {
    fn new(x: i32, y: f64) -> Self {
        Column {
            x,
            first: y,
            low: y,
            high: y,
            last: y,
        }
    }

    fn add(&mut self, y: f64) {
        self.low = self.low.min(y);
        self.high = self.high.max(y);
        self.last = y;
    }
}

/// Turns one CPU's columns of samples into the rows its line covers in each pixel column.
struct Spans<F: FnMut(i32, f64, f64)> {
    /// The column being gathered: a column also receives the ends of the lines to both
    /// neighbours, so it is complete only once the line moved on.
    pending: Option<(i32, f64, f64)>,
    /// The column and last sample the line continues from; `None` where it is broken.
    previous: Option<(i32, f64)>,
    emit: F,
}

impl<F: FnMut(i32, f64, f64)> Spans<F> {
    fn new(emit: F) -> Self {
        Spans {
            pending: None,
            previous: None,
            emit,
        }
    }

    fn cover(&mut self, x: i32, a: f64, b: f64) {
        let (low, high) = (a.min(b), a.max(b));
        match &mut self.pending {
            Some((pending_x, pending_low, pending_high)) if *pending_x == x => {
                *pending_low = pending_low.min(low);
                *pending_high = pending_high.max(high);
            }
            _ => {
                if let Some((x, low, high)) = self.pending.replace((x, low, high)) {
                    (self.emit)(x, low, high);
                }
            }
        }
    }

    /// Adds a column, joined to the previous one by a straight line between column centres
    /// (through any empty columns between them).
    fn column(&mut self, column: &Column) {
        if let Some((from_x, from_y)) = self.previous {
            let (x0, x1) = (f64::from(from_x) + 0.5, f64::from(column.x) + 0.5);
            let at = |x: f64| from_y + (column.first - from_y) * (x - x0) / (x1 - x0);
            // Empty unless the line moves right (time could run backwards after a restart).
            for x in from_x..=column.x {
                let (left, right) = (x0.max(f64::from(x)), x1.min(f64::from(x + 1)));
                self.cover(x, at(left), at(right));
            }
        }
        self.cover(column.x, column.low, column.high);
        self.previous = Some((column.x, column.last));
    }

    fn lift(&mut self) {
        self.previous = None;
    }

    fn finish(mut self) {
        if let Some((x, low, high)) = self.pending.take() {
            (self.emit)(x, low, high);
        }
    }
}

/// Emits, column by column, the rows that the line of the CPU at `index` covers: it joins the
/// samples, keeps the lowest and highest of a column (so that no spike disappears when samples
/// outnumber pixels), and breaks where the frequency is unknown.
pub(super) fn trace_cpu(
    history: &FrequencyHistory,
    index: usize,
    latest: Duration,
    map: &RasterMap,
    emit: impl FnMut(i32, f64, f64),
) {
    let mut spans = Spans::new(emit);
    let mut column: Option<Column> = None;
    for (at, khz) in history.samples(index) {
        let Some(khz) = khz else {
            if let Some(done) = column.take() {
                spans.column(&done);
            }
            spans.lift();
            continue;
        };
        // Samples left of the image all fall into one column just outside it, so that the
        // line still enters from the left edge.
        let x = floor_i32(map.x(latest.saturating_sub(at))).max(-1);
        let y = map.y(khz);
        match &mut column {
            Some(current) if current.x == x => current.add(y),
            _ => {
                if let Some(done) = column.replace(Column::new(x, y)) {
                    spans.column(&done);
                }
            }
        }
    }
    if let Some(done) = column {
        spans.column(&done);
    }
    spans.finish();
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::history::testing::hybrid_history;
    use super::*;

    /// The spans that `trace_cpu` emits for the first CPU into an image `width` pixels wide.
    fn spans(history: &FrequencyHistory, width: f64) -> Vec<(i32, f64, f64)> {
        let map = RasterMap {
            width,
            height: 100.0,
            top_ghz: 4.0,
        };
        let mut spans = Vec::new();
        let latest = history.latest_time().unwrap();
        trace_cpu(history, 0, latest, &map, |x, low, high| {
            spans.push((x, low, high))
        });
        spans
    }

    #[test]
    fn a_line_covers_each_pixel_column_once_from_its_lowest_to_highest_sample() {
        // 600 samples into 101 columns: about six a column, jumping between 1 and 1.6 GHz.
        let history = hybrid_history(600, |_, n| Some(1_000_000 + (n % 7) as u32 * 100_000));
        let spans = spans(&history, 100.0);
        let columns: Vec<i32> = spans.iter().map(|&(x, _, _)| x).collect();
        // The oldest sample is 59.9 s old: just inside the left edge.
        assert_eq!(columns, (0..=100).collect::<Vec<_>>());
        // 1.6 GHz and 1 GHz on a 4 GHz axis 100 pixels high are rows 60 and 75: a column of
        // six samples misses at most one of the seven values, so it spans five steps or more.
        for &(x, low, high) in &spans {
            assert!(60.0 <= low && high <= 75.0, "{x}: {low}..{high}");
            assert!(
                x == 0 || x == 100 || high - low >= 12.5,
                "{x}: {low}..{high}"
            );
        }
    }

    #[test]
    fn joins_samples_further_apart_than_a_pixel_through_the_columns_between() {
        // One sample a second, 10 pixels a second, rising 1 GHz (25 pixels) a second.
        let history = {
            let mut history = hybrid_history(0, |_, _| None);
            for n in 0..3 {
                history.push(
                    Duration::from_secs(n),
                    &[Some(1_000_000 + n as u32 * 1_000_000)],
                );
            }
            history
        };
        let spans = spans(&history, 600.0);
        let columns: Vec<i32> = spans.iter().map(|&(x, _, _)| x).collect();
        assert_eq!(columns, (580..=600).collect::<Vec<_>>());
        // Each column covers its share of the rise, 2.5 rows, and starts where the one to its
        // left ends.
        for pair in spans.windows(2) {
            let ((_, low, high), (_, _, next_high)) = (pair[0], pair[1]);
            assert!(high - low <= 2.5 + 1e-9, "{pair:?}");
            assert!((next_high - low).abs() < 1e-9, "{pair:?}");
        }
        assert_eq!(spans.first().map(|s| s.2), Some(75.0));
        assert_eq!(spans.last().map(|s| s.1), Some(25.0));
    }

    #[test]
    fn unknown_samples_break_the_line() {
        // One sample a pixel; unknown at 5, 15 and 25.
        let history = hybrid_history(30, |_, n| (n % 10 != 5).then_some(2_000_000));
        let columns: Vec<i32> = spans(&history, 600.0).iter().map(|&(x, _, _)| x).collect();
        let runs = 1 + columns
            .windows(2)
            .filter(|pair| pair[1] != pair[0] + 1)
            .count();
        assert_eq!((columns.len(), runs), (27, 4));
    }
}
