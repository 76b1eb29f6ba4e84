//! Joins: partial boards at the band's top row counted against their set's placements. A
//! thread joins a range of keys at a time across every thread's sorted batch, so that each
//! set is read once per round, while it is in the cache, for all the partial boards that
//! need it: in the widest lanes the CPU has (`avx512.rs`, `avx2.rs`, else a word at a
//! time), sixteen or eight partial boards side by side against each placement of a small
//! set, or the planes of a large one. A set that is not in the table yet is made by the
//! thread that first needs it.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

use std::ops::Range;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::batch::{Batch, Request};
use super::build::Builder;
use super::set::{self, Form, Set};
use super::{Entry, Table};
use crate::isa::Isa;

/// Placements a builder's memo holds, at least and at most, per thread: within those, a
/// quarter of the table's bound shared by the threads.
const MEMO_ENTRIES: (usize, usize) = (1 << 20, 1 << 24);

/// The placements of each thread's memo, for `threads` threads and a table of `bound` bytes.
pub fn memo_entries(bound: usize, threads: usize) -> usize {
    (bound / 4 / threads.max(1) / std::mem::size_of::<Entry>()).clamp(MEMO_ENTRIES.0, MEMO_ENTRIES.1)
}

/// From how many placements a set is kept as planes for joins in `isa`: where a join reads
/// fewer words from the planes than from the entries (see [`set`]), measured.
pub fn planes_from(isa: Option<Isa>) -> usize {
    match isa {
        Some(Isa::Avx512) => 600,
        Some(Isa::Avx2) => 800,
        None => 16,
    }
}

