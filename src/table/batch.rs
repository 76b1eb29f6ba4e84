//! Partial boards waiting to be joined: each thread gathers its own into a batch, sorted by
//! the key of their set (band and column set), so that in the joins a set meets every
//! partial board of the round that needs it at once, from every thread's batch.

use std::ops::Range;

use super::rank::Ranks;
use super::Table;
use crate::prefix::Prefix;

/// A partial board at the band's top row, by its set's key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// Its band's index times the sets of a band, plus its column set's rank.
    pub key: u32,
    pub board: u32,
    pub ld: u32,
    pub rd: u32,
}

/// Bits of the key sorted per pass.
const DIGIT: u32 = 16;

/// One thread's partial boards, sorted by key once full.
#[derive(Default)]
pub struct Batch {
    requests: Vec<Request>,
    scratch: Vec<Request>,
    ranks: Ranks,
}

impl Batch {
    /// The bytes a batch of `len` partial boards takes, sorted.
    pub fn bytes(len: usize) -> usize {
        2 * len * std::mem::size_of::<Request>()
    }

    /// Adds `p`, a partial board of a board `table` joins, at the band's top row.
    #[inline]
    pub fn push(&mut self, table: &Table, p: Prefix) {
        let set = !p.cols & table.full;
        let key = table.of_board[p.board as usize] * table.sets + self.ranks.of(set);
        self.requests.push(Request { key, board: p.board, ld: p.ld, rd: p.rd });
    }

    /// How many partial boards it holds.
    pub fn len(&self) -> usize {
        self.requests.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// Forgets its partial boards.
    pub fn clear(&mut self) {
        self.requests.clear();
    }

    /// Sorts it by key over the keys of `table`, a digit at a time from the lowest (each
    /// pass keeps the last's order).
    pub fn sort(&mut self, table: &Table) {
        let bits = 32 - table.keys().saturating_sub(1).max(1).leading_zeros();
        self.scratch.resize(self.requests.len(), Request::default());
        let mut at = vec![0u32; 1 << DIGIT];
        for shift in (0..bits).step_by(DIGIT as usize) {
            let mask = (1u32 << DIGIT.min(bits - shift)) - 1;
            let digit = |r: &Request| (r.key >> shift & mask) as usize;
            at.fill(0);
            for r in &self.requests {
                at[digit(r)] += 1;
            }
            let mut sum = 0;
            for slot in at.iter_mut() {
                (*slot, sum) = (sum, sum + *slot);
            }
            for r in &self.requests {
                let d = digit(r);
                self.scratch[at[d] as usize] = *r;
                at[d] += 1;
            }
            std::mem::swap(&mut self.requests, &mut self.scratch);
        }
    }

    /// Its partial boards whose keys lie in `keys`, once sorted.
    pub fn within(&self, keys: Range<u32>) -> &[Request] {
        let from = self.requests.partition_point(|r| r.key < keys.start);
        let to = from + self.requests[from..].partition_point(|r| r.key < keys.end);
        &self.requests[from..to]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_sorts_by_key_and_finds_ranges() {
        let mut rng = crate::rng::Rng::new(6);
        let plan = crate::plan::Plan::plain(&crate::board::Board::empty(20).unwrap());
        let table = Table::new(&plan, 10, &[true], 1 << 30);
        assert!(table.keys() > 1 << 17);
        let requests = (0..5000).map(|i| Request { key: rng.below(u64::from(table.keys())) as u32, board: i, ld: 0, rd: 0 }).collect();
        let mut batch = Batch { requests, ..Batch::default() };
        let mut want = batch.requests.clone();
        want.sort_by_key(|r| r.key);
        batch.sort(&table);
        // Stable: equal keys keep their order.
        assert_eq!(batch.requests, want);
        let range = batch.within(1000..200_000);
        assert!(range.iter().all(|r| (1000..200_000).contains(&r.key)));
        assert_eq!(range.len(), want.iter().filter(|r| (1000..200_000).contains(&r.key)).count());
    }
}
