//! Eight lanes in 256-bit vectors (see [`super`]): rows come in by gather, and each lane's
//! stack lives in memory, going in and out by 128-bit loads and stores with a transpose.

use std::arch::x86_64::*;

use super::{Feed, Flat, Spill};
use crate::control::{Control, Interrupted};
use crate::plan::Plan;
use crate::prefix::Prefix;
use crate::tally::Tally;

/// Lanes per vector.
const LANES: usize = 8;
/// Stack slots per lane: the entry saved when leaving row `r` goes to slot `r + 1` and a
/// lane at row `r` reads slot `r`, so no index goes below 0 and, as rows are below 32,
/// none reaches 33.
const SLOTS: usize = 34;
/// Passes between looks at the cancel flag and flushes of the lanes' 32-bit counts. A pass
/// adds at most 32 * 32 to a lane, so 2^16 passes stay far below 2^32.
const FLUSH_EVERY: u64 = 1 << 16;

/// [`super::Lanes::count`] on eight lanes. Call only where AVX2 is present.
pub(super) fn count<'a>(
    plan: &Plan,
    flat: &Flat,
    depth: usize,
    due: bool,
    items: impl Iterator<Item = &'a Prefix>,
    ctl: &Control,
) -> Result<Tally, Interrupted> {
    // SAFETY: the caller saw AVX2; `search` reads rows depth..n of the prefixes' boards
    // (`Lanes::new` keeps three rows below `depth`) and its own stack.
    unsafe {
        if due {
            search::<true>(plan, flat, depth, items, ctl)
        } else {
            search::<false>(plan, flat, depth, items, ctl)
        }
    }
}

/// Per-byte population counts: a table lookup for each half of every byte (see
/// [`lane_sums`] for the count per lane).
#[target_feature(enable = "avx2")]
unsafe fn byte_counts(v: __m256i) -> __m256i {
    let lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    let low = _mm256_set1_epi8(0x0f);
    let lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(v, low));
    let hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), low));
    _mm256_add_epi8(lo, hi)
}

/// Sums each lane's four byte counts into the lane.
#[target_feature(enable = "avx2")]
unsafe fn lane_sums(bytes: __m256i) -> __m256i {
    let pairs = _mm256_maddubs_epi16(bytes, _mm256_set1_epi8(1));
    _mm256_madd_epi16(pairs, _mm256_set1_epi16(1))
}

/// `last_two_rows` of [`crate::cpu`] in every lane: |a|·|b| minus the cells of `b` that
/// `a`, `a<<1` and `a>>1` cover (byte counts of at most 24 add up without carry).
#[target_feature(enable = "avx2")]
unsafe fn last_two_rows(a: __m256i, b: __m256i) -> __m256i {
    let size = _mm256_mullo_epi32(lane_sums(byte_counts(a)), lane_sums(byte_counts(b)));
    let covered = _mm256_add_epi8(
        byte_counts(_mm256_and_si256(b, a)),
        _mm256_add_epi8(
            byte_counts(_mm256_and_si256(b, _mm256_slli_epi32(a, 1))),
            byte_counts(_mm256_and_si256(b, _mm256_srli_epi32(a, 1))),
        ),
    );
    _mm256_sub_epi32(size, lane_sums(covered))
}

/// The lanes' search state, one vector per field.
#[derive(Clone, Copy)]
struct State {
    avail: __m256i,
    cols: __m256i,
    ld: __m256i,
    rd: __m256i,
    /// Board start in [`Flat`] plus the lane's row.
    at: __m256i,
    /// Board start in [`Flat`].
    base: __m256i,
    /// The lane's count since its last flush.
    sub: __m256i,
}

#[target_feature(enable = "avx2")]
unsafe fn load(a: &[u32; LANES]) -> __m256i {
    _mm256_loadu_si256(a.as_ptr().cast())
}

#[target_feature(enable = "avx2")]
unsafe fn store(a: &mut [u32; LANES], v: __m256i) {
    _mm256_storeu_si256(a.as_mut_ptr().cast(), v)
}

