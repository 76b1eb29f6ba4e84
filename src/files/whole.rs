//! A file written whole, as `merge --summary` and `status --plot` write theirs: through a
//! symlink to its target; to a temporary file in the target's directory, then renamed over
//! it, so that a reader (or a kill) sees the old file or the new one, never half of one;
//! written to as it is where the target is a device or FIFO, and refused where it is a
//! directory, an input of the run, read-only, or a file that nqueen did not write as one
//! of its own: the whole of it, as nqueen wrote it (an empty file holds nothing to lose,
//! and is written). The temporary files that killed writes of the target left are removed
//! first.

use std::ffi::OsStr;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use super::kind::{Kind, SNIFF};
use super::{among, is_stream};
use crate::words::{shown, shown_input, LinkLoop};

/// A kind of file the program writes whole, and how it knows one it wrote.
#[derive(Clone, Copy)]
pub struct Own {
    /// What the file is, in messages: "summary", "plot".
    pub role: &'static str,
    /// What its first bytes say it is (see [`Kind::of`]).
    pub kind: Kind,
    /// Whether the whole of a file is one the program wrote, unedited.
    pub written: fn(&[u8]) -> bool,
}

/// The rules one file is written by.
pub struct Rules<'a> {
    /// The kind of file it may replace: its own earlier output.
    pub own: Own,
    /// The run's inputs, which it may never be.
    pub inputs: &'a [&'a Path],
}

/// Why a file was not written; nothing of it was, and what was there is as it was.
#[derive(Debug)]
pub struct WriteError {
    pub role: &'static str,
    pub path: PathBuf,
    pub problem: Problem,
}

/// What stopped a write.
#[derive(Debug)]
#[non_exhaustive]
pub enum Problem {
    /// The target is a directory.
    Directory,
    /// The target holds another kind of file.
    NotOurs(Kind),
    /// The target starts as a file of its kind, but is not one as the program writes it:
    /// edited, or with more in it.
    Altered(Kind),
    /// The target is a read-only file.
    ReadOnly,
    /// The target is this input of the run.
    Input(PathBuf),
    /// Writing failed.
    Io(io::Error),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: ", self.role, shown(&self.path))?;
        match &self.problem {
            Problem::Directory => f.write_str("is a directory; give the name of a file"),
            Problem::NotOurs(kind) => {
                write!(f, "holds {}, not a {}, so it was left as it is: remove it, or give another name", kind.name(), self.role)
            }
            Problem::Altered(kind) => write!(
                f,
                "starts as {} but is not one as nqueen wrote it (edited, or with more in it), so it was left as it is: remove it, or give another name",
                kind.name()
            ),
            Problem::ReadOnly => f.write_str("is read-only, so it was left as it is"),
            Problem::Input(input) => write!(f, "is the input {}, so it was left as it is", shown_input(input)),
            Problem::Io(e) => f.write_str(&super::io_words(&self.path, e)),
        }
    }
}

impl std::error::Error for WriteError {}

/// The most of a file that is read to tell that the program wrote it, far more than any
/// summary or plot it writes: a larger file is not taken for its own.
const MAX_OWN: u64 = 256 << 20;

/// The longest file name that filesystems take, in bytes.
const NAME_MAX: usize = 255;
/// The longest ending of a temporary file's name: `.nqueen-PID-N.tmp`, with the longest
/// process id and count.
const LONGEST_ENDING: usize = ".nqueen-".len() + 10 + 1 + 20 + ".tmp".len();

/// Temporary files being written, which an exit on a signal removes.
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Writes `bytes` to `path` by `rules` (see the module's doc).
pub fn write(path: &Path, bytes: &[u8], rules: &Rules<'_>) -> Result<(), WriteError> {
    let fail = |problem| WriteError { role: rules.own.role, path: path.to_path_buf(), problem };
    if is_stream(path) {
        // A device or FIFO takes the bytes as they come, and stays what it is. Opened by
        // the name given: `/dev/fd/N` may name a pipe that no path reaches.
        let written = OpenOptions::new().write(true).open(path).and_then(|mut f| f.write_all(bytes).and_then(|_| f.flush()));
        return written.map_err(|e| fail(Problem::Io(e)));
    }
    let target = followed(path).map_err(|e| fail(Problem::Io(e)))?;
    let meta = match fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(fail(Problem::Io(e))),
    };
    if let Some(meta) = &meta {
        if meta.is_dir() {
            return Err(fail(Problem::Directory));
        }
        if let Some(input) = among(&target, rules.inputs.iter().copied()) {
            return Err(fail(Problem::Input(input.to_path_buf())));
        }
        if meta.permissions().readonly() {
            return Err(fail(Problem::ReadOnly));
        }
        let kind = sniff(&target).map_err(|e| fail(Problem::Io(e)))?;
        if kind != Kind::Empty && kind != rules.own.kind {
            return Err(fail(Problem::NotOurs(kind)));
        }
        if kind == rules.own.kind && !whole_and_own(&target, rules.own.written).map_err(|e| fail(Problem::Io(e)))? {
            return Err(fail(Problem::Altered(kind)));
        }
    }
    replace(&target, bytes, meta.as_ref()).map_err(|e| fail(Problem::Io(e)))
}

/// Removes the temporary files of writes still under way: for an exit on a signal.
pub fn remove_unfinished() {
    let unfinished = UNFINISHED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for path in unfinished.iter() {
        let _ = fs::remove_file(path);
    }
}

