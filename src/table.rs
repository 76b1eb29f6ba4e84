//! The last `k` rows of a plan's boards counted from a table instead of searched: for each
//! set of `k` columns a partial board leaves free on row `n - k`, every placement of the
//! band's `k` queens in those columns, with its two diagonal signatures. A partial board
//! with attacks `ld` and `rd` on that row completes in as many ways as there are
//! placements whose signatures miss both, a *join* that reads a few words where the search
//! would visit every node of the band.
//!
//! A board's band is its last `k` rows, with every cell given back that a queen forced
//! above the band attacks (a row with one free cell always holds a queen there, so a
//! partial board's diagonals and columns rule those cells out anyway); boards of a plan
//! with the same band share its table. Sets are made when a join first needs them
//! ([`build`]), by whichever thread, stored once for every thread ([`set`]) within a
//! memory bound, and joined in the widest lanes the CPU has ([`join`]). Which `k`, and
//! which boards are joined at all, is [`model`]'s choice.

mod batch;
mod build;
mod join;
pub mod model;
mod rank;
mod set;

use std::collections::HashMap;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

pub use batch::{Batch, Request};
pub use join::{memo_entries, Joiner};
pub use model::{Choice, Method};

use crate::isa::Isa;
use crate::plan::Plan;

/// One placement of a band's queens, by the diagonals it uses relative to the band's top
/// row: bit `c - i` of `l` and bit `c + i` of `r` (below `n`) for the queen in column `c`
/// of the band's row `i`. A partial board whose attacks on the top row are `ld` and `rd`
/// leaves room for it exactly when `l & ld == 0` and `r & rd == 0`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub l: u32,
    pub r: u32,
}

/// Partial boards per round of joins at most, over all threads: many per set, so that a
/// set is read once for many of them.
const ROUND: usize = 1 << 22;

/// Partial boards per round of joins of a table within `bound` bytes: the rounds' batches
/// take an eighth of the bound at most.
fn round(bound: usize) -> usize {
    ROUND.min((bound / 8 / Batch::bytes(1)).max(1 << 10))
}

/// Which boards a table joins, none where a board is searched to the end.
const SEARCHED: u32 = u32::MAX;
/// Words of a chunk of the table's store: sets are cut from chunks, each thread filling
/// its own.
const CHUNK_WORDS: usize = 1 << 16;

/// Eight words on a cache line of their own: what chunks are made of, so that planes can
/// start on a line.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Line(#[allow(dead_code)] [u64; 8]);

/// The tables of one plan's bands, made as the joins need them.
pub struct Table {
    n: usize,
    k: usize,
    /// The board's columns.
    full: u32,
    /// Sets of `k` columns: each band's keys (see [`Request::key`]).
    sets: u32,
    /// Each band's rows, top first.
    bands: Vec<Vec<u32>>,
    /// Per board of the plan: its band, or [`SEARCHED`].
    of_board: Vec<u32>,
    /// Per board of the plan: its weight, and its own last `k` rows.
    weights: Vec<u64>,
    rows: Vec<Vec<u32>>,
    /// Per band, once a join needs it: a slot per set of `k` columns (by rank), null
    /// until the set is made.
    slots: Vec<OnceLock<Box<[AtomicPtr<u64>]>>>,
    /// From how many placements a set is kept as planes, for this CPU's joins.
    planes_from: usize,
    /// The instruction set the joins run on, `None` for the scalar one.
    isa: Option<Isa>,
    /// Partial boards gathered per round of joins, over all threads.
    round: usize,
    store: Store,
}

/// Where sets are kept: chunks of words handed to threads, within a bound.
struct Store {
    /// The bytes the table may take.
    bound: usize,
    /// The bytes taken: chunks, slots, and each joiner's memo.
    used: AtomicUsize,
    chunks: Mutex<Vec<Box<[Line]>>>,
    sets: AtomicU64,
    entries: AtomicU64,
    build_nanos: AtomicU64,
}

/// What a table holds and what it cost, for `--stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sizes {
    /// The band's rows.
    pub k: usize,
    /// Distinct bands joined.
    pub bands: usize,
    /// Column sets made, and their placements in all.
    pub sets: u64,
    pub entries: u64,
    /// Bytes taken (sets, slots and the builders' memos) and the bound.
    pub bytes: usize,
    pub bound: usize,
    /// Thread time spent making sets.
    pub build: Duration,
}

