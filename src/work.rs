//! A count's work, divided: which shards a run counts, a whole case's prefixes in blocks
//! with estimated search nodes (for the progress bar), and the prefixes a run counts cut
//! into units that finish, and are recorded, one at a time. How a case is cut into shards
//! is [`crate::split`]'s.

use std::ops::Range;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::estimate::Dives;
use crate::plan::Plan;
use crate::prefix::{Prefix, Prefixes};

/// Blocks of a whole case's prefixes, enough for the progress bar to go by.
const BLOCKS: usize = 256;
/// Random dives per block for its estimate.
const DIVES_PER_BLOCK: u32 = 256;

/// Which of how many shards a count covers: `index` in `0..count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// The shards one run counts, each of every case: some of `count`, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shards {
    pub indices: Vec<usize>,
    pub count: usize,
}

impl Shards {
    /// Each of them.
    pub fn iter(&self) -> impl Iterator<Item = Shard> + '_ {
        self.indices.iter().map(|&index| Shard { index, count: self.count })
    }
}

/// A whole case's prefixes in contiguous blocks, each with its estimated search nodes.
#[derive(Clone, Debug)]
pub struct Blocks {
    pub ranges: Vec<Range<usize>>,
    pub estimates: Vec<f64>,
}

impl Blocks {
    /// `base` cut into blocks, each estimated by seeded dives (a block by the sequence its
    /// range seeds), in parallel but with the same result on any pool. Blocks start as
    /// equal runs of prefixes; one estimated at more than twice the mean is halved until
    /// it is not or holds one prefix, since prefixes of some split boards have hundreds of
    /// times the mean's work.
    pub fn estimated(plan: &Plan, base: &Prefixes) -> Blocks {
        let block = |r: Range<usize>| {
            let e = estimate(plan, &base.items[r.clone()], base.depth, seed(&r));
            (r, e)
        };
        let first = even_ranges(base.items.len(), BLOCKS);
        let mut blocks: Vec<(Range<usize>, f64)> = first.into_par_iter().map(block).collect();
        let most = 2.0 * blocks.iter().map(|(_, e)| e).sum::<f64>() / blocks.len().max(1) as f64;
        let heavy = |(r, e): &(Range<usize>, f64)| *e > most && r.len() > 1;
        while blocks.iter().any(heavy) {
            blocks = blocks.into_par_iter().flat_map_iter(|b| if heavy(&b) { halved(b.0).map(block).to_vec() } else { vec![b] }).collect();
        }
        let (ranges, estimates) = blocks.into_iter().unzip();
        Blocks { ranges, estimates }
    }

    /// `base` in blocks with no estimate: each prefix counts as one unit of work.
    pub fn uniform(base: &Prefixes) -> Blocks {
        let ranges = even_ranges(base.items.len(), BLOCKS);
        let estimates = ranges.iter().map(|r| r.len() as f64).collect();
        Blocks { ranges, estimates }
    }

    /// The estimated work of each prefix: its block's estimate shared evenly.
    pub fn per_prefix(&self) -> Vec<f64> {
        let mut work = Vec::with_capacity(self.ranges.last().map_or(0, |r| r.end));
        for (r, &e) in self.ranges.iter().zip(&self.estimates) {
            work.extend(std::iter::repeat_n(e / r.len().max(1) as f64, r.len()));
        }
        work
    }
}

/// Knuth's estimate of the nodes below `items` (at row `depth`), from dives of seed `seed`.
fn estimate(plan: &Plan, items: &[Prefix], depth: usize, seed: u64) -> f64 {
    if items.is_empty() {
        return 0.0;
    }
    let mut d = Dives::new(seed);
    let total: f64 = (0..DIVES_PER_BLOCK)
        .map(|_| {
            let p = &items[d.below(items.len() as u64) as usize];
            let b = p.board as usize;
            1.0 + d.dive(&plan.boards[b], &plan.due[b], p.start(), depth)
        })
        .sum();
    total / DIVES_PER_BLOCK as f64 * items.len() as f64
}

