// SPDX-License-Identifier: GPL-3.0-or-later
//! A result's settings in a user's words: a comparison's legend, a line per setting ("A:
//! Performance governor", "D: Performance governor — same settings as A"), and the settings
//! a measurement ran under ("Ran under: Hardware-managed, Power saving governor, …"). The
//! kernel's own words stay in a tooltip, as in `pacerctl` and the JSON.

use pacer_core::i18n::{fill, gettext};
use pacer_dbus::measurement::compare::{setting_letter, Setting};
use pacer_dbus::measurement::report::Settings;
use pacer_measure::same::same_as;
use pacer_measure::table::settings_line;

use super::state::Outcome;
use crate::words::setting::{driver_mode_label, epp_label, governor_label};

fn on_off(on: bool) -> String {
    if on {
        gettext("on")
    } else {
        gettext("off")
    }
}

/// The values that are set, in words, in the order they apply: `Hardware-managed`,
/// `Performance governor`, `EPP Power saving`, `EAS off`, `turbo on`.
fn parts(setting: &Setting) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(mode) = setting.mode {
        parts.push(driver_mode_label(mode));
    }
    if let Some(governor) = &setting.governor {
        parts.push(governor_label(governor));
    }
    if let Some(epp) = setting.epp {
        parts.push(fill(gettext("EPP {epp}"), &[("epp", &epp_label(epp))]));
    }
    if let Some(eas) = setting.eas {
        parts.push(fill(gettext("EAS {state}"), &[("state", &on_off(eas))]));
    }
    if let Some(boost) = setting.boost {
        parts.push(fill(gettext("turbo {state}"), &[("state", &on_off(boost))]));
    }
    parts
}

/// A setting of a comparison in words: `Performance governor, EPP Power saving`; `as now`
/// for none.
pub fn setting_words(setting: &Setting) -> String {
    let parts = parts(setting);
    if parts.is_empty() {
        gettext("as now")
    } else {
        parts.join(", ")
    }
}

/// What a measurement ran under, in words: `Ran under: Hardware-managed, Power saving
/// governor, EPP Balanced performance, EAS off, turbo on`.
pub fn ran_under(settings: &Settings) -> String {
    if settings.driver.is_none() {
        return gettext("Ran without CPU frequency scaling");
    }
    let values = Setting {
        mode: settings.mode,
        governor: settings.governor.clone(),
        epp: settings.epp,
        eas: settings.eas,
        boost: settings.boost,
    };
    fill(
        gettext("Ran under: {settings}"),
        &[("settings", &parts(&values).join(", "))],
    )
}

impl Outcome {
    /// One line per setting of a comparison: `A: Performance governor`, and for a setting
    /// that ran the same as one before it `D: Performance governor — same settings as A`;
    /// empty for a plain measurement.
    pub fn legend(&self) -> Vec<String> {
        let Outcome::Compare(comparison) = self else {
            return Vec::new();
        };
        comparison
            .columns
            .iter()
            .zip(same_as(comparison))
            .enumerate()
            .map(|(index, (column, same))| {
                let values: [(&str, &dyn std::fmt::Display); 3] = [
                    ("letter", &setting_letter(index)),
                    ("setting", &setting_words(&column.setting)),
                    ("other", &same.map(setting_letter).unwrap_or_default()),
                ];
                match same {
                    Some(_) => fill(
                        gettext("{letter}: {setting} — same settings as {other}"),
                        &values,
                    ),
                    None => fill(gettext("{letter}: {setting}"), &values),
                }
            })
            .collect()
    }

    /// What the result's group says above its table: the legend of a comparison, or what a
    /// measurement ran under; and where the figures come from a model.
    pub fn description(&self) -> String {
        let (mut lines, simulated) = match self {
            Outcome::Ramp(report) => (vec![ran_under(&report.settings)], report.simulated),
            Outcome::Compare(comparison) => (
                self.legend(),
                comparison.columns.iter().any(|c| c.result.simulated),
            ),
        };
        if simulated {
            lines.push(gettext("Figures from the simulated machine's model"));
        }
        lines.join("\n")
    }

    /// The settings each measurement ran under in the kernel's words, for a tooltip:
    /// `Settings: intel_pstate active, governor powersave, …`, after each setting's letter
    /// and its text (`A: governor=performance`) in a comparison.
    pub fn kernel_values(&self) -> String {
        match self {
            Outcome::Ramp(report) => settings_line(&report.settings, false),
            Outcome::Compare(comparison) => comparison
                .columns
                .iter()
                .enumerate()
                .map(|(index, column)| {
                    let asked = if column.setting.is_empty() {
                        gettext("as now")
                    } else {
                        column.setting.label()
                    };
                    fill(
                        gettext("{letter}: {setting} — {values}"),
                        &[
                            ("letter", &setting_letter(index)),
                            ("setting", &asked),
                            ("values", &settings_line(&column.result.settings, false)),
                        ],
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

#[cfg(test)]
mod tests;