impl Spill<LANES> {
    #[target_feature(enable = "avx2")]
    unsafe fn save(&mut self, v: &State) {
        store(&mut self.avail, v.avail);
        store(&mut self.cols, v.cols);
        store(&mut self.ld, v.ld);
        store(&mut self.rd, v.rd);
        store(&mut self.row, _mm256_sub_epi32(v.at, v.base));
        store(&mut self.base, v.base);
        store(&mut self.sub, v.sub);
    }

    #[target_feature(enable = "avx2")]
    unsafe fn state(&self) -> State {
        State {
            avail: load(&self.avail),
            cols: load(&self.cols),
            ld: load(&self.ld),
            rd: load(&self.rd),
            at: _mm256_add_epi32(load(&self.row), load(&self.base)),
            base: load(&self.base),
            sub: load(&self.sub),
        }
    }
}

#[target_feature(enable = "avx2")]
unsafe fn search<'a, const DUE: bool>(
    plan: &Plan,
    flat: &Flat,
    depth: usize,
    items: impl Iterator<Item = &'a Prefix>,
    ctl: &Control,
) -> Result<Tally, Interrupted> {
    let mut feed = Feed { items: items.peekable(), plan, depth, due: DUE };
    let n = plan.n as i32;
    let rows = flat.rows.as_ptr() as *const i32;
    let dues = flat.due.as_ptr() as *const i32;
    let mut stack = vec![[0u32; 4]; LANES * SLOTS];
    let mut total = Tally::default();
    let mut spill = Spill::default();
    let mut active = spill.refill(0, &mut feed, &mut total, |_, _| true);
    let mut v = spill.state();
    let mut passes = 0u64;
    // Nodes in 64 bits here: the loop adds to it on every pass.
    let mut nodes = 0u64;

    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi32(1);
    let depth_v = _mm256_set1_epi32(depth as i32);
    let leaf_row = _mm256_set1_epi32(n - 3);
    let s_ = SLOTS as i32;
    let lane_slots = _mm256_setr_epi32(0, s_, 2 * s_, 3 * s_, 4 * s_, 5 * s_, 6 * s_, 7 * s_);
    let mut slots = [0u32; LANES];
    while active != 0 {
        let State { avail, cols, ld, rd, at, base, sub } = v;
        let row = _mm256_sub_epi32(at, base);
        let empty = _mm256_cmpeq_epi32(avail, zero);
        let at_top = _mm256_cmpeq_epi32(row, depth_v);
        // Lanes that finished their prefix: rare, so this branch is predictable.
        let done = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(empty, at_top))) as u32 & active;
        if done != 0 {
            spill.save(&v);
            active = spill.refill(done, &mut feed, &mut total, |_, _| true);
            v = spill.state();
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

        // Place: the lowest free cell (two's complement keeps only it in common with avail).
        let bit = _mm256_and_si256(avail, _mm256_sub_epi32(zero, avail));
        let rest = _mm256_xor_si256(avail, bit);
        let nc = _mm256_or_si256(cols, bit);
        let nl = _mm256_slli_epi32(_mm256_or_si256(ld, bit), 1);
        let nr = _mm256_srli_epi32(_mm256_or_si256(rd, bit), 1);
        nodes += (!_mm256_movemask_ps(_mm256_castsi256_ps(empty)) & 0xff).count_ones() as u64;
        // The next row's cells, and the row after's (its look-ahead, or its last row).
        let below = _mm256_i32gather_epi32::<4>(rows, _mm256_add_epi32(at, one));
        let after = _mm256_i32gather_epi32::<4>(rows, _mm256_add_epi32(at, _mm256_set1_epi32(2)));
        let plain = _mm256_andnot_si256(_mm256_or_si256(nc, _mm256_or_si256(nl, nr)), below);
        let later = _mm256_andnot_si256(_mm256_or_si256(nc, _mm256_or_si256(_mm256_slli_epi32(nl, 1), _mm256_srli_epi32(nr, 1))), after);
        let mut child = plain;
        if DUE {
            // As board::next_cells: one late column left forces it, two end the branch.
            let due = _mm256_i32gather_epi32::<4>(dues, _mm256_add_epi32(at, one));
            let late = _mm256_andnot_si256(nc, due);
            let many =
                _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_and_si256(late, _mm256_sub_epi32(late, one)), zero), _mm256_set1_epi32(-1));
            let forced = _mm256_blendv_epi8(
                child,
                _mm256_and_si256(child, late),
                _mm256_andnot_si256(_mm256_cmpeq_epi32(late, zero), _mm256_set1_epi32(-1)),
            );
            child = _mm256_andnot_si256(many, forced);
        }
        let placed = _mm256_andnot_si256(empty, _mm256_set1_epi32(-1));
        let leaf = _mm256_and_si256(placed, _mm256_cmpeq_epi32(row, leaf_row));
        let sub = _mm256_add_epi32(sub, _mm256_and_si256(leaf, last_two_rows(plain, later)));
        // Go down when placed above the leaf row and the row after next keeps a cell.
        let down = _mm256_andnot_si256(_mm256_or_si256(leaf, _mm256_cmpeq_epi32(later, zero)), placed);
        let up = _mm256_andnot_si256(at_top, empty);

        // Every lane saves (rest, cols, ld, rd) in the slot of its row and reads the slot
        // below: only lanes going down need the first, only lanes going up the second, and
        // the others touch slots that hold nothing live.
        store(&mut slots, _mm256_add_epi32(lane_slots, row));
        let sp = stack.as_mut_ptr() as *mut __m128i;
        let mut popped = [zero; 4];
        for (pair, out) in popped.iter_mut().enumerate() {
            let (lo, hi) = (slots[pair] as usize, slots[pair + 4] as usize);
            *out = _mm256_set_m128i(_mm_loadu_si128(sp.add(hi)), _mm_loadu_si128(sp.add(lo)));
        }
        let t0 = _mm256_unpacklo_epi32(popped[0], popped[1]);
        let t1 = _mm256_unpackhi_epi32(popped[0], popped[1]);
        let t2 = _mm256_unpacklo_epi32(popped[2], popped[3]);
        let t3 = _mm256_unpackhi_epi32(popped[2], popped[3]);
        let (p_avail, p_cols) = (_mm256_unpacklo_epi64(t0, t2), _mm256_unpackhi_epi64(t0, t2));
        let (p_ld, p_rd) = (_mm256_unpacklo_epi64(t1, t3), _mm256_unpackhi_epi64(t1, t3));
        let u0 = _mm256_unpacklo_epi32(rest, cols);
        let u1 = _mm256_unpackhi_epi32(rest, cols);
        let u2 = _mm256_unpacklo_epi32(ld, rd);
        let u3 = _mm256_unpackhi_epi32(ld, rd);
        let saved =
            [_mm256_unpacklo_epi64(u0, u2), _mm256_unpackhi_epi64(u0, u2), _mm256_unpacklo_epi64(u1, u3), _mm256_unpackhi_epi64(u1, u3)];
        for (pair, v) in saved.iter().enumerate() {
            let (lo, hi) = (slots[pair] as usize + 1, slots[pair + 4] as usize + 1);
            _mm_storeu_si128(sp.add(lo), _mm256_castsi256_si128(*v));
            _mm_storeu_si128(sp.add(hi), _mm256_extracti128_si256::<1>(*v));
        }

        // Blend: down takes the child, up the popped entry, a placed queen that stays keeps
        // the rest of its row.
        v = State {
            avail: _mm256_blendv_epi8(_mm256_blendv_epi8(rest, p_avail, up), child, down),
            cols: _mm256_blendv_epi8(_mm256_blendv_epi8(cols, p_cols, up), nc, down),
            ld: _mm256_blendv_epi8(_mm256_blendv_epi8(ld, p_ld, up), nl, down),
            rd: _mm256_blendv_epi8(_mm256_blendv_epi8(rd, p_rd, up), nr, down),
            // down and up are all-ones (-1) where set: subtracting down adds one.
            at: _mm256_add_epi32(_mm256_sub_epi32(at, down), up),
            base,
            sub,
        };
    }
    total.nodes += u128::from(nodes);
    Ok(total)
}
