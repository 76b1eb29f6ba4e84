//! Standard output as one of the files a run writes: named for a summary, a plot or a
//! checkpoint under any name (the file itself, /dev/stdout, /proc/self/fd/1), refused before
//! anything is written; a file named `-` alone on standard output, the answers on standard
//! error; and the answers out before a file that waits for its reader.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::{nqueen, seen, text, SAMPLE};

/// How standard output is opened onto the file: as `>` does, or as `>>` does.
#[derive(Clone, Copy, Debug)]
enum Redirect {
    Truncate,
    Append,
}

/// A directory holding the sample (`sample.in`), its part records (`part.jsonl`), and an
/// earlier run's summary, plot and checkpoint (`old.json`, `old.svg`, `old.ck`).
fn workshop() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    fs::copy(SAMPLE, at.join("sample.in")).unwrap();
    let part = nqueen().args(["--shard", "0-1/2", SAMPLE]).output().unwrap();
    fs::write(at.join("part.jsonl"), &part.stdout).unwrap();
    for args in [
        &["merge", "--summary", "old.json", "part.jsonl"][..],
        &["status", "--plot", "old.svg", "part.jsonl"],
        &["--checkpoint", "old.ck", "sample.in"],
    ] {
        assert!(nqueen().current_dir(at).args(args).stdout(Stdio::null()).status().unwrap().success(), "{args:?}");
    }
    dir
}

#[test]
fn standard_output_that_is_a_file_the_run_writes_is_refused_before_anything_is_written() {
    let cases: &[(&[&str], &str, &str)] = &[
        (&["merge", "--summary", "out", "part.jsonl"], "out, the summary", "old.json"),
        (&["merge", "--summary", "/dev/stdout", "part.jsonl"], "/dev/stdout, the summary", "old.json"),
        (&["merge", "--summary", "/proc/self/fd/1", "part.jsonl"], "/proc/self/fd/1, the summary", "old.json"),
        (&["status", "--plot", "out", "part.jsonl"], "out, the plot", "old.svg"),
        (&["--checkpoint", "out", "sample.in"], "out, the checkpoint", "old.ck"),
        (&["--checkpoint", "/dev/stdout", "sample.in"], "/dev/stdout, the checkpoint", "old.ck"),
        (&["--shard", "0-1/2", "--checkpoint", "out", "sample.in"], "out, the checkpoint", "old.ck"),
        (&["--shard", "0-1/2", "--checkpoint", "/dev/stdout", "sample.in"], "/dev/stdout, the checkpoint", "old.ck"),
    ];
    let dir = workshop();
    for &(args, is, old) in cases {
        if args.contains(&"/proc/self/fd/1") && !Path::new("/proc/self/fd/1").exists() {
            continue;
        }
        for redirect in [Redirect::Truncate, Redirect::Append] {
            // What an earlier run wrote there, as the shell leaves it.
            let out = dir.path().join("out");
            fs::copy(dir.path().join(old), &out).unwrap();
            let stdout = match redirect {
                Redirect::Truncate => fs::File::create(&out).unwrap(),
                Redirect::Append => fs::OpenOptions::new().append(true).open(&out).unwrap(),
            };
            let before = seen(&out);
            let run = nqueen().current_dir(dir.path()).args(args).stdout(stdout).output().unwrap();
            let (code, _, err) = text(&run);
            let hint = match is.rsplit(' ').next() {
                Some(role @ ("summary" | "plot")) => format!(": give --{role} - to write the {role} alone there"),
                _ => String::new(),
            };
            let said = format!("nqueen: cannot write the answers: standard output is {is} of this run{hint}\n");
            assert_eq!((code, err.as_str()), (Some(4), said.as_str()), "{args:?} {redirect:?}");
            assert_eq!(seen(&out), before, "{args:?} {redirect:?}: the file changed");
        }
    }
    // Standard output that is a pipe, named by the name of standard output.
    for args in [&["merge", "--summary", "/dev/stdout", "part.jsonl"][..], &["status", "--plot", "/dev/fd/1", "part.jsonl"]] {
        let (code, stdout, err) = text(&nqueen().current_dir(dir.path()).args(args).output().unwrap());
        assert_eq!((code, stdout.as_str(), err.lines().count()), (Some(4), "", 1), "{args:?}: {err}");
    }
    // Another file, and a device on both sides, are fine.
    let answers = fs::File::create(dir.path().join("answers")).unwrap();
    let run = nqueen().current_dir(dir.path()).args(["merge", "--summary", "s.json", "part.jsonl"]).stdout(answers).output().unwrap();
    assert_eq!(text(&run).0, Some(0));
    assert_eq!(fs::read_to_string(dir.path().join("answers")).unwrap(), "Case 1: 92\nCase 2: 1\n");
    let null = || fs::File::create("/dev/null").unwrap();
    let run = nqueen().current_dir(dir.path()).args(["merge", "--summary", "/dev/null", "part.jsonl"]).stdout(null()).output().unwrap();
    assert_eq!(text(&run).0, Some(0));
}

