// SPDX-License-Identifier: GPL-3.0-or-later
//! Where a CPU's samples fall in the image of the plotting area, and the rows its line covers
//! in each pixel column (what the `raster` then fills), for the live plot.

use std::time::Duration;

use super::history::FrequencyHistory;

/// How far back the plot looks.
pub(super) const WINDOW: Duration = Duration::from_secs(60);

/// Where samples fall in the image of the plotting area: time in columns, each a fixed span
/// of time counted from when sampling began (so that a column, once complete, stays as it is
/// and the plot can keep it from frame to frame), and frequency in rows.
#[derive(Debug)]
pub(super) struct RasterMap {
    /// How many columns the window spans: the plotting area's width in logical pixels.
    pub(super) columns: i64,
    /// The height of the plotting area, in image rows.
    pub(super) height: f64,
    pub(super) top_ghz: f64,
}

impl RasterMap {
    /// The column that the time `at` falls into.
    pub(super) fn column(&self, at: Duration) -> i64 {
        let columns = u128::try_from(self.columns).unwrap_or(0);
        i64::try_from(at.as_nanos() * columns / WINDOW.as_nanos()).unwrap_or(i64::MAX)
    }

    fn y(&self, khz: u32) -> f64 {
        self.height - f64::from(khz) / 1e6 / self.top_ghz * self.height
    }
}

/// The samples of one pixel column, as image rows.
#[derive(Debug, Clone, Copy)]
struct Column {
    x: i64,
    first: f64,
    low: f64,
    high: f64,
    last: f64,
}

