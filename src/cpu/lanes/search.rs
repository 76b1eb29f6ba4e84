//! The lanes' search, written once for both widths over [`Simd`]: every lane steps its own
//! depth-first search, branch-free, one node per pass (with [`Simd::STEP_AND_PLACE`], a
//! step back up and the node after it in one pass).
//!
//! - A lane's stack lives in registers: the column of each row's queen, five bits, shifted
//!   into words of six. Going back up, the row's state is rebuilt from its queen `q`:
//!   `cols ^ q`, `ld >> 1` and `rd << 1`, then its cells left are its cells above `q`,
//!   since the search takes them lowest first. Shifts lose bits at the ends, so `rd` is
//!   kept `32 - n` bits up (the columns sit at the top of the word) and a board qualifies
//!   only when its stack is at most `32 - n` rows deep (see [`super::suits`]): then no bit
//!   that comes back into the board on the way up was ever shifted out.
//! - A row's cells (and due columns, which only a plan of one board looks at: see
//!   [`super::honours_due`]) come from one table of the rows below the prefixes by
//!   permute, not from memory: one lookup a row. On a plan of many boards the lanes take
//!   one board at a time, a lane whose next prefix is on the next board waiting until the
//!   others finish theirs (a few percent of the passes: `examples/lane_model.rs`), unless
//!   two boards' rows fit the table, half each (sixteen lanes' 32 rows, up to 16 rows below
//!   the prefixes): then each lane reads its half by its own first row, and the lanes take
//!   two boards at a time.

use super::{Feed, Simd, Spill, MAX_LANES};
use crate::control::{Control, Interrupted};
use crate::plan::Plan;
use crate::prefix::Prefix;
use crate::tally::Tally;

/// Passes between looks at the cancel flag and flushes of the lanes' 32-bit counts. A pass
/// adds at most 32 * 32 to a lane, so 2^16 passes stay far below 2^32.
const FLUSH_EVERY: u64 = 1 << 16;

/// One board's row masks and due columns as tables.
#[derive(Clone, Copy)]
struct Table<S: Simd> {
    cells: S::T,
    due: S::T,
}

impl<S: Simd> Table<S> {
    #[inline(always)]
    unsafe fn new(cells: &[u32], due: &[u32]) -> Table<S> {
        Table { cells: S::table(cells), due: S::table(due) }
    }
}

/// The boards the lanes are on: one table of their rows from `depth` on (packed: a board in
/// each half), the board each half holds, the half new lanes go to, and which lanes are on
/// the second half.
struct Slots<S: Simd> {
    depth: usize,
    /// Each lane's row whose cells the table holds first: `depth`, less the half's start
    /// where two boards share the table.
    first_row: S::V,
    first_rows: [u32; MAX_LANES],
    table: Table<S>,
    /// Packed: the rows of the table, one board a half.
    packed_rows: [u32; 32],
    boards: [Option<u32>; 2],
    current: usize,
    second_bits: u32,
}

impl<S: Simd> Slots<S> {
    /// Each lane's row `row` of its board: cells and due columns.
    #[inline(always)]
    unsafe fn fetch(&self, row: S::V) -> (S::V, S::V) {
        let row = S::sub(row, self.first_row);
        (S::lookup(&self.table.cells, row), S::lookup(&self.table.due, row))
    }

