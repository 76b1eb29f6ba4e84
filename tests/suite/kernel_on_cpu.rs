//! The GPU kernel's search run on the CPU: kernels/count.cu compiled as C++ with a small
//! host (tests/suite/kernel/host.cpp) standing in for CUDA, on real plans (symmetry splits of
//! many boards, due columns, every prefix depth), against the oracle and OEIS. This checks
//! the kernel's logic where there is no GPU, as on CI; scripts/gpu/check.sh checks it on one.
//! Skips, saying so, when no C++ compiler is found.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::common::{a000170, count_plan, have, oracle, random_board, skip_missing_tool, Rng};
use nqueen::board::Board;
use nqueen::gpu::{stack_budget, EntryPoint, StackShape, STACK_BLOCKS};
use nqueen::plan::Plan;
use nqueen::prefix::{self, Deeper, Prefix, Prefixes};

/// The kernel and its host, compiled once for all the tests here; `None`, said by the test
/// `test`, when there is no C++ compiler.
fn host(test: &str) -> Option<&'static Path> {
    static HOST: OnceLock<Option<PathBuf>> = OnceLock::new();
    let host = HOST.get_or_init(|| {
        let cxx = ["c++", "g++", "clang++"].into_iter().find(|c| have(c))?;
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kernel_host");
        let built = Command::new(cxx)
            .args(["-O2", "-std=c++17", "-Wall", "-o"])
            .arg(&out)
            .arg("tests/suite/kernel/host.cpp")
            .output()
            .expect("the compiler runs");
        assert!(built.status.success(), "the kernel does not compile as C++:\n{}", String::from_utf8_lossy(&built.stderr));
        Some(out)
    });
    if host.is_none() {
        skip_missing_tool(test, "a C++ compiler (c++, g++ or clang++)");
    }
    host.as_deref()
}

/// What the kernel's host printed.
struct Run {
    solutions: u64,
    /// Roots whose expansion did not yield the number of prefixes the host counted.
    mismatches: u64,
    /// The most stack entries a thread had in global memory at once.
    spilled: u64,
    /// The expanded prefixes, when asked for.
    prefixes: Vec<Prefix>,
}

/// How the GPU backend keeps the stacks of `plan`'s prefixes `depth` rows deep on an H100
/// or H200 (228 KB of shared memory an SM, 1 KB of it reserved a block).
fn hopper_stack(plan: &Plan, depth: usize) -> StackShape {
    StackShape::new(plan.n, depth, stack_budget(228 * 1024, 1024, STACK_BLOCKS))
}

/// A stack whose threads keep `entries` entries in shared memory, and one more for the
/// first `wide` of them: the rest of a deep stack goes to global memory.
fn window_of(plan: &Plan, depth: usize, entries: usize, wide: usize) -> StackShape {
    StackShape::new(plan.n, depth, (128 * entries + wide) * 16)
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
fn run_kernel(host: &Path, plan: &Plan, base: &Prefixes, deeper: &Deeper, lanes: Lanes, stack: StackShape, print: bool) -> Run {
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
    assert_eq!(stack.block, 128, "the kernel's host runs blocks of 128 threads");
    input += &format!(
        "\n{entry} {} {} {} {} {} {}\n",
        deeper.extra,
        u8::from(print),
        stack.window,
        stack.wide,
        stack.capacity,
        base.items.len()
    );
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
    let (solutions, _nodes, mismatches, wrapped, spilled) = (next(), next(), next(), next(), next());
    assert_eq!(wrapped, 0, "the kernel's sum wrapped");
    assert!(spilled <= u64::from(stack.capacity), "{spilled} entries spilled, room for {}", stack.capacity);
    let prefixes = if print {
        (0..deeper.total()).map(|_| Prefix { board: next() as u32, cols: next() as u32, ld: next() as u32, rd: next() as u32 }).collect()
    } else {
        Vec::new()
    };
    Run { solutions, mismatches, spilled, prefixes }
}

/// The kernel's count of `plan` from at least `roots` roots expanded to at least `prefixes`
/// prefixes, checking that the expansion met the host's counts and that lanes that share
/// work count the same as lanes alone.
fn kernel_count(host: &Path, plan: &Plan, roots: usize, prefixes: usize) -> u64 {
    let base = prefix::expand(plan, roots);
    let deeper = prefix::deeper(plan, &base, prefixes);
    let stack = hopper_stack(plan, base.depth + deeper.extra);
    let [alone, sharing] = [Lanes::Alone, Lanes::Sharing].map(|lanes| run_kernel(host, plan, &base, &deeper, lanes, stack, false));
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
            let stack = hopper_stack(&plan, base.depth + deeper.extra);
            let run = run_kernel(host, &plan, &base, &deeper, lanes, stack, false);
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
        let stack = hopper_stack(&plan, base.depth + deeper.extra);
        let run = run_kernel(host, &plan, &base, &deeper, lanes, stack, false);
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
        let stack = hopper_stack(&plan, base.depth + deeper.extra);
        assert!(stack.window != 0, "n={n}: stacks this deep have a window");
        for lanes in [Lanes::Alone, Lanes::Sharing] {
            let run = run_kernel(host, &plan, &base, &deeper, lanes, stack, false);
            assert_eq!(run.solutions, want, "n={n}, {lanes:?}\n{}", board);
            assert!(run.spilled > 0, "n={n}, {lanes:?}: no entry left the window");
        }
    }
}