#[test]
fn standard_error_that_is_a_file_the_run_writes_is_refused_before_anything_is_written() {
    let cases: &[(&[&str], &str, &str)] = &[
        (&["--stats", "--checkpoint", "out", "sample.in"], "out, the checkpoint", "old.ck"),
        (&["--checkpoint", "/dev/stderr", "sample.in"], "/dev/stderr, the checkpoint", "old.ck"),
        (&["merge", "--summary", "out", "part.jsonl"], "out, the summary", "old.json"),
        (&["status", "--plot", "/proc/self/fd/2", "part.jsonl"], "/proc/self/fd/2, the plot", "old.svg"),
        // An input, whose error line would go into it.
        (&["merge", "out"], "out, an input", "part.jsonl"),
        (&["out"], "out, an input", "sample.in"),
    ];
    let dir = workshop();
    for &(args, is, old) in cases {
        if args.contains(&"/proc/self/fd/2") && !Path::new("/proc/self/fd/2").exists() {
            continue;
        }
        let out = dir.path().join("out");
        fs::copy(dir.path().join(old), &out).unwrap();
        let before = fs::read(&out).unwrap();
        let stderr = fs::OpenOptions::new().append(true).open(&out).unwrap();
        let run = nqueen().current_dir(dir.path()).args(args).stderr(stderr).output().unwrap();
        // Not even the refusal goes there: it would make the file one nqueen refuses.
        assert_eq!((run.status.code(), run.stdout.as_slice()), (Some(4), &b""[..]), "{args:?} ({is})");
        assert_eq!(fs::read(&out).unwrap(), before, "{args:?}");
    }
}

#[test]
fn a_summary_or_plot_to_a_pipe_named_by_its_descriptor_is_written_as_it_comes() {
    let dir = workshop();
    let summary = fs::read_to_string(dir.path().join("old.json")).unwrap();
    for name in ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"] {
        if !Path::new(name).exists() {
            continue;
        }
        let run = nqueen().current_dir(dir.path()).args(["merge", "--summary", name, "part.jsonl"]).output().unwrap();
        let (code, stdout, err) = text(&run);
        assert_eq!((code, stdout.as_str()), (Some(0), "Case 1: 92\nCase 2: 1\n"), "{name}: {err}");
        assert_eq!(err, summary, "{name}");
    }
}

#[test]
fn a_summary_or_plot_named_dash_is_alone_on_standard_output_and_the_answers_go_to_standard_error() {
    let dir = workshop();
    let run = nqueen().current_dir(dir.path()).args(["merge", "--summary", "-", "part.jsonl"]).output().unwrap();
    let (code, stdout, err) = text(&run);
    assert_eq!((code, err.as_str()), (Some(0), "Case 1: 92\nCase 2: 1\n"));
    let written = nqueen().current_dir(dir.path()).args(["merge", "--summary", "s.json", "part.jsonl"]).output().unwrap();
    assert!(written.status.success());
    assert_eq!(stdout, fs::read_to_string(dir.path().join("s.json")).unwrap(), "standard output is not the summary alone");
    let run = nqueen().current_dir(dir.path()).args(["status", "--plot", "-", "part.jsonl"]).output().unwrap();
    let (code, stdout, err) = text(&run);
    assert_eq!(code, Some(0), "{err}");
    assert!(stdout.starts_with("<svg ") && stdout.ends_with("</svg>\n"), "standard output is not the picture alone");
    let status = nqueen().current_dir(dir.path()).args(["status", "part.jsonl"]).output().unwrap();
    assert_eq!(err, text(&status).1, "the status is not on standard error");
    assert!(!dir.path().join("-").exists());
}

#[test]
fn a_summary_or_plot_named_dash_that_cannot_be_written_is_named_as_what_failed() {
    let dir = workshop();
    for (args, what) in [(["merge", "--summary", "-", "part.jsonl"], "summary"), (["status", "--plot", "-", "part.jsonl"], "plot")] {
        let full = fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let run = nqueen().current_dir(dir.path()).args(args).stdout(full).output().unwrap();
        let (code, _, err) = text(&run);
        let said = format!("nqueen: cannot write the {what}: No space left on device\n");
        assert_eq!((code, err.lines().filter(|l| l.starts_with("nqueen: ")).count()), (Some(4), 1), "{err}");
        assert!(err.ends_with(&said), "{args:?}: {err}");
        // The answers, on standard error, came first.
        assert!(err.starts_with(if what == "summary" { "Case 1: 92\n" } else { "case " }), "{err}");
    }
}

#[test]
fn the_answers_are_out_before_a_file_that_waits_for_its_reader() {
    let dir = workshop();
    let fifo = dir.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path of our own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    for (args, first, kind) in [
        (["merge", "--summary", "fifo", "part.jsonl"], "Case 1: 92", "{\n  \"record\": \"summary\""),
        (["status", "--plot", "fifo", "part.jsonl"], "case ", "<svg "),
    ] {
        let mut child =
            Command::new(env!("CARGO_BIN_EXE_nqueen")).current_dir(dir.path()).args(args).stdout(Stdio::piped()).spawn().unwrap();
        let (tx, rx) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        // The FIFO has no reader yet: the file waits, the answers do not.
        let got = rx.recv_timeout(Duration::from_secs(30));
        let answered = got.as_ref().is_ok_and(|l| l.starts_with(first));
        if !answered {
            let _ = child.kill();
            let _ = child.wait();
        }
        assert!(answered, "{args:?}: no answer before the file was read: {got:?}");
        let file = fs::read_to_string(&fifo).unwrap();
        assert!(file.starts_with(kind), "{args:?}: {}", &file[..40.min(file.len())]);
        assert!(child.wait().unwrap().success(), "{args:?}");
    }
}