/// The seed of a block's dives: its range's.
fn seed(r: &Range<usize>) -> u64 {
    (r.start as u64) << 32 ^ r.end as u64
}

/// `r` in two halves (the first the shorter).
fn halved(r: Range<usize>) -> [Range<usize>; 2] {
    let mid = r.start + r.len() / 2;
    [r.start..mid, mid..r.end]
}

/// `0..len` cut into at most `parts` ranges of sizes differing by at most one, none empty.
fn even_ranges(len: usize, parts: usize) -> Vec<Range<usize>> {
    let parts = parts.clamp(1, len.max(1));
    (0..parts).map(|i| len * i / parts..len * (i + 1) / parts).filter(|r| !r.is_empty()).collect()
}

/// `ranges` sorted, with touching or overlapping ones joined.
fn merged(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges.into_iter().filter(|r| !r.is_empty()) {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// Some of a case's prefixes, as sorted, disjoint ranges of indices into its prefixes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    pub ranges: Vec<Range<usize>>,
}

impl Selection {
    /// All of `len` prefixes.
    pub fn all(len: usize) -> Selection {
        Selection { ranges: std::iter::once(0..len).filter(|r| !r.is_empty()).collect() }
    }

    /// How many prefixes it holds.
    pub fn len(&self) -> usize {
        self.ranges.iter().map(|r| r.len()).sum()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The same prefixes less those in `done` (any ranges).
    pub fn without(&self, done: &[Range<usize>]) -> Selection {
        let done = merged(done.to_vec());
        let mut out = Vec::new();
        for r in &self.ranges {
            let mut start = r.start;
            for d in done.iter().filter(|d| d.end > r.start && d.start < r.end) {
                if d.start > start {
                    out.push(start..d.start);
                }
                start = start.max(d.end);
            }
            if start < r.end {
                out.push(start..r.end);
            }
        }
        Selection { ranges: out }
    }

    /// Whether every one of `ranges` lies within this selection.
    pub fn covers(&self, ranges: &[Range<usize>]) -> bool {
        ranges.iter().all(|d| d.is_empty() || self.ranges.iter().any(|r| r.start <= d.start && d.end <= r.end))
    }

    /// Its prefixes cut, in order, into units of at most `budget` estimated work each (as
    /// `work` gives it per prefix, or one each where `work` is empty), or a single prefix
    /// where one alone has more, and of at most [`MAX_UNIT_RANGES`] ranges each (a whole
    /// selection is one unit where the budget is infinite: it is not recorded).
    pub fn units(&self, work: &[f64], budget: f64) -> Vec<Unit> {
        if budget == f64::INFINITY {
            let estimate = if work.is_empty() { self.len() as f64 } else { self.ranges.iter().flat_map(|r| &work[r.clone()]).sum() };
            return vec![Unit { ranges: self.ranges.clone(), estimate }];
        }
        let work_of = |i: usize| work.get(i).copied().unwrap_or(1.0);
        let mut units = Vec::new();
        let mut current = Unit::default();
        for r in &self.ranges {
            let mut start = r.start;
            for i in r.clone() {
                if current.estimate + work_of(i) > budget && (!current.is_empty() || i > start) {
                    if i > start {
                        current.ranges.push(start..i);
                    }
                    units.push(std::mem::take(&mut current));
                    start = i;
                }
                current.estimate += work_of(i);
            }
            current.ranges.push(start..r.end);
            if current.ranges.len() >= MAX_UNIT_RANGES {
                units.push(std::mem::take(&mut current));
            }
        }
        if !current.is_empty() {
            units.push(current);
        }
        units
    }
}

/// The most ranges a recorded unit holds, so that a checkpoint's line stays well within
/// the bound on lines the program reads back (`files::MAX_LINE`, with the `cli` feature).
pub const MAX_UNIT_RANGES: usize = 1024;

/// Some prefixes counted together and recorded together: a checkpoint stores each unit
/// once it is counted, and a resumed run skips it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Unit {
    /// Sorted, disjoint ranges of indices into the case's prefixes.
    pub ranges: Vec<Range<usize>>,
    /// Its estimated work.
    pub estimate: f64,
}

impl Unit {
    /// How many prefixes it holds.
    pub fn len(&self) -> usize {
        self.ranges.iter().map(|r| r.len()).sum()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A hex SHA-256 of `text`.
pub fn sha256(text: &[u8]) -> String {
    crate::words::hex(&Sha256::digest(text))
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // a range in a list is a list of ranges here
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::prefix::expand;

    #[test]
    fn blocks_cover_every_prefix_once_and_repeat() {
        let plan = Plan::optimized(&Board::empty(12).unwrap());
        let base = expand(&plan, 5000);
        let a = Blocks::estimated(&plan, &base);
        let b = Blocks::estimated(&plan, &base);
        assert_eq!(a.estimates, b.estimates);
        assert_eq!(a.ranges.first().map(|r| r.start), Some(0));
        assert!(a.ranges.windows(2).all(|w| w[0].end == w[1].start));
        assert_eq!(a.ranges.last().map(|r| r.end), Some(base.items.len()));
        assert_eq!(a.per_prefix().len(), base.items.len());
    }

    #[test]
    fn heavy_blocks_are_halved() {
        // The split of empty 20x20 has runs of prefixes with 170 times the mean's work.
        let plan = Plan::optimized(&Board::empty(20).unwrap());
        let base = expand(&plan, 16 * 1024);
        let blocks = Blocks::estimated(&plan, &base);
        let mean = blocks.estimates.iter().sum::<f64>() / blocks.estimates.len() as f64;
        assert!(blocks.ranges.len() > BLOCKS);
        assert!(blocks.ranges.iter().zip(&blocks.estimates).all(|(r, &e)| e <= 4.0 * mean || r.len() == 1));
    }

    #[test]
    fn shard_lists_name_each_shard() {
        let shards = Shards { indices: vec![3, 0], count: 4 };
        assert_eq!(shards.iter().collect::<Vec<_>>(), vec![Shard { index: 3, count: 4 }, Shard { index: 0, count: 4 }]);
    }

    #[test]
    fn a_selection_less_what_is_done_keeps_the_rest() {
        let s = Selection { ranges: vec![0..10, 20..30] };
        assert_eq!(s.without(&[2..4, 8..22, 29..40]).ranges, vec![0..2, 4..8, 22..29]);
        assert_eq!(s.without(&[]).ranges, s.ranges);
        assert!(s.covers(&[0..3, 25..30]) && !s.covers(&[9..11]));
    }

    #[test]
    fn units_cut_the_selection_in_order_within_the_budget() {
        let s = Selection { ranges: vec![0..4, 6..10] };
        let work = [1.0, 1.0, 1.0, 1.0, 9.0, 9.0, 2.0, 5.0, 1.0, 1.0];
        let units = s.units(&work, 3.0);
        let ranges: Vec<_> = units.iter().map(|u| u.ranges.clone()).collect();
        assert_eq!(ranges, vec![vec![0..3], vec![3..4, 6..7], vec![7..8], vec![8..10]]);
        assert_eq!(units.iter().map(|u| u.len()).sum::<usize>(), s.len());
        assert_eq!(s.units(&work, f64::INFINITY).len(), 1);
    }

    #[test]
    fn a_unit_holds_at_most_so_many_ranges() {
        // A selection with a hole after every prefix, as one left by scattered units.
        let s = Selection { ranges: (0..3000).map(|i| 2 * i..2 * i + 1).collect() };
        let units = s.units(&[], 1e9);
        assert!(units.iter().all(|u| u.ranges.len() <= MAX_UNIT_RANGES));
        assert_eq!(units.len(), 3);
        assert_eq!(units.iter().map(|u| u.len()).sum::<usize>(), 3000);
    }
}
