//! What a count of some prefixes adds up to, whichever backend made it.

/// Solutions (weighted) and search nodes, summed over some prefixes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Weighted solution count.
    pub solutions: u64,
    /// Queens placed by the search loop (the last two rows are counted in closed form).
    pub nodes: u64,
}

impl std::ops::Add for Tally {
    type Output = Tally;
    fn add(self, o: Tally) -> Tally {
        Tally { solutions: self.solutions + o.solutions, nodes: self.nodes + o.nodes }
    }
}
