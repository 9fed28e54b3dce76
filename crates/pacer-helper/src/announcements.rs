// SPDX-License-Identifier: GPL-3.0-or-later
//! The recorded events waiting to be signalled to the watchers (`History1.Changed`): bounded
//! in bytes, so that a bus that falls behind a flood of writes cannot grow the helper without
//! end. What does not fit is dropped, counted and said in the journal; each event stays in
//! the history, where a watcher that sees a gap in the ids reads it (`History(since)`).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

/// The most bytes of events waiting to be signalled: some seconds of a flood of writes.
pub const LIMIT_BYTES: usize = 4 << 20;

#[derive(Debug, Default)]
struct Queue {
    waiting: VecDeque<String>,
    bytes: usize,
    /// Dropped since the last batch was taken.
    dropped: u64,
}

/// Shared by the recording (which sends) and the helper's main loop (which signals).
#[derive(Debug, Clone, Default)]
pub struct Announcements {
    queue: Arc<Mutex<Queue>>,
    ready: Arc<Notify>,
}

/// What waited: the events to signal, oldest first, and how many were dropped before them.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Batch {
    pub events: Vec<String>,
    pub dropped: u64,
}

impl Announcements {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues one event (its JSON); dropped, and counted, when the queue is full.
    pub fn send(&self, event: String) {
        let mut queue = self.queue();
        if queue.bytes + event.len() > LIMIT_BYTES {
            queue.dropped += 1;
        } else {
            queue.bytes += event.len();
            queue.waiting.push_back(event);
        }
        drop(queue);
        self.ready.notify_one();
    }

    /// Waits for events, then takes all that wait.
    pub async fn next(&self) -> Batch {
        loop {
            let batch = self.take();
            if batch != Batch::default() {
                return batch;
            }
            self.ready.notified().await;
        }
    }

    fn take(&self) -> Batch {
        let mut queue = self.queue();
        queue.bytes = 0;
        Batch {
            events: queue.waiting.drain(..).collect(),
            dropped: std::mem::take(&mut queue.dropped),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_flood_is_bounded_in_bytes_and_what_is_dropped_is_counted() {
        let announcements = Announcements::default();
        let event = "x".repeat(1000);
        let sent = 2 * LIMIT_BYTES / event.len();
        for _ in 0..sent {
            announcements.send(event.clone());
        }
        let batch = announcements.next().await;
        assert_eq!(batch.events.len(), LIMIT_BYTES / event.len());
        assert_eq!(batch.events.len() as u64 + batch.dropped, sent as u64);
        // Taken, the queue has room again.
        announcements.send(event.clone());
        let again = announcements.next().await;
        assert_eq!((again.events.len(), again.dropped), (1, 0));
    }
}
