//! Counting with symmetry gives the oracle's count on boards symmetric under each of the
//! ten subgroups of the square's symmetries, and on near misses.

use crate::common::{a000170, count_cpu, count_plan, oracle, symmetric_board, Rng};
use nqueen::board::Board;
use nqueen::plan::Plan;
use nqueen::symmetry::{frame_split, invariant_group, Sym};
use Sym::*;

/// The ten subgroups of the dihedral group of the square, by name.
fn subgroups() -> Vec<(&'static str, Vec<Sym>)> {
    vec![
        ("trivial", vec![Identity]),
        ("half turn", vec![Identity, Rot180]),
        ("column mirror", vec![Identity, FlipColumns]),
        ("row mirror", vec![Identity, FlipRows]),
        ("main diagonal mirror", vec![Identity, Transpose]),
        ("anti-diagonal mirror", vec![Identity, AntiTranspose]),
        ("quarter turns (C4)", vec![Identity, Rot90, Rot180, Rot270]),
        ("both axis mirrors", vec![Identity, FlipColumns, FlipRows, Rot180]),
        ("both diagonal mirrors", vec![Identity, Transpose, AntiTranspose, Rot180]),
        ("all eight (D4)", Sym::ALL.to_vec()),
    ]
}

#[test]
fn every_subgroup_counts_like_the_oracle_and_like_no_symmetry() {
    let mut rng = Rng::new(2024);
    for (name, group) in subgroups() {
        let mut exact = 0;
        for round in 0..40 {
            let n = rng.range(4, 12);
            // Sparse boards keep the oracle quick on the larger sides.
            let density = if n > 9 { 0.04 * rng.range(1, 3) as f64 } else { 0.05 * rng.range(0, 6) as f64 };
            let board = symmetric_board(&mut rng, n, &group, density);
            let found = invariant_group(&board);
            assert!(group.iter().all(|g| found.contains(g)), "{name}: lost a symmetry");
            exact += usize::from(found.len() == group.len());
            let want = oracle(&board);
            // The split under this subgroup itself (which the planner may not choose).
            let split = frame_split(&board, &group);
            let boards = split.iter().map(|w| w.board.rows().to_vec()).collect();
            let plan = Plan::new(n, boards, split.iter().map(|w| w.weight).collect(), Identity, group.clone());
            assert_eq!(count_plan(&plan, 1 + round * 7), want, "{name}, round {round}, split:\n{}", board);
            // Every orientation, each with the planner's split forced whatever the tree size,
            // as split and with each board turned on its own.
            for orientation in Sym::ALL {
                let plan = Plan::symmetric(&board, orientation);
                assert_eq!(
                    count_plan(&plan.clone().turned(), 1 + round * 7),
                    want,
                    "{name}, round {round}, {orientation:?}, turned:\n{}",
                    board
                );
                assert_eq!(count_plan(&plan, 1 + round * 7), want, "{name}, round {round}, {orientation:?}:\n{}", board);
            }
            assert_eq!(count_cpu(&board, false), want, "{name}, round {round}:\n{}", board);
            assert_eq!(count_cpu(&board, true), want, "{name}, round {round}, no symmetry");

            // A near miss: one cell flipped usually breaks the symmetry.
            let (fr, fc) = (rng.range(0, n - 1), rng.range(0, n - 1));
            let near = Board::from_fn(n, |r, c| board.is_free(r, c) != ((r, c) == (fr, fc))).unwrap();
            let want = oracle(&near);
            assert_eq!(count_plan(&Plan::symmetric(&near, Identity), 50), want, "{name}, round {round}, near miss:\n{}", near);
            assert_eq!(count_cpu(&near, false), want, "{name}, round {round}, near miss");
        }
        assert!(exact > 0, "{name}: no board had exactly this group, so it was never exercised");
    }
}

#[test]
fn empty_boards_have_all_eight_and_count_right() {
    let a000170 = a000170();
    for n in 1..=12 {
        let b = Board::empty(n).unwrap();
        assert_eq!(invariant_group(&b).len(), 8);
        assert_eq!(count_plan(&Plan::symmetric(&b, Identity), 100), a000170[n - 1], "n={n}");
        assert_eq!(count_plan(&Plan::symmetric(&b, Identity).turned(), 100), a000170[n - 1], "n={n}, turned");
        assert_eq!(count_cpu(&b, false), a000170[n - 1], "n={n}");
    }
}