    /// Puts `lane` on `board` if the table holds it or can be loaded with it: the table
    /// (`PACKED`: its other half) must be free of `live` lanes. Returns whether it could.
    #[inline(always)]
    unsafe fn admit<const PACKED: bool>(&mut self, lane: usize, board: u32, live: &mut u32, plan: &Plan) -> bool {
        let bit = 1 << lane;
        if !PACKED {
            if self.boards[0] != Some(board) {
                if *live != 0 {
                    return false;
                }
                let b = board as usize;
                self.table = Table::new(&plan.boards[b][self.depth..], &plan.due[b][self.depth..]);
                self.boards[0] = Some(board);
            }
            *live |= bit;
            return true;
        }
        // Where the second board's rows start, in the table and so in each lane's rows.
        let half = S::ROWS / 2;
        if self.boards[self.current] != Some(board) {
            let other = 1 - self.current;
            let on_other = if other == 1 { *live & self.second_bits } else { *live & !self.second_bits };
            if on_other != 0 {
                return false;
            }
            let below = &plan.boards[board as usize][self.depth..];
            self.packed_rows[other * half..other * half + below.len()].copy_from_slice(below);
            self.table = Table::new(&self.packed_rows[..S::ROWS], &[]);
            self.boards[other] = Some(board);
            self.current = other;
        }
        self.second_bits = if self.current == 1 { self.second_bits | bit } else { self.second_bits & !bit };
        self.first_rows[lane] = (self.depth as u32).wrapping_sub((self.current * half) as u32);
        *live |= bit;
        true
    }

    /// Takes up the first rows [`Slots::admit`] set, once lanes have been admitted.
    #[inline(always)]
    unsafe fn admitted<const PACKED: bool>(&mut self) {
        if PACKED {
            self.first_row = S::load(&self.first_rows);
        }
    }
}

/// Whether two boards' rows from `depth` on fit one table of `S`, half each: then a plan of
/// many boards is searched with one lookup a row, as a plan of one board is.
pub(super) fn packs<S: Simd>(n: usize, depth: usize) -> bool {
    2 * (n - depth) <= S::ROWS
}

/// `next_cells`'s due rule in every lane: of the `due` columns still empty in `cols`, one
/// left forces it and two or more leave no cell.
#[inline(always)]
unsafe fn narrow<S: Simd>(cells: S::V, due: S::V, cols: S::V) -> S::V {
    let late = S::andnot(cols, due);
    let many = S::nonzero(S::and(late, S::sub(late, S::splat(1))));
    let forced = S::select(S::nonzero(late), S::and(cells, late), cells);
    S::select(many, S::splat(0), forced)
}

/// Pops the stacks of the lanes in `up`, then pushes `column` onto those in `down` (a lane
/// in both has its newest column replaced). Word 0 holds the newest column in its low five
/// bits; each word passes its sixth entry (bits 25..30) on to the next.
#[inline(always)]
unsafe fn push_pop<S: Simd, const W: usize>(words: [S::V; W], down: S::M, column: S::V, up: S::M) -> [S::V; W] {
    let entry = S::splat(31);
    let under_top = S::splat(0x01ff_ffff);
    let (up_only, down_only) = (S::m_andnot(up, down), S::m_andnot(down, up));
    let mut out = words;
    for w in 0..W {
        let incoming = if w == 0 { column } else { S::and(S::shr::<25>(words[w - 1]), entry) };
        let pushed = S::or(S::shl::<5>(words[w]), incoming);
        let outgoing = if w + 1 < W { S::shl::<25>(words[w + 1]) } else { S::splat(0) };
        // The leftovers in bits 30..31 are cleared here.
        let popped = S::or(S::and(S::shr::<5>(words[w]), under_top), outgoing);
        let moved = S::select(up_only, popped, S::select(down_only, pushed, words[w]));
        out[w] = if w == 0 { S::select(S::m_and(up, down), S::or(S::andnot(entry, words[0]), column), moved) } else { moved };
    }
    out
}

/// The lanes' search state, one vector per field; `rd` is kept `32 - n` bits up.
#[derive(Clone, Copy)]
struct State<S: Simd> {
    avail: S::V,
    cols: S::V,
    ld: S::V,
    rd: S::V,
    row: S::V,
    sub: S::V,
}

impl<S: Simd> State<S> {
    #[inline(always)]
    unsafe fn save(&self, spill: &mut Spill) {
        S::store(&mut spill.avail, self.avail);
        S::store(&mut spill.cols, self.cols);
        S::store(&mut spill.ld, self.ld);
        S::store(&mut spill.rd, self.rd);
        S::store(&mut spill.row, self.row);
        S::store(&mut spill.sub, self.sub);
    }