impl Column {
    fn new(x: i64, y: f64) -> Self {
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
struct Spans<F: FnMut(i64, f64, f64)> {
    /// The column being gathered: a column also receives the ends of the lines to both
    /// neighbours, so it is complete only once the line moved on.
    pending: Option<(i64, f64, f64)>,
    /// The column and last sample the line continues from; `None` where it is broken.
    previous: Option<(i64, f64)>,
    emit: F,
}

impl<F: FnMut(i64, f64, f64)> Spans<F> {
    fn new(emit: F) -> Self {
        Spans {
            pending: None,
            previous: None,
            emit,
        }
    }

    fn cover(&mut self, x: i64, a: f64, b: f64) {
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
            let (x0, x1) = (from_x as f64 + 0.5, column.x as f64 + 0.5);
            let at = |x: f64| from_y + (column.first - from_y) * (x - x0) / (x1 - x0);
            // Empty unless the line moves right (time could run backwards after a restart).
            for x in from_x..=column.x {
                let (left, right) = (x0.max(x as f64), x1.min((x + 1) as f64));
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

/// The first sample, counted from the oldest, that the columns from `first` on depend on:
/// all of the last column before them that holds a sample, as the line enters from there.
pub(super) fn first_sample_for(history: &FrequencyHistory, map: &RasterMap, first: i64) -> usize {
    let within = history.count_before(|at| map.column(at) < first);
    match within.checked_sub(1).and_then(|last| history.time(last)) {
        Some(entering) => {
            let column = map.column(entering);
            history.count_before(|at| map.column(at) < column)
        }
        None => 0,
    }
}

/// Emits, column by column, the rows that the line of the CPU at `index` covers, from its
/// sample `first` on (see [`first_sample_for`]) to the column `through` (and parts of the one
/// after it): it joins the samples, keeps the lowest and highest of a column (so that no
/// spike disappears when samples outnumber pixels), and breaks where the frequency is
/// unknown. A column depends only on its own samples and the nearest on either side, so it
/// is complete once a later column has one.
pub(super) fn trace_cpu(
    history: &FrequencyHistory,
    index: usize,
    first: usize,
    through: i64,
    map: &RasterMap,
    emit: impl FnMut(i64, f64, f64),
) {
    let mut spans = Spans::new(emit);
    let mut column: Option<Column> = None;
    for (at, khz) in history.samples_from(index, first) {
        let x = map.column(at);
        // This sample completes the column `through`: nothing after it counts.
        let last = x > through;
        match khz {
            None => {
                if let Some(done) = column.take() {
                    spans.column(&done);
                }
                spans.lift();
            }
            Some(khz) => {
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
        }
        if last {
            break;
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

    fn map(columns: i64) -> RasterMap {
        RasterMap {
            columns,
            height: 100.0,
            top_ghz: 4.0,
        }
    }

    /// The spans that `trace_cpu` emits for the first CPU from its sample `first` through the
    /// column `through`, with the minute `columns` wide.
    fn spans_between(
        history: &FrequencyHistory,
        columns: i64,
        first: usize,
        through: i64,
    ) -> Vec<(i64, f64, f64)> {
        let mut spans = Vec::new();
        trace_cpu(history, 0, first, through, &map(columns), |x, low, high| {
            spans.push((x, low, high))
        });
        spans
    }

    fn spans(history: &FrequencyHistory, columns: i64) -> Vec<(i64, f64, f64)> {
        spans_between(history, columns, 0, i64::MAX)
    }

    #[test]
    fn a_line_covers_each_pixel_column_once_from_its_lowest_to_highest_sample() {
        // 600 samples into 101 columns: about six a column, jumping between 1 and 1.6 GHz.
        let history = hybrid_history(600, |_, n| Some(1_000_000 + (n % 7) as u32 * 100_000));
        let spans = spans(&history, 100);
        let columns: Vec<i64> = spans.iter().map(|&(x, _, _)| x).collect();
        // 0.6 s a column: six samples each.
        assert_eq!(columns, (0..100).collect::<Vec<_>>());
        // 1.6 GHz and 1 GHz on a 4 GHz axis 100 pixels high are rows 60 and 75: a column of
        // six samples misses at most one of the seven values, so it spans five steps or more.
        for &(x, low, high) in &spans {
            assert!(60.0 <= low && high <= 75.0, "{x}: {low}..{high}");
            assert!(
                x == 0 || x == 99 || high - low >= 12.5,
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
        let spans = spans(&history, 600);
        let columns: Vec<i64> = spans.iter().map(|&(x, _, _)| x).collect();
        assert_eq!(columns, (0..=20).collect::<Vec<_>>());
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
        let columns: Vec<i64> = spans(&history, 600).iter().map(|&(x, _, _)| x).collect();
        let runs = 1 + columns
            .windows(2)
            .filter(|pair| pair[1] != pair[0] + 1)
            .count();
        assert_eq!((columns.len(), runs), (27, 4));
    }

    #[test]
    fn any_run_of_columns_is_traced_alike_from_the_samples_it_depends_on() {
        // Samples 100 ms apart into columns 150 ms wide (some hold one sample, some two),
        // unknown now and then, and a pause of two seconds with no samples at all.
        let mut history = hybrid_history(0, |_, _| None);
        for n in 0..120u32 {
            let at = Duration::from_millis(u64::from(n) * 100 + if n >= 60 { 2_000 } else { 0 });
            let khz = (n % 17 != 3).then_some(800_000 + (n * 7_919) % 3_000_000);
            history.push(at, &[khz; 4]);
        }
        let whole = spans(&history, 400);
        let last = whole.last().unwrap().0;
        for first in 0..=last + 1 {
            let from = first_sample_for(&history, &map(400), first);
            assert!(from == 0 || from < history.count_before(|at| map(400).column(at) < first));
            for through in [first, first + 3, i64::MAX] {
                let traced: Vec<_> = spans_between(&history, 400, from, through)
                    .into_iter()
                    .filter(|&(x, _, _)| (first..=through).contains(&x))
                    .collect();
                let expected: Vec<_> = whole
                    .iter()
                    .copied()
                    .filter(|&(x, _, _)| (first..=through).contains(&x))
                    .collect();
                assert_eq!(traced, expected, "columns {first} to {through}");
            }
        }
        // A trace through one column reads no more than the samples up to the next.
        let mut read = 0;
        trace_cpu(&history, 0, 0, 0, &map(400), |x, _, _| read = read.max(x));
        assert!(read <= 2, "{read}");
    }

    #[test]
    fn a_column_spans_a_fixed_time() {
        let map = map(600);
        assert_eq!(map.column(Duration::ZERO), 0);
        assert_eq!(map.column(Duration::from_millis(99)), 0);
        assert_eq!(map.column(Duration::from_millis(100)), 1);
        assert_eq!(map.column(Duration::from_secs(3_600)), 36_000);
        assert_eq!(map.column(Duration::MAX), i64::MAX);
    }
}
