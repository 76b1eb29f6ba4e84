//! A checkpoint is one run's: a second run that names it while the first holds it is
//! refused at start, and the file is left as it is; one the user cannot write, whoever
//! owns it, is refused as a read-only one is.

use std::fs;
use std::io::Write;
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
