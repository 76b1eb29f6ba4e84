//! Which search the CPU runs over a count's prefixes, and how fast it is expected to be:
//! the lanes of [`super::lanes`] where they pay, else the scalar search
//! ([`super::count_prefix`]).

use super::count_prefix;
#[cfg(target_arch = "x86_64")]
use super::{descend, lanes};
use crate::control::{Control, Interrupted};
#[cfg(target_arch = "x86_64")]
use crate::estimate;
use crate::plan::Plan;
use crate::prefix::Prefix;
use crate::tally::Tally;
use crate::tuning::SCALAR_NODES_PER_THREAD_SECOND;
#[cfg(target_arch = "x86_64")]
use crate::tuning::{DESCEND_COST, LANES_SPEEDUP, LANE_START};

/// Dives that estimate what the lanes would search of a count (see [`estimate::below`]).
#[cfg(target_arch = "x86_64")]
const BELOW_DIVES: u32 = 256;

/// How many times faster than [`count_prefix`] the search that [`super::count`] runs on prefixes
/// at row `depth` of `plan` gets through nodes, on one thread (see `Search::new`).
pub fn speedup_over_scalar(plan: &Plan, depth: usize) -> f64 {
    Search::new(plan, depth).profile().1
}

/// Search nodes per second `threads` threads get through on prefixes at row `depth` of
/// `plan`, by [`SCALAR_NODES_PER_THREAD_SECOND`] and the search they would run.
pub fn nodes_per_second(plan: &Plan, depth: usize, threads: usize) -> f64 {
    SCALAR_NODES_PER_THREAD_SECOND * speedup_over_scalar(plan, depth) * threads as f64
}

/// How many times faster than [`count_prefix`] the widest search this CPU runs gets through
/// nodes where its lanes start at the prefixes: what a board is judged by before it is
/// planned.
pub fn widest_speedup() -> f64 {
    #[cfg(target_arch = "x86_64")]
    return match lanes::Isa::chosen() {
        Some(lanes::Isa::Avx512) => LANES_SPEEDUP[0],
        Some(lanes::Isa::Avx2) => LANES_SPEEDUP[1],
        None => 1.0,
    };
    #[cfg(not(target_arch = "x86_64"))]
    1.0
}

/// The search [`super::count`] runs on prefixes at row `depth` of `plan` on this CPU, for
/// `--stats`: "avx512" or "avx2" lanes (with the row they start at where it is deeper
/// than `depth`), or "scalar".
pub fn search_name(plan: &Plan, depth: usize) -> String {
    let search = Search::new(plan, depth);
    match search {
        #[cfg(target_arch = "x86_64")]
        Search::Lanes(_, row, _) if row > depth => format!("{} from row {row}", search.profile().0),
        _ => search.profile().0.to_string(),
    }
}

/// A plan's [`estimate::below`] of a row, and what it was asked.
#[cfg(target_arch = "x86_64")]
struct Remembered {
    boards: Vec<Vec<u32>>,
    due: Vec<Vec<u32>>,
    rows: (usize, usize),
    below: estimate::Below,
}

/// How many [`Remembered`] a thread keeps: a count and the name its record gives the
/// search may set up searches from two rows, and a shard's prefixes made finer from a third.
#[cfg(target_arch = "x86_64")]
const REMEMBERED: usize = 4;

#[cfg(target_arch = "x86_64")]
thread_local! {
    /// The last [`Remembered`] on this thread, newest last: a count and the name its record
    /// gives the search set up the same search, and so do the shards of one board in turn.
    static LAST_BELOW: std::cell::RefCell<Vec<Remembered>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`estimate::below`] of row `row` in a count of `plan` from row `from`, from
/// [`BELOW_DIVES`] dives, or as this thread lately found it for the same.
#[cfg(target_arch = "x86_64")]
fn remembered_below(plan: &Plan, from: usize, row: usize) -> estimate::Below {
    LAST_BELOW.with_borrow_mut(|last| {
        let same = |r: &Remembered| r.rows == (from, row) && r.boards == plan.boards && r.due == plan.due;
        if let Some(r) = last.iter().find(|r| same(r)) {
            return r.below;
        }
        let below = estimate::below(&plan.boards, &plan.due, from, row, BELOW_DIVES);
        if last.len() == REMEMBERED {
            last.remove(0);
        }
        last.push(Remembered { boards: plan.boards.clone(), due: plan.due.clone(), rows: (from, row), below });
        below
    })
}

