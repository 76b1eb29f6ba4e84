//! A sparse array indexed by shard, in pages of [`PAGE`] slots made as records reach them:
//! a run's shards fill their pages densely, a few bytes a shard, while a record that names
//! a shard far past the others (a forged or damaged M) costs one page, not an array as
//! long as its number.

use std::collections::BTreeMap;

/// Slots a page holds.
const PAGE: usize = 64;

/// Slots by index, each `T::default()` until set.
pub struct Pages<T> {
    pages: BTreeMap<usize, Box<[T; PAGE]>>,
}

impl<T> Default for Pages<T> {
    fn default() -> Pages<T> {
        Pages { pages: BTreeMap::new() }
    }
}

impl<T: Default> Pages<T> {
    /// Slot `index`, made (as `T::default()`) if its page is new.
    pub fn slot(&mut self, index: usize) -> &mut T {
        let page = self.pages.entry(index / PAGE).or_insert_with(|| Box::new(std::array::from_fn(|_| T::default())));
        &mut page[index % PAGE]
    }
}

impl<T> Pages<T> {
    /// Slot `index`, where its page was made.
    pub fn get(&self, index: usize) -> Option<&T> {
        self.pages.get(&(index / PAGE)).map(|page| &page[index % PAGE])
    }

    /// Every slot of the pages made, with its index, in order of index.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &T)> + '_ {
        self.pages.iter().flat_map(|(&p, page)| page.iter().enumerate().map(move |(i, t)| (p * PAGE + i, t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_far_apart_cost_a_page_each() {
        let mut pages: Pages<u32> = Pages::default();
        *pages.slot(3) = 7;
        *pages.slot(usize::MAX) = 9;
        assert_eq!((pages.get(3), pages.get(4), pages.get(usize::MAX), pages.get(1000)), (Some(&7), Some(&0), Some(&9), None));
        assert_eq!(pages.pages.len(), 2);
        let set: Vec<(usize, u32)> = pages.iter().filter(|(_, &v)| v != 0).map(|(i, &v)| (i, v)).collect();
        assert_eq!(set, [(3, 7), (usize::MAX, 9)]);
    }
}
