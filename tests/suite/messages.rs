//! Every message a user can provoke, pinned word for word where it is the program's own: a
//! slip for a command's name, one of the program's files given where another kind belongs,
//! values that are refused, text outside ASCII, the usage under an error, and the picture's
//! words. None may carry the words of the libraries beneath.

use std::path::Path;

use assert_cmd::Command;

const SAMPLE: &str = "fixtures/sample.in";

/// Words of the libraries and the system beneath that no message may carry.
const LIBRARY_WORDS: [&str; 12] = [
    "invalid type:",
    "expected struct",
    "unknown field",
    "invalid digit",
    "expected number at",
    "DriverError",
    "(os error",
    "no field",
    "out of its range",
    "Invalid argument",
    "Not a directory",
    "Too many levels",
];

fn nqueen() -> Command {
    Command::cargo_bin("nqueen").unwrap()
}

/// The exit code, stdout and stderr of nqueen with `args` in `dir`, `stdin` on its input.
fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> (Option<i32>, String, String) {
    let out = nqueen().current_dir(dir).args(args).write_stdin(stdin.to_vec()).output().unwrap();
    let (out_text, err) = (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    for words in LIBRARY_WORDS {
        assert!(!err.contains(words) && !out_text.contains(words), "{args:?} says {words:?}: {err}");
    }
    (out.status.code(), out_text, err)
}

/// A directory holding the sample, its part records, a checkpoint of it and a summary.
fn files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(SAMPLE, dir.path().join("sample.in")).unwrap();
    let part = nqueen().current_dir(dir.path()).args(["--shard", "0/1", "sample.in"]).output().unwrap();
    std::fs::write(dir.path().join("part-0.jsonl"), part.stdout).unwrap();
    nqueen().current_dir(dir.path()).args(["--checkpoint", "run.ckpt", "sample.in"]).assert().success();
    nqueen().current_dir(dir.path()).args(["merge", "--summary", "summary.json", "part-0.jsonl"]).assert().success();
    dir
}

#[test]
fn a_slip_for_a_command_name_says_which_command_was_meant() {
    let dir = files();
    for (slip, command) in [("merg", "merge"), ("stauts", "status"), ("rechek", "recheck"), ("tabel", "table"), ("cont", "count")] {
        let (code, out, err) = run_in(dir.path(), &[slip, "part-0.jsonl"], b"");
        assert_eq!((code, out.as_str()), (Some(2), ""));
        assert!(err.starts_with(&format!("error: no such file or command '{slip}'; did you mean `nqueen {command}`?\n")), "{err}");
    }
    // A file of that name is a file, and a name far from every command is a missing file.
    std::fs::write(dir.path().join("merg"), "1\n.\n").unwrap();
    assert_eq!(run_in(dir.path(), &["merg"], b"").1, "Case 1: 1\n");
    let (code, _, err) = run_in(dir.path(), &["boards.in"], b"");
    assert_eq!((code, err.as_str()), (Some(1), "nqueen: boards.in: cannot open it: No such file or directory\n"));
}

