//! The progress bar on stderr for long cases: drawn only on a terminal, only once a case
//! has run for a while, and cleared when it ends, so that stdout holds nothing but answers.

use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::control::Control;

/// How long a case runs before its bar appears: short cases never flicker one.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);
const TICK: Duration = Duration::from_millis(100);

/// A bar for one case, drawn from its own thread; dropping it stops and clears the bar.
pub struct Progress {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts watching `ctl` for case `case`; draws only when `enabled` (stderr is a
    /// terminal and `--quiet` was not given).
    pub fn start(ctl: Arc<Control>, case: usize, enabled: bool) -> Progress {
        if !enabled {
            return Progress { stop: None, thread: None };
        }
        let (stop, stopped) = channel::<()>();
        let thread = std::thread::spawn(move || {
            if !matches!(stopped.recv_timeout(SHOW_AFTER), Err(RecvTimeoutError::Timeout)) {
                return;
            }
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template("case {prefix} [{elapsed_precise}] {bar:40} {pos}/{len} prefixes, {msg}, ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_prefix(case.to_string());
            loop {
                let (done, total, stage) = ctl.progress();
                bar.set_length(total);
                bar.set_position(done);
                bar.set_message(stage);
                match stopped.recv_timeout(TICK) {
                    Err(RecvTimeoutError::Timeout) => continue,
                    _ => break,
                }
            }
            bar.finish_and_clear();
        });
        Progress { stop: Some(stop), thread: Some(thread) }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
