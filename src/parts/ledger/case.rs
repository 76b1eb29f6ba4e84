//! One case's records as a ledger keeps them while they stream past: its first record's
//! header, which every other must share; a slot a shard with its first record's count and
//! place (24 bytes); and, for the few shards counted more than once, copied from a
//! checkpoint or of a count past 64 bits, every record of the shard, to be told apart
//! once all are read.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::time::SystemTime;

use super::super::apart::{Apart, Header};
use super::super::{CaseRecord, UniquePart};
use super::pages::Pages;
use super::{first_dissent, first_repeat, gaps, Group, Place, Shared};
use crate::gpu::Card;

/// A shard's first record, where it is the only one and plain: its count, who wrote it
/// and where.
#[derive(Clone, Copy)]
struct Slot {
    count: u64,
    /// `u32::MAX` while the shard has no record.
    origin: u32,
    file: u32,
    line: u32,
    /// Whether the shard's records are in [`CaseBook::side`] instead.
    side: bool,
}

impl Default for Slot {
    fn default() -> Slot {
        Slot { count: 0, origin: u32::MAX, file: 0, line: 0, side: false }
    }
}

/// One record of a shard that has more than its slot can say.
#[derive(Clone, Debug)]
pub struct Entry {
    pub count: u128,
    /// What it adds to the unique count's fixed solutions.
    pub fixed: u128,
    pub origin: u32,
    /// The run that counted it, where it is a copy of that run's count (see
    /// [`CaseRecord::counted_by`]).
    counted_by: Option<u32>,
    pub place: Place,
    /// A copy's part in the tallies, added once it is known not to be a copy of another
    /// record of the shard.
    pending: Option<Box<Contribution>>,
}

impl Entry {
    /// Whether it says what `other` says of the shard.
    pub fn agrees(&self, other: &Entry) -> bool {
        self.count == other.count && self.fixed == other.fixed
    }
}

/// What one record a merge takes adds to its case's tallies and its machine's.
#[derive(Clone, Debug)]
pub struct Contribution {
    pub origin: u32,
    /// The process's seconds, and one device's (see [`CaseRecord::device_time`]).
    pub seconds: f64,
    pub device_time: f64,
    /// The planner's estimate of the shard's nodes, and where it gives none, the shard's
    /// width of the case's estimate.
    pub shard_nodes: Option<f64>,
    pub estimate: Option<f64>,
    pub ended: Option<SystemTime>,
    pub cards: Vec<Card>,
}

/// A backend's part of a case: records, device-seconds, and estimated nodes over the
/// device-seconds of the records that took time.
#[derive(Clone, Copy, Debug, Default)]
pub struct BackendTally {
    pub records: usize,
    pub seconds: f64,
    pub timed: (f64, f64),
}

/// What a summary says of a case's records: how many, by which runs and hosts, and each
/// one's seconds by backend (summed in sorted order, so that the order of reading does
/// not change the sum).
#[derive(Debug, Default)]
pub struct Sums {
    pub records: usize,
    pub runs: BTreeSet<Option<u32>>,
    pub hosts: BTreeSet<u32>,
    pub seconds: BTreeMap<u32, Vec<f64>>,
}

/// The first record of a case that stands apart from its first: why, a record of the case
/// beside it (where read, by whom), and where it was read, what it says of its case, and
/// by whom.
pub struct Odd {
    pub why: Apart,
    pub beside: (Place, u32),
    pub odd: (Place, Header, u32),
}

/// One case's records.
pub struct CaseBook {
    /// What its first record says of the case, and where it was read.
    pub header: Header,
    pub first: Place,
    pub first_origin: u32,
    /// The planner's estimate of the case's nodes, from the first record that gives it.
    pub case_nodes: Option<f64>,
    slots: Pages<Slot>,
    side: BTreeMap<usize, Vec<Entry>>,
    /// Once all are read: the shards counted more than once, in order.
    pub groups: BTreeMap<usize, Group<Entry>>,
    /// Shards with a record, and the estimated nodes of their first records (with how
    /// many had none).
    pub done: usize,
    pub done_nodes: f64,
    pub unestimated: usize,
    /// Records apart from the first (see [`Header::apart`]), and the first of them.
    pub apart: usize,
    pub first_apart: Option<Odd>,
    pub backends: BTreeMap<u32, BackendTally>,
    pub sums: Sums,
}

