// SPDX-License-Identifier: GPL-3.0-or-later
//! What a change of a setting was, in a History row's first line: the setting's name, the
//! cores it was on by their type ("Energy preference on P-cores"), and its values in the
//! words the rest of the window uses ("Balanced performance"); a value with no words keeps
//! the kernel's.

use pacer_core::history::Setting;
use pacer_core::i18n::{fill, gettext, ngettext};
use pacer_core::values::{CoreType, Epb, Epp, Khz};
use pacer_core::who::setting_label;

use crate::data::history::Covered;
use crate::words::profile::profile_label;
use crate::words::setting::{driver_mode_label, epp_label, governor_label};

/// What changed where: "Energy preference on P-cores"; a machine-wide setting by its name.
pub fn setting_on(setting: Setting, covered: &Covered) -> String {
    let setting = setting_name(setting);
    let cores = match covered {
        Covered::Machine => return setting,
        Covered::All => gettext("all cores"),
        Covered::Type(CoreType::Performance) => gettext("P-cores"),
        Covered::Type(CoreType::Efficiency) => gettext("E-cores"),
        Covered::Type(CoreType::LowPower) => gettext("low-power cores"),
        Covered::Cpus(cpus) => fill(
            ngettext("CPU {cpus}", "CPUs {cpus}", cpus.len() as u32),
            &[("cpus", cpus)],
        ),
    };
    fill(
        gettext("{setting} on {cores}"),
        &[("setting", &setting), ("cores", &cores)],
    )
}

/// A setting's name at the start of a row.
pub fn setting_name(setting: Setting) -> String {
    match setting {
        Setting::Governor => gettext("Governor"),
        Setting::Epp => gettext("Energy preference"),
        Setting::MinFreq => gettext("Lowest frequency"),
        Setting::MaxFreq => gettext("Highest frequency"),
        // intel_pstate's switch is the same turbo, said the other way round.
        Setting::Boost | Setting::NoTurbo => gettext("Turbo boost"),
        Setting::DriverMode => gettext("Driver mode"),
        Setting::MinPerfPct => gettext("Lowest performance"),
        Setting::MaxPerfPct => gettext("Highest performance"),
        Setting::Eas => gettext("Energy-aware scheduling"),
        Setting::PlatformProfile => gettext("Platform profile"),
        Setting::Epb => gettext("Energy bias"),
        Setting::Profile => gettext("Power mode"),
        // Rows of these say what happened in sentences of their own (`what_changed`).
        Setting::Recording | Setting::Sleep | Setting::ProfileHold => setting_label(setting),
    }
}

/// A setting's name in the page's filter, where one entry stands for both frequency limits.
pub fn filter_name(setting: Setting) -> String {
    match setting {
        Setting::MinFreq | Setting::MaxFreq => gettext("Frequency limits"),
        other => setting_name(other),
    }
}

/// A value `setting` took, in words; the kernel's text where Pacer has none for it.
pub fn value_words(setting: Setting, value: &str) -> String {
    let words = match setting {
        Setting::Epp => value.parse().ok().map(epp_label),
        Setting::Governor => value.parse().ok().map(|governor| governor_label(&governor)),
        Setting::DriverMode => value.parse().ok().map(driver_mode_label),
        Setting::Profile | Setting::PlatformProfile => Some(profile_label(value)),
        Setting::MinFreq | Setting::MaxFreq => value.parse().ok().map(Khz::words),
        Setting::Boost | Setting::Eas => switch(value, "1"),
        Setting::NoTurbo => switch(value, "0"),
        Setting::MinPerfPct | Setting::MaxPerfPct => {
            Some(fill(gettext("{percent}%"), &[("percent", &value)]))
        }
        Setting::Epb => value.parse().ok().map(energy_bias),
        Setting::Recording | Setting::Sleep | Setting::ProfileHold => None,
    };
    words.unwrap_or_else(|| value.to_owned())
}

/// An energy bias in the energy preference's words where the kernel names the level
/// (`docs/kernel.md` 1.3: 0, 4, 6 "normal", 8, 15), else its level (the models whose normal
/// is 7 show "Level 7").
fn energy_bias(epb: Epb) -> String {
    match epb.value() {
        0 => epp_label(Epp::Performance),
        4 => epp_label(Epp::BalancePerformance),
        6 => gettext("Normal"),
        8 => epp_label(Epp::BalancePower),
        15 => epp_label(Epp::Power),
        level => epp_label(Epp::Raw(level)),
    }
}

/// "On" where a switch reads `on`, "Off" where it reads the other of 0 and 1.
fn switch(value: &str, on: &str) -> Option<String> {
    match value {
        "0" | "1" if value == on => Some(gettext("On")),
        "0" | "1" => Some(gettext("Off")),
        _ => None,
    }
}
