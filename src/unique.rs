//! Unique solutions: those distinct under the symmetries the board itself keeps (the
//! subgroup of the square's eight that maps its obstacles onto themselves). For an empty
//! board this is OEIS A002562.
//!
//! By Burnside's lemma, the number of classes is the mean over the group of the solutions
//! each symmetry leaves in place: `(total + sum of fixed(g) for g != identity) / |G|`. The
//! total is the count itself; a solution left in place by a rotation is found by a search
//! that places each queen with all its images at once, over a quarter or half of the rows,
//! so this costs little beside the count. (A mirror leaves no solution of n > 1 in place:
//! a queen and its mirror image attack each other, or all queens sit on the mirror line.)

use rayon::prelude::*;

use crate::board::Board;
use crate::symmetry::{invariant_group, Sym};

/// What the board's symmetries add to its unique count: the group's size, and the
/// solutions each symmetry but the identity leaves in place, summed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fixed {
    pub group: usize,
    pub solutions: u128,
}

impl Fixed {
    /// The unique count of a board of `total` solutions: `None` if the counts do not
    /// divide (or add up past 2^128 - 1), which would mean one of them is wrong.
    pub fn unique(self, total: u128) -> Option<u128> {
        let sum = total.checked_add(self.solutions)?;
        let group = self.group as u128;
        sum.is_multiple_of(group).then_some(sum / group)
    }
}

/// Why a unique count failed its check: the total and the fixed solutions do not add up to
/// whole classes, so one of them is wrong.
pub fn mismatch() -> String {
    "the count does not split into whole classes of solutions under the board's symmetries, \
     so it is wrong (a fault of the device or a bug in nqueen)"
        .to_string()
}

/// The group of `board` and the solutions its symmetries other than the identity fix.
pub fn fixed(board: &Board) -> Fixed {
    let group = invariant_group(board);
    let solutions = group.iter().filter(|&&g| g != Sym::Identity).map(|&g| fixed_by(board, g)).sum();
    Fixed { group: group.len(), solutions }
}

/// The solutions of `board` that `g` maps onto themselves.
pub fn fixed_by(board: &Board, g: Sym) -> u128 {
    let n = board.n();
    let search = Search { board, g, n };
    let first: Vec<usize> = (0..n).filter(|&c| board.is_free(0, c)).collect();
    // The first row's choices are independent: search them side by side.
    first
        .par_iter()
        .map(|&c| {
            let mut state = State { rows: vec![None; n], cols: 0, d1: 0, d2: 0 };
            match search.orbit_fits(&state, 0, c) {
                Some(orbit) => {
                    state.place(orbit.cells(), n);
                    search.count(&mut state, 1)
                }
                None => 0,
            }
        })
        .sum()
}

/// Queens placed so far: each row's column, and the columns and diagonals taken.
struct State {
    rows: Vec<Option<usize>>,
    cols: u32,
    /// Diagonals r + c.
    d1: u64,
    /// Diagonals r - c + n - 1.
    d2: u64,
}

impl State {
    fn place(&mut self, cells: &[(usize, usize)], n: usize) {
        for &(r, c) in cells {
            self.rows[r] = Some(c);
            self.cols |= 1 << c;
            self.d1 |= 1 << (r + c);
            self.d2 |= 1 << (r + n - 1 - c);
        }
    }

    fn remove(&mut self, cells: &[(usize, usize)], n: usize) {
        for &(r, c) in cells {
            self.rows[r] = None;
            self.cols &= !(1 << c);
            self.d1 &= !(1 << (r + c));
            self.d2 &= !(1 << (r + n - 1 - c));
        }
    }
}

/// A search for the solutions `g` fixes: a queen goes down with all its images.
struct Search<'a> {
    board: &'a Board,
    g: Sym,
    n: usize,
}

impl Search<'_> {
    /// Solutions completing `state` from row `row` on.
    fn count(&self, state: &mut State, row: usize) -> u128 {
        let Some(row) = (row..self.n).find(|&r| state.rows[r].is_none()) else { return 1 };
        let mut total = 0;
        for c in 0..self.n {
            if let Some(orbit) = self.orbit_fits(state, row, c) {
                state.place(orbit.cells(), self.n);
                total += self.count(state, row + 1);
                state.remove(orbit.cells(), self.n);
            }
        }
        total
    }

    /// The cells of the orbit of (r, c) under `g`, if a queen can stand on each of them at
    /// once beside the queens of `state`: all free, none attacked, none attacking another.
    fn orbit_fits(&self, state: &State, r: usize, c: usize) -> Option<Orbit> {
        let n = self.n;
        let mut orbit = Orbit { cells: [(r, c); 4], len: 1 };
        let mut at = self.g.apply(n, r, c);
        while at != (r, c) {
            orbit.cells[orbit.len] = at;
            orbit.len += 1;
            at = self.g.apply(n, at.0, at.1);
        }
        let cells = orbit.cells();
        for (i, &(r, c)) in cells.iter().enumerate() {
            let taken = state.cols >> c & 1 == 1 || state.d1 >> (r + c) & 1 == 1 || state.d2 >> (r + n - 1 - c) & 1 == 1;
            if !self.board.is_free(r, c) || state.rows[r].is_some() || taken {
                return None;
            }
            let attacks = |&(r2, c2): &(usize, usize)| r == r2 || c == c2 || r.abs_diff(r2) == c.abs_diff(c2);
            if cells[..i].iter().any(attacks) {
                return None;
            }
        }
        Some(orbit)
    }
}

/// A cell and its images under a symmetry: at most four, the order of a quarter turn.
#[derive(Clone, Copy)]
struct Orbit {
    cells: [(usize, usize); 4],
    len: usize,
}

impl Orbit {
    fn cells(&self) -> &[(usize, usize)] {
        &self.cells[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_boards_give_a002562() {
        // OEIS A002562 for n = 1..12 (the integration tests go further).
        let want = [1u128, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787];
        let totals = [1u128, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200];
        for n in 1..=12 {
            let f = fixed(&Board::empty(n).unwrap());
            assert_eq!(f.group, 8);
            assert_eq!(f.unique(totals[n - 1]), Some(want[n - 1]), "n={n}");
        }
    }

    #[test]
    fn mirrors_fix_no_solution_of_more_than_one_queen() {
        for g in [Sym::FlipColumns, Sym::FlipRows, Sym::Transpose, Sym::AntiTranspose] {
            assert_eq!(fixed_by(&Board::empty(1).unwrap(), g), 1);
            for n in 2..=9 {
                assert_eq!(fixed_by(&Board::empty(n).unwrap(), g), 0, "{g:?} n={n}");
            }
        }
        // Empty 8x8: one class of four solutions keeps the half turn, none the quarter turn.
        let b = Board::empty(8).unwrap();
        assert_eq!((fixed_by(&b, Sym::Rot180), fixed_by(&b, Sym::Rot90)), (4, 0));
    }

    #[test]
    fn counts_that_do_not_divide_are_caught() {
        assert_eq!(Fixed { group: 8, solutions: 4 }.unique(92), Some(12));
        assert_eq!(Fixed { group: 8, solutions: 4 }.unique(93), None);
        assert_eq!(Fixed { group: 1, solutions: 0 }.unique(7), Some(7));
    }
}
