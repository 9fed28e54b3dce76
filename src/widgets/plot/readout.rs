// SPDX-License-Identifier: GPL-3.0-or-later
//! What the live plot says about one moment, for the pointer over it or the keyboard on it:
//! when, each core type's median and range, and the busiest CPU; and the change of the power
//! state marked nearest to it, if one is.

use std::time::{Duration, SystemTime};

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::CoreType;

use super::history::FrequencyHistory;

/// How far from the moment asked about a sample may lie and still be read for it.
const NEAR: Duration = Duration::from_secs(1);

/// How far from the moment asked about a change may lie and still be said for it: about
/// the width of its triangle on a plot of a usual size.
const NEAR_CHANGE: Duration = Duration::from_millis(600);

/// A change of the power state marked on the plot: when, and what and who in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlotChange {
    pub time: SystemTime,
    pub text: String,
}

impl PlotChange {
    /// How long before `now` it happened (none for a change in the future of a clock set
    /// back).
    pub fn ago(&self, now: SystemTime) -> Duration {
        now.duration_since(self.time).unwrap_or_default()
    }

    /// The change of `changes` nearest to `seconds_ago` before `now`, if one lies within
    /// [`NEAR_CHANGE`] of it.
    pub fn near(changes: &[PlotChange], now: SystemTime, seconds_ago: f64) -> Option<&PlotChange> {
        let wanted = Duration::from_secs_f64(seconds_ago.clamp(0.0, 3600.0));
        changes
            .iter()
            .map(|change| (change.ago(now).abs_diff(wanted), change))
            .filter(|&(apart, _)| apart <= NEAR_CHANGE)
            .min_by_key(|&(apart, _)| apart)
            .map(|(_, change)| change)
    }
}

/// One core type at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeReadout {
    pub core_type: Option<CoreType>,
    pub low_khz: u32,
    pub median_khz: u32,
    pub high_khz: u32,
}

/// The sample nearest to a moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Readout {
    /// How long before the latest sample it was taken.
    pub ago: Duration,
    pub types: Vec<TypeReadout>,
    /// The CPU with the highest frequency, and that frequency.
    pub busiest: Option<(u32, u32)>,
}

impl Readout {
    /// The sample of `history` nearest to `seconds_ago` before its latest one; `None` where
    /// none lies within [`NEAR`] of that moment (before sampling began, or in a gap).
    pub fn at(history: &FrequencyHistory, seconds_ago: f64) -> Option<Readout> {
        let latest = history.latest_time()?;
        let wanted = latest.saturating_sub(Duration::from_secs_f64(seconds_ago.clamp(0.0, 3600.0)));
        let after = history.count_before(|at| at < wanted);
        let nearest = [after.checked_sub(1), Some(after)]
            .into_iter()
            .flatten()
            .filter_map(|n| history.time(n).map(|at| (n, at)))
            .min_by_key(|&(_, at)| at.abs_diff(wanted))?;
        let (n, at) = nearest;
        if at.abs_diff(wanted) > NEAR {
            return None;
        }
        let types = history
            .core_types()
            .filter_map(|core_type| {
                let band = history.band(core_type)?;
                Some(TypeReadout {
                    core_type,
                    low_khz: history.value(band.low, n)?,
                    median_khz: history.value(band.median, n)?,
                    high_khz: history.value(band.high, n)?,
                })
            })
            .collect();
        let busiest = history
            .cpus()
            .iter()
            .enumerate()
            .filter_map(|(index, cpu)| Some((cpu.id, history.value(index, n)?)))
            .max_by_key(|&(id, khz)| (khz, std::cmp::Reverse(id)));
        Some(Readout {
            ago: latest.saturating_sub(at),
            types,
            busiest,
        })
    }

