//! Partial boards ("prefixes"): the first rows of a plan's boards filled with queens, found
//! breadth-first so that the counters have many independent pieces of work.

use std::ops::Range;

use rayon::prelude::*;

use crate::board::next_cells;
use crate::estimate::{Dives, Start};
use crate::plan::Plan;

/// The state after the first `depth` rows: occupied columns and the two diagonals' attacks
/// on the next row, for board `board` of the plan. `repr(C)` because the GPU reads it as is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(C)]
pub struct Prefix {
    /// Index into the plan's boards.
    pub board: u32,
    /// Columns holding a queen: one per filled row, which the GPU counter relies on to tell
    /// the row from the columns.
    pub cols: u32,
    /// Cells of the next row attacked along down-right diagonals (shifted left each row).
    pub ld: u32,
    /// Cells of the next row attacked along down-left diagonals (shifted right each row).
    pub rd: u32,
}

impl Prefix {
    /// The cells of row `row` (the next row) where this prefix's next queen may go.
    #[inline(always)]
    pub fn avail(&self, plan: &Plan, row: usize) -> u32 {
        let b = self.board as usize;
        next_cells(plan.boards[b][row], plan.due[b][row], self.cols, self.ld, self.rd)
    }

    /// Where a dive of Knuth's estimate starts from this prefix.
    pub fn start(&self) -> Start {
        Start { cols: self.cols, ld: self.ld, rd: self.rd }
    }

    /// The prefix one row further on, with a queen at `bit` in the current row.
    #[inline(always)]
    pub fn place(&self, bit: u32) -> Prefix {
        Prefix { board: self.board, cols: self.cols | bit, ld: (self.ld | bit) << 1, rd: (self.rd | bit) >> 1 }
    }
}

/// All prefixes of one depth, over all of a plan's boards.
#[derive(Clone, Debug, Default)]
pub struct Prefixes {
    /// Rows filled in every prefix.
    pub depth: usize,
    /// The prefixes, grouped by board in plan order.
    pub items: Vec<Prefix>,
}

impl Prefixes {
    /// Knuth's estimate of the search nodes below all these prefixes, from `dives` dives,
    /// each starting at a prefix picked at random (see [`crate::estimate`]).
    pub fn estimated_nodes(&self, plan: &Plan, dives: u32) -> f64 {
        if self.items.is_empty() {
            return 0.0;
        }
        let mut d = Dives::new(1);
        let total: f64 = (0..dives)
            .map(|_| {
                let p = &self.items[d.below(self.items.len() as u64) as usize];
                let b = p.board as usize;
                d.dive(&plan.boards[b], &plan.due[b], p.start(), self.depth)
            })
            .sum();
        total / dives as f64 * self.items.len() as f64
    }
}

/// The CPU counter's target for a search of `expected` nodes (unknown: the most): about
/// one prefix per 10K nodes, within 16K (the design card's least) and 128K (128 static
/// chunks of 1024, several for each of 16 threads). Small trees gain from fewer, larger
/// prefixes, which cost less to hand to the lanes; large ones need the most to end their
/// threads together.
pub fn cpu_target(expected: Option<f64>) -> usize {
    const LEAST: usize = 16 * 1024;
    const MOST: usize = 128 * 1024;
    expected.map_or(MOST, |nodes| ((nodes / 10_000.0) as usize).clamp(LEAST, MOST))
}

/// Expands row by row until there are at least `min_items` prefixes or the rows run out.
/// Each row multiplies the count by at most `n`, so the result holds under `n * min_items`.
pub fn expand(plan: &Plan, min_items: usize) -> Prefixes {
    let mut level =
        Prefixes { depth: 0, items: (0..plan.boards.len() as u32).map(|board| Prefix { board, ..Prefix::default() }).collect() };
    while level.items.len() < min_items && level.depth < plan.n && !level.items.is_empty() {
        level = next_level(plan, &level.items, level.depth);
    }
    level
}

fn next_level(plan: &Plan, items: &[Prefix], depth: usize) -> Prefixes {
    let mut next = Vec::with_capacity(items.len() * 4);
    for p in items {
        let mut avail = p.avail(plan, depth);
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            next.push(p.place(bit));
        }
    }
    Prefixes { depth: depth + 1, items: next }
}

/// Prefixes further below a base level, known by count before any is stored.
#[derive(Clone, Debug)]
pub struct Deeper {
    /// Rows past the base level.
    pub extra: usize,
    /// How many prefixes each base prefix has `extra` rows further down.
    pub per_root: Vec<u64>,
}

