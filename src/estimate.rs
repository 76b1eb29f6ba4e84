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

/// What a search that starts at row `row` of a count from row `from` does: the share of
/// the count's nodes at row `row` or below, and the nodes below each partial board it
/// starts from, over the boards `boards` (with due columns `due`), from `dives` dives from
/// the top of boards picked at random.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Below {
    pub share: f64,
    pub per_start: f64,
}

/// [`Below`] of row `row` in a count from row `from` (`from <= row`).
pub fn below(boards: &[Vec<u32>], due: &[Vec<u32>], from: usize, row: usize, dives: u32) -> Below {
    if boards.is_empty() {
        return Below { share: 1.0, per_start: 0.0 };
    }
    let mut d = Dives::new(SEED);
    let (mut all, mut below, mut starts) = (0.0, 0.0, if row == 0 { dives as f64 } else { 0.0 });
    for _ in 0..dives {
        let b = d.below(boards.len() as u64) as usize;
        d.dive_rows::<false>(&boards[b], due.get(b).map_or(&[], Vec::as_slice), Start::default(), 0, |r, width| {
            all += if r >= from { width } else { 0.0 };
            below += if r >= row { width } else { 0.0 };
            starts += if r + 1 == row { width } else { 0.0 };
        });
    }
    match all > 0.0 {
        true => Below { share: below / all, per_start: below / starts.max(1e-9) },
        false => Below { share: 1.0, per_start: 0.0 },
    }
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
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has just been seen to support both.
            return unsafe { self.dive_bmi2(rows, due, at, row) };
        }
        self.dive_total::<false>(rows, due, at, row)
    }

    /// [`Dives::dive`] compiled for BMI2, whose `pdep` picks the branch.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2,popcnt")]
    unsafe fn dive_bmi2(&mut self, rows: &[u32], due: &[u32], at: Start, row: usize) -> f64 {
        self.dive_total::<true>(rows, due, at, row)
    }

    /// A dive's total; `PDEP`: only where compiled for BMI2.
    #[inline(always)]
    fn dive_total<const PDEP: bool>(&mut self, rows: &[u32], due: &[u32], at: Start, row: usize) -> f64 {
        let mut total = 0.0;
        self.dive_rows::<PDEP>(rows, due, at, row, |_, width| total += width);
        total
    }

    /// The same dive, calling `seen(r, width)` with the product of the branching factors
    /// down to each row `r` it reaches: the nodes it stands for in that row.
    #[inline(always)]
    fn dive_rows<const PDEP: bool>(&mut self, rows: &[u32], due: &[u32], at: Start, row: usize, mut seen: impl FnMut(usize, f64)) {
        let mut width = 1.0;
        let Start { mut cols, mut ld, mut rd } = at;
        for (r, &free) in rows.iter().enumerate().skip(row) {
            let avail = next_cells(free, due.get(r).copied().unwrap_or(0), cols, ld, rd);
            let k = avail.count_ones();
            if k == 0 {
                break;
            }
            width *= k as f64;
            seen(r, width);
            let bit = nth_bit::<PDEP>(avail, self.0.below(k as u64) as u32);
            (cols, ld, rd) = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
        }
    }
}

/// The bit of `mask` with `n` set bits below it (`n` less than its set bits); `PDEP`: by
/// one `pdep`, only where the caller is compiled for BMI2.
#[inline(always)]
fn nth_bit<const PDEP: bool>(mask: u32, n: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if PDEP {
        // SAFETY: the caller is compiled for BMI2.
        return unsafe { std::arch::x86_64::_pdep_u32(1 << n, mask) };
    }
    let mut mask = mask;
    for _ in 0..n {
        mask &= mask - 1;
    }
    mask & mask.wrapping_neg()
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

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2")]
    unsafe fn pdep_nth_bit(mask: u32, n: u32) -> u32 {
        nth_bit::<true>(mask, n)
    }

    #[test]
    fn the_nth_bit_is_the_one_with_n_below_it() {
        let mut rng = Rng::new(5);
        for _ in 0..10_000 {
            let mask = rng.next_u64() as u32 | 1;
            let n = rng.below(u64::from(mask.count_ones())) as u32;
            let bit = nth_bit::<false>(mask, n);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("bmi2") {
                // SAFETY: the CPU has just been seen to support BMI2.
                assert_eq!(unsafe { pdep_nth_bit(mask, n) }, bit);
            }
            assert_eq!((bit.count_ones(), mask & bit, (mask & (bit - 1)).count_ones()), (1, bit, n), "{mask:b} {n}");
        }
    }

    #[test]
    fn the_estimate_is_close_to_the_exact_size_and_repeats() {
        let board = Board::from_fn(11, |r, c| (r * 7 + c * 3) % 10 != 0).unwrap();
        let want = exact(board.rows(), Start::default(), 0);
        let got = tree(board.rows(), 4096);
        assert!((got / want - 1.0).abs() < 0.2, "estimate {got} against {want}");
        assert_eq!(got, tree(board.rows(), 4096));
    }

    /// The exact number of nodes in each row of the board `rows`.
    fn exact_by_row(rows: &[u32], at: Start, row: usize, by_row: &mut [f64]) {
        let mut avail = next_cells(rows.get(row).copied().unwrap_or(0), 0, at.cols, at.ld, at.rd);
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            by_row[row] += 1.0;
            exact_by_row(rows, Start { cols: at.cols | bit, ld: (at.ld | bit) << 1, rd: (at.rd | bit) >> 1 }, row + 1, by_row);
        }
    }

    #[test]
    fn what_lies_below_a_row_is_close_to_the_exact_count() {
        let boards: Vec<Vec<u32>> =
            [3, 5].iter().map(|&k| Board::from_fn(11, |r, c| (r * k + c * 3) % 10 != 0).unwrap().rows().to_vec()).collect();
        let mut by_row = vec![0.0; 12];
        boards.iter().for_each(|b| exact_by_row(b, Start::default(), 0, &mut by_row));
        for (from, row) in [(0, 5), (2, 6), (3, 9)] {
            let want = by_row[row..].iter().sum::<f64>() / by_row[from..].iter().sum::<f64>();
            let got = below(&boards, &[], from, row, 4096);
            assert!((got.share - want).abs() < 0.05, "rows {from} and {row}: estimate {got:?} against {want}");
            let per_start = by_row[row..].iter().sum::<f64>() / by_row[row - 1];
            assert!((got.per_start / per_start - 1.0).abs() < 0.2, "rows {from} and {row}: estimate {got:?} against {per_start}");
        }
        assert_eq!(below(&boards, &[], 0, 0, 64).share, 1.0);
        assert_eq!(below(&[], &[], 0, 3, 64).per_start, 0.0);
    }
}