#[test]
fn stacks_partly_in_global_memory_count_as_whole_ones() {
    // Windows of 3 to 5 entries a thread (the first threads one more), on random boards
    // searched from shallow prefixes: entries go to global memory and back, and with
    // shared lanes, a lane gives away the bottom of its window while older entries wait in
    // global memory.
    let Some(host) = host("stacks_partly_in_global_memory_count_as_whole_ones") else { return };
    let mut rng = Rng::new(31);
    let (mut spilled, mut used) = (0, [0; 3]);
    for case in 0..60 {
        let n = rng.range(9, 13);
        let density = rng.range(0, 30) as f64 / 100.0;
        let board = random_board(&mut rng, n, density);
        let want = oracle(&board);
        let plan = [Plan::plain(&board), Plan::optimized(&board), Plan::optimized(&board).turned()][case % 3].clone();
        let (roots, prefixes) = [(1, 1), (1, 40), (10, 10), (1, 300)][case % 4];
        let base = prefix::expand(&plan, roots);
        let deeper = prefix::deeper(&plan, &base, prefixes);
        let depth = base.depth + deeper.extra;
        used[EntryPoint::for_plan(&plan, depth).number()] += 1;
        let (entries, wide) = [(3, 0), (3, 40), (4, 0), (5, 100)][case % 4];
        let stack = window_of(&plan, depth, entries, wide);
        let lanes = if case % 2 == 0 { Lanes::Alone } else { Lanes::Sharing };
        let run = run_kernel(host, &plan, &base, &deeper, lanes, stack, false);
        assert_eq!((run.solutions, run.mismatches), (want, 0), "case {case}: n={n}, {stack:?}, {lanes:?}\n{}", board);
        spilled += usize::from(run.spilled > 0);
    }
    assert!(spilled >= 30, "only {spilled} of 60 counts had entries in global memory");
    assert!(used.iter().all(|&u| u >= 5), "plans per entry point (plain, due, uniform): {used:?}");
}

#[test]
fn a_board_of_32_searched_from_its_first_row_keeps_most_of_its_stack_in_global_memory() {
    // A solution of the empty 32x32 board and a few random cells more in each row: a small
    // tree, but stacks of up to 29 rows, the deepest the kernel can be given.
    let Some(host) = host("a_board_of_32_searched_from_its_first_row_keeps_most_of_its_stack_in_global_memory") else { return };
    let solution = [0, 2, 4, 1, 3, 8, 10, 12, 14, 5, 17, 23, 25, 29, 24, 30, 27, 31, 26, 28, 15, 18, 9, 7, 16, 11, 20, 6, 13, 22, 19, 21];
    let mut rng = Rng::new(3);
    let extra: Vec<Vec<usize>> = (0..32).map(|_| (0..4).map(|_| rng.range(0, 31)).collect()).collect();
    let board = Board::from_fn(32, |r, c| c == solution[r] || extra[r].contains(&c)).unwrap();
    let plan = Plan::plain(&board);
    let want = count_plan(&plan, 1000);
    assert!(want >= 1);
    let base = prefix::expand(&plan, 1);
    let deeper = prefix::deeper(&plan, &base, 1);
    let depth = base.depth + deeper.extra;
    assert!(depth <= 1);
    for stack in [hopper_stack(&plan, depth), window_of(&plan, depth, 3, 64)] {
        assert!(stack.capacity >= 23, "{stack:?}");
        for lanes in [Lanes::Alone, Lanes::Sharing] {
            let run = run_kernel(host, &plan, &base, &deeper, lanes, stack, false);
            assert_eq!(run.solutions, want, "{stack:?}, {lanes:?}");
            assert!(run.spilled >= 8, "{stack:?}, {lanes:?}: at most {} entries in global memory", run.spilled);
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
        let run = run_kernel(host, &plan, &base, &deeper, Lanes::Alone, hopper_stack(&plan, base.depth + deeper.extra), true);
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
    let stack = hopper_stack(&plan, base.depth + deeper.extra);
    assert_eq!(run_kernel(host, &plan, &base, &deeper, Lanes::Alone, stack, false).mismatches, 2);
}
