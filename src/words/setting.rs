// SPDX-License-Identifier: GPL-3.0-or-later
//! A CPU setting's value in plain words, wherever the window, the tray or Quick Settings show
//! one ("Balanced performance" for `balance_performance`), with a line that says what it
//! does. The kernel's own token stays beside it, in a tooltip (`with_token`), and in
//! `pacerctl` and JSON, which print the kernel's words unchanged.

use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::{Eas, EasReason};
use pacer_core::values::{DriverMode, Epp, Governor, Khz};

/// An energy-performance preference in words; a raw number, as the kernel prints one it has
/// no name for, stays a number.
pub fn epp_label(epp: Epp) -> String {
    match epp {
        Epp::Default => gettext("Firmware default"),
        Epp::Performance => gettext("Performance"),
        Epp::BalancePerformance => gettext("Balanced performance"),
        Epp::BalancePower => gettext("Balanced power saving"),
        Epp::Power => gettext("Power saving"),
        Epp::Raw(value) => fill(gettext("Level {value}"), &[("value", &value.to_string())]),
    }
}

/// What an energy-performance preference asks of the hardware, in one line.
pub fn epp_explanation(epp: Epp) -> String {
    match epp {
        Epp::Default => gettext("The hardware uses its own built-in preference"),
        Epp::Performance => gettext("The hardware favours speed over energy"),
        Epp::BalancePerformance => gettext("The hardware leans towards speed"),
        Epp::BalancePower => gettext("The hardware leans towards saving energy"),
        Epp::Power => gettext("The hardware favours saving energy over speed"),
        Epp::Raw(_) => gettext("A preference between 0 (fastest) and 255 (most frugal)"),
    }
}

/// A governor in words; one the kernel added after Pacer was written keeps its own name.
pub fn governor_label(governor: &Governor) -> String {
    match governor.as_str() {
        "performance" => gettext("Performance governor"),
        "powersave" => gettext("Power saving governor"),
        "schedutil" => gettext("Scheduler-guided governor"),
        "ondemand" => gettext("On-demand governor"),
        "conservative" => gettext("Conservative governor"),
        "userspace" => gettext("Fixed by a program"),
        other => other.to_owned(),
    }
}

/// What a governor does, in one line; `hardware_managed` where the driver is in active
/// mode, when powersave and performance hand the choice of speed to the hardware's EPP.
pub fn governor_explanation(governor: &Governor, hardware_managed: bool) -> String {
    match (governor.as_str(), hardware_managed) {
        ("performance", true) => gettext("The hardware runs fast, whatever the EPP says"),
        ("performance", false) => gettext("The cores always run at their highest speed"),
        ("powersave", true) => gettext("The hardware picks the speed, guided by the EPP"),
        ("powersave", false) => gettext("The cores always run at their lowest speed"),
        ("schedutil", _) => gettext("The speed follows the load the scheduler sees"),
        ("ondemand", _) => gettext("The speed jumps up under load and steps back down"),
        ("conservative", _) => gettext("The speed climbs and falls in small steps"),
        ("userspace", _) => gettext("A program sets a fixed speed"),
        _ => gettext("A governor Pacer does not know"),
    }
}

/// A frequency driver's mode in words.
pub fn driver_mode_label(mode: DriverMode) -> String {
    match mode {
        DriverMode::Active => gettext("Hardware-managed"),
        DriverMode::Passive => gettext("Kernel-managed"),
        DriverMode::Guided => gettext("Guided by the kernel"),
    }
}

/// What a driver mode means, in one line.
pub fn driver_mode_explanation(mode: DriverMode) -> String {
    match mode {
        DriverMode::Active => gettext("The processor chooses its speed itself, guided by the EPP"),
        DriverMode::Passive => gettext("The kernel's governor chooses the speed"),
        DriverMode::Guided => {
            gettext("The kernel sets a range and the processor chooses within it")
        }
    }
}

/// Whether Energy Aware Scheduling runs, and if not the first reason why, in one line; the
/// kernel's account of every reason (`Eas::reasons_text`) is for a tooltip.
pub fn eas_line(eas: &Eas) -> String {
    let why = eas.reasons.first().map(eas_reason);
    match (eas.active, why) {
        (Some(true), _) => gettext("On: tasks go to the cores that spend the least energy on them"),
        (Some(false), Some(why)) => fill(gettext("Off: {why}"), &[("why", &why)]),
        (Some(false), None) => gettext("Off"),
        (None, Some(why)) => fill(gettext("Unknown: {why}"), &[("why", &why)]),
        (None, None) => gettext("Unknown"),
    }
}

