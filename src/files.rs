//! The files the program reads and writes by path, and the rules it keeps with them (see
//! GUIDE.md, "Files nqueen writes"):
//!
//! - it adopts only its own files: an existing checkpoint, summary or plot is written to only
//!   where what it holds says nqueen wrote it ([`kind`]), and never where it is one of the
//!   run's inputs, or the file standard output writes to ([`is_stdout`]);
//! - a file written whole goes through a symlink to its target, by a rename in the target's
//!   directory where the target is a regular file ([`whole`]); a device or FIFO is written
//!   to as it is, and a directory is refused: none of them is ever replaced;
//! - every read of a file it did not write is bounded: a line longer than any nqueen writes
//!   is an error, read in memory that does not grow with the file ([`lines`]).

pub mod digest;
mod error;
pub mod json;
pub mod kind;
pub mod lines;
pub mod whole;

use std::fs::Metadata;
use std::path::Path;

use crate::words::shown;
use error::open_words;
pub use error::FileError;

/// The longest line a checkpoint or part file may hold. The longest nqueen writes is a
/// checkpoint's unit of [`crate::work::MAX_UNIT_RANGES`] ranges, under 32 KiB; a part
/// record is under 12 KiB, with a file name as long as a path may be.
pub const MAX_LINE: usize = 64 << 10;

/// The text of a small file the program did not write (a host's name or machine id), at
/// most `most` bytes of it; `None` where it cannot be read or holds nothing.
pub fn small_text(path: &str, most: u64) -> Option<String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(std::fs::File::open(path).ok()?, most), &mut text).ok()?;
    Some(text.trim().to_string()).filter(|t| !t.is_empty())
}

/// Whether `path`, its links followed, is a device, FIFO or socket: read or written as it
/// is (see [`whole::write`]), and opening it may wait for the other end.
pub fn is_stream(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| !meta.is_dir() && not_regular(&meta).is_some())
}

/// What a file that is not a regular file is, for messages: "a directory", "a FIFO", ...
pub fn not_regular(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// The first of `inputs` that is the file `path` names (the same device and inode).
pub fn among<'a>(path: &Path, inputs: impl IntoIterator<Item = &'a Path>) -> Option<&'a Path> {
    first_same(&std::fs::metadata(path).ok()?, path, inputs)
}

/// The first of `inputs` that is the file of `meta` (at `path`).
fn first_same<'a>(meta: &Metadata, path: &Path, inputs: impl IntoIterator<Item = &'a Path>) -> Option<&'a Path> {
    inputs.into_iter().find(|input| std::fs::metadata(input).is_ok_and(|m| same_file(meta, &m, path, input)))
}

/// The first of `paths` that names the same file as one before it, and that one, by their
/// places: told by device and inode (on Unix), else by the path with every link followed,
/// and by the path as given where the file cannot be looked at.
pub fn first_repeat(paths: &[&Path]) -> Option<(usize, usize)> {
    let mut seen = std::collections::HashMap::new();
    for (k, path) in paths.iter().enumerate() {
        match seen.entry(file_key(path)) {
            std::collections::hash_map::Entry::Occupied(earlier) => return Some((*earlier.get(), k)),
            std::collections::hash_map::Entry::Vacant(new) => new.insert(k),
        };
    }
    None
}

/// What tells the file at `path` from others (see [`first_repeat`]).
#[derive(Hash, PartialEq, Eq)]
enum FileKey {
    #[cfg(unix)]
    Inode(u64, u64),
    Path(std::path::PathBuf),
}

fn file_key(path: &Path) -> FileKey {
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::MetadataExt;
        return FileKey::Inode(meta.dev(), meta.ino());
    }
    #[cfg(not(unix))]
    if let Ok(path) = std::fs::canonicalize(path) {
        return FileKey::Path(path);
    }
    FileKey::Path(path.to_path_buf())
}

/// The input file at `path`, opened for reading, or why it cannot be: a directory is not
/// `expected` ("judge input", "a part file").
pub fn open_input(path: &Path, expected: &'static str) -> Result<std::fs::File, FileError> {
    if path.is_dir() {
        return Err(FileError::Directory { expected });
    }
    std::fs::File::open(path).map_err(|error| FileError::Open { path: path.to_path_buf(), error })
}

