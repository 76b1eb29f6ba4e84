//! The pieces the CPU's threads take, where the prefixes' work is estimated: prefixes made
//! finer, row by row, while one holds a large part of a thread's share (a shard of a big
//! board may hold a few thousand prefixes, some of them hundreds of times the mean), and
//! chunks of the dynamic schedule cut by estimated work as well as by count.

use std::borrow::Cow;
use std::cell::Cell;

use super::descend::Descend;
use super::DYNAMIC_CHUNK;
use crate::plan::Plan;
use crate::prefix::Prefixes;
use crate::tuning::{CHUNKS_PER_SHARE, PREFIXES_PER_SHARE};

/// Prefixes from which none is made finer (16 bytes each): the last row taken may still
/// multiply them by up to n.
const MOST_PREFIXES: usize = 1 << 22;

/// Prefixes ready to deal to the threads.
pub struct Finer<'a> {
    pub prefixes: Cow<'a, Prefixes>,
    /// Each prefix's estimated work (empty: one each).
    pub work: Cow<'a, [f64]>,
    /// Queens the scalar search places on the way down (see [`Descend`]).
    pub nodes: u64,
    /// The estimated work of prefixes that had no prefix below them.
    pub dropped: f64,
}

/// `prefixes`, each of estimated work `work` (empty: not estimated), brought a row further
/// down while one holds more than 1/[`PREFIXES_PER_SHARE`] of a share of `threads`, each
/// prefix's work shared evenly among those below it.
pub fn finer<'a>(plan: &Plan, prefixes: &'a Prefixes, work: &'a [f64], threads: usize) -> Finer<'a> {
    let most = work.iter().sum::<f64>() / threads as f64 / PREFIXES_PER_SHARE;
    let mut out = Finer { prefixes: Cow::Borrowed(prefixes), work: Cow::Borrowed(work), nodes: 0, dropped: 0.0 };
    while threads > 1
        && out.work.iter().any(|&work| work > most)
        && out.prefixes.depth + 4 <= plan.n
        && out.prefixes.items.len() < MOST_PREFIXES
    {
        let depth = out.prefixes.depth;
        let nodes = Cell::new(0);
        let (mut items, mut shares, mut dropped) = (Vec::new(), Vec::new(), 0.0);
        for (&p, &work) in out.prefixes.items.iter().zip(out.work.iter()) {
            let start = items.len();
            items.extend(Descend::new(plan, p, depth, depth + 1, true, &nodes));
            let k = items.len() - start;
            if k == 0 {
                dropped += work;
            }
            shares.extend(std::iter::repeat_n(work / k.max(1) as f64, k));
        }
        out = Finer {
            prefixes: Cow::Owned(Prefixes { depth: depth + 1, items }),
            work: Cow::Owned(shares),
            nodes: out.nodes + nodes.get(),
            dropped: out.dropped + dropped,
        };
    }
    out
}

/// Where each chunk of the dynamic schedule starts, and last where the `len` prefixes end:
/// at most [`DYNAMIC_CHUNK`] prefixes a chunk and, where `work` is estimated, at most
/// 1/[`CHUNKS_PER_SHARE`] of a share of `threads` unless the chunk is one prefix.
pub fn chunks(work: &[f64], len: usize, threads: usize) -> Vec<usize> {
    if work.len() != len {
        return (0..len).step_by(DYNAMIC_CHUNK).chain([len]).collect();
    }
    let most = work.iter().sum::<f64>() / threads as f64 / CHUNKS_PER_SHARE;
    let mut bounds = vec![0];
    let (mut start, mut sum) = (0, 0.0);
    for (i, &work) in work.iter().enumerate() {
        if i > start && (i - start == DYNAMIC_CHUNK || sum + work > most) {
            bounds.push(i);
            (start, sum) = (i, 0.0);
        }
        sum += work;
    }
    if len > 0 {
        bounds.push(len);
    }
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::prefix::expand;

    #[test]
    fn chunks_hold_few_prefixes_and_little_work() {
        assert_eq!(chunks(&[], 40, 4), vec![0, 16, 32, 40]);
        assert_eq!(chunks(&[], 0, 4), vec![0]);
        // One thread, at most 52 / 64 a chunk: sixteen light prefixes, or one heavy.
        let mut work = vec![0.01; 201];
        work[100] = 50.0;
        let bounds = chunks(&work, 201, 1);
        assert_eq!(bounds, vec![0, 16, 32, 48, 64, 80, 96, 100, 101, 117, 133, 149, 165, 181, 197, 201]);
    }

    #[test]
    fn heavy_prefixes_are_made_finer_and_their_work_kept() {
        let plan = Plan::plain(&Board::empty(12).unwrap());
        let base = expand(&plan, 100);
        let mut work = vec![1.0; base.items.len()];
        work[0] = 1000.0;
        let total: f64 = work.iter().sum();
        let finer = finer(&plan, &base, &work, 8);
        assert!(finer.prefixes.depth > base.depth);
        let most = total / 8.0 / PREFIXES_PER_SHARE;
        assert!(finer.work.iter().all(|&w| w <= most), "{most}");
        assert!((finer.work.iter().sum::<f64>() + finer.dropped - total).abs() < 1e-6 * total);
        assert!(finer.nodes > 0);
        // One thread, or no estimates: nothing to share.
        assert!(matches!(super::finer(&plan, &base, &work, 1).prefixes, Cow::Borrowed(_)));
        assert!(matches!(super::finer(&plan, &base, &[], 8).prefixes, Cow::Borrowed(_)));
    }
}
