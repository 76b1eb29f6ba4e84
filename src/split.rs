//! The split of a case into shards, found one shard at a time: a shard plans only itself,
//! so its cost and memory grow with its own work, not with the board's.
//!
//! The plan's boards are the top of a tree whose nodes are partial boards (queens in the
//! first rows) and whose children place the next row's queen, lowest column first. The
//! case's estimated search nodes form a line: the top level divides it among the boards in
//! proportion to their estimates, and every node divides its own stretch among its
//! children in proportion to theirs. A node whose stretch is longer than a small part of a
//! shard's width is divided; the others are the case's *roots*, and shard K holds the
//! roots whose middle falls in its width, the K-th of M equal parts of the line.
//!
//! Finding shard K visits only the nodes whose stretch meets its width: the top level, the
//! nodes on the two paths to its ends with their siblings, and its own roots. Every
//! estimate comes from dives seeded by the node itself, so every machine, whatever its
//! threads, backend or order of work, finds the same stretches and the same shards. A
//! case whose whole tree is small is weighed by its nodes counted, not estimated: the
//! dives would cost far more than the count.

mod nodes;

use std::collections::HashMap;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::estimate::{Dives, Start};
use crate::plan::Plan;
use crate::prefix::{Prefix, Prefixes};
use crate::work::Shard;

// These figures define the split: every machine must use the same ones to find the same
// shards, and a change makes other shards (and so parts that do not merge). They are not
// tuning (crate::tuning).

/// Roots per shard's width, about: the width a node must exceed to be divided is the
/// shard's over this, so that a shard's estimate is within a few percent of its width.
pub const ROOTS_PER_SHARD: f64 = 32.0;
/// Shards are *narrow* where a shard's width over [`ROOTS_PER_SHARD`] is less than this:
/// a root of so few nodes costs more to find (a node's weight takes a thousand dives, or a
/// count of it) than to count. A board of 16x16 in 2,048 shards would have some 65,536
/// roots of about 4,000 nodes each, each weighed by 1,024 dives; a record-size board's
/// shards of minutes, or empty 20x20's in 262,144, are far wider, and split as they were.
const NARROW_BELOW: f64 = (1u64 << 14) as f64;
/// The stretch a node must exceed to be divided where the shards are narrow. Such a split
/// is another rule: its line is the boards' first, rough estimates, each node is weighed by
/// [`LEAST_DIVES`] dives, and its shards are less even, each a few milliseconds of
/// counting at most.
const NARROW_NODES: f64 = (1u64 << 20) as f64;
/// Added to [`RULE`] in the fingerprint of a split of narrow shards.
const NARROW_RULE: &str = "narrow-1";
/// Random dives that estimate the plan's boards, in all: an error at the top is shared by
/// every shard below it. Each board gets its share of them by a first, rough estimate.
const TOP_DIVES: f64 = (1 << 22) as f64;
/// The most dives for one node: a node gets a quarter of its parent's, down to the fewest.
const MOST_DIVES: u32 = 1 << 16;
/// The fewest dives for a node, and the rough estimate's for each board.
const LEAST_DIVES: u32 = 1 << 10;
/// Rows a root leaves to the counters at least: dividing nearer the last rows buys nothing.
const ROWS_LEFT: usize = 4;
/// Changes whenever the rule that divides the line changes, so that parts and checkpoints
/// from another rule are told apart by their fingerprints.
const RULE: &str = "split-tree-1";
/// The most search nodes, over all of the plan's boards, of a case weighed by its nodes
/// counted: a count of that many costs less than the dives of one node's estimate.
const COUNTED_NODES: u64 = 1 << 20;
/// Added to [`RULE`] in the fingerprint of a case weighed by its nodes counted.
const COUNTED_RULE: &str = "counted-1";
/// The rows below the top whose nodes' counts a small case's split keeps: the nodes a
/// shard's way down the tree weighs, mostly, which are then not counted again.
const NOTED_ROWS: usize = 4;

/// The case's line: the plan's boards' estimates and the width of each of `shards` shards.
#[derive(Clone, Debug)]
pub struct Split {
    shards: usize,
    /// Each plan board's estimated search nodes.
    tops: Vec<f64>,
    /// Their sum: the case's estimate.
    total: f64,
    /// Where the case is small: the search nodes, counted, of the nodes of its first
    /// [`NOTED_ROWS`] rows that a shard's walk may weigh; its other nodes are counted
    /// too, as the walk meets them, not estimated.
    counted: Option<HashMap<Prefix, u64>>,
    /// Whether its shards are narrow (see [`NARROW_NODES`]).
    narrow: bool,
}