/// Why Energy Aware Scheduling does not run (or cannot be told), in a few plain words.
fn eas_reason(reason: &EasReason) -> String {
    match reason {
        EasReason::NoKernelSupport => gettext("this kernel was built without it"),
        EasReason::DisabledBySysctl => gettext("it is switched off"),
        EasReason::SmtActive => gettext("it does not run with hyper-threading on"),
        EasReason::SymmetricCapacity => {
            gettext("all cores are alike, so there is nothing to choose")
        }
        EasReason::GovernorNotSchedutil { .. } => {
            gettext("it needs the Scheduler-guided governor on every core")
        }
        EasReason::NoCpufreq => gettext("there is no CPU frequency scaling"),
        EasReason::NoEnergyModel { .. } => {
            gettext("the firmware gives no energy costs for some cores")
        }
        EasReason::KernelSaysImpossible => gettext("the kernel says it cannot run here"),
        EasReason::EnergyModelUnknown => gettext("only an administrator can read the energy model"),
    }
}

/// A frequency as people say it: "400 MHz" below a gigahertz, "4.7 GHz" (to the nearest
/// 10 MHz) from there on.
pub fn frequency(khz: Khz) -> String {
    let mhz = khz.mhz();
    if mhz < 1000 {
        return fill(gettext("{mhz} MHz"), &[("mhz", &mhz)]);
    }
    let ghz = format!("{:.2}", f64::from(mhz) / 1000.0);
    let ghz = ghz.trim_end_matches('0').trim_end_matches('.');
    fill(gettext("{ghz} GHz"), &[("ghz", &ghz)])
}

/// A tooltip that gives the kernel's own word for a value shown in words: "Kernel value:
/// balance_performance".
pub fn with_token(token: &str) -> String {
    fill(gettext("Kernel value: {token}"), &[("token", &token)])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn no_label_is_the_kernels_token() {
        for epp in Epp::NAMED {
            let label = epp_label(epp);
            assert_ne!(label, epp.to_string(), "{epp:?}");
            assert!(!label.contains('_'), "{label}");
        }
        for governor in [
            "performance",
            "powersave",
            "schedutil",
            "ondemand",
            "conservative",
        ] {
            let governor: Governor = governor.parse().unwrap();
            assert_ne!(governor_label(&governor), governor.as_str());
        }
        for mode in [DriverMode::Active, DriverMode::Passive, DriverMode::Guided] {
            assert_ne!(driver_mode_label(mode), mode.to_string());
        }
    }

    #[test]
    fn the_words_name_the_issue_examples() {
        assert_eq!(epp_label(Epp::BalancePerformance), "Balanced performance");
        assert_eq!(
            governor_label(&Governor::powersave()),
            "Power saving governor"
        );
        assert_eq!(epp_label(Epp::Raw(96)), "Level 96");
        assert_eq!(with_token("powersave"), "Kernel value: powersave");
    }

    #[test]
    fn a_frequency_reads_in_megahertz_below_a_gigahertz() {
        assert_eq!(frequency(Khz(400_000)), "400 MHz");
        assert_eq!(frequency(Khz(999_400)), "999 MHz");
        assert_eq!(frequency(Khz(1_000_000)), "1 GHz");
        assert_eq!(frequency(Khz(1_360_000)), "1.36 GHz");
        assert_eq!(frequency(Khz(4_700_000)), "4.7 GHz");
        assert_eq!(frequency(Khz(3_450_000)), "3.45 GHz");
    }

    #[test]
    fn eas_says_whether_it_runs_and_the_first_reason_without_a_path() {
        let mut eas = Eas {
            active: Some(false),
            sysctl: None,
            reasons: vec![
                EasReason::DisabledBySysctl,
                EasReason::GovernorNotSchedutil { policies: vec![0] },
            ],
        };
        assert_eq!(eas_line(&eas), "Off: it is switched off");
        assert!(eas.reasons_text().contains("/proc/sys"), "the tooltip's");
        eas.reasons.clear();
        eas.active = Some(true);
        assert!(eas_line(&eas).starts_with("On: "));
        eas.active = None;
        eas.reasons.push(EasReason::EnergyModelUnknown);
        assert_eq!(
            eas_line(&eas),
            "Unknown: only an administrator can read the energy model"
        );
    }
}