/// How one instruction set counts a set's placements that partial boards leave room for.
pub(super) trait Kernel {
    /// The placements of `set` that a partial board attacking `ld` and `rd` leaves room for.
    ///
    /// # Safety
    /// Only where the instruction set is present, inlined into code compiled for it.
    unsafe fn count(set: &Set<'_>, ld: u32, rd: u32) -> u32;

    /// [`Kernel::count`] of each of `requests`, weighted by its board and summed.
    ///
    /// # Safety
    /// As [`Kernel::count`].
    unsafe fn counts(set: &Set<'_>, requests: &[Request], weights: &[u64]) -> u128;
}

/// One word at a time.
struct Scalar;

impl Kernel for Scalar {
    #[inline(always)]
    unsafe fn count(set: &Set<'_>, ld: u32, rd: u32) -> u32 {
        set.count(ld, rd)
    }

    #[inline(always)]
    unsafe fn counts(set: &Set<'_>, requests: &[Request], weights: &[u64]) -> u128 {
        one_by_one::<Self>(set, requests, weights)
    }
}

/// [`Kernel::counts`] one partial board at a time with `K`'s count, weighted and summed:
/// for large sets, and for few partial boards. A loop, not a closure, so that `K`'s count
/// is compiled with the caller's instruction set.
///
/// # Safety
/// As [`Kernel::count`].
#[inline(always)]
pub(super) unsafe fn one_by_one<K: Kernel>(set: &Set<'_>, requests: &[Request], weights: &[u64]) -> u128 {
    let mut counts = [0u32; 64];
    let mut total = 0;
    for requests in requests.chunks(64) {
        for (c, r) in counts.iter_mut().zip(requests) {
            *c = K::count(set, r.ld, r.rd);
        }
        total += weighted_by(requests, weights, &counts);
    }
    total
}

/// The attacks of up to `N` requests side by side, for the vector kernels' lanes (lanes
/// past the requests attack nothing).
#[inline(always)]
pub(super) fn side_by_side<const N: usize>(requests: &[Request]) -> ([u32; N], [u32; N]) {
    let (mut ld, mut rd) = ([0u32; N], [0u32; N]);
    for (i, p) in requests.iter().take(N).enumerate() {
        (ld[i], rd[i]) = (p.ld, p.rd);
    }
    (ld, rd)
}

/// The sum of `counts` (one per request) over `requests`, each times its board's weight.
#[inline(always)]
pub(super) fn weighted_by(requests: &[Request], weights: &[u64], counts: &[u32]) -> u128 {
    let mut i = 0;
    weighted(requests, weights, |_| {
        i += 1;
        counts[i - 1]
    })
}

/// The sum of `count(r)` over `requests`, each times its board's weight: a run of one
/// board's requests is summed first.
#[inline(always)]
pub(super) fn weighted(requests: &[Request], weights: &[u64], mut count: impl FnMut(&Request) -> u32) -> u128 {
    let mut total = 0u128;
    let mut run = (u32::MAX, 0u64);
    for r in requests {
        if r.board != run.0 {
            total += weights.get(run.0 as usize).map_or(0, |&w| u128::from(run.1) * u128::from(w));
            run = (r.board, 0);
        }
        run.1 += u64::from(count(r));
    }
    total + weights.get(run.0 as usize).map_or(0, |&w| u128::from(run.1) * u128::from(w))
}

/// One thread's joins against a table: its builder, and the chunk it stores new sets in.
pub struct Joiner<'t> {
    table: &'t Table,
    builder: Builder,
    /// The chunk's next free word, and how many are left.
    chunk: *mut u64,
    left: usize,
    /// Placements of the set being made.
    scratch: Vec<Entry>,
    /// Bytes of the bound this joiner's memo holds, given back when it is dropped.
    reserved: usize,
    /// Whether the bound has refused it a chunk: it makes no more sets.
    full: bool,
}

// SAFETY: the chunk pointer is this joiner's alone: no other joiner writes that chunk.
unsafe impl Send for Joiner<'_> {}

impl<'t> Joiner<'t> {
    /// A joiner for one thread of the count, its memo of `memo` placements taken from the
    /// table's bound (see [`memo_entries`]).
    pub fn new(table: &'t Table, memo: usize) -> Joiner<'t> {
        let bytes = Joiner::memo_bytes(table.n, table.k, memo);
        let (reserved, cap) = if table.store.take(bytes) { (bytes, memo) } else { (0, 0) };
        Joiner {
            table,
            builder: Builder::new(table.n, table.k, cap, table.isa),
            chunk: std::ptr::null_mut(),
            left: 0,
            scratch: Vec::new(),
            reserved,
            full: false,
        }
    }

    /// The rows at the bottom of a band of `k` rows of an `n`-board whose placements a
    /// joiner's memo of `memo` placements keeps (the rows above are searched as each set is
    /// made).
    pub fn kept_rows(n: usize, k: usize, memo: usize) -> usize {
        super::build::kept_rows(n, k, memo)
    }

    /// The bytes a joiner's memo of `memo` placements takes at most, on bands of `k` rows
    /// of an `n`-board.
    pub fn memo_bytes(n: usize, k: usize, memo: usize) -> usize {
        Builder::memo_bytes(n, k, memo) + memo * std::mem::size_of::<Entry>()
    }

    /// The weighted completions of the partial boards of `batches` (each sorted) whose
    /// keys lie in `keys`.
    pub fn join(&mut self, batches: &[&Batch], keys: Range<u32>) -> u128 {
        match self.table.isa {
            // SAFETY: the table's instruction set is the one the CPU was found to have.
            #[cfg(target_arch = "x86_64")]
            Some(Isa::Avx512) => unsafe { avx512::join(self, batches, keys) },
            #[cfg(target_arch = "x86_64")]
            Some(Isa::Avx2) => unsafe { avx2::join(self, batches, keys) },
            // SAFETY: the scalar kernel needs nothing of the CPU.
            _ => unsafe { join_with::<Scalar>(self, batches, keys) },
        }
    }

    /// The set of band `band` with columns `set`, made and kept if it is not in the table
    /// (where the bound leaves room; else null); its placements are left in `self.scratch`.
    #[cold]
    #[inline(never)]
    fn make(&mut self, band: u32, set: u32, rank: u32) -> *const u64 {
        let table = self.table;
        let started = Instant::now();
        let mut entries = std::mem::take(&mut self.scratch);
        entries.clear();
        self.builder.placements(band, &table.bands[band as usize], set, &mut entries);
        let form = if entries.len() >= table.planes_from { Form::Planes } else { Form::Entries };
        let (_, l_span, _, r_span) = set::spans(&entries);
        let words = set::words(entries.len(), form, (l_span + r_span) as usize);
        let mut kept = std::ptr::null();
        if let (Some(slots), Some(at)) = (table.slots(band), self.words(words, form == Form::Planes)) {
            // SAFETY: `words` handed this joiner `words` words of a chunk no one else writes.
            let out = unsafe { std::slice::from_raw_parts_mut(at, words) };
            set::write(&entries, form, out);
            // Another thread may have made the same set meanwhile: its copy is kept.
            kept = match slots[rank as usize].compare_exchange(std::ptr::null_mut(), at, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    table.store.sets.fetch_add(1, Ordering::Relaxed);
                    table.store.entries.fetch_add(entries.len() as u64, Ordering::Relaxed);
                    at
                }
                Err(theirs) => theirs,
            };
        }
        table.store.build_nanos.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        self.scratch = entries;
        kept
    }

