//! What to count for one board: which orientation to search it in, which symmetries to use,
//! and the weighted boards that result. Decided once, before any backend runs, so that the
//! CPU and the GPU count exactly the same thing.

use rayon::prelude::*;

use crate::board::{due_columns, due_matters, Board};
use crate::estimate;
use crate::symmetry::{self, Sym};
use crate::tuning::{ORIENTATION_CUT, PLANNING_CUT, PLANNING_PAYS_NODES, TURNING_PAYS_NODES};

/// The boards to count and their weights: the case's answer is `sum(weight * count(board))`.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Side length of every board in the plan.
    pub n: usize,
    /// Row masks of each board to count.
    pub boards: Vec<Vec<u32>>,
    /// Per board, per row: the columns that must hold a queen once that row is filled
    /// (see [`crate::board::due_columns`]).
    pub due: Vec<Vec<u32>>,
    /// How many solutions each solution of the matching board stands for.
    pub weights: Vec<u64>,
    /// The symmetry the input board was seen through before counting.
    pub orientation: Sym,
    /// The symmetries of the oriented board used to cut the search.
    pub group: Vec<Sym>,
    /// The search's size as planning estimated it (the oriented board's tree over the
    /// symmetry's expected gain), where it did.
    pub expected_nodes: Option<f64>,
    /// How many boards [`Plan::turned`] searches in another look than the split made them.
    pub turned: usize,
}

/// The tree size under which a board is counted at once, since planning would cost more
/// than it saves.
const SMALL_TREE_NODES: u64 = 20_000;

/// Random dives for the quick estimate that decides whether planning pays.
const QUICK_DIVES: u32 = 200;

/// Random dives per orientation for the tree-size estimate. Counting the first rows'
/// nodes instead misjudged: on a mirror-symmetric 17x17 board it chose an orientation that
/// lost the mirror and needed 1.8x the nodes.
pub const PROBE_DIVES: u32 = 4000;

/// Random dives per look at each board of a symmetry split (see [`turned_for_speed`]).
const SPLIT_DIVES: u32 = 64;

impl Plan {
    /// A plan of weighted boards (row masks of side `n`), with their due columns worked out.
    pub fn new(n: usize, boards: Vec<Vec<u32>>, weights: Vec<u64>, orientation: Sym, group: Vec<Sym>) -> Plan {
        let due = boards.iter().map(|rows| due_columns(rows)).collect();
        Plan { n, boards, due, weights, orientation, group, expected_nodes: None, turned: 0 }
    }

    /// Whether a search from row `from` must look at the due columns of some board: see
    /// [`crate::board::due_matters`].
    pub fn any_due(&self, from: usize) -> bool {
        self.due.iter().any(|d| due_matters(d, from))
    }

    /// Whether every board has the same free cells in each row from `from` on (each board
    /// its own), as on an empty board or one whose obstacles all lie above row `from`.
    pub fn uniform_from(&self, from: usize) -> bool {
        self.boards.iter().all(|rows| rows.get(from..).is_none_or(|below| below.iter().all(|&r| r == below[0])))
    }

    /// The board as it is, with weight 1: no orientation, no symmetry.
    pub fn plain(board: &Board) -> Plan {
        Plan::new(board.n(), vec![board.rows().to_vec()], vec![1], Sym::Identity, vec![Sym::Identity])
    }

    /// The board as it is, like [`Plan::plain`], with a quick estimate of its tree (for
    /// the number of prefixes).
    pub fn as_is(board: &Board) -> Plan {
        Plan { expected_nodes: Some(estimate::tree(board.rows(), QUICK_DIVES)), ..Plan::plain(board) }
    }

    /// The plan to count `board` by, given its [`Plan::as_is`]: [`Plan::optimized`] where
    /// planning pays, else `as_is` itself.
    pub fn chosen(board: &Board, as_is: Plan) -> Plan {
        if as_is.expected_nodes.is_some_and(|e| e < PLANNING_PAYS_NODES) {
            return as_is;
        }
        Plan::optimized(board)
    }

