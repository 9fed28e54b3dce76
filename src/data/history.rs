// SPDX-License-Identifier: GPL-3.0-or-later
//! The helper's recording of who changed the power state (`io.github.pacerapp.Pacer.History1`),
//! as the window follows it: a watch kept open while the window runs, so the helper records
//! the whole session; what it recorded so far, then each change as it comes, in batches (a
//! governor set on sixteen policies is thirty-two changes within milliseconds: one batch).
//! The History page lists them; the banner's "Why?" and the live plot's marks read the
//! recent ones (`Recent`). Changes of one request become one (`grouped`); the page's rows
//! are a timeline of them (`timeline`), on cores named by their type (`cores`).

use std::time::{Duration, SystemTime};

use futures_util::StreamExt;
use pacer_core::history::{Event, Setting};
use pacer_dbus::client::{call, ClientError};
use pacer_dbus::history::History1Proxy;
use pacer_dbus::Helper1Proxy;

mod cores;
mod timeline;

pub use cores::{Cores, Covered};
pub use timeline::{is_rewrite, timeline, Entry, Moment};

/// How long a batch waits for the rest of a burst of changes.
const BATCH_WITHIN: Duration = Duration::from_millis(150);
/// Changes further apart than this are not one request's.
const GROUP_WITHIN: Duration = Duration::from_secs(2);
/// How many groups back a change may join.
const GROUP_LOOKBACK: usize = 4;
/// How many recent changes the window keeps for the findings' causes and the plot's marks.
const RECENT_KEPT: usize = 500;

/// What following the recording brings.
#[derive(Debug)]
pub enum HistoryEvent {
    /// Changes, oldest first: first what was recorded before, then each burst.
    Recorded(Vec<Event>),
    /// The recording cannot be followed; nothing more comes.
    Unavailable(HistoryUnavailable),
}

/// Why the recording cannot be followed.
#[derive(Debug, thiserror::Error)]
pub enum HistoryUnavailable {
    /// The helper's connection has no History1 (an older helper), or its signal cannot be
    /// listened to.
    #[error(transparent)]
    Bus(#[from] zbus::Error),
    /// The helper refused to watch or to read its recording.
    #[error(transparent)]
    Helper(#[from] ClientError),
    /// The helper sent a recording that is not a list of changes.
    #[error(transparent)]
    Read(#[from] serde_json::Error),
}

/// Keeps a watch open on `helper`'s recording and hands `out` what it recorded, then each
/// burst of changes, until the helper goes away.
pub async fn follow(helper: Helper1Proxy<'static>, out: impl Fn(HistoryEvent)) {
    if let Err(why) = follow_or_fail(&helper, &out).await {
        out(HistoryEvent::Unavailable(why));
    }
}

async fn follow_or_fail(
    helper: &Helper1Proxy<'static>,
    out: &impl Fn(HistoryEvent),
) -> Result<(), HistoryUnavailable> {
    let history = History1Proxy::new(helper.inner().connection()).await?;
    // Listening before the watch opens: nothing between the two goes unseen.
    let mut changes = history.receive_changed().await?;
    call(history.watch_changes()).await?;
    let recorded = call(history.history(0)).await?;
    out(HistoryEvent::Recorded(serde_json::from_str(&recorded)?));
    let mut batch = Vec::new();
    while let Some(change) = changes.next().await {
        batch.extend(event_of(&change));
        // The rest of the burst, until it pauses.
        while let Ok(Some(change)) = tokio::time::timeout(BATCH_WITHIN, changes.next()).await {
            batch.extend(event_of(&change));
        }
        if !batch.is_empty() {
            out(HistoryEvent::Recorded(std::mem::take(&mut batch)));
        }
    }
    Ok(())
}

/// The change a `Changed` signal carries; a signal that carries none is logged and skipped.
fn event_of(change: &pacer_dbus::history::Changed) -> Option<Event> {
    let unread = |error: &dyn std::fmt::Display| {
        relm4::gtk::glib::g_warning!("pacer", "a change the helper sent: {error}");
    };
    let args = change.args().inspect_err(|error| unread(error)).ok()?;
    serde_json::from_str(args.event())
        .inspect_err(|error| unread(error))
        .ok()
}

/// The changes recorded lately, oldest first: the findings' causes (`Status::explain`) and
/// the live plot's marks.
#[derive(Debug, Default)]
pub struct Recent {
    events: Vec<Event>,
}

impl Recent {
    /// Adds `events` (oldest first), forgetting the oldest beyond what is kept, and returns
    /// the new ones for the views that list them. A change can come both in the first read
    /// and as a signal: this is the one place it is kept once.
    pub fn extend(&mut self, events: Vec<Event>) -> Vec<Event> {
        let newest = self.events.last().map_or(0, |event| event.id);
        let new: Vec<Event> = events
            .into_iter()
            .filter(|event| event.id > newest)
            .collect();
        self.events.extend(new.iter().cloned());
        let excess = self.events.len().saturating_sub(RECENT_KEPT);
        self.events.drain(..excess);
        new
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The changes since `since` that a view of them shows, newest first, one per request
    /// (`grouped`); the recording's own start and stop are no change.
    pub fn changes_since(&self, since: SystemTime) -> Vec<Event> {
        let recent = self
            .events
            .iter()
            .rev()
            .take_while(|event| event.time >= since)
            .filter(|event| event.setting != Setting::Recording);
        grouped(recent)
    }
}

/// One request's changes as one: `events` (newest first) that change the same setting the
/// same way by the same hand within [`GROUP_WITHIN`] become one event for all their
/// policies (a governor set on sixteen policies is one row, and so is the kernel's answer
/// on each). The newest stands for the group.
pub fn grouped<'a>(events: impl Iterator<Item = &'a Event>) -> Vec<Event> {
    let mut groups: Vec<Event> = Vec::new();
    for event in events {
        let same = |group: &Event| {
            group.setting == event.setting
                && group.setting != Setting::Recording
                && group.old == event.old
                && group.new == event.new
                && group.source == event.source
                && group.process.as_ref().map(|p| p.pid) == event.process.as_ref().map(|p| p.pid)
                && group.cause.is_some() == event.cause.is_some()
                && group
                    .time
                    .duration_since(event.time)
                    .is_ok_and(|apart| apart <= GROUP_WITHIN)
        };
        // The kernel's answers interleave with the writes they answer: look a few back.
        let recent = groups.len().saturating_sub(GROUP_LOOKBACK);
        match groups[recent..].iter_mut().find(|group| same(group)) {
            Some(group) => {
                group.policies.extend(&event.policies);
                group.policies.sort_unstable();
                group.policies.dedup();
            }
            None => groups.push(event.clone()),
        }
    }
    groups
}

#[cfg(test)]
mod tests;