#[test]
fn a_file_of_the_program_where_another_kind_belongs_says_what_it_is() {
    let dir = files();
    let cases: [(&[&str], &[u8], i32, &str); 9] = [
        (&["part-0.jsonl"], b"", 1, "nqueen: part-0.jsonl: line 1: this holds a part record of a --shard run, not judge input (nqueen merge adds part records up)\n"),
        (&["-"], b"{\"record\":\"case\",\"format\":2,\"nqueen\":\"0.1.0\"}\n", 1, "nqueen: <stdin>: line 1: this holds a part record of a --shard run, not judge input (nqueen merge adds part records up)\n"),
        (&["run.ckpt"], b"", 1, "nqueen: run.ckpt: line 1: this holds a checkpoint, not judge input (nqueen --checkpoint FILE resumes from a checkpoint)\n"),
        (&["summary.json"], b"", 1, "nqueen: summary.json: line 1: this holds a summary of nqueen merge, not judge input\n"),
        (&["merge", "sample.in"], b"", 1, "nqueen: sample.in: line 1: this holds judge input, not a part record (nqueen FILE counts judge input)\n"),
        (&["merge", "run.ckpt"], b"", 1, "nqueen: run.ckpt: line 1: this holds a checkpoint, not a part record (nqueen --checkpoint FILE resumes from a checkpoint)\n"),
        (&["status", "sample.in"], b"", 1, "nqueen: sample.in: line 1: this holds judge input, not a part record (nqueen FILE counts judge input)\n"),
        (&["--checkpoint", "part-0.jsonl", "sample.in"], b"", 1, "nqueen: checkpoint part-0.jsonl: holds a part record of a --shard run, not a checkpoint, so it was left as it is: give the name of a new file, or of an earlier run's checkpoint\n"),
        (&["merge", "-"], b"{\"record\":\"case\",\"format\":2,\"count\":\"92\"}\n", 1, "nqueen: <stdin>: line 1: not a part record: the field `count` holds no number where one belongs\n"),
    ];
    for (args, stdin, status, said) in cases {
        let (code, out, err) = run_in(dir.path(), args, stdin);
        assert_eq!((code, out.as_str(), err.as_str()), (Some(status), "", said), "{args:?}");
    }
    // A judge file whose first board breaks on a later line is judge input all the same.
    let (_, _, err) = run_in(dir.path(), &["-"], b"2\n..\n.\0\n");
    assert_eq!(err, "nqueen: <stdin>: line 3, column 2: expected '.' (free) or '*' (obstacle) in row 2 of 2, found \"\\x00\"\n");
}

#[test]
fn refused_values_say_what_was_expected_under_the_commands_usage() {
    let dir = files();
    let top = "\n\nUsage: nqueen [OPTIONS] [FILE]...\n       nqueen <COMMAND>\n\nFor more information, try '--help'.\n";
    let cases: [(&[&str], String); 8] = [
        (&["--devices", "abc", "sample.in"], format!("error: invalid value 'abc' for '--devices <LIST>': \"abc\" is not a GPU's number: GPUs are numbered from 0, e.g. --devices 0,1{top}")),
        (&["-j", "0", "sample.in"], format!("error: invalid value '0' for '--threads <N>': 0 threads: give 1 to 1024, or leave -j out for all cores{top}")),
        (&["--shard", "x", "sample.in"], format!("error: invalid value 'x' for '--shard <K/M>': expected K/M, shard K (from 0) of M, e.g. 3/64 or 0-15/64{top}")),
        (&["--gpu-prefixes", "lots", "sample.in"], format!("error: invalid value 'lots' for '--gpu-prefixes <N>': \"lots\" is not a number of prefixes from 1 to 1073741824, e.g. 4000000{top}")),
        (&["--dry-run", "--checkpoint", "x", "sample.in"], format!("error: the argument '--dry-run' cannot be used with '--checkpoint <FILE>'{top}")),
        (
            &["status", "--silent-after", "bogus", "part-0.jsonl"],
            "error: invalid value 'bogus' for '--silent-after <DURATION>': \"bogus\" is not a duration: a number and a unit, e.g. 30m, 2h, 1d\n\nUsage: nqueen status [OPTIONS] [PARTS]...\n\nFor more information, try '--help'.\n".into(),
        ),
        (
            &["recheck", "part-0.jsonl"],
            "error: the following required arguments were not provided:\n  --share <SHARE>\n\nUsage: nqueen recheck [OPTIONS] --share <SHARE> [PARTS]...\n\nFor more information, try '--help'.\n".into(),
        ),
        (
            &["recheck", "--share", "0.1", "--seed", "abc", "part-0.jsonl"],
            "error: invalid value 'abc' for '--seed <N>': \"abc\" is not a seed: a whole number from 0, e.g. 7\n\nUsage: nqueen recheck [OPTIONS] --share <SHARE> [PARTS]...\n\nFor more information, try '--help'.\n".into(),
        ),
    ];
    for (args, said) in cases {
        let (code, out, err) = run_in(dir.path(), args, b"");
        assert_eq!((code, out.as_str(), err.as_str()), (Some(2), "", said.as_str()), "{args:?}");
    }
    // The usage under an error is the one the command's -h shows.
    for command in ["merge", "status", "recheck", "table"] {
        let help = String::from_utf8(nqueen().args([command, "-h"]).output().unwrap().stdout).unwrap();
        let usage = help.lines().find(|l| l.starts_with("Usage: ")).unwrap().to_string();
        let (_, _, err) = run_in(dir.path(), &[command, "--no-such-option"], b"");
        assert!(err.contains(&format!("\n{usage}\n")), "{command}: {err}");
    }
}

