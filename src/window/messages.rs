// SPDX-License-Identifier: GPL-3.0-or-later
//! What reaches the window: from the pages, the banner and the desktop (`WindowMsg`), and
//! from its background work (`WindowCmd`).

use crate::data::change::{Change, ChangeError};
use crate::data::feed::FeedEvent;
use crate::data::helper::{HelperLink, OwnHelper};
use crate::data::history::HistoryEvent;
use crate::desktop::background::{BackgroundEvent, BackgroundPart};
use crate::widgets::banner::NoticeAction;
use crate::words::said::Said;

#[derive(Debug)]
pub enum WindowMsg {
    Change(Change),
    Notice(NoticeAction),
    /// Whether anyone can see the window (mapped and not minimised).
    Watched(bool),
    /// Something to say in passing (from the Measure page).
    Toast(Said),
    /// Measure the ramp-up (the keyboard shortcut).
    Measure,
    /// Show the window (Pacer started again, the tray, a notification).
    Present,
    /// From the tray item and the notification server.
    Background(BackgroundEvent),
    /// The user turned on a part that works while the window is closed.
    BackgroundWanted(BackgroundPart),
    /// A measurement started or ended.
    Measuring(bool),
}

#[derive(Debug)]
pub enum WindowCmd {
    Feed(FeedEvent),
    Helper(HelperLink, Option<OwnHelper>),
    /// From following the helper's recording.
    History(HistoryEvent),
    /// The changes asked for were carried out, up to the first that failed.
    Changed(Vec<Change>, Result<(), (Change, ChangeError)>),
}

impl From<FeedEvent> for WindowCmd {
    fn from(event: FeedEvent) -> Self {
        WindowCmd::Feed(event)
    }
}
