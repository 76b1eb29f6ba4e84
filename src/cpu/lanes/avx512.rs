//! Sixteen lanes in 512-bit vectors, with lane masks in mask registers, a native population
//! and leading-zero count, and tables of 32 rows in two registers read by one permute.

use std::arch::x86_64::*;

use super::search::{packs, search};
use super::{entry_point, Simd, MAX_LANES};
use crate::control::{Control, Interrupted};
use crate::plan::Plan;
use crate::prefix::Prefix;
use crate::tally::Tally;

/// Whether this CPU has what the sixteen lanes need: AVX-512 with conflict detection (for
/// the leading-zero count) and the native population count.
pub(super) fn supported() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512cd") && is_x86_feature_detected!("avx512vpopcntdq")
}

entry_point!(Avx512, "avx512f,avx512cd,avx512vpopcntdq");

#[derive(Clone, Copy)]
pub(super) struct Avx512;

impl Simd for Avx512 {
    const LANES: usize = 16;
    const STEP_AND_PLACE: bool = false;
    const ROWS: usize = 32;
    type V = __m512i;
    type M = __mmask16;
    /// Rows 0..16 and 16..32, so that one two-source permute reads any of the 32.
    type T = [__m512i; 2];

    #[inline(always)]
    unsafe fn splat(x: i32) -> __m512i {
        _mm512_set1_epi32(x)
    }
    #[inline(always)]
    unsafe fn load(a: &[u32; MAX_LANES]) -> __m512i {
        _mm512_loadu_si512(a.as_ptr().cast())
    }
    #[inline(always)]
    unsafe fn store(a: &mut [u32; MAX_LANES], v: __m512i) {
        _mm512_storeu_si512(a.as_mut_ptr().cast(), v)
    }
    #[inline(always)]
    unsafe fn add(a: __m512i, b: __m512i) -> __m512i {
        _mm512_add_epi32(a, b)
    }
    #[inline(always)]
    unsafe fn sub(a: __m512i, b: __m512i) -> __m512i {
        _mm512_sub_epi32(a, b)
    }
    #[inline(always)]
    unsafe fn and(a: __m512i, b: __m512i) -> __m512i {
        _mm512_and_si512(a, b)
    }
    #[inline(always)]
    unsafe fn or(a: __m512i, b: __m512i) -> __m512i {
        _mm512_or_si512(a, b)
    }
    #[inline(always)]
    unsafe fn xor(a: __m512i, b: __m512i) -> __m512i {
        _mm512_xor_si512(a, b)
    }
    #[inline(always)]
    unsafe fn andnot(a: __m512i, b: __m512i) -> __m512i {
        _mm512_andnot_si512(a, b)
    }
    #[inline(always)]
    unsafe fn or3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        _mm512_ternarylogic_epi32::<0xfe>(a, b, c)
    }
    #[inline(always)]
    unsafe fn shl<const K: u32>(a: __m512i) -> __m512i {
        _mm512_slli_epi32::<K>(a)
    }
    #[inline(always)]
    unsafe fn shr<const K: u32>(a: __m512i) -> __m512i {
        _mm512_srli_epi32::<K>(a)
    }
    #[inline(always)]
    unsafe fn shlv(a: __m512i, by: __m512i) -> __m512i {
        _mm512_sllv_epi32(a, by)
    }
    #[inline(always)]
    unsafe fn shrv(a: __m512i, by: __m512i) -> __m512i {
        _mm512_srlv_epi32(a, by)
    }
    #[inline(always)]
    unsafe fn eq(a: __m512i, b: __m512i) -> __mmask16 {
        _mm512_cmpeq_epi32_mask(a, b)
    }
    #[inline(always)]
    unsafe fn is_zero(a: __m512i) -> __mmask16 {
        _mm512_testn_epi32_mask(a, a)
    }
    #[inline(always)]
    unsafe fn nonzero(a: __m512i) -> __mmask16 {
        _mm512_test_epi32_mask(a, a)
    }
    #[inline(always)]
    unsafe fn select(m: __mmask16, yes: __m512i, no: __m512i) -> __m512i {
        _mm512_mask_mov_epi32(no, m, yes)
    }
    #[inline(always)]
    unsafe fn last_two_rows(a: __m512i, b: __m512i) -> __m512i {
        let size = _mm512_mullo_epi32(_mm512_popcnt_epi32(a), _mm512_popcnt_epi32(b));
        let covered = _mm512_add_epi32(
            _mm512_popcnt_epi32(_mm512_and_si512(b, a)),
            _mm512_add_epi32(
                _mm512_popcnt_epi32(_mm512_and_si512(b, _mm512_slli_epi32(a, 1))),
                _mm512_popcnt_epi32(_mm512_and_si512(b, _mm512_srli_epi32(a, 1))),
            ),
        );
        _mm512_sub_epi32(size, covered)
    }
    #[inline(always)]
    unsafe fn column(bit: __m512i) -> __m512i {
        // 31 minus the leading zeros of the bit.
        _mm512_sub_epi32(_mm512_set1_epi32(31), _mm512_lzcnt_epi32(bit))
    }
    #[inline(always)]
    unsafe fn table(rows: &[u32]) -> [__m512i; 2] {
        let mut all = [0u32; 32];
        all[..rows.len()].copy_from_slice(rows);
        [_mm512_loadu_si512(all.as_ptr().cast()), _mm512_loadu_si512(all[16..].as_ptr().cast())]
    }
    #[inline(always)]
    unsafe fn lookup(t: &[__m512i; 2], row: __m512i) -> __m512i {
        // The index's low five bits pick one of the 32 entries.
        _mm512_permutex2var_epi32(t[0], row, t[1])
    }
    #[inline(always)]
    unsafe fn m_bits(m: __mmask16) -> u32 {
        u32::from(m)
    }
    #[inline(always)]
    unsafe fn m_from_bits(bits: u32) -> __mmask16 {
        bits as __mmask16
    }
    #[inline(always)]
    unsafe fn m_and(a: __mmask16, b: __mmask16) -> __mmask16 {
        a & b
    }
    #[inline(always)]
    unsafe fn m_andnot(a: __mmask16, b: __mmask16) -> __mmask16 {
        a & !b
    }
    #[inline(always)]
    unsafe fn m_not(a: __mmask16) -> __mmask16 {
        !a
    }
}
