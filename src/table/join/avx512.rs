//! Joins in 512-bit vectors: sixteen placements of a small set per step against one
//! partial board, or sixteen partial boards against each placement, each test one
//! ternary-logic operation and a lane mask; eight words of every plane per step, with a
//! native population count.

use std::arch::x86_64::*;

use std::ops::Range;

use super::{join_with, one_by_one, side_by_side, weighted_by, Joiner, Kernel};
use crate::table::batch::{Batch, Request};
use crate::table::set::{Form, Set, PAD};

/// Partial boards of a set from which they are joined side by side, not one by one.
const SIDE_BY_SIDE: usize = 8;

struct Avx512;

impl Kernel for Avx512 {
    #[inline(always)]
    unsafe fn count(set: &Set<'_>, ld: u32, rd: u32) -> u32 {
        match set.form {
            Form::Entries => {
                let blocks = set.blocks().as_ptr();
                let (ld, rd) = (_mm512_set1_epi32(ld as i32), _mm512_set1_epi32(rd as i32));
                let mut count = 0;
                let mut i = 0;
                while i < set.len {
                    let valid = if set.len - i >= PAD { u16::MAX } else { (1u16 << (set.len - i)) - 1 };
                    let block = blocks.add(2 * i);
                    let l = _mm512_and_si512(_mm512_loadu_si512(block.cast()), ld);
                    // l | (r & rd)
                    let t = _mm512_ternarylogic_epi32::<0xf8>(l, _mm512_loadu_si512(block.add(PAD).cast()), rd);
                    count += _mm512_mask_testn_epi32_mask(valid, t, t).count_ones();
                    i += PAD;
                }
                count
            }
            Form::Planes => {
                let data = set.data.as_ptr();
                if set.words <= 8 {
                    // One chunk: the planes straight from the attacked diagonals' bits.
                    let m: __mmask8 = ((1u16 << set.words) - 1) as u8;
                    let (mut l, mut r) = set.attacked(ld, rd);
                    let (mut a, mut b) = (_mm512_setzero_si512(), _mm512_setzero_si512());
                    while l != 0 {
                        a = _mm512_or_si512(a, _mm512_maskz_loadu_epi64(m, data.add(l.trailing_zeros() as usize * set.words).cast()));
                        l &= l - 1;
                    }
                    let r_planes = data.add(set.l_span as usize * set.words);
                    while r != 0 {
                        b = _mm512_or_si512(b, _mm512_maskz_loadu_epi64(m, r_planes.add(r.trailing_zeros() as usize * set.words).cast()));
                        r &= r - 1;
                    }
                    return set.len as u32 - _mm512_reduce_add_epi64(_mm512_popcnt_epi64(_mm512_or_si512(a, b))) as u32;
                }
                let mut planes = [0usize; 64];
                let used = set.selected(ld, rd, &mut planes);
                // Whole lines: every plane is a whole number of them, starting on one; two
                // at a time, so that two chains of ORs run side by side.
                let mut bad = _mm512_setzero_si512();
                let mut w = 0;
                while w + 16 <= set.words {
                    let (mut a, mut b) = (_mm512_setzero_si512(), _mm512_setzero_si512());
                    for &p in &planes[..used] {
                        a = _mm512_or_si512(a, _mm512_load_si512(data.add(p + w).cast()));
                        b = _mm512_or_si512(b, _mm512_load_si512(data.add(p + w + 8).cast()));
                    }
                    bad = _mm512_add_epi64(bad, _mm512_add_epi64(_mm512_popcnt_epi64(a), _mm512_popcnt_epi64(b)));
                    w += 16;
                }
                if w < set.words {
                    let mut a = _mm512_setzero_si512();
                    for &p in &planes[..used] {
                        a = _mm512_or_si512(a, _mm512_load_si512(data.add(p + w).cast()));
                    }
                    bad = _mm512_add_epi64(bad, _mm512_popcnt_epi64(a));
                }
                set.len as u32 - _mm512_reduce_add_epi64(bad) as u32
            }
        }
    }

    #[inline(always)]
    unsafe fn counts(set: &Set<'_>, requests: &[Request], weights: &[u64]) -> u128 {
        if set.form == Form::Planes || requests.len() < SIDE_BY_SIDE {
            return one_by_one::<Self>(set, requests, weights);
        }
        let mut total = 0;
        let blocks = set.blocks();
        let one = _mm512_set1_epi32(1);
        for requests in requests.chunks(PAD) {
            let (ld, rd) = side_by_side::<PAD>(requests);
            let (ld, rd) = (_mm512_loadu_si512(ld.as_ptr().cast()), _mm512_loadu_si512(rd.as_ptr().cast()));
            let mut count = _mm512_setzero_si512();
            for (b, block) in blocks.chunks_exact(2 * PAD).enumerate() {
                for j in 0..PAD.min(set.len - b * PAD) {
                    let l = _mm512_and_si512(ld, _mm512_set1_epi32(block[j] as i32));
                    let t = _mm512_ternarylogic_epi32::<0xf8>(l, rd, _mm512_set1_epi32(block[PAD + j] as i32));
                    count = _mm512_mask_add_epi32(count, _mm512_testn_epi32_mask(t, t), count, one);
                }
            }
            let mut out = [0u32; PAD];
            _mm512_storeu_si512(out.as_mut_ptr().cast(), count);
            total += weighted_by(requests, weights, &out);
        }
        total
    }
}

/// [`Joiner::join`] in sixteen lanes.
///
/// # Safety
/// Only where [`crate::isa::Isa::Avx512`] is supported.
#[target_feature(enable = "avx512f,avx512cd,avx512vpopcntdq,popcnt")]
pub(super) unsafe fn join(joiner: &mut Joiner<'_>, batches: &[&Batch], keys: Range<u32>) -> u128 {
    join_with::<Avx512>(joiner, batches, keys)
}