    /// The readout in a line, in the user's language.
    pub fn text(&self) -> String {
        let ghz = |khz: u32| format!("{:.2}", f64::from(khz) / 1e6);
        let when = if self.ago < Duration::from_millis(500) {
            gettext("Now")
        } else {
            fill(
                gettext("{seconds} s ago"),
                &[("seconds", &format!("{:.0}", self.ago.as_secs_f64()))],
            )
        };
        let mut parts = vec![when];
        parts.extend(self.types.iter().map(|kind| {
            fill(
                gettext("{cores}: median {median} GHz, {low}–{high} GHz"),
                &[
                    (
                        "cores",
                        &pacer_measure::table::cores_of_type(kind.core_type),
                    ),
                    ("median", &ghz(kind.median_khz)),
                    ("low", &ghz(kind.low_khz)),
                    ("high", &ghz(kind.high_khz)),
                ],
            )
        }));
        if let Some((cpu, khz)) = self.busiest {
            parts.push(fill(
                gettext("busiest: CPU {cpu} at {frequency} GHz"),
                &[("cpu", &cpu.to_string()), ("frequency", &ghz(khz))],
            ));
        }
        parts.join(" · ")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::history::testing::hybrid_history;
    use super::*;

    #[test]
    fn reads_the_sample_nearest_the_moment_with_each_types_range_and_the_busiest_cpu() {
        // 100 samples 100 ms apart: CPU n at (n + 1) GHz, plus the sample number in kHz.
        let history = hybrid_history(100, |cpu, n| Some((cpu as u32 + 1) * 1_000_000 + n as u32));
        let now = Readout::at(&history, 0.0).unwrap();
        assert_eq!(now.ago, Duration::ZERO);
        assert_eq!(now.busiest, Some((3, 4_000_099)));
        assert_eq!(
            now.types,
            [
                TypeReadout {
                    core_type: Some(CoreType::Performance),
                    low_khz: 1_000_099,
                    median_khz: 1_500_099,
                    high_khz: 2_000_099,
                },
                TypeReadout {
                    core_type: Some(CoreType::Efficiency),
                    low_khz: 3_000_099,
                    median_khz: 3_500_099,
                    high_khz: 4_000_099,
                },
            ]
        );
        // 2.04 s before the latest (9.9 s): the sample at 7.9 s is the nearest.
        let earlier = Readout::at(&history, 2.04).unwrap();
        assert_eq!(earlier.ago, Duration::from_secs(2));
        assert_eq!(earlier.busiest, Some((3, 4_000_079)));
        // Before the first sample: the first one.
        assert_eq!(
            Readout::at(&history, 59.0).unwrap().ago,
            Duration::from_millis(9_900)
        );
        assert_eq!(Readout::at(&hybrid_history(0, |_, _| None), 0.0), None);
    }

    #[test]
    fn the_change_nearest_the_moment_is_said_only_when_near() {
        let now = SystemTime::now();
        let change = |seconds: u64, text: &str| PlotChange {
            time: now - Duration::from_secs(seconds),
            text: text.to_owned(),
        };
        let changes = [change(10, "governor"), change(12, "EPP")];
        assert_eq!(
            PlotChange::near(&changes, now, 10.4).unwrap().text,
            "governor"
        );
        assert_eq!(PlotChange::near(&changes, now, 11.9).unwrap().text, "EPP");
        assert_eq!(PlotChange::near(&changes, now, 11.0), None);
        assert_eq!(PlotChange::near(&[], now, 10.0), None);
    }

    #[test]
    fn says_when_and_what_in_a_line() {
        let readout = Readout {
            ago: Duration::from_secs(12),
            types: vec![TypeReadout {
                core_type: Some(CoreType::Performance),
                low_khz: 400_000,
                median_khz: 3_100_000,
                high_khz: 4_700_000,
            }],
            busiest: Some((3, 4_700_000)),
        };
        assert_eq!(
            readout.text(),
            "12 s ago · P-cores: median 3.10 GHz, 0.40–4.70 GHz · busiest: CPU 3 at 4.70 GHz"
        );
    }
}
