//! The CPU counter's fast paths on x86-64: many prefixes searched side by side, one per
//! vector lane, every lane taking one step of its own depth-first search per pass.
//!
//! The scalar search spends most of its time on mispredicted branches: whether a row has a
//! cell left is a coin toss at every node. Here each lane's step is computed branch-free
//! and blended in (place a queen, go down, or back up), so the only branches left are the
//! rare ones where a lane finishes its prefix. Same search, same pruning and the same
//! closed form for the last two rows as [`crate::cpu`]; only the schedule differs, and
//! the due columns where [`Lanes::uses_due`] says the lanes leave them out.
//!
//! Two widths: sixteen lanes with AVX-512 (`avx512.rs`, where the CPU has it and the board
//! suits it), else eight with AVX2 (`avx2.rs`).

mod avx2;
mod avx512;

use std::iter::Peekable;

use crate::board::next_cells;
use crate::control::{Control, Interrupted};
use crate::plan::Plan;
use crate::prefix::Prefix;
use crate::tally::Tally;

/// Every board of a plan, rows end to end (board `b`'s row `r` at `b * n + r`), as the
/// AVX2 lanes gather them by index.
pub struct Flat {
    rows: Vec<u32>,
    due: Vec<u32>,
}

impl Flat {
    /// The plan's row masks and due columns, flattened.
    pub fn new(plan: &Plan) -> Flat {
        Flat { rows: plan.boards.concat(), due: plan.due.concat() }
    }
}

/// An instruction set the lanes can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// Eight 32-bit lanes.
    Avx2,
    /// Sixteen 32-bit lanes, with a native population count.
    Avx512,
}

/// The environment variable that narrows the CPU's search, for testing and timing each one
/// on a machine that has a wider: `avx2` (at most eight lanes) or `scalar` (no lanes).
pub const SEARCH_VARIABLE: &str = "NQUEEN_CPU_SEARCH";

impl Isa {
    /// Every instruction set this CPU supports, widest first.
    pub fn available() -> Vec<Isa> {
        let mut found = Vec::new();
        if avx512::supported() {
            found.push(Isa::Avx512);
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            found.push(Isa::Avx2);
        }
        found
    }

    /// The widest instruction set the lanes use here: the widest available, narrowed by
    /// [`SEARCH_VARIABLE`]; `None` for the scalar search.
    pub fn chosen() -> Option<Isa> {
        static CHOSEN: std::sync::OnceLock<Option<Isa>> = std::sync::OnceLock::new();
        *CHOSEN.get_or_init(|| {
            let widest = match std::env::var(SEARCH_VARIABLE).as_deref() {
                Ok("scalar") => return None,
                Ok("avx2") => Isa::Avx2,
                _ => Isa::Avx512,
            };
            Isa::available().into_iter().find(|&isa| isa == widest || widest == Isa::Avx512)
        })
    }
}

/// The lanes chosen for prefixes at one row of one plan: the width, and what it needs.
pub enum Lanes {
    /// Sixteen lanes with a register stack of `words` words, one row table where `shared`
    /// holds rows that serve every board; `due`: whether they look at the due columns.
    Avx512 { words: usize, shared: Option<Vec<u32>>, due: bool },
    /// Eight lanes, gathering rows from `flat`; `due` likewise.
    Avx2 { flat: Flat, due: bool },
}

impl Lanes {
    /// The lanes for prefixes at row `depth` of `plan` on `isa` (one of
    /// [`Isa::available`]): AVX-512 only where the board suits its register stack, else
    /// AVX2; `None` where fewer than three rows are left to search. Due columns are looked
    /// at where some matter, except on sixteen lanes and many boards (see
    /// `avx512::honours_due`).
    pub fn new(isa: Isa, plan: &Plan, depth: usize) -> Option<Lanes> {
        assert!(Isa::available().contains(&isa), "this CPU lacks {isa:?}");
        if depth + 3 > plan.n {
            return None;
        }
        let due = plan.any_due(depth);
        Some(if isa == Isa::Avx512 && avx512::suits(plan, depth) {
            let (words, shared) = (avx512::words(plan, depth), avx512::shared_rows(plan, depth));
            Lanes::Avx512 { words, shared, due: due && avx512::honours_due(plan) }
        } else {
            Lanes::Avx2 { flat: Flat::new(plan), due }
        })
    }

