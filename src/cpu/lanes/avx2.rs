//! Eight lanes in 256-bit vectors. AVX2 lacks what the sixteen lanes lean on, so each is
//! built from what it has: lane masks are vectors of all-ones lanes; a population count
//! looks up each half byte in a table by shuffle; a bit's column comes from the exponent of
//! the bit turned into a float; and a table of 16 rows is two vectors of eight, read by two
//! permutes and a blend.

use std::arch::x86_64::*;

use super::search::{packs, search};
use super::{entry_point, Simd, MAX_LANES};
use crate::control::{Control, Interrupted};
use crate::plan::Plan;
use crate::prefix::Prefix;
use crate::tally::Tally;

/// Whether this CPU has AVX2.
pub(super) fn supported() -> bool {
    is_x86_feature_detected!("avx2")
}

entry_point!(Avx2, "avx2");

/// Per-byte population counts: a shuffle looks up each half of every byte.
#[inline(always)]
unsafe fn byte_counts(v: __m256i) -> __m256i {
    let lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    let low = _mm256_set1_epi8(0x0f);
    let lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(v, low));
    let hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), low));
    _mm256_add_epi8(lo, hi)
}

/// Each lane's four byte counts (at most 63 each) summed into the lane.
#[inline(always)]
unsafe fn lane_sums(bytes: __m256i) -> __m256i {
    _mm256_madd_epi16(_mm256_maddubs_epi16(bytes, _mm256_set1_epi8(1)), _mm256_set1_epi16(1))
}

#[derive(Clone, Copy)]
pub(super) struct Avx2;

impl Simd for Avx2 {
    const LANES: usize = 8;
    const STEP_AND_PLACE: bool = true;
    const ROWS: usize = 16;
    type V = __m256i;
    /// Lanes of all ones where set.
    type M = __m256i;
    /// Rows 0..8 and 8..16.
    type T = [__m256i; 2];

