//! The progress bar on stderr for long cases, drawn by indicatif: only on a terminal, only
//! once a case has run for a while, on one line that never wraps, and cleared when the case
//! ends, so that stdout holds nothing but answers. Its share and time left come from the
//! case's estimated work (search nodes), not from prefixes handed out: on a symmetry split
//! the first prefixes hold far more work than the last.
//!
//! Kept by hand, since indicatif has no notion of them: showing the bar only after the
//! case's first second (a thread waits, then makes the bar, which counts its clock from the
//! case's start), feeding it the count's progress from the [`Control`], and the time left
//! (`{left}`): indicatif's own estimate takes the work done before the bar appears (or
//! before a checkpointed run resumed) as done in an instant, and shows no time left. The
//! terminal is one of ours (`Stderr`): it tells indicatif one column less than the
//! terminal has, and at most 80, so that `{wide_bar}` never makes a line that wraps; and it
//! draws on any terminal, where indicatif's own would hide the bar when `TERM` is unset.
//! Which words fit is chosen again whenever the terminal's width changes.

use std::io::{self, Write};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle, TermLike};

use crate::control::{self, Control};

/// How long a case runs before its bar appears: short cases never flicker one.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);
/// Milliseconds to wait instead of [`SHOW_AFTER`], so that a test sees the bar of a short case.
pub const SHOW_AFTER_VARIABLE: &str = "NQUEEN_PROGRESS_AFTER_MS";
/// How often the bar takes the count's progress; indicatif draws at most [`DRAWS_PER_SECOND`].
const TICK: Duration = Duration::from_millis(200);
const DRAWS_PER_SECOND: u8 = 5;
/// The widest the line gets, whatever the terminal.
const MAX_WIDTH: u16 = 80;
/// Columns the words of the line take besides the label and the bar, at most: the clock
/// (with days), the share, the backend and the time left.
const WORDS: usize = 40;
/// The narrowest bar worth drawing; on a narrower terminal the bar is left out.
const MIN_BAR: usize = 10;

