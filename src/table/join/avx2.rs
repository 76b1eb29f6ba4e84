//! Joins in 256-bit vectors: eight placements of a small set per step against one partial
//! board, or eight partial boards against each placement, counted from the lanes that test
//! clear; four words of every plane per step, counted a word at a time.

use std::arch::x86_64::*;

use std::ops::Range;

use super::{join_with, one_by_one, side_by_side, weighted_by, Joiner, Kernel};
use crate::table::batch::{Batch, Request};
use crate::table::set::{Form, Set, PAD};

/// Partial boards side by side.
const LANES: usize = 8;

/// Partial boards of a set from which they are joined side by side, not one by one.
const SIDE_BY_SIDE: usize = 8;

struct Avx2;

impl Kernel for Avx2 {
    #[inline(always)]
    unsafe fn count(set: &Set<'_>, ld: u32, rd: u32) -> u32 {
        match set.form {
            Form::Entries => {
                let blocks = set.blocks().as_ptr();
                let (ld, rd) = (_mm256_set1_epi32(ld as i32), _mm256_set1_epi32(rd as i32));
                let zero = _mm256_setzero_si256();
                let mut count = 0;
                let mut i = 0;
                while i < set.len {
                    let valid = if set.len - i >= LANES { 0xff } else { (1u32 << (set.len - i)) - 1 };
                    let at = blocks.add(i / PAD * 2 * PAD + i % PAD);
                    let l = _mm256_and_si256(_mm256_loadu_si256(at.cast()), ld);
                    let r = _mm256_and_si256(_mm256_loadu_si256(at.add(PAD).cast()), rd);
                    let clear = _mm256_cmpeq_epi32(_mm256_or_si256(l, r), zero);
                    count += (_mm256_movemask_ps(_mm256_castsi256_ps(clear)) as u32 & valid).count_ones();
                    i += LANES;
                }
                count
            }
            Form::Planes => {
                let mut planes = [0usize; 64];
                let used = set.selected(ld, rd, &mut planes);
                let data = set.data.as_ptr();
                let mut bad = 0u32;
                let mut w = 0;
                while w < set.words {
                    let left = (set.words - w).min(4) as i64;
                    let m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_setr_epi64x(0, 1, 2, 3));
                    let mut acc = _mm256_setzero_si256();
                    for &p in &planes[..used] {
                        acc = _mm256_or_si256(acc, _mm256_maskload_epi64(data.add(p + w).cast(), m));
                    }
                    let mut words = [0u64; 4];
                    _mm256_storeu_si256(words.as_mut_ptr().cast(), acc);
                    bad += words.iter().map(|x| x.count_ones()).sum::<u32>();
                    w += 4;
                }
                set.len as u32 - bad
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
        let zero = _mm256_setzero_si256();
        for requests in requests.chunks(LANES) {
            let (ld, rd) = side_by_side::<LANES>(requests);
            let (ld, rd) = (_mm256_loadu_si256(ld.as_ptr().cast()), _mm256_loadu_si256(rd.as_ptr().cast()));
            let mut count = zero;
            for (b, block) in blocks.chunks_exact(2 * PAD).enumerate() {
                for j in 0..PAD.min(set.len - b * PAD) {
                    let l = _mm256_and_si256(ld, _mm256_set1_epi32(block[j] as i32));
                    let r = _mm256_and_si256(rd, _mm256_set1_epi32(block[PAD + j] as i32));
                    // A clear lane is all ones: subtracting it adds one.
                    count = _mm256_sub_epi32(count, _mm256_cmpeq_epi32(_mm256_or_si256(l, r), zero));
                }
            }
            let mut out = [0u32; LANES];
            _mm256_storeu_si256(out.as_mut_ptr().cast(), count);
            total += weighted_by(requests, weights, &out);
        }
        total
    }
}

/// [`Joiner::join`] in eight lanes.
///
/// # Safety
/// Only where [`crate::isa::Isa::Avx2`] is supported.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn join(joiner: &mut Joiner<'_>, batches: &[&Batch], keys: Range<u32>) -> u128 {
    join_with::<Avx2>(joiner, batches, keys)
}
