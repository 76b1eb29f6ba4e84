//! What the counters share with the rest of the program while they run: a cancel flag
//! (set by Ctrl-C), how much of the estimated work is done, for the progress bar, and
//! whether the run is at rest, when a signal may end it at once.

use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    /// Set to stop the current count so that another backend takes it over (see
    /// [`Control::give_way`]); unlike a cancel, it is cleared once seen.
    give_way: AtomicBool,
    signal: AtomicI32,
    done: AtomicU64,
    total: AtomicU64,
    /// The backend counting, since when, and the work done when it began.
    stage: Mutex<Option<(&'static str, Instant, u64)>>,
    /// The run is at rest (see [`Control::at_rest`]).
    at_rest: AtomicBool,
}

/// How far a count has come: the estimated work done and in all (in estimated search
/// nodes, or prefixes where nothing was estimated), the backend, and since when it counts.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
    /// Work done before this count began (by an earlier run that left a checkpoint).
    pub done_at_start: u64,
    pub stage: &'static str,
    pub since: Instant,
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

    /// Stops the current count, not the run: the counter returns `Interrupted`, and
    /// [`Control::gave_way`] tells the caller that it was asked to.
    pub fn give_way(&self) {
        self.give_way.store(true, Ordering::Relaxed);
    }

    /// Whether the count was stopped by [`Control::give_way`] rather than cancelled; clears
    /// the request.
    pub fn gave_way(&self) -> bool {
        self.give_way.swap(false, Ordering::Relaxed) && !self.cancel.load(Ordering::Relaxed)
    }

    /// Says that the run is at rest until the guard is dropped: every answer before is
    /// written out, and nothing is being written (the run waits for input, or works out
    /// what it will write). A signal may then end the process at once: nothing would be
    /// lost or left half written, and nothing else would stop a wait.
    pub fn at_rest(&self) -> AtRest<'_> {
        self.at_rest.store(true, Ordering::SeqCst);
        AtRest(&self.at_rest)
    }

    /// Whether the run is at rest (see [`Control::at_rest`]).
    pub fn is_at_rest(&self) -> bool {
        self.at_rest.load(Ordering::SeqCst)
    }

    /// Whether the run was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// `Err(Interrupted)` once cancelled, or asked to give way.
    pub fn check(&self) -> Result<(), Interrupted> {
        if self.cancel.load(Ordering::Relaxed) || self.give_way.load(Ordering::Relaxed) {
            Err(Interrupted)
        } else {
            Ok(())
        }
    }

    /// Starts counting progress afresh over the estimated `work` of a count, from what is
    /// done already (by an earlier run) to its whole, on the backend `stage`.
    pub fn begin(&self, work: Range<f64>, stage: &'static str) {
        self.done.store(work.start as u64, Ordering::Relaxed);
        self.total.store(work.end as u64, Ordering::Relaxed);
        if let Ok(mut s) = self.stage.lock() {
            *s = Some((stage, Instant::now(), work.start as u64));
        }
    }

    /// Records `work` more estimated work done.
    pub fn advance(&self, work: f64) {
        self.done.fetch_add(work as u64, Ordering::Relaxed);
    }

    /// How far the count begun by the last [`Control::begin`] has come; `None` before one.
    pub fn progress(&self) -> Option<Progress> {
        let (stage, since, done_at_start) = self.stage.lock().ok().and_then(|s| *s)?;
        Some(Progress { done: self.done.load(Ordering::Relaxed), total: self.total.load(Ordering::Relaxed), done_at_start, stage, since })
    }

    /// Forgets the count begun by the last [`Control::begin`]: the case is over.
    pub fn end(&self) {
        if let Ok(mut s) = self.stage.lock() {
            *s = None;
        }
    }
}

/// While it lives, the run is at rest (see [`Control::at_rest`]).
pub struct AtRest<'a>(&'a AtomicBool);

impl Drop for AtRest<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
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
    fn giving_way_stops_one_count_and_is_told_from_a_cancel() {
        let ctl = Control::default();
        ctl.give_way();
        assert!(ctl.check().is_err());
        assert!(ctl.gave_way());
        assert!(ctl.check().is_ok() && !ctl.gave_way());
        ctl.give_way();
        ctl.cancel();
        assert!(!ctl.gave_way() && ctl.check().is_err());
    }

    #[test]
    fn work_done_in_time_returns_without_waiting_for_the_limit() {
        // With a wait for the limit, this test would take a day.
        assert_eq!(with_time_limit(Duration::from_secs(86_400), |ctl| ctl.check().map(|_| 42)), Ok(42));
    }
}