impl Table {
    /// The table of `plan`'s boards whose `joined` entry is true, for bands of `k` rows,
    /// taking at most `bound` bytes, joined in the instruction set the CPU's search uses.
    pub fn new(plan: &Plan, k: usize, joined: &[bool], bound: usize) -> Table {
        Table::with_isa(plan, k, joined, bound, Isa::chosen())
    }

    /// [`Table::new`] with joins in `isa` (one of [`Isa::available`], or `None` for the
    /// scalar code).
    pub fn with_isa(plan: &Plan, k: usize, joined: &[bool], bound: usize, isa: Option<Isa>) -> Table {
        assert!(isa.is_none_or(Isa::supported), "this CPU lacks {isa:?}");
        let n = plan.n;
        assert!((1..n).contains(&k), "a band of {k} rows on a {n}-board");
        let (bands, of_board) = bands(plan, k, joined);
        let slots = (0..bands.len()).map(|_| OnceLock::new()).collect();
        let store = Store {
            bound,
            used: AtomicUsize::new(0),
            chunks: Mutex::new(Vec::new()),
            sets: AtomicU64::new(0),
            entries: AtomicU64::new(0),
            build_nanos: AtomicU64::new(0),
        };
        let (full, sets) = (u32::MAX >> (32 - n), rank::binom(n, k));
        assert!(u64::from(sets) * bands.len() as u64 <= u64::from(u32::MAX), "more keys than a u32 holds");
        let round = round(bound);
        store.take(Batch::bytes(round));
        Table {
            n,
            k,
            full,
            sets,
            bands,
            of_board,
            weights: plan.weights.clone(),
            rows: plan.boards.iter().map(|b| b[b.len() - k..].to_vec()).collect(),
            slots,
            planes_from: join::planes_from(isa),
            isa,
            round,
            store,
        }
    }

    /// The rows of the band.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The bytes the table may take.
    pub fn bound(&self) -> usize {
        self.store.bound
    }

    /// Partial boards gathered per round of joins, over all threads.
    pub fn round(&self) -> usize {
        self.round
    }

    /// The completions on board `board` of a partial board at the band's top row with free
    /// columns `set` and attacks `ld` and `rd`, by searching its band: for the sets the bound
    /// leaves no room to keep.
    fn search_band(&self, board: u32, set: u32, ld: u32, rd: u32) -> u32 {
        fn go(rows: &[u32], cols: u32, ld: u32, rd: u32) -> u32 {
            let Some((&row, below)) = rows.split_first() else { return 1 };
            let mut cells = row & !(cols | ld | rd);
            let mut total = 0;
            while cells != 0 {
                let bit = cells & cells.wrapping_neg();
                cells ^= bit;
                total += go(below, cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
            }
            total
        }
        go(&self.rows[board as usize], !set & self.full, ld, rd)
    }

    /// The number of keys: one per set of each band.
    pub fn keys(&self) -> u32 {
        self.sets * self.bands.len() as u32
    }

    /// The columns of the set of rank `rank`.
    fn set_of(&self, rank: u32) -> u32 {
        rank::unrank(rank, self.k)
    }

    /// The bands of the boards `joined` says of `plan`, and each board's band (see
    /// [`Table::new`]; [`u32::MAX`] for a board not joined).
    pub fn bands_of(plan: &Plan, k: usize, joined: &[bool]) -> (Vec<Vec<u32>>, Vec<u32>) {
        bands(plan, k, joined)
    }

    /// Whether board `board` of the plan is joined.
    pub fn joins(&self, board: u32) -> bool {
        self.of_board.get(board as usize).is_some_and(|&b| b != SEARCHED)
    }

    /// What the table holds now.
    pub fn sizes(&self) -> Sizes {
        let s = &self.store;
        Sizes {
            k: self.k,
            bands: self.bands.len(),
            sets: s.sets.load(Ordering::Relaxed),
            entries: s.entries.load(Ordering::Relaxed),
            bytes: s.used.load(Ordering::Relaxed),
            bound: s.bound,
            build: Duration::from_nanos(s.build_nanos.load(Ordering::Relaxed)),
        }
    }

    /// The slots of band `band`, made on first use if the bound allows.
    fn slots(&self, band: u32) -> Option<&[AtomicPtr<u64>]> {
        let cell = &self.slots[band as usize];
        if let Some(slots) = cell.get() {
            return Some(slots);
        }
        let count = rank::binom(self.n, self.k) as usize;
        if !self.store.take(count * std::mem::size_of::<AtomicPtr<u64>>()) {
            return None;
        }
        let made = cell.get_or_init(|| (0..count).map(|_| AtomicPtr::new(std::ptr::null_mut())).collect());
        Some(made)
    }
}

impl Store {
    /// Takes `bytes` of the bound, if they are left.
    fn take(&self, bytes: usize) -> bool {
        self.used.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| (used + bytes <= self.bound).then_some(used + bytes)).is_ok()
    }