/// The wait that `value` of [`SHOW_AFTER_VARIABLE`] gives: a whole number of milliseconds.
pub fn milliseconds(value: &str) -> Option<Duration> {
    value.trim().parse().ok().map(Duration::from_millis)
}

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
        let after = std::env::var(SHOW_AFTER_VARIABLE).ok().and_then(|ms| milliseconds(&ms)).unwrap_or(SHOW_AFTER);
        let (stop, stopped) = channel::<()>();
        let thread = std::thread::spawn(move || {
            if !matches!(stopped.recv_timeout(after), Err(RecvTimeoutError::Timeout)) {
                return;
            }
            let left = {
                let ctl = Arc::clone(&ctl);
                move || ctl.progress().and_then(|p| remaining(&p, Instant::now())).map_or("--:--".to_string(), clock)
            };
            let mut width = Stderr.width();
            let mut bar: Option<ProgressBar> = None;
            loop {
                if let Some(p) = ctl.progress().filter(|p| p.total > 0) {
                    let bar = bar.get_or_insert_with(|| {
                        let target = ProgressDrawTarget::term_like_with_hz(Box::new(Stderr), DRAWS_PER_SECOND);
                        ProgressBar::with_draw_target(Some(p.total), target)
                            .with_style(style(width, label.len(), left.clone()))
                            .with_prefix(label.clone())
                            .with_elapsed(started.elapsed())
                            .with_position(p.done)
                    });
                    let now = Stderr.width();
                    if now != width {
                        width = now;
                        bar.set_style(style(width, label.len(), left.clone()));
                    }
                    if bar.length() != Some(p.total) {
                        bar.set_length(p.total);
                    }
                    bar.set_message(p.stage);
                    bar.set_position(p.done);
                }
                match stopped.recv_timeout(TICK) {
                    Err(RecvTimeoutError::Timeout) => continue,
                    _ => break,
                }
            }
            if let Some(bar) = bar {
                bar.finish_and_clear();
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

/// The line for a terminal `width` columns wide (as [`Stderr`] tells it) and a label of
/// `label` bytes: the label, the time since the case began, a bar where there is room for
/// one, the share done, the backend and the time `left` says; on a terminal too narrow for
/// those words, the share and the backend alone. indicatif does not cut a line that is too
/// long, and one that wraps would be cleared as two.
fn style(width: u16, label: usize, left: impl Fn() -> String + Clone + Send + Sync + 'static) -> ProgressStyle {
    let words = label + WORDS;
    let template = if usize::from(width) >= words + MIN_BAR {
        "{prefix} {elapsed_precise} [{wide_bar}] {percent:>3}% {msg} ETA {left}"
    } else if usize::from(width) >= words {
        "{prefix} {elapsed_precise} {percent:>3}% {msg} ETA {left}"
    } else {
        "{percent:>3}% {msg}"
    };
    ProgressStyle::with_template(template).expect("a valid template").progress_chars("#>.").with_key(
        "left",
        move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = w.write_str(&left());
        },
    )
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

/// Stderr as indicatif's terminal: one column narrower than it is, and at most
/// [`MAX_WIDTH`]; each frame written after a carriage return, over what was there.
#[derive(Debug)]
struct Stderr;

impl TermLike for Stderr {
    fn width(&self) -> u16 {
        usable_width(terminal_width())
    }

    fn move_cursor_up(&self, n: usize) -> io::Result<()> {
        cursor(n, 'A')
    }

    fn move_cursor_down(&self, n: usize) -> io::Result<()> {
        cursor(n, 'B')
    }

    fn move_cursor_right(&self, n: usize) -> io::Result<()> {
        cursor(n, 'C')
    }

    fn move_cursor_left(&self, n: usize) -> io::Result<()> {
        cursor(n, 'D')
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        writeln!(io::stderr(), "{s}")
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        io::stderr().write_all(s.as_bytes())
    }

    fn clear_line(&self) -> io::Result<()> {
        // Erase the line, then back to its start, where the next frame is written.
        io::stderr().write_all(b"\x1b[2K\r")
    }

    fn flush(&self) -> io::Result<()> {
        io::stderr().flush()
    }
}

/// Moves the cursor `n` places in the direction of the escape code's `letter`; none for 0,
/// which terminals would read as 1.
fn cursor(n: usize, letter: char) -> io::Result<()> {
    if n == 0 {
        return Ok(());
    }
    write!(io::stderr(), "\x1b[{n}{letter}")
}

/// The columns a line may take on a terminal `columns` wide: one less (a line that reaches
/// the last column wraps on some terminals), and at most [`MAX_WIDTH`].
fn usable_width(columns: u16) -> u16 {
    columns.saturating_sub(1).clamp(1, MAX_WIDTH)
}

/// The terminal's width in columns (stderr's), or [`MAX_WIDTH`] when it cannot be told.
fn terminal_width() -> u16 {
    #[cfg(target_os = "linux")]
    {
        let mut size = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: TIOCGWINSZ writes only into `size`.
        if unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) } == 0 && size.ws_col > 0 {
            return size.ws_col;
        }
    }
    MAX_WIDTH
}

#[cfg(test)]
mod tests {
    use indicatif::InMemoryTerm;

    use super::*;

    /// The bar as a terminal `columns` wide shows it (as [`Stderr`] would tell indicatif),
    /// at `done` of `total` after `elapsed`: its rows, trimmed.
    fn drawn(columns: u16, done: u64, total: u64, elapsed: Duration) -> Vec<String> {
        let width = usable_width(columns);
        let term = InMemoryTerm::new(4, width);
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::term_like(Box::new(term.clone())))
            .with_style(style(width, "case 3".len(), || "0:30".to_string()))
            .with_prefix("case 3")
            .with_message("gpu")
            .with_elapsed(elapsed)
            .with_position(done);
        bar.tick();
        term.contents().lines().map(|l| l.trim_end().to_string()).filter(|l| !l.is_empty()).collect()
    }

    #[test]
    fn the_line_shows_the_case_its_clock_bar_share_backend_and_time_left() {
        let rows = drawn(81, 250, 1000, Duration::from_secs(12));
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert!(rows[0].starts_with("case 3 00:00:12 [##") && rows[0].ends_with("]  25% gpu ETA 0:30"), "{rows:?}");
    }

    #[test]
    fn the_time_left_follows_the_estimated_work_done_since_the_count_began() {
        let since = Instant::now();
        let p = |done, done_at_start| control::Progress { done, total: 1000, done_at_start, stage: "gpu", since };
        let later = since + Duration::from_secs(10);
        assert_eq!(remaining(&p(250, 0), later), Some(Duration::from_secs(30)));
        // Work done before a checkpointed run resumed does not count towards its rate.
        assert_eq!(remaining(&p(500, 250), later), Some(Duration::from_secs(20)));
        assert_eq!(remaining(&p(0, 0), later), None);
    }

    #[test]
    fn the_line_never_reaches_the_terminals_last_column() {
        for columns in [12, 30, 45, 60, 61, 80, 81, 200] {
            let rows = drawn(columns, 1, 3, Duration::from_secs(100_000));
            assert_eq!(rows.len(), 1, "{columns} columns: the line wrapped: {rows:?}");
            assert!(rows[0].chars().count() < usize::from(columns), "{columns} columns: {rows:?}");
            assert!(rows[0].chars().count() <= usize::from(MAX_WIDTH));
        }
        // Wide enough for a bar, and for the words alone without one.
        assert!(drawn(81, 1, 3, Duration::ZERO)[0].contains('['));
        assert!(!drawn(50, 1, 3, Duration::ZERO)[0].contains('['));
        assert_eq!(drawn(30, 1, 3, Duration::ZERO)[0], " 33% gpu");
    }

    #[test]
    fn long_runs_show_hours() {
        assert!(drawn(81, 1, 3, Duration::from_secs(3725))[0].starts_with("case 3 01:02:05"));
        assert_eq!(clock(Duration::from_secs(59)), "0:59");
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
    }
}
