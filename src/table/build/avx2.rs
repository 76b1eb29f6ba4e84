//! The builder's filter in 256-bit vectors: four placements a step, each one 64-bit lane
//! (`l` low, `r` high), moved to their new rows by per-half shifts; those kept are packed to
//! the front by a permute from a table of the sixteen ways to keep four, and stored.

use std::arch::x86_64::*;

use super::Top;
use crate::table::Entry;

/// For each mask of four lanes kept, the 32-bit lanes that bring them to the front.
const PACK: [[i32; 8]; 16] = {
    let mut t = [[0i32; 8]; 16];
    let mut m = 0;
    while m < 16 {
        let mut out = 0;
        let mut lane = 0i32;
        while lane < 4 {
            if m >> lane & 1 == 1 {
                t[m][2 * out] = 2 * lane;
                t[m][2 * out + 1] = 2 * lane + 1;
                out += 1;
            }
            lane += 1;
        }
        m += 1;
    }
    t
};

/// [`super::Filter`] in four lanes.
///
/// # Safety
/// Only where [`crate::isa::Isa::Avx2`] is supported, and with room in `out` for every
/// placement of `below`.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn filter(below: &[Entry], above: &Top, row: usize, full: u32, out: &mut Vec<Entry>) {
    debug_assert!(out.capacity() - out.len() >= below.len());
    let pair = |l: u32, r: u32| _mm256_set1_epi64x((u64::from(l) | u64::from(r) << 32) as i64);
    let attacked = pair(above.ld, above.rd);
    let own = pair(above.l, above.r);
    let keep_bits = pair(u32::MAX, full);
    let row = row as i64;
    let (right, left) = (_mm256_set1_epi64x(row), _mm256_set1_epi64x(row << 32));
    let zero = _mm256_setzero_si256();
    let whole = below.len() / 4 * 4;
    let src = below.as_ptr().cast::<__m256i>();
    let base = out.as_mut_ptr().add(out.len());
    let mut kept = 0;
    for i in (0..whole).step_by(4) {
        let x = _mm256_loadu_si256(src.add(i / 4));
        let clear = _mm256_cmpeq_epi64(_mm256_and_si256(x, attacked), zero);
        let keep = _mm256_movemask_pd(_mm256_castsi256_pd(clear)) as usize;
        let moved = _mm256_and_si256(_mm256_sllv_epi32(_mm256_srlv_epi32(x, right), left), keep_bits);
        let packed = _mm256_permutevar8x32_epi32(_mm256_or_si256(moved, own), _mm256_loadu_si256(PACK[keep].as_ptr().cast()));
        // Writes four lanes whatever is kept: `out` has room for all of `below`.
        _mm256_storeu_si256(base.add(kept).cast(), packed);
        kept += keep.count_ones() as usize;
    }
    for e in &below[whole..] {
        if e.l & above.ld == 0 && e.r & above.rd == 0 {
            base.add(kept).write(Entry { l: e.l >> row | above.l, r: (e.r << row) & full | above.r });
            kept += 1;
        }
    }
    out.set_len(out.len() + kept);
}