/// The file `path` names once every symlink is followed (itself if it is none); the target
/// of a dangling symlink, which writing creates.
fn followed(path: &Path) -> io::Result<PathBuf> {
    // As the kernel does, give up after 40 links.
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = fs::read_link(&at)?;
                at = match at.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(at),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(at),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other(LinkLoop))
}

/// What the file at `path` holds, from its first bytes.
fn sniff(path: &Path) -> io::Result<Kind> {
    let mut start = Vec::with_capacity(SNIFF);
    File::open(path)?.take(SNIFF as u64).read_to_end(&mut start)?;
    Ok(Kind::of(&start))
}

/// Whether the whole of the file at `path` is one that `written` takes for the program's:
/// not where it is larger than [`MAX_OWN`].
fn whole_and_own(path: &Path, written: fn(&[u8]) -> bool) -> io::Result<bool> {
    let mut whole = Vec::new();
    File::open(path)?.take(MAX_OWN + 1).read_to_end(&mut whole)?;
    Ok(whole.len() as u64 <= MAX_OWN && written(&whole))
}

/// Writes `bytes` to a new file beside `target`, with the permissions of the file it
/// replaces (`old`), and renames it over `target`.
fn replace(target: &Path, bytes: &[u8], old: Option<&fs::Metadata>) -> io::Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target.file_name().unwrap_or(OsStr::new("file"));
    remove_stale(dir, name);
    let temporary = dir.join(format!(".{}.nqueen-{}-{}.tmp", stem(name), std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if let Some(old) = old {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(old.permissions().mode() & 0o7777);
    }
    #[cfg(not(unix))]
    let _ = old;
    let mut file = options.open(&temporary)?;
    // Held until the file is renamed: a write elsewhere sees it is not stale (see
    // [`remove_stale`]). A filesystem without locks leaves the process id to tell.
    let _ = file.try_lock();
    UNFINISHED.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(temporary.clone());
    let written = file.write_all(bytes).and_then(|_| file.sync_all()).and_then(|_| fs::rename(&temporary, target));
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    UNFINISHED.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).retain(|p| *p != temporary);
    written?;
    // The rename, on disk too, where the directory can be synced.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// How the temporary files of writes of `name` are named after their dot: the name itself,
/// where it is UTF-8 and short enough that a temporary name fits in [`NAME_MAX`]; else as
/// much of it as fits, `~`, and 16 hex digits of the SHA-256 of the whole name, which keep
/// the temporary files of two long names apart.
fn stem(name: &OsStr) -> String {
    if let Some(name) = name.to_str().filter(|n| 1 + n.len() + LONGEST_ENDING <= NAME_MAX) {
        return name.to_string();
    }
    let hash = crate::words::hex(&Sha256::digest(name.as_encoded_bytes()));
    let shown = name.to_string_lossy();
    let mut room = (NAME_MAX - LONGEST_ENDING - 2 - 16).min(shown.len());
    while !shown.is_char_boundary(room) {
        room -= 1;
    }
    format!("{}~{}", &shown[..room], &hash[..16])
}

/// Removes the temporary files that writes of `name` in `dir` left when they were killed
/// (SIGKILL, a power cut): those named as [`replace`] names them (or as earlier builds
/// named them, the whole name in front), by a process that is gone, whose lock on the
/// file is released. Nothing else in `dir` is touched, and a temporary file still being
/// written (on this machine or another that shares the directory) holds its lock.
fn remove_stale(dir: &Path, name: &OsStr) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut starts = vec![format!(".{}.nqueen-", stem(name))];
    starts.extend(name.to_str().map(|name| format!(".{name}.nqueen-")).filter(|plain| *plain != starts[0]));
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| starts.iter().find_map(|start| n.strip_prefix(start.as_str()))) else { continue };
        let Some(rest) = rest.strip_suffix(".tmp") else { continue };
        let Some((pid, nth)) = rest.split_once('-') else { continue };
        let numbers = [pid, nth].iter().all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        let Some(pid) = pid.parse::<u32>().ok().filter(|&pid| numbers && pid != std::process::id()) else { continue };
        if !entry.file_type().is_ok_and(|t| t.is_file()) || !gone(pid) {
            continue;
        }
        let path = entry.path();
        let Ok(file) = File::open(&path) else { continue };
        if !matches!(file.try_lock(), Err(fs::TryLockError::WouldBlock)) {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Whether no process `pid` runs on this machine. Told on Linux only; elsewhere the lock a
/// writer holds on its temporary file tells alone.
fn gone(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else { return true };
        // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
        pid > 0 && unsafe { libc::kill(pid, 0) } == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_name_fits_whatever_the_name_and_two_names_keep_theirs_apart() {
        assert_eq!(stem(OsStr::new("s.json")), "s.json");
        let longest = format!(".{}.nqueen-{}-{}.tmp", stem(OsStr::new(&"n".repeat(211))), u32::MAX, u64::MAX);
        assert_eq!((longest.len(), stem(OsStr::new(&"n".repeat(211)))), (NAME_MAX, "n".repeat(211)));
        let (a, b) = (format!("{}a", "é".repeat(127)), format!("{}b", "é".repeat(127)));
        let (stem_a, stem_b) = (stem(OsStr::new(&a)), stem(OsStr::new(&b)));
        assert_ne!(stem_a, stem_b);
        for stem in [&stem_a, &stem_b] {
            assert!(format!(".{stem}.nqueen-{}-{}.tmp", u32::MAX, u64::MAX).len() <= NAME_MAX, "{stem}");
            assert!(stem.starts_with(&"é".repeat(97)) && stem.contains('~'), "{stem}");
        }
    }
}
