//! Sixteen lanes in 512-bit vectors (see [`super`]). Besides the width, two changes from
//! [`super::avx2`] take memory out of the hot loop:
//! - A lane's stack lives in registers: the column of each row's queen, five bits, shifted
//!   into words of six. Going back up, the row's state is rebuilt from its queen `q`:
//!   `cols ^ q`, `ld >> 1` and `rd << 1`, then its cells left are its cells above `q`,
//!   since the search takes them lowest first. Shifts lose bits at the ends, so `rd` is
//!   kept `32 - n` bits up (the columns sit at the top of the word) and a board qualifies
//!   only when its stack is at most `32 - n` rows deep: then no bit that comes back into
//!   the board on the way up was ever shifted out.
//! - A row's cells (and due columns, which only a plan of one board looks at: see
//!   [`honours_due`]) come from tables in registers by permute, not from
//!   memory by gather. There are two tables, so that on a plan of many boards lanes can
//!   start on the next board while others finish the last; a lane waits only when its
//!   next prefix needs a third.

use std::arch::x86_64::*;

use super::{Feed, Spill};
use crate::control::{Control, Interrupted};
use crate::plan::Plan;
use crate::prefix::Prefix;
use crate::tally::Tally;

/// Lanes per vector.
const LANES: usize = 16;
/// Queen columns per stack word: six of five bits (bits 30 and 31 hold leftovers).
const PER_WORD: usize = 6;
/// Passes between looks at the cancel flag and flushes of the lanes' 32-bit counts. A pass
/// adds at most 32 * 32 to a lane, so 2^16 passes stay far below 2^32.
const FLUSH_EVERY: u64 = 1 << 16;

/// Whether this CPU has what [`count`] needs: AVX-512 with conflict detection (for the
/// leading-zero count) and the native population count.
pub(super) fn supported() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512cd") && is_x86_feature_detected!("avx512vpopcntdq")
}

/// Queens a lane's stack holds at most: rows `depth..n-3` each push one before going down.
fn stack_rows(plan: &Plan, depth: usize) -> usize {
    plan.n.saturating_sub(3 + depth)
}

/// Whether [`count`] can take prefixes at row `depth` of `plan`: see the module doc.
pub(super) fn suits(plan: &Plan, depth: usize) -> bool {
    depth + 3 <= plan.n && stack_rows(plan, depth) <= 32 - plan.n
}

/// Whether the sixteen lanes look at `plan`'s due columns (where some matter): only on a
/// plan of one board, where they come from obstacles and may cut whole subtrees. On the
/// symmetry splits' many boards the check costs more time than the nodes it saves.
pub(super) fn honours_due(plan: &Plan) -> bool {
    plan.boards.len() == 1
}

/// Stack words a lane needs at row `depth` of `plan`: enough for [`stack_rows`].
pub(super) fn words(plan: &Plan, depth: usize) -> usize {
    stack_rows(plan, depth).div_ceil(PER_WORD)
}

/// [`super::Lanes::count`] on sixteen lanes, with stacks of `words` words (at least
/// [`words`]) and `shared` as [`shared_rows`] gives it. Call only where [`supported`] and
/// [`suits`], and with `due` only where [`honours_due`].
pub(super) fn count<'a>(
    words: usize,
    shared: Option<&[u32]>,
    plan: &Plan,
    depth: usize,
    due: bool,
    items: impl Iterator<Item = &'a Prefix>,
    ctl: &Control,
) -> Result<Tally, Interrupted> {
    assert!(suits(plan, depth) && words * PER_WORD >= stack_rows(plan, depth) && words <= 4, "board unsuited to sixteen lanes");
    assert!(!due || honours_due(plan), "due columns on a plan of many boards");
    // SAFETY: the caller saw the features; `search` reads the plan's boards through safe
    // indexing and keeps the rest in registers.
    unsafe {
        match (due, shared.is_some(), words <= 2) {
            (false, false, true) => search::<false, false, 2>(plan, shared, depth, items, ctl),
            (false, false, false) => search::<false, false, 4>(plan, shared, depth, items, ctl),
            (false, true, true) => search::<false, true, 2>(plan, shared, depth, items, ctl),
            (false, true, false) => search::<false, true, 4>(plan, shared, depth, items, ctl),
            (true, _, true) => search::<true, true, 2>(plan, shared, depth, items, ctl),
            (true, _, false) => search::<true, true, 4>(plan, shared, depth, items, ctl),
        }
    }
}

