//! What nqueen keeps between runs on a machine, in its cache directory: compiled kernels
//! (src/gpu/module.rs) and how long opening a GPU took here, which `auto` weighs. A cache
//! that cannot be read or written only costs the next run a compile or a guess.

use std::path::{Path, PathBuf};

/// The environment variable that names the cache directory.
pub const CACHE_VARIABLE: &str = "NQUEEN_CACHE_DIR";

/// The cache directory: `$NQUEEN_CACHE_DIR`, else `$XDG_CACHE_HOME/nqueen`, else
/// `~/.cache/nqueen`.
pub(super) fn dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    var(CACHE_VARIABLE)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("nqueen")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("nqueen")))
}

/// The file at `path`, read with a bound: a file there that is larger than `most` bytes,
/// or anything but a regular file (a FIFO would block the run), is not one of ours.
pub(super) fn read(path: &Path, most: u64) -> Option<Vec<u8>> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(std::fs::File::open(path).ok()?, most + 1), &mut bytes).ok()?;
    (bytes.len() as u64 <= most).then_some(bytes)
}

/// Writes `bytes` to `path` through a temporary file, so that a reader never sees half a
/// file.
pub(super) fn store(path: &Path, bytes: &[u8]) {
    let Some(dir) = path.parent() else { return };
    // Only a file of ours is replaced: not the answers' file, a link, a FIFO or a directory.
    let replaceable = std::fs::symlink_metadata(path).map_or(true, |m| m.is_file());
    if !replaceable || is_stdout(path) {
        return;
    }
    // Devices are opened in parallel threads, so the process id alone is not unique.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nth = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = path.with_extension(format!("tmp{}-{nth}", std::process::id()));
    let written = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&tmp, bytes)).and_then(|_| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Whether `path` is the file standard output writes to (`nqueen in > count-….cubin`): the
/// rename would take the answers' file from its name. Told by device and inode, on Unix.
fn is_stdout(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        std::io::stdout().as_fd().try_clone_to_owned().is_ok_and(|fd| is_file_of(&std::fs::File::from(fd), path))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// Whether `path` names the file `open` has open.
#[cfg(unix)]
fn is_file_of(open: &std::fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (open.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// The seconds opening one card took on this machine, as the last openings left them
/// ([`remember_opening`]); none before the first.
pub fn opening_seconds() -> Option<f64> {
    opening_seconds_in(&dir()?)
}

/// Keeps `seconds`, what opening one card just took, for the next runs on this machine:
/// blended with what was kept, so that one slow opening (a busy driver) moves it halfway.
pub fn remember_opening(seconds: f64) {
    if let Some(dir) = dir() {
        remember_opening_in(&dir, seconds);
    }
}

/// The file that keeps the opening's seconds, one per machine: a cache directory may be
/// shared by the nodes of a cluster.
fn opening_file(dir: &Path) -> PathBuf {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let host: String = host.trim().chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.')).take(64).collect();
    dir.join(format!("gpu-opening-{host}.txt"))
}

/// The seconds kept in `dir`, where they are a plausible opening.
fn opening_seconds_in(dir: &Path) -> Option<f64> {
    let text = read(&opening_file(dir), 64)?;
    let seconds: f64 = std::str::from_utf8(&text).ok()?.trim().parse().ok()?;
    (OPENING_RANGE.0..=OPENING_RANGE.1).contains(&seconds).then_some(seconds)
}

fn remember_opening_in(dir: &Path, seconds: f64) {
    let seconds = seconds.clamp(OPENING_RANGE.0, OPENING_RANGE.1);
    let blended = opening_seconds_in(dir).map_or(seconds, |kept| (kept + seconds) / 2.0);
    store(&opening_file(dir), format!("{blended:.4}\n").as_bytes());
}

/// The openings worth keeping, in seconds: outside them, a measurement went wrong.
const OPENING_RANGE: (f64, f64) = (0.01, 10.0);

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;

    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_cached_kernel_is_written_except_over_the_file_standard_output_writes_to() {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("nqueen-cache-test-{}.cubin", std::process::id()));
        std::fs::write(&path, b"old").unwrap();
        let open = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        assert!(is_file_of(&open, &path));
        assert!(!is_file_of(&open, &dir.join("no-such-file")));
        assert!(!is_stdout(&path));
        store(&path, b"new");
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert!(!is_file_of(&open, &path), "the rename gave the name to another file");
        std::fs::remove_file(&path).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_read_or_replaced() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let fifo = dir.path().join("count-0.cubin");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Read, a FIFO with no writer would block: it is passed over at once.
            assert_eq!(read(&fifo, 64), None);
            store(&fifo, b"kernel");
            assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        }
        let target = dir.path().join("precious");
        std::fs::write(&target, b"mine").unwrap();
        let link = dir.path().join("count-1.cubin");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        store(&link, b"kernel");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"mine");
        let plain = dir.path().join("count-2.cubin");
        store(&plain, b"kernel");
        assert_eq!(read(&plain, 64).as_deref(), Some(&b"kernel"[..]));
    }

    #[test]
    fn an_opening_is_kept_blended_with_the_last_and_junk_is_not_read() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        assert_eq!(opening_seconds_in(dir.path()), None);
        remember_opening_in(dir.path(), 0.4);
        assert_eq!(opening_seconds_in(dir.path()), Some(0.4));
        remember_opening_in(dir.path(), 0.2);
        assert!((opening_seconds_in(dir.path()).unwrap() - 0.3).abs() < 1e-9);
        std::fs::write(opening_file(dir.path()), "not a number\n").unwrap();
        assert_eq!(opening_seconds_in(dir.path()), None);
        std::fs::write(opening_file(dir.path()), "1e9\n").unwrap();
        assert_eq!(opening_seconds_in(dir.path()), None);
        // A huge file there is not ours.
        std::fs::write(opening_file(dir.path()), "0.3".repeat(100)).unwrap();
        assert_eq!(opening_seconds_in(dir.path()), None);
    }
}
