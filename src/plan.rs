//! What to count for one board: which orientation to search it in, which symmetries to use,
//! and the weighted boards that result. Decided once, before any backend runs, so that the
//! CPU and the GPU count exactly the same thing.

use crate::board::Board;
use crate::symmetry::{self, Sym};

/// The boards to count and their weights: the case's answer is `sum(weight * count(board))`.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Side length of every board in the plan.
    pub n: usize,
    /// Row masks of each board to count.
    pub boards: Vec<Vec<u32>>,
    /// How many solutions each solution of the matching board stands for.
    pub weights: Vec<u64>,
    /// The symmetry the input board was seen through before counting.
    pub orientation: Sym,
    /// The symmetries of the oriented board used to cut the search.
    pub group: Vec<Sym>,
}

/// Nodes the orientation estimate may spend per orientation; also the tree size under
/// which a board is counted as it is, since planning would cost more than it saves.
const PROBE_NODES: u64 = 20_000;

impl Plan {
    /// The board as it is, with weight 1: no orientation, no symmetry.
    pub fn plain(board: &Board) -> Plan {
        Plan {
            n: board.n(),
            boards: vec![board.rows().to_vec()],
            weights: vec![1],
            orientation: Sym::Identity,
            group: vec![Sym::Identity],
        }
    }

    /// The fastest plan found: the orientation with the smallest estimated search tree,
    /// then one board per orbit of frames under the oriented board's symmetries.
    pub fn optimized(board: &Board) -> Plan {
        match best_orientation(board) {
            Some(orientation) => Plan::symmetric(board, orientation),
            None => Plan::plain(board),
        }
    }

    /// The board seen through `orientation`, split by frame orbits under all the symmetries
    /// the oriented board keeps (one board of weight 1 when it keeps none).
    pub fn symmetric(board: &Board, orientation: Sym) -> Plan {
        let oriented = board.transformed(orientation);
        let group = symmetry::invariant_group(&oriented);
        if group.len() == 1 {
            return Plan { orientation, ..Plan::plain(&oriented) };
        }
        let split = symmetry::frame_split(&oriented, &group);
        Plan {
            n: board.n(),
            boards: split.iter().map(|w| w.board.rows().to_vec()).collect(),
            weights: split.iter().map(|w| w.weight).collect(),
            orientation,
            group,
        }
    }
}

/// The orientation whose first rows leave the fewest partial boards, or `None` when the
/// whole tree is too small for planning to pay.
fn best_orientation(board: &Board) -> Option<Sym> {
    let (depth, _) = probe_depth(board.rows())?;
    let mut best = (u64::MAX, Sym::Identity);
    let mut seen: Vec<Board> = Vec::with_capacity(8);
    for g in Sym::ALL {
        // A symmetric board looks the same in several orientations: probe each look once.
        let oriented = board.transformed(g);
        if seen.contains(&oriented) {
            continue;
        }
        let size = nodes_to_depth(oriented.rows(), depth, best.0);
        seen.push(oriented);
        if size < best.0 {
            best = (size, g);
        }
    }
    Some(best.1)
}

/// The deepest row count whose tree, as the board stands, fits in the probe budget, with
/// that tree's size; `None` when the whole tree fits (the board is cheap to count).
fn probe_depth(rows: &[u32]) -> Option<(usize, u64)> {
    let mut last = None;
    for depth in 1..=rows.len() {
        let size = nodes_to_depth(rows, depth, PROBE_NODES + 1);
        if size > PROBE_NODES {
            return last.or(Some((depth, size)));
        }
        last = Some((depth, size));
    }
    None
}

/// Nodes in the first `depth` rows of the search tree, stopping once past `limit`.
fn nodes_to_depth(rows: &[u32], depth: usize, limit: u64) -> u64 {
    fn walk(rows: &[u32], row: usize, depth: usize, cols: u32, ld: u32, rd: u32, budget: &mut u64) {
        if row == depth || *budget == 0 {
            return;
        }
        let mut avail = rows[row] & !(cols | ld | rd);
        while avail != 0 && *budget > 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            *budget -= 1;
            walk(rows, row + 1, depth, cols | bit, (ld | bit) << 1, (rd | bit) >> 1, budget);
        }
    }
    let mut budget = limit;
    walk(rows, 0, depth, 0, 0, 0, &mut budget);
    limit - budget
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_boards_are_counted_as_they_are() {
        let plan = Plan::optimized(&Board::empty(6).unwrap());
        assert_eq!(plan.boards.len(), 1);
        assert_eq!(plan.orientation, Sym::Identity);
    }

    #[test]
    fn obstacles_at_the_bottom_are_turned_to_the_top() {
        let b = Board::from_fn(14, |r, c| r < 11 || (r + c) % 3 == 0).unwrap();
        let plan = Plan::optimized(&b);
        let oriented = b.transformed(plan.orientation);
        assert!(oriented.rows()[0].count_ones() < 14, "orientation {:?} left the first row open", plan.orientation);
    }

    #[test]
    fn an_empty_board_uses_all_eight_symmetries() {
        let plan = Plan::optimized(&Board::empty(12).unwrap());
        assert_eq!(plan.group.len(), 8);
        assert!(plan.boards.len() > 1);
    }
}