impl CaseBook {
    /// The book of a case whose first record is `c`, read at `place`, from origin `origin`.
    pub fn new(c: &CaseRecord, place: Place, origin: u32) -> CaseBook {
        CaseBook {
            header: Header::of(c),
            first: place,
            first_origin: origin,
            case_nodes: c.case_nodes,
            slots: Pages::default(),
            side: BTreeMap::new(),
            groups: BTreeMap::new(),
            done: 0,
            done_nodes: 0.0,
            unestimated: 0,
            apart: 0,
            first_apart: None,
            backends: BTreeMap::new(),
            sums: Sums::default(),
        }
    }

    /// Takes the case record `c`, read at `place`, from origin `origin`.
    pub fn add(&mut self, c: &CaseRecord, place: Place, origin: u32, shared: &mut Shared) {
        let shard = place.shard;
        if let Some(why) = self.header.apart(c) {
            self.apart += 1;
            if self.first_apart.is_none() {
                let beside = self.slots.get(shard).filter(|s| s.origin != u32::MAX && !s.side);
                let beside = match (beside, self.side.get(&shard).and_then(|e| e.first())) {
                    (Some(s), _) => (Place { file: s.file, line: s.line, shard }, s.origin),
                    (None, Some(e)) => (e.place, e.origin),
                    (None, None) => (self.first, self.first_origin),
                };
                self.first_apart = Some(Odd { why, beside, odd: (place, Header::of(c), origin) });
            }
            return;
        }
        self.case_nodes = self.case_nodes.or(c.case_nodes);
        let estimate = c.shard_nodes.or(self.case_nodes.map(|all| all / self.header.shards as f64));
        let contribution = Contribution {
            origin,
            seconds: c.seconds,
            device_time: c.device_time(),
            shard_nodes: c.shard_nodes,
            estimate,
            ended: c.ended.as_deref().and_then(|t| humantime::parse_rfc3339(t).ok()),
            cards: c.cards.clone().unwrap_or_default(),
        };
        let copy = c.counted_by.as_deref().map(|run| shared.origins.names.id(run));
        let fixed = c.unique.map_or(0, |u: UniquePart| u.fixed);
        let entry = |pending| Entry { count: c.count, fixed, origin, counted_by: copy, place, pending };
        let slot = self.slots.slot(shard);
        if slot.origin == u32::MAX {
            // The shard's first record.
            self.done += 1;
            match estimate {
                Some(e) => self.done_nodes += e,
                None => self.unestimated += 1,
            }
            shared.point(&contribution, c.started.as_deref());
            let plain = u64::try_from(c.count).ok().filter(|_| copy.is_none() && fixed == 0);
            *slot = Slot { count: plain.unwrap_or(0), origin, file: place.file, line: place.line, side: plain.is_none() };
            if plain.is_none() {
                self.side.insert(shard, vec![entry(copy.map(|_| Box::new(contribution.clone())))]);
            }
        } else {
            if !slot.side {
                let first = Place { file: slot.file, line: slot.line, shard };
                let kept =
                    Entry { count: u128::from(slot.count), fixed: 0, origin: slot.origin, counted_by: None, place: first, pending: None };
                self.side.insert(shard, vec![kept]);
                slot.side = true;
            }
            self.side.entry(shard).or_default().push(entry(copy.map(|_| Box::new(contribution.clone()))));
        }
        // A copy's part waits until it is known whether it copies a record of the shard.
        if copy.is_none() {
            self.take(&contribution, shared);
        }
    }

    /// Adds a record's part to the case's tallies and its machine's.
    fn take(&mut self, c: &Contribution, shared: &mut Shared) {
        let origin = shared.origins.get(c.origin);
        let b = self.backends.entry(origin.kind).or_default();
        b.records += 1;
        b.seconds += c.device_time;
        if let (Some(nodes), true) = (c.estimate, c.device_time > 0.0) {
            b.timed = (b.timed.0 + nodes, b.timed.1 + c.device_time);
        }
        self.sums.records += 1;
        if shared.keep.summary {
            self.sums.runs.insert(origin.run);
            let unknown = || shared.origins.names.id("unknown");
            self.sums.hosts.insert(origin.host.unwrap_or_else(unknown));
            self.sums.seconds.entry(origin.kind).or_default().push(c.seconds);
        }
        shared.machines.add(&shared.origins, c);
    }

