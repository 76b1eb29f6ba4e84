//! The command line itself: each command against the old spelling it replaced, the help a
//! newcomer reads, and what a user sees when a value is wrong, a write fails or Ctrl-C comes.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

const SAMPLE: &str = "fixtures/sample.in";

fn nqueen() -> Command {
    Command::cargo_bin("nqueen").unwrap()
}

/// The sample's two shards, as part files in `dir`.
fn sample_parts(dir: &Path) -> Vec<PathBuf> {
    (0..2)
        .map(|k| {
            let out = nqueen().args(["--shard", &format!("{k}/2"), SAMPLE]).output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let path = dir.join(format!("part-{k}.jsonl"));
            std::fs::write(&path, out.stdout).unwrap();
            path
        })
        .collect()
}

/// The exit code, stdout and stderr of nqueen with `args`, then `files`.
fn run(args: &[&str], files: &[PathBuf]) -> (Option<i32>, String, String) {
    let out = nqueen().args(args).args(files).output().unwrap();
    (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn each_command_answers_as_its_old_spelling_does() {
    let dir = tempfile::tempdir().unwrap();
    let parts = sample_parts(dir.path());
    let pairs: [(&[&str], &[&str]); 7] = [
        (&["merge"], &["--merge"]),
        (&["status"], &["--merge", "--status"]),
        (&["status", "--by", "host"], &["--merge", "--status", "--by", "host"]),
        (&["status", "--silent-after", "2h"], &["--merge", "--status", "--silent-after", "2h"]),
        (&["recheck", "--share", "0.5"], &["--merge", "--recheck", "0.5"]),
        (&["recheck", "--share", "0.5", "--seed", "3"], &["--merge", "--recheck", "0.5", "--seed", "3"]),
        (&["count", "--unique"], &["--unique"]),
    ];
    for (new, old) in pairs {
        let files = if new[0] == "count" { vec![PathBuf::from(SAMPLE)] } else { parts.clone() };
        let (now, before) = (run(new, &files), run(old, &files));
        assert_eq!(now.0, Some(0), "{new:?}: {}", now.2);
        assert!(!now.1.is_empty(), "{new:?} printed nothing");
        assert_eq!(now, before, "{new:?} and {old:?} differ");
    }
    assert_eq!(run(&["merge"], &parts).1, "Case 1: 92\nCase 2: 1\n");
    assert_eq!(run(&["count"], &[PathBuf::from(SAMPLE)]).1, run(&[], &[PathBuf::from(SAMPLE)]).1);
}

#[test]
fn the_old_spellings_write_the_same_summary_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let parts = sample_parts(dir.path());
    let written = |args: &[&str], file: &str| {
        let path = dir.path().join(file);
        let mut all: Vec<&str> = args.to_vec();
        all.push(path.to_str().unwrap());
        let (code, _, err) = run(&all, &parts);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        std::fs::read(&path).unwrap()
    };
    let summary = written(&["merge", "--summary"], "new.json");
    assert!(String::from_utf8_lossy(&summary).contains("\"record\": \"summary\""));
    assert_eq!(summary, written(&["--merge", "--summary"], "old.json"));
    let plot = written(&["status", "--plot"], "new.svg");
    assert!(plot.starts_with(b"<svg"));
    assert_eq!(plot, written(&["--merge", "--status", "--plot"], "old.svg"));
}

#[test]
fn the_table_and_its_old_spelling_print_the_same_counts() {
    let columns = |args: &[&str]| -> Vec<String> {
        let (code, out, err) = run(args, &[]);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        // The last column is seconds, which differ from run to run.
        out.lines().map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).collect()
    };
    let table = columns(&["table", "4..9", "-j", "1", "--backend", "cpu"]);
    assert_eq!(table[0], "n total unique");
    assert_eq!(table[1..], ["4 2 1", "5 10 2", "6 4 1", "7 40 6", "8 92 12", "9 352 46"]);
    assert_eq!(table, columns(&["--table", "4..9", "-j", "1", "--backend", "cpu"]));
}

