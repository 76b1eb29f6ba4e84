//! The sieves a solver keeps (see [`crate::sieve`]), and when it counts a board by one. A
//! sieve of side `n` is made once the boards of that side would save more by it than it
//! costs to make: those counted so far without one, the board at hand, and those queued
//! behind it (see [`Sieves::queue`]). Once made, it counts each board of its side whose
//! search would take longer than the sieve.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::board::Board;
use crate::cpu;
use crate::estimate;
use crate::plan::{self, PROBE_DIVES};
use crate::sieve::{Sieve, MAX_N};
use crate::tuning::{
    DIVE_ROW_SECONDS, NODES_PER_ESTIMATED_NODE, PLANNING_PAYS_NODES, SCALAR_NODES_PER_THREAD_SECOND, SIEVE_MARGIN,
    SIEVE_SECONDS_PER_SOLUTION, SIEVE_SECONDS_PER_WORD,
};

/// The sides a sieve may serve: smaller boards' trees hold too few nodes to gain (most
/// are counted at once by the planner's probe), and 16x16's sets would take 473 MB.
const SIDES: std::ops::RangeInclusive<usize> = 10..=MAX_N;

/// The environment variable that turns sieves off, to test or time the search on files
/// of many boards: `off`.
pub const SIEVE_VARIABLE: &str = "NQUEEN_SIEVE";

/// Whether [`SIEVE_VARIABLE`] turns sieves off, as it was when first asked.
pub(super) fn switched_off() -> bool {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OFF.get_or_init(|| std::env::var(SIEVE_VARIABLE).is_ok_and(|v| v == "off"))
}

/// Dives of the estimate a board is judged by, before and when it is counted.
const DIVES: u32 = 64;

/// The empty board's solutions for n = 0..=MAX_N (OEIS A000170): what a sieve keeps.
const SOLUTIONS: [u64; MAX_N + 1] = [1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184];

/// A board counted by a sieve: its count, and what making the sieve took where this board
/// had it made.
pub(super) struct Sieved {
    pub count: u64,
    pub solutions: u64,
    pub made_in: Option<Duration>,
}

#[derive(Default)]
pub(super) struct Sieves {
    /// The sieve of each side, once made.
    made: Vec<Option<Sieve>>,
    /// By side, the seconds a sieve would have saved on the boards counted without one.
    missed: [f64; MAX_N + 1],
    /// The boards queued for a count, in order, with what a sieve would save on each, and
    /// that by side.
    queued: VecDeque<(Board, f64)>,
    queued_saving: [f64; MAX_N + 1],
}

impl Sieves {
    /// `board` will be counted after those queued before it.
    pub(super) fn queue(&mut self, board: &Board) {
        if SIDES.contains(&board.n()) {
            let saving = Costs::of(board).saving();
            self.queued_saving[board.n()] += saving;
            self.queued.push_back((board.clone(), saving));
        }
    }

    /// `board`, the first of those queued or one never queued, is taken to be counted
    /// (whether or not by sieve).
    pub(super) fn taken(&mut self, board: &Board) {
        if self.queued.front().is_some_and(|(queued, _)| queued == board) {
            let (_, saving) = self.queued.pop_front().expect("a front");
            self.queued_saving[board.n()] -= saving;
        }
    }

    /// Counts `board` by the sieve of its side where that is faster than a search, making
    /// the sieve first where it now pays (on the current rayon pool); `None` where the
    /// board is to be searched.
    pub(super) fn count(&mut self, board: &Board) -> Option<Sieved> {
        let n = board.n();
        if !SIDES.contains(&n) {
            return None;
        }
        let costs = Costs::of(board);
        if self.made.len() <= n {
            self.made.resize_with(n + 1, || None);
        }
        let mut made_in = None;
        if self.made[n].is_none() {
            let threads = rayon::current_num_threads() as f64;
            let [alone, shared] = SIEVE_SECONDS_PER_SOLUTION;
            let making = SIEVE_MARGIN * SOLUTIONS[n] as f64 * (alone + shared / threads);
            if self.missed[n] + costs.saving() + self.queued_saving[n].max(0.0) < making {
                self.missed[n] += costs.saving();
                return None;
            }
            let started = Instant::now();
            self.made[n] = Sieve::new(n);
            made_in = Some(started.elapsed());
        }
        let sieve = self.made[n].as_ref()?;
        (made_in.is_some() || costs.saving() > 0.0).then(|| Sieved { count: sieve.count(board), solutions: sieve.solutions(), made_in })
    }
}

/// What a board costs by search and by sieve, in seconds on the current rayon pool.
struct Costs {
    search: f64,
    sieve: f64,
}

impl Costs {
    fn of(board: &Board) -> Costs {
        let n = board.n();
        let threads = rayon::current_num_threads() as f64;
        let tree = estimate::tree(board.rows(), DIVES);
        let rate = SCALAR_NODES_PER_THREAD_SECOND * cpu::widest_speedup() * threads;
        let planning = if tree >= PLANNING_PAYS_NODES { 8.0 * f64::from(PROBE_DIVES) * n as f64 * DIVE_ROW_SECONDS } else { 0.0 };
        let search = tree * NODES_PER_ESTIMATED_NODE / plan::symmetry_gain(board) / rate + planning;
        let words = (SOLUTIONS[n] as usize).div_ceil(64);
        let sieve = (Sieve::sets_for(board) * words) as f64 * SIEVE_SECONDS_PER_WORD;
        Costs { search, sieve }
    }

    /// What the sieve saves over the search, if anything.
    fn saving(&self) -> f64 {
        (self.search - self.sieve).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_of_solutions_is_the_sieves_own() {
        for (n, &want) in SOLUTIONS.iter().enumerate().take(12).skip(1) {
            assert_eq!(Sieve::new(n).map(|s| s.solutions()), Some(want), "n={n}");
        }
    }

    #[test]
    fn a_sieve_is_made_once_the_boards_of_its_side_pay_for_it() {
        let board = |seed: usize| Board::from_fn(14, |r, c| !(r * 7 + c * 3 + seed).is_multiple_of(10)).unwrap();
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        one.install(|| {
            // One board alone does not pay for the sieve; forty queued behind it do.
            let mut alone = Sieves::default();
            assert!(alone.count(&board(0)).is_none());
            let mut many = Sieves::default();
            for seed in 1..40 {
                many.queue(&board(seed));
            }
            many.taken(&board(0));
            assert_eq!(many.queued.len(), 39);
            let first = many.count(&board(0)).expect("made for the first board");
            assert!(first.made_in.is_some() && first.solutions == 365_596);
            many.taken(&board(1));
            let second = many.count(&board(1)).expect("kept");
            assert!(second.made_in.is_none());
            assert_eq!(many.queued.len(), 38);
            // Boards of other sides, and of sides no sieve serves, are searched.
            assert!(many.count(&Board::empty(9).unwrap()).is_none());
            assert!(many.count(&Board::empty(16).unwrap()).is_none());
        });
    }

    #[test]
    fn boards_counted_without_a_sieve_add_up_to_one() {
        let board = Board::from_fn(13, |r, c| (r * 5 + c) % 11 != 0).unwrap();
        let mut sieves = Sieves::default();
        let made = (0..1000).find_map(|i| sieves.count(&board).map(|s| (i, s))).expect("made at last");
        assert!(made.0 > 0 && made.1.made_in.is_some(), "made for board {}", made.0);
    }
}