    /// The instruction set these lanes run on.
    pub fn isa(&self) -> Isa {
        match self {
            Lanes::Avx512 { .. } => Isa::Avx512,
            Lanes::Avx2 { .. } => Isa::Avx2,
        }
    }

    /// Whether these lanes look at the due columns.
    pub fn uses_due(&self) -> bool {
        match self {
            Lanes::Avx512 { due, .. } | Lanes::Avx2 { due, .. } => *due,
        }
    }

    /// Completes `items` (prefixes at the row and of the plan these lanes were made for)
    /// and returns the weighted solutions and nodes.
    pub fn count<'a>(
        &self,
        plan: &Plan,
        depth: usize,
        items: impl Iterator<Item = &'a Prefix>,
        ctl: &Control,
    ) -> Result<Tally, Interrupted> {
        match self {
            Lanes::Avx512 { words, shared, due } => avx512::count(*words, shared.as_deref(), plan, depth, *due, items, ctl),
            Lanes::Avx2 { flat, due } => avx2::count(plan, flat, depth, *due, items, ctl),
        }
    }
}

/// Where lanes get their prefixes: `items`, all at row `depth` of `plan`, whose cells in
/// that row take the due columns into account if `due`.
struct Feed<'p, 'a, I: Iterator<Item = &'a Prefix>> {
    items: Peekable<I>,
    plan: &'p Plan,
    depth: usize,
    due: bool,
}

/// The lanes' state spilled to arrays, where lanes change prefixes one by one.
struct Spill<const L: usize> {
    avail: [u32; L],
    cols: [u32; L],
    ld: [u32; L],
    rd: [u32; L],
    /// The lane's row on its board.
    row: [u32; L],
    /// The board's first row in [`Flat`].
    base: [u32; L],
    /// The lane's count since its last flush.
    sub: [u32; L],
    /// The weight of the prefix each lane holds; None for an idle lane.
    weight: [Option<u64>; L],
}

impl<const L: usize> Default for Spill<L> {
    fn default() -> Self {
        Spill { avail: [0; L], cols: [0; L], ld: [0; L], rd: [0; L], row: [0; L], base: [0; L], sub: [0; L], weight: [None; L] }
    }
}

impl<const L: usize> Spill<L> {
    /// Adds the lanes in `lanes` (a bit mask) to `total` and clears their counts.
    fn flush(&mut self, lanes: u32, total: &mut Tally) {
        for (lane, (sub, weight)) in self.sub.iter_mut().zip(&self.weight).enumerate() {
            if lanes & (1 << lane) != 0 {
                *total += Tally::weighted(u64::from(*sub), weight.unwrap_or(0), 0);
                *sub = 0;
            }
        }
    }

    /// Ends the prefixes of the lanes in `done` and hands idle lanes the next prefixes of
    /// `feed`, in lane order, while `admit` takes them; returns the mask of lanes holding a
    /// prefix.
    fn refill<'a, I: Iterator<Item = &'a Prefix>>(
        &mut self,
        done: u32,
        feed: &mut Feed<'_, 'a, I>,
        total: &mut Tally,
        mut admit: impl FnMut(usize, &Prefix) -> bool,
    ) -> u32 {
        let Feed { items, plan, depth, due } = feed;
        let (plan, depth) = (*plan, *depth);
        self.flush(done, total);
        let mut active = 0;
        for lane in 0..L {
            if done & (1 << lane) != 0 {
                self.weight[lane] = None;
            }
            if self.weight[lane].is_none() {
                match items.next_if(|p| admit(lane, p)) {
                    Some(p) => {
                        let b = p.board as usize;
                        self.weight[lane] = Some(plan.weights[b]);
                        let late = if *due { plan.due[b][depth] } else { 0 };
                        self.avail[lane] = next_cells(plan.boards[b][depth], late, p.cols, p.ld, p.rd);
                        (self.cols[lane], self.ld[lane], self.rd[lane]) = (p.cols, p.ld, p.rd);
                        self.base[lane] = (b * plan.n) as u32;
                    }
                    // An idle lane sits at its first row with nothing left: it never moves.
                    None => self.avail[lane] = 0,
                }
                self.row[lane] = depth as u32;
            }
            if self.weight[lane].is_some() {
                active |= 1 << lane;
            }
        }
        active
    }
}
