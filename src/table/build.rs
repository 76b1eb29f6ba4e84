//! The placements of a band's queens that use exactly a given set of columns. The bottom
//! rows' placements are found from the bottom row up: those of the rows below a row, for
//! each set of the columns left, extended by a queen in that row, and kept in a memo for
//! the next column sets of the same band, so that each is found once per builder. The top
//! rows, whose sets would not fit the memo, are searched, and each of their placements is
//! joined with the memo's placements of the rows below in the columns it leaves.
//!
//! A placement is kept as its two diagonal signatures (see [`super::Entry`]), relative to
//! the band's top row; going up a row moves every queen's down-right diagonal one column
//! left (`l >> 1`) and its down-left diagonal one right (`r << 1`).

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

use std::ops::Range;

use super::rank::{binom, Ranks};
use super::Entry;
use crate::isa::Isa;

/// Where the one placement of no rows lies in the arena: at its start.
const EMPTY: Range<usize> = 0..1;

/// One memo slot: the builder's generation that filled it, and where its placements lie.
#[derive(Clone, Copy, Default)]
struct Slot {
    generation: u32,
    start: u32,
    len: u32,
}

/// Finds the placements of one band's rows at a time, keeping the sets below in a memo
/// (one per thread: it is not shared).
pub struct Builder {
    n: usize,
    k: usize,
    ranks: Ranks,
    /// Per number of rows `s` in `1..k`, a slot per set of `s` columns (by rank).
    memo: Vec<Vec<Slot>>,
    /// The current generation: slots of another were filled for another band, or before
    /// the arena was emptied.
    generation: u32,
    /// The band the memo holds, by the caller's name for it.
    band: Option<u32>,
    /// The placements of the memo's sets.
    arena: Vec<Entry>,
    /// Placements the arena may hold before it is emptied at the next column set.
    cap: usize,
    /// The rows of the band at the top that are searched, not kept in the memo.
    searched: usize,
    filter: Filter,
}

impl Builder {
    /// A builder for bands of `k` rows of an `n`-board, whose memo holds at most about
    /// `cap` placements.
    pub fn new(n: usize, k: usize, cap: usize, isa: Option<Isa>) -> Builder {
        let searched = k - kept_rows(n, k, cap);
        let (memo, arena) = (vec![Vec::new(); k], vec![Entry::default()]);
        Builder { n, k, ranks: Ranks::default(), memo, generation: 1, band: None, arena, cap, searched, filter: filter(isa) }
    }

    /// The memo's bytes once every slot is in use: what a builder whose arena holds `cap`
    /// placements may come to hold besides them.
    pub fn memo_bytes(n: usize, k: usize, cap: usize) -> usize {
        (1..=kept_rows(n, k, cap)).map(|s| binom(n, s) as usize).sum::<usize>() * std::mem::size_of::<Slot>()
    }

    /// Appends to `out` every placement of `band` (its `k` rows, top first, as free-cell
    /// masks) that puts a queen in each column of `set` (`k` columns). `id` names the band:
    /// the memo is kept while the same name comes back.
    pub fn placements(&mut self, id: u32, band: &[u32], set: u32, out: &mut Vec<Entry>) {
        debug_assert_eq!((band.len(), set.count_ones() as usize), (self.k, self.k));
        if self.band != Some(id) || self.arena.len() > self.cap {
            self.band = Some(id);
            self.generation = self.generation.wrapping_add(1).max(1);
            self.arena.clear();
            self.arena.push(Entry::default());
        }
        self.top(band, set, 0, Top::default(), out);
    }