    /// The state of a spill after [`Spill::refill`]: the lanes in `fresh` start a prefix
    /// (its `rd` moved up by `spare`) or idle; the others go on.
    #[inline(always)]
    unsafe fn refilled(spill: &Spill, fresh: S::M, spare: S::V) -> State<S> {
        let rd = S::load(&spill.rd);
        State {
            avail: S::load(&spill.avail),
            cols: S::load(&spill.cols),
            ld: S::load(&spill.ld),
            rd: S::select(fresh, S::shlv(rd, spare), rd),
            row: S::load(&spill.row),
            sub: S::load(&spill.sub),
        }
    }
}

/// [`super::Lanes::count`] on `S`'s lanes with `DUE` due columns, stacks of `W` words and
/// a table of: the rows `shared` by every board, where some are (see
/// [`super::shared_rows`]); two boards where `PACKED` (see [`packs`]); one board at a time
/// where `IN_TURN`. Call only where `S`'s instruction set is present and inline into a
/// function compiled for it.
#[inline(always)]
pub(super) unsafe fn search<S: Simd, const DUE: bool, const PACKED: bool, const IN_TURN: bool, const W: usize>(
    plan: &Plan,
    shared: Option<&[u32]>,
    depth: usize,
    items: impl Iterator<Item = Prefix>,
    ctl: &Control,
) -> Result<Tally, Interrupted> {
    let zero = S::splat(0);
    // The table starts with the shared rows (then every lane is admitted), else with the
    // first board. Due columns are read only on a plan of one board (see `honours_due`), so
    // the first board's serve.
    let mut packed_rows = [0; 32];
    let table = match shared.or(plan.boards.first().map(Vec::as_slice)) {
        Some(rows) if PACKED => {
            packed_rows[..plan.n - depth].copy_from_slice(&rows[depth..]);
            Table::new(&packed_rows[..S::ROWS], &[])
        }
        Some(rows) => Table::new(&rows[depth..], &plan.due[0][depth..]),
        None => Table::<S>::new(&[], &[]),
    };
    let first_row = S::splat(depth as i32);
    let first_rows = [depth as u32; MAX_LANES];
    let mut slots = Slots { depth, first_row, first_rows, table, packed_rows, boards: [Some(0), None], current: 0, second_bits: 0 };
    let mut feed = Feed { items: items.peekable(), plan, depth, due: DUE };
    let mut total = Tally::default();
    let mut spill = Spill::new(S::LANES);
    let one = S::splat(1);
    let spare = S::splat(32 - plan.n as i32);
    let mut live = 0;
    let admits = PACKED || IN_TURN;
    let mut active = spill.refill(0, &mut feed, &mut total, |lane, p| !admits || slots.admit::<PACKED>(lane, p.board, &mut live, plan));
    slots.admitted::<PACKED>();
    let all = S::m_from_bits(u32::MAX);
    let mut v = State::<S>::refilled(&spill, all, spare);
    let mut stack = [zero; W];
    let mut passes = 0u64;
    // Nodes in 64 bits here: the loop adds to it on every pass.
    let mut nodes = 0u64;

    let top = S::splat(depth as i32);
    let leaf_row = S::splat(plan.n as i32 - 3);
    let spare_plus_one = S::add(spare, one);
    let thirty_one = S::splat(31);
    let two = S::splat(2);
    let lanes = S::m_bits(all);
    while active != 0 {
        let State { avail, cols, ld, rd, row, sub } = v;
        let empty = S::is_zero(avail);
        let at_top = S::eq(row, top);
        // Lanes that finished their prefix: rare, so this branch is predictable.
        let done = S::m_bits(S::m_and(empty, at_top)) & active;
        if done != 0 {
            v.save(&mut spill);
            let fresh = S::m_from_bits(done | !active);
            live = active & !done & lanes;
            active = spill.refill(done, &mut feed, &mut total, |lane, p| !admits || slots.admit::<PACKED>(lane, p.board, &mut live, plan));
            slots.admitted::<PACKED>();
            v = State::refilled(&spill, fresh, spare);
            continue;
        }
        passes += 1;
        if passes.is_multiple_of(FLUSH_EVERY) {
            ctl.check()?;
            v.save(&mut spill);
            spill.flush(active, &mut total);
            v.sub = zero;
            continue;
        }

        // Step up, where a row is used up: the row above, rebuilt from its queen (see the
        // module doc), its cells left those above the queen.
        let up = S::m_andnot(empty, at_top);
        let prev = S::sub(row, one);
        let (fetched, fetched_due) = slots.fetch(prev);
        let queen = S::shlv(one, S::and(stack[0], thirty_one));
        let up_cols = S::andnot(queen, cols);
        let up_ld = S::andnot(queen, S::shr::<1>(ld));
        let up_rd = S::andnot(S::shlv(queen, spare), S::shl::<1>(rd));
        let up_plain = S::andnot(S::or3(up_cols, up_ld, S::shrv(up_rd, spare)), fetched);
        let up_cells = if DUE { narrow::<S>(up_plain, fetched_due, up_cols) } else { up_plain };
        // -(queen << 1) has every bit above the queen's.
        let up_avail = S::and(up_cells, S::sub(zero, S::shl::<1>(queen)));
        // The state each lane goes on from: the row above where it stepped up. With
        // `STEP_AND_PLACE`, a lane that stepped up also places its queen there in the same
        // pass; else it places from the state it had, which a lane that stepped up has no
        // cell in (so that placing waits on no step up).
        let back = |above: S::V, here: S::V| S::select(up, above, here);
        let (stay_cols, stay_ld, stay_rd, stay_row) = (back(up_cols, cols), back(up_ld, ld), back(up_rd, rd), back(prev, row));
        let (avail, cols, ld, rd, row) =
            if S::STEP_AND_PLACE { (back(up_avail, avail), stay_cols, stay_ld, stay_rd, stay_row) } else { (avail, cols, ld, rd, row) };

        let placed = S::m_not(S::is_zero(avail));
        nodes += u64::from(S::m_bits(placed).count_ones());
        let (below, due_below) = slots.fetch(S::add(row, one));
        let after = slots.fetch(S::add(row, two)).0;
        // Place: the lowest free cell (two's complement keeps only it in common with avail).
        let bit = S::and(avail, S::sub(zero, avail));
        let rest = S::xor(avail, bit);
        let nc = S::or(cols, bit);
        let nl = S::shl::<1>(S::or(ld, bit));
        let nr = S::shr::<1>(S::or(rd, S::shlv(bit, spare)));
        // The next row's cells, and the row after's (its look-ahead, or its last row).
        let plain = S::andnot(S::or3(nc, nl, S::shrv(nr, spare)), below);
        let later = S::andnot(S::or3(nc, S::shl::<1>(nl), S::shrv(nr, spare_plus_one)), after);
        let child = if DUE { narrow::<S>(plain, due_below, nc) } else { plain };
        let leaf = S::m_and(placed, S::eq(row, leaf_row));
        let sub = S::select(leaf, S::add(sub, S::last_two_rows(plain, later)), sub);
        // Go down when placed above the leaf row and the row after next keeps a cell.
        let down = S::m_and(S::m_andnot(placed, leaf), S::nonzero(later));

        stack = push_pop::<S, W>(stack, down, S::column(bit), up);
        let pick = |stay: S::V, deeper: S::V| S::select(down, deeper, stay);
        let rest = if S::STEP_AND_PLACE { rest } else { back(up_avail, rest) };
        v = State {
            avail: pick(rest, child),
            cols: pick(stay_cols, nc),
            ld: pick(stay_ld, nl),
            rd: pick(stay_rd, nr),
            row: pick(stay_row, S::add(row, one)),
            sub,
        };
    }
    total.nodes += u128::from(nodes);
    Ok(total)
}