/// Row masks that serve every board of `plan` (one at least) from row `depth` on, if some
/// do: their union, where each board lacks only cells its prefixes always attack, those of
/// the queen its first row forces. True of a plan of one board, and of the mirror's split,
/// whose boards have their first queen's attacks taken out. The lanes' cells,
/// `rows & !(cols | ld | rd)`, are then the same.
pub(super) fn shared_rows(plan: &Plan, depth: usize) -> Option<Vec<u32>> {
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

/// One board's row masks and due columns in registers: 32 rows of each, in two halves.
#[derive(Clone, Copy)]
struct Table {
    cells: [__m512i; 2],
    due: [__m512i; 2],
}

impl Table {
    /// The table of row masks `cells` and due columns `due`.
    #[target_feature(enable = "avx512f")]
    unsafe fn new(cells: &[u32], due: &[u32]) -> Table {
        let halves = |masks: &[u32]| {
            let mut rows = [0u32; 32];
            rows[..masks.len()].copy_from_slice(masks);
            [_mm512_loadu_si512(rows.as_ptr().cast()), _mm512_loadu_si512(rows[16..].as_ptr().cast())]
        };
        Table { cells: halves(cells), due: halves(due) }
    }
}

/// Each lane's row `row` of `halves`: rows are below 32, so the index's low five bits pick
/// one of the 32 entries.
#[target_feature(enable = "avx512f")]
unsafe fn pick_row(halves: &[__m512i; 2], row: __m512i) -> __m512i {
    _mm512_permutex2var_epi32(halves[0], row, halves[1])
}

/// The boards the lanes are on: two tables, the board each holds, the one new lanes go to,
/// and which lanes use the second.
struct Slots {
    tables: [Table; 2],
    boards: [Option<u32>; 2],
    current: usize,
    second: __mmask16,
}

impl Slots {
    /// Each lane's row `row` of its board: cells and due columns. `ONE`: whether the first
    /// table serves every board (see [`shared_rows`]), so that only it is read.
    #[target_feature(enable = "avx512f")]
    unsafe fn fetch<const ONE: bool>(&self, row: __m512i) -> (__m512i, __m512i) {
        let [first, second] = &self.tables;
        let (cells, due) = (pick_row(&first.cells, row), pick_row(&first.due, row));
        if ONE {
            return (cells, due);
        }
        (
            _mm512_mask_mov_epi32(cells, self.second, pick_row(&second.cells, row)),
            _mm512_mask_mov_epi32(due, self.second, pick_row(&second.due, row)),
        )
    }

    /// Puts `lane` on `board` if a table holds it or one can be loaded with it: the other
    /// table must be free of `live` lanes. Returns whether it could.
    #[target_feature(enable = "avx512f")]
    unsafe fn admit(&mut self, lane: usize, board: u32, live: &mut __mmask16, plan: &Plan) -> bool {
        if self.boards[self.current] != Some(board) {
            let other = 1 - self.current;
            let on_other = if other == 1 { *live & self.second } else { *live & !self.second };
            if on_other != 0 {
                return false;
            }
            self.tables[other] = Table::new(&plan.boards[board as usize], &plan.due[board as usize]);
            self.boards[other] = Some(board);
            self.current = other;
        }
        let bit = 1 << lane;
        self.second = if self.current == 1 { self.second | bit } else { self.second & !bit };
        *live |= bit;
        true
    }
}

/// `a | b | c` in one instruction.
#[target_feature(enable = "avx512f")]
unsafe fn or3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi32::<0xfe>(a, b, c)
}

