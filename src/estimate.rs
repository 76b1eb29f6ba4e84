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

/// Knuth's estimate of the nodes in each row of the board `rows` (with due columns `due`
/// if any): entry `r` is the expected number of queens the search places in row `r`, from
/// `dives` dives.
pub fn per_row(rows: &[u32], due: &[u32], dives: u32) -> Vec<f64> {
    let mut d = Dives::new(SEED);
    let mut sums = vec![0.0; rows.len()];
    for _ in 0..dives {
        d.dive_rows(rows, due, |r, width| sums[r] += width);
    }
    sums.iter_mut().for_each(|s| *s /= f64::from(dives.max(1)));
    sums
}

/// The search nodes in each row below `starts` (partial boards at row `row` of one board),
/// from `dives` dives each from one of them picked at random: what [`per_row`] gives for the
/// whole tree, for a part of it.
pub fn per_row_below(rows: &[u32], due: &[u32], row: usize, starts: &[Start], dives: u32) -> Vec<f64> {
    let mut sums = vec![0.0; rows.len()];
    if starts.is_empty() {
        return sums;
    }
    let mut d = Dives::new(SEED);
    for _ in 0..dives {
        let at = starts[d.below(starts.len() as u64) as usize];
        d.dive_from(rows, due, at, row, |r, width| sums[r] += width);
    }
    let scale = starts.len() as f64 / f64::from(dives.max(1));
    sums.iter_mut().for_each(|s| *s *= scale);
    sums
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
        let mut total = 0.0;
        self.dive_from(rows, due, at, row, |_, width| total += width);
        total
    }

    /// One dive from the top of `rows`, calling `seen(r, width)` with the product of the
    /// branching factors down to each row `r` it reaches.
    fn dive_rows(&mut self, rows: &[u32], due: &[u32], seen: impl FnMut(usize, f64)) {
        self.dive_from(rows, due, Start::default(), 0, seen)
    }

    fn dive_from(&mut self, rows: &[u32], due: &[u32], at: Start, row: usize, mut seen: impl FnMut(usize, f64)) {
        let mut width = 1.0;
        let Start { mut cols, mut ld, mut rd } = at;
        for (r, &free) in rows.iter().enumerate().skip(row) {
            let mut avail = next_cells(free, due.get(r).copied().unwrap_or(0), cols, ld, rd);
            let k = avail.count_ones();
            if k == 0 {
                break;
            }
            width *= k as f64;
            seen(r, width);
            for _ in 0..self.0.below(k as u64) {
                avail &= avail - 1;
            }
            let bit = avail & avail.wrapping_neg();
            (cols, ld, rd) = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
        }
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
    fn the_estimate_below_a_part_is_close_to_the_part_exact_size() {
        let board = Board::from_fn(12, |r, c| (r * 5 + c * 3) % 11 != 0).unwrap();
        let rows = board.rows();
        let mut starts = Vec::new();
        let mut first = next_cells(rows[0], 0, 0, 0, 0);
        while first != 0 {
            let bit = first & first.wrapping_neg();
            first ^= bit;
            let mut second = next_cells(rows[1], 0, bit, bit << 1, bit >> 1);
            while second != 0 {
                let b = second & second.wrapping_neg();
                second ^= b;
                starts.push(Start { cols: bit | b, ld: ((bit << 1) | b) << 1, rd: ((bit >> 1) | b) >> 1 });
            }
        }
        let part = &starts[..starts.len() / 3];
        let want: f64 = part.iter().map(|&at| exact(rows, at, 2)).sum();
        let got: f64 = per_row_below(rows, &[], 2, part, 8192).iter().sum();
        assert!((got / want - 1.0).abs() < 0.2, "estimate {got} against {want}");
        assert!(per_row_below(rows, &[], 2, &[], 64).iter().all(|&r| r == 0.0));
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
