//! The CPU counter's fast paths on x86-64: many prefixes searched side by side, one per
//! vector lane, every lane taking one step of its own depth-first search per pass.
//!
//! The scalar search spends most of its time on mispredicted branches: whether a row has a
//! cell left is a coin toss at every node. Here each lane's step is computed branch-free
//! and blended in (place a queen, go down, or back up), so the only branches left are the
//! rare ones where a lane finishes its prefix. Same search, same pruning and the same
//! closed form for the last two rows as [`crate::cpu`]; only the schedule differs, and the
//! due columns, which the lanes look at on plans of one board only (see [`honours_due`]).
//!
//! One design (`search.rs`), two widths: sixteen lanes with AVX-512 (`avx512.rs`, with
//! VPOPCNTDQ and CD), else eight with AVX2 (`avx2.rs`), each giving the few operations the
//! search needs (`Simd`). Both keep a lane's stack in registers, so they take boards
//! whose stack fits (see [`suits`]); others get the scalar search.

mod avx2;
mod avx512;
mod isa;
mod search;

use std::iter::Peekable;

use crate::board::next_cells;
use crate::control::{Control, Interrupted};
use crate::plan::Plan;
use crate::prefix::Prefix;
use crate::tally::Tally;
pub use isa::{Isa, SEARCH_VARIABLE};

/// The most lanes of any width.
const MAX_LANES: usize = 16;
/// Queen columns per stack word: six of five bits (bits 30 and 31 hold leftovers).
const PER_WORD: usize = 6;

/// The operations the lanes' search needs, on vectors `V` of 32-bit lanes, masks of lanes
/// `M`, and tables `T` of 32 rows. Every one is `inline(always)`, so that it compiles into
/// the search, which is compiled for the instruction set.
pub(super) trait Simd: Copy {
    const LANES: usize;
    /// Whether a lane that steps up places its next queen in the same pass: fewer passes,
    /// each a longer chain of dependent instructions. It pays where passes are bound by the
    /// instructions they issue (eight lanes in sixteen registers spill), not by that chain.
    const STEP_AND_PLACE: bool;
    /// The rows a table holds.
    const ROWS: usize;
    type V: Copy;
    type M: Copy;
    type T: Copy;

