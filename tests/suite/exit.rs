//! How a run ends once it has loaded the CUDA driver: a stand-in driver
//! (tests/suite/exit/fake_cuda.c) takes seconds to start and aborts the process if its exit
//! handlers run while the start-up is under way, as the real driver's teardown crashes the
//! thread inside it, or, when asked, if they run at all, as the real one's did now and then
//! on its own. nqueen must end with its documented status all the same, at once. Skips,
//! saying so, where there is no C compiler.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::{built_once, wait_or_kill};

/// The directory of the stand-in libcuda.so, built once; `None`, said by `test`, without a
/// C compiler.
fn fake_driver(test: &str) -> Option<&'static Path> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    let options = ["-shared", "-fPIC", "-O2"];
    built_once(&BUILT, test, ["cc", "gcc", "clang"], &options, "tests/suite/exit/fake_cuda.c", "fake_cuda/libcuda.so")?.parent()
}

/// Runs nqueen on `input` with the stand-in driver, whose start-up takes a minute; sends
/// `signal` once a thread is inside it; returns the exit code, stderr, and how long the
/// process took to end after the signal.
fn signalled_while_opening(driver: &Path, input: &str, signal: i32) -> (Option<i32>, String, Duration) {
    let work = tempfile::tempdir().unwrap();
    let mark = work.path().join("inside");
    let mut child = Command::new(env!("CARGO_BIN_EXE_nqueen"))
        .arg(input)
        .env("LD_LIBRARY_PATH", driver)
        .env("FAKE_CUDA_INIT_MS", "60000")
        .env("FAKE_CUDA_MARK", &mark)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !mark.exists() {
        assert!(Instant::now() < deadline, "the GPU never started opening");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    let sent = Instant::now();
    // SAFETY: the child is ours and not yet reaped, so its pid is its own.
    unsafe { libc::kill(child.id() as i32, signal) };
    let (status, killed) = wait_or_kill(&mut child, Duration::from_secs(20));
    assert!(!killed, "the run did not end after the signal");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (status.code(), err, sent.elapsed())
}

#[test]
fn a_signal_while_the_gpu_opens_ends_the_run_with_its_status_not_a_crash() {
    let Some(driver) = fake_driver("a_signal_while_the_gpu_opens_ends_the_run_with_its_status_not_a_crash") else { return };
    // Empty 18 waits for the GPU, which this driver takes a minute to open.
    for (signal, status) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let (code, err, took) = signalled_while_opening(driver, "fixtures/bench/empty_18.in", signal);
        assert_eq!(code, Some(status), "signal {signal}: stderr {err:?}");
        assert!(!err.contains("fake CUDA driver"), "the exit handlers ran under the opening thread: {err}");
        assert!(took < Duration::from_secs(10), "the run took {took:?} to end after the signal");
    }
}

#[test]
fn a_run_that_loaded_the_driver_ends_without_its_exit_handler() {
    let Some(driver) = fake_driver("a_run_that_loaded_the_driver_ends_without_its_exit_handler") else { return };
    let work = tempfile::tempdir().unwrap();
    // The default opens the GPU in the background for empty 17, finds none and counts on
    // the CPU; `--backend gpu` finds none and says so (status 3).
    for (args, status, answer) in
        [(&["fixtures/bench/empty_17.in"][..], 0, "Case 1: 95815104\n"), (&["--backend", "gpu", "fixtures/sample.in"][..], 3, "")]
    {
        let mark = work.path().join("called");
        let _ = std::fs::remove_file(&mark);
        let run = Command::new(env!("CARGO_BIN_EXE_nqueen"))
            .args(args)
            .env("LD_LIBRARY_PATH", driver)
            .env("FAKE_CUDA_INIT_MS", "0")
            .env("FAKE_CUDA_MARK", &mark)
            .env("FAKE_CUDA_EXIT_CRASH", "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(mark.exists(), "{args:?}: the driver was never loaded, so this tests nothing");
        assert_eq!(run.status.code(), Some(status), "{args:?}: stderr {err:?}");
        assert!(!err.contains("fake CUDA driver"), "{args:?}: the driver's exit handler ran: {err}");
        assert_eq!(String::from_utf8_lossy(&run.stdout), answer, "{args:?}");
    }
}
