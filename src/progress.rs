//! The progress bar on stderr for long cases: drawn only on a terminal, only once a case
//! has run for a while, on one line that never wraps, and cleared when the case ends, so
//! that stdout holds nothing but answers. Its share and time left come from the case's
//! estimated work (search nodes), not from prefixes handed out: on a symmetry split the
//! first prefixes hold far more work than the last.

use std::io::Write;
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::control::{self, Control};

/// How long a case runs before its bar appears: short cases never flicker one.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);
/// Milliseconds to wait instead of [`SHOW_AFTER`], so that a test sees the bar of a short case.
const SHOW_AFTER_VARIABLE: &str = "NQUEEN_PROGRESS_AFTER_MS";
const TICK: Duration = Duration::from_millis(200);
/// The widest the line gets, whatever the terminal.
const MAX_WIDTH: usize = 80;
/// The narrowest bar worth drawing; on a narrower terminal the bar is left out.
const MIN_BAR: usize = 10;

/// A bar for one case, drawn from its own thread; dropping it stops and clears the bar.
pub struct Progress {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts watching `ctl` for the case named `label` ("case 3"), whose clock starts now;
    /// draws only when `enabled` (stderr is a terminal and `--quiet` was not given).
    pub fn start(ctl: Arc<Control>, label: String, enabled: bool) -> Progress {
        if !enabled {
            return Progress { stop: None, thread: None };
        }
        let started = Instant::now();
        let after = std::env::var(SHOW_AFTER_VARIABLE).ok().and_then(|ms| ms.parse().ok()).map_or(SHOW_AFTER, Duration::from_millis);
        let (stop, stopped) = channel::<()>();
        let thread = std::thread::spawn(move || {
            if !matches!(stopped.recv_timeout(after), Err(RecvTimeoutError::Timeout)) {
                return;
            }
            let mut drawn = false;
            loop {
                if let Some(line) = ctl.progress().and_then(|p| line(&label, started.elapsed(), &p, Instant::now(), terminal_width())) {
                    // Back to the start of the line, the line, then erase what is left of it.
                    let _ = write!(std::io::stderr(), "\r{line}\x1b[K");
                    drawn = true;
                }
                match stopped.recv_timeout(TICK) {
                    Err(RecvTimeoutError::Timeout) => continue,
                    _ => break,
                }
            }
            if drawn {
                let _ = write!(std::io::stderr(), "\r\x1b[K");
            }
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

/// The bar's line for the case named `label`, `elapsed` since it began, at `now`, fitting
/// in `width` columns less one (a line that reaches the last column wraps on some
/// terminals); `None` until the count has begun.
pub fn line(label: &str, elapsed: Duration, p: &control::Progress, now: Instant, width: usize) -> Option<String> {
    if p.total == 0 {
        return None;
    }
    let share = (p.done as f64 / p.total as f64).clamp(0.0, 1.0);
    let eta = remaining(p, now).map_or("--:--".to_string(), clock);
    let head = format!("{label} {}", clock(elapsed));
    let tail = format!("{:3.0}% {} ETA {eta}", share * 100.0, p.stage);
    let room = width.saturating_sub(1).min(MAX_WIDTH);
    // The bar takes what the words leave, between its brackets and two spaces.
    let bar_room = room.saturating_sub(head.len() + tail.len() + 4);
    let text = if bar_room >= MIN_BAR {
        let filled = (share * bar_room as f64).round() as usize;
        format!("{head} [{}{}] {tail}", "#".repeat(filled), ".".repeat(bar_room - filled))
    } else {
        format!("{head} {tail}")
    };
    Some(text.chars().take(room).collect())
}

/// The time left at the rate the count has run since it began, once that says anything.
fn remaining(p: &control::Progress, now: Instant) -> Option<Duration> {
    let ran = now.saturating_duration_since(p.since).as_secs_f64();
    let done = p.done.saturating_sub(p.done_at_start) as f64;
    (done > 0.0 && ran > 0.0).then(|| Duration::from_secs_f64(p.total.saturating_sub(p.done) as f64 * ran / done))
}

/// `d` as m:ss, or h:mm:ss from an hour.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// The terminal's width in columns (stderr's), or [`MAX_WIDTH`] when it cannot be told.
fn terminal_width() -> usize {
    #[cfg(target_os = "linux")]
    {
        let mut size = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: TIOCGWINSZ writes only into `size`.
        if unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) } == 0 && size.ws_col > 0 {
            return usize::from(size.ws_col);
        }
    }
    MAX_WIDTH
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(done: u64, total: u64, ran: u64) -> (control::Progress, Instant) {
        let since = Instant::now();
        (control::Progress { done, total, done_at_start: 0, stage: "gpu", since }, since + Duration::from_secs(ran))
    }

    #[test]
    fn nothing_is_drawn_before_the_count_begins() {
        let (p, now) = at(0, 0, 0);
        assert_eq!(line("case 1", Duration::from_secs(2), &p, now, 80), None);
    }

    #[test]
    fn the_time_left_follows_the_estimated_work() {
        let (p, now) = at(250, 1000, 10);
        let text = line("case 3", Duration::from_secs(12), &p, now, 80).unwrap();
        assert!(text.starts_with("case 3 0:12 [") && text.ends_with(" 25% gpu ETA 0:30"), "{text}");
        let (p, now) = at(0, 1000, 10);
        assert!(line("case 3", Duration::from_secs(12), &p, now, 80).unwrap().ends_with("ETA --:--"));
    }

    #[test]
    fn the_line_never_reaches_the_terminals_last_column() {
        let (p, now) = at(1, 3, 5_000);
        for width in [1, 20, 30, 45, 60, 80, 81, 200] {
            let text = line("case 12345", Duration::from_secs(100_000), &p, now, width).unwrap();
            assert!(text.chars().count() < width.max(2), "width {width}: {text:?}");
            assert!(text.chars().count() <= MAX_WIDTH);
        }
        // Wide enough for a bar, and for the words alone without one.
        assert!(line("case 1", Duration::ZERO, &p, now, 80).unwrap().contains('['));
        assert!(!line("case 1", Duration::ZERO, &p, now, 40).unwrap().contains('['));
    }

    #[test]
    fn long_runs_show_hours() {
        assert_eq!(clock(Duration::from_secs(59)), "0:59");
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
    }
}