    /// Tells the records of each shard counted more than once apart, once all are read: a
    /// copy of another record's count (see [`CaseRecord::counted_by`]) beside that record,
    /// or an earlier copy of it, is dropped, as the same count; the rest are the shard's
    /// count and its recounts.
    pub fn close(&mut self, shared: &mut Shared) {
        for (shard, entries) in std::mem::take(&mut self.side) {
            let mut kept = kept(entries, |origin| shared.origins.get(origin).run);
            for e in &mut kept {
                if let Some(c) = e.pending.take() {
                    self.take(&c, shared);
                }
            }
            let group = Group::judged(kept, Entry::agrees, |e| shared.origins.get(e.origin).run);
            for (i, e) in group.entries.iter().enumerate() {
                shared.machines.judge(&shared.origins, e.origin, i > 0, group.dissent.is_some());
            }
            self.groups.insert(shard, group);
        }
    }

    /// Each shard's count and fixed solutions, and where its first record was read with
    /// who wrote it, in order of shard.
    pub fn firsts(&self) -> impl Iterator<Item = (u128, u128, Place, u32)> + '_ {
        self.slots.iter().filter(|(_, s)| s.origin != u32::MAX).filter_map(move |(shard, s)| {
            if !s.side {
                return Some((u128::from(s.count), 0, Place { file: s.file, line: s.line, shard }, s.origin));
            }
            let e = self.groups.get(&shard)?.entries.first()?;
            Some((e.count, e.fixed, e.place, e.origin))
        })
    }

    /// The shards of `0..shards` with no record, as ranges.
    pub fn missing(&self, shards: usize) -> Vec<Range<usize>> {
        gaps(self.slots.iter().filter(|(_, s)| s.origin != u32::MAX).map(|(k, _)| k), shards)
    }

    /// The first shard one run counted twice, and the two records.
    pub fn repeated(&self) -> Option<(usize, &Entry, &Entry)> {
        first_repeat(&self.groups)
    }

    /// The first shard whose records disagree, with its first record and the first that
    /// disagrees with it.
    pub fn disagreement(&self) -> Option<(usize, &Entry, &Entry)> {
        first_dissent(&self.groups)
    }

    /// Shards with more than one record, and the records beyond each one's first.
    pub fn recounts(&self) -> (usize, usize) {
        let recounted = self.groups.values().filter(|g| g.entries.len() > 1);
        recounted.fold((0, 0), |(shards, extra), g| (shards + 1, extra + g.entries.len() - 1))
    }

    /// Each shard with a record, with who wrote its records, whether they came from
    /// more than one run, and whether they disagree or one run wrote two: what a recheck
    /// weighs.
    pub fn shards<'a>(&'a self, shared: &'a Shared) -> impl Iterator<Item = (usize, Vec<u32>, bool, bool)> + 'a {
        let origins = &shared.origins;
        self.slots.iter().filter(|(_, s)| s.origin != u32::MAX).map(move |(k, s)| match self.groups.get(&k) {
            Some(g) if s.side => {
                let first = origins.get(g.entries.first().map_or(s.origin, |e| e.origin)).run;
                let recounted = g.entries.iter().any(|e| origins.get(e.origin).run != first);
                (k, g.entries.iter().map(|e| e.origin).collect(), recounted, g.dissent.is_some() || g.repeat.is_some())
            }
            _ => (k, vec![s.origin], false, false),
        })
    }
}

/// A shard's `entries` without those that copy another's count: a run that found the
/// shard counted in its checkpoint writes its record again, naming the run that counted
/// it; beside that run's record, or an earlier copy of it, it is the same count, not a
/// recount. A copy that disagrees is kept, to be seen. `run_of` gives an origin's run.
fn kept(entries: Vec<Entry>, run_of: impl Fn(u32) -> Option<u32>) -> Vec<Entry> {
    // Copies are rare: where there is none, every record stays.
    if entries.iter().all(|e| e.counted_by.is_none()) {
        return entries;
    }
    let source = |e: &Entry| e.counted_by.or(run_of(e.origin));
    let copies_another = |i: usize, e: &Entry| {
        e.counted_by.is_some()
            && entries.iter().enumerate().any(|(j, o)| j != i && source(o) == source(e) && o.agrees(e) && (o.counted_by.is_none() || j < i))
    };
    let dropped: Vec<bool> = entries.iter().enumerate().map(|(i, e)| copies_another(i, e)).collect();
    entries.into_iter().zip(dropped).filter(|(_, dropped)| !dropped).map(|(e, _)| e).collect()
}
