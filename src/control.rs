//! What the counters share with the rest of the program while they run: a cancel flag
//! (set by Ctrl-C) and a count of the prefixes done, for the progress bar.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The work was stopped by [`Control::cancel`] (a signal) before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted;

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// Cancellation and progress for one run; cheap to check from every worker.
#[derive(Debug, Default)]
pub struct Control {
    cancel: Arc<AtomicBool>,
    signal: AtomicI32,
    done: AtomicU64,
    total: AtomicU64,
    stage: Mutex<&'static str>,
}

impl Control {
    /// Asks every counter using this control to stop.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Stops the work because the process received signal `signal`.
    pub fn cancel_by_signal(&self, signal: i32) {
        self.signal.store(signal, Ordering::Relaxed);
        self.cancel();
    }

    /// The signal that cancelled the work, if one did.
    pub fn signal(&self) -> Option<i32> {
        Some(self.signal.load(Ordering::Relaxed)).filter(|&s| s != 0)
    }

    /// `Err(Interrupted)` once cancelled.
    pub fn check(&self) -> Result<(), Interrupted> {
        if self.cancel.load(Ordering::Relaxed) {
            Err(Interrupted)
        } else {
            Ok(())
        }
    }

    /// Starts counting progress afresh over `total` prefixes, on the backend `stage`.
    pub fn begin(&self, total: u64, stage: &'static str) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
        if let Ok(mut s) = self.stage.lock() {
            *s = stage;
        }
    }

    /// Records `k` more prefixes done.
    pub fn advance(&self, k: u64) {
        self.done.fetch_add(k, Ordering::Relaxed);
    }

    /// Prefixes done and in all since the last [`Control::begin`], and its backend.
    pub fn progress(&self) -> (u64, u64, &'static str) {
        let stage = self.stage.lock().map(|s| *s).unwrap_or("");
        (self.done.load(Ordering::Relaxed), self.total.load(Ordering::Relaxed), stage)
    }
}

/// Runs `work` with a control of its own that is cancelled once `limit` has passed, for
/// work that is only worth doing for so long; returns as soon as `work` does. If the system
/// refuses the thread that keeps the time, `work` runs to its end.
pub fn with_time_limit<T>(limit: Duration, work: impl FnOnce(&Control) -> T) -> T {
    let ctl = Control::default();
    let (finished, wait) = channel::<()>();
    std::thread::scope(|scope| {
        let ctl = &ctl;
        let _timer = std::thread::Builder::new().spawn_scoped(scope, move || {
            // The sender is dropped when `work` returns, which ends the wait at once.
            if wait.recv_timeout(limit) == Err(RecvTimeoutError::Timeout) {
                ctl.cancel();
            }
        });
        let result = work(ctl);
        drop(finished);
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_limit_cancels_work_still_running() {
        let cancelled = with_time_limit(Duration::from_millis(10), |ctl| {
            (0..1000).any(|_| {
                std::thread::sleep(Duration::from_millis(10));
                ctl.check().is_err()
            })
        });
        assert!(cancelled);
    }

    #[test]
    fn work_done_in_time_returns_without_waiting_for_the_limit() {
        // With a wait for the limit, this test would take a day.
        assert_eq!(with_time_limit(Duration::from_secs(86_400), |ctl| ctl.check().map(|_| 42)), Ok(42));
    }
}
