//! Sixteen lanes in 512-bit vectors (see [`super`]). Besides the width, two changes from
//! [`super::avx2`] take memory out of the hot loop:
//! - A lane's stack lives in registers: the column of each row's queen, five bits, shifted
//!   into words of six. Going back up, the row's state is rebuilt from its queen `q`:
//!   `cols ^ q`, `ld >> 1` and `rd << 1`, then its cells left are its cells above `q`,
//!   since the search takes them lowest first. Shifts lose bits at the ends, so `rd` is
//!   kept `32 - n` bits up (the columns sit at the top of the word) and a board qualifies
//!   only when its stack is at most `32 - n` rows deep: then no bit that comes back into
//!   the board on the way up was ever shifted out.
//! - On a plan of one board, a row's cells come from a two-register table by permute
//!   instead of from memory by gather.

use std::arch::x86_64::*;

use super::{Flat, Spill};
use crate::control::{Control, Interrupted};
use crate::cpu::Tally;
use crate::plan::Plan;
use crate::prefix::Prefix;

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

/// [`super::count`] on sixteen lanes. Call only where [`supported`] and [`suits`].
pub(super) fn count<'a>(
    plan: &Plan,
    flat: &Flat,
    depth: usize,
    due: bool,
    items: impl Iterator<Item = &'a Prefix>,
    ctl: &Control,
) -> Result<Tally, Interrupted> {
    count_in_words(stack_rows(plan, depth).div_ceil(PER_WORD), plan, flat, depth, due, items, ctl)
}

/// [`count`] with stacks of `words` words, at least enough for [`stack_rows`].
fn count_in_words<'a>(
    words: usize,
    plan: &Plan,
    flat: &Flat,
    depth: usize,
    due: bool,
    items: impl Iterator<Item = &'a Prefix>,
    ctl: &Control,
) -> Result<Tally, Interrupted> {
    assert!(suits(plan, depth) && words * PER_WORD >= stack_rows(plan, depth) && words <= 4, "board unsuited to sixteen lanes");
    let one = plan.boards.len() == 1;
    // SAFETY: the caller saw the features; `search` reads rows depth..n of the prefixes'
    // boards (the assertion keeps them within the board), by permute or masked gather.
    unsafe {
        match (due, one, words <= 2) {
            (false, false, true) => search::<false, false, 2>(plan, flat, depth, items, ctl),
            (false, false, false) => search::<false, false, 4>(plan, flat, depth, items, ctl),
            (false, true, true) => search::<false, true, 2>(plan, flat, depth, items, ctl),
            (false, true, false) => search::<false, true, 4>(plan, flat, depth, items, ctl),
            (true, false, true) => search::<true, false, 2>(plan, flat, depth, items, ctl),
            (true, false, false) => search::<true, false, 4>(plan, flat, depth, items, ctl),
            (true, true, true) => search::<true, true, 2>(plan, flat, depth, items, ctl),
            (true, true, false) => search::<true, true, 4>(plan, flat, depth, items, ctl),
        }
    }
}

/// Where lanes read a row's mask (cells or due columns): on a plan of one board, a table of
/// its rows in two registers; else the flattened plan in memory.
struct Table {
    lo: __m512i,
    hi: __m512i,
    flat: *const i32,
}

impl Table {
    #[target_feature(enable = "avx512f")]
    unsafe fn new(first: &[u32], flat: &[u32]) -> Table {
        let mut rows = [0u32; 32];
        rows[..first.len()].copy_from_slice(first);
        let (lo, hi) = (_mm512_loadu_si512(rows.as_ptr().cast()), _mm512_loadu_si512(rows[16..].as_ptr().cast()));
        Table { lo, hi, flat: flat.as_ptr().cast() }
    }

    /// Each lane's row `row` of its board (which starts at `base`), for the lanes in `lanes`.
    /// `ONE`: whether the plan has one board, so that the table holds it.
    #[target_feature(enable = "avx512f")]
    unsafe fn fetch<const ONE: bool>(&self, base: __m512i, row: __m512i, lanes: __mmask16) -> __m512i {
        if ONE {
            // Rows are below 32: the index's low five bits pick one of the 32 entries.
            _mm512_permutex2var_epi32(self.lo, row, self.hi)
        } else {
            _mm512_mask_i32gather_epi32::<4>(_mm512_setzero_si512(), lanes, _mm512_add_epi32(base, row), self.flat)
        }
    }
}