    /// A chunk of at least `words` words (a whole number of lines), kept for the table's
    /// life; `None` past the bound. Its words are the caller's to fill until it publishes a
    /// set in them.
    fn chunk(&self, words: usize) -> Option<(*mut u64, usize)> {
        let lines = words.max(CHUNK_WORDS).div_ceil(8);
        if !self.take(lines * 64) {
            return None;
        }
        let mut chunk = vec![Line::default(); lines].into_boxed_slice();
        let at = (chunk.as_mut_ptr().cast::<u64>(), lines * 8);
        self.chunks.lock().unwrap_or_else(|e| e.into_inner()).push(chunk);
        Some(at)
    }
}

/// The bands of `plan`'s boards whose `joined` entry is true, for bands of `k` rows, and
/// each board's band ([`SEARCHED`] for the others). Boards whose bands differ only in the
/// cells their forced queens attack share the band with those cells given back (see
/// [`given_back`]); a board alone keeps its own band, whose sets are smaller.
fn bands(plan: &Plan, k: usize, joined: &[bool]) -> (Vec<Vec<u32>>, Vec<u32>) {
    let mut kinds: HashMap<Vec<u32>, Vec<Vec<u32>>> = HashMap::new();
    for (rows, _) in plan.boards.iter().zip(joined).filter(|(_, &j)| j) {
        let own = rows[rows.len() - k..].to_vec();
        let kind = kinds.entry(given_back(rows, k)).or_default();
        if !kind.contains(&own) {
            kind.push(own);
        }
    }
    let mut index: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut bands = Vec::new();
    let of_board = plan
        .boards
        .iter()
        .zip(joined)
        .map(|(rows, &join)| {
            if !join {
                return SEARCHED;
            }
            let shared = given_back(rows, k);
            let band = if kinds[&shared].len() > 1 { shared } else { rows[rows.len() - k..].to_vec() };
            *index.entry(band.clone()).or_insert_with(|| {
                bands.push(band);
                bands.len() as u32 - 1
            })
        })
        .collect();
    (bands, of_board)
}

/// The band of `k` rows of a board (`rows`), with every cell given back that a queen
/// forced above the band attacks (see the module doc).
fn given_back(rows: &[u32], k: usize) -> Vec<u32> {
    let n = rows.len();
    let full = u32::MAX >> (32 - n);
    let top = n - k;
    let mut band = rows[top..].to_vec();
    for (r, &q) in rows[..top].iter().enumerate().filter(|(_, q)| q.count_ones() == 1) {
        for (i, row) in band.iter_mut().enumerate() {
            let d = (top + i - r) as u32;
            let attacked = q | q.checked_shl(d).unwrap_or(0) | q.checked_shr(d).unwrap_or(0);
            *row |= attacked & full;
        }
    }
    band
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    #[test]
    fn a_queen_forced_above_the_band_gives_its_cells_back() {
        // A queen forced at (0, 1) of a 5-board; band of the last 2 rows (3 and 4).
        let board = Board::from_fn(5, |r, c| if r == 0 { c == 1 } else { !(c == 1 || r.abs_diff(0) == c.abs_diff(1)) }).unwrap();
        let rows = board.rows();
        assert_eq!(rows[3], 0b11101 & !(1 << 4));
        assert_eq!(given_back(rows, 2), vec![0b11111, 0b11111]);
        // A row of two cells forces nothing.
        let two = Board::from_fn(5, |r, c| r != 0 || c < 2).unwrap();
        assert_eq!(given_back(two.rows(), 2), two.rows()[3..].to_vec());
    }

    #[test]
    fn boards_with_the_same_band_share_it() {
        // The mirror's split: boards differ only where their first queen attacks.
        let board = Board::empty(9).unwrap();
        let split = crate::symmetry::frame_split(&board, &[crate::symmetry::Sym::Identity, crate::symmetry::Sym::FlipColumns]);
        let plan = Plan::new(
            9,
            split.iter().map(|w| w.board.rows().to_vec()).collect(),
            split.iter().map(|w| w.weight).collect(),
            crate::symmetry::Sym::Identity,
            vec![],
        );
        let table = Table::new(&plan, 4, &vec![true; plan.boards.len()], 1 << 30);
        assert_eq!(table.sizes().bands, 1);
        assert!((0..plan.boards.len() as u32).all(|b| table.joins(b)));
    }
}
