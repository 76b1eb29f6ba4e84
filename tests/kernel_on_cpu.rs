//! The GPU kernel's search run on the CPU: kernels/count.cu compiled as C++ with a small
//! host (tests/kernel/host.cpp) standing in for CUDA, on real plans (symmetry splits of
//! many boards, due columns, every prefix depth), against the oracle and OEIS. This checks
//! the kernel's logic where there is no GPU, as on CI; scripts/gpu-check.sh checks it on one.
//! Skips, saying so, when no C++ compiler is found.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use common::{oracle, random_board, Rng, A000170};
use nqueen::board::Board;
use nqueen::gpu::EntryPoint;
use nqueen::plan::Plan;
use nqueen::prefix::{self, Prefix};

/// The kernel and its host, compiled once for all the tests here; `None`, said once, when
/// there is no C++ compiler.
fn host() -> Option<&'static Path> {
    static HOST: OnceLock<Option<PathBuf>> = OnceLock::new();
    let host = HOST.get_or_init(|| {
        let cxx = ["c++", "g++", "clang++"].into_iter().find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))?;
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kernel_host");
        let built = Command::new(cxx).args(["-O2", "-std=c++17", "-Wall", "-o"]).arg(&out).arg("tests/kernel/host.cpp").output().expect("the compiler runs");
        assert!(built.status.success(), "the kernel does not compile as C++:\n{}", String::from_utf8_lossy(&built.stderr));
        Some(out)
    });
    if host.is_none() {
        eprintln!("skipped: no C++ compiler (c++, g++ or clang++) to build the kernel for the CPU");
    }
    host.as_deref()
}

/// Runs the kernel's entry point for `plan` (the one the GPU backend would pick) over
/// `prefixes` at `depth`: (weighted solutions, nodes).
fn run_kernel(host: &Path, plan: &Plan, depth: usize, prefixes: &[Prefix]) -> (u64, u64) {
    let mut input = format!("{} {} {}\n", plan.n, depth, plan.boards.len());
    for window in nqueen::gpu::row_windows(plan) {
        input += &format!("{window} ");
    }
    input += "\n";
    for w in &plan.weights {
        input += &format!("{w} ");
    }
    input += &format!("\n{} {}\n", EntryPoint::for_plan(plan, depth).number(), prefixes.len());
    for p in prefixes {
        input += &format!("{} {} {} {}\n", p.board, p.cols, p.ld, p.rd);
    }
    let mut child = Command::new(host).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("the kernel host starts");
    child.stdin.take().expect("piped").write_all(input.as_bytes()).expect("the kernel host reads its input");
    let out = child.wait_with_output().expect("the kernel host finishes");
    assert!(out.status.success(), "the kernel host failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut numbers = text.split_whitespace().map(|x| x.parse::<u64>().expect("a number"));
    (numbers.next().expect("solutions"), numbers.next().expect("nodes"))
}

/// The kernel's count of `plan`, from prefixes at least `min_prefixes` many.
fn kernel_count(host: &Path, plan: &Plan, min_prefixes: usize) -> u64 {
    let base = prefix::expand(plan, min_prefixes);
    run_kernel(host, plan, base.depth, &base.items).0
}

#[test]
fn the_kernel_counts_empty_boards_as_oeis_says() {
    let Some(host) = host() else { return };
    for n in 4..=12 {
        let board = Board::empty(n).unwrap();
        let want = A000170[n - 1];
        // Prefixes from one row deep down to the last rows, where the kernel has nothing
        // left to search, on the plain board and on the symmetry split.
        for min_prefixes in [1, 50, 5_000, usize::MAX] {
            assert_eq!(kernel_count(host, &Plan::plain(&board), min_prefixes), want, "n={n} plain, {min_prefixes} prefixes");
            assert_eq!(kernel_count(host, &Plan::optimized(&board), min_prefixes), want, "n={n} split, {min_prefixes} prefixes");
            assert_eq!(kernel_count(host, &Plan::optimized(&board).turned(), min_prefixes), want, "n={n} split and turned, {min_prefixes} prefixes");
        }
    }
}

#[test]
fn the_kernel_agrees_with_the_oracle_on_random_boards() {
    let Some(host) = host() else { return };
    let mut rng = Rng::new(11);
    let mut used = [0; 3];
    for case in 0..150 {
        let n = rng.range(4, 12);
        let density = rng.range(0, 40) as f64 / 100.0;
        let board = random_board(&mut rng, n, density);
        let want = oracle(&board);
        for plan in [Plan::plain(&board), Plan::optimized(&board), Plan::optimized(&board).turned()] {
            let min_prefixes = [1, 20, 400][case % 3];
            let base = prefix::expand(&plan, min_prefixes);
            used[EntryPoint::for_plan(&plan, base.depth).number()] += 1;
            assert_eq!(run_kernel(host, &plan, base.depth, &base.items).0, want, "case {case}: n={n}\n{}", board.to_text());
        }
    }
    assert!(used.iter().all(|&u| u >= 10), "plans per entry point (plain, due, uniform): {used:?}");
}

#[test]
fn the_uniform_entry_point_counts_boards_with_obstacles_only_above_the_prefixes() {
    let Some(host) = host() else { return };
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
        if base.depth < blocked_rows {
            continue;
        }
        assert_eq!(EntryPoint::for_plan(&plan, base.depth), EntryPoint::Uniform, "case {case}");
        let want = oracle(&board);
        assert_eq!(run_kernel(host, &plan, base.depth, &base.items).0, want, "case {case}: n={n}\n{}", board.to_text());
        checked += usize::from(want > 0);
    }
    assert!(checked >= 20, "only {checked} boards with solutions went through the uniform entry point");
}

#[test]
fn the_kernel_counts_deep_searches_on_large_sparse_boards() {
    // Sparse boards of 20 and more rows searched from row 1: stacks of 16 rows and more.
    let Some(host) = host() else { return };
    let mut rng = Rng::new(5);
    for (n, density) in [(20, 0.5), (22, 0.55)] {
        let board = random_board(&mut rng, n, density);
        let plan = Plan::plain(&board);
        let base = prefix::expand(&plan, 1);
        assert!(base.depth <= 1);
        assert_eq!(run_kernel(host, &plan, base.depth, &base.items).0, common::count_plan(&plan, 1000), "n={n}\n{}", board.to_text());
    }
}