/// `next_cells`'s due rule in every lane: of the `due` columns still empty in `cols`, one
/// left forces it and two or more leave no cell.
#[target_feature(enable = "avx512f")]
unsafe fn narrow(cells: __m512i, due: __m512i, cols: __m512i) -> __m512i {
    let late = _mm512_andnot_si512(cols, due);
    let many = _mm512_test_epi32_mask(late, _mm512_sub_epi32(late, _mm512_set1_epi32(1)));
    let forced = _mm512_mask_and_epi32(cells, _mm512_test_epi32_mask(late, late), cells, late);
    _mm512_maskz_mov_epi32(!many, forced)
}

/// `last_two_rows` of [`crate::cpu`] in every lane: |a|·|b| minus the cells of `b` that
/// `a`, `a<<1` and `a>>1` cover.
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn last_two_rows(a: __m512i, b: __m512i) -> __m512i {
    let size = _mm512_mullo_epi32(_mm512_popcnt_epi32(a), _mm512_popcnt_epi32(b));
    let covered = _mm512_add_epi32(
        _mm512_popcnt_epi32(_mm512_and_si512(b, a)),
        _mm512_add_epi32(
            _mm512_popcnt_epi32(_mm512_and_si512(b, _mm512_slli_epi32(a, 1))),
            _mm512_popcnt_epi32(_mm512_and_si512(b, _mm512_srli_epi32(a, 1))),
        ),
    );
    _mm512_sub_epi32(size, covered)
}

/// Pushes `column` onto the stacks of the lanes in `down` and pops those in `up` (no lane
/// in both). Word 0 holds the newest column in its low five bits; each word passes its
/// sixth entry (bits 25..30) on to the next.
#[target_feature(enable = "avx512f")]
unsafe fn push_pop<const W: usize>(words: [__m512i; W], down: __mmask16, column: __m512i, up: __mmask16) -> [__m512i; W] {
    let low5 = _mm512_set1_epi32(31);
    let low25 = _mm512_set1_epi32(0x01ff_ffff);
    let mut out = words;
    for w in 0..W {
        let incoming = if w == 0 { column } else { _mm512_and_si512(_mm512_srli_epi32(words[w - 1], 25), low5) };
        let pushed = _mm512_or_si512(_mm512_slli_epi32(words[w], 5), incoming);
        let outgoing = if w + 1 < W { _mm512_slli_epi32(words[w + 1], 25) } else { _mm512_setzero_si512() };
        // (shifted & low25) | outgoing: the leftovers in bits 30..31 are cleared here.
        let popped = _mm512_ternarylogic_epi32::<0xea>(_mm512_srli_epi32(words[w], 5), low25, outgoing);
        out[w] = _mm512_mask_mov_epi32(_mm512_mask_mov_epi32(words[w], down, pushed), up, popped);
    }
    out
}

/// The lanes' search state, one vector per field; `rd` is kept `32 - n` bits up.
#[derive(Clone, Copy)]
struct State {
    avail: __m512i,
    cols: __m512i,
    ld: __m512i,
    rd: __m512i,
    row: __m512i,
    sub: __m512i,
    /// Rows `row`, `row + 1` and `row + 2` of the lane's board, on a plan of many boards:
    /// a window that moves with the lane, so that each step fetches one row, not three.
    here: __m512i,
    below: __m512i,
    after: __m512i,
}

#[target_feature(enable = "avx512f")]
unsafe fn load(a: &[u32; LANES]) -> __m512i {
    _mm512_loadu_si512(a.as_ptr().cast())
}

#[target_feature(enable = "avx512f")]
unsafe fn store(a: &mut [u32; LANES], v: __m512i) {
    _mm512_storeu_si512(a.as_mut_ptr().cast(), v)
}

