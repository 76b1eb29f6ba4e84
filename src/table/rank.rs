//! The place of a set of columns among all sets of its size: the index of a table's slot
//! for a column set, and of a builder's memo for the sets below it.
//!
//! Sets of `k` of the columns `0..32` are numbered in colex order, the set with columns
//! `p_0 < p_1 < ... < p_{k-1}` getting `sum binom(p_i, i + 1)`; so the sets of `k` columns of
//! an `n`-board are exactly the numbers `0..binom(n, k)`, whatever `n` is. The sum is read
//! a byte of the set at a time from one table, built once.

use std::sync::OnceLock;

/// `BINOM[a][b]` is `binom(a, b)` for `a, b <= 32` (0 where `b > a`); `binom(32, 16)` fits
/// a `u32`.
const BINOM: [[u32; 33]; 33] = {
    let mut t = [[0u32; 33]; 33];
    let mut a = 0;
    while a <= 32 {
        t[a][0] = 1;
        let mut b = 1;
        while b <= a {
            t[a][b] = t[a - 1][b - 1] + if b < a { t[a - 1][b] } else { 0 };
            b += 1;
        }
        a += 1;
    }
    t
};

/// `binom(a, b)`, for `a, b <= 32`.
pub fn binom(a: usize, b: usize) -> u32 {
    BINOM[a][b]
}

/// For byte `j` of a set, `k` columns below that byte and the byte's value `v`: what the
/// byte's columns add to the rank.
struct ByteTable([[[u32; 256]; 33]; 4]);

fn byte_table() -> &'static ByteTable {
    static TABLE: OnceLock<Box<ByteTable>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new(ByteTable([[[0; 256]; 33]; 4]));
        for (j, per_byte) in t.0.iter_mut().enumerate() {
            for (below, row) in per_byte.iter_mut().enumerate() {
                for (v, slot) in row.iter_mut().enumerate() {
                    let mut sum = 0u32;
                    let mut i = below;
                    for q in (0..8).filter(|q| v >> q & 1 == 1) {
                        i += 1;
                        if i <= 32 {
                            sum = sum.wrapping_add(BINOM[8 * j + q][i]);
                        }
                    }
                    *slot = sum;
                }
            }
        }
        t
    })
}

/// Ranks sets of columns (see the module doc).
#[derive(Clone, Copy)]
pub struct Ranks(&'static ByteTable);

impl Default for Ranks {
    fn default() -> Ranks {
        Ranks(byte_table())
    }
}

impl Ranks {
    /// The rank of `set` among the sets of its size.
    #[inline(always)]
    pub fn of(&self, set: u32) -> u32 {
        let t = &self.0 .0;
        // Boards of up to 16 columns need only the low two bytes.
        if set >> 16 == 0 {
            let b0 = set & 0xff;
            return t[0][0][b0 as usize] + t[1][b0.count_ones() as usize][(set >> 8) as usize];
        }
        let (b0, b1, b2, b3) = (set & 0xff, set >> 8 & 0xff, set >> 16 & 0xff, set >> 24);
        let (k1, k2, k3) = (b0.count_ones(), (set & 0xffff).count_ones(), (set & 0xff_ffff).count_ones());
        t[0][0][b0 as usize] + t[1][k1 as usize][b1 as usize] + t[2][k2 as usize][b2 as usize] + t[3][k3 as usize][b3 as usize]
    }
}

/// The set of `k` columns whose rank is `rank` (below `binom(32, k)`).
pub fn unrank(mut rank: u32, k: usize) -> u32 {
    let mut set = 0;
    for i in (1..=k).rev() {
        // The highest column p with binom(p, i) <= rank.
        let p = (i - 1..32).take_while(|&p| BINOM[p][i] <= rank).last().unwrap_or(i - 1);
        set |= 1 << p;
        rank -= BINOM[p][i];
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rank by its definition.
    fn slow(set: u32) -> u32 {
        (0..32).filter(|p| set >> p & 1 == 1).enumerate().map(|(i, p)| BINOM[p][i + 1]).sum()
    }

    #[test]
    fn binomials_are_right() {
        assert_eq!(binom(5, 2), 10);
        assert_eq!(binom(32, 16), 601_080_390);
        assert_eq!(binom(3, 4), 0);
    }

    #[test]
    fn ranks_number_the_sets_of_each_size_from_zero() {
        let ranks = Ranks::default();
        for k in 0..=5 {
            let mut seen: Vec<u32> = (0u32..1 << 10).filter(|s| s.count_ones() == k).map(|s| ranks.of(s)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..binom(10, k as usize)).collect::<Vec<_>>(), "k={k}");
        }
        let mut rng = crate::rng::Rng::new(9);
        for _ in 0..10_000 {
            let set = rng.below(1 << 32) as u32;
            assert_eq!(ranks.of(set), slow(set), "{set:#x}");
        }
        assert_eq!(ranks.of(u32::MAX), 0);
    }

    #[test]
    fn unrank_undoes_rank() {
        let ranks = Ranks::default();
        for k in 1..=6 {
            for r in 0..binom(12, k) {
                let set = unrank(r, k);
                assert_eq!((set.count_ones() as usize, ranks.of(set)), (k, r));
            }
        }
    }
}
