//! Partial boards ("prefixes"): the first rows of a plan's boards filled with queens, found
//! breadth-first so that the counters have many independent pieces of work.

use crate::plan::Plan;

/// The state after the first `depth` rows: occupied columns and the two diagonals' attacks
/// on the next row, for board `board` of the plan. `repr(C)` because the GPU reads it as is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(C)]
pub struct Prefix {
    /// Index into the plan's boards.
    pub board: u32,
    /// Columns holding a queen.
    pub cols: u32,
    /// Cells of the next row attacked along down-right diagonals (shifted left each row).
    pub ld: u32,
    /// Cells of the next row attacked along down-left diagonals (shifted right each row).
    pub rd: u32,
}

impl Prefix {
    /// The free cells of row `row` (the next row) for this prefix.
    #[inline(always)]
    pub fn avail(&self, rows: &[u32], row: usize) -> u32 {
        rows[row] & !(self.cols | self.ld | self.rd)
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

/// The CPU counter's target: the design card's "at least 16K partial boards".
pub const CPU_TARGET: usize = 16 * 1024;

/// Expands row by row until there are at least `min_items` prefixes or the rows run out.
/// Each row multiplies the count by at most `n`, so the result holds under `n * min_items`.
pub fn expand(plan: &Plan, min_items: usize) -> Prefixes {
    let mut level = Prefixes {
        depth: 0,
        items: (0..plan.boards.len() as u32).map(|board| Prefix { board, ..Prefix::default() }).collect(),
    };
    while level.items.len() < min_items && level.depth < plan.n && !level.items.is_empty() {
        level = next_level(plan, &level.items, level.depth);
    }
    level
}

fn next_level(plan: &Plan, items: &[Prefix], depth: usize) -> Prefixes {
    let mut next = Vec::with_capacity(items.len() * 4);
    for p in items {
        let mut avail = p.avail(&plan.boards[p.board as usize], depth);
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            next.push(p.place(bit));
        }
    }
    Prefixes { depth: depth + 1, items: next }
}

/// How many rows past `base` to expand so that there are at least `min_items` prefixes
/// (fewer if the board runs out of rows first), and how many there are then; counted
/// without storing them.
pub fn extra_depth_for(plan: &Plan, base: &Prefixes, min_items: usize) -> (usize, u64) {
    let mut extra = 0;
    let mut count = base.items.len() as u64;
    while count < min_items as u64 && base.depth + extra < plan.n && count > 0 {
        extra += 1;
        count = base.items.iter().map(|p| count_at(plan, p, base.depth, extra)).sum();
    }
    (extra, count)
}

/// The number of descendants `extra` rows below `p` (which is at row `depth`).
fn count_at(plan: &Plan, p: &Prefix, depth: usize, extra: usize) -> u64 {
    if extra == 0 {
        return 1;
    }
    let mut avail = p.avail(&plan.boards[p.board as usize], depth);
    let mut total = 0;
    while avail != 0 {
        let bit = avail & avail.wrapping_neg();
        avail ^= bit;
        total += count_at(plan, &p.place(bit), depth + 1, extra - 1);
    }
    total
}

/// Hands the prefixes `extra` rows below `base` to `sink` in batches of at most `cap`, in
/// order, so that memory stays bounded however many there are. Stops early, returning the
/// error, when `sink` fails.
pub fn for_each_batch<E>(
    plan: &Plan,
    base: &Prefixes,
    extra: usize,
    cap: usize,
    mut sink: impl FnMut(&[Prefix]) -> Result<(), E>,
) -> Result<(), E> {
    let cap = cap.max(1);
    let mut batch = Vec::with_capacity(cap.min(1 << 20));
    let mut push = |p: Prefix, batch: &mut Vec<Prefix>| -> Result<(), E> {
        batch.push(p);
        if batch.len() == cap {
            sink(batch)?;
            batch.clear();
        }
        Ok(())
    };
    let avail_at = |p: &Prefix, row: usize| p.avail(&plan.boards[p.board as usize], row);
    let mut stack: Vec<(Prefix, usize, u32)> = Vec::with_capacity(extra + 1);
    for root in &base.items {
        if extra == 0 {
            push(*root, &mut batch)?;
            continue;
        }
        // Depth-first below each root, so that only one path is held besides the batch.
        stack.push((*root, base.depth, avail_at(root, base.depth)));
        while let Some((p, row, avail)) = stack.last_mut() {
            if *avail == 0 {
                stack.pop();
                continue;
            }
            let bit = *avail & avail.wrapping_neg();
            *avail ^= bit;
            let child = p.place(bit);
            let child_row = *row + 1;
            if child_row == base.depth + extra {
                push(child, &mut batch)?;
            } else {
                stack.push((child, child_row, avail_at(&child, child_row)));
            }
        }
    }
    if !batch.is_empty() {
        sink(&batch)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    fn plain(n: usize) -> Plan {
        Plan::plain(&Board::empty(n).unwrap())
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
    fn batches_hold_the_same_prefixes_as_a_full_expansion() {
        let plan = plain(9);
        let base = expand(&plan, 10);
        let (extra, total) = extra_depth_for(&plan, &base, 2000);
        let full = expand(&plan, 2000);
        assert_eq!(base.depth + extra, full.depth);
        let mut streamed = Vec::new();
        for_each_batch::<()>(&plan, &base, extra, 100, |b| {
            assert!(b.len() <= 100);
            streamed.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        assert_eq!(streamed, full.items);
        assert_eq!(total, full.items.len() as u64);
    }
}