/// A partial board at the bottom of the divided tree: what a shard counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Root {
    /// The plan's board it lies on.
    pub board: u32,
    /// The columns of its queens, row by row from row 0.
    pub queens: Vec<u8>,
    /// The same as the counters take it.
    pub prefix: Prefix,
    /// Where its stretch of the case's line starts, and its length: its estimated nodes.
    pub start: f64,
    pub estimate: f64,
}

impl Root {
    /// Rows filled.
    pub fn depth(&self) -> usize {
        self.queens.len()
    }
}

/// A node of the tree while it is being divided: its queens' columns (the first `depth`),
/// kept in place, since the walk makes and drops nodes by the thousand.
#[derive(Clone, Copy)]
struct Node {
    board: u32,
    queens: [u8; 32],
    depth: u8,
    prefix: Prefix,
}

impl Node {
    fn depth(&self) -> usize {
        usize::from(self.depth)
    }

    /// Its children, lowest column first.
    fn children(&self, plan: &Plan) -> Vec<Node> {
        let mut avail = if self.depth() < plan.n { self.prefix.avail(plan, self.depth()) } else { 0 };
        let mut out = Vec::with_capacity(avail.count_ones() as usize);
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            let mut child = Node { prefix: self.prefix.place(bit), depth: self.depth + 1, ..*self };
            child.queens[self.depth()] = bit.trailing_zeros() as u8;
            out.push(child);
        }
        out
    }

    /// Its estimated search nodes, itself included, from `dives` dives seeded by the node
    /// alone.
    fn estimate(&self, plan: &Plan, dives: u32) -> f64 {
        let depth = self.depth();
        let b = self.board as usize;
        let mut d = Dives::new(seed(self));
        let start = Start { cols: self.prefix.cols, ld: self.prefix.ld, rd: self.prefix.rd };
        let below: f64 = (0..dives).map(|_| d.dive(&plan.boards[b], &plan.due[b], start, depth)).sum();
        1.0 + below / f64::from(dives)
    }

    /// Its search nodes, itself included, where they are at most `budget` (which they are
    /// taken from); with a note of each node in its first `note` rows, itself the first,
    /// pushed on `notes`.
    fn nodes(&self, plan: &Plan, budget: &mut u64, note: usize, notes: &mut Vec<nodes::Note>) -> Option<u64> {
        let (b, depth) = (self.board as usize, self.depth());
        let (rows, due) = (&plan.boards[b], &plan.due[b]);
        nodes::count(rows.get(depth..).unwrap_or_default(), due.get(depth..).unwrap_or_default(), self.prefix, budget, (note, notes))
    }

    /// Its stretch's length: its search nodes, noted or counted where the case's are
    /// `counted`, else estimated (by [`LEAST_DIVES`] dives where the shards are `narrow`).
    fn weight(&self, plan: &Plan, counted: Option<&HashMap<Prefix, u64>>, narrow: bool) -> f64 {
        let dives = if narrow { LEAST_DIVES } else { dives_at(self.depth()) };
        let Some(notes) = counted else { return self.estimate(plan, dives) };
        let mut budget = COUNTED_NODES;
        match notes.get(&self.prefix).copied().or_else(|| self.nodes(plan, &mut budget, 0, &mut Vec::new())) {
            Some(nodes) => nodes as f64,
            None => self.estimate(plan, dives),
        }
    }

    fn into_root(self, start: f64, estimate: f64) -> Root {
        Root { board: self.board, queens: self.queens[..self.depth()].to_vec(), prefix: self.prefix, start, estimate }
    }
}

/// The longest stretch that is not divided further, of a case of `total` estimated nodes
/// in `shards` shards, `narrow` or not (see [`NARROW_NODES`]).
fn finest(total: f64, shards: usize, narrow: bool) -> f64 {
    if narrow {
        NARROW_NODES
    } else {
        total / shards as f64 / ROOTS_PER_SHARD
    }
}

/// Whether shards of a case of `total` nodes in `shards` shards are narrow, 1/32 of their
/// width under `narrowest` nodes (see [`NARROW_BELOW`]).
fn is_narrow(total: f64, shards: usize, narrowest: f64) -> bool {
    total > 0.0 && total / shards as f64 / ROOTS_PER_SHARD < narrowest
}

