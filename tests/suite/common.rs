//! Helpers shared by the integration tests: the oracle, OEIS, board generators, and how a
//! test says it cannot run its subject.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nqueen::board::Board;
use nqueen::control::Control;
use nqueen::cpu::{self, Schedule};
use nqueen::plan::Plan;
use nqueen::prefix;
pub use nqueen::rng::Rng;
use nqueen::solve::{Backend, Options, Solver};
use nqueen::symmetry::Sym;

/// An OEIS sequence from its file under fixtures/oeis (one `n a(n)` line per n, from 1).
pub fn oeis(text: &str) -> Vec<u64> {
    let values = text.lines().filter(|l| !l.starts_with('#')).map(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()));
    values.collect::<Option<Vec<u64>>>().expect("an OEIS file of `n a(n)` lines")
}

/// OEIS A000170: solutions on an empty n×n board, `a000170()[n - 1]` for n = 1, 2, ...
pub fn a000170() -> Vec<u64> {
    oeis(include_str!("../../fixtures/oeis/A000170.txt"))
}

/// Whether the tests run under CI (`CI=true`), where `.ci/run` has installed every tool, so
/// that a test that cannot run its subject is a failure there.
fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Says, where a person running `cargo test` sees it, that `test` did not run its subject
/// because `tool` is missing; under CI it fails the test instead. Written to stderr
/// directly: the test harness hides what `eprintln!` prints in a passing test.
pub fn skip_missing_tool(test: &str, tool: &str) {
    assert!(!under_ci(), "{test}: {tool} is missing, and CI installs it");
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {tool} is not installed (.ci/run installs it)");
}

/// Says, where a person running `cargo test` sees it, that `test` has nothing to check on
/// this machine (it needs a GPU, or needs none, say): not a failure, even under CI.
pub fn not_here(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "NOT APPLICABLE {test}: {why}");
}

/// `out` (a name under the tests' temporary directory), built once from `source` by the
/// first of `compilers` found, with `options`, and kept in `cell` for every test; `None`,
/// said by `test`, where no compiler is found.
pub fn built_once(
    cell: &'static OnceLock<Option<PathBuf>>,
    test: &str,
    compilers: [&str; 3],
    options: &[&str],
    source: &str,
    out: &str,
) -> Option<&'static Path> {
    let built = cell.get_or_init(|| {
        let compiler = compilers.into_iter().find(|c| have(c))?;
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(out);
        std::fs::create_dir_all(path.parent().expect("a name under the directory")).expect("the tests' directory");
        let done = std::process::Command::new(compiler).args(options).arg("-o").arg(&path).arg(source).output().expect("the compiler runs");
        assert!(done.status.success(), "{source} does not build:\n{}", String::from_utf8_lossy(&done.stderr));
        Some(path)
    });
    if built.is_none() {
        skip_missing_tool(test, &format!("a compiler ({})", compilers.join(", ")));
    }
    built.as_deref()
}

/// Whether `tool --version` runs.
pub fn have(tool: &str) -> bool {
    std::process::Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Waits for `child` to exit, and kills it if it still runs `limit` from now: a watchdog
/// that reaches no other process, since it signals through `child`'s handle only while
/// `try_wait` has not reaped it, and a pid is not reused before its process is reaped.
/// Returns its status and whether the limit was reached.
pub fn wait_or_kill(child: &mut Child, limit: Duration) -> (ExitStatus, bool) {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            return (status, false);
        }
        if Instant::now() >= deadline {
            child.kill().expect("a child not yet reaped can be killed");
            return (child.wait().expect("the killed child's status"), true);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The obviously-correct count: plain recursion with sets of used columns and diagonals.
pub fn oracle(board: &Board) -> u64 {
    fn place(b: &Board, r: usize, cols: &mut HashSet<usize>, d1: &mut HashSet<usize>, d2: &mut HashSet<isize>) -> u64 {
        let n = b.n();
        if r == n {
            return 1;
        }
        let mut total = 0;
        for c in 0..n {
            let (a, d) = (r + c, r as isize - c as isize);
            if b.is_free(r, c) && !cols.contains(&c) && !d1.contains(&a) && !d2.contains(&d) {
                cols.insert(c);
                d1.insert(a);
                d2.insert(d);
                total += place(b, r + 1, cols, d1, d2);
                cols.remove(&c);
                d1.remove(&a);
                d2.remove(&d);
            }
        }
        total
    }
    place(board, 0, &mut HashSet::new(), &mut HashSet::new(), &mut HashSet::new())
}

/// Counts with the library on the CPU, with or without orientation and symmetry.
pub fn count_cpu(board: &Board, no_symmetry: bool) -> u64 {
    let options = Options { backend: Backend::Cpu, no_symmetry, ..Options::default() };
    let mut solver = Solver::new(options);
    let count = solver.solve(board, false, &Control::default()).expect("not cancelled").count;
    u64::try_from(count).expect("test boards have fewer than 2^64 solutions")
}

/// Counts a plan on the CPU from prefixes `min_prefixes` deep.
pub fn count_plan(plan: &Plan, min_prefixes: usize) -> u64 {
    let prefixes = prefix::expand(plan, min_prefixes);
    let count = cpu::count(plan, &prefixes, &[], Schedule::Dynamic, &Control::default()).expect("not cancelled").solutions;
    u64::try_from(count).expect("test boards have fewer than 2^64 solutions")
}

/// A board of side `n` whose cells are obstacles with probability `density`.
pub fn random_board(rng: &mut Rng, n: usize, density: f64) -> Board {
    Board::from_fn(n, |_, _| !rng.chance(density)).expect("n within range")
}

/// A random board whose obstacle set is a union of orbits under `group`.
pub fn symmetric_board(rng: &mut Rng, n: usize, group: &[Sym], density: f64) -> Board {
    let mut free = vec![vec![true; n]; n];
    for r in 0..n {
        for c in 0..n {
            if rng.chance(density) {
                for g in group {
                    let (r2, c2) = g.apply(n, r, c);
                    free[r2][c2] = false;
                }
            }
        }
    }
    Board::from_fn(n, |r, c| free[r][c]).unwrap()
}

/// A part record's line, edited by `edit`, with its digest made again as the README says:
/// the SHA-256 of the line's text before `,"digest":`. Such a line is well-formed: only the
/// merge's other checks can refuse it.
pub fn resealed(line: &str, edit: impl Fn(&str) -> String) -> String {
    use sha2::{Digest, Sha256};
    let body = edit(&line[..line.rfind(",\"digest\":").expect("a sealed part record")]);
    let digest: String = Sha256::digest(body.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    format!("{body},\"digest\":\"{digest}\"}}")
}

/// Peak resident memory (kB) of a child, sampled from /proc while it runs.
pub fn peak_rss_kb(child: &mut std::process::Child) -> u64 {
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        if let Ok(text) = std::fs::read_to_string(&status) {
            let hwm = text.lines().find(|l| l.starts_with("VmHWM:"));
            if let Some(kb) = hwm.and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok()) {
                peak = peak.max(kb);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    peak
}
