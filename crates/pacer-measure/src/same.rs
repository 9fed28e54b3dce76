// SPDX-License-Identifier: GPL-3.0-or-later
//! Which settings of a comparison ran the same: two columns whose measurements ran under the
//! same kernel values (driver, mode, governor, EPP, EAS, turbo) are one setting measured twice,
//! whatever was asked for — `governor=performance` twice, or a setting the machine already had
//! beside the settings as they were. The window and `pacerctl` say so rather than rank them
//! as two.

use pacer_dbus::measurement::compare::Comparison;
use pacer_dbus::measurement::report::Settings;

/// Whether two measurements ran under the same kernel values. The profile daemon's name for
/// its profile is left out: it is a name, and what it sets is in the values compared.
pub fn ran_alike(a: &Settings, b: &Settings) -> bool {
    (&a.driver, a.mode, &a.governor, a.epp, a.eas, a.boost)
        == (&b.driver, b.mode, &b.governor, b.epp, b.eas, b.boost)
}

/// For each column of `comparison`, the first column before it that ran under the same
/// settings; `None` for the first of its kind.
pub fn same_as(comparison: &Comparison) -> Vec<Option<usize>> {
    let columns = &comparison.columns;
    columns
        .iter()
        .enumerate()
        .map(|(index, column)| {
            columns[..index]
                .iter()
                .position(|earlier| ran_alike(&earlier.result.settings, &column.result.settings))
        })
        .collect()
}

/// The columns that are `first` or ran the same as it, by `same` (as [`same_as`] gives it).
pub fn alike(same: &[Option<usize>], first: usize) -> impl Iterator<Item = usize> + '_ {
    (0..same.len()).filter(move |&column| column == first || same[column] == Some(first))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacer_core::values::{DriverMode, Epp, Governor};
    use pacer_dbus::measurement::compare::{parse_setting, Column, Setting};
    use pacer_dbus::measurement::report::{Clock, RampReport, SCHEMA};

    fn ran_under(governor: Governor, epp: Epp, profile: &str) -> RampReport {
        RampReport {
            schema: SCHEMA,
            kind: "ramp".into(),
            simulated: true,
            settings: Settings {
                driver: Some("intel_pstate".into()),
                mode: Some(DriverMode::Active),
                governor: Some(governor),
                epp: Some(epp),
                eas: Some(false),
                boost: Some(true),
                profile: Some(profile.into()),
            },
            clock: Clock::OnCpu,
            runs: Vec::new(),
        }
    }

    #[test]
    fn the_same_kernel_values_are_the_same_setting_however_asked_for() {
        let column = |setting: &str, result| Column {
            setting: if setting.is_empty() {
                Setting::default()
            } else {
                parse_setting(setting).unwrap()
            },
            result,
        };
        let performance = || ran_under(Governor::performance(), Epp::Performance, "balanced");
        let comparison = Comparison::new(
            vec![
                column("governor=performance", performance()),
                // As they were: powersave, balance_performance.
                column(
                    "",
                    ran_under(Governor::powersave(), Epp::BalancePerformance, "x"),
                ),
                column(
                    "epp=power",
                    ran_under(Governor::powersave(), Epp::Power, "x"),
                ),
                column("governor=performance", performance()),
                // Asked differently, ran the same as the settings as they were; the
                // daemon's profile name does not count.
                column(
                    "governor=powersave",
                    ran_under(Governor::powersave(), Epp::BalancePerformance, "y"),
                ),
            ],
            true,
        );
        assert_eq!(same_as(&comparison), [None, None, None, Some(0), Some(1)]);
        // One value apart is another setting.
        let mut turbo_off = performance();
        turbo_off.settings.boost = Some(false);
        assert!(!ran_alike(&performance().settings, &turbo_off.settings));
    }
}
