// SPDX-License-Identifier: GPL-3.0-or-later
//! What the views outside the window (the tray item, a notification's actions, callers of
//! Pacer's state on the session bus) ask the window to do.

use pacer_core::findings::FixAction;

use crate::data::change::Change;

/// What the tray, a notification or a caller on the session bus asks the window to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    Change(Change),
    Fix(FixAction),
    /// Show the window: on this page, or the one it showed last.
    Show(Option<Page>),
    Measure,
    /// Whether callers on the session bus follow the frequencies (and only then are they
    /// sampled while the window is hidden).
    FollowFrequencies(bool),
    Quit,
}

/// A page of the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Overview,
    Cpus,
    Measure,
    History,
}

impl Page {
    pub const ALL: [Page; 4] = [Page::Overview, Page::Cpus, Page::Measure, Page::History];

    /// Its name in the window's stack, and on the bus.
    pub fn name(self) -> &'static str {
        match self {
            Page::Overview => "overview",
            Page::Cpus => "cpus",
            Page::Measure => "measure",
            Page::History => "history",
        }
    }

    pub fn named(name: &str) -> Option<Page> {
        Page::ALL.into_iter().find(|page| page.name() == name)
    }
}