/// Dives for a node `depth` rows down, below the plan's boards.
fn dives_at(depth: usize) -> u32 {
    (MOST_DIVES >> (2 * depth).min(31)).max(LEAST_DIVES)
}

/// A node's seed: a mix of its board, depth and attacks, the same on every machine.
fn seed(node: &Node) -> u64 {
    let p = node.prefix;
    let words = [u64::from(node.board), node.depth() as u64, u64::from(p.cols), u64::from(p.ld), u64::from(p.rd)];
    words.iter().fold(0x243F_6A88_85A3_08D3u64, |h, &w| {
        let x = (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x ^ (x >> 29)
    })
}

impl Split {
    /// The line of `plan`'s case, to be cut into `shards` shards: its boards' search nodes
    /// counted where they are at most [`COUNTED_NODES`], else estimated.
    pub fn new(plan: &Plan, shards: usize) -> Split {
        Split::bounded(plan, shards, COUNTED_NODES, NARROW_BELOW)
    }

    /// [`Split::new`], with `most` for the bound of a counted case and `narrowest` for
    /// [`NARROW_BELOW`].
    fn bounded(plan: &Plan, shards: usize, most: u64, narrowest: f64) -> Split {
        let boards = 0..plan.boards.len() as u32;
        // A case the planner puts past half the bound is not counted: a count that ran
        // into the bound would be lost.
        if plan.expected_nodes.is_none_or(|e| e <= most as f64 / 2.0) {
            let (mut budget, mut notes) = (most, Vec::new());
            let counted: Option<Vec<f64>> =
                boards.clone().map(|b| top(b).nodes(plan, &mut budget, NOTED_ROWS + 1, &mut notes).map(|n| n as f64)).collect();
            if let Some(tops) = counted {
                let (shards, total) = (shards.max(1), tops.iter().sum::<f64>());
                let narrow = is_narrow(total, shards, narrowest);
                // The walk divides no node shorter than the finest stretch (see
                // `Split::roots`); a node's stretch is about its nodes.
                let counted = nodes::kept(&notes, finest(total, shards, narrow) / 2.0);
                return Split { shards, tops, total, counted: Some(counted), narrow };
            }
        }
        let rough: Vec<f64> = boards.clone().into_par_iter().map(|b| top(b).estimate(plan, LEAST_DIVES)).collect();
        let sum: f64 = rough.iter().sum();
        if is_narrow(sum, shards.max(1), narrowest) {
            return Split { shards: shards.max(1), tops: rough, total: sum, counted: None, narrow: true };
        }
        let tops: Vec<f64> = boards
            .into_par_iter()
            .zip(&rough)
            .map(|(b, &e)| {
                let dives = (TOP_DIVES * e / sum).clamp(f64::from(LEAST_DIVES), f64::from(MOST_DIVES)) as u32;
                if dives > LEAST_DIVES {
                    top(b).estimate(plan, dives)
                } else {
                    e
                }
            })
            .collect();
        let total = tops.iter().sum();
        Split { shards: shards.max(1), tops, total, counted: None, narrow: false }
    }

    /// The line of a case too small to split (see [`crate::plan::small_count`]), cut into
    /// `shards`: with nothing estimated, all of it lies in shard 0.
    pub fn all_in_first(plan: &Plan, shards: usize) -> Split {
        Split { shards: shards.max(1), tops: vec![0.0; plan.boards.len()], total: 0.0, counted: None, narrow: false }
    }

    /// The case's estimated search nodes.
    pub fn total(&self) -> f64 {
        self.total
    }

    /// How many shards the line is cut into.
    pub fn shards(&self) -> usize {
        self.shards
    }

    /// The shard whose width holds the point `x` of the line.
    fn shard_at(&self, x: f64) -> usize {
        let width = self.total / self.shards as f64;
        if width > 0.0 {
            ((x / width) as usize).min(self.shards - 1)
        } else {
            0
        }
    }

    /// The roots of shard `shard` of `plan`'s case, in the tree's order.
    pub fn roots(&self, plan: &Plan, shard: usize) -> Vec<Root> {
        self.roots_with(plan, shard, &mut Weights::default())
    }

    /// The roots of each of `shards` (sorted, none twice) of `plan`'s case, in the tree's
    /// order, from one walk down the tree that visits every node a walk of any of them
    /// would, taking the weights of nodes weighed before from `weights` and keeping those it
    /// weighs there: the shards of one case share the top of its tree, and each weight costs
    /// up to thousands of dives.
    pub fn roots_of(&self, plan: &Plan, shards: &[usize], weights: &mut Weights) -> Vec<Vec<Root>> {
        let walk = Walk {
            split: self,
            plan,
            finest: finest(self.total, self.shards, self.narrow),
            deepest: plan.n.saturating_sub(ROWS_LEFT),
            shards,
        };
        let mut out = vec![Vec::new(); shards.len()];
        let mut at = 0.0;
        for (b, &estimate) in self.tops.iter().enumerate() {
            walk.visit(top(b as u32), at, estimate, &mut out, weights);
            at += estimate;
        }
        out
    }

    /// [`Split::roots`] from the weights `weights` keeps (see [`Split::roots_of`]).
    pub fn roots_with(&self, plan: &Plan, shard: usize, weights: &mut Weights) -> Vec<Root> {
        self.roots_of(plan, &[shard], weights).pop().unwrap_or_default()
    }

    /// A hex SHA-256 of what decides every shard of the case: the rule, the plan's boards
    /// and weights, their estimates and the number of shards. The same for every shard, so
    /// that a merge adds up only parts of one split.
    pub fn fingerprint(&self, plan: &Plan) -> String {
        let mut h = Sha256::new();
        h.update(RULE.as_bytes());
        if self.counted.is_some() {
            h.update(COUNTED_RULE.as_bytes());
        }
        if self.narrow {
            h.update(NARROW_RULE.as_bytes());
        }
        let mut words = |xs: &[u64]| xs.iter().for_each(|x| h.update(x.to_le_bytes()));
        words(&[plan.n as u64, plan.boards.len() as u64, self.shards as u64]);
        for ((rows, &w), e) in plan.boards.iter().zip(&plan.weights).zip(&self.tops) {
            words(&rows.iter().map(|&r| u64::from(r)).chain([w, e.to_bits()]).collect::<Vec<_>>());
        }
        crate::words::hex(&h.finalize())
    }
}

/// The way down the tree to some shards' roots.
struct Walk<'a> {
    split: &'a Split,
    plan: &'a Plan,
    /// The longest stretch that is not divided further.
    finest: f64,
    /// The deepest row a root may end at.
    deepest: usize,
    /// The shards, sorted.
    shards: &'a [usize],
}

