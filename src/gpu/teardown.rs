//! A quick exit after GPU work: the CUDA driver's teardown handed to a child process.
//!
//! When a process that used CUDA exits, the driver tears down its contexts and mappings
//! before the process is gone, after the answers are out, which makes every GPU run a
//! tenth of a second or more longer (BENCHMARKS.md). A child forked once the
//! GPU is open holds copies of the driver's file descriptors, so the parent's exit only
//! drops its references and the teardown happens when the child exits, which it does as
//! soon as the parent has gone (it waits for end of file on a pipe whose writing end only
//! the parent holds). For that, the parent must exit without destroying the contexts
//! itself: `main` never drops the solver.
//!
//! The child inherits the parent's memory copy-on-write (pages the parent writes later are
//! copied once) and runs only async-signal-safe calls
//! (`signal`, `close_range` or `close`, `read`, `_exit`), as a child forked from a process
//! with several threads must. It keeps no other file open, so a reader of nqueen's output
//! sees its end when nqueen exits, not when the child does.

use std::fs;
use std::io::{self, PipeWriter};
use std::os::fd::{AsRawFd, RawFd};

/// A child process that holds file descriptors open until it is dropped or this process
/// exits.
#[derive(Debug)]
pub struct Holder {
    /// Our end of the pipe the child waits on, never written: it closes, and the child
    /// exits, when this process does.
    _pipe_end: PipeWriter,
    pid: libc::pid_t,
}

impl Holder {
    /// Forks a child that keeps `fds` (descriptors of this process) open and closes every
    /// other one.
    pub fn start(fds: &[RawFd]) -> io::Result<Holder> {
        let (wait_on, pipe_end) = io::pipe()?;
        let mut keep: Vec<RawFd> = fds.iter().copied().chain([wait_on.as_raw_fd()]).collect();
        keep.sort_unstable();
        keep.dedup();
        let open_max = open_max();
        // SAFETY: the child calls only async-signal-safe functions (`hold` and `_exit`) and
        // reads only `keep`, allocated before the fork.
        let pid = unsafe { libc::fork() };
        match pid {
            -1 => Err(io::Error::last_os_error()),
            0 => unsafe {
                hold(&keep, wait_on.as_raw_fd(), open_max);
                libc::_exit(0)
            },
            _ => Ok(Holder { _pipe_end: pipe_end, pid }),
        }
    }
}

impl Drop for Holder {
    /// Ends the child and reaps it: killed, so that this does not rest on the child
    /// reading its pipe.
    fn drop(&mut self) {
        // SAFETY: `pid` is our child, which nothing else waits for.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            while libc::waitpid(self.pid, std::ptr::null_mut(), 0) == -1 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
            {
            }
        }
    }
}

/// The child's whole life: closes every descriptor but `keep` (sorted), then waits until
/// `wait_on` reads end of file, that is, until every writer (the parent) has gone.
///
/// # Safety
/// Only for the child of a fork: it closes descriptors that the parent's code owns.
unsafe fn hold(keep: &[RawFd], wait_on: RawFd, open_max: RawFd) {
    // Ctrl-C or a TERM to the process group ends the child at once, whatever handlers
    // the parent had installed: its only job is to hold files.
    libc::signal(libc::SIGINT, libc::SIG_DFL);
    libc::signal(libc::SIGTERM, libc::SIG_DFL);
    let mut from: RawFd = 0;
    for &fd in keep.iter().chain(&[RawFd::MAX]) {
        if fd > from {
            close_all(from, fd - 1, open_max);
        }
        from = fd.saturating_add(1);
    }
    let mut byte = 0u8;
    loop {
        let r = libc::read(wait_on, (&mut byte as *mut u8).cast(), 1);
        // Nothing is ever written: 0 is end of file; a signal's interruption reads again.
        if r == 0 || (r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR)) {
            break;
        }
    }
}

/// Closes descriptors `first..=last`: one `close_range` call, or (kernels before 5.9) one
/// `close` per possible descriptor up to `open_max`.
unsafe fn close_all(first: RawFd, last: RawFd, open_max: RawFd) {
    if libc::syscall(libc::SYS_close_range, first as libc::c_uint, last as libc::c_uint, 0 as libc::c_uint) == 0 {
        return;
    }
    for fd in first..=last.min(open_max) {
        libc::close(fd);
    }
}

/// The highest descriptor number this process may open (at most 2^20, Linux's default
/// ceiling, `fs.nr_open`).
fn open_max() -> RawFd {
    const CEILING: RawFd = 1 << 20;
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes only into `limit`.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    if ok {
        RawFd::try_from(limit.rlim_cur).map_or(CEILING, |m| m.min(CEILING))
    } else {
        CEILING
    }
}

/// This process's descriptors open on the NVIDIA driver's devices (`/dev/nvidia*`).
pub fn driver_files() -> io::Result<Vec<RawFd>> {
    open_files("/dev/nvidia")
}

/// This process's descriptors open on files whose path starts with `prefix`.
fn open_files(prefix: &str) -> io::Result<Vec<RawFd>> {
    let mut fds = Vec::new();
    for entry in fs::read_dir("/proc/self/fd")? {
        let entry = entry?;
        let Some(fd) = entry.file_name().to_str().and_then(|s| s.parse::<RawFd>().ok()) else { continue };
        // The listing's own descriptor is closed by the time it is read: skip what fails.
        if fs::read_link(entry.path()).is_ok_and(|target| target.to_str().is_some_and(|t| t.starts_with(prefix))) {
            fds.push(fd);
        }
    }
    Ok(fds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{ErrorKind, Read};
    use std::os::fd::AsFd;

    /// Whether a read from `r` now would see end of file (and not block).
    fn at_end(r: &mut io::PipeReader) -> bool {
        let fd = r.as_fd().as_raw_fd();
        // SAFETY: fcntl on a descriptor we own.
        unsafe { libc::fcntl(fd, libc::F_SETFL, libc::fcntl(fd, libc::F_GETFL) | libc::O_NONBLOCK) };
        let mut buf = [0u8; 1];
        match r.read(&mut buf) {
            Ok(0) => true,
            Err(e) if e.kind() == ErrorKind::WouldBlock => false,
            other => panic!("unexpected read: {other:?}"),
        }
    }

    #[test]
    fn the_child_holds_what_it_was_given_and_nothing_else_until_dropped() {
        let (mut held_r, held_w) = io::pipe().unwrap();
        let (mut other_r, other_w) = io::pipe().unwrap();
        let holder = Holder::start(&[held_w.as_raw_fd()]).unwrap();
        drop(held_w);
        drop(other_w);
        // The child closes every descriptor it was not given, like stdout, at once (allow it
        // a moment to run)...
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !at_end(&mut other_r) {
            assert!(std::time::Instant::now() < deadline, "the child kept a descriptor it was not given");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // ...which done, it still holds the writing end it was given.
        assert!(!at_end(&mut held_r));
        // Dropping the holder ends the child (and reaps it), and with it the last writer.
        drop(holder);
        assert!(at_end(&mut held_r));
    }

    #[test]
    fn open_files_are_found_by_their_path() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("held").to_str().unwrap().to_string();
        assert_eq!(open_files(&prefix).unwrap(), Vec::<RawFd>::new());
        let file = fs::File::create(&prefix).unwrap();
        let _other = fs::File::create(dir.path().join("other")).unwrap();
        assert_eq!(open_files(&prefix).unwrap(), vec![file.as_raw_fd()]);
    }
}
