// SPDX-License-Identifier: GPL-3.0-or-later
//! The banner's words: a notice's one line and what its Details dialog says (a finding's
//! explanation, its recorded cause, its fix in words and the command that does it by hand),
//! the buttons' labels, the line for a computer with no CPU frequency control, and the
//! header bar's "Simulated" tag. Which notices show, and in what order, the banner decides.

use pacer_core::findings::Finding;
use pacer_core::i18n::{fill, gettext};
use pacer_core::sim::Model;

use crate::words::finding::headline;

/// The machine a simulated one is, as the header bar's tag names it.
#[derive(Debug, Clone, Copy)]
pub enum Simulated {
    /// One of the models, chosen with `--simulate` or the banner's button.
    Model(&'static Model),
    /// A tree read with `--sysfs-root` that says it is simulated.
    Tree,
}

/// What a notice says: one line on the banner, the rest in its Details dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeWords {
    pub title: String,
    pub details: Details,
}

/// What a notice's Details dialog says, each part in its place: the kernel's words, the
/// shell and a library's own message are welcome here, and only here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Details {
    /// A finding as the kernel has it: its values, policies and figures.
    pub summary: Option<String>,
    /// Why it matters, and what lies behind it.
    pub explanation: String,
    /// What the recording says caused it ("Why: …").
    pub why: Option<String>,
    /// What to do, in words ("Fix: …").
    pub fix: Option<String>,
    /// The shell command that does it by hand.
    pub command: Option<String>,
}

/// A finding's line ("EPP is not what Performance sets", `profile` the active power
/// profile's token) and its details: the kernel's summary, the explanation, its recorded
/// cause (`why`, where there is one), its fix in words and the command.
pub fn finding(finding: &Finding, profile: Option<&str>, why: Option<String>) -> NoticeWords {
    NoticeWords {
        title: headline(finding, profile),
        details: Details {
            summary: Some(finding.summary.clone()),
            explanation: finding.detail.clone(),
            why,
            fix: Some(fill(
                gettext("Fix: {fix}"),
                &[("fix", &finding.fix.description)],
            )),
            command: finding.fix.command.clone(),
        },
    }
}

/// The label of a finding's fix button; the first offered gets Alt+F.
pub fn fix_label(first: bool) -> String {
    if first {
        gettext("_Fix")
    } else {
        gettext("Fix")
    }
}

/// The label of the button that opens a notice's details; the first notice's gets Alt+D.
pub fn details_label(first: bool) -> String {
    if first {
        gettext("_Details")
    } else {
        gettext("Details")
    }
}

/// The heading above a notice's shell command in its details.
pub fn command_heading() -> String {
    gettext("In a terminal")
}

pub fn no_cpufreq() -> NoticeWords {
    NoticeWords {
        title: gettext("This computer has no CPU frequency control"),
        details: Details {
            explanation: gettext("Its kernel offers no cpufreq policies (a virtual machine, most likely): there is nothing to show or change. A simulated laptop shows what Pacer does; it follows the kernel's rules and changes nothing real."),
            ..Details::default()
        },
    }
}

/// The label of the button that switches to the simulated laptop (Alt+S).
pub fn simulate_label() -> String {
    gettext("Use a _Simulated Laptop")
}

/// The header bar's tag on a simulated machine.
pub fn simulated_tag() -> String {
    gettext("Simulated")
}

/// The tag's tooltip, and what a click on it explains: which model, and that changes stay
/// in it.
pub fn simulated_tooltip(machine: Simulated) -> String {
    let model = match machine {
        Simulated::Model(model) => gettext(model.description),
        Simulated::Tree => gettext("a model read from a folder"),
    };
    fill(
        gettext("Simulated machine: {model}; changes apply to the model only"),
        &[("model", &model)],
    )
}

/// The heading of what a click on the tag explains.
pub fn simulated_heading() -> String {
    gettext("Simulated Machine")
}

/// What a click on the tag explains, under the tooltip's line.
pub fn simulated_explanation() -> String {
    gettext("This is not this computer's hardware: a model that follows the kernel's rules, to show what Pacer does.")
}

#[cfg(test)]
mod tests;