    /// The placements of the band's searched rows from `row` on, in `set`'s columns, below
    /// the queens `above` placed in the rows before; each joined with the memo's
    /// placements of the rows below them.
    fn top(&mut self, band: &[u32], set: u32, row: usize, above: Top, out: &mut Vec<Entry>) {
        let full = u32::MAX >> (32 - self.n);
        if row == self.searched {
            let range = self.below(band, row, set & !above.cols);
            out.reserve(range.len());
            // SAFETY: `filter` was chosen for this CPU.
            unsafe { (self.filter)(&self.arena[range], &above, row, full, out) };
            return;
        }
        let mut cells = band[row] & set & !(above.cols | above.ld | above.rd);
        while cells != 0 {
            let bit = cells & cells.wrapping_neg();
            cells ^= bit;
            let next = Top {
                cols: above.cols | bit,
                ld: (above.ld | bit) << 1,
                rd: (above.rd | bit) >> 1,
                l: above.l | bit >> row,
                r: above.r | (bit << row) & full,
            };
            self.top(band, set, row + 1, next, out);
        }
    }

    /// The placements of the band's rows from `row` down (`k - row` of them) using
    /// exactly the columns of `set`, relative to row `row`: in the memo, found if need be.
    fn below(&mut self, band: &[u32], row: usize, set: u32) -> Range<usize> {
        let s = self.k - row;
        if s == 0 {
            return EMPTY;
        }
        if self.memo[s].is_empty() {
            self.memo[s] = vec![Slot::default(); binom(self.n, s) as usize];
        }
        let rank = self.ranks.of(set) as usize;
        let slot = self.memo[s][rank];
        if slot.generation == self.generation {
            return slot.start as usize..(slot.start + slot.len) as usize;
        }
        let mut subs = [(0u32, 0usize, 0usize); 32];
        let mut count = 0;
        let mut cells = band[row] & set;
        while cells != 0 {
            let bit = cells & cells.wrapping_neg();
            cells ^= bit;
            let range = self.below(band, row + 1, set ^ bit);
            if !range.is_empty() {
                subs[count] = (bit, range.start, range.end);
                count += 1;
            }
        }
        let full = u32::MAX >> (32 - self.n);
        let start = self.arena.len();
        // The sets below lie before `start`: copied out of the way of the one appended.
        self.arena.reserve(subs[..count].iter().map(|&(_, from, to)| to - from).sum());
        for &(bit, from, to) in &subs[..count] {
            let (before, _) = self.arena.split_at(start);
            let below: *const [Entry] = &before[from..to];
            let queen = Top { cols: bit, ld: bit << 1, rd: bit >> 1, l: bit, r: bit };
            // SAFETY: the reserve above leaves room for every entry below, so the arena is
            // not moved; the entries read lie before `start`, where nothing is written.
            unsafe { (self.filter)(&*below, &queen, 1, full, &mut self.arena) };
        }
        let len = self.arena.len() - start;
        self.memo[s][rank] = Slot { generation: self.generation, start: start as u32, len: len as u32 };
        start..start + len
    }
}

/// The queens of a band's searched rows placed so far: their columns, their attacks on the
/// next row, and their signatures relative to the band's top row.
#[derive(Clone, Copy, Default)]
pub(super) struct Top {
    cols: u32,
    pub ld: u32,
    pub rd: u32,
    pub l: u32,
    pub r: u32,
}

/// The rows at the bottom of a band of `k` rows of an `n`-board whose placements a memo of
/// `cap` placements holds for every set of their columns, at least one below the top: a set of `s` rows'
/// columns holds about `s! * 0.65^(s-1)` placements on an empty band (`s = 6, 7, 8`: 105,
/// 350 and 1,191 on 16 columns).
pub(super) fn kept_rows(n: usize, k: usize, cap: usize) -> usize {
    let per_set = |s: usize| (1..=s).map(|i| i as f64).product::<f64>() * 0.65f64.powi(s as i32 - 1);
    let mut total = 0.0;
    (1..k)
        .take_while(|&s| {
            total += f64::from(binom(n, s)) * per_set(s);
            total <= cap as f64
        })
        .last()
        .unwrap_or(0)
        .max(usize::from(k > 1))
}