    unsafe fn splat(x: i32) -> Self::V;
    unsafe fn load(a: &[u32; MAX_LANES]) -> Self::V;
    unsafe fn store(a: &mut [u32; MAX_LANES], v: Self::V);
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn sub(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn and(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn or(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn xor(a: Self::V, b: Self::V) -> Self::V;
    /// `!a & b`.
    unsafe fn andnot(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn or3(a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    unsafe fn shl<const K: u32>(a: Self::V) -> Self::V;
    unsafe fn shr<const K: u32>(a: Self::V) -> Self::V;
    /// Each lane shifted left by the matching lane of `by`.
    unsafe fn shlv(a: Self::V, by: Self::V) -> Self::V;
    unsafe fn shrv(a: Self::V, by: Self::V) -> Self::V;
    unsafe fn eq(a: Self::V, b: Self::V) -> Self::M;
    unsafe fn is_zero(a: Self::V) -> Self::M;
    unsafe fn nonzero(a: Self::V) -> Self::M;
    /// `yes` in the lanes of `m`, `no` in the others.
    unsafe fn select(m: Self::M, yes: Self::V, no: Self::V) -> Self::V;
    /// `last_two_rows` of [`crate::board`] in every lane: |a|·|b| minus the cells of `b`
    /// that `a`, `a<<1` and `a>>1` cover.
    unsafe fn last_two_rows(a: Self::V, b: Self::V) -> Self::V;
    /// The column of each lane's one set bit.
    unsafe fn column(bit: Self::V) -> Self::V;
    /// A table of `rows` (at most [`Simd::ROWS`]), the missing ones 0.
    unsafe fn table(rows: &[u32]) -> Self::T;
    /// Each lane's row of `t` at its index in `row` (below [`Simd::ROWS`]; others give
    /// rows of no use, for lanes whose result is not used).
    unsafe fn lookup(t: &Self::T, row: Self::V) -> Self::V;
    /// The lanes of `m` as bits, lane 0 lowest.
    unsafe fn m_bits(m: Self::M) -> u32;
    unsafe fn m_from_bits(bits: u32) -> Self::M;
    unsafe fn m_and(a: Self::M, b: Self::M) -> Self::M;
    /// `a & !b`.
    unsafe fn m_andnot(a: Self::M, b: Self::M) -> Self::M;
    unsafe fn m_not(a: Self::M) -> Self::M;
}

/// Queens a lane's stack holds at most: rows `depth..n-3` each push one before going down.
fn stack_rows(plan: &Plan, depth: usize) -> usize {
    plan.n.saturating_sub(3 + depth)
}

/// Whether the lanes of `isa` can take prefixes at row `depth` of `plan`: three rows left
/// to search, a stack no deeper than `rd` has spare bits (see `search.rs`), and no more
/// rows below the prefixes than a table holds.
pub fn suits(isa: Isa, plan: &Plan, depth: usize) -> bool {
    let rows = match isa {
        Isa::Avx512 => <avx512::Avx512 as Simd>::ROWS,
        Isa::Avx2 => <avx2::Avx2 as Simd>::ROWS,
    };
    depth + 3 <= plan.n && stack_rows(plan, depth) <= 32 - plan.n && plan.n - depth <= rows
}

/// Whether the lanes look at `plan`'s due columns (where some matter): only on a plan of
/// one board, where they come from obstacles and may cut whole subtrees. On the symmetry
/// splits' many boards the check costs more time than the nodes it saves.
pub fn honours_due(plan: &Plan) -> bool {
    plan.boards.len() == 1
}

/// Stack words a lane needs at row `depth` of `plan`.
fn words(plan: &Plan, depth: usize) -> usize {
    stack_rows(plan, depth).div_ceil(PER_WORD)
}

/// Row masks that serve every board of `plan` (one at least) from row `depth` on, if some
/// do: their union, where each board lacks only cells its prefixes always attack, those of
/// the queen its first row forces. True of a plan of one board, and of the mirror's split,
/// whose boards have their first queen's attacks taken out. The lanes' cells,
/// `rows & !(cols | ld | rd)`, are then the same.
pub fn shared_rows(plan: &Plan, depth: usize) -> Option<Vec<u32>> {
    let mut union = vec![0u32; plan.n];
    for board in &plan.boards {
        for (u, row) in union.iter_mut().zip(board).skip(depth) {
            *u |= row;
        }
    }
    let fits = !plan.boards.is_empty()
        && plan.boards.iter().all(|board| {
            let q = if depth > 0 && board[0].count_ones() == 1 { board[0] } else { 0 };
            (depth..plan.n).all(|r| union[r] & !board[r] & !(q | q << r | q >> r) == 0)
        });
    fits.then_some(union)
}

/// The lanes chosen for prefixes at one row of one plan.
pub struct Lanes {
    isa: Isa,
    /// Stack words per lane.
    words: usize,
    /// Rows that serve every board, where some do: the lanes then take any board's prefixes.
    shared: Option<Vec<u32>>,
    /// Whether they look at the due columns.
    due: bool,
}

impl Lanes {
    /// The lanes for prefixes at row `depth` of `plan` on `isa` (one of
    /// [`Isa::available`]); `None` where the board does not suit them (see [`suits`]).
    pub fn new(isa: Isa, plan: &Plan, depth: usize) -> Option<Lanes> {
        assert!(Isa::available().contains(&isa), "this CPU lacks {isa:?}");
        suits(isa, plan, depth).then(|| Lanes {
            isa,
            words: words(plan, depth),
            shared: shared_rows(plan, depth),
            due: plan.any_due(depth) && honours_due(plan),
        })
    }

    /// The instruction set these lanes run on.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Whether these lanes look at the due columns.
    pub fn uses_due(&self) -> bool {
        self.due
    }

    /// Completes `items` (prefixes at the row and of the plan these lanes were made for)
    /// and returns the weighted solutions and nodes.
    pub fn count(&self, plan: &Plan, depth: usize, items: impl Iterator<Item = Prefix>, ctl: &Control) -> Result<Tally, Interrupted> {
        let shared = self.shared.as_deref();
        // SAFETY: `new` saw the instruction set, and the board suits the lanes.
        unsafe {
            match self.isa {
                Isa::Avx512 => avx512::count(self.words, self.due, shared, plan, depth, items, ctl),
                Isa::Avx2 => avx2::count(self.words, self.due, shared, plan, depth, items, ctl),
            }
        }
    }
}

/// Defines a width's entry point, `count`: it picks the search for `words` stack words,
/// `due` columns and a `shared` table, and runs it compiled for the width's `$features`,
/// over the width's [`Simd`] `$simd`.
macro_rules! entry_point {
    ($simd:ty, $features:literal) => {
        /// [`super::Lanes::count`] on this width with stacks of `words` words.
        ///
        /// # Safety
        /// Only where [`supported`], on a board that suits the lanes (see [`super::suits`]).
        pub(super) unsafe fn count(
            words: usize,
            due: bool,
            shared: Option<&[u32]>,
            plan: &Plan,
            depth: usize,
            items: impl Iterator<Item = Prefix>,
            ctl: &Control,
        ) -> Result<Tally, Interrupted> {
            // Many boards whose rows fit a table two at a time share it, half each; where they
            // do not, and share no rows, they take it in turn.
            let packed = !due && shared.is_none() && packs::<$simd>(plan.n, depth);
            let in_turn = shared.is_none() && !packed;
            match (due, packed, in_turn, words <= 2) {
                (false, false, false, true) => run::<false, false, false, 2>(plan, shared, depth, items, ctl),
                (false, false, false, false) => run::<false, false, false, 4>(plan, shared, depth, items, ctl),
                (false, true, _, true) => run::<false, true, false, 2>(plan, shared, depth, items, ctl),
                (false, true, _, false) => run::<false, true, false, 4>(plan, shared, depth, items, ctl),
                (false, false, true, true) => run::<false, false, true, 2>(plan, shared, depth, items, ctl),
                (false, false, true, false) => run::<false, false, true, 4>(plan, shared, depth, items, ctl),
                (true, _, _, true) => run::<true, false, false, 2>(plan, shared, depth, items, ctl),
                (true, _, _, false) => run::<true, false, false, 4>(plan, shared, depth, items, ctl),
            }
        }

        #[target_feature(enable = $features)]
        unsafe fn run<const DUE: bool, const PACKED: bool, const IN_TURN: bool, const W: usize>(
            plan: &Plan,
            shared: Option<&[u32]>,
            depth: usize,
            items: impl Iterator<Item = Prefix>,
            ctl: &Control,
        ) -> Result<Tally, Interrupted> {
            search::<$simd, DUE, PACKED, IN_TURN, W>(plan, shared, depth, items, ctl)
        }
    };
}
use entry_point;

/// Where lanes get their prefixes: `items`, all at row `depth` of `plan`, whose cells in
/// that row take the due columns into account if `due`.
struct Feed<'p, I: Iterator<Item = Prefix>> {
    items: Peekable<I>,
    plan: &'p Plan,
    depth: usize,
    due: bool,
}

/// The lanes' state spilled to arrays, where lanes change prefixes one by one.
struct Spill {
    lanes: usize,
    avail: [u32; MAX_LANES],
    cols: [u32; MAX_LANES],
    ld: [u32; MAX_LANES],
    rd: [u32; MAX_LANES],
    /// The lane's row on its board.
    row: [u32; MAX_LANES],
    /// The lane's count since its last flush.
    sub: [u32; MAX_LANES],
    /// The weight of the prefix each lane holds; None for an idle lane.
    weight: [Option<u64>; MAX_LANES],
}

impl Spill {
    /// The state of `lanes` idle lanes.
    fn new(lanes: usize) -> Spill {
        let zero = [0; MAX_LANES];
        Spill { lanes, avail: zero, cols: zero, ld: zero, rd: zero, row: zero, sub: zero, weight: [None; MAX_LANES] }
    }

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
    fn refill<I: Iterator<Item = Prefix>>(
        &mut self,
        done: u32,
        feed: &mut Feed<'_, I>,
        total: &mut Tally,
        mut admit: impl FnMut(usize, &Prefix) -> bool,
    ) -> u32 {
        let Feed { items, plan, depth, due } = feed;
        let (plan, depth) = (*plan, *depth);
        self.flush(done, total);
        let mut active = 0;
        for lane in 0..self.lanes {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::cpu::count_prefix;
    use crate::prefix::expand;

    /// Solutions and nodes of `plan`'s prefixes at least `min` strong, by the scalar search
    /// and by the lanes of each of `isas` with every stack size from the smallest that fits.
    fn compare(plan: &Plan, min: usize, isas: &[Isa]) {
        assert!([Isa::Avx512, Isa::Avx2].iter().all(|&isa| suits(isa, plan, expand(plan, min).depth)), "n={}", plan.n);
        compare_prefixes(plan, &expand(plan, min), isas);
    }

    /// [`compare`] on the given prefixes, which all of `isas` suit.
    fn compare_prefixes(plan: &Plan, prefixes: &crate::prefix::Prefixes, isas: &[Isa]) {
        let depth = prefixes.depth;
        assert!(isas.iter().all(|&isa| suits(isa, plan, depth)), "n={} depth={depth}", plan.n);
        let ctl = Control::default();
        // The scalar search with the same due columns as the lanes: none, unless they honour them.
        let due = plan.any_due(depth) && honours_due(plan);
        let scalar = prefixes.items.iter().fold(Tally::default(), |t, p| {
            let b = p.board as usize;
            let none = vec![0; plan.n];
            let (solutions, nodes) = count_prefix(&plan.boards[b], if due { &plan.due[b] } else { &none }, depth, p, &ctl).unwrap();
            t + Tally::weighted(solutions, plan.weights[b], nodes)
        });
        let shared = shared_rows(plan, depth);
        for &isa in isas {
            for words in words(plan, depth).max(1)..=4 {
                // SAFETY: the instruction set is available and the board suits the lanes.
                let lanes = unsafe {
                    match isa {
                        Isa::Avx512 => avx512::count(words, due, shared.as_deref(), plan, depth, prefixes.items.iter().copied(), &ctl),
                        Isa::Avx2 => avx2::count(words, due, shared.as_deref(), plan, depth, prefixes.items.iter().copied(), &ctl),
                    }
                };
                assert_eq!(lanes.unwrap(), scalar, "{isa:?} n={} depth={depth} words={words}", plan.n);
            }
        }
    }

    #[test]
    fn every_width_and_stack_size_matches_the_scalar_search() {
        let isas = Isa::available_to_test("every_width_and_stack_size_matches_the_scalar_search");
        for n in [8, 11, 14] {
            let board = Board::from_fn(n, |r, c| (r * 7 + c * 3) % 11 != 0).unwrap();
            compare(&Plan::plain(&board), 40, &isas);
            compare(&Plan::optimized(&board), 40, &isas);
        }
    }

    #[test]
    fn one_table_serves_the_mirror_split() {
        let isas = Isa::available_to_test("one_table_serves_the_mirror_split");
        // Obstacles placed symmetrically about the middle column only.
        let board = Board::from_fn(13, |r, c| (r * r + 3 * c.min(12 - c)) % 7 != 2).unwrap();
        let plan = Plan::optimized(&board);
        assert_eq!(plan.group.len(), 2, "{:?}", plan.group);
        let depth = expand(&plan, 300).depth;
        assert!(plan.boards.len() > 1 && shared_rows(&plan, depth).is_some());
        compare(&plan, 300, &isas);
        // The D4 split's boards differ in their side columns: no one table.
        let empty = Plan::optimized(&Board::empty(12).unwrap());
        assert!(shared_rows(&empty, expand(&empty, 300).depth).is_none());
        compare(&empty, 300, &isas);
    }

    /// Every prefix of `plan` at row `depth`.
    fn at_row(plan: &Plan, depth: usize) -> crate::prefix::Prefixes {
        let mut level = expand(plan, 0);
        while level.depth < depth {
            let items = level.items.iter().flat_map(|p| {
                let avail = p.avail(plan, level.depth);
                (0..32).filter(move |c| avail >> c & 1 == 1).map(move |c| p.place(1 << c))
            });
            level = crate::prefix::Prefixes { depth: level.depth + 1, items: items.collect() };
        }
        level
    }

    #[test]
    fn many_boards_share_one_table_where_two_fit_it_and_take_turns_where_not() {
        let isas = Isa::available_to_test("many_boards_share_one_table_where_two_fit_it_and_take_turns_where_not");
        // Obstacles the square's 8 symmetries keep: the split's boards differ in every row.
        let m = 17;
        let board = Board::from_fn(m + 1, |r, c| {
            let (a, b) = (r.min(m - r), c.min(m - c));
            (a * b + a + b) % 7 >= 3
        })
        .unwrap();
        let plan = Plan::symmetric(&board, crate::square::Sym::Identity);
        assert_eq!((plan.group.len(), shared_rows(&plan, 1)), (8, None));
        for depth in [1, 2, 3] {
            let prefixes = at_row(&plan, depth);
            // Two boards' 17 rows below row 1 do not fit one table of sixteen lanes (the lanes
            // take one board at a time); 16 rows fit, half each. Eight lanes' tables hold 16
            // rows: two boards never fit.
            assert_eq!(search::packs::<avx512::Avx512>(plan.n, depth), depth >= 2);
            assert!(!search::packs::<avx2::Avx2>(plan.n, depth));
            let fit: Vec<Isa> = isas.iter().copied().filter(|&isa| suits(isa, &plan, depth)).collect();
            compare_prefixes(&plan, &prefixes, &fit);
            // The boards' prefixes dealt out in turn: a lane waits at nearly every one.
            let mut dealt = prefixes.clone();
            dealt.items.sort_by_key(|p| (p.cols, p.ld, p.board));
            compare_prefixes(&plan, &dealt, &fit);
        }
    }

    #[test]
    fn the_deepest_stack_and_the_largest_table_allowed_keep_every_bit() {
        let isas = Isa::available_to_test("the_deepest_stack_and_the_largest_table_allowed_keep_every_bit");
        // 19 columns from row 3: 13 queens on the stack, as many as `rd` has spare bits,
        // and 16 rows below the prefixes, as many as an eight-lane table holds.
        let board = Board::from_fn(19, |r, c| (r * 5 + c * 7) % 13 > 5).unwrap();
        let plan = Plan::plain(&board);
        let prefixes = (0..).map(|k| expand(&plan, 1 << k)).find(|p| p.depth >= 3).expect("rows to expand");
        assert_eq!(prefixes.depth, 3);
        assert_eq!((stack_rows(&plan, 3), plan.n - 3), (32 - 19, <avx2::Avx2 as Simd>::ROWS));
        assert!(!suits(Isa::Avx512, &plan, 2) && !suits(Isa::Avx2, &plan, 2));
        compare(&plan, prefixes.items.len(), &isas);
    }
}
