// SPDX-License-Identifier: GPL-3.0-or-later
//! The banner's words: a finding's explanation with its cause and its fix, the buttons'
//! labels, and the lines that say what the window cannot do (no CPU frequency control here,
//! a simulated machine). Which notices show, and in what order, the banner decides.

use pacer_core::findings::Finding;
use pacer_core::i18n::{fill, gettext};
use pacer_core::sim::Model;

use crate::words::why::with_why;

/// The machine a simulated one is, as the banner names it.
#[derive(Debug, Clone, Copy)]
pub enum Simulated {
    /// One of the models, chosen with `--simulate` or the banner's button.
    Model(&'static Model),
    /// A tree read with `--sysfs-root` that says it is simulated.
    Tree,
}

/// What a notice says: its line, and what shows on demand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeWords {
    pub title: String,
    pub detail: Option<String>,
}

/// A finding's explanation, then its recorded cause (`why`, where there is one), then its fix.
pub fn finding_detail(finding: &Finding, why: Option<&str>) -> String {
    fill(
        gettext("{why}\nFix: {fix}"),
        &[
            ("why", &with_why(&finding.detail, why)),
            ("fix", &finding.fix.description),
        ],
    )
}

/// The label of a finding's fix button; the first offered gets Alt+F.
pub fn fix_label(first: bool) -> String {
    if first {
        gettext("_Fix")
    } else {
        gettext("Fix")
    }
}

pub fn no_cpufreq() -> NoticeWords {
    NoticeWords {
        title: gettext("This computer has no CPU frequency control"),
        detail: Some(gettext("Its kernel offers no cpufreq policies (a virtual machine, most likely): there is nothing to show or change. A simulated laptop shows what Pacer does; it follows the kernel's rules and changes nothing real.")),
    }
}

/// The label of the button that switches to the simulated laptop (Alt+S).
pub fn simulate_label() -> String {
    gettext("Use a _Simulated Laptop")
}

pub fn simulated(machine: Simulated) -> NoticeWords {
    let model = match machine {
        Simulated::Model(model) => gettext(model.description),
        Simulated::Tree => gettext("A simulated machine"),
    };
    NoticeWords {
        title: gettext("Simulated machine: not this computer's hardware"),
        detail: Some(fill(
            gettext("{model}. It follows the kernel's rules; changes apply to the model only."),
            &[("model", &model)],
        )),
    }
}
