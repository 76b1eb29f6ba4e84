//! Helpers shared by the integration tests: the oracle and board generators.

#![allow(dead_code)] // each test crate uses its own share of these helpers

use std::collections::HashSet;

use nqueen::board::Board;
use nqueen::control::Control;
use nqueen::cpu::{self, Schedule};
use nqueen::plan::Plan;
use nqueen::prefix;
use nqueen::solve::{BackendChoice, Options, Solver};

/// OEIS A000170: solutions on an empty n×n board, n = 1, 2, ...
pub const A000170: [u64; 20] =
    [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512, 95815104, 666090624, 4968057848, 39029188884];

/// The obviously-correct count: plain recursion with sets of used columns and diagonals.
pub fn oracle(board: &Board) -> u64 {
    fn place(b: &Board, r: usize, cols: &mut HashSet<usize>, d1: &mut HashSet<usize>, d2: &mut HashSet<isize>) -> u64 {
        let n = b.n();
        if r == n {
            return 1;
        }
        let mut total = 0;
        for c in 0..n {
            let (a, d) = (r + c, r as isize - c as isize);
            if b.is_free(r, c) && !cols.contains(&c) && !d1.contains(&a) && !d2.contains(&d) {
                cols.insert(c);
                d1.insert(a);
                d2.insert(d);
                total += place(b, r + 1, cols, d1, d2);
                cols.remove(&c);
                d1.remove(&a);
                d2.remove(&d);
            }
        }
        total
    }
    place(board, 0, &mut HashSet::new(), &mut HashSet::new(), &mut HashSet::new())
}

/// Counts with the library on the CPU, with or without orientation and symmetry.
pub fn count_cpu(board: &Board, no_symmetry: bool) -> u64 {
    let options = Options { backend: BackendChoice::Cpu, no_symmetry, ..Options::default() };
    let mut solver = Solver::new(options);
    solver.solve(board, &Control::default()).expect("not cancelled").count
}

/// Counts a plan on the CPU from prefixes `min_prefixes` deep.
pub fn count_plan(plan: &Plan, min_prefixes: usize) -> u64 {
    let prefixes = prefix::expand(plan, min_prefixes);
    cpu::count(plan, &prefixes, Schedule::Dynamic, &Control::default()).expect("not cancelled").solutions
}

/// A small deterministic generator (xorshift64*), so that failures reproduce from the seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p && p > 0.0
    }
}

/// A board of side `n` whose cells are obstacles with probability `density`.
pub fn random_board(rng: &mut Rng, n: usize, density: f64) -> Board {
    Board::from_fn(n, |_, _| !rng.chance(density)).expect("n within range")
}
