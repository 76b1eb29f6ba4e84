//! Knuth's estimate of a search tree's size: the mean, over random root-to-leaf dives, of
//! the sum of the products of the branching factors met. Planning compares orientations
//! and boards by it, the GPU sizes its prefixes by it, and shards are balanced by it.
//! Every dive sequence starts from a fixed seed, so that estimates compare fairly and
//! every machine makes the same plan.

use crate::board::next_cells;
use crate::rng::Rng;

/// The seed every estimate starts from.
const SEED: u64 = 1;

/// The estimated nodes of the whole search tree of the board `rows`, from `dives` dives.
pub fn tree(rows: &[u32], dives: u32) -> f64 {
    let mut d = Dives::new(SEED);
    (0..dives).map(|_| d.dive(rows, &[], Start::default(), 0)).sum::<f64>() / dives as f64
}

/// Where a dive begins: the columns taken and the diagonals attacking row `row`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Start {
    pub cols: u32,
    pub ld: u32,
    pub rd: u32,
}

/// Random dives down search trees, drawing from one seeded sequence.
pub struct Dives(Rng);

impl Dives {
    /// Dives whose choices follow the sequence of `seed`.
    pub fn new(seed: u64) -> Dives {
        Dives(Rng::new(seed))
    }

    /// A number in `0..k`, from the same sequence (to pick where to dive from).
    pub fn below(&mut self, k: u64) -> u64 {
        self.0.below(k)
    }

    /// One dive from `at` (row `row` of the board `rows`, with due columns `due` if any) to
    /// a leaf, taking a random branch at each row: the sum of the products of the branching
    /// factors met.
    pub fn dive(&mut self, rows: &[u32], due: &[u32], at: Start, row: usize) -> f64 {
        let (mut total, mut width) = (0.0, 1.0);
        let Start { mut cols, mut ld, mut rd } = at;
        for (r, &free) in rows.iter().enumerate().skip(row) {
            let mut avail = next_cells(free, due.get(r).copied().unwrap_or(0), cols, ld, rd);
            let k = avail.count_ones();
            if k == 0 {
                break;
            }
            width *= k as f64;
            total += width;
            for _ in 0..self.0.below(k as u64) {
                avail &= avail - 1;
            }
            let bit = avail & avail.wrapping_neg();
            (cols, ld, rd) = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    /// The exact number of nodes below `at` at row `row` of `rows`.
    fn exact(rows: &[u32], at: Start, row: usize) -> f64 {
        let mut avail = next_cells(rows.get(row).copied().unwrap_or(0), 0, at.cols, at.ld, at.rd);
        let mut total = 0.0;
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            let below = Start { cols: at.cols | bit, ld: (at.ld | bit) << 1, rd: (at.rd | bit) >> 1 };
            total += 1.0 + exact(rows, below, row + 1);
        }
        total
    }

    #[test]
    fn the_estimate_is_close_to_the_exact_size_and_repeats() {
        let board = Board::from_fn(11, |r, c| (r * 7 + c * 3) % 10 != 0).unwrap();
        let want = exact(board.rows(), Start::default(), 0);
        let got = tree(board.rows(), 4096);
        assert!((got / want - 1.0).abs() < 0.2, "estimate {got} against {want}");
        assert_eq!(got, tree(board.rows(), 4096));
    }
}