impl Spill<LANES> {
    #[target_feature(enable = "avx512f")]
    unsafe fn save(&mut self, v: &State) {
        store(&mut self.avail, v.avail);
        store(&mut self.cols, v.cols);
        store(&mut self.ld, v.ld);
        store(&mut self.rd, v.rd);
        store(&mut self.row, v.row);
        store(&mut self.sub, v.sub);
    }
}

impl State {
    /// The state after [`Spill::refill`] on a spill of `self`: the lanes in `fresh` start
    /// a prefix (its `rd` moved up by `spare`, its rows fetched) or idle; the others go on.
    #[target_feature(enable = "avx512f")]
    unsafe fn refilled<const ONE: bool>(self, spill: &Spill<LANES>, fresh: __mmask16, slots: &Slots, spare: __m512i) -> State {
        let row = load(&spill.row);
        let rows = |ahead: i32| slots.fetch::<ONE>(_mm512_add_epi32(row, _mm512_set1_epi32(ahead))).0;
        let keep = |old: __m512i, new: __m512i| _mm512_mask_mov_epi32(old, fresh, new);
        let rd = load(&spill.rd);
        State {
            avail: load(&spill.avail),
            cols: load(&spill.cols),
            ld: load(&spill.ld),
            rd: _mm512_mask_sllv_epi32(rd, fresh, rd, spare),
            row,
            sub: load(&spill.sub),
            here: keep(self.here, rows(0)),
            below: keep(self.below, rows(1)),
            after: keep(self.after, rows(2)),
        }
    }
}