    /// The fastest plan found: the orientation with the smallest estimated search tree,
    /// then one board per orbit of frames under the oriented board's symmetries.
    pub fn optimized(board: &Board) -> Plan {
        if small_count(board).is_some() {
            return Plan::plain(board);
        }
        let (orientation, expected) = best_orientation(board);
        let plan = Plan::symmetric(board, orientation);
        let plan = if expected >= TURNING_PAYS_NODES { plan.turned() } else { plan };
        Plan { expected_nodes: Some(expected), ..plan }
    }

    /// The board seen through `orientation`, split by frame orbits under the most useful
    /// subgroup of the symmetries the oriented board keeps (one board of weight 1 when none).
    pub fn symmetric(board: &Board, orientation: Sym) -> Plan {
        let oriented = board.transformed(orientation);
        let group = useful_subgroup(&symmetry::invariant_group(&oriented));
        if group.len() == 1 {
            return Plan { orientation, ..Plan::plain(&oriented) };
        }
        let split = symmetry::frame_split(&oriented, &group);
        let boards = split.iter().map(|w| w.board.rows().to_vec()).collect();
        Plan::new(board.n(), boards, split.iter().map(|w| w.weight).collect(), orientation, group)
    }

    /// The same plan with each of its boards turned on its own to the quarter turn with the
    /// smallest estimated tree, except the mirror's: its boards differ only where their
    /// first queen attacks, so the CPU lanes search them all from one table, which gains
    /// more than the few nodes turning would save.
    pub fn turned(self) -> Plan {
        let mirror_only = self.group.len() == 2 && self.group.contains(&Sym::FlipColumns);
        if self.boards.len() < 2 || mirror_only {
            return self;
        }
        let boards = turned_for_speed(self.n, &self.boards);
        let turned = boards.iter().zip(&self.boards).filter(|(now, before)| now != before).count();
        Plan { expected_nodes: self.expected_nodes, turned, ..Plan::new(self.n, boards, self.weights, self.orientation, self.group) }
    }
}

/// The rows of each of `boards` (side `n`), turned on its own to the quarter turn with the
/// smallest estimated search tree: a board counts the same however it is turned, and a
/// split's boards have cells removed in different places. Turning each so that its removed
/// cells come in early rows cut the exact node count of empty 15x15 with all 8 symmetries
/// from 4.46e7 to 3.20e7 (1.71e8 without symmetry); choosing by `SPLIT_DIVES` dives per
/// look came within 2% of the best choice. Boards estimated below a sixteenth of the mean
/// are left as they are: many small ones would cost more planning than they save.
fn turned_for_speed(n: usize, boards: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let sizes: Vec<f64> = boards.par_iter().map(|rows| estimate::tree(rows, SPLIT_DIVES)).collect();
    let worth = sizes.iter().sum::<f64>() / sizes.len().max(1) as f64 / 16.0;
    boards
        .par_iter()
        .zip(&sizes)
        .map(|(rows, &size)| {
            let mut best = (size, rows.clone());
            let board = match Board::from_rows(n, rows.clone()) {
                Ok(b) if size >= worth => b,
                _ => return best.1,
            };
            // A board and its mirror image have the same tree, so the quarter turns are all
            // the looks there are.
            for g in [Sym::Rot90, Sym::Rot180, Sym::Rot270] {
                let turned = board.transformed(g).rows().to_vec();
                let size = estimate::tree(&turned, SPLIT_DIVES);
                if size < best.0 {
                    best = (size, turned);
                }
            }
            best.1
        })
        .collect()
}

/// The part of `group` worth using. Symmetries that carry the bottom row onto the top one,
/// with none that carry a column there, only constrain the last row, which the search
/// reaches last: measured on empty 16x16, the four of both mirrors need more nodes than
/// the column mirror alone (595M against 527M; none: 1054M). So such a group keeps only
/// its column mirror, if it has one.
pub fn useful_subgroup(group: &[Sym]) -> Vec<Sym> {
    let turns_columns_up = group.iter().any(|g| matches!(g, Sym::Rot90 | Sym::Rot270 | Sym::Transpose | Sym::AntiTranspose));
    if turns_columns_up {
        group.to_vec()
    } else {
        group.iter().copied().filter(|g| matches!(g, Sym::Identity | Sym::FlipColumns)).collect()
    }
}

