//! Part records as a merge reads them, one at a time, into a ledger that keeps a few bytes
//! a shard, not the records: by input, case and shard, each case's first record (which
//! every other of the case must share: see [`super::apart`]), each shard's first count and
//! where it was read, and every record of the few shards counted more than once (a first
//! count and its recounts from other runs, which must agree; two from one run are the same
//! count given twice). What a merge, a status, a recheck, a summary and a picture need of
//! the rest (times, rates, machines) is added up as the records go by.

mod case;
mod end;
mod names;
mod pages;
mod tally;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::Arc;
use std::time::SystemTime;

use super::{Located, PartsError, Record};
use crate::words::quoted_input;
pub use case::{BackendTally, CaseBook, Contribution, Entry, Odd};
pub use end::{EndBook, Entry as EndEntry, Says};
pub use names::{Names, Origin, Origins};
pub use pages::Pages;
pub use tally::{DevicePart, MachinePart, Tally, UNNAMED_GPU};

/// Where a record was read: its file (by number, see [`Ledger::file`]) and line, and its
/// shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub file: u32,
    pub line: u32,
    pub shard: usize,
}

/// What to keep beyond what every command needs: for a summary, every record's digest and
/// seconds, and for a picture, when each shard's first record ended.
#[derive(Clone, Copy, Debug, Default)]
pub struct Keep {
    pub summary: bool,
    pub plot: bool,
}

/// What every case's book adds to as records go by: who wrote them, each machine's part,
/// and for a picture the work done over time.
#[derive(Default)]
pub struct Shared {
    pub keep: Keep,
    pub origins: Origins,
    pub machines: Tally,
    /// When each shard's first record ended, with its estimated nodes; and the earliest
    /// start of one.
    pub points: Vec<(SystemTime, f64)>,
    pub first_start: Option<SystemTime>,
}

impl Shared {
    /// For a picture: a shard's first record, `c`, started at `started`.
    fn point(&mut self, c: &Contribution, started: Option<&str>) {
        let Some(ended) = c.ended.filter(|_| self.keep.plot) else { return };
        let started = started.and_then(|t| humantime::parse_rfc3339(t).ok()).unwrap_or(ended);
        self.first_start = Some(self.first_start.map_or(started, |f| f.min(started)));
        self.points.push((ended, c.shard_nodes.unwrap_or(1.0)));
    }
}

/// One input's records.
pub struct InputBook {
    /// Its name, as the first record of it gives it.
    pub file: String,
    /// By case, from 1.
    pub cases: BTreeMap<usize, CaseBook>,
    pub ends: EndBook,
}

impl InputBook {
    /// Its name, for messages (see [`quoted_input`]).
    pub fn shown(&self) -> String {
        quoted_input(&self.file)
    }

    /// How many cases the input held, as far as the records tell: the most any end record
    /// says, or the last case seen.
    pub fn case_count(&self) -> usize {
        self.ends.most_cases.max(self.cases.keys().next_back().copied().unwrap_or(0))
    }
}

/// Every record of a merge, as it keeps them.
#[derive(Default)]
pub struct Ledger {
    /// The shards every case was cut into (M), as the first record says, and where it was
    /// read.
    split: Option<(usize, Place)>,
    /// Records written for another number of shards than the first: they are not taken.
    refused: Option<PartsError>,
    files: Vec<Arc<str>>,
    pub shared: Shared,
    /// By input index, from 0.
    pub inputs: BTreeMap<usize, InputBook>,
    /// Every record read, and every build that wrote one.
    pub records: usize,
    pub builds: BTreeSet<u32>,
    /// For a summary: every record's digest (sorted once the ledger is closed).
    pub digests: Vec<[u8; 32]>,
    closed: bool,
}

impl Ledger {
    /// An empty ledger that keeps what `keep` says beside what every command needs.
    pub fn new(keep: Keep) -> Ledger {
        Ledger { shared: Shared { keep, ..Shared::default() }, ..Ledger::default() }
    }

