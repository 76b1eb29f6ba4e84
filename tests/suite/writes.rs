//! Every file the program writes by path, tried against what a user may name: a new file,
//! one it wrote before, another program's file, symlinks to each and a dangling one, a
//! directory, a FIFO, a character device, a read-only file, a missing directory, the input
//! itself and a full filesystem. Each try checks the status and the one line said, that
//! every file the program did not own keeps its bytes and type, and that earlier answers
//! and records are kept. Kills at random moments leave the old file or the new one.

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::common::{not_here, wait_or_kill, Rng};

mod checkpoint;
mod own;
mod records;
mod stdout;
mod temporary;

const SAMPLE: &str = "fixtures/sample.in";

fn nqueen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_nqueen"))
}

/// What a file is, to tell later that it did not change: its type, and its bytes' SHA-256
/// and mode, link target or device number.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Missing,
    File { sha256: String, mode: u32 },
    Link(PathBuf),
    Dir,
    Fifo,
    Device(u64),
}

fn seen(path: &Path) -> Seen {
    let Ok(meta) = fs::symlink_metadata(path) else { return Seen::Missing };
    let t = meta.file_type();
    if t.is_symlink() {
        Seen::Link(fs::read_link(path).unwrap())
    } else if t.is_dir() {
        Seen::Dir
    } else if t.is_fifo() {
        Seen::Fifo
    } else if t.is_char_device() || t.is_block_device() {
        Seen::Device(meta.rdev())
    } else {
        use sha2::{Digest, Sha256};
        let sha256 = Sha256::digest(fs::read(path).unwrap()).iter().map(|b| format!("{b:02x}")).collect();
        Seen::File { sha256, mode: meta.permissions().mode() }
    }
}

/// What a user names as the file to write.
#[derive(Clone, Copy, Debug)]
enum Target {
    Fresh,
    Own,
    Foreign,
    LinkToOwn,
    LinkToForeign,
    Dangling,
    Directory,
    Fifo,
    Device,
    ReadOnly,
    MissingParent,
    Input,
}

const TARGETS: [Target; 12] = [
    Target::Fresh,
    Target::Own,
    Target::Foreign,
    Target::LinkToOwn,
    Target::LinkToForeign,
    Target::Dangling,
    Target::Directory,
    Target::Fifo,
    Target::Device,
    Target::ReadOnly,
    Target::MissingParent,
    Target::Input,
];

/// A user's file that is not the program's.
const FOREIGN: &[u8] = b"my notes\n";

/// Makes `target` in `dir`, where `own` is what the program wrote there before and `input`
/// the run's input; returns the path to name, and the paths the program does not own.
fn make(dir: &Path, target: Target, own: &[u8], input: &Path) -> (PathBuf, Vec<PathBuf>) {
    let path = dir.join("out");
    let other = dir.join("notes.txt");
    let theirs = vec![other.clone(), input.to_path_buf()];
    fs::write(&other, FOREIGN).unwrap();
    match target {
        Target::Fresh => (path, theirs),
        Target::Own => {
            fs::write(&path, own).unwrap();
            (path, theirs)
        }
        Target::Foreign => {
            fs::write(&path, FOREIGN).unwrap();
            (path.clone(), [theirs, vec![path]].concat())
        }
        Target::LinkToOwn => {
            fs::write(dir.join("real"), own).unwrap();
            std::os::unix::fs::symlink("real", &path).unwrap();
            (path.clone(), [theirs, vec![path]].concat())
        }
        Target::LinkToForeign => {
            std::os::unix::fs::symlink("notes.txt", &path).unwrap();
            (path.clone(), [theirs, vec![path]].concat())
        }
        Target::Dangling => {
            std::os::unix::fs::symlink("later", &path).unwrap();
            (path.clone(), [theirs, vec![path]].concat())
        }
        Target::Directory => {
            fs::create_dir(&path).unwrap();
            (path.clone(), [theirs, vec![path]].concat())
        }
        Target::Fifo => {
            let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
            // SAFETY: mkfifo on a path of our own.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
            (path.clone(), [theirs, vec![path]].concat())
        }
        Target::Device => (PathBuf::from("/dev/full"), [theirs, vec![PathBuf::from("/dev/full")]].concat()),
        Target::ReadOnly => {
            fs::write(&path, own).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
            (path.clone(), [theirs, vec![path]].concat())
        }
        Target::MissingParent => (dir.join("no-such-dir").join("out"), theirs),
        Target::Input => (input.to_path_buf(), theirs),
    }
}