/// The weights of the nodes of one case's tree weighed so far, by node (a node's weight is
/// a function of its board, depth and attacks alone, and its prefix says all three): what
/// the shards of one case share of their walks.
#[derive(Default)]
pub struct Weights {
    known: HashMap<Prefix, f64>,
}

impl Weights {
    /// The most weights kept: past it, they are forgotten and weighed again as needed
    /// (a list of a million shards of one board; the weights are the same either way).
    const MOST: usize = 1 << 20;

    /// The weights of `children`, weighed by `weigh` where not known, on the worker
    /// threads where `parallel`.
    fn of(&mut self, children: &[Node], weigh: impl Fn(&Node) -> f64 + Sync, parallel: bool) -> Vec<f64> {
        let known: Vec<Option<f64>> = children.iter().map(|c| self.known.get(&c.prefix).copied()).collect();
        let unknown: Vec<&Node> = children.iter().zip(&known).filter(|(_, k)| k.is_none()).map(|(c, _)| c).collect();
        let weighed: Vec<f64> =
            if parallel { unknown.par_iter().map(|c| weigh(c)).collect() } else { unknown.iter().map(|c| weigh(c)).collect() };
        if self.known.len() + weighed.len() > Weights::MOST {
            self.known.clear();
        }
        self.known.extend(unknown.iter().map(|c| c.prefix).zip(weighed.iter().copied()));
        let mut weighed = weighed.into_iter();
        known.into_iter().map(|k| k.or_else(|| weighed.next()).unwrap_or(0.0)).collect()
    }
}

