// SPDX-License-Identifier: GPL-3.0-or-later
//! Statistics over trials and over a sampled run.

use pacer_dbus::measurement::statistic::Statistic;

/// The statistic of the values an iterator gives; `None` for none.
pub fn statistic_of_each(values: impl Iterator<Item = f64>) -> Option<Statistic> {
    statistic_of(&values.collect::<Vec<_>>())
}

/// The statistic of `values` (a report's [`Statistic`]); `None` for no values.
pub fn statistic_of(values: &[f64]) -> Option<Statistic> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = if values.len() > 1 {
        values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some(Statistic {
        mean,
        sd: variance.sqrt(),
        min: sorted[0],
        max: sorted[sorted.len() - 1],
        median: quantile(&sorted, 0.5),
        iqr: quantile(&sorted, 0.75) - quantile(&sorted, 0.25),
    })
}

/// The `q` quantile of sorted, non-empty `values`, interpolated linearly.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let at = q * (sorted.len() - 1) as f64;
    let below = at.floor() as usize;
    let above = at.ceil() as usize;
    sorted[below] + (at - below as f64) * (sorted[above] - sorted[below])
}

/// The median of `values` (which it sorts); `None` when empty.
pub fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_known_values() {
        let s = statistic_of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.mean, 5.0);
        assert!((s.sd - 2.138).abs() < 1e-3);
        assert_eq!((s.min, s.max), (2.0, 9.0));
        assert_eq!(s.median, 4.5);
        // Quartiles at positions 1.75 and 5.25: 4.0 and 5.5.
        assert_eq!(s.iqr, 1.5);
        // One wild trial moves the mean, not the median.
        let wild = statistic_of(&[0.0, 0.0, 0.0, 0.0, 170.0]).unwrap();
        assert_eq!((wild.median, wild.iqr), (0.0, 0.0));
        assert_eq!(wild.mean, 34.0);
        assert_eq!(statistic_of(&[3.0]).unwrap().sd, 0.0);
        assert!(statistic_of(&[]).is_none());
    }

    #[test]
    fn medians() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&mut []), None);
    }
}