/// The search one thread runs over its prefixes: sixteen or eight lanes at a time where the
/// CPU has AVX-512 or AVX2, from the prefixes' row or a few rows further down, else one
/// prefix at a time.
pub(super) enum Search {
    /// The lanes, the row they start at, and how many times faster than the scalar search
    /// they are expected to be.
    #[cfg(target_arch = "x86_64")]
    Lanes(lanes::Lanes, usize, f64),
    Scalar,
}

impl Search {
    /// The fastest search this CPU can run on prefixes at row `depth` of `plan`: the lanes
    /// from the first row at or below `depth` that suits them (see [`lanes::suits`]), where
    /// they are expected to be faster than the scalar search. On large boards a lane's
    /// stack fits only the last few rows, whose partial boards may hold too few nodes to
    /// pay for a lane's start.
    pub(super) fn new(plan: &Plan, depth: usize) -> Search {
        #[cfg(target_arch = "x86_64")]
        if let Some(isa) = lanes::Isa::chosen() {
            if let Some((lanes, row)) = (depth..plan.n).find_map(|row| lanes::Lanes::new(isa, plan, row).map(|l| (l, row))) {
                let below = remembered_below(plan, depth, row);
                let widest = match isa {
                    lanes::Isa::Avx512 => LANES_SPEEDUP[0],
                    lanes::Isa::Avx2 => LANES_SPEEDUP[1],
                };
                let in_lanes = 1.0 / widest + LANE_START / below.per_start.max(1e-9).sqrt();
                let speedup = 1.0 / ((1.0 - below.share) * DESCEND_COST + below.share * in_lanes);
                if speedup > 1.0 {
                    return Search::Lanes(lanes, row, speedup);
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (plan, depth);
        Search::Scalar
    }

    /// The search's name, and how many times faster than the scalar search it is expected
    /// to get through nodes on one thread: the lanes' speedup at its low end over the
    /// benchmark boards (4.4 for AVX-512, 1.7 for AVX2), less what their starts and the
    /// rows above them cost.
    fn profile(&self) -> (&'static str, f64) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Search::Lanes(lanes, _, speedup) => match lanes.isa() {
                lanes::Isa::Avx512 => ("avx512", *speedup),
                lanes::Isa::Avx2 => ("avx2", *speedup),
            },
            Search::Scalar => ("scalar", 1.0),
        }
    }

    /// Completes `prefixes` (at row `depth`): weighted solutions and nodes.
    pub(super) fn run(
        &self,
        plan: &Plan,
        depth: usize,
        prefixes: impl Iterator<Item = Prefix>,
        ctl: &Control,
    ) -> Result<Tally, Interrupted> {
        match self {
            #[cfg(target_arch = "x86_64")]
            Search::Lanes(lanes, row, _) if *row == depth => lanes.count(plan, depth, prefixes, ctl),
            #[cfg(target_arch = "x86_64")]
            Search::Lanes(lanes, row, _) => {
                let nodes = std::cell::Cell::new(0);
                let below = prefixes.flat_map(|p| descend::Descend::new(plan, p, depth, *row, lanes.uses_due(), &nodes));
                let tally = lanes.count(plan, *row, below, ctl)?;
                Ok(tally + Tally { solutions: 0, nodes: u128::from(nodes.get()) })
            }
            Search::Scalar => prefixes.into_iter().try_fold(Tally::default(), |t, p| {
                let b = p.board as usize;
                let (solutions, nodes) = count_prefix(&plan.boards[b], &plan.due[b], depth, &p, ctl)?;
                Ok(t + Tally::weighted(solutions, plan.weights[b], nodes))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn a_remembered_estimate_is_the_plans_own() {
        // Boards whose due columns bite from the first row, the same without them, another.
        let board = Board::from_fn(12, |r, c| !(c < 2 && r >= 5) && (r * 5 + c * 3) % 13 != 0).unwrap();
        let due = Plan::plain(&board);
        let undue = Plan { due: vec![vec![0; 12]], ..due.clone() };
        let other = Plan::plain(&Board::empty(12).unwrap());
        let fresh = |plan: &Plan, from, row| estimate::below(&plan.boards, &plan.due, from, row, BELOW_DIVES);
        assert_ne!(fresh(&due, 0, 4), fresh(&undue, 0, 4));
        for (plan, from, row) in [(&due, 0, 4), (&due, 0, 4), (&undue, 0, 4), (&due, 0, 4), (&due, 1, 4), (&due, 0, 5), (&other, 0, 4)] {
            assert_eq!(remembered_below(plan, from, row), fresh(plan, from, row), "rows {from} to {row}");
        }
    }
}