    /// A ledger of `records` (every part file's, in any order), closed.
    pub fn of(records: impl IntoIterator<Item = Located>, keep: Keep) -> Ledger {
        let mut ledger = Ledger::new(keep);
        records.into_iter().for_each(|r| ledger.add(r));
        ledger.close();
        ledger
    }

    /// Takes `located`, the next record read.
    pub fn add(&mut self, located: Located) {
        let Located { record, file, line, digest } = located;
        self.records += 1;
        let build = self.shared.origins.names.id(record.build());
        self.builds.insert(build);
        if self.shared.keep.summary {
            self.digests.push(digest_bytes(&digest));
        }
        if self.refused.is_some() {
            return;
        }
        let (shard, count) = record.shard();
        let place = Place { file: self.file_number(file), line: u32::try_from(line).unwrap_or(u32::MAX), shard };
        let (shards, first) = *self.split.get_or_insert((count, place));
        if count != shards || shard >= count {
            let said =
                format!("{}: shard {shard} of {count}, but {} is shard {} of {shards}", self.place(place), self.place(first), first.shard);
            self.refused = Some(PartsError::Mismatch(said));
            return;
        }
        let origin = self.shared.origins.of(&record);
        match &record {
            Record::Case(c) => {
                let input = self.inputs.entry(c.input).or_insert_with(|| InputBook::new(&c.file));
                let book = input.cases.entry(c.case).or_insert_with(|| CaseBook::new(c, place, origin));
                book.add(c, place, origin, &mut self.shared);
            }
            Record::End(e) => self.inputs.entry(e.input).or_insert_with(|| InputBook::new(&e.file)).ends.add(e, place, origin),
        }
    }

    /// Tells the records of each shard counted more than once apart, once every record is
    /// read; what a ledger says before this is not whole.
    pub fn close(&mut self) {
        if std::mem::replace(&mut self.closed, true) {
            return;
        }
        for input in self.inputs.values_mut() {
            for case in input.cases.values_mut() {
                case.close(&mut self.shared);
            }
            input.ends.close(&self.shared);
        }
        // In the order a summary digests them.
        self.digests.sort_unstable();
    }

    /// Why the records cannot be taken together at all, if they cannot: some were written
    /// for another number of shards than the first.
    pub fn refused(&self) -> Option<&PartsError> {
        self.refused.as_ref()
    }

    /// The shards every case was cut into (M): 1 where no record was taken.
    pub fn shards(&self) -> usize {
        self.split.map_or(1, |s| s.0)
    }

    /// The number of the file named `name`: the last one's, or a new one (records come
    /// file by file).
    fn file_number(&mut self, name: Arc<str>) -> u32 {
        if !self.files.last().is_some_and(|f| Arc::ptr_eq(f, &name) || **f == *name) {
            self.files.push(name);
        }
        u32::try_from(self.files.len() - 1).unwrap_or(u32::MAX)
    }

    /// The file numbered `file`, as messages name it.
    pub fn file(&self, file: u32) -> &str {
        self.files.get(file as usize).map_or("", |f| f)
    }

    /// Where a record was read, for messages: "FILE, line L (shard K)".
    pub fn place(&self, place: Place) -> String {
        format!("{}, line {} (shard {})", self.file(place.file), place.line, place.shard)
    }

    /// Where a record was read and who wrote it, for messages about a disagreement: "FILE,
    /// line L (shard K; host H, BACKEND, build B)".
    pub fn origin(&self, place: Place, origin: u32) -> String {
        let (o, names) = (self.shared.origins.get(origin), &self.shared.origins.names);
        let (host, backend, build) = (self.shared.origins.host(origin), names.get(o.backend), names.get(o.build));
        format!("{}, line {} (shard {}; host {host}, {backend}, build {build})", self.file(place.file), place.line, place.shard)
    }

    /// A name a record's origin holds (see [`Origin`]).
    pub fn name(&self, id: u32) -> &str {
        self.shared.origins.names.get(id)
    }
}

impl InputBook {
    fn new(file: &str) -> InputBook {
        InputBook { file: file.to_string(), cases: BTreeMap::new(), ends: EndBook::default() }
    }
}