/// Appends to `out` the placements of `below` (relative to row `row` of the band) that the
/// queens `above` leave room for, joined with them: relative to the band's top row. `out`
/// has room for all of `below`.
///
/// # Safety
/// Only the variant of an instruction set this CPU has.
pub(super) type Filter = unsafe fn(below: &[Entry], above: &Top, row: usize, full: u32, out: &mut Vec<Entry>);

/// The [`Filter`] for `isa`.
pub(super) fn filter(isa: Option<Isa>) -> Filter {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Some(Isa::Avx512) => avx512::filter,
        #[cfg(target_arch = "x86_64")]
        Some(Isa::Avx2) => avx2::filter,
        _ => filter_scalar,
    }
}

/// [`Filter`] a placement at a time.
unsafe fn filter_scalar(below: &[Entry], above: &Top, row: usize, full: u32, out: &mut Vec<Entry>) {
    let at = out.len();
    let spare = out.spare_capacity_mut();
    let mut kept = 0;
    for e in below {
        // Written whether or not it is kept: the next one kept overwrites it.
        spare[kept].write(Entry { l: e.l >> row | above.l, r: (e.r << row) & full | above.r });
        kept += usize::from(e.l & above.ld == 0 && e.r & above.rd == 0);
    }
    // SAFETY: the first `kept` places past `at` were written above.
    unsafe { out.set_len(at + kept) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The placements by brute force: every assignment of the set's columns to the rows.
    fn slow(n: usize, band: &[u32], set: u32) -> Vec<Entry> {
        fn go(n: usize, band: &[u32], set: u32, row: usize, placed: &mut Vec<usize>, out: &mut Vec<Entry>) {
            if row == band.len() {
                let mut e = Entry::default();
                for (i, &c) in placed.iter().enumerate() {
                    if c >= i {
                        e.l |= 1 << (c - i);
                    }
                    if c + i < n {
                        e.r |= 1 << (c + i);
                    }
                }
                out.push(e);
                return;
            }
            for c in (0..n).filter(|&c| set >> c & 1 == 1 && band[row] >> c & 1 == 1) {
                let attacked = placed.iter().enumerate().any(|(i, &q)| q == c || q.abs_diff(c) == row - i);
                if !attacked {
                    placed.push(c);
                    go(n, band, set, row + 1, placed, out);
                    placed.pop();
                }
            }
        }
        let mut out = Vec::new();
        go(n, band, set, 0, &mut Vec::new(), &mut out);
        out
    }

    fn sorted(mut v: Vec<Entry>) -> Vec<(u32, u32)> {
        let mut pairs: Vec<_> = v.drain(..).map(|e| (e.l, e.r)).collect();
        pairs.sort_unstable();
        pairs
    }

    #[test]
    fn placements_match_brute_force_on_random_bands() {
        let mut rng = crate::rng::Rng::new(4);
        for n in [5, 8, 11, 13] {
            for k in 1..=5.min(n) {
                let mut builder = Builder::new(n, k, 1 << 20, Isa::chosen());
                for id in 0..3 {
                    let band: Vec<u32> = (0..k).map(|_| (0..n).filter(|_| !rng.chance(0.2)).fold(0, |m, c| m | 1 << c)).collect();
                    for set in (0u32..1 << n).filter(|s| s.count_ones() as usize == k).step_by(7) {
                        let mut got = Vec::new();
                        builder.placements(id, &band, set, &mut got);
                        assert_eq!(sorted(got), sorted(slow(n, &band, set)), "n={n} k={k} band={band:?} set={set:b}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_small_cap_empties_the_memo_and_changes_nothing() {
        let band = vec![u32::MAX >> 20; 6];
        let (mut roomy, mut tight) = (Builder::new(12, 6, 1 << 20, Isa::chosen()), Builder::new(12, 6, 0, None));
        for set in [0b1111_1100_0000u32, 0b0000_0011_1111, 0b1010_1010_1010] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            roomy.placements(0, &band, set, &mut a);
            tight.placements(0, &band, set, &mut b);
            assert_eq!(sorted(a), sorted(b));
        }
    }
}