/// The rows that lanes in `lanes` fetch from [`Flat::steps`] at `index`: (cells, due
/// columns). Two gathers of eight 64-bit entries cost about as much as one of sixteen
/// 32-bit ones, and fetch both masks.
#[target_feature(enable = "avx512f")]
unsafe fn fetch_steps(steps: *const i64, index: __m512i, lanes: __mmask16) -> (__m512i, __m512i) {
    let zero = _mm512_setzero_si512();
    let lo = _mm512_mask_i32gather_epi64::<8>(zero, lanes as u8, _mm512_castsi512_si256(index), steps);
    let hi = _mm512_mask_i32gather_epi64::<8>(zero, (lanes >> 8) as u8, _mm512_extracti64x4_epi64::<1>(index), steps);
    let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    let odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    (_mm512_permutex2var_epi32(lo, even, hi), _mm512_permutex2var_epi32(lo, odd, hi))
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
        _mm512_add_epi32(_mm512_popcnt_epi32(_mm512_and_si512(b, _mm512_slli_epi32(a, 1))), _mm512_popcnt_epi32(_mm512_and_si512(b, _mm512_srli_epi32(a, 1)))),
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
    base: __m512i,
    sub: __m512i,
    /// Rows `row`, `row + 1` and `row + 2` of the lane's board: a window that moves with
    /// the lane, so that each step fetches one row instead of three.
    here: __m512i,
    below: __m512i,
    after: __m512i,
    /// The due columns of rows `row` and `row + 1`, where they matter.
    due_here: __m512i,
    due_below: __m512i,
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
        store(&mut self.base, v.base);
        store(&mut self.sub, v.sub);
    }
}

impl State {
    /// The state after [`Spill::refill`] on a spill of `self`: the lanes in `fresh` start
    /// a prefix (its `rd` moved up by `spare`, its rows fetched) or idle if not `active`;
    /// the others go on.
    #[target_feature(enable = "avx512f")]
    unsafe fn refilled<const ONE: bool>(self, spill: &Spill<LANES>, fresh: __mmask16, active: __mmask16, rows: &Table, dues: &Table, spare: __m512i) -> State {
        let (row, base) = (load(&spill.row), load(&spill.base));
        // An idle lane's base may point past the plan: it reads nothing.
        let fetch = |old: __m512i, table: &Table, ahead: i32| {
            let ahead = _mm512_add_epi32(row, _mm512_set1_epi32(ahead));
            _mm512_mask_mov_epi32(old, fresh, table.fetch::<ONE>(base, ahead, fresh & active))
        };
        let rd = load(&spill.rd);
        State {
            avail: load(&spill.avail),
            cols: load(&spill.cols),
            ld: load(&spill.ld),
            rd: _mm512_mask_sllv_epi32(rd, fresh, rd, spare),
            row,
            base,
            sub: load(&spill.sub),
            here: fetch(self.here, rows, 0),
            below: fetch(self.below, rows, 1),
            after: fetch(self.after, rows, 2),
            due_here: fetch(self.due_here, dues, 0),
            due_below: fetch(self.due_below, dues, 1),
        }
    }
}

