//! The solver against the oracle on random boards, and against OEIS on empty ones.

use crate::common::{a000170, count_cpu, count_plan, oracle, random_board, Rng};
use nqueen::board::Board;
use nqueen::control::Control;
use nqueen::cpu::{self, Schedule};
use nqueen::plan::Plan;
use nqueen::prefix;
use proptest::prelude::*;

fn board_strategy() -> impl Strategy<Value = Board> {
    (1usize..=10, 0u32..=60, any::<u64>()).prop_map(|(n, percent, seed)| random_board(&mut Rng::new(seed), n, percent as f64 / 100.0))
}

/// A solution of the empty `n` board, found by a depth-first search that tries columns in
/// random order and starts again when it wanders too long.
fn random_solution(rng: &mut Rng, n: usize) -> Vec<usize> {
    fn place(rng: &mut Rng, n: usize, cols: &mut Vec<usize>, budget: &mut u32) -> bool {
        if cols.len() == n {
            return true;
        }
        let r = cols.len();
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, rng.range(0, i));
        }
        for c in order {
            let safe = cols.iter().enumerate().all(|(r2, &c2)| c2 != c && r - r2 != c.abs_diff(c2));
            if safe && *budget > 0 {
                *budget -= 1;
                cols.push(c);
                if place(rng, n, cols, budget) {
                    return true;
                }
                cols.pop();
            }
        }
        false
    }
    loop {
        let mut cols = Vec::with_capacity(n);
        if place(rng, n, &mut cols, &mut 100_000) {
            return cols;
        }
    }
}

#[test]
fn large_boards_with_a_planted_solution_match_the_oracle() {
    // Boards of 20..32 with a known solution's cells and 15% of the others free: the oracle
    // stays quick (a few seconds in all; at 20% it took minutes), and the count is at least
    // 1, so masks of every width up to 32 are checked on boards that have solutions.
    let mut rng = Rng::new(32);
    for n in 20..=32 {
        let solution = random_solution(&mut rng, n);
        let board = Board::from_fn(n, |r, c| solution[r] == c || rng.chance(0.15)).unwrap();
        let want = oracle(&board);
        assert!(want >= 1, "n={n}: the planted solution was not counted");
        assert_eq!(count_cpu(&board, false), want, "n={n}\n{}", board);
        assert_eq!(count_cpu(&board, true), want, "n={n}, no symmetry\n{}", board);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn matches_oracle_on_random_boards(board in board_strategy()) {
        let want = oracle(&board);
        prop_assert_eq!(count_cpu(&board, false), want, "{}", board);
        prop_assert_eq!(count_cpu(&board, true), want, "{}", board);
    }

    #[test]
    fn matches_oracle_at_every_expansion_depth_and_schedule(board in board_strategy(), min in 1usize..200) {
        let want = oracle(&board);
        for plan in [Plan::plain(&board), Plan::optimized(&board)] {
            let prefixes = prefix::expand(&plan, min);
            for schedule in [Schedule::Dynamic, Schedule::Static] {
                let got = cpu::count(&plan, &prefixes, &[], schedule, &Control::default()).unwrap().solutions;
                prop_assert_eq!(got, u128::from(want), "min={} {:?}\n{}", min, schedule, board);
            }
        }
    }
}

#[test]
fn matches_oracle_with_whole_rows_or_columns_blocked() {
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        let n = rng.range(1, 10);
        let line = rng.range(0, n - 1);
        let by_row = rng.chance(0.5);
        let density = rng.range(0, 30) as f64 / 100.0;
        let base = random_board(&mut rng, n, density);
        let board = Board::from_fn(n, |r, c| base.is_free(r, c) && if by_row { r != line } else { c != line }).unwrap();
        assert_eq!(count_cpu(&board, false), 0, "{}", board);
        assert_eq!(oracle(&board), 0);
    }
    // One free cell per line still allows solutions: a blocked line is what forces zero.
    let diagonal_only = Board::from_fn(4, |r, c| [(0, 1), (1, 3), (2, 0), (3, 2)].contains(&(r, c))).unwrap();
    assert_eq!(count_cpu(&diagonal_only, false), 1);
}