#[test]
fn merge_and_status_read_standard_input_without_files() {
    let dir = tempfile::tempdir().unwrap();
    let parts = sample_parts(dir.path());
    let records: String = parts.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    nqueen().arg("merge").write_stdin(records.clone()).assert().success().stdout("Case 1: 92\nCase 2: 1\n");
    nqueen().args(["merge", "-"]).write_stdin(records.clone()).assert().success().stdout("Case 1: 92\nCase 2: 1\n");
    nqueen().arg("status").write_stdin(records).assert().success().stdout(predicate::str::contains("sample.in:1"));
}

#[test]
fn old_spellings_put_together_wrongly_name_the_command_to_use() {
    let dir = tempfile::tempdir().unwrap();
    let parts = sample_parts(dir.path());
    let refused: [(&[&str], &str); 7] = [
        (&["--status"], "nqueen status"),
        (&["--recheck", "0.1"], "nqueen recheck"),
        (&["--merge", "--status", "--recheck", "0.1"], "two commands"),
        (&["--merge", "--shard", "0/2"], "--shard goes with a count, not with --merge"),
        (&["--merge", "--solutions", "3"], "--solutions goes with a count"),
        (&["--merge", "--by", "host"], "--by, --silent-after and --plot go with --status"),
        (&["--merge", "--recheck", "0.1", "--summary", "s.json"], "--recheck takes --seed alone"),
    ];
    for (args, why) in refused {
        let (code, out, err) = run(args, &parts);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(out, "", "{args:?}");
        assert!(err.contains(why), "{args:?}: {err}");
    }
    let (code, _, err) = run(&["--table", "4..6"], &[PathBuf::from(SAMPLE)]);
    assert_eq!(code, Some(2));
    assert!(err.contains("takes no input files") && err.contains("Usage: nqueen table"), "{err}");
    assert!(!err.contains("[FILE]"), "the usage shown is the table's: {err}");
}

#[test]
fn dash_h_fits_one_screen_at_80_and_100_columns() {
    for columns in ["80", "100"] {
        let out = nqueen().arg("-h").env("COLUMNS", columns).output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.lines().count() <= 45, "{} lines at {columns} columns:\n{text}", text.lines().count());
        if columns == "80" {
            assert!(text.lines().all(|l| l.chars().count() <= 80), "a line over 80 columns:\n{text}");
        }
        assert!(text.contains("Case k: count") && text.contains("Example: nqueen "), "{text}");
    }
}

/// The long options a help text lists, in order.
fn long_options(help: &str) -> Vec<String> {
    help.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("--")))
        .map(|w| w.trim_end_matches(',').to_string())
        .collect()
}

#[test]
fn dash_h_has_one_line_for_each_option_of_the_full_help() {
    let short = String::from_utf8(nqueen().arg("-h").output().unwrap().stdout).unwrap();
    let full = String::from_utf8(nqueen().arg("--help").output().unwrap().stdout).unwrap();
    let (short_options, full_options) = (long_options(&short), long_options(&full));
    assert!(full_options.len() >= 16, "{full_options:?}");
    // --generate, which counts nothing, is in --help alone: -h stays one screen.
    for option in &full_options {
        let once = usize::from(option != "--generate");
        assert_eq!(short_options.iter().filter(|o| *o == option).count(), once, "{option} in -h:\n{short}");
    }
    for heading in ["Counting:", "Output:", "GPU and tuning:", "Past one machine:"] {
        assert!(short.contains(heading), "no {heading} in -h");
    }
    // The old spellings work, but are not offered.
    for hidden in ["--merge", "--status", "--recheck", "--table", "--summary"] {
        assert!(!full.contains(hidden), "{hidden} in --help");
    }
}

#[test]
fn each_command_has_its_own_help() {
    for command in ["count", "merge", "status", "recheck", "table"] {
        for flag in ["-h", "--help"] {
            nqueen().args([command, flag]).assert().success().stdout(predicate::str::contains(format!("Usage: nqueen {command} ")));
        }
    }
    nqueen().args(["help", "status"]).assert().success().stdout(predicate::str::contains("--silent-after"));
}

