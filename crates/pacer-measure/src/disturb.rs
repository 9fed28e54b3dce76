// SPDX-License-Identifier: GPL-3.0-or-later
//! A competing task on a CPU, as a busy desktop has them: to check what a measurement makes
//! of a machine where something else wants the CPU now and then (the precision benchmark
//! and the live tests).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A thread pinned to a CPU that runs for `busy`, then sleeps until `every` has passed, over
/// and over (or once, for a competitor that only wants the CPU at the start); it stops when
/// dropped.
#[derive(Debug)]
pub struct Competitor {
    /// Held for its drop, which stops the thread.
    _thread: Background,
}

impl Competitor {
    /// Runs `busy` out of every `every` on `cpu`, at the caller's nice level.
    pub fn periodic(cpu: u32, busy: Duration, every: Duration) -> Competitor {
        Competitor::start(cpu, busy, Some(every), Duration::ZERO)
    }

    /// Runs `busy` once, `after` from now.
    pub fn once(cpu: u32, busy: Duration, after: Duration) -> Competitor {
        Competitor::start(cpu, busy, None, after)
    }

    fn start(cpu: u32, busy: Duration, every: Option<Duration>, after: Duration) -> Competitor {
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let thread = Background::spawn(move |stopped| {
            // Not pinned, it would compete elsewhere: then it does not run at all.
            let pinned = crate::ramp::pin_to(cpu).is_ok();
            let _ = started_tx.send(());
            std::thread::sleep(after);
            while pinned && !stopped.load(Ordering::Relaxed) {
                let begun = Instant::now();
                let mut x = 1.0f64;
                while begun.elapsed() < busy {
                    for _ in 0..1000 {
                        x = std::hint::black_box(x * 0.999_999 + 1e-6);
                    }
                }
                let Some(every) = every else { break };
                std::thread::sleep(every.saturating_sub(begun.elapsed()));
            }
        });
        // Pinned and running before the caller goes on.
        let _ = started_rx.recv();
        Competitor { _thread: thread }
    }
}

/// A thread that runs until it is dropped: its body is given the flag that says when to stop,
/// and the drop waits for it to end.
#[derive(Debug)]
pub struct Background {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Background {
    pub fn spawn(body: impl FnOnce(&AtomicBool) + Send + 'static) -> Background {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        Background {
            stop,
            thread: Some(std::thread::spawn(move || body(&stopped))),
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
