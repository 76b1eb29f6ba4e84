//! The temporary files a killed write leaves: the next write of the same file removes them,
//! and nothing else: not another file's, not one a live process (or a lock) still holds,
//! not a name that only looks like one.

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;

use super::nqueen;

fn names(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

#[test]
fn a_write_removes_the_temporary_files_of_killed_writes_of_its_file_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    let part = nqueen().args(["--shard", "0/1", super::SAMPLE]).output().unwrap();
    fs::write(at.join("part.jsonl"), &part.stdout).unwrap();
    fs::write(at.join("notes.txt"), b"my notes\n").unwrap();
    // A write killed inside its temporary file: past 16 bytes, SIGXFSZ ends the process.
    let mut killed = nqueen();
    killed.current_dir(at).args(["merge", "--summary", "s.json", "part.jsonl"]);
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