/// What went wrong opening or writing `path`, in words: for a file that could not be
/// created, the directory that is missing, the link that points into it, or the file on
/// its path.
pub fn io_words(path: &Path, e: &std::io::Error) -> String {
    let said = open_words(path, e);
    if let Some(dir) = unwritable_directory(path).filter(|_| e.kind() == std::io::ErrorKind::PermissionDenied) {
        return format!("its directory {} does not let this user make files in it", shown(dir));
    }
    if e.kind() == std::io::ErrorKind::NotADirectory {
        return format!("cannot create it: {said}");
    }
    if e.kind() != std::io::ErrorKind::NotFound {
        return said;
    }
    let (target, link) = match std::fs::read_link(path) {
        Ok(to) => (path.parent().map_or(to.clone(), |dir| dir.join(&to)), Some(to)),
        Err(_) => (path.to_path_buf(), None),
    };
    let missing = target.parent().filter(|dir| !dir.as_os_str().is_empty() && !dir.is_dir());
    match (missing, link) {
        (Some(dir), Some(to)) => format!("cannot create it: it links to {}, in {}, which does not exist", shown(&to), shown(dir)),
        (Some(dir), None) => format!("cannot create it: there is no directory {}", shown(dir)),
        (None, _) => format!("cannot create it: {said}"),
    }
}

/// The directory of `path`, where this user may not create files in it: a file written
/// whole is made there first (see [`whole::write`]).
fn unwritable_directory(path: &Path) -> Option<&Path> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: access(2) only reads the NUL-terminated path.
        (dir.is_dir() && unsafe { libc::access(c.as_ptr(), libc::W_OK) } != 0).then_some(dir)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dir;
        None
    }
}

/// The first of `inputs` that standard output writes to, where that is a regular file: a
/// run would write its answers into what it reads (`nqueen in >> in`). Told by device and
/// inode, so on Unix only.
pub fn stdout_among<'a>(inputs: impl IntoIterator<Item = &'a Path>) -> Option<&'a Path> {
    let out = stdout_file().filter(Metadata::is_file)?;
    first_same(&out, Path::new("/dev/stdout"), inputs)
}

/// Whether `path` names the file standard output writes to, which a file the run writes
/// by name would take from the answers: a regular file under any name (`--summary s.json >
/// s.json`), or a pipe by the name of standard output (`--summary /proc/self/fd/1 | less`).
/// A device (a terminal, /dev/null) takes both as they come. On Unix only, as above.
pub fn is_stdout(path: &Path) -> bool {
    let Some(out) = stdout_file().filter(|out| out.is_file() || is_fifo(out)) else { return false };
    std::fs::metadata(path).is_ok_and(|m| same_file(&out, &m, Path::new("/dev/stdout"), path))
}

/// The first of `inputs` that standard error writes to, where that is a regular file: a
/// message would be written into what the run reads (`nqueen in 2>> in`).
pub fn stderr_among<'a>(inputs: impl IntoIterator<Item = &'a Path>) -> Option<&'a Path> {
    let err = stderr_file().filter(Metadata::is_file)?;
    first_same(&err, Path::new("/dev/stderr"), inputs)
}

/// Whether `path` names the regular file standard error writes to under any name: the
/// run's messages would be written into a file it writes by name (`--checkpoint c.ck 2>>
/// c.ck`). On Unix only, as above.
pub fn is_stderr(path: &Path) -> bool {
    let Some(err) = stderr_file().filter(Metadata::is_file) else { return false };
    std::fs::metadata(path).is_ok_and(|m| same_file(&err, &m, Path::new("/dev/stderr"), path))
}

/// Whether `path` is one of standard error's own names, which write to whatever standard
/// error is (`--summary /dev/stderr`).
pub fn names_stderr(path: &Path) -> bool {
    ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"].iter().any(|name| path == Path::new(name))
}

/// Whether `meta` is a FIFO's, or a pipe's.
fn is_fifo(meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// What standard output writes to, where it can be told from other files (on Unix: by
/// device and inode).
fn stdout_file() -> Option<Metadata> {
    standard_file(std::io::stdout())
}

/// What standard error writes to, as [`stdout_file`] tells it.
fn stderr_file() -> Option<Metadata> {
    standard_file(std::io::stderr())
}

/// What the standard stream `stream` writes to, by its descriptor.
#[cfg(unix)]
fn standard_file(stream: impl std::os::fd::AsFd) -> Option<Metadata> {
    std::fs::File::from(stream.as_fd().try_clone_to_owned().ok()?).metadata().ok()
}

/// A standard stream is told apart from other files on Unix only (see the Unix version).
#[cfg(not(unix))]
fn standard_file<T>(_stream: T) -> Option<Metadata> {
    None
}

/// Whether `a` (of `a_path`) and `b` (of `b_path`) are one file: by device and inode, or
/// where there are none, by the paths with every link followed.
fn same_file(a: &Metadata, b: &Metadata, a_path: &Path, b_path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = (a_path, b_path);
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        matches!((std::fs::canonicalize(a_path), std::fs::canonicalize(b_path)), (Ok(x), Ok(y)) if x == y)
    }
}
