//! A checkpoint is one run's: a second run that names it while the first holds it is
//! refused at start, and the file is left as it is; one the user cannot write, whoever
//! owns it, is refused as a read-only one is.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::{nqueen, seen, text, SAMPLE};

#[test]
fn a_checkpoint_another_run_holds_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    fs::copy(SAMPLE, at.join("a.in")).unwrap();
    fs::write(at.join("b.in"), "6\n......\n......\n......\n......\n......\n......\n").unwrap();
    // The first run opens its checkpoint, then waits for its boards on standard input.
    let mut first = nqueen()
        .current_dir(at)
        .args(["--checkpoint", "two.ck", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while fs::read(at.join("two.ck")).map_or(true, |b| !b.ends_with(b"\n")) {
        assert!(Instant::now() < deadline, "the first run wrote no checkpoint header");
        std::thread::sleep(Duration::from_millis(10));
    }
    let before = seen(&at.join("two.ck"));
    let second = nqueen().current_dir(at).args(["--checkpoint", "two.ck", "b.in"]).output().unwrap();
    assert_eq!(
        text(&second),
        (
            Some(1),
            String::new(),
            "nqueen: checkpoint two.ck: is in use by another run, so it was left as it is: give each run a checkpoint of its own\n"
                .to_string()
        )
    );
    assert_eq!(seen(&at.join("two.ck")), before);
    // The first run goes on, and its checkpoint resumes.
    let mut stdin = first.stdin.take().unwrap();
    stdin.write_all(&fs::read(at.join("a.in")).unwrap()).unwrap();
    drop(stdin);
    let (code, stdout, err) = text(&first.wait_with_output().unwrap());
    assert_eq!((code, stdout.as_str(), err.as_str()), (Some(0), "Case 1: 92\nCase 2: 1\n", ""));
    let again = nqueen().current_dir(at).args(["--checkpoint", "two.ck", "a.in"]).output().unwrap();
    assert_eq!(text(&again), (Some(0), "Case 1: 92\nCase 2: 1\n".to_string(), String::new()));
}

#[test]
fn a_checkpoint_this_user_may_not_write_is_refused_as_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    fs::copy(SAMPLE, at.join("sample.in")).unwrap();
    assert!(nqueen().current_dir(at).args(["--checkpoint", "run.ck", "sample.in"]).output().unwrap().status.success());
    let mut run = nqueen();
    run.current_dir(at).args(["--checkpoint", "run.ck", "sample.in"]);
    // SAFETY: geteuid only reads the process's user id.
    if unsafe { libc::geteuid() } == 0 {
        // Root writes any file: the run is another user's, and the file root's, mode 644.
        fs::set_permissions(at, fs::Permissions::from_mode(0o755)).unwrap();
        fs::set_permissions(at.join("run.ck"), fs::Permissions::from_mode(0o644)).unwrap();
        run.uid(65534).gid(65534);
    } else {
        // The owner may not write it, though its group may: not a read-only file.
        fs::set_permissions(at.join("run.ck"), fs::Permissions::from_mode(0o464)).unwrap();
    }
    let before = seen(&at.join("run.ck"));
    assert_eq!(
        text(&run.output().unwrap()),
        (Some(1), String::new(), "nqueen: checkpoint run.ck: is read-only, so no work could be recorded in it\n".to_string())
    );
    assert_eq!(seen(&at.join("run.ck")), before);
}