#[test]
fn empty_boards_match_oeis_a000170() {
    let a000170 = a000170();
    for n in 1..=14 {
        let board = Board::empty(n).unwrap();
        assert_eq!(count_cpu(&board, false), a000170[n - 1], "n={n} with symmetry");
        assert_eq!(count_cpu(&board, true), a000170[n - 1], "n={n} without symmetry");
    }
    // The oracle itself agrees with OEIS where it is fast enough to ask.
    for n in 1..=8 {
        assert_eq!(oracle(&Board::empty(n).unwrap()), a000170[n - 1]);
    }
}

#[test]
fn every_cpu_search_the_program_offers_matches_oeis_a000170() {
    // As users run it: each search `NQUEEN_CPU_SEARCH` picks (where this CPU lacks one, the
    // widest it has, again), on boards whose split's prefixes end a few rows from the
    // bottom, where two boards fit a table of eight lanes.
    let a000170 = a000170();
    let text: String = (1..=14).map(|n| Board::empty(n).unwrap().to_string()).collect();
    let want: String = (1..=14).map(|n| format!("Case {n}: {}\n", a000170[n - 1])).collect();
    for search in ["avx512", "avx2", "scalar"] {
        let out = assert_cmd::Command::cargo_bin("nqueen")
            .unwrap()
            .env("NQUEEN_CPU_SEARCH", search)
            .args(["--backend", "cpu"])
            .write_stdin(text.clone())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "NQUEEN_CPU_SEARCH={search}");
    }
}

#[test]
fn empty_boards_match_oeis_a000170_at_every_expansion_depth() {
    let a000170 = a000170();
    for n in 1..=10 {
        let plan = Plan::plain(&Board::empty(n).unwrap());
        for min in [1, 5, 50, 1_000_000] {
            assert_eq!(count_plan(&plan, min), a000170[n - 1], "n={n} min={min}");
        }
    }
}

#[test]
fn empty_boards_15_and_16_match_oeis_a000170_with_symmetry() {
    let a000170 = a000170();
    for n in 15..=16 {
        assert_eq!(count_cpu(&Board::empty(n).unwrap(), false), a000170[n - 1], "n={n}");
    }
}

#[test]
fn files_of_many_boards_of_one_size_are_sieved_and_match_the_oracle() {
    // Enough boards of 11x11 and 12x12 that a sieve pays for each side, with 0 to 40%
    // obstacles; their sieved counts against the oracle, and against the search alone.
    let mut rng = Rng::new(1112);
    let boards: Vec<Board> = (0..60)
        .map(|i| {
            let density = rng.range(0, 40) as f64 / 100.0;
            random_board(&mut rng, 11 + i % 2, density)
        })
        .collect();
    let text: String = boards.iter().map(|b| b.to_string()).collect();
    let want: String = boards.iter().enumerate().map(|(i, b)| format!("Case {}: {}\n", i + 1, oracle(b))).collect();
    for (args, off) in [(&["--stats"][..], ""), (&["--stats", "--threads", "1"][..], ""), (&["--stats"][..], "off")] {
        let sieved = off.is_empty();
        let mut nqueen = assert_cmd::Command::cargo_bin("nqueen").unwrap();
        let out = nqueen.args(args).env("NQUEEN_SIEVE", off).write_stdin(text.clone()).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{args:?}");
        let stats = String::from_utf8_lossy(&out.stderr);
        let by_sieve = stats.lines().filter(|l| l.contains("backend=cpu(sieve")).count();
        let made = stats.lines().filter(|l| l.contains("sieve-made=")).count();
        if sieved {
            assert!(by_sieve >= 20 && made == 2, "{args:?}: {by_sieve} cases sieved, {made} sieves made\n{stats}");
        } else {
            assert_eq!(by_sieve, 0, "{args:?}\n{stats}");
        }
    }
}
