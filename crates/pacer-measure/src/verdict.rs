// SPDX-License-Identifier: GPL-3.0-or-later
//! A verdict on each run's ramp in one line, set against the published figure for its kind
//! of settings (`docs/measurement.md` 5): "P-cores: fast — 4.8 ms, like Intel HWP's usual
//! ~5 ms." The window and `pacerctl` print it under the figures.

use pacer_core::i18n::{fill, gettext, ngettext};
use pacer_core::values::{CoreType, Governor};
use pacer_dbus::measurement::report::{RampReport, RampRun, Settings};

use crate::convergence::Convergence;
use crate::table::cores_of_type;

/// A ramp done within one frame at 60 Hz is fast: no frame is drawn at the lower speed.
pub const FAST_WITHIN_MS: f64 = 1000.0 / 60.0;

/// A published time to full speed, of one kind of settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// intel_pstate with hardware-managed P-states (HWP): about 5 ms on a P-core, 8 on an
    /// E-core.
    IntelHwp,
    /// amd-pstate in active mode on a Zen 3 laptop: about 2 ms.
    AmdPstate,
    /// schedutil from the lowest frequency: about 50 ms on a big core, 70 on a little one.
    Schedutil,
}

impl Reference {
    /// The figure for a run under `settings`: schedutil's wherever it governs; else the
    /// driver's maker's, AMD's for amd-pstate and Intel's for the rest (the best-known
    /// figure, for the settings that have none of their own: ondemand, a fixed speed, no
    /// frequency driver).
    pub fn for_settings(settings: &Settings) -> Reference {
        let schedutil = settings
            .governor
            .as_ref()
            .is_some_and(|governor| governor.is(Governor::SCHEDUTIL));
        // Driver names are an open set, kept as the kernel prints them: amd-pstate in its
        // passive and guided modes, amd-pstate-epp in active mode.
        let amd = settings
            .driver
            .as_deref()
            .is_some_and(|driver| driver.starts_with("amd-pstate"));
        match (schedutil, amd) {
            (true, _) => Reference::Schedutil,
            (false, true) => Reference::AmdPstate,
            (false, false) => Reference::IntelHwp,
        }
    }

    /// The usual time to full speed on cores of `core_type` (ms): the little cores' where
    /// the figure has one.
    pub fn usual_ms(self, core_type: Option<CoreType>) -> f64 {
        let little = matches!(core_type, Some(CoreType::Efficiency | CoreType::LowPower));
        match (self, little) {
            (Reference::IntelHwp, false) => 5.0,
            (Reference::IntelHwp, true) => 8.0,
            (Reference::AmdPstate, _) => 2.0,
            (Reference::Schedutil, false) => 50.0,
            (Reference::Schedutil, true) => 70.0,
        }
    }

    /// `Intel HWP's usual ~5 ms`.
    fn words(self, core_type: Option<CoreType>) -> String {
        let template = match self {
            Reference::IntelHwp => gettext("Intel HWP's usual ~{ms} ms"),
            Reference::AmdPstate => gettext("AMD Zen 3's usual ~{ms} ms"),
            Reference::Schedutil => gettext("the scheduler-guided governor's usual ~{ms} ms"),
        };
        fill(template, &[("ms", &self.usual_ms(core_type))])
    }
}

/// How a run's time stands against its reference's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// Under two thirds of it.
    Quicker,
    /// Two thirds to one and a half times it: the same, within what trials and machines vary.
    Like,
    /// One and a half to two and a half times it.
    Slower,
    /// This many times it (3 or more).
    Times(u32),
}

impl Against {
    /// `ms` against `usual_ms`; `ms` is an upper bound where the run was below its
    /// resolution, which cannot be slower than anything.
    fn of(ms: f64, usual_ms: f64, below_resolution: bool) -> Against {
        let ratio = ms / usual_ms;
        match ratio {
            _ if ratio < 2.0 / 3.0 => Against::Quicker,
            _ if ratio <= 1.5 || below_resolution => Against::Like,
            _ if ratio < 2.5 => Against::Slower,
            _ => Against::Times(ratio.round() as u32),
        }
    }

    fn words(self, reference: &str) -> String {
        let values: [(&str, &dyn std::fmt::Display); 1] = [("reference", &reference)];
        match self {
            Against::Quicker => fill(gettext("quicker than {reference}"), &values),
            Against::Like => fill(gettext("like {reference}"), &values),
            Against::Slower => fill(gettext("slower than {reference}"), &values),
            Against::Times(n) => fill(
                ngettext("{n} time {reference}", "{n} times {reference}", n),
                &[("n", &n), ("reference", &reference)],
            ),
        }
    }
}

/// A run's ramp, judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    pub core_type: Option<CoreType>,
    pub convergence: Convergence,
    /// At full speed within [`FAST_WITHIN_MS`].
    pub fast: bool,
    pub reference: Reference,
    /// `None` when the run never stayed at full speed.
    pub against: Option<Against>,
}

impl Verdict {
    /// The verdict on `run`, measured under `settings`.
    pub fn of(run: &RampRun, settings: &Settings) -> Verdict {
        let convergence = Convergence::of(run);
        let reference = Reference::for_settings(settings);
        let usual_ms = reference.usual_ms(run.core_type);
        let (fast, against) = match convergence {
            Convergence::Below { resolution_ms } => (
                resolution_ms <= FAST_WITHIN_MS,
                Some(Against::of(resolution_ms, usual_ms, true)),
            ),
            Convergence::At(ms) => (ms <= FAST_WITHIN_MS, Some(Against::of(ms, usual_ms, false))),
            Convergence::Never => (false, None),
        };
        Verdict {
            core_type: run.core_type,
            convergence,
            fast,
            reference,
            against,
        }
    }

    /// The verdict in one line: `P-cores: fast — 4.8 ms, like Intel HWP's usual ~5 ms.`,
    /// after `setting` (a comparison's letter, or the setting as typed) where given.
    pub fn line(&self, setting: Option<&str>) -> String {
        let cores = cores_of_type(self.core_type);
        let head = match setting {
            Some(setting) => fill(
                gettext("{setting}, {cores}"),
                &[("setting", &setting), ("cores", &cores)],
            ),
            None => cores,
        };
        let speed = if self.fast {
            gettext("fast")
        } else {
            gettext("slow")
        };
        match (self.convergence.words(), self.against) {
            (Some(time), Some(against)) => fill(
                gettext("{head}: {speed} — {time}, {against}."),
                &[
                    ("head", &head),
                    ("speed", &speed),
                    ("time", &time),
                    (
                        "against",
                        &against.words(&self.reference.words(self.core_type)),
                    ),
                ],
            ),
            _ => fill(
                gettext("{head}: {speed} — never steady at full speed."),
                &[("head", &head), ("speed", &speed)],
            ),
        }
    }
}

/// A verdict line for each run of `report`, after `setting` where given; what the window
/// and `pacerctl` print under a result.
pub fn lines(report: &RampReport, setting: Option<&str>) -> Vec<String> {
    report
        .runs
        .iter()
        .map(|run| Verdict::of(run, &report.settings).line(setting))
        .collect()
}

#[cfg(test)]
mod tests;
