//! The builder's filter in 512-bit vectors: eight placements a step, each one 64-bit lane
//! (`l` low, `r` high), tested with one instruction and moved to their new rows by
//! per-half shifts; those kept are compressed into the output.

use std::arch::x86_64::*;

use super::Top;
use crate::table::Entry;

/// [`super::Filter`] in eight lanes.
///
/// # Safety
/// Only where [`crate::isa::Isa::Avx512`] is supported, and with room in `out` for every
/// placement of `below`.
#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq,popcnt")]
pub(super) unsafe fn filter(below: &[Entry], above: &Top, row: usize, full: u32, out: &mut Vec<Entry>) {
    debug_assert!(out.capacity() - out.len() >= below.len());
    let pair = |l: u32, r: u32| _mm512_set1_epi64((u64::from(l) | u64::from(r) << 32) as i64);
    let attacked = pair(above.ld, above.rd);
    let own = pair(above.l, above.r);
    let keep_bits = pair(u32::MAX, full);
    let row = row as i64;
    let (right, left) = (_mm512_set1_epi64(row), _mm512_set1_epi64(row << 32));
    let src = below.as_ptr().cast::<i64>();
    let mut dst = out.as_mut_ptr().add(out.len()).cast::<i64>();
    let mut kept = 0;
    let mut i = 0;
    while i < below.len() {
        let valid: __mmask8 = if below.len() - i >= 8 { u8::MAX } else { (1u8 << (below.len() - i)) - 1 };
        let x = _mm512_maskz_loadu_epi64(valid, src.add(i).cast());
        let keep = _mm512_mask_testn_epi64_mask(valid, x, attacked);
        // l >> row in the low halves and r << row in the high, r's bits past the board dropped.
        let moved = _mm512_and_si512(_mm512_sllv_epi32(_mm512_srlv_epi32(x, right), left), keep_bits);
        _mm512_mask_compressstoreu_epi64(dst.cast(), keep, _mm512_or_si512(moved, own));
        let k = keep.count_ones() as usize;
        dst = dst.add(k);
        kept += k;
        i += 8;
    }
    out.set_len(out.len() + kept);
}
