//! The GPU kernel's search run on the CPU: kernels/count.cu compiled as C++ with a small
//! host (tests/suite/kernel/host.cpp) standing in for CUDA, on real plans (symmetry splits of
//! many boards, due columns, every prefix depth), against the oracle and OEIS. This checks
//! the kernel's logic where there is no GPU, as on CI; scripts/gpu/check.sh checks it on one.
//! Skips, saying so, when no C++ compiler is found.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::common::{a000170, built_once, count_plan, oracle, random_board, Rng};
use nqueen::board::Board;
use nqueen::gpu::EntryPoint;
use nqueen::plan::Plan;
use nqueen::prefix::{self, Deeper, Prefix, Prefixes};

/// The kernel and its host, compiled once for all the tests here; `None`, said by the test
/// `test`, when there is no C++ compiler.
fn host(test: &str) -> Option<&'static Path> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    let options = ["-O2", "-std=c++17", "-Wall"];
    built_once(&BUILT, test, ["c++", "g++", "clang++"], &options, "tests/suite/kernel/host.cpp", "kernel_host")
}

/// What the kernel's host printed.
struct Run {
    solutions: u64,
    /// Roots whose expansion did not yield the number of prefixes the host counted.
    mismatches: u64,
    /// The expanded prefixes, when asked for.
    prefixes: Vec<Prefix>,
}

/// How a launch's lanes end: each on its own, or taking work from the others of its warp
/// once the prefixes are used up (the entry points of a count's last launches).
#[derive(Clone, Copy, Debug)]
enum Lanes {
    Alone,
    Sharing,
}