    /// `words` words to store a set in: from this joiner's chunk, or a new one; `None` past
    /// the table's bound. With `aligned`, the set's data (after its header) starts on a
    /// cache line.
    fn words(&mut self, words: usize, aligned: bool) -> Option<*mut u64> {
        // Chunks start on a line: the words skipped to the next line, less the header.
        let skip = |chunk: *mut u64| if aligned { (8 - (chunk as usize / 8 + set::HEADER) % 8) % 8 } else { 0 };
        if words + skip(self.chunk) > self.left {
            let Some(chunk) = self.table.store.chunk(words + 8) else {
                self.full = true;
                return None;
            };
            (self.chunk, self.left) = chunk;
        }
        let skipped = skip(self.chunk) + words;
        let at = self.chunk.wrapping_add(skip(self.chunk));
        // SAFETY: the chunk has `left >= skipped` words from `chunk` on.
        self.chunk = unsafe { self.chunk.add(skipped) };
        self.left -= skipped;
        Some(at)
    }
}

impl Drop for Joiner<'_> {
    fn drop(&mut self) {
        self.table.store.used.fetch_sub(self.reserved, Ordering::Relaxed);
    }
}

/// [`Joiner::join`] with kernel `K`: the batches' runs of each key in `keys`, in order,
/// against its set, made if need be.
///
/// # Safety
/// As [`Kernel::count`].
#[inline(always)]
unsafe fn join_with<K: Kernel>(joiner: &mut Joiner<'_>, batches: &[&Batch], keys: Range<u32>) -> u128 {
    let table = joiner.table;
    let mut runs: Vec<&[Request]> = batches.iter().map(|b| b.within(keys.clone())).collect();
    let mut total = 0u128;
    while let Some(key) = runs.iter().filter_map(|r| r.first()).map(|r| r.key).min() {
        let (band, rank) = (key / table.sets, key % table.sets);
        let stored = table.slots[band as usize].get().map_or(std::ptr::null_mut(), |slots| slots[rank as usize].load(Ordering::Acquire));
        let mut at = stored.cast_const();
        let mut made = false;
        for run in runs.iter_mut() {
            let len = run.iter().take_while(|r| r.key == key).count();
            let (group, rest) = run.split_at(len);
            *run = rest;
            if group.is_empty() {
                continue;
            }
            if at.is_null() {
                if !made && !joiner.full {
                    at = joiner.make(band, table.set_of(rank), rank);
                    made = true;
                }
                if at.is_null() {
                    // Past the bound: the set was not kept, and none will be; the band is
                    // searched for each partial board, as the search would.
                    let set = table.set_of(rank);
                    total += weighted(group, &table.weights, |r| table.search_band(r.board, set, r.ld, r.rd));
                    continue;
                }
            }
            // SAFETY: a kept set is whole and never written again.
            total += K::counts(&Set::at(at), group, &table.weights);
        }
    }
    total
}