#[test]
fn text_outside_ascii_is_shown_as_its_characters() {
    let dir = files();
    let (code, _, err) = run_in(dir.path(), &["-"], "3\n...\n.é.\n...\n".as_bytes());
    assert_eq!(
        (code, err.as_str()),
        (Some(1), "nqueen: <stdin>: line 3, column 2: expected '.' (free) or '*' (obstacle) in row 2 of 3, found \"é\" (U+00E9)\n")
    );
}

#[test]
fn the_plots_words_agree_in_number() {
    let dir = files();
    let part = nqueen().args(["--shard", "0/1", "fixtures/bench/empty_14.in"]).output().unwrap();
    std::fs::write(dir.path().join("part-14.jsonl"), part.stdout).unwrap();
    let (code, _, err) = run_in(dir.path(), &["status", "--plot", "run.svg", "part-14.jsonl"], b"");
    assert_eq!(code, Some(0), "{err}");
    let svg = std::fs::read_to_string(dir.path().join("run.svg")).unwrap();
    assert!(svg.contains("\n1 device: each machine"), "{svg}");
    assert!(!svg.contains("1 devices"));
}

#[test]
fn help_and_version_that_cannot_be_written_are_an_error() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    for args in [&["--help"][..], &["-h"], &["-V"], &["--version"], &["merge", "--help"]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_nqueen")).args(args).stdout(full.try_clone().unwrap()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        let what = if args.contains(&"-V") || args.contains(&"--version") { "version" } else { "help" };
        assert_eq!(err, format!("nqueen: cannot write the {what}: No space left on device\n"), "{args:?}");
    }
    assert!(nqueen().arg("-V").assert().success().get_output().stdout.starts_with(b"nqueen "));
}

#[test]
fn negative_values_are_refused_as_values_not_taken_for_options() {
    let dir = files();
    for (args, said) in [
        (&["--devices", "-1", "sample.in"][..], "\"-1\" is not a GPU's number"),
        (&["-j", "-3", "sample.in"], "-3 threads: give 1 to 1024"),
        (&["recheck", "--share", "-0.1", "part-0.jsonl"], "\"-0.1\" is not a share from 0 to 1"),
        (&["recheck", "--share", "0.1", "--seed", "-1", "part-0.jsonl"], "\"-1\" is not a seed"),
    ] {
        let (code, _, err) = run_in(dir.path(), args, b"");
        assert_eq!(code, Some(2), "{args:?}");
        assert!(err.contains(said) && !err.contains("tip:"), "{args:?}: {err}");
    }
    let (code, _, err) = run_in(dir.path(), &["--checkpoint", "-", "sample.in"], b"");
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with(
            "error: --checkpoint names a file that is read and appended to: standard output cannot be one\n\nUsage: nqueen [OPTIONS]"
        ),
        "{err}"
    );
}