/// A digest in hex as its 32 bytes (zeros where it is not one: records read are checked).
fn digest_bytes(hex: &str) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    for (i, pair) in hex.as_bytes().chunks(2).take(32).enumerate() {
        let digit = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
        bytes[i] = digit(pair[0]) << 4 | pair.get(1).map_or(0, |&b| digit(b));
    }
    bytes
}

/// The numbers of `0..shards` not in `present` (ascending), as ranges.
fn gaps(present: impl Iterator<Item = usize>, shards: usize) -> Vec<Range<usize>> {
    let mut missing = Vec::new();
    let mut next = 0;
    for k in present {
        if k > next {
            missing.push(next..k);
        }
        next = k + 1;
    }
    if next < shards {
        missing.push(next..shards);
    }
    missing
}

/// The records of a shard that has more than its slot can say, as a merge takes them: the
/// first is the shard's, the rest recounts, which must agree with it and come from other
/// runs.
#[derive(Debug)]
pub struct Group<E> {
    pub entries: Vec<E>,
    /// The first entry that does not agree with the first.
    pub dissent: Option<usize>,
    /// The first two entries from one run: one count written twice.
    pub repeat: Option<(usize, usize)>,
}

impl<E> Group<E> {
    /// `entries` judged: by `agree`, whether two say the same, and by `run`, which run
    /// wrote each.
    fn judged(entries: Vec<E>, agree: impl Fn(&E, &E) -> bool, run: impl Fn(&E) -> Option<u32>) -> Group<E> {
        let runs: Vec<Option<u32>> = entries.iter().map(run).collect();
        let dissent = entries.iter().position(|e| !agree(e, &entries[0]));
        let repeat = (0..entries.len()).find_map(|i| Some((i, (i + 1..entries.len()).find(|&j| runs[j] == runs[i])?)));
        Group { entries, dissent, repeat }
    }
}

/// The first of `groups` (by shard) that one run wrote twice, and the two entries.
fn first_repeat<E>(groups: &BTreeMap<usize, Group<E>>) -> Option<(usize, &E, &E)> {
    groups.iter().find_map(|(&k, g)| g.repeat.map(|(i, j)| (k, &g.entries[i], &g.entries[j])))
}

/// The first of `groups` (by shard) whose entries disagree, with its first entry and the
/// first that disagrees with it.
fn first_dissent<E>(groups: &BTreeMap<usize, Group<E>>) -> Option<(usize, &E, &E)> {
    groups.iter().find_map(|(&k, g)| g.dissent.map(|j| (k, &g.entries[0], &g.entries[j])))
}

/// Shards as a short list of ranges: "0-3, 5, 7-9".
pub fn listed(shards: &[Range<usize>]) -> String {
    spans(shards).join(", ")
}

/// Shards as a list of ranges short enough for a line: its first `most` ranges, then how
/// many more (the status's JSON line lists every one).
pub fn listed_briefly(shards: &[Range<usize>], most: usize) -> String {
    let all = spans(shards);
    if all.len() <= most {
        return all.join(", ");
    }
    let count: usize = shards.iter().map(ExactSizeIterator::len).sum();
    format!("{}, and {} more ranges ({count} shards in all)", all[..most].join(", "), all.len() - most)
}

/// Ranges as a list says them: "0-3", "5".
fn spans(shards: &[Range<usize>]) -> Vec<String> {
    shards.iter().map(|r| if r.len() > 1 { format!("{}-{}", r.start, r.end - 1) } else { r.start.to_string() }).collect()
}

