//! A small deterministic random number generator (xorshift64). The tree estimator's dives
//! and the tests' random boards draw from it, so that plans, shards and test failures
//! repeat from a seed on every machine.

/// xorshift64: cheap, and the same sequence for the same seed everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose sequence is fixed by `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Rng {
        // Spreads small seeds over the word; the state must not be 0.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..k` (`k` > 0).
    pub fn below(&mut self, k: u64) -> u64 {
        self.next_u64() % k
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below((hi - lo + 1) as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_fixes_the_sequence() {
        let take = |seed| {
            let mut rng = Rng::new(seed);
            (0..4).map(|_| rng.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(take(7), take(7));
        assert_ne!(take(7), take(8));
        assert!(take(0).iter().all(|&x| x != 0));
    }

    #[test]
    fn ranges_stay_within_their_bounds() {
        let mut rng = Rng::new(1);
        assert!((0..1000).all(|_| (3..=5).contains(&rng.range(3, 5))));
        assert!((0..1000).all(|_| rng.below(7) < 7));
        assert!(!(0..1000).any(|_| rng.chance(0.0)));
        assert!((0..1000).all(|_| rng.chance(1.0)));
    }
}
