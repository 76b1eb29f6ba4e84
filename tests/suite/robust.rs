//! Long runs, signals, huge inputs and hostile input.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{count_cpu, oracle, peak_rss_kb, skip_missing_tool, wait_or_kill, Rng};
use nqueen::board::Board;
use nqueen::parse::Parser;

const BIN: &str = env!("CARGO_BIN_EXE_nqueen");

fn empty_board_text(n: usize) -> String {
    Board::empty(n).expect("n within range").to_string()
}

#[test]
fn the_progress_bar_is_absent_when_stderr_is_piped() {
    // About a second or more of work: long enough for the bar, were stderr a terminal.
    let out = Command::new(BIN)
        .args(["--no-symmetry", "--threads", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(empty_board_text(15).as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Case 1: 2279184\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "nothing may be drawn on a pipe");
}

#[test]
fn the_progress_bar_is_drawn_on_a_terminal() {
    // `script` runs the command on a pseudo-terminal, as a person's shell would.
    if Command::new("script").arg("--version").output().is_err() {
        return skip_missing_tool("the_progress_bar_is_drawn_on_a_terminal", "script (util-linux)");
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e16.in");
    std::fs::write(&input, empty_board_text(16)).unwrap();
    // The bar shows at once instead of after a second, and the terminal is 60 columns.
    let cmd = format!("stty cols 60; NQUEEN_PROGRESS_AFTER_MS=0 {BIN} --no-symmetry --threads 1 {}", input.display());
    let out = Command::new("script").args(["-qec", &cmd, "/dev/null"]).output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(screen.contains("Case 1: 14772512"), "{screen}");
    let frames: Vec<&str> = screen.split('\r').filter(|f| f.starts_with("case 1 ")).collect();
    assert!(!frames.is_empty(), "no progress bar on the terminal:\n{screen:?}");
    for frame in &frames {
        let text = frame.split('\x1b').next().unwrap_or("");
        assert!(text.contains("% cpu ETA ") && text.contains('['), "{text:?}");
        assert!(text.chars().count() < 60, "a frame as wide as the terminal wraps: {text:?}");
    }
    let quiet = Command::new("script").args(["-qec", &format!("{cmd} --quiet"), "/dev/null"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&quiet.stdout).contains("case 1 "), "--quiet still drew a bar");
    // A listing of solutions draws its own, the lines going elsewhere.
    let listing = format!("stty cols 60; NQUEEN_PROGRESS_AFTER_MS=0 {BIN} --solutions all fixtures/bench/empty_15.in > /dev/null");
    let out = Command::new("script").args(["-qec", &listing, "/dev/null"]).output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(screen.split('\r').any(|f| f.starts_with("case 1, solutions ") && f.contains("% listing")), "{screen:?}");
}

/// Starts a run whose first two cases are quick and whose third is long, waits for the
/// two answers, sends `signal`, and returns (exit code, seconds to exit, stdout).
fn interrupt_long_case(signal: &str) -> (Option<i32>, f64, String) {
    let mut child = Command::new(BIN)
        .args(["--backend", "cpu", "--no-symmetry"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = format!("{}{}{}", empty_board_text(8), empty_board_text(6), empty_board_text(20));
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    for _ in 0..2 {
        stdout.read_line(&mut seen).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    let killed = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    let secs = sent.elapsed().as_secs_f64();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    (status.code(), secs, seen + &rest)
}

#[test]
fn sigint_stops_a_long_case_promptly_and_keeps_the_answers() {
    let (code, secs, stdout) = interrupt_long_case("-INT");
    assert_eq!(code, Some(130));
    assert_eq!(stdout, "Case 1: 92\nCase 2: 4\n", "earlier answers kept, no partial line");
    eprintln!("SIGINT to exit: {secs:.3} s");
    assert!(secs < 1.0, "took {secs:.3} s to stop");
}

#[test]
fn sigterm_stops_with_status_143() {
    let (code, secs, stdout) = interrupt_long_case("-TERM");
    assert_eq!(code, Some(143));
    assert_eq!(stdout, "Case 1: 92\nCase 2: 4\n");
    assert!(secs < 1.0, "took {secs:.3} s to stop");
}

#[test]
fn memory_stays_bounded_on_a_large_input() {
    if !std::path::Path::new("/proc/self/status").exists() {
        return skip_missing_tool("memory_stays_bounded_on_a_large_input", "/proc (Linux)");
    }
    // About 6 MB of small boards (the 200 MB run is in BENCHMARKS.md).
    let one = std::fs::read_to_string("fixtures/many_small.in").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.in");
    let mut file = std::fs::File::create(&path).unwrap();
    let copies = 6_000_000 / one.len() + 1;
    for _ in 0..copies {
        file.write_all(one.as_bytes()).unwrap();
    }
    drop(file);
    let started = Instant::now();
    let mut child = Command::new(BIN).arg(&path).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let peak = peak_rss_kb(&mut child);
    let cases = 400 * copies;
    eprintln!("{cases} cases in {:.2} s, peak RSS {peak} kB", started.elapsed().as_secs_f64());
    assert!(peak < 64 * 1024, "peak RSS {peak} kB");
}

#[test]
fn memory_does_not_grow_with_an_input_parsed_faster_than_it_is_counted() {
    if !std::path::Path::new("/proc/self/status").exists() {
        return skip_missing_tool("memory_does_not_grow_with_an_input_parsed_faster_than_it_is_counted", "/proc (Linux)");
    }
    // Each board is counted in microseconds, yet parsed faster: the parser runs ahead of
    // the count for the whole input.
    let board = "6\n......\n.*....\n......\n......\n....*.\n......\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("six.in");
    let mut peaks = Vec::new();
    for megabytes in [50, 200] {
        let copies = megabytes * 1_000_000 / board.len();
        std::fs::write(&path, board.repeat(copies)).unwrap();
        let started = Instant::now();
        let mut child = Command::new(BIN).arg(&path).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let peak = peak_rss_kb(&mut child);
        eprintln!("{megabytes} MB, {copies} cases in {:.2} s, peak RSS {peak} kB", started.elapsed().as_secs_f64());
        peaks.push(peak);
    }
    assert!(peaks.iter().all(|&p| p < 64 * 1024), "peak RSS {peaks:?} kB");
}

/// Valid judge input to mutate.
fn seed_input(rng: &mut Rng) -> Vec<u8> {
    let mut text = String::new();
    for _ in 0..rng.range(1, 4) {
        let n = rng.range(1, 8);
        text.push_str(&crate::common::random_board(rng, n, 0.2).to_string());
    }
    text.into_bytes()
}

fn mutate(rng: &mut Rng, mut bytes: Vec<u8>) -> Vec<u8> {
    for _ in 0..rng.range(1, 4) {
        let at = rng.range(0, bytes.len());
        match rng.range(0, 7) {
            0 if !bytes.is_empty() => {
                let last = bytes.len() - 1;
                bytes[at.min(last)] = rng.next_u64() as u8;
            }
            1 => bytes.truncate(at),
            2 => {
                let chunk = bytes[at..].to_vec();
                bytes.extend(chunk);
            }
            3 => bytes.splice(at..at, std::iter::repeat_n(b'.', rng.range(100, 100_000))).for_each(drop),
            4 => bytes.splice(at..at, b"1000000000\n".iter().copied()).for_each(drop),
            5 => bytes.splice(at..at, [0u8, 0xff, 0xfe, b'\n', 0xc3]).for_each(drop),
            _ => bytes.splice(at..at, b"\r\n\t 0 \n".iter().copied()).for_each(drop),
        }
    }
    bytes
}

#[test]
fn hostile_input_gives_right_answers_or_a_clear_error() {
    let mut rng = Rng::new(6);
    let started = Instant::now();
    for round in 0..30_000 {
        let input = if round % 10 == 0 {
            (0..rng.range(0, 300)).map(|_| rng.next_u64() as u8).collect()
        } else {
            let seed = seed_input(&mut rng);
            mutate(&mut rng, seed)
        };
        for item in Parser::new(input.as_slice()) {
            match item {
                Ok(board) if board.n() <= 9 => assert_eq!(count_cpu(&board, false), oracle(&board)),
                Ok(board) => assert!(board.n() <= 32),
                Err(e) => assert!(e.to_string().starts_with("line "), "unclear error: {e}"),
            }
        }
    }
    // The real binary on a share of them: status 0 or 1, answers or one clear error, no panic.
    for _ in 0..60 {
        let seed = seed_input(&mut rng);
        let input = mutate(&mut rng, seed);
        let mut child = Command::new(BIN).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // The program stops reading at the first bad line, so the rest may meet a closed pipe.
        let writer = std::thread::spawn(move || drop(stdin.write_all(&input)));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        match out.status.code() {
            Some(0) => assert!(stderr.is_empty()),
            Some(1) => assert!(stderr.starts_with("nqueen: <stdin>: line "), "{stderr}"),
            other => panic!("exit status {other:?}: {stderr}"),
        }
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            assert!(line.starts_with("Case ") && line.contains(": "), "{line}");
        }
    }
    eprintln!("fuzz rounds took {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn each_answer_is_written_before_the_run_waits_for_more_input() {
    // A person (or a judge) feeding boards one at a time reads each answer before the next.
    let mut child = Command::new(BIN).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut answers = BufReader::new(child.stdout.take().unwrap());
    // An answer held back would leave a read below waiting: the run is killed after 30 s
    // instead, if it still runs then.
    let watchdog = std::thread::spawn(move || wait_or_kill(&mut child, Duration::from_secs(30)));
    for (case, (board, count)) in [("4\n.*..\n....\n....\n....\n", 1), (&empty_board_text(8)[..], 92), ("0\n", 0)].into_iter().enumerate() {
        stdin.write_all(board.as_bytes()).unwrap();
        stdin.flush().unwrap();
        if count == 0 {
            break;
        }
        let mut line = String::new();
        answers.read_line(&mut line).unwrap();
        assert_eq!(line, format!("Case {}: {count}\n", case + 1), "the answer did not come before the next board was sent");
    }
    // The terminator ends the run with stdin still open.
    let (status, killed) = watchdog.join().unwrap();
    assert!(!killed && status.success(), "the run did not end on the terminator: {status}");
    drop(stdin);
}