    #[inline(always)]
    unsafe fn splat(x: i32) -> __m256i {
        _mm256_set1_epi32(x)
    }
    #[inline(always)]
    unsafe fn load(a: &[u32; MAX_LANES]) -> __m256i {
        _mm256_loadu_si256(a.as_ptr().cast())
    }
    #[inline(always)]
    unsafe fn store(a: &mut [u32; MAX_LANES], v: __m256i) {
        _mm256_storeu_si256(a.as_mut_ptr().cast(), v)
    }
    #[inline(always)]
    unsafe fn add(a: __m256i, b: __m256i) -> __m256i {
        _mm256_add_epi32(a, b)
    }
    #[inline(always)]
    unsafe fn sub(a: __m256i, b: __m256i) -> __m256i {
        _mm256_sub_epi32(a, b)
    }
    #[inline(always)]
    unsafe fn and(a: __m256i, b: __m256i) -> __m256i {
        _mm256_and_si256(a, b)
    }
    #[inline(always)]
    unsafe fn or(a: __m256i, b: __m256i) -> __m256i {
        _mm256_or_si256(a, b)
    }
    #[inline(always)]
    unsafe fn xor(a: __m256i, b: __m256i) -> __m256i {
        _mm256_xor_si256(a, b)
    }
    #[inline(always)]
    unsafe fn andnot(a: __m256i, b: __m256i) -> __m256i {
        _mm256_andnot_si256(a, b)
    }
    #[inline(always)]
    unsafe fn or3(a: __m256i, b: __m256i, c: __m256i) -> __m256i {
        _mm256_or_si256(_mm256_or_si256(a, b), c)
    }
    #[inline(always)]
    unsafe fn shl<const K: u32>(a: __m256i) -> __m256i {
        _mm256_sll_epi32(a, _mm_cvtsi32_si128(K as i32))
    }
    #[inline(always)]
    unsafe fn shr<const K: u32>(a: __m256i) -> __m256i {
        _mm256_srl_epi32(a, _mm_cvtsi32_si128(K as i32))
    }
    #[inline(always)]
    unsafe fn shlv(a: __m256i, by: __m256i) -> __m256i {
        _mm256_sllv_epi32(a, by)
    }
    #[inline(always)]
    unsafe fn shrv(a: __m256i, by: __m256i) -> __m256i {
        _mm256_srlv_epi32(a, by)
    }
    #[inline(always)]
    unsafe fn eq(a: __m256i, b: __m256i) -> __m256i {
        _mm256_cmpeq_epi32(a, b)
    }
    #[inline(always)]
    unsafe fn is_zero(a: __m256i) -> __m256i {
        _mm256_cmpeq_epi32(a, _mm256_setzero_si256())
    }
    #[inline(always)]
    unsafe fn nonzero(a: __m256i) -> __m256i {
        Self::m_not(Self::is_zero(a))
    }
    #[inline(always)]
    unsafe fn select(m: __m256i, yes: __m256i, no: __m256i) -> __m256i {
        _mm256_blendv_epi8(no, yes, m)
    }
    #[inline(always)]
    unsafe fn last_two_rows(a: __m256i, b: __m256i) -> __m256i {
        // How many of a, a<<1 and a>>1 cover each cell of b, in two bit planes (their XOR,
        // and their majority for the twos), so that two counts do what took three.
        let (s, t) = (_mm256_slli_epi32(a, 1), _mm256_srli_epi32(a, 1));
        let ones = _mm256_and_si256(b, _mm256_xor_si256(_mm256_xor_si256(a, s), t));
        let twos = _mm256_and_si256(b, _mm256_or_si256(_mm256_and_si256(a, _mm256_or_si256(s, t)), _mm256_and_si256(s, t)));
        let twos_bytes = byte_counts(twos);
        // At most 8 + 2 * 8 in a byte: no carry into the next.
        let covered = lane_sums(_mm256_add_epi8(byte_counts(ones), _mm256_add_epi8(twos_bytes, twos_bytes)));
        let size = _mm256_mullo_epi32(lane_sums(byte_counts(a)), lane_sums(byte_counts(b)));
        _mm256_sub_epi32(size, covered)
    }
    #[inline(always)]
    unsafe fn column(bit: __m256i) -> __m256i {
        // A power of two 2^c is exactly a float of exponent 127 + c (bit 31 turns negative,
        // with the same exponent); the mask drops the sign.
        let exponent = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(bit)), 23), _mm256_set1_epi32(0xff));
        _mm256_sub_epi32(exponent, _mm256_set1_epi32(127))
    }
    #[inline(always)]
    unsafe fn table(rows: &[u32]) -> [__m256i; 2] {
        let mut all = [0u32; 16];
        all[..rows.len()].copy_from_slice(rows);
        [_mm256_loadu_si256(all.as_ptr().cast()), _mm256_loadu_si256(all[8..].as_ptr().cast())]
    }
    #[inline(always)]
    unsafe fn lookup(t: &[__m256i; 2], row: __m256i) -> __m256i {
        // The low three bits pick within a half; bit 3, moved up to the sign that blendv
        // reads, picks the half.
        let (low, high) = (_mm256_permutevar8x32_epi32(t[0], row), _mm256_permutevar8x32_epi32(t[1], row));
        let by = _mm256_castsi256_ps(_mm256_slli_epi32(row, 28));
        _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(low), _mm256_castsi256_ps(high), by))
    }
    #[inline(always)]
    unsafe fn m_bits(m: __m256i) -> u32 {
        _mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32
    }
    #[inline(always)]
    unsafe fn m_from_bits(bits: u32) -> __m256i {
        let lanes = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(bits as i32), lanes), lanes)
    }
    #[inline(always)]
    unsafe fn m_and(a: __m256i, b: __m256i) -> __m256i {
        _mm256_and_si256(a, b)
    }
    #[inline(always)]
    unsafe fn m_andnot(a: __m256i, b: __m256i) -> __m256i {
        _mm256_andnot_si256(b, a)
    }
    #[inline(always)]
    unsafe fn m_not(a: __m256i) -> __m256i {
        _mm256_xor_si256(a, _mm256_set1_epi32(-1))
    }
}
