//! A board made ready to count: its plan and the prefixes a count takes, all of the case's
//! or one shard's, with their estimated work; and what a count covers of it.

use std::borrow::Cow;
use std::io;
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use super::LastSplit;
use crate::plan::Plan;
use crate::prefix::{self, Prefixes};
use crate::split::{self, Root};
use crate::tally::Tally;
use crate::tuning::{ESTIMATED_WORK_NODES, UNIT_SECONDS};
use crate::work::{Blocks, Selection, Shard, Unit};

/// What to do with each unit of a count once it is counted (from any thread), with the
/// device-seconds it took: record it.
pub type RecordUnit<'a> = &'a (dyn Fn(&Unit, Tally, f64) -> io::Result<()> + Sync);

/// Which of a case's prefixes a count covers, and what it does as units finish.
pub struct Part<'a> {
    /// The prefixes to count now.
    pub selection: Selection,
    /// What an earlier run counted of the same case (from a checkpoint), added to the report.
    pub counted_before: Tally,
    /// The estimated work of that earlier count, for the progress bar, and the
    /// device-seconds it took.
    pub work_before: f64,
    pub device_seconds_before: f64,
    /// Called with each unit, from any thread, once it is counted; the count is cut into
    /// units of a few seconds each only when this is given, else it is one unit.
    pub record: Option<RecordUnit<'a>>,
}

impl Part<'_> {
    /// All of `case`, counted at once.
    pub fn all_of(case: &Case) -> Part<'static> {
        Part { selection: case.all(), counted_before: Tally::default(), work_before: 0.0, device_seconds_before: 0.0, record: None }
    }
}

/// Changes whenever the way a whole case's prefixes are made changes, so that a checkpoint's
/// units are never taken off other prefixes.
const WHOLE_RULE: &str = "whole-expand-1";
/// Random dives that estimate a count's search nodes where its prefixes were not estimated.
const ESTIMATE_DIVES: u32 = 4096;

/// A board made ready to count: its plan and the prefixes to count, all of the case's or
/// one shard's, the same on every machine for the same board, options and shard.
pub struct Case {
    /// Shared with the case's other shards.
    pub plan: Arc<Plan>,
    /// The prefixes to count; units are ranges of them.
    pub base: Prefixes,
    /// The shard's roots, where the case was split (see [`crate::split`]).
    pub roots: Vec<Root>,
    /// Whether the prefixes' search nodes were estimated (else one unit of work each).
    pub estimated: bool,
    /// Whether the board's whole tree is under the planner's small-tree bound (see
    /// [`crate::plan::small_count`]): then every backend leaves it to the CPU.
    pub small: bool,
    /// Each prefix's estimated work, where estimated; else empty.
    work: Vec<f64>,
    /// The whole case's estimated search nodes, where estimated.
    pub whole: f64,
    /// What the prefixes were made from: the split's fingerprint (see
    /// [`Split::fingerprint`](crate::split::Split::fingerprint)) where the case was split, else the plan's.
    pub fingerprint: String,
    /// The shard the prefixes are of.
    pub shard: Shard,
    pub(super) started: Instant,
    pub plan_time: Duration,
}

impl Case {
    /// Shard `shard` of the case `last` split, to be followed by the shards `ahead`: the
    /// prefixes of its roots, as many as the CPU aims for where the roots allow (one, for a
    /// small case, which is counted at once; for a shard of little work, about one per 10K
    /// of its nodes). Planning began at `started`.
    pub(super) fn of_shard(last: &mut LastSplit, shard: Shard, ahead: &[usize], started: Instant) -> Case {
        let roots = last.roots(shard.index, ahead);
        let (plan, small) = (&last.plan, last.small);
        let least = if small { 1 } else { shard_target(roots.iter().map(|r| r.estimate).sum()) };
        let (base, work) = split::prefixes(plan, &roots, least);
        let (whole, fingerprint) = (last.split.total(), last.fingerprint.clone());
        let plan = Arc::clone(plan);
        Case { plan, base, roots, estimated: true, small, work, whole, fingerprint, shard, started, plan_time: started.elapsed() }
    }

    /// All of `plan`'s case, its first rows expanded into the CPU's prefixes, planned from
    /// `started`, with the plan's fingerprint in `fingerprint`. The prefixes' work is
    /// estimated where the case is large enough to show progress (see [`Case::estimate`]
    /// for the others). `small` says whether the board's whole tree is under the small-tree
    /// bound.
    pub(super) fn whole(plan: Plan, small: bool, started: Instant) -> Case {
        let base = prefix::expand(&plan, prefix::cpu_target(plan.expected_nodes));
        let fingerprint = plan_fingerprint(&plan);
        let mut case = Case {
            plan: Arc::new(plan),
            base,
            roots: Vec::new(),
            estimated: false,
            small,
            work: Vec::new(),
            whole: 0.0,
            fingerprint,
            shard: Shard { index: 0, count: 1 },
            started,
            plan_time: Duration::ZERO,
        };
        if case.plan.expected_nodes.is_some_and(|e| e >= ESTIMATED_WORK_NODES) {
            case.estimate();
        }
        case.plan_time = started.elapsed();
        case
    }

