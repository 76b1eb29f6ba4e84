//! Every command stops at SIGINT or SIGTERM, as a count does: with status 130 or 143 within
//! a blink, writing no summary or plot and leaving no temporary file, however many part
//! records it is reading or adding up.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{resealed, wait_or_kill};

const BIN: &str = env!("CARGO_BIN_EXE_nqueen");

/// Shards of the run whose part records the merges read: enough that reading and adding
/// them up takes a second or more.
const SHARDS: usize = 1 << 17;

/// Longest a command may take to end after the signal. The program ends within a few
/// milliseconds; the rest is room for a loaded machine (a run that ignores the signal
/// takes two seconds, or finishes with status 0).
const PROMPT: Duration = Duration::from_millis(500);

/// Writes `dir/parts.jsonl`: the part records of every shard of a one-board run, made from
/// shard 0's records with the shard changed and the digest made again.
fn many_parts(dir: &Path) {
    std::fs::write(dir.join("one.in"), "1\n.\n").unwrap();
    let shard = Command::new(BIN).current_dir(dir).args(["--shard", &format!("0/{SHARDS}"), "one.in"]).output().unwrap();
    assert!(shard.status.success());
    let lines: Vec<String> = String::from_utf8(shard.stdout).unwrap().lines().map(String::from).collect();
    assert_eq!(lines.len(), 2, "a case record and an end record");
    let mut all = String::with_capacity(SHARDS * 2 * lines[0].len());
    for k in 0..SHARDS {
        for line in &lines {
            all.push_str(&resealed(line, |body| body.replacen("\"shard\":0,", &format!("\"shard\":{k},"), 1)));
            all.push('\n');
        }
    }
    std::fs::write(dir.join("parts.jsonl"), all).unwrap();
}

/// Runs nqueen with `args` in `dir`, sends `signal` after `after`, and returns its exit
/// code and how long it took to end after the signal.
fn signalled(dir: &Path, args: &[&str], signal: i32, after: Duration) -> (Option<i32>, Duration) {
    let mut child = Command::new(BIN).current_dir(dir).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    std::thread::sleep(after);
    assert!(child.try_wait().unwrap().is_none(), "{args:?} ended before the signal: the test needs more records");
    let sent = Instant::now();
    // SAFETY: a plain kill(2) of the child, which is not yet reaped.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    let (status, killed) = wait_or_kill(&mut child, Duration::from_secs(20));
    assert!(!killed, "{args:?} did not end after the signal");
    (status.code(), sent.elapsed())
}

#[test]
fn merge_status_recheck_and_table_stop_at_a_signal_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    many_parts(dir.path());
    let runs: [&[&str]; 4] = [
        &["merge", "--summary", "summary.json", "parts.jsonl"],
        &["status", "--plot", "run.svg", "parts.jsonl"],
        &["recheck", "--share", "0.5", "parts.jsonl"],
        &["table", "17..18"],
    ];
    for args in runs {
        for (signal, status) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
            let (code, took) = signalled(dir.path(), args, signal, Duration::from_millis(200));
            eprintln!("{args:?}, signal {signal}: ended {:.1} ms after it", took.as_secs_f64() * 1e3);
            assert_eq!(code, Some(status), "{args:?}, signal {signal}");
            assert!(took < PROMPT, "{args:?} took {took:?} to end after signal {signal}");
            let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
            for written in ["summary.json", "run.svg"] {
                assert!(!left.iter().any(|name| name == written), "{args:?} wrote {written} after signal {signal}");
            }
            assert!(!left.iter().any(|name| name.to_string_lossy().ends_with(".tmp")), "{args:?} left {left:?}");
        }
    }
}

#[test]
fn a_run_waiting_to_open_a_fifo_stops_at_a_signal_its_answers_out() {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    std::fs::write(at.join("e8.in"), format!("8\n{}", "........\n".repeat(8))).unwrap();
    let parts = Command::new(BIN).current_dir(at).args(["--shard", "0-1/2", "e8.in"]).output().unwrap();
    std::fs::write(at.join("parts.jsonl"), parts.stdout).unwrap();
    let fifo = std::ffi::CString::new(at.join("fifo").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path of our own.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    // An input with no writer yet, and a summary or plot with no reader yet.
    let runs: [(&[&str], &str); 5] = [
        (&["fifo"], ""),
        (&["e8.in", "fifo"], "Case 1: 92\n"),
        (&["--checkpoint", "run.ck", "e8.in", "fifo"], "Case 1: 92\n"),
        (&["merge", "--summary", "fifo", "parts.jsonl"], "Case 1: 92\n"),
        (&["status", "--plot", "fifo", "parts.jsonl"], "case "),
    ];
    for (args, first) in runs {
        for (signal, status) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
            let _ = std::fs::remove_file(at.join("run.ck"));
            let mut child = Command::new(BIN).current_dir(at).args(args).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
            std::thread::sleep(Duration::from_millis(300));
            let sent = Instant::now();
            // SAFETY: a plain kill(2) of the child, which is not yet reaped.
            assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
            let (code, killed) = wait_or_kill(&mut child, Duration::from_secs(20));
            let took = sent.elapsed();
            let mut out = String::new();
            std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
            assert!(!killed && took < PROMPT, "{args:?}, signal {signal}: ended {took:?} after it");
            assert_eq!(code.code(), Some(status), "{args:?}, signal {signal}");
            assert!(out.starts_with(first), "{args:?}, signal {signal}: the answers before the wait are lost: {out:?}");
        }
    }
    // The checkpoint kept the first input's case: a resume prints it without counting.
    let resumed = Command::new(BIN).current_dir(at).args(["--checkpoint", "run.ck", "e8.in"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&resumed.stdout), "Case 1: 92\n");
}