#[test]
fn the_programs_other_outputs_and_directories_are_named_for_what_they_are() {
    let dir = files();
    let dry = nqueen().current_dir(dir.path()).args(["--dry-run", "sample.in"]).output().unwrap();
    std::fs::write(dir.path().join("plans.jsonl"), dry.stdout).unwrap();
    std::fs::write(dir.path().join("answers.txt"), "Case 1: 92\nCase 2: 1\n").unwrap();
    std::fs::create_dir(dir.path().join("adir")).unwrap();
    for (args, said) in [
        (&["plans.jsonl"][..], "nqueen: plans.jsonl: line 1: this holds the plans that nqueen --dry-run prints, not judge input\n"),
        (&["answers.txt"], "nqueen: answers.txt: line 1: this holds answers that nqueen printed, not judge input\n"),
        (&["merge", "plans.jsonl"], "nqueen: plans.jsonl: line 1: this holds the plans that nqueen --dry-run prints, not a part record\n"),
        (&["merge", "summary.json"], "nqueen: summary.json: line 1: this holds a summary of nqueen merge, not a part record\n"),
        (&["adir"], "nqueen: adir: is a directory, not judge input\n"),
        (&["merge", "adir"], "nqueen: adir: is a directory, not a part file\n"),
        (&["missing.in"], "nqueen: missing.in: cannot open it: No such file or directory\n"),
    ] {
        let (code, _, err) = run_in(dir.path(), args, b"");
        assert_eq!((code, err.as_str()), (Some(1), said), "{args:?}");
    }
}

#[test]
fn an_endless_stream_of_binary_data_is_refused_at_once() {
    let Ok(zero) = std::fs::File::open("/dev/zero") else { return };
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nqueen"))
        .stdin(zero)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (status, killed) = crate::common::wait_or_kill(&mut child, std::time::Duration::from_secs(20));
    assert!(!killed, "nqueen < /dev/zero did not end");
    let err = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();
    assert_eq!((status.code(), err.as_str()), (Some(1), "nqueen: <stdin>: line 1: this holds binary data, not judge input\n"));
}

/// nqueen run with `args` and the descriptor `fd` closed: its status, output and errors.
#[cfg(target_os = "linux")]
fn with_closed(fd: i32, args: &[&str]) -> (Option<i32>, String, String) {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_nqueen"));
    command.args(args);
    // SAFETY: close is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            libc::close(fd);
            Ok(())
        });
    }
    let out = command.output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[cfg(target_os = "linux")]
#[test]
fn a_closed_standard_input_is_an_error_where_it_is_read() {
    let said = "nqueen: <stdin>: standard input is closed\n".to_string();
    for args in [&[][..], &["-"], &["merge"], &["status"], &["recheck", "--share", "0.5"]] {
        assert_eq!(with_closed(0, args), (Some(1), String::new(), said.clone()), "{args:?}");
    }
    // As a missing file, it fails alone: the other inputs are answered.
    let answers = "Case 1: 92\nCase 2: 1\n";
    assert_eq!(with_closed(0, &[SAMPLE, "-", SAMPLE]), (Some(1), answers.repeat(2), said));
    // A run that does not read it does not care.
    assert_eq!(with_closed(0, &[SAMPLE]), (Some(0), answers.to_string(), String::new()));
}

#[cfg(target_os = "linux")]
#[test]
fn answers_with_nowhere_to_go_are_an_error() {
    let (code, _, err) = with_closed(1, &[SAMPLE]);
    assert_eq!((code, err.as_str()), (Some(4), "nqueen: cannot write the answers: standard output is closed\n"));
    let read_only = std::fs::File::open(SAMPLE).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nqueen")).arg(SAMPLE).stdout(read_only).output().unwrap();
    assert_eq!(
        (out.status.code(), String::from_utf8_lossy(&out.stderr).as_ref()),
        (Some(4), "nqueen: cannot write the answers: standard output is open for reading only\n")
    );
    // Where it is /dev/null, opened for writing, the user asked for no answers.
    assert!(std::process::Command::new(env!("CARGO_BIN_EXE_nqueen"))
        .arg(SAMPLE)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap()
        .success());
}