impl Walk<'_> {
    /// Adds the shards' roots below `node`, whose stretch is `len` from `start`, to `out`
    /// (a list of roots for each shard), with the weights known in `weights`.
    fn visit(&self, node: Node, start: f64, len: f64, out: &mut [Vec<Root>], weights: &mut Weights) {
        let split = self.split;
        // The first of the shards from where the stretch starts: it must not be past its end.
        let first = self.shards.partition_point(|&k| k < split.shard_at(start));
        if self.shards.get(first).is_none_or(|&k| k > split.shard_at(start + len)) {
            return;
        }
        let children = if len > self.finest && node.depth() < self.deepest { node.children(self.plan) } else { Vec::new() };
        if children.is_empty() {
            if let Ok(at) = self.shards.binary_search(&split.shard_at(start + len / 2.0)) {
                out[at].push(node.into_root(start, len));
            }
            return;
        }
        let weight = |c: &Node| c.weight(self.plan, split.counted.as_ref(), split.narrow);
        // A small case's children are counted in less time than threads take to share them.
        let estimates = weights.of(&children, weight, split.counted.is_none());
        let sum: f64 = estimates.iter().sum();
        let mut at = start;
        for (child, e) in children.into_iter().zip(estimates) {
            let part = len * e / sum;
            self.visit(child, at, part, out, weights);
            at += part;
        }
    }
}

/// A hex SHA-256 of a case's split (its [`Split::fingerprint`]), `shard` and the shard's
/// `prefixes`: what a checkpoint's units were counted from, so that a unit is only ever
/// taken off the very prefixes it was counted from.
pub fn prefixes_fingerprint(split: &str, shard: Shard, prefixes: &Prefixes) -> String {
    let mut h = Sha256::new();
    h.update(split.as_bytes());
    let words = [shard.index as u64, shard.count as u64, prefixes.depth as u64, prefixes.items.len() as u64];
    words.iter().for_each(|x| h.update(x.to_le_bytes()));
    for p in &prefixes.items {
        h.update((u64::from(p.board) << 32 | u64::from(p.cols)).to_le_bytes());
        h.update((u64::from(p.ld) << 32 | u64::from(p.rd)).to_le_bytes());
    }
    crate::words::hex(&h.finalize())
}

/// The top of board `b`'s tree: no queen yet.
fn top(b: u32) -> Node {
    Node { board: b, queens: [0; 32], depth: 0, prefix: Prefix { board: b, ..Prefix::default() } }
}

/// `roots` brought to one depth, their deepest, then further while they make fewer than
/// `least` prefixes (never within `ROWS_LEFT` rows of the end); with each prefix's share
/// of its root's estimate. A root with nothing below it at that depth makes no prefix.
pub fn prefixes(plan: &Plan, roots: &[Root], least: usize) -> (Prefixes, Vec<f64>) {
    let deepest = plan.n.saturating_sub(ROWS_LEFT);
    let mut depth = roots.iter().map(Root::depth).max().unwrap_or(0);
    // Roots of a small case are brought down in less time than threads take to share them.
    let small = roots.iter().map(|r| r.estimate).sum::<f64>() <= COUNTED_NODES as f64;
    let mut per_root: Vec<Vec<Prefix>> = if small {
        roots.iter().map(|r| below(plan, vec![r.prefix], r.depth(), depth)).collect()
    } else {
        roots.par_iter().map(|r| below(plan, vec![r.prefix], r.depth(), depth)).collect()
    };
    while per_root.iter().map(Vec::len).sum::<usize>() < least && depth < deepest && !per_root.iter().all(Vec::is_empty) {
        per_root = if small {
            per_root.into_iter().map(|level| below(plan, level, depth, depth + 1)).collect()
        } else {
            per_root.into_par_iter().map(|level| below(plan, level, depth, depth + 1)).collect()
        };
        depth += 1;
    }
    let mut items = Vec::with_capacity(per_root.iter().map(Vec::len).sum());
    let mut work = Vec::with_capacity(items.capacity());
    for (root, made) in roots.iter().zip(per_root) {
        work.extend(std::iter::repeat_n(root.estimate / made.len().max(1) as f64, made.len()));
        items.extend(made);
    }
    (Prefixes { depth, items }, work)
}