#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
unsafe fn search<'a, const DUE: bool, const ONE: bool, const W: usize>(
    plan: &Plan,
    shared: Option<&[u32]>,
    depth: usize,
    items: impl Iterator<Item = &'a Prefix>,
    ctl: &Control,
) -> Result<Tally, Interrupted> {
    let zero = _mm512_setzero_si512();
    // The first table starts with the shared rows (`ONE`: the only table read, and every
    // lane is admitted), else with the first board. Due columns are read only on a plan of
    // one board (see `honours_due`), so the first board's serve.
    let blank = Table { cells: [zero; 2], due: [zero; 2] };
    let first = match shared.or(plan.boards.first().map(Vec::as_slice)) {
        Some(rows) => Table::new(rows, &plan.due[0]),
        None => blank,
    };
    let mut slots = Slots { tables: [first, blank], boards: [Some(0), None], current: 0, second: 0 };
    let mut feed = Feed { items: items.peekable(), plan, depth, due: DUE };
    let mut total = Tally::default();
    let mut spill = Spill::<LANES>::default();
    let one = _mm512_set1_epi32(1);
    let spare = _mm512_set1_epi32(32 - plan.n as i32);
    let mut live = 0;
    let mut active = spill.refill(0, &mut feed, &mut total, |lane, p| ONE || slots.admit(lane, p.board, &mut live, plan));
    let idle = State { avail: zero, cols: zero, ld: zero, rd: zero, row: zero, sub: zero, here: zero, below: zero, after: zero };
    let mut v = idle.refilled::<ONE>(&spill, u16::MAX, &slots, spare);
    let mut stack = [zero; W];
    let mut passes = 0u64;
    // Nodes in 64 bits here: the loop adds to it on every pass.
    let mut nodes = 0u64;

    let top = _mm512_set1_epi32(depth as i32);
    let leaf_row = _mm512_set1_epi32(plan.n as i32 - 3);
    let spare_plus_one = _mm512_add_epi32(spare, one);
    let thirty_one = _mm512_set1_epi32(31);
    let (two, three) = (_mm512_set1_epi32(2), _mm512_set1_epi32(3));
    while active != 0 {
        let State { avail, cols, ld, rd, row, sub, here, below, after } = v;
        let empty = _mm512_testn_epi32_mask(avail, avail);
        let at_top = _mm512_cmpeq_epi32_mask(row, top);
        // Lanes that finished their prefix: rare, so this branch is predictable.
        let done = (empty & at_top) as u32 & active;
        if done != 0 {
            spill.save(&v);
            let fresh = (done | !active) as u16;
            live = (active & !done) as u16;
            active = spill.refill(done, &mut feed, &mut total, |lane, p| ONE || slots.admit(lane, p.board, &mut live, plan));
            v = v.refilled::<ONE>(&spill, fresh, &slots, spare);
            continue;
        }
        passes += 1;
        if passes.is_multiple_of(FLUSH_EVERY) {
            ctl.check()?;
            spill.save(&v);
            spill.flush(active, &mut total);
            v.sub = zero;
            continue;
        }

        let placed = !empty;
        nodes += u64::from(placed.count_ones());
        // With one table, three permutes cost less than keeping the window up to date.
        let (below, after, due_below) = if ONE {
            let (below, due_below) = slots.fetch::<ONE>(_mm512_add_epi32(row, one));
            (below, slots.fetch::<ONE>(_mm512_add_epi32(row, two)).0, due_below)
        } else {
            (below, after, zero)
        };
        // Place: the lowest free cell (two's complement keeps only it in common with avail).
        let bit = _mm512_and_si512(avail, _mm512_sub_epi32(zero, avail));
        let rest = _mm512_xor_si512(avail, bit);
        let nc = _mm512_or_si512(cols, bit);
        let nl = _mm512_slli_epi32(_mm512_or_si512(ld, bit), 1);
        let nr = _mm512_srli_epi32(_mm512_or_si512(rd, _mm512_sllv_epi32(bit, spare)), 1);
        // The next row's cells, and the row after's (its look-ahead, or its last row).
        let plain = _mm512_andnot_si512(or3(nc, nl, _mm512_srlv_epi32(nr, spare)), below);
        let later = _mm512_andnot_si512(or3(nc, _mm512_slli_epi32(nl, 1), _mm512_srlv_epi32(nr, spare_plus_one)), after);
        let child = if DUE { narrow(plain, due_below, nc) } else { plain };
        let leaf = _mm512_mask_cmpeq_epi32_mask(placed, row, leaf_row);
        let sub = _mm512_mask_add_epi32(sub, leaf, sub, last_two_rows(plain, later));
        // Go down when placed above the leaf row and the row after next keeps a cell.
        let down = placed & !leaf & _mm512_test_epi32_mask(later, later);
        let up = empty & !at_top;

        // The row above, for lanes going up; with the window, also row + 3 for lanes going
        // down.
        let prev = _mm512_sub_epi32(row, one);
        let ahead = if ONE { 0 } else { down };
        let (fetched, fetched_due) = slots.fetch::<ONE>(_mm512_mask_add_epi32(prev, ahead, row, three));

        // Back up: the row above, rebuilt from its queen (see the module doc).
        let queen = _mm512_sllv_epi32(one, _mm512_and_si512(stack[0], thirty_one));
        let up_cols = _mm512_andnot_si512(queen, cols);
        let up_ld = _mm512_andnot_si512(queen, _mm512_srli_epi32(ld, 1));
        let up_rd = _mm512_andnot_si512(_mm512_sllv_epi32(queen, spare), _mm512_slli_epi32(rd, 1));
        let up_plain = _mm512_andnot_si512(or3(up_cols, up_ld, _mm512_srlv_epi32(up_rd, spare)), fetched);
        let up_cells = if DUE { narrow(up_plain, fetched_due, up_cols) } else { up_plain };
        // -(queen << 1) has every bit above the queen's.
        let up_avail = _mm512_and_si512(up_cells, _mm512_sub_epi32(zero, _mm512_slli_epi32(queen, 1)));

        // The queen's column: 31 minus the leading zeros of its bit.
        stack = push_pop(stack, down, _mm512_sub_epi32(thirty_one, _mm512_lzcnt_epi32(bit)), up);
        let pick =
            |stay: __m512i, back: __m512i, deeper: __m512i| _mm512_mask_mov_epi32(_mm512_mask_mov_epi32(stay, up, back), down, deeper);
        v = State {
            avail: pick(rest, up_avail, child),
            cols: pick(cols, up_cols, nc),
            ld: pick(ld, up_ld, nl),
            rd: pick(rd, up_rd, nr),
            row: pick(row, prev, _mm512_add_epi32(row, one)),
            sub,
            here: pick(here, fetched, below),
            below: pick(below, here, after),
            after: pick(after, below, fetched),
        };
    }
    total.nodes += u128::from(nodes);
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::cpu::count_prefix;
    use crate::prefix::expand;

    /// Solutions and nodes of `plan`'s prefixes at least `min` strong, by the scalar search
    /// and by the lanes with every stack size from the smallest that fits.
    fn compare(plan: &Plan, min: usize) {
        let prefixes = expand(plan, min);
        let depth = prefixes.depth;
        assert!(suits(plan, depth), "n={} depth={depth}", plan.n);
        let ctl = Control::default();
        // The scalar search with the same due columns as the lanes: none, unless they honour them.
        let due = plan.any_due(depth) && honours_due(plan);
        let scalar = prefixes.items.iter().fold(Tally::default(), |t, p| {
            let b = p.board as usize;
            let none = vec![0; plan.n];
            let (solutions, nodes) = count_prefix(&plan.boards[b], if due { &plan.due[b] } else { &none }, depth, p, &ctl).unwrap();
            t + Tally::weighted(solutions, plan.weights[b], nodes)
        });
        for words in words(plan, depth).max(1)..=4 {
            let lanes = count(words, shared_rows(plan, depth).as_deref(), plan, depth, due, prefixes.items.iter(), &ctl).unwrap();
            assert_eq!(lanes, scalar, "n={} depth={depth} words={words}", plan.n);
        }
    }

    #[test]
    fn every_stack_size_matches_the_scalar_search() {
        if !supported() {
            eprintln!("skipped: this CPU lacks AVX-512 with VPOPCNTDQ");
            return;
        }
        for n in [8, 11, 14] {
            let board = Board::from_fn(n, |r, c| (r * 7 + c * 3) % 11 != 0).unwrap();
            compare(&Plan::plain(&board), 40);
            compare(&Plan::optimized(&board), 40);
        }
    }

    #[test]
    fn one_table_serves_the_mirror_split() {
        if !supported() {
            eprintln!("skipped: this CPU lacks AVX-512 with VPOPCNTDQ");
            return;
        }
        // Obstacles placed symmetrically about the middle column only.
        let board = Board::from_fn(13, |r, c| (r * r + 3 * c.min(12 - c)) % 7 != 2).unwrap();
        let plan = Plan::optimized(&board);
        assert_eq!(plan.group.len(), 2, "{:?}", plan.group);
        let depth = expand(&plan, 300).depth;
        assert!(plan.boards.len() > 1 && shared_rows(&plan, depth).is_some());
        compare(&plan, 300);
        // The D4 split's boards differ in their side columns: no one table.
        let empty = Plan::optimized(&Board::empty(12).unwrap());
        assert!(shared_rows(&empty, expand(&empty, 300).depth).is_none());
        compare(&empty, 300);
    }

    #[test]
    fn the_deepest_stack_allowed_keeps_every_bit() {
        if !supported() {
            eprintln!("skipped: this CPU lacks AVX-512 with VPOPCNTDQ");
            return;
        }
        // 18 columns from row 1: 14 queens on the stack, as many as `rd` has spare bits.
        let board = Board::from_fn(18, |r, c| (r * 5 + c * 7) % 13 > 4).unwrap();
        let plan = Plan::plain(&board);
        assert_eq!(expand(&plan, 2).depth, 1);
        assert_eq!(stack_rows(&plan, 1), 32 - 18);
        assert!(!suits(&plan, 0));
        compare(&plan, 2);
    }
}