#[cfg(target_os = "linux")]
#[test]
fn answers_on_a_standard_error_that_cannot_take_them_are_an_error() {
    let dir = files();
    let part = dir.path().join("part-0.jsonl");
    let part = part.to_str().unwrap();
    let read_only = || std::fs::File::open(SAMPLE).unwrap();
    for args in [["merge", "--summary", "-", part], ["status", "--plot", "-", part]] {
        // Standard output is the file alone: the line has nowhere to go, and no file is written.
        assert_eq!(with_closed(2, &args), (Some(4), String::new(), String::new()), "{args:?}");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_nqueen")).args(args).stderr(read_only()).output().unwrap();
        assert_eq!((out.status.code(), out.stdout.as_slice()), (Some(4), &b""[..]), "{args:?}");
    }
    // A summary or plot named by standard error's own name is lost there as the answers would be.
    for (args, what) in [(["merge", "--summary", "/dev/stderr", part], "summary"), (["status", "--plot", "/dev/fd/2", part], "plot")] {
        assert_eq!(with_closed(2, &args), (Some(4), String::new(), String::new()), "{what}");
    }
    // Where the answers are on standard output, standard error carries messages alone.
    let (code, out, _) = with_closed(2, &["merge", part]);
    assert_eq!((code, out.as_str()), (Some(0), "Case 1: 92\nCase 2: 1\n"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nqueen")).args(["merge", part]).stderr(read_only()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[cfg(target_os = "linux")]
#[test]
fn where_standard_error_cannot_take_the_line_a_terminal_on_standard_output_does() {
    if !crate::common::have("script") {
        return crate::common::skip_missing_tool("where_standard_error_cannot_take_the_line_a_terminal_on_standard_output_does", "script");
    }
    let dir = files();
    let bin = env!("CARGO_BIN_EXE_nqueen");
    for (summary, redirect, said) in [
        ("-", "2<&-", "nqueen: cannot write the answers: standard error is closed"),
        ("-", "2< sample.in", "nqueen: cannot write the answers: standard error is open for reading only"),
        ("/dev/stderr", "2<&-", "nqueen: cannot write the summary: standard error is closed"),
        ("/dev/stderr", "2> e.txt", "nqueen: cannot write the messages: standard error is /dev/stderr, the summary of this run"),
    ] {
        // `script` gives standard output a terminal, as a person's shell would.
        let cmd = format!("{bin} merge --summary {summary} part-0.jsonl {redirect}; echo status $?");
        let out = std::process::Command::new("script").args(["-qec", &cmd, "/dev/null"]).current_dir(dir.path()).output().unwrap();
        let screen = String::from_utf8_lossy(&out.stdout).replace('\r', "");
        assert_eq!(screen, format!("{said}\nstatus 4\n"), "--summary {summary} {redirect}");
    }
    assert_eq!(std::fs::read(dir.path().join("e.txt")).unwrap(), b"", "the refusal went into the file");
}

#[cfg(unix)]
#[test]
fn a_file_that_cannot_be_created_names_the_missing_directory() {
    let dir = files();
    std::os::unix::fs::symlink("gone/run.ckpt", dir.path().join("link.ckpt")).unwrap();
    for (args, said) in [
        (
            &["--checkpoint", "link.ckpt", "sample.in"][..],
            "checkpoint link.ckpt: cannot create it: it links to gone/run.ckpt, in gone, which does not exist",
        ),
        (&["--checkpoint", "gone/run.ckpt", "sample.in"], "checkpoint gone/run.ckpt: cannot create it: there is no directory gone"),
        (&["merge", "--summary", "gone/s.json", "part-0.jsonl"], "summary gone/s.json: cannot create it: there is no directory gone"),
    ] {
        let (code, _, err) = run_in(dir.path(), args, b"");
        assert_eq!((code, err), (Some(4), format!("nqueen: {said}\n")), "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn a_name_that_holds_a_newline_or_escape_is_quoted_on_one_line() {
    let dir = files();
    let newline = "bad\nname.in";
    std::fs::write(dir.path().join(newline), "1\n.\n2\n..\n.x\n").unwrap();
    let quoted = "'bad'$'\\n''name.in'";
    let bad_board = "line 5, column 2: expected '.' (free) or '*' (obstacle) in row 2 of 2, found \"x\"";
    let (code, out, err) = run_in(dir.path(), &[newline], b"");
    assert_eq!((code, out.as_str(), err), (Some(1), "Case 1: 1\n", format!("nqueen: {quoted}: {bad_board}\n")));
    // As a part record gives the name to a merge.
    let part = nqueen().current_dir(dir.path()).args(["--shard", "0/1", newline]).output().unwrap();
    std::fs::write(dir.path().join("named.jsonl"), part.stdout).unwrap();
    let (code, out, err) = run_in(dir.path(), &["merge", "named.jsonl"], b"");
    assert_eq!((code, out.as_str(), err), (Some(1), "Case 1: 1\n", format!("nqueen: {quoted}: {bad_board}\n")));
    for (args, said) in [
        (&["bad\x1b[31mname.in"][..], "nqueen: 'bad'$'\\033''[31mname.in': cannot open it: No such file or directory\n"),
        (&["merge", "no\npart.jsonl"], "nqueen: 'no'$'\\n''part.jsonl': cannot open it: No such file or directory\n"),
        (&["a b.in"], "nqueen: 'a b.in': cannot open it: No such file or directory\n"),
        (
            &["--checkpoint", "gone\n/run.ckpt", "sample.in"],
            "nqueen: checkpoint 'gone'$'\\n''/run.ckpt': cannot create it: there is no directory 'gone'$'\\n'\n",
        ),
        (
            &["merge", "--summary", "gone/s\n.json", "part-0.jsonl"],
            "nqueen: summary 'gone/s'$'\\n''.json': cannot create it: there is no directory gone\n",
        ),
    ] {
        let (_, _, err) = run_in(dir.path(), args, b"");
        assert_eq!(err, said, "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn the_systems_errors_are_said_in_the_programs_words_the_same_everywhere() {
    let dir = files();
    std::fs::write(dir.path().join("afile"), "x").unwrap();
    std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
    let through = "afile is a file, not a directory";
    let round = "its symbolic links go round in a loop, or more than 40 deep";
    for (args, code, said) in [
        (&["afile/x.in"][..], 1, format!("afile/x.in: cannot open it: {through}")),
        (&["merge", "afile/x.jsonl"], 1, format!("afile/x.jsonl: cannot open it: {through}")),
        (&["--checkpoint", "afile/x.ckpt", "sample.in"], 4, format!("checkpoint afile/x.ckpt: cannot create it: {through}")),
        (&["merge", "--summary", "afile/s.json", "part-0.jsonl"], 4, format!("summary afile/s.json: cannot create it: {through}")),
        (&["loop"], 1, format!("loop: cannot open it: {round}")),
        (&["merge", "loop"], 1, format!("loop: cannot open it: {round}")),
        (&["--checkpoint", "loop", "sample.in"], 4, format!("checkpoint loop: {round}")),
        (&["merge", "--summary", "loop", "part-0.jsonl"], 4, format!("summary loop: {round}")),
        (&["status", "--plot", "loop", "part-0.jsonl"], 4, format!("plot loop: {round}")),
    ] {
        let (status, _, err) = run_in(dir.path(), args, b"");
        assert_eq!((status, err), (Some(code), format!("nqueen: {said}\n")), "{args:?}");
    }
    // A file the system reads or writes only as something else: "Invalid argument" to root,
    // else no permission; either way in words of the program's, on one line.
    if Path::new("/proc/self/clear_refs").exists() {
        for args in [
            &["/proc/self/clear_refs"][..],
            &["merge", "/proc/self/clear_refs"],
            &["merge", "--summary", "/proc/self/clear_refs", "part-0.jsonl"],
        ] {
            let (_, _, err) = run_in(dir.path(), args, b"");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.contains("the system cannot read or write it as a file") || err.contains("Permission denied"), "{args:?}: {err}");
        }
    }
}

#[test]
fn standard_input_is_named_one_way_everywhere() {
    let dir = files();
    // A file given as standard input is one of the run's inputs, which nothing overwrites.
    for (args, file, said) in [
        (
            &["--checkpoint", "run.ckpt", "-"][..],
            "run.ckpt",
            "nqueen: checkpoint run.ckpt: is the input <stdin>, so it was left as it is\n",
        ),
        (
            &["merge", "--summary", "part-0.jsonl", "-"],
            "part-0.jsonl",
            "nqueen: summary part-0.jsonl: is the input <stdin>, so it was left as it is\n",
        ),
    ] {
        let stdin = std::fs::File::open(dir.path().join(file)).unwrap();
        let out =
            std::process::Command::new(env!("CARGO_BIN_EXE_nqueen")).current_dir(dir.path()).args(args).stdin(stdin).output().unwrap();
        assert!(String::from_utf8_lossy(&out.stderr).ends_with(said), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    for (args, stdin, said) in [
        (&["merge", "-"][..], &b"{\"a\":1}\n"[..], "nqueen: <stdin>: line 1: not a part record: the field `record` is missing\n"),
        (
            &["merge", "-"],
            b"{\"record\":\"case\",\"format\":2,\"count\":-1}\n",
            "nqueen: <stdin>: line 1: not a part record: the field `count` holds a number below 0 where a whole number belongs\n",
        ),
        (&["merge", "-"], b"", "nqueen: no part records in <stdin>: expected the JSON lines that --shard runs write\n"),
    ] {
        let (code, _, err) = run_in(dir.path(), args, stdin);
        assert_eq!((code, err.as_str()), (Some(1), said), "{args:?}");
    }
}

#[test]
fn a_checkpoint_line_that_is_no_checkpoint_line_is_said_in_the_programs_words() {
    let dir = files();
    let mut text = std::fs::read_to_string(dir.path().join("run.ckpt")).unwrap();
    text.push_str("{\"record\":\"case\",\"solutions\":-1}\n{\"record\":\"case\"}\n");
    std::fs::write(dir.path().join("run.ckpt"), &text).unwrap();
    let line = text.lines().count() - 1;
    let (code, _, err) = run_in(dir.path(), &["--checkpoint", "run.ckpt", "sample.in"], b"");
    assert_eq!(
        (code, err),
        (Some(1), format!("nqueen: checkpoint run.ckpt: line {line}: not a checkpoint line: the field `solutions` holds a number below 0 where a whole number belongs\n"))
    );
}

#[test]
fn a_number_too_large_is_too_large() {
    let dir = files();
    let past = "18446744073709551616";
    for (args, said) in [
        (vec!["--shard".to_string(), format!("0/{past}"), "sample.in".into()], format!("{past} shards is too large")),
        (vec!["--shard".into(), format!("{past}/4"), "sample.in".into()], format!("shard {past} is too large")),
        (vec!["--devices".into(), past.into(), "sample.in".into()], format!("GPU {past} is too large")),
        (vec!["table".into(), format!("4..{past}")], format!("{past} is too large for a board size")),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, err) = run_in(dir.path(), &args, b"");
        assert_eq!(code, Some(2), "{args:?}");
        assert!(err.contains(&said) && !err.contains("not a number"), "{args:?}: {err}");
    }
}

#[test]
fn every_variable_of_the_program_warns_of_a_value_it_cannot_use() {
    let dir = files();
    for (variable, value, args, said) in [
        ("NQUEEN_PROGRESS_AFTER_MS", "abc", &["sample.in"][..], "NQUEEN_PROGRESS_AFTER_MS=\"abc\" is not a number of milliseconds"),
        ("NQUEEN_MACHINE", " ", &["--shard", "0/1", "sample.in"], "NQUEEN_MACHINE=\" \" is blank"),
        ("NQUEEN_CACHE_DIR", "sample.in", &["sample.in"], "NQUEEN_CACHE_DIR=sample.in is not a directory"),
        ("NQUEEN_KERNEL_SOURCE", "gone.cu", &["sample.in"], "NQUEEN_KERNEL_SOURCE=gone.cu: cannot read it: No such file or directory"),
        ("NQUEEN_CPU_SEARCH", "bogus", &["sample.in"], "NQUEEN_CPU_SEARCH=\"bogus\" is not a search"),
    ] {
        if variable == "NQUEEN_CPU_SEARCH" && !cfg!(target_arch = "x86_64") {
            continue;
        }
        let out = nqueen().current_dir(dir.path()).args(args).env(variable, value).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{variable}: {err}");
        assert!(err.starts_with(&format!("nqueen: warning: {said}")) && err.lines().count() == 1, "{variable}={value:?}: {err}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("Case 2: 1") || args.contains(&"--shard"), "{variable}");
    }
}
