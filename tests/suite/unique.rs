//! Unique solutions (`--unique`, `nqueen table`): against an oracle that finds every solution
//! and counts its orbits under the board's symmetries the slow, obvious way, and against
//! OEIS A002562.

use std::collections::HashSet;

use assert_cmd::Command;
use nqueen::board::Board;
use nqueen::control::Control;
use nqueen::solve::{Backend, Options, Solver};
use nqueen::symmetry::{invariant_group, Sym};
use nqueen::unique;
use predicates::prelude::*;
use proptest::prelude::*;

use crate::common::{a000170, oeis, random_board, symmetric_board, Rng};

/// OEIS A002562: unique solutions on an empty n×n board, `a002562()[n - 1]`.
fn a002562() -> Vec<u64> {
    oeis(include_str!("../../fixtures/oeis/A002562.txt"))
}

/// Every solution of `board`, as each row's queen column.
fn solutions(board: &Board) -> Vec<Vec<usize>> {
    fn place(b: &Board, cols: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        let r = cols.len();
        if r == b.n() {
            out.push(cols.clone());
            return;
        }
        for c in 0..b.n() {
            let safe = cols.iter().enumerate().all(|(r2, &c2)| c2 != c && r - r2 != c.abs_diff(c2));
            if b.is_free(r, c) && safe {
                cols.push(c);
                place(b, cols, out);
                cols.pop();
            }
        }
    }
    let mut out = Vec::new();
    place(board, &mut Vec::new(), &mut out);
    out
}

/// The oracle's unique count: each solution's orbit under the board's group, named by its
/// smallest member (as a sorted list of queen cells), and the names counted.
fn unique_oracle(board: &Board) -> u64 {
    let n = board.n();
    let group = invariant_group(board);
    let classes: HashSet<Vec<(usize, usize)>> = solutions(board)
        .into_iter()
        .map(|s| {
            group
                .iter()
                .map(|g| {
                    let mut cells: Vec<(usize, usize)> = s.iter().enumerate().map(|(r, &c)| g.apply(n, r, c)).collect();
                    cells.sort_unstable();
                    cells
                })
                .min()
                .expect("a group holds the identity")
        })
        .collect();
    classes.len() as u64
}

/// The unique count through the library, with or without the symmetry split.
fn unique_count(board: &Board, no_symmetry: bool) -> u128 {
    let mut solver = Solver::new(Options { backend: Backend::Cpu, no_symmetry, ..Options::default() });
    let total = solver.solve(board, false, &Control::default()).expect("not cancelled").count;
    unique::fixed(board).unique(total).expect("whole classes")
}

#[test]
fn empty_boards_match_oeis_a002562() {
    let want = a002562();
    for n in 1..=12 {
        let board = Board::empty(n).unwrap();
        assert_eq!(unique_oracle(&board), want[n - 1], "the oracle, n={n}");
    }
    for n in 1..=16 {
        let board = Board::empty(n).unwrap();
        assert_eq!(unique_count(&board, false), u128::from(want[n - 1]), "n={n}");
    }
    for n in 1..=12 {
        assert_eq!(unique_count(&Board::empty(n).unwrap(), true), u128::from(want[n - 1]), "n={n}, no symmetry");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn matches_the_orbit_oracle_on_symmetric_and_near_symmetric_boards(seed in any::<u64>(), which in 0usize..10, flip in any::<bool>()) {
        use Sym::*;
        let groups: [&[Sym]; 10] = [
            &[Identity], &[Identity, Rot180], &[Identity, FlipColumns], &[Identity, FlipRows], &[Identity, Transpose],
            &[Identity, AntiTranspose], &[Identity, Rot90, Rot180, Rot270], &[Identity, FlipColumns, FlipRows, Rot180],
            &[Identity, Transpose, AntiTranspose, Rot180], &Sym::ALL,
        ];
        let mut rng = Rng::new(seed);
        let n = rng.range(1, 9);
        let density = 0.05 * rng.range(0, 5) as f64;
        let mut board = symmetric_board(&mut rng, n, groups[which], density);
        if flip {
            // A near miss: one cell flipped usually breaks a symmetry.
            let (fr, fc) = (rng.range(0, n - 1), rng.range(0, n - 1));
            board = Board::from_fn(n, |r, c| board.is_free(r, c) != ((r, c) == (fr, fc))).unwrap();
        }
        let want = u128::from(unique_oracle(&board));
        prop_assert_eq!(unique_count(&board, false), want, "{}", board);
        prop_assert_eq!(unique_count(&board, true), want, "no symmetry\n{}", board);
    }
}

#[test]
fn a_random_board_without_symmetry_has_as_many_unique_solutions_as_solutions() {
    let mut rng = Rng::new(9);
    let board = random_board(&mut rng, 9, 0.2);
    assert_eq!(invariant_group(&board).len(), 1, "{}", board);
    assert_eq!(unique_count(&board, false), u128::from(crate::common::oracle(&board)));
}

#[test]
fn the_table_gives_both_sequences_and_rejects_bad_ranges() {
    let out = Command::cargo_bin("nqueen").unwrap().args(["table", "4..16"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next().map(|h| h.split_whitespace().collect::<Vec<_>>()), Some(vec!["n", "total", "unique", "seconds"]));
    let (totals, uniques) = (a000170(), a002562());
    let rows: Vec<Vec<String>> = lines.map(|l| l.split_whitespace().map(String::from).collect()).collect();
    assert_eq!(rows.len(), 13);
    for (row, n) in rows.iter().zip(4..) {
        assert_eq!(row[..3], [n.to_string(), totals[n - 1].to_string(), uniques[n - 1].to_string()]);
        assert!(row[3].parse::<f64>().is_ok());
    }
    // The columns line up.
    assert_eq!(text.lines().map(str::len).collect::<HashSet<_>>().len(), 1, "{text}");
    for bad in ["0..5", "9..4", "x", "4..33"] {
        Command::cargo_bin("nqueen").unwrap().args(["table", bad]).assert().code(2).stderr(predicate::str::contains("A..B"));
    }
    Command::cargo_bin("nqueen").unwrap().args(["table", "4..5", "fixtures/sample.in"]).assert().code(2);
}

#[test]
fn unique_counts_survive_shards_and_a_merge() {
    let dir = tempfile::tempdir().unwrap();
    let plain = Command::cargo_bin("nqueen").unwrap().args(["--unique", "fixtures/empty_1_16.in"]).output().unwrap();
    assert!(String::from_utf8_lossy(&plain.stdout).contains("Case 8: 92 (unique 12)"));
    let parts: Vec<_> = (0..3)
        .map(|k| {
            let part = dir.path().join(format!("{k}.jsonl"));
            let out = Command::cargo_bin("nqueen")
                .unwrap()
                .args(["--unique", "--shard", &format!("{k}/3"), "fixtures/empty_1_16.in"])
                .output()
                .unwrap();
            std::fs::write(&part, out.stdout).unwrap();
            part
        })
        .collect();
    Command::cargo_bin("nqueen").unwrap().arg("merge").args(&parts).assert().success().stdout(plain.stdout);
}
