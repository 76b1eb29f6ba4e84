//! What nqueen reads back of what it wrote: a checkpoint's torn last line is dropped only
//! where it is the start of a line nqueen writes, and any other line is refused with the
//! file left as it is; every name that goes into a part record is bounded at start, so the
//! longest record a run may write is one that merge and status read.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::Command;

use super::{nqueen, seen, text, SAMPLE};

/// A note that starts as a unit line does, with no newline: not one nqueen could write, since
/// a board is a hash in hex digits.
const NOTE: &[u8] = b"{\"record\":\"unit\",\"input\":0,\"case\":1,\"board\":\"my note here, do not lose";

/// A checkpoint of the sample, in a directory of its own.
fn checkpoint() -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(SAMPLE, dir.path().join("sample.in")).unwrap();
    let run = nqueen().current_dir(dir.path()).args(["--checkpoint", "run.ck", "sample.in"]).output().unwrap();
    assert!(run.status.success());
    let path = dir.path().join("run.ck");
    let bytes = fs::read(&path).unwrap();
    (dir, path, bytes)
}

#[test]
fn a_line_in_a_checkpoint_that_nqueen_did_not_write_is_refused_and_the_file_kept() {
    let (dir, path, whole) = checkpoint();
    let lines = whole.iter().filter(|&&b| b == b'\n').count();
    let last = whole[..whole.len() - 1].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let edited = String::from_utf8(whole[last..].to_vec()).unwrap().replacen("\"solutions\":1", "\"solutions\":7", 1);
    for (what, bytes, line) in [
        ("a note a person added", [&whole[..], b"note: started on node 5\n"].concat(), lines + 1),
        ("a note with no newline", [&whole[..], b"note: started on node 5"].concat(), lines + 1),
        ("JSON of another kind", [&whole[..], b"{\"record\":\"note\"}\n"].concat(), lines + 1),
        ("an edited last line", [&whole[..last], edited.as_bytes()].concat(), lines),
        ("a note in the shape of a line, with no newline", [&whole[..], NOTE].concat(), lines + 1),
        ("a blank line", [&whole[..], b"\n"].concat(), lines + 1),
    ] {
        fs::write(&path, &bytes).unwrap();
        let before = seen(&path);
        let (code, stdout, err) = text(&nqueen().current_dir(dir.path()).args(["--checkpoint", "run.ck", "sample.in"]).output().unwrap());
        let said = format!("nqueen: checkpoint run.ck: line {line}: not a checkpoint line: ");
        assert_eq!((code, stdout.as_str(), err.lines().count()), (Some(1), "", 1), "{what}: {err}");
        assert!(err.starts_with(&said), "{what}: {err}");
        if what == "a blank line" {
            assert_eq!(err, format!("{said}it is blank\n"));
        }
        assert_eq!(seen(&path), before, "{what}: the checkpoint changed");
    }
    // A line cut short by a kill, anywhere up to its newline, is dropped, and the run goes on.
    for cut in [1, 10, whole.len() - last - 1] {
        fs::write(&path, &whole[..last + cut]).unwrap();
        let (code, stdout, err) = text(&nqueen().current_dir(dir.path()).args(["--checkpoint", "run.ck", "sample.in"]).output().unwrap());
        assert_eq!((code, stdout.as_str()), (Some(0), "Case 1: 92\nCase 2: 1\n"), "cut at {cut}");
        assert_eq!(
            err,
            format!(
                "nqueen: warning: checkpoint run.ck: dropped its torn last line {lines} (a run was stopped or ran out of room mid-write)\n"
            )
        );
        assert_eq!(fs::read(&path).unwrap().len(), whole.len(), "cut at {cut}: the case was not recorded again");
    }
}

/// `unit` repeated to `bytes` bytes (`unit` of one byte, or `bytes` a multiple of its length).
fn worst(unit: &[u8], bytes: usize) -> Vec<u8> {
    unit.iter().copied().cycle().take(bytes).collect()
}

#[test]
fn the_longest_names_a_part_record_takes_are_read_back_and_longer_ones_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    // A control character, a quote and a backslash: what JSON writes longest.
    let nasty = b"\x01\"\\";
    // The longest path Linux opens, 4095 bytes: twenty directories of 200 bytes, and a name.
    let mut input = PathBuf::new();
    for _ in 0..20 {
        input.push(OsStr::from_bytes(&worst(nasty, 200)));
    }
    input.push(OsStr::from_bytes(&worst(nasty, 75)));
    assert_eq!(input.as_os_str().len(), 4095);
    // Made from inside the directory: with it in front, the path is longer than Linux opens.
    let sample = fs::canonicalize(SAMPLE).unwrap();
    let made = Command::new("sh")
        .current_dir(dir.path())
        .args(["-c", "mkdir -p \"$(dirname \"$2\")\" && cp \"$1\" \"$2\"", "sh"])
        .args([sample.as_os_str(), input.as_os_str()])
        .status()
        .unwrap();
    assert!(made.success());
    let machine = String::from_utf8(worst(nasty, 255)).unwrap();
    let run = nqueen().current_dir(dir.path()).env("NQUEEN_MACHINE", &machine).args(["--shard", "0-1/2"]).arg(&input).output().unwrap();
    let (code, records, err) = text(&run);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    fs::write(dir.path().join("part.jsonl"), &records).unwrap();
    let longest = records.lines().map(str::len).max().unwrap();
    // JSON writes the three bytes in ten: the name alone is over 13,000 bytes.
    assert!(longest > 4095 * 10 / 3, "a record of {longest} bytes: the names did not go in");
    let (code, stdout, err) = text(&nqueen().current_dir(dir.path()).args(["merge", "part.jsonl"]).output().unwrap());
    assert_eq!((code, stdout.as_str(), err.as_str()), (Some(0), "Case 1: 92\nCase 2: 1\n", ""));
    let (code, _, err) = text(&nqueen().current_dir(dir.path()).args(["status", "--by", "host", "part.jsonl"]).output().unwrap());
    assert_eq!((code, err.as_str()), (Some(0), ""));
    // One byte more is refused before anything is counted or written.
    let longer = format!("{machine}m");
    let run = nqueen().current_dir(dir.path()).env("NQUEEN_MACHINE", &longer).args(["--shard", "0/1"]).arg(&sample).output().unwrap();
    assert_eq!(
        text(&run),
        (Some(2), String::new(), "nqueen: NQUEEN_MACHINE is 256 bytes long, more than the 255 a part record takes\n".to_string())
    );
    let name = "n".repeat(4097);
    let run = nqueen().current_dir(dir.path()).args(["--shard", "0/1"]).arg(&sample).arg(&name).output().unwrap();
    let said = format!("nqueen: {}...: a file name of 4097 bytes, more than the 4096 a part record takes\n", &name[..40]);
    assert_eq!(text(&run), (Some(2), String::new(), said));
}