/// `shards` (sorted) as ranges of consecutive shards: "0-3", "5", "7-9".
pub fn ranges(shards: &[usize]) -> Vec<String> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    for &k in shards {
        match runs.last_mut() {
            Some(r) if r.end == k => r.end += 1,
            _ => runs.push(k..k + 1),
        }
    }
    spans(&runs)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{case, ledger};
    use super::super::CaseRecord;
    use super::*;

    fn from_run(record: Record, run: &str) -> Record {
        match record {
            Record::Case(c) => Record::Case(Box::new(CaseRecord { run: Some(run.into()), ..*c })),
            other => other,
        }
    }

    #[test]
    fn recounts_from_other_runs_are_grouped_and_repeats_and_disagreements_found() {
        let records =
            vec![case(0, 1, 2, 4, 5), case(0, 1, 0, 4, 1), from_run(case(0, 1, 2, 4, 5), "r2"), from_run(case(0, 1, 2, 4, 5), "r3")];
        let ledger = ledger(records);
        let book = &ledger.inputs[&0].cases[&1];
        assert_eq!(book.missing(4), vec![1..2, 3..4]);
        assert_eq!(book.recounts(), (1, 2));
        assert!(book.repeated().is_none() && book.disagreement().is_none());
        assert_eq!(book.firsts().map(|f| f.2.line).collect::<Vec<_>>(), vec![2, 1]);

        let ledger = super::super::tests::ledger(vec![case(0, 1, 2, 4, 5), from_run(case(0, 1, 2, 4, 6), "r2"), case(0, 1, 2, 4, 5)]);
        let book = &ledger.inputs[&0].cases[&1];
        let (shard, first, second) = book.repeated().unwrap();
        assert_eq!((shard, first.place.line, second.place.line), (2, 1, 3));
        let (_, first, second) = book.disagreement().unwrap();
        assert_eq!((first.place.line, second.place.line), (1, 2));
    }

    #[test]
    fn a_copy_from_a_checkpoint_is_not_a_recount() {
        let copy = |record: Record, run: &str| match from_run(record, run) {
            Record::Case(c) => Record::Case(Box::new(CaseRecord { counted_by: Some("r1".into()), ..*c })),
            other => other,
        };
        let lines = |ledger: &Ledger| -> Vec<u32> {
            let book = &ledger.inputs[&0].cases[&1];
            book.groups
                .get(&0)
                .map_or_else(|| book.firsts().map(|f| f.2.line).collect(), |g| g.entries.iter().map(|e| e.place.line).collect())
        };
        // Beside the count it copies, or an earlier copy of it: dropped.
        let records = ledger(vec![copy(case(0, 1, 0, 2, 5), "r2"), case(0, 1, 0, 2, 5), copy(case(0, 1, 0, 2, 5), "r3")]);
        assert_eq!(records.inputs[&0].cases[&1].recounts(), (0, 0));
        assert_eq!(lines(&records), vec![2]);
        let records = ledger(vec![copy(case(0, 1, 0, 2, 5), "r2"), copy(case(0, 1, 0, 2, 5), "r3")]);
        assert_eq!(records.inputs[&0].cases[&1].recounts(), (0, 0));
        // A real recount stays one, and a copy that disagrees is kept and seen.
        let records = ledger(vec![case(0, 1, 0, 2, 5), copy(case(0, 1, 0, 2, 5), "r2"), from_run(case(0, 1, 0, 2, 5), "r4")]);
        assert_eq!(records.inputs[&0].cases[&1].recounts(), (1, 1));
        let records = ledger(vec![case(0, 1, 0, 2, 5), copy(case(0, 1, 0, 2, 6), "r2")]);
        assert!(records.inputs[&0].cases[&1].disagreement().is_some());
        // Only the records kept count for the machines and the case's backends.
        let kept = ledger(vec![copy(case(0, 1, 0, 2, 5), "r2"), case(0, 1, 0, 2, 5)]);
        assert_eq!(kept.inputs[&0].cases[&1].backends.values().map(|b| b.records).sum::<usize>(), 1);
    }

    #[test]
    fn shard_lists_are_short() {
        assert_eq!(ranges(&[0, 1, 2, 3, 5, 7, 8, 9]), ["0-3", "5", "7-9"]);
        let missing = [0..4, 5..6, 7..10];
        assert_eq!(listed(&missing), "0-3, 5, 7-9");
        assert_eq!(listed_briefly(&missing, 3), "0-3, 5, 7-9");
        assert_eq!(listed_briefly(&missing, 2), "0-3, 5, and 1 more ranges (8 shards in all)");
        assert_eq!(gaps([2, 3, 7].into_iter(), 10), vec![0..2, 4..7, 8..10]);
        assert_eq!(gaps(std::iter::empty(), usize::MAX), vec![0..usize::MAX]);
    }
}