/// How many times fewer nodes planning may cut from `board`'s plain tree: by the symmetries
/// it keeps, and at most [`PLANNING_CUT`].
pub fn planning_cut(board: &Board) -> f64 {
    (ORIENTATION_CUT * expected_gain(&useful_subgroup(&symmetry::invariant_group(board)))).min(PLANNING_CUT)
}

/// How many times fewer nodes the symmetry split of `board` needs than its plain tree,
/// roughly: by the symmetries it keeps.
pub fn symmetry_gain(board: &Board) -> f64 {
    expected_gain(&useful_subgroup(&symmetry::invariant_group(board)))
}

/// How many times fewer nodes a subgroup's split needs than no split, roughly, as measured
/// on empty 14x14 and 16x16 boards (all eight: 4.5; the column mirror: 2; quarter turns: 2.1).
fn expected_gain(group: &[Sym]) -> f64 {
    match group.len() {
        1 => 1.0,
        8 => 4.5,
        _ => 2.0,
    }
}

/// The orientation with the smallest estimated search tree per the symmetry gain it
/// allows, and that estimate.
fn best_orientation(board: &Board) -> (Sym, f64) {
    let mut best = (f64::INFINITY, Sym::Identity);
    let mut seen: Vec<Board> = Vec::with_capacity(8);
    for g in Sym::ALL {
        // A symmetric board looks the same in several orientations: estimate each look once.
        let oriented = board.transformed(g);
        if seen.contains(&oriented) {
            continue;
        }
        let gain = expected_gain(&useful_subgroup(&symmetry::invariant_group(&oriented)));
        let score = estimate::tree(oriented.rows(), PROBE_DIVES) / gain;
        seen.push(oriented);
        if score < best.0 {
            best = (score, g);
        }
    }
    (best.1, best.0)
}