/// Expands `base` by `deeper` with the kernel's expand_prefixes, as the GPU backend does,
/// and counts the result with the entry point the GPU backend would pick for `plan`, in
/// the form `lanes` says.
fn run_kernel(host: &Path, plan: &Plan, base: &Prefixes, deeper: &Deeper, lanes: Lanes, print: bool) -> Run {
    let mut input = format!("{} {} {}\n", plan.n, base.depth, plan.boards.len());
    for window in nqueen::gpu::row_windows(plan) {
        input += &format!("{window} ");
    }
    input += "\n";
    for w in &plan.weights {
        input += &format!("{w} ");
    }
    let entry = EntryPoint::for_plan(plan, base.depth + deeper.extra);
    let entry = match lanes {
        Lanes::Alone => entry.number(),
        Lanes::Sharing => entry.shared_number(),
    };
    input += &format!("\n{entry} {} {} {}\n", deeper.extra, u8::from(print), base.items.len());
    for (p, k) in base.items.iter().zip(&deeper.per_root) {
        input += &format!("{} {} {} {} {k}\n", p.board, p.cols, p.ld, p.rd);
    }
    let mut child = Command::new(host).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("the kernel host starts");
    child.stdin.take().expect("piped").write_all(input.as_bytes()).expect("the kernel host reads its input");
    let out = child.wait_with_output().expect("the kernel host finishes");
    assert!(out.status.success(), "the kernel host failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut numbers = text.split_whitespace().map(|x| x.parse::<u64>().expect("a number"));
    let mut next = || numbers.next().expect("a number");
    let (solutions, _nodes, mismatches, wrapped) = (next(), next(), next(), next());
    assert_eq!(wrapped, 0, "the kernel's sum wrapped");
    let prefixes = if print {
        (0..deeper.total()).map(|_| Prefix { board: next() as u32, cols: next() as u32, ld: next() as u32, rd: next() as u32 }).collect()
    } else {
        Vec::new()
    };
    Run { solutions, mismatches, prefixes }
}

/// The kernel's count of `plan` from at least `roots` roots expanded to at least `prefixes`
/// prefixes, checking that the expansion met the host's counts and that lanes that share
/// work count the same as lanes alone.
fn kernel_count(host: &Path, plan: &Plan, roots: usize, prefixes: usize) -> u64 {
    let base = prefix::expand(plan, roots);
    let deeper = prefix::deeper(plan, &base, prefixes);
    let [alone, sharing] = [Lanes::Alone, Lanes::Sharing].map(|lanes| run_kernel(host, plan, &base, &deeper, lanes, false));
    assert_eq!((alone.mismatches, sharing.mismatches), (0, 0));
    assert_eq!(alone.solutions, sharing.solutions, "lanes sharing work count otherwise");
    alone.solutions
}

#[test]
fn the_kernel_counts_empty_boards_as_oeis_says() {
    let Some(host) = host("the_kernel_counts_empty_boards_as_oeis_says") else { return };
    for n in 4..=12 {
        let board = Board::empty(n).unwrap();
        let want = a000170()[n - 1];
        // Prefixes from one row deep down to the last rows, where the kernel has nothing
        // left to search, made on the host or expanded further by the kernel, on the plain
        // board and on the symmetry split.
        for (roots, prefixes) in [(1, 1), (1, 5_000), (50, 50), (50, 5_000), (usize::MAX, usize::MAX)] {
            let at = format!("{roots} roots, {prefixes} prefixes");
            assert_eq!(kernel_count(host, &Plan::plain(&board), roots, prefixes), want, "n={n} plain, {at}");
            assert_eq!(kernel_count(host, &Plan::optimized(&board), roots, prefixes), want, "n={n} split, {at}");
            assert_eq!(kernel_count(host, &Plan::optimized(&board).turned(), roots, prefixes), want, "n={n} split and turned, {at}");
        }
    }
}

#[test]
fn the_kernel_agrees_with_the_oracle_on_random_boards() {
    let Some(host) = host("the_kernel_agrees_with_the_oracle_on_random_boards") else { return };
    let mut rng = Rng::new(11);
    let mut used = [0; 3];
    for case in 0..150 {
        let n = rng.range(4, 12);
        let density = rng.range(0, 40) as f64 / 100.0;
        let board = random_board(&mut rng, n, density);
        let want = oracle(&board);
        for plan in [Plan::plain(&board), Plan::optimized(&board), Plan::optimized(&board).turned()] {
            let (roots, prefixes) = [(1, 1), (20, 20), (400, 400), (1, 300), (20, 3000)][case % 5];
            let base = prefix::expand(&plan, roots);
            let deeper = prefix::deeper(&plan, &base, prefixes);
            used[EntryPoint::for_plan(&plan, base.depth + deeper.extra).number()] += 1;
            let lanes = if case % 2 == 0 { Lanes::Alone } else { Lanes::Sharing };
            let run = run_kernel(host, &plan, &base, &deeper, lanes, false);
            assert_eq!((run.solutions, run.mismatches), (want, 0), "case {case}: n={n}\n{}", board);
        }
    }
    assert!(used.iter().all(|&u| u >= 10), "plans per entry point (plain, due, uniform): {used:?}");
}

#[test]
fn the_uniform_entry_point_counts_boards_with_obstacles_only_above_the_prefixes() {
    let Some(host) = host("the_uniform_entry_point_counts_boards_with_obstacles_only_above_the_prefixes") else { return };
    let mut rng = Rng::new(23);
    let mut checked = 0;
    for case in 0..60 {
        let n = rng.range(5, 12);
        let blocked_rows = rng.range(1, 3);
        let mut board = random_board(&mut rng, n, 0.3);
        let full = nqueen::board::full_mask(n).unwrap();
        let rows: Vec<u32> = board.rows().iter().enumerate().map(|(r, &m)| if r < blocked_rows { m } else { full }).collect();
        board = Board::from_rows(n, rows).unwrap();
        let plan = Plan::plain(&board);
        let base = prefix::expand(&plan, [1, 30, 600][case % 3]);
        let deeper = prefix::deeper(&plan, &base, [1, 1000][case % 2]);
        if base.depth + deeper.extra < blocked_rows {
            continue;
        }
        assert_eq!(EntryPoint::for_plan(&plan, base.depth + deeper.extra), EntryPoint::Uniform, "case {case}");
        let want = oracle(&board);
        let lanes = if case % 2 == 0 { Lanes::Alone } else { Lanes::Sharing };
        let run = run_kernel(host, &plan, &base, &deeper, lanes, false);
        assert_eq!((run.solutions, run.mismatches), (want, 0), "case {case}: n={n}\n{}", board);
        checked += usize::from(want > 0);
    }
    assert!(checked >= 20, "only {checked} boards with solutions went through the uniform entry point");
}

#[test]
fn the_kernel_counts_deep_searches_on_large_sparse_boards() {
    // Sparse boards of 20 and more rows searched from row 1: stacks of 16 rows and more.
    let Some(host) = host("the_kernel_counts_deep_searches_on_large_sparse_boards") else { return };
    let mut rng = Rng::new(5);
    for (n, density) in [(20, 0.5), (22, 0.55)] {
        let board = random_board(&mut rng, n, density);
        let plan = Plan::plain(&board);
        let base = prefix::expand(&plan, 1);
        assert!(base.depth <= 1);
        let deeper = prefix::deeper(&plan, &base, 1);
        let want = count_plan(&plan, 1000);
        for lanes in [Lanes::Alone, Lanes::Sharing] {
            let run = run_kernel(host, &plan, &base, &deeper, lanes, false);
            assert_eq!(run.solutions, want, "n={n}, {lanes:?}\n{}", board);
        }
    }
}

#[test]
fn the_kernel_expands_roots_into_the_prefixes_the_host_would_make() {
    let Some(host) = host("the_kernel_expands_roots_into_the_prefixes_the_host_would_make") else { return };
    let obstacles = [(0, 2), (2, 4), (6, 6), (9, 1)];
    let board = Board::from_fn(10, |r, c| !obstacles.contains(&(r, c))).unwrap();
    for plan in [Plan::plain(&Board::empty(9).unwrap()), Plan::optimized(&board), Plan::optimized(&Board::empty(10).unwrap())] {
        let base = prefix::expand(&plan, 10);
        let deeper = prefix::deeper(&plan, &base, 2000);
        assert!(deeper.extra > 0);
        // Each root's descendants, row by row, lowest column first.
        let mut want = base.items.clone();
        for row in base.depth..base.depth + deeper.extra {
            want = want.iter().flat_map(|p| columns(p.avail(&plan, row)).map(move |bit| p.place(bit))).collect();
        }
        assert_eq!(want.len() as u64, deeper.total());
        let run = run_kernel(host, &plan, &base, &deeper, Lanes::Alone, true);
        assert_eq!(run.mismatches, 0);
        assert_eq!(run.prefixes, want);
        assert!(run.prefixes.iter().all(|p| p.cols.count_ones() as usize == base.depth + deeper.extra));
    }
}

/// The set bits of `mask`, lowest first.
fn columns(mask: u32) -> impl Iterator<Item = u32> {
    (0..32).map(|c| 1u32 << c).filter(move |bit| mask & bit != 0)
}

#[test]
fn an_expansion_that_disagrees_with_the_hosts_counts_is_reported() {
    let Some(host) = host("an_expansion_that_disagrees_with_the_hosts_counts_is_reported") else { return };
    let plan = Plan::plain(&Board::empty(8).unwrap());
    let base = prefix::expand(&plan, 10);
    let mut deeper = prefix::deeper(&plan, &base, 200);
    deeper.per_root[0] += 1;
    deeper.per_root[3] -= 1;
    assert_eq!(run_kernel(host, &plan, &base, &deeper, Lanes::Alone, false).mismatches, 2);
}
