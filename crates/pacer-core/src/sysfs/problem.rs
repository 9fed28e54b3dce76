// SPDX-License-Identifier: GPL-3.0-or-later
//! What went wrong reading a file: which file, what it should have held, and why it did
//! not, in the user's words.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use crate::i18n::{fill, gettext};

/// What a file was expected to hold, for the message about a garbled one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expected {
    Frequency,
    CpuList,
    Governor,
    GovernorList,
    Epp,
    EppList,
    Flag,
    /// `enabled` or `disabled`.
    Switch,
    Epb,
    DriverStatus,
    EasSysctl,
    Number,
    Name,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&match self {
            Expected::Frequency => gettext("a frequency in kHz"),
            Expected::CpuList => gettext("a list of CPU numbers"),
            Expected::Governor => gettext("a governor name"),
            Expected::GovernorList => gettext("a list of governor names"),
            Expected::Epp => gettext("an energy-performance preference"),
            Expected::EppList => gettext("a list of energy-performance preferences"),
            Expected::Flag => gettext("0 or 1"),
            Expected::Switch => gettext("enabled or disabled"),
            Expected::Epb => gettext("an energy-performance bias from 0 to 15"),
            Expected::DriverStatus => gettext("a driver status"),
            Expected::EasSysctl => gettext("0, 1 or nothing"),
            Expected::Number => gettext("a whole number"),
            Expected::Name => gettext("a name"),
        })
    }
}

/// Something about the machine that could not be read as the kernel would print it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file as found (under the root).
    pub path: PathBuf,
    #[serde(flatten)]
    pub kind: ProblemKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ProblemKind {
    /// A file the kernel always provides in this situation is not there.
    Missing,
    /// The file exists but reading it failed; `error` is the system's message, with the errno.
    Unreadable { error: String, errno: Option<i32> },
    /// The content is not what the kernel prints there.
    Garbled { found: String, expected: Expected },
    /// Files that disagree with each other.
    Inconsistent { detail: String },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.path.display();
        let text = match &self.kind {
            ProblemKind::Missing => fill(gettext("{file} is missing"), &[("file", &file)]),
            ProblemKind::Unreadable { error, .. } => fill(
                gettext("{file} cannot be read: {error}"),
                &[("file", &file), ("error", error)],
            ),
            ProblemKind::Garbled { found, expected } => fill(
                gettext("{file} holds {found}, not {expected}"),
                &[
                    ("file", &file),
                    ("found", &format!("{:?}", shorten(found))),
                    ("expected", expected),
                ],
            ),
            ProblemKind::Inconsistent { detail } => fill(
                gettext("{file}: {detail}"),
                &[("file", &file), ("detail", detail)],
            ),
        };
        f.write_str(&text)
    }
}

/// Keeps messages about garbled files to one line.
pub(super) fn shorten(text: &str) -> String {
    const LIMIT: usize = 40;
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}
