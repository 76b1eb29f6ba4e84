//! What a count of some prefixes adds up to, whichever backend made it.

/// Solutions (weighted) and search nodes, summed over some prefixes. Both are 128-bit, so
/// that no sum over prefixes, units or shards can wrap; the searches themselves count one
/// prefix's completions in 64 bits, which no subtree searched in a lifetime can fill.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Weighted solution count.
    pub solutions: u128,
    /// Queens placed by the search loop (the last two rows are counted in closed form).
    pub nodes: u128,
}

impl Tally {
    /// `solutions` solutions of a board of weight `weight`, found in `nodes` nodes.
    pub fn weighted(solutions: u64, weight: u64, nodes: u64) -> Tally {
        Tally { solutions: u128::from(solutions) * u128::from(weight), nodes: u128::from(nodes) }
    }
}

impl std::ops::Add for Tally {
    type Output = Tally;
    fn add(self, o: Tally) -> Tally {
        Tally { solutions: self.solutions + o.solutions, nodes: self.nodes + o.nodes }
    }
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        *self = *self + o;
    }
}

impl std::iter::Sum for Tally {
    fn sum<I: Iterator<Item = Tally>>(iter: I) -> Tally {
        iter.fold(Tally::default(), |a, b| a + b)
    }
}