/// The board's (solutions, nodes) when its whole search tree has at most
/// 20,000 nodes (`SMALL_TREE_NODES`): such boards are counted at once, with no planning, prefixes
/// or thread pool. Stops looking once the tree is known to be larger.
pub fn small_count(board: &Board) -> Option<(u64, u64)> {
    fn go(rows: &[u32], row: usize, (cols, ld, rd): (u32, u32, u32), budget: &mut u64, solutions: &mut u64) {
        let mut avail = rows[row] & !(cols | ld | rd);
        while avail != 0 && *budget > 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            *budget -= 1;
            if row + 1 == rows.len() {
                *solutions += 1;
            } else {
                go(rows, row + 1, (cols | bit, (ld | bit) << 1, (rd | bit) >> 1), budget, solutions);
            }
        }
    }
    let limit = SMALL_TREE_NODES + 1;
    let (mut budget, mut solutions) = (limit, 0);
    go(board.rows(), 0, (0, 0, 0), &mut budget, &mut solutions);
    let nodes = limit - budget;
    (nodes <= SMALL_TREE_NODES).then_some((solutions, nodes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_trees_are_counted_by_the_probe() {
        assert_eq!(small_count(&Board::empty(8).unwrap()).map(|c| c.0), Some(92));
        assert_eq!(small_count(&Board::empty(1).unwrap()), Some((1, 1)));
        assert_eq!(small_count(&Board::empty(3).unwrap()).map(|c| c.0), Some(0));
        assert_eq!(small_count(&Board::empty(14).unwrap()), None);
    }

    #[test]
    fn small_boards_are_counted_as_they_are() {
        let plan = Plan::optimized(&Board::empty(6).unwrap());
        assert_eq!(plan.boards.len(), 1);
        assert_eq!(plan.orientation, Sym::Identity);
        // Empty 10x10 (about 35K nodes): planning would cost more than the search.
        let empty = Board::empty(10).unwrap();
        let plan = Plan::chosen(&empty, Plan::as_is(&empty));
        assert_eq!((plan.boards.len(), plan.group.len()), (1, 1));
        assert!(plan.expected_nodes.is_some_and(|e| e < PLANNING_PAYS_NODES));
        // Empty 14x14 (about 27M nodes): it pays.
        let empty = Board::empty(14).unwrap();
        assert_eq!(Plan::chosen(&empty, Plan::as_is(&empty)).group.len(), 8);
    }

    #[test]
    fn obstacles_at_the_bottom_are_turned_to_the_top() {
        let b = Board::from_fn(14, |r, c| r < 11 || (r + c) % 3 == 0).unwrap();
        let plan = Plan::optimized(&b);
        let oriented = b.transformed(plan.orientation);
        assert!(oriented.rows()[0].count_ones() < 14, "orientation {:?} left the first row open", plan.orientation);
    }

    #[test]
    fn mirrors_of_the_rows_alone_are_not_worth_using() {
        use Sym::*;
        assert_eq!(useful_subgroup(&[Identity, FlipColumns, FlipRows, Rot180]), vec![Identity, FlipColumns]);
        assert_eq!(useful_subgroup(&[Identity, FlipRows]), vec![Identity]);
        assert_eq!(useful_subgroup(&[Identity, Transpose]), vec![Identity, Transpose]);
        assert_eq!(useful_subgroup(&Sym::ALL), Sym::ALL.to_vec());
    }

    #[test]
    fn a_board_mirrored_top_to_bottom_is_turned_so_the_mirror_is_left_to_right() {
        // Obstacles symmetric under the row mirror only.
        let b = Board::from_fn(13, |r, c| !((r == 3 || r == 9) && c < 4) && !(r == 6 && c == 0)).unwrap();
        assert_eq!(symmetry::invariant_group(&b), vec![Sym::Identity, Sym::FlipRows]);
        let plan = Plan::optimized(&b);
        assert!(plan.group.contains(&Sym::FlipColumns), "orientation {:?} kept group {:?}", plan.orientation, plan.group);
    }

    /// The exact number of nodes of the search tree of `rows` below row `row`.
    fn exact(rows: &[u32], row: usize, (cols, ld, rd): (u32, u32, u32)) -> f64 {
        let mut avail = rows.get(row).copied().unwrap_or(0) & !(cols | ld | rd);
        let mut total = 0.0;
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            total += 1.0 + exact(rows, row + 1, (cols | bit, (ld | bit) << 1, (rd | bit) >> 1));
        }
        total
    }

    #[test]
    fn the_boards_of_a_split_are_turned_to_smaller_trees() {
        let board = Board::empty(12).unwrap();
        let split = symmetry::frame_split(&board, &Sym::ALL);
        let plan = Plan::symmetric(&board, Sym::Identity).turned();
        assert_eq!(plan.weights, split.iter().map(|w| w.weight).collect::<Vec<_>>());
        let nodes = |boards: &mut dyn Iterator<Item = &[u32]>| boards.map(|rows| exact(rows, 0, (0, 0, 0))).sum::<f64>();
        let as_split = nodes(&mut split.iter().map(|w| w.board.rows()));
        let turned = nodes(&mut plan.boards.iter().map(|rows| rows.as_slice()));
        assert!(plan.turned > 0 && plan.turned < plan.boards.len(), "{} of {} boards turned", plan.turned, plan.boards.len());
        // Exact counts: 243,595 nodes as split, 166,181 with every board turned its best way.
        assert!(turned < 0.75 * as_split, "{turned} nodes turned against {as_split} as split");
    }

    #[test]
    fn planning_may_cut_more_from_boards_with_more_symmetry() {
        assert_eq!(planning_cut(&Board::empty(12).unwrap()), PLANNING_CUT);
        let mirrored = Board::from_fn(12, |r, c| (r * 7 + c.min(11 - c) * 3) % 5 != 0).unwrap();
        assert_eq!(planning_cut(&mirrored), 2.0 * ORIENTATION_CUT);
        let lopsided = Board::empty(12).unwrap().without(0, 1).without(5, 9);
        assert_eq!(planning_cut(&lopsided), ORIENTATION_CUT);
    }

    #[test]
    fn an_empty_board_uses_all_eight_symmetries() {
        let plan = Plan::optimized(&Board::empty(12).unwrap());
        assert_eq!(plan.group.len(), 8);
        assert!(plan.boards.len() > 1);
    }
}
