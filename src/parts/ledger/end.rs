//! One input's end records as a ledger keeps them: what the first says (how many cases
//! the input held, and the error that ended it), a slot a shard (16 bytes) for those that
//! say the same once, and every record of a shard that says otherwise or has more than one.

use std::collections::BTreeMap;
use std::ops::Range;

use super::super::EndRecord;
use super::pages::Pages;
use super::{first_dissent, first_repeat, gaps, Group, Place, Shared};

/// What an end record says of its input: its cases, and the error after the last one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Says {
    pub cases: usize,
    pub error: Option<String>,
}

#[derive(Clone, Copy)]
struct Slot {
    /// `u32::MAX` while the shard has no end record.
    origin: u32,
    file: u32,
    line: u32,
    side: bool,
}

impl Default for Slot {
    fn default() -> Slot {
        Slot { origin: u32::MAX, file: 0, line: 0, side: false }
    }
}

/// One end record of a shard with more than its slot can say.
#[derive(Clone, Debug)]
pub struct Entry {
    pub says: Says,
    pub origin: u32,
    pub place: Place,
}

/// One input's end records.
#[derive(Default)]
pub struct EndBook {
    /// The first read, and where, by whom.
    reference: Option<Entry>,
    slots: Pages<Slot>,
    side: BTreeMap<usize, Vec<Entry>>,
    pub groups: BTreeMap<usize, Group<Entry>>,
    /// The most cases any end record says the input held.
    pub most_cases: usize,
}

impl EndBook {
    /// Takes the end record `e`, read at `place`, from origin `origin`.
    pub fn add(&mut self, e: &EndRecord, place: Place, origin: u32) {
        let shard = place.shard;
        let says = Says { cases: e.cases, error: e.error.clone() };
        self.most_cases = self.most_cases.max(e.cases);
        let entry = Entry { says, origin, place };
        let reference = self.reference.get_or_insert_with(|| entry.clone());
        let plain = entry.says == reference.says;
        let slot = self.slots.slot(shard);
        if slot.origin == u32::MAX {
            *slot = Slot { origin, file: place.file, line: place.line, side: !plain };
            if !plain {
                self.side.insert(shard, vec![entry]);
            }
            return;
        }
        if !slot.side {
            let first =
                Entry { says: reference.says.clone(), origin: slot.origin, place: Place { file: slot.file, line: slot.line, shard } };
            self.side.insert(shard, vec![first]);
            slot.side = true;
        }
        self.side.entry(shard).or_default().push(entry);
    }

    /// Tells each shard's records apart once all are read.
    pub fn close(&mut self, shared: &Shared) {
        for (shard, entries) in std::mem::take(&mut self.side) {
            let group = Group::judged(entries, |a, b| a.says == b.says, |e| shared.origins.get(e.origin).run);
            self.groups.insert(shard, group);
        }
    }

    /// Each shard's first end record, in order of shard.
    pub fn firsts(&self) -> impl Iterator<Item = Entry> + '_ {
        self.slots.iter().filter(|(_, s)| s.origin != u32::MAX).filter_map(move |(shard, s)| match self.groups.get(&shard) {
            Some(g) if s.side => g.entries.first().cloned(),
            _ => {
                let says = self.reference.as_ref()?.says.clone();
                Some(Entry { says, origin: s.origin, place: Place { file: s.file, line: s.line, shard } })
            }
        })
    }

    /// The shards of `0..shards` with no end record, as ranges.
    pub fn missing(&self, shards: usize) -> Vec<Range<usize>> {
        gaps(self.slots.iter().filter(|(_, s)| s.origin != u32::MAX).map(|(k, _)| k), shards)
    }

    /// The first shard one run ended twice, and the two records.
    pub fn repeated(&self) -> Option<(usize, &Entry, &Entry)> {
        first_repeat(&self.groups)
    }

    /// The first shard whose end records disagree, with its first and the first that
    /// disagrees with it.
    pub fn disagreement(&self) -> Option<(usize, &Entry, &Entry)> {
        first_dissent(&self.groups)
    }

    /// Each shard that has end records, with their origins, whether they came from more
    /// than one run, and whether they disagree or one run wrote two.
    pub fn shards<'a>(&'a self, shared: &'a Shared) -> impl Iterator<Item = (usize, bool, bool)> + 'a {
        self.slots.iter().filter(|(_, s)| s.origin != u32::MAX).map(move |(k, s)| match self.groups.get(&k) {
            Some(g) if s.side => {
                let run = |e: &Entry| shared.origins.get(e.origin).run;
                let recounted = g.entries.iter().any(|e| run(e) != run(&g.entries[0]));
                (k, recounted, g.dissent.is_some() || g.repeat.is_some())
            }
            _ => (k, false, false),
        })
    }
}