/// What a file in a missing directory is said to be.
fn no_directory(path: &Path) -> String {
    format!("cannot create it: there is no directory {}", path.parent().unwrap().display())
}

fn text(out: &Output) -> (Option<i32>, String, String) {
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Runs `command`, reading a FIFO at `fifo` (if it is one) while it runs.
fn run_reading(mut command: Command, fifo: &Path) -> (Output, Option<Vec<u8>>) {
    let reader = fs::symlink_metadata(fifo).is_ok_and(|m| m.file_type().is_fifo()).then(|| {
        let fifo = fifo.to_path_buf();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    });
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let out_pipe = child.stdout.take().unwrap();
    let err_pipe = child.stderr.take().unwrap();
    let read_out = std::thread::spawn(move || std::io::read_to_string(out_pipe).unwrap());
    let read_err = std::thread::spawn(move || std::io::read_to_string(err_pipe).unwrap());
    let (status, killed) = wait_or_kill(&mut child, Duration::from_secs(60));
    assert!(!killed, "the run hung");
    let out = Output { status, stdout: read_out.join().unwrap().into_bytes(), stderr: read_err.join().unwrap().into_bytes() };
    (out, reader.map(|r| r.join().unwrap()))
}

/// What `command` with `option` (a summary or a plot) writes of the sample's records: a file
/// of the program's own, from an earlier run.
fn earlier(command: &str, option: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let part = nqueen().args(["--shard", "0/1", SAMPLE]).output().unwrap();
    fs::write(dir.path().join("part.jsonl"), &part.stdout).unwrap();
    let run = nqueen().current_dir(dir.path()).args([command, option, "own", "part.jsonl"]).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    fs::read(dir.path().join("own")).unwrap()
}

/// A summary or a plot (`command` with `option`) written to each target.
fn whole_file(command: &str, option: &str, role: &str, is_new: fn(&[u8]) -> bool) {
    let own = earlier(command, option);
    for target in TARGETS {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("part.jsonl");
        let part = nqueen().args(["--shard", "0/1", "fixtures/bench/empty_14.in"]).output().unwrap();
        fs::write(&input, &part.stdout).unwrap();
        let (path, theirs) = make(dir.path(), target, &own, &input);
        let before: Vec<Seen> = theirs.iter().map(|p| seen(p)).collect();
        let mut run = nqueen();
        run.args([command, option]).arg(&path).arg(&input);
        let (out, through_fifo) = run_reading(run, &path);
        let (code, stdout, err) = text(&out);
        let after: Vec<Seen> = theirs.iter().map(|p| seen(p)).collect();
        assert_eq!(before, after, "{role} to {target:?}: a file that is not the program's changed");
        let said = |what: &str| format!("nqueen: {role} {}: {what}\n", path.display());
        let written = |at: &Path| {
            let bytes = fs::read(at).unwrap();
            assert!(is_new(&bytes), "{role} to {target:?}: {:?}", String::from_utf8_lossy(&bytes[..80.min(bytes.len())]));
            assert_ne!(bytes, own, "{role} to {target:?}: the earlier file was kept");
        };
        match target {
            Target::Fresh | Target::Own => {
                assert_eq!((code, err.as_str()), (Some(0), ""), "{role} to {target:?}");
                written(&path);
            }
            Target::LinkToOwn => {
                assert_eq!((code, err.as_str()), (Some(0), ""), "{role} to {target:?}");
                written(&dir.path().join("real"));
            }
            Target::Dangling => {
                assert_eq!((code, err.as_str()), (Some(0), ""), "{role} to {target:?}");
                written(&dir.path().join("later"));
            }
            Target::Fifo => {
                assert_eq!((code, err.as_str()), (Some(0), ""), "{role} to {target:?}");
                assert!(is_new(&through_fifo.unwrap()));
            }
            Target::Foreign | Target::LinkToForeign => assert_eq!(
                (code, err),
                (
                    Some(4),
                    said(&format!(
                        "holds text that nqueen did not write, not a {role}, so it was left as it is: remove it, or give another name"
                    ))
                )
            ),
            Target::Directory => assert_eq!((code, err), (Some(4), said("is a directory; give the name of a file"))),
            Target::Device => assert_eq!((code, err), (Some(4), said("No space left on device"))),
            Target::ReadOnly => assert_eq!((code, err), (Some(4), said("is read-only, so it was left as it is"))),
            Target::MissingParent => assert_eq!((code, err), (Some(4), said(&no_directory(&path)))),
            Target::Input => {
                assert_eq!((code, err), (Some(4), said(&format!("is the input {}, so it was left as it is", input.display()))))
            }
        }
        // The answers or the status come first, whatever became of the file.
        assert!(!stdout.is_empty(), "{role} to {target:?}: no answers");
        // No temporary file is left beside the target.
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{role} to {target:?}: left {left:?}");
    }
}

#[test]
fn a_summary_is_written_whole_to_what_the_policy_allows_and_nothing_else_changes() {
    whole_file("merge", "--summary", "summary", |b| {
        b.starts_with(b"{\n  \"record\": \"summary\",\n  \"format\": 1,\n  \"answers\": [\n    \"Case 1: 365596\"")
    });
}

#[test]
fn a_plot_is_written_whole_to_what_the_policy_allows_and_nothing_else_changes() {
    whole_file("status", "--plot", "plot", |b| b.starts_with(b"<svg width=\"1000\"") && b.ends_with(b"</svg>\n"));
}

#[test]
fn answers_are_never_written_into_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("board.in");
    fs::copy(SAMPLE, &input).unwrap();
    let alias = dir.path().join("alias.in");
    std::os::unix::fs::symlink(&input, &alias).unwrap();
    let before = seen(&input);
    let append = || fs::OpenOptions::new().append(true).open(&input).unwrap();
    for (args, stdin, said) in [
        (vec!["--shard", "0/1", "board.in"], None, "standard output is board.in, an input of this run"),
        (vec!["alias.in"], None, "standard output is alias.in, an input of this run"),
        (vec![], Some(fs::File::open(&input).unwrap()), "standard output is the file standard input reads"),
        (vec!["merge", "board.in"], None, "standard output is board.in, an input of this run"),
    ] {
        let mut command = nqueen();
        command.current_dir(dir.path()).args(&args).stdout(append());
        if let Some(stdin) = stdin {
            command.stdin(stdin);
        }
        let out = command.output().unwrap();
        let (code, _, err) = text(&out);
        assert_eq!((code, err.as_str()), (Some(4), format!("nqueen: cannot write the answers: {said}\n").as_str()), "{args:?}");
        assert_eq!(seen(&input), before, "{args:?}");
    }
    // Another regular file, and a device on both sides, are fine.
    let out =
        nqueen().current_dir(dir.path()).arg("board.in").stdout(fs::File::create(dir.path().join("answers")).unwrap()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = nqueen().stdin(fs::File::open("/dev/null").unwrap()).stdout(fs::File::create("/dev/null").unwrap()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// A checkpoint named as each target, for a run of the sample.
#[test]
fn a_checkpoint_is_adopted_only_where_it_is_the_programs_own() {
    let own = {
        let dir = tempfile::tempdir().unwrap();
        let ckpt = dir.path().join("c");
        assert!(nqueen().arg("--checkpoint").arg(&ckpt).arg(SAMPLE).status().unwrap().success());
        fs::read(ckpt).unwrap()
    };
    let header = &own[..own.iter().position(|&b| b == b'\n').unwrap() + 1];
    for target in TARGETS {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("sample.in");
        fs::copy(SAMPLE, &input).unwrap();
        let (path, theirs) = make(dir.path(), target, &own, &input);
        let before: Vec<Seen> = theirs.iter().map(|p| seen(p)).collect();
        let out = nqueen().arg("--checkpoint").arg(&path).arg(&input).output().unwrap();
        let (code, stdout, err) = text(&out);
        assert_eq!(
            before,
            theirs.iter().map(|p| seen(p)).collect::<Vec<_>>(),
            "checkpoint {target:?}: a file that is not the program's changed"
        );
        let said = |what: &str| format!("nqueen: checkpoint {}: {what}\n", path.display());
        let not_ours = "holds text that nqueen did not write, not a checkpoint, so it was left as it is: give the name of a new file, or of an earlier run's checkpoint";
        match target {
            Target::Fresh | Target::Own | Target::LinkToOwn | Target::Dangling => {
                assert_eq!((code, stdout.as_str(), err.as_str()), (Some(0), "Case 1: 92\nCase 2: 1\n", ""), "checkpoint {target:?}");
                let (at, start) = match target {
                    Target::LinkToOwn => (dir.path().join("real"), &own[..]),
                    Target::Dangling => (dir.path().join("later"), header),
                    Target::Own => (path.clone(), &own[..]),
                    _ => (path.clone(), header),
                };
                assert!(fs::read(at).unwrap().starts_with(start), "checkpoint {target:?}: its records were not kept");
            }
            Target::Foreign | Target::LinkToForeign => assert_eq!((code, err), (Some(1), said(not_ours))),
            Target::Directory => assert_eq!((code, err), (Some(1), said("is a directory, not a regular file, so it was left as it is"))),
            Target::Fifo => assert_eq!((code, err), (Some(1), said("is a FIFO, not a regular file, so it was left as it is"))),
            Target::Device => {
                assert_eq!((code, err), (Some(1), said("is a character device, not a regular file, so it was left as it is")))
            }
            Target::ReadOnly => assert_eq!((code, err), (Some(1), said("is read-only, so no work could be recorded in it"))),
            Target::MissingParent => assert_eq!((code, err), (Some(4), said(&no_directory(&path)))),
            Target::Input => {
                assert_eq!((code, err), (Some(1), said(&format!("is the input {}, so it was left as it is", input.display()))))
            }
        }
    }
}

/// A directory whose filesystem is full: a small tmpfs where one can be mounted, else a
/// limit on the size of files the program may write (RLIMIT_FSIZE, SIGXFSZ ignored), which
/// fails its writes as a full disk does. Unmounted when dropped.
struct Full {
    dir: tempfile::TempDir,
    mounted: bool,
}

impl Full {
    fn new() -> Full {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        Full { dir, mounted }
    }

    /// Fills the filesystem (where it is a tmpfs), leaving what is in it as it is.
    fn fill(&self) {
        if self.mounted {
            let mut filler = fs::File::create(self.dir.path().join("filler")).unwrap();
            let block = vec![0u8; 4096];
            while std::io::Write::write_all(&mut filler, &block).is_ok() {}
        }
    }

    /// `command`, made to fail its writes past `bytes` where no tmpfs could be mounted.
    fn limit(&self, command: &mut Command, bytes: u64) {
        if !self.mounted {
            limited(command, bytes);
        }
    }
}

/// `command`, whose writes fail past `bytes` in a file, as on a full disk: RLIMIT_FSIZE, with
/// SIGXFSZ ignored so that the write returns the error.
fn limited(command: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

impl Drop for Full {
    fn drop(&mut self) {
        if self.mounted {
            let _ = Command::new("umount").arg(self.dir.path()).status();
        }
    }
}

#[test]
fn a_full_filesystem_loses_no_earlier_answer_or_record_and_leaves_the_old_file() {
    let full = Full::new();
    if !full.mounted {
        not_here(
            "a_full_filesystem_loses_no_earlier_answer_or_record_and_leaves_the_old_file",
            "no tmpfs can be mounted: writes fail by RLIMIT_FSIZE instead",
        );
    }
    let dir = full.dir.path();
    // A checkpoint that holds the first case, then a run that must record the second.
    fs::write(dir.join("one.in"), "8\n........\n........\n........\n........\n........\n........\n........\n........\n").unwrap();
    let both = format!("{}{}", fs::read_to_string(dir.join("one.in")).unwrap(), fs::read_to_string("fixtures/bench/empty_14.in").unwrap());
    fs::write(dir.join("both.in"), both).unwrap();
    assert!(nqueen().current_dir(dir).args(["--checkpoint", "c", "one.in"]).status().unwrap().success());
    let part = nqueen().args(["--shard", "0/1", SAMPLE]).output().unwrap();
    fs::write(dir.join("part.jsonl"), &part.stdout).unwrap();
    let old_summary = nqueen().current_dir(dir).args(["merge", "--summary", "s.json", "part.jsonl"]).output().unwrap();
    assert!(old_summary.status.success());
    // An earlier summary, kept whole if the new one cannot be written.
    let summary_before = fs::read(dir.join("s.json")).unwrap();
    let checkpoint_before = fs::read(dir.join("c")).unwrap();
    full.fill();
    // A full disk takes an append that fits in the file's last block, so the checkpoint's
    // next line is made to fail by the size limit, on a tmpfs too.
    let mut run = nqueen();
    run.current_dir(dir).args(["--checkpoint", "c", "both.in"]);
    limited(&mut run, checkpoint_before.len() as u64 + 16);
    let (code, stdout, err) = text(&run.output().unwrap());
    assert_eq!((code, stdout.as_str()), (Some(4), "Case 1: 92\n"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err, "nqueen: both.in: case 2: cannot record it in the checkpoint: File too large\n");
    let kept = fs::read(dir.join("c")).unwrap();
    assert!(kept.starts_with(&checkpoint_before), "the checkpoint lost records");
    let mut merge = nqueen();
    merge.current_dir(dir).args(["merge", "--summary", "s.json", "part.jsonl"]);
    full.limit(&mut merge, 16);
    let (code, stdout, err) = text(&merge.output().unwrap());
    assert_eq!((code, stdout.as_str()), (Some(4), "Case 1: 92\nCase 2: 1\n"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("nqueen: summary s.json: "), "{err}");
    assert_eq!(fs::read(dir.join("s.json")).unwrap(), summary_before, "the old summary was lost");
    let left: Vec<_> =
        fs::read_dir(dir).unwrap().filter_map(Result::ok).filter(|e| e.file_name().to_string_lossy().ends_with(".tmp")).collect();
    assert!(left.is_empty(), "left {left:?}");
}

#[test]
fn a_summary_killed_at_any_moment_is_the_old_one_or_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    // Parts of 64 shards, so that the merge and its summary take a while.
    let part = nqueen().args(["--shard", "0-63/64", "fixtures/bench/empty_14.in"]).output().unwrap();
    fs::write(dir.path().join("part.jsonl"), &part.stdout).unwrap();
    let summary = dir.path().join("s.json");
    let old = earlier("merge", "--summary");
    fs::write(&summary, &old).unwrap();
    let finished = nqueen().current_dir(dir.path()).args(["merge", "--summary", "new.json", "part.jsonl"]).output().unwrap();
    assert!(finished.status.success());
    let new = fs::read(dir.path().join("new.json")).unwrap();
    let mut rng = Rng::new(58);
    for round in 0..40 {
        let mut child =
            nqueen().current_dir(dir.path()).args(["merge", "--summary", "s.json", "part.jsonl"]).stdout(Stdio::null()).spawn().unwrap();
        std::thread::sleep(Duration::from_micros(rng.below(40_000)));
        let signal = if round % 2 == 0 { libc::SIGKILL } else { libc::SIGTERM };
        // SAFETY: the child is ours and not yet reaped.
        unsafe { libc::kill(child.id() as i32, signal) };
        let _ = child.wait();
        let now = fs::read(&summary).unwrap();
        assert!(now == old || now == new, "round {round}: a summary that is neither the old nor the new one");
        // A kill leaves the temporary file of a write under way; a SIGTERM removes it.
        for left in fs::read_dir(dir.path()).unwrap().filter_map(Result::ok).filter(|e| e.file_name().to_string_lossy().ends_with(".tmp")) {
            assert_eq!(signal, libc::SIGKILL, "round {round}: SIGTERM left {:?}", left.file_name());
            fs::remove_file(left.path()).unwrap();
        }
        fs::write(&summary, &old).unwrap();
    }
}