    /// Estimates each prefix's work, if it was not: a count written down unit by unit (see
    /// [`Part::record`]) cuts its units by estimated work.
    pub fn estimate(&mut self) {
        if !self.estimated {
            self.work = Blocks::estimated(&self.plan, &self.base).per_prefix();
            self.whole = self.work.iter().sum();
            self.estimated = true;
        }
    }

    /// Each prefix's estimated work; empty where nothing was estimated (one unit each).
    pub fn work(&self) -> &[f64] {
        &self.work
    }

    /// What a checkpoint's units of this case were counted from (see
    /// [`split::prefixes_fingerprint`]).
    pub fn prefixes_fingerprint(&self) -> String {
        split::prefixes_fingerprint(&self.fingerprint, self.shard, &self.base)
    }

    /// All of its prefixes.
    pub fn all(&self) -> Selection {
        Selection::all(self.base.items.len())
    }

    /// The prefixes in `ranges`, in order: borrowed when they are all of them.
    pub(super) fn prefixes(&self, ranges: &[Range<usize>]) -> Cow<'_, Prefixes> {
        if matches!(ranges, [whole] if *whole == (0..self.base.items.len())) {
            return Cow::Borrowed(&self.base);
        }
        Cow::Owned(Prefixes {
            depth: self.base.depth,
            items: ranges.iter().flat_map(|r| self.base.items[r.clone()].iter().copied()).collect(),
        })
    }

    /// The estimated work of the prefixes in `ranges`, in order (empty where nothing was
    /// estimated).
    pub(super) fn work_of(&self, ranges: &[Range<usize>]) -> Vec<f64> {
        ranges.iter().flat_map(|r| self.work.get(r.clone()).unwrap_or_default().iter().copied()).collect()
    }
}

/// The CPU's target of prefixes for a shard of `nodes` estimated nodes: as for a whole
/// count, but for a shard of little work (a board in thousands of shards) about one per
/// 10K nodes, not the whole count's least, which would cut it into prefixes of a few
/// nodes each.
fn shard_target(nodes: f64) -> usize {
    prefix::cpu_target(Some(nodes)).min((nodes / 10_000.0) as usize).max(1)
}

/// A hex SHA-256 of what decides a whole case's prefixes: the rule that makes them, and
/// the plan's boards and weights.
fn plan_fingerprint(plan: &Plan) -> String {
    let mut h = Sha256::new();
    h.update(WHOLE_RULE.as_bytes());
    h.update((plan.n as u64).to_le_bytes());
    for (rows, &weight) in plan.boards.iter().zip(&plan.weights) {
        rows.iter().for_each(|&r| h.update(r.to_le_bytes()));
        h.update(weight.to_le_bytes());
    }
    crate::words::hex(&h.finalize())
}

/// What one count covers: the prefixes a part selects of a case, in order, with their
/// estimated work, and the part itself (what was counted before, how units are recorded).
pub(super) struct Job<'a> {
    pub case: &'a Case,
    pub part: &'a Part<'a>,
    /// The selected prefixes, in order; the units' ranges index the case's prefixes.
    pub prefixes: Cow<'a, Prefixes>,
    /// Each selected prefix's estimated work (empty where nothing was estimated).
    pub work: Vec<f64>,
}

impl<'a> Job<'a> {
    pub(super) fn new(case: &'a Case, part: &'a Part<'a>) -> Job<'a> {
        let prefixes = case.prefixes(&part.selection.ranges);
        let work = case.work_of(&part.selection.ranges);
        Job { case, part, prefixes, work }
    }

    /// The selection's estimated search nodes, where the case was estimated.
    pub(super) fn estimate(&self) -> Option<f64> {
        self.case.estimated.then(|| self.work.iter().sum())
    }

    /// The selection's estimated search nodes: the planner's, else from
    /// [`ESTIMATE_DIVES`] random dives (about 1 ms).
    pub(super) fn nodes(&self) -> f64 {
        self.estimate().unwrap_or_else(|| self.prefixes.estimated_nodes(&self.case.plan, ESTIMATE_DIVES))
    }

    /// Whether the CPU counts it as it is planned, on any backend: a small board's whole tree
    /// was walked by the probe that found it small, and prefixes that reach the last row
    /// are each a solution already.
    pub(super) fn counted_at_once(&self) -> bool {
        self.case.small || self.prefixes.depth >= self.case.plan.n
    }

    /// Whether each unit is recorded as it finishes.
    pub(super) fn recorded(&self) -> bool {
        self.part.record.is_some()
    }

    /// The selection cut into units of about [`UNIT_SECONDS`] at `rate()` search nodes a
    /// second where they are recorded and estimated, else one unit.
    pub(super) fn units(&self, rate: impl FnOnce() -> f64) -> Vec<Unit> {
        let budget = if self.recorded() && self.case.estimated { UNIT_SECONDS * rate() } else { f64::INFINITY };
        self.part.selection.units(self.case.work(), budget)
    }
}