#[test]
fn wrong_values_say_what_is_wrong() {
    let said = |args: &[&str], what: &str, not: &str| {
        let files = if args[0] == "table" { vec![] } else { vec![PathBuf::from(SAMPLE)] };
        let (code, out, err) = run(args, &files);
        assert_eq!((code, out.as_str()), (Some(2), ""), "{args:?}");
        assert!(err.contains(what) && (not.is_empty() || !err.contains(not)), "{args:?}: {err}");
    };
    said(&["--solutions", "-1"], "-1 is below 0", "-- -1");
    said(&["--solutions", "99999999999999999999999"], "is too large", "not a number");
    said(&["--solutions", "some"], "is not a number of solutions or \"all\"", "");
    said(&["--solutions-format", "board"], "give --solutions K (or all) with it", "<FILE>");
    said(&["--threads", "0"], "0 threads: give 1 to 1024", "");
    said(&["--shard", "5/4"], "K must be below M", "");
    said(&["--by", "host"], "go with a merge", "");
    said(&["status", "--by", "hos"], "possible values: case, host", "");
    said(&["table", "9..4"], "9 is more than 4", "");
}

/// Runs nqueen with `args` and `stdin`, its answers written to /dev/full.
fn to_a_full_disk(args: &[&str], stdin: &str) -> Option<(Option<i32>, String)> {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").ok()?;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nqueen"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(full)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // nqueen stops reading once it cannot write: the rest of the input is refused.
    let _ = std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    Some((out.status.code(), String::from_utf8(out.stderr).unwrap()))
}

#[test]
fn a_write_error_is_one_line_and_exit_status_4() {
    let dir = tempfile::tempdir().unwrap();
    let parts: Vec<String> = sample_parts(dir.path()).iter().map(|p| p.display().to_string()).collect();
    let runs: [Vec<&str>; 6] = [
        vec![SAMPLE],
        vec!["table", "4..8"],
        vec!["--solutions", "3", SAMPLE],
        vec!["--shard", "0/2", SAMPLE],
        vec!["merge", &parts[0], &parts[1]],
        vec!["--dry-run", SAMPLE],
    ];
    for args in runs {
        let Some((code, err)) = to_a_full_disk(&args, "") else {
            return crate::common::not_here("a_write_error_is_one_line_and_exit_status_4", "no /dev/full to write to");
        };
        assert_eq!(code, Some(4), "{args:?}: {err}");
        assert_eq!(err, "nqueen: cannot write the answers: No space left on device\n", "{args:?}");
    }
    // Many answers from standard input fill the buffer more than once: still one line.
    let many = "4\n....\n....\n....\n....\n".repeat(20_000);
    let (code, err) = to_a_full_disk(&[], &many).unwrap();
    assert_eq!((code, err.lines().count()), (Some(4), 1), "{err}");
}

#[test]
fn a_reader_that_closed_the_pipe_ends_every_output_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let parts: Vec<String> = sample_parts(dir.path()).iter().map(|p| p.display().to_string()).collect();
    let runs: [Vec<&str>; 9] = [
        vec!["--help"],
        vec!["-h"],
        vec!["--version"],
        vec!["help", "merge"],
        vec!["merge", "--help"],
        vec!["--generate", "man"],
        vec!["table", "4..12"],
        vec!["merge", &parts[0], &parts[1]],
        vec![SAMPLE],
    ];
    for args in runs {
        // The pipe's reader is gone before nqueen writes a byte.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_nqueen")).args(&args).stdout(writer).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_at_a_terminal_prompt_ends_nqueen_at_once() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty writes two descriptors, which are owned from here on.
    let opened = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null()) };
    if opened != 0 {
        return crate::common::not_here("ctrl_c_at_a_terminal_prompt_ends_nqueen_at_once", "no pseudo-terminal");
    }
    // SAFETY: both descriptors were just opened, and nothing else owns them.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nqueen"))
        .stdin(Stdio::from(slave))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut terminal = std::fs::File::from(master);
    terminal.write_all(b"4\n....\n....\n....\n....\n").unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut answered = String::new();
    stdout.read_line(&mut answered).unwrap();
    assert_eq!(answered, "Case 1: 2\n");
    // Now it waits at the prompt for the next case.
    std::thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    // SAFETY: a plain kill(2) of the child, which is not yet reaped.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let (status, killed) = crate::common::wait_or_kill(&mut child, Duration::from_secs(10));
    let secs = sent.elapsed().as_secs_f64();
    assert!(!killed, "Ctrl-C did not end it in 10 s");
    assert_eq!(status.code(), Some(130));
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert_eq!(rest, "", "nothing after the answer already printed");
    assert!(secs < 0.1, "Ctrl-C at the prompt took {secs:.3} s to end nqueen");
}