#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq")]
unsafe fn search<'a, const DUE: bool, const ONE: bool, const W: usize>(
    plan: &Plan,
    flat: &Flat,
    depth: usize,
    mut items: impl Iterator<Item = &'a Prefix>,
    ctl: &Control,
) -> Result<Tally, Interrupted> {
    // The table holds the first board, if any: `ONE` says whether it is the only one.
    let rows = Table::new(plan.boards.first().map_or(&[], |m| &m[..]), &flat.rows);
    let dues = Table::new(plan.due.first().map_or(&[], |m| &m[..]), &flat.due);
    let mut total = Tally::default();
    let mut spill = Spill::<LANES>::default();
    let zero = _mm512_setzero_si512();
    let one = _mm512_set1_epi32(1);
    let spare = _mm512_set1_epi32(32 - plan.n as i32);
    let mut active = spill.refill(0, &mut items, plan, depth, &mut total);
    let blank = State { avail: zero, cols: zero, ld: zero, rd: zero, row: zero, base: zero, sub: zero, here: zero, below: zero, after: zero, due_here: zero, due_below: zero };
    let mut v = blank.refilled::<ONE>(&spill, u16::MAX, active as u16, &rows, &dues, spare);
    let mut stack = [zero; W];
    let mut passes = 0u64;

    let top = _mm512_set1_epi32(depth as i32);
    let leaf_row = _mm512_set1_epi32(plan.n as i32 - 3);
    let spare_plus_one = _mm512_add_epi32(spare, one);
    let thirty_one = _mm512_set1_epi32(31);
    let (two, three) = (_mm512_set1_epi32(2), _mm512_set1_epi32(3));
    let steps = flat.steps.as_ptr() as *const i64;
    let up_steps = _mm512_set1_epi32(flat.rows.len() as i32);
    while active != 0 {
        let State { avail, cols, ld, rd, row, base, sub, here, mut below, mut after, due_here, mut due_below } = v;
        let empty = _mm512_testn_epi32_mask(avail, avail);
        let at_top = _mm512_cmpeq_epi32_mask(row, top);
        // Lanes that finished their prefix: rare, so this branch is predictable.
        let done = (empty & at_top) as u32 & active;
        if done != 0 {
            spill.save(&v);
            let fresh = (done | !active) as u16;
            active = spill.refill(done, &mut items, plan, depth, &mut total);
            v = v.refilled::<ONE>(&spill, fresh, active as u16, &rows, &dues, spare);
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
        total.nodes += placed.count_ones() as u64;
        if ONE {
            // A permute costs less than keeping the window up to date.
            below = rows.fetch::<ONE>(base, _mm512_add_epi32(row, one), placed);
            after = rows.fetch::<ONE>(base, _mm512_add_epi32(row, two), placed);
            due_below = if DUE { dues.fetch::<ONE>(base, _mm512_add_epi32(row, one), placed) } else { zero };
        }
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

        // One fetch per lane moves the window: row + 3 going down, row - 1 going up (and
        // the due columns of row + 2 or row - 1). With the table, only row - 1 is needed.
        let prev = _mm512_sub_epi32(row, one);
        let (fetched, fetched_due) = if ONE {
            (rows.fetch::<ONE>(base, prev, up), if DUE { dues.fetch::<ONE>(base, prev, up) } else { zero })
        } else {
            let going_up = _mm512_add_epi32(_mm512_add_epi32(base, prev), up_steps);
            fetch_steps(steps, _mm512_mask_add_epi32(going_up, down, _mm512_add_epi32(base, row), three), up | down)
        };

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
        let pick = |stay: __m512i, back: __m512i, deeper: __m512i| _mm512_mask_mov_epi32(_mm512_mask_mov_epi32(stay, up, back), down, deeper);
        v = State {
            avail: pick(rest, up_avail, child),
            cols: pick(cols, up_cols, nc),
            ld: pick(ld, up_ld, nl),
            rd: pick(rd, up_rd, nr),
            row: pick(row, prev, _mm512_add_epi32(row, one)),
            base,
            sub,
            here: pick(here, fetched, below),
            below: pick(below, here, after),
            after: pick(after, below, fetched),
            due_here: pick(due_here, fetched_due, due_below),
            due_below: pick(due_below, due_here, fetched_due),
        };
    }
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
        let scalar = prefixes.items.iter().fold(Tally::default(), |t, p| {
            let b = p.board as usize;
            let (solutions, nodes) = count_prefix(&plan.boards[b], &plan.due[b], depth, p, &ctl).unwrap();
            t + Tally { solutions: solutions * plan.weights[b], nodes }
        });
        let flat = Flat::new(plan);
        for words in stack_rows(plan, depth).div_ceil(PER_WORD).max(1)..=4 {
            let lanes = count_in_words(words, plan, &flat, depth, plan.any_due(depth), prefixes.items.iter(), &ctl).unwrap();
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