impl Deeper {
    /// All the prefixes, over every root.
    pub fn total(&self) -> u64 {
        self.per_root.iter().sum()
    }
}

/// How many rows past `base` to expand so that there are at least `min_items` prefixes,
/// counted in parallel without storing them. Never past row n-3: the counters do the last
/// rows in closed form, and a sparse board that never reaches `min_items` would otherwise
/// be expanded to its leaves.
pub fn deeper(plan: &Plan, base: &Prefixes, min_items: usize) -> Deeper {
    let mut level = Deeper { extra: 0, per_root: vec![1; base.items.len()] };
    let deepest = plan.n.saturating_sub(3);
    while level.total() < min_items as u64 && base.depth + level.extra < deepest && level.total() > 0 {
        let extra = level.extra + 1;
        let per_root = base.items.par_iter().map(|p| count_at(plan, p, base.depth, extra)).collect();
        level = Deeper { extra, per_root };
    }
    level
}

/// The number of descendants `extra` rows below `p` (which is at row `depth`).
fn count_at(plan: &Plan, p: &Prefix, depth: usize, extra: usize) -> u64 {
    if extra == 0 {
        return 1;
    }
    let mut avail = p.avail(plan, depth);
    let mut total = 0;
    while avail != 0 {
        let bit = avail & avail.wrapping_neg();
        avail ^= bit;
        total += count_at(plan, &p.place(bit), depth + 1, extra - 1);
    }
    total
}

/// The roots of each batch of roots that make `per_root` prefixes each, in order: runs of
/// roots with at most `cap` prefixes in all (or one root, where it alone has more), so that
/// the memory a batch needs stays bounded however many prefixes there are.
pub fn batches(per_root: &[u64], cap: usize) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    while start < per_root.len() {
        let mut end = start;
        let mut size = 0u64;
        while end < per_root.len() && (end == start || size + per_root[end] <= cap as u64) {
            size += per_root[end];
            end += 1;
        }
        ranges.push(start..end);
        start = end;
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    fn plain(n: usize) -> Plan {
        Plan::plain(&Board::empty(n).unwrap())
    }

    #[test]
    fn the_nodes_below_prefixes_are_estimated_close_to_the_exact_count() {
        let board = Board::from_fn(11, |r, c| (r * 7 + c * 3) % 10 != 0).unwrap();
        let plan = Plan::plain(&board);
        let base = expand(&plan, 50);
        let exact = |p: &Prefix| (1..=plan.n - base.depth).map(|extra| count_at(&plan, p, base.depth, extra)).sum::<u64>() as f64;
        let want: f64 = base.items.iter().map(exact).sum();
        let got = base.estimated_nodes(&plan, 4096);
        assert!((got / want - 1.0).abs() < 0.2, "estimate {got} against {want}");
        assert_eq!(Prefixes::default().estimated_nodes(&plan, 10), 0.0);
    }

    #[test]
    fn expansion_stops_at_the_first_level_with_enough_prefixes() {
        let plan = plain(8);
        let p = expand(&plan, 50);
        // Empty 8x8: 8 prefixes at depth 1, 42 at depth 2, 140 at depth 3.
        assert_eq!((p.depth, p.items.len()), (3, 140));
    }

    #[test]
    fn expansion_runs_out_of_rows_on_small_boards() {
        let p = expand(&plain(4), 1_000_000);
        assert_eq!((p.depth, p.items.len()), (4, 2));
    }

    #[test]
    fn deeper_stops_three_rows_from_the_end() {
        let plan = plain(8);
        let base = expand(&plan, 1);
        assert_eq!(base.depth + deeper(&plan, &base, usize::MAX).extra, 5);
    }

    #[test]
    fn batches_take_every_root_once_in_order_within_the_cap() {
        let plan = plain(9);
        let base = expand(&plan, 10);
        let deeper = deeper(&plan, &base, 2000);
        let full = expand(&plan, 2000);
        assert_eq!(base.depth + deeper.extra, full.depth);
        assert_eq!(deeper.total(), full.items.len() as u64);
        let ranges = batches(&deeper.per_root, 100);
        assert!(ranges.len() > 1);
        assert_eq!(ranges.iter().flat_map(|r| r.clone()).collect::<Vec<_>>(), (0..base.items.len()).collect::<Vec<_>>());
        for r in &ranges {
            let size: u64 = deeper.per_root[r.clone()].iter().sum();
            assert!(size <= 100 || r.len() == 1, "{r:?} holds {size}");
        }
        // One root with more than the cap gets a batch of its own.
        assert_eq!(batches(&[3, 500, 2, 2], 10), vec![0..1, 1..2, 2..4]);
    }
}
