//! The temporary files a killed write leaves: the next write of the same file removes them,
//! and nothing else: not another file's, not one a live process (or a lock) still holds,
//! not a name that only looks like one.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;

use super::nqueen;

fn names(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

/// A write of a summary to `name` in `at` killed inside its temporary file: past 16 bytes,
/// SIGXFSZ ends the process. Its process id.
fn killed_write(at: &Path, name: &OsStr) -> u32 {
    let mut killed = nqueen();
    killed.current_dir(at).args(["merge", "--summary"]).arg(name).arg("part.jsonl");
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        killed.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: 16, rlim_max: 16 };
            match libc::setrlimit(libc::RLIMIT_FSIZE, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let child = killed.stdout(std::process::Stdio::null()).spawn().unwrap();
    let dead = child.id();
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(libc::SIGXFSZ));
    dead
}

#[test]
fn a_write_removes_the_temporary_files_of_killed_writes_of_its_file_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    let part = nqueen().args(["--shard", "0/1", super::SAMPLE]).output().unwrap();
    fs::write(at.join("part.jsonl"), &part.stdout).unwrap();
    fs::write(at.join("notes.txt"), b"my notes\n").unwrap();
    let dead = killed_write(at, OsStr::new("s.json"));
    let left = format!(".s.json.nqueen-{dead}-0.tmp");
    assert!(names(at).contains(&left), "the killed write left no temporary file: {:?}", names(at));
    let me = std::process::id();
    let removed = [left, format!(".s.json.nqueen-{dead}-7.tmp")];
    let kept = [
        format!(".s.json.nqueen-{me}-0.tmp"),
        format!(".s.json.nqueen-{dead}-8.tmp"),
        format!(".other.json.nqueen-{dead}-0.tmp"),
        format!(".s.json.nqueen-{dead}-0.tmp.bak"),
        format!(".s.json.nqueen-{dead}-x.tmp"),
        ".s.json.nqueen--0.tmp".to_string(),
        format!(".s.json.nqueen-+{dead}-0.tmp"),
        format!("s.json.nqueen-{dead}-0.tmp"),
        "notes.tmp".to_string(),
    ];
    for name in removed.iter().chain(&kept).skip(1) {
        fs::write(at.join(name), b"half a summary").unwrap();
    }
    // A directory and a symlink of the pattern's name.
    let (directory, link) = (format!(".s.json.nqueen-{dead}-9.tmp"), format!(".s.json.nqueen-{dead}-10.tmp"));
    fs::create_dir(at.join(&directory)).unwrap();
    std::os::unix::fs::symlink("notes.txt", at.join(&link)).unwrap();
    // Held by a write still under way, on another machine that shares the directory, say.
    let held = fs::File::open(at.join(&kept[1])).unwrap();
    held.try_lock().unwrap();
    let before = names(at);
    let run = nqueen().current_dir(at).args(["merge", "--summary", "s.json", "part.jsonl"]).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let expected: BTreeSet<String> = before.iter().filter(|n| !removed.contains(n)).cloned().chain(["s.json".to_string()]).collect();
    assert_eq!(names(at), expected);
    assert!(names(at).is_superset(&kept.iter().chain([&directory, &link]).cloned().collect()));
    assert_eq!(fs::read(at.join("notes.txt")).unwrap(), b"my notes\n");
    drop(held);
}

#[test]
fn a_name_as_long_as_the_system_takes_is_written_and_its_killed_writes_removed() {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    let part = nqueen().args(["--shard", "0/1", super::SAMPLE]).output().unwrap();
    fs::write(at.join("part.jsonl"), &part.stdout).unwrap();
    // Names of 236 to 255 bytes, two of which differ in their last byte alone, and one that
    // is not UTF-8.
    let long = |length: usize, last: u8| OsStr::from_bytes(&[&vec![b's'; length - 1][..], &[last]].concat()).to_os_string();
    let targets = [long(236, b'a'), long(255, b'a'), long(255, b'b'), long(255, 0xff)];
    for name in &targets {
        let run = nqueen().current_dir(at).args(["merge", "--summary"]).arg(name).arg("part.jsonl").output().unwrap();
        assert_eq!((run.status.code(), String::from_utf8_lossy(&run.stderr).as_ref()), (Some(0), ""), "{}", name.len());
        assert!(at.join(name).is_file());
    }
    let before = names(at);
    let mut left = Vec::new();
    for name in &targets[1..] {
        let was = names(at);
        killed_write(at, name);
        let new: Vec<String> = names(at).difference(&was).cloned().collect();
        assert!(new.len() == 1 && new[0].len() <= 255 && new[0].ends_with(".tmp"), "{new:?}");
        left.push(new[0].clone());
    }
    // A write removes its own name's, and not those of a name that starts the same way.
    for (k, name) in targets[1..].iter().enumerate() {
        let run = nqueen().current_dir(at).args(["merge", "--summary"]).arg(name).arg("part.jsonl").output().unwrap();
        assert!(run.status.success());
        let expected: BTreeSet<String> = before.iter().chain(&left[k + 1..]).cloned().collect();
        assert_eq!(names(at), expected, "after the write of name {k}");
    }
}