/// The prefixes at row `to` below those of `level` (at row `from`), in their order, lowest
/// columns first below each.
fn below(plan: &Plan, mut level: Vec<Prefix>, from: usize, to: usize) -> Vec<Prefix> {
    for row in from..to {
        let mut next = Vec::with_capacity(level.len() * 4);
        for q in &level {
            let mut avail = q.avail(plan, row);
            while avail != 0 {
                let bit = avail & avail.wrapping_neg();
                avail ^= bit;
                next.push(q.place(bit));
            }
        }
        level = next;
    }
    level
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    /// The bounds that split a case by its nodes counted (where it is small) and by
    /// estimates alone.
    const BOUNDS: [u64; 2] = [COUNTED_NODES, 0];

    /// The split of `plan`'s case into `shards`, never narrow (see [`NARROW_BELOW`]): the
    /// small boards of these tests are divided as large ones are.
    fn fine(plan: &Plan, shards: usize) -> Split {
        Split::bounded(plan, shards, COUNTED_NODES, 0.0)
    }

    fn roots_of_every_shard(plan: &Plan, shards: usize, most: u64) -> Vec<Vec<Root>> {
        let split = Split::bounded(plan, shards, most, 0.0);
        (0..shards).map(|k| split.roots(plan, k)).collect()
    }

    /// The search nodes below `p` at row `row` of the plan's board, `p` included: every
    /// cell the counters may take, one at a time.
    fn exact(plan: &Plan, p: Prefix, row: usize) -> u64 {
        let mut avail = if row < plan.n { p.avail(plan, row) } else { 0 };
        let mut total = 1;
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            total += exact(plan, p.place(bit), row + 1);
        }
        total
    }

    #[test]
    fn every_root_of_the_case_lies_in_exactly_one_shard_in_order() {
        let empty = Plan::optimized(&Board::empty(12).unwrap());
        let small = Plan::plain(&Board::empty(11).unwrap());
        for (plan, most) in [(&empty, COUNTED_NODES), (&small, COUNTED_NODES), (&small, 0)] {
            for shards in [1, 2, 7, 64] {
                let all: Vec<Root> = roots_of_every_shard(plan, shards, most).into_iter().flatten().collect();
                // In order along the line, one after another, covering it.
                let split = Split::bounded(plan, shards, most, 0.0);
                let mut at = 0.0;
                for r in &all {
                    assert!((r.start - at).abs() <= 1e-9 * split.total(), "{shards} shards: a gap or overlap at {at}");
                    at = r.start + r.estimate;
                }
                assert!((at - split.total()).abs() <= 1e-9 * split.total());
            }
        }
    }

    #[test]
    fn a_small_case_is_split_by_its_nodes_counted() {
        let board = Board::from_fn(11, |r, c| (r * 5 + c * 3) % 7 != 0).unwrap();
        let plan = Plan::symmetric(&board, crate::symmetry::Sym::Identity);
        let split = fine(&plan, 4);
        let nodes: u64 = (0..plan.boards.len() as u32).map(|b| exact(&plan, top(b).prefix, 0)).sum();
        assert_eq!(split.total(), nodes as f64);
        // Every count it keeps is the node's.
        let notes = split.counted.as_ref().expect("a small case is counted");
        assert!(notes.len() > 10);
        for (p, &n) in notes {
            assert_eq!(n, exact(&plan, *p, p.cols.count_ones() as usize), "{p:?}");
        }
        // The estimates come near, in another split.
        let estimated = Split::bounded(&plan, 4, 0, 0.0);
        assert!(estimated.counted.is_none() && (estimated.total() / split.total() - 1.0).abs() < 0.2);
        assert_ne!(split.fingerprint(&plan), estimated.fingerprint(&plan));
        // A case past the bound is estimated.
        assert!(Split::bounded(&plan, 4, nodes - 1, 0.0).counted.is_none());
        assert!(Split::bounded(&plan, 4, nodes, 0.0).counted.is_some());
    }

    #[test]
    fn the_counts_kept_only_spare_counting_again() {
        // With no count kept, the walk counts every node it weighs: the same roots.
        let board = Board::from_fn(11, |r, c| (r * 5 + c * 3) % 7 != 0).unwrap();
        let plan = Plan::symmetric(&board, crate::symmetry::Sym::Identity);
        for shards in [1, 2, 7, 64] {
            let split = fine(&plan, shards);
            let kept = split.counted.as_ref().map_or(0, HashMap::len);
            assert!(kept > 0, "{shards} shards");
            let forgetful = Split { counted: Some(HashMap::new()), ..split.clone() };
            for k in 0..shards {
                assert_eq!(split.roots(&plan, k), forgetful.roots(&plan, k), "shard {k} of {shards}");
            }
        }
    }

    #[test]
    fn prefixes_are_those_below_each_root_at_the_first_depth_with_enough() {
        let small = Plan::plain(&Board::from_fn(11, |r, c| (r * 5 + c * 3) % 7 != 0).unwrap());
        let large = Plan::optimized(&Board::empty(13).unwrap());
        for (plan, least) in [(&small, 1), (&small, 300), (&small, 1 << 20), (&large, 5000)] {
            let split = fine(plan, 3);
            for k in 0..3 {
                let roots = split.roots(plan, k);
                let (prefixes, _) = prefixes(plan, &roots, least);
                let at =
                    |depth: usize| -> Vec<Prefix> { roots.iter().flat_map(|r| below(plan, vec![r.prefix], r.depth(), depth)).collect() };
                assert_eq!(prefixes.items, at(prefixes.depth), "shard {k}, at least {least}");
                let first = roots.iter().map(Root::depth).max().unwrap_or(0);
                let fewer = (first..prefixes.depth).all(|d| at(d).len() < least);
                assert!(fewer && (prefixes.items.len() >= least || prefixes.depth == plan.n - ROWS_LEFT || prefixes.items.is_empty()));
            }
        }
    }

    #[test]
    fn the_roots_cover_every_solution_once() {
        // The plan's count is the sum over its roots' completions.
        let board = Board::from_fn(10, |r, c| (r * 3 + c * 7) % 11 != 0).unwrap();
        let plan = Plan::symmetric(&board, crate::symmetry::Sym::Identity);
        let count = |roots: &[Root]| -> u128 {
            roots
                .iter()
                .map(|r| {
                    let b = r.board as usize;
                    let (s, _) =
                        crate::cpu::count_prefix(&plan.boards[b], &plan.due[b], r.depth(), &r.prefix, &Default::default()).unwrap();
                    u128::from(s) * u128::from(plan.weights[b])
                })
                .sum()
        };
        let whole = count(&fine(&plan, 1).roots(&plan, 0));
        for (shards, most) in [3, 16].into_iter().flat_map(|shards| BOUNDS.map(|most| (shards, most))) {
            let sum: u128 = roots_of_every_shard(&plan, shards, most).iter().map(|r| count(r)).sum();
            assert_eq!(sum, whole, "{shards} shards, bound {most}");
        }
        assert_eq!(whole, crate::plan::small_count(&board).map_or(whole, |c| u128::from(c.0)));
    }

    #[test]
    fn narrow_shards_have_no_roots_finer_than_the_narrow_stretch() {
        // Empty 15x15 (estimated) in 128 shards and 14x14 (counted) in 64: 1/32 of a shard's
        // width is some 9,000 and 3,000 nodes.
        for (n, m) in [(15, 128), (14, 64)] {
            let plan = Plan::optimized(&Board::empty(n).unwrap());
            let (split, finer) = (Split::new(&plan, m), fine(&plan, m));
            assert!(split.narrow && !finer.narrow);
            let all: Vec<Root> = (0..m).flat_map(|k| split.roots(&plan, k)).collect();
            let mut at = 0.0;
            for r in &all {
                assert!((r.start - at).abs() <= 1e-9 * split.total(), "{n}: a gap or overlap at {at}");
                at = r.start + r.estimate;
            }
            assert!((at - split.total()).abs() <= 1e-9 * split.total());
            // A few roots, not thousands; their solutions are the plan's, as for every split.
            let fine_roots: usize = finer.roots_of(&plan, &(0..m).collect::<Vec<_>>(), &mut Weights::default()).iter().map(Vec::len).sum();
            assert!(all.len() * 8 < fine_roots, "{n}: {} roots, {fine_roots} in the finer split", all.len());
            let count = |roots: &[Root]| -> u128 {
                let solutions = |r: &Root| {
                    let b = r.board as usize;
                    let (s, _) =
                        crate::cpu::count_prefix(&plan.boards[b], &plan.due[b], r.depth(), &r.prefix, &Default::default()).unwrap();
                    u128::from(s) * u128::from(plan.weights[b])
                };
                roots.iter().map(solutions).sum()
            };
            // OEIS A000170.
            assert_eq!(count(&all), if n == 15 { 2_279_184 } else { 365_596 }, "{n}");
            // Another split, told apart by its fingerprint.
            assert_ne!(split.fingerprint(&plan), finer.fingerprint(&plan));
        }
        // A wide split is as it was: empty 16x16 in 16 shards, 1/32 of a width some 370,000
        // nodes.
        let wide = Plan::optimized(&Board::empty(16).unwrap());
        assert_eq!(Split::new(&wide, 16).fingerprint(&wide), fine(&wide, 16).fingerprint(&wide));
    }

    #[test]
    fn one_walk_for_many_shards_finds_what_a_walk_for_each_does() {
        let empty = Plan::optimized(&Board::empty(14).unwrap());
        let small = Plan::symmetric(&Board::from_fn(11, |r, c| (r * 5 + c * 3) % 7 != 0).unwrap(), crate::symmetry::Sym::Identity);
        for (plan, shards) in [(&empty, 512), (&small, 64)] {
            let split = fine(plan, shards);
            for list in [vec![0, 1, 2, 3], vec![5, 17, shards / 2, shards - 1], (0..shards).collect()] {
                let each: Vec<Vec<Root>> = list.iter().map(|&k| split.roots(plan, k)).collect();
                assert_eq!(split.roots_of(plan, &list, &mut Weights::default()), each, "{} shards of {shards}", list.len());
            }
        }
    }

    #[test]
    fn weights_kept_from_other_shards_give_the_same_roots() {
        let empty = Plan::optimized(&Board::empty(16).unwrap());
        let small = Plan::symmetric(&Board::from_fn(11, |r, c| (r * 5 + c * 3) % 7 != 0).unwrap(), crate::symmetry::Sym::Identity);
        for (plan, shards) in [(&empty, 64), (&small, 16)] {
            let split = fine(plan, shards);
            let mut weights = Weights::default();
            for k in [3, 0, 1, shards - 1, 3] {
                assert_eq!(split.roots_with(plan, k, &mut weights), split.roots(plan, k), "shard {k} of {shards}");
            }
            assert!(!weights.known.is_empty());
        }
    }

    #[test]
    fn shards_are_even_by_estimate_and_repeat() {
        let plan = Plan::optimized(&Board::empty(16).unwrap());
        let split = fine(&plan, 64);
        let width = split.total() / 64.0;
        for k in [0, 1, 31, 63] {
            let roots = split.roots(&plan, k);
            let estimate: f64 = roots.iter().map(|r| r.estimate).sum();
            assert!((estimate / width - 1.0).abs() < 2.0 / ROOTS_PER_SHARD, "shard {k}: {:.3} of its width", estimate / width);
            assert_eq!(roots, fine(&plan, 64).roots(&plan, k));
        }
    }

    #[test]
    fn prefixes_share_their_roots_estimates() {
        let plan = Plan::optimized(&Board::empty(13).unwrap());
        let split = fine(&plan, 5);
        let roots = split.roots(&plan, 2);
        let (prefixes, work) = prefixes(&plan, &roots, 1000);
        assert!(prefixes.items.len() >= 1000 || prefixes.depth == plan.n - ROWS_LEFT);
        assert_eq!(work.len(), prefixes.items.len());
        assert!(prefixes.depth >= roots.iter().map(Root::depth).max().unwrap());
        let kept: f64 = work.iter().sum();
        let all: f64 = roots.iter().map(|r| r.estimate).sum();
        assert!(kept <= all * (1.0 + 1e-9) && kept > 0.5 * all);
    }

    #[test]
    fn fingerprints_tell_splits_apart_but_not_shards() {
        let plan = Plan::optimized(&Board::empty(12).unwrap());
        let a = fine(&plan, 4).fingerprint(&plan);
        assert_eq!(a, fine(&plan, 4).fingerprint(&plan));
        assert_ne!(a, fine(&plan, 5).fingerprint(&plan));
        let plain = Plan::plain(&Board::empty(12).unwrap());
        assert_ne!(a, fine(&plain, 4).fingerprint(&plain));
        let split = fine(&plan, 4);
        let (p0, _) = prefixes(&plan, &split.roots(&plan, 0), 100);
        let (p1, _) = prefixes(&plan, &split.roots(&plan, 1), 100);
        let shard = |index| Shard { index, count: 4 };
        assert_ne!(prefixes_fingerprint(&a, shard(0), &p0), prefixes_fingerprint(&a, shard(1), &p1));
        assert_eq!(prefixes_fingerprint(&a, shard(0), &p0).len(), 64);
    }
}
