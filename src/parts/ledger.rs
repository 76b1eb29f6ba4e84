//! Part records grouped as a merge reads them: by input, case and shard, each shard with
//! every record of it, a first count and its recounts from other runs. Records of one
//! shard from one run are the same record given twice; records of one shard from several
//! runs must agree.

use std::collections::BTreeMap;

use super::apart::{apart, Apart};
use super::{CaseRecord, EndRecord, Located, PartsError, Record};
use crate::words::quoted_input;

/// Every record of a merge, grouped.
pub struct Ledger<'a> {
    /// The shards every case was cut into (M), as the first record says.
    pub shards: usize,
    /// By input index, from 0.
    pub inputs: BTreeMap<usize, InputLedger<'a>>,
}

/// One input's records.
#[derive(Default)]
pub struct InputLedger<'a> {
    /// Its name, as the runs that counted it give it.
    pub file: String,
    /// By case, from 1.
    pub cases: BTreeMap<usize, ByShard<'a>>,
    /// Its end records.
    pub ends: ByShard<'a>,
}

impl InputLedger<'_> {
    /// Its name, for messages (see [`quoted_input`]).
    pub fn shown(&self) -> String {
        quoted_input(&self.file)
    }

    /// How many cases the input held, as far as the records tell: the most any end record
    /// says, or the last case seen.
    pub fn case_count(&self) -> usize {
        let ended = self.ends.all().iter().filter_map(|r| end(r).map(|e| e.cases)).max().unwrap_or(0);
        ended.max(self.cases.keys().next_back().copied().unwrap_or(0))
    }
}

/// Records of one case, or of one input's ends, in order of shard.
#[derive(Default)]
pub struct ByShard<'a> {
    records: Vec<&'a Located>,
}

/// Two records of one shard that may not stand together.
pub struct Clash<'a> {
    pub shard: usize,
    pub first: &'a Located,
    pub second: &'a Located,
}

impl<'a> ByShard<'a> {
    /// Every record, in order of shard, then of reading.
    pub fn all(&self) -> &[&'a Located] {
        &self.records
    }

    /// Each shard's records, in order of shard.
    pub fn groups(&self) -> impl Iterator<Item = &[&'a Located]> + '_ {
        self.records.chunk_by(|a, b| a.record.shard().0 == b.record.shard().0)
    }

    /// The shards of `0..shards` with no record.
    pub fn missing(&self, shards: usize) -> Vec<usize> {
        let mut missing = Vec::new();
        let mut next = 0;
        for group in self.groups() {
            let shard = group[0].record.shard().0;
            missing.extend(next..shard);
            next = shard + 1;
        }
        missing.extend(next..shards);
        missing
    }

    /// The first shard with two records from one run (see [`repeat_in`]).
    pub fn repeated(&self) -> Option<Clash<'a>> {
        self.groups().find_map(|group| {
            let (first, second) = repeat_in(group)?;
            Some(Clash { shard: first.record.shard().0, first, second })
        })
    }

    /// The first record that stands apart from the case's first (see [`apart`]), with a
    /// record it stands apart from (its shard's first where that one is the case's
    /// kind, else the case's first) and why: records of one case that may not be added up
    /// together.
    pub fn apart(&self) -> Option<(Apart, &'a Located, &'a Located)> {
        let first = case(self.records.first()?)?;
        let (at, odd) = self.records.iter().enumerate().find(|(_, r)| case(r).is_some_and(|c| apart(first, c).is_some()))?;
        let shard = odd.record.shard().0;
        let same_shard = self.records[..at].iter().find(|r| r.record.shard().0 == shard).copied();
        let beside = same_shard.unwrap_or(self.records[0]);
        Some((apart(case(beside)?, case(odd)?)?, beside, odd))
    }

    /// The first shard whose records do not all agree with its first (see [`agree`]).
    pub fn disagreement(&self) -> Option<Clash<'a>> {
        self.groups().find_map(|group| Some(Clash { shard: group[0].record.shard().0, first: group[0], second: dissent_in(group)? }))
    }

    /// How many shards have more than one record, and how many records beyond the first.
    pub fn recounts(&self) -> (usize, usize) {
        self.groups().filter(|g| g.len() > 1).fold((0, 0), |(shards, extra), g| (shards + 1, extra + g.len() - 1))
    }

    /// Each shard's first record, in order of shard.
    pub fn firsts(&self) -> impl Iterator<Item = &'a Located> + '_ {
        self.groups().map(|g| g[0])
    }
}

/// Two records of one shard's `group` from one run, the first such pair: the same record
/// given twice (for records of format 1, which name no run, any two).
pub fn repeat_in<'a>(group: &[&'a Located]) -> Option<(&'a Located, &'a Located)> {
    group.iter().enumerate().find_map(|(i, a)| Some((*a, *group[i + 1..].iter().find(|b| b.record.run() == a.record.run())?)))
}

/// The first record of one shard's `group` that does not agree with the group's first,
/// though it is a record of the same board, options and split (one that is not is
/// another fault: see [`ByShard::apart`]).
pub fn dissent_in<'a>(group: &[&'a Located]) -> Option<&'a Located> {
    let together = |b: &Located| match (&group[0].record, &b.record) {
        (Record::Case(a), Record::Case(b)) => apart(a, b).is_none(),
        _ => true,
    };
    group[1..].iter().copied().find(|b| together(b) && !agree(&group[0].record, &b.record))
}

/// Whether two records of one shard say the same: case records the same solutions and the
/// same part of the unique count, end records the same end of the input.
pub fn agree(a: &Record, b: &Record) -> bool {
    match (a, b) {
        (Record::Case(a), Record::Case(b)) => a.count == b.count && a.unique == b.unique,
        (Record::End(a), Record::End(b)) => a.cases == b.cases && a.error == b.error,
        _ => false,
    }
}

/// The case record `located` holds, if it is one.
pub fn case(located: &Located) -> Option<&CaseRecord> {
    match &located.record {
        Record::Case(c) => Some(c),
        Record::End(_) => None,
    }
}

/// The end record `located` holds, if it is one.
pub fn end(located: &Located) -> Option<&EndRecord> {
    match &located.record {
        Record::End(e) => Some(e),
        Record::Case(_) => None,
    }
}

impl<'a> Ledger<'a> {
    /// `records` grouped; an error when they were written for different numbers of
    /// shards, or name a shard past their number.
    pub fn new(records: &'a [Located]) -> Result<Ledger<'a>, PartsError> {
        let shards = records.first().map_or(1, |r| r.record.shard().1);
        let mut inputs: BTreeMap<usize, InputLedger<'a>> = BTreeMap::new();
        for r in records {
            let (shard, count) = r.record.shard();
            if count != shards || shard >= count {
                return Err(PartsError::Mismatch(format!(
                    "{}: shard {shard} of {count}, but {} is shard {} of {shards}",
                    r.place(),
                    records[0].place(),
                    records[0].record.shard().0
                )));
            }
            let (index, file) = match &r.record {
                Record::Case(c) => (c.input, &c.file),
                Record::End(e) => (e.input, &e.file),
            };
            let input = inputs.entry(index).or_default();
            input.file.clone_from(file);
            match &r.record {
                Record::Case(c) => input.cases.entry(c.case).or_default().records.push(r),
                Record::End(_) => input.ends.records.push(r),
            }
        }
        for input in inputs.values_mut() {
            for by_shard in input.cases.values_mut().chain([&mut input.ends]) {
                by_shard.records.sort_by_key(|r| r.record.shard().0);
                let groups = by_shard.records.chunk_by(|a, b| a.record.shard().0 == b.record.shard().0);
                by_shard.records = groups.flat_map(without_copies).collect();
            }
        }
        Ok(Ledger { shards, inputs })
    }
}

/// One shard's `group` without the records that copy another's count: a run that found the
/// shard counted in its checkpoint writes the record again, naming the run that counted it
/// ([`CaseRecord::counted_by`]); beside that run's record, or an earlier copy of it, it
/// is the same count, not a recount. A copy that disagrees is kept, to be seen.
fn without_copies<'a>(group: &[&'a Located]) -> Vec<&'a Located> {
    fn copied(r: &Located) -> Option<&str> {
        case(r).and_then(|c| c.counted_by.as_deref())
    }
    fn origin(r: &Located) -> Option<&str> {
        copied(r).or(r.record.run())
    }
    let copy_of_another = |i: usize, r: &Located| {
        group
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && origin(o) == origin(r) && agree(&o.record, &r.record) && (copied(o).is_none() || j < i))
    };
    group.iter().enumerate().filter(|&(i, r)| copied(r).is_none() || !copy_of_another(i, r)).map(|(_, r)| *r).collect()
}

/// `shards` as a short list: "0-3, 5, 7-9".
pub fn listed(shards: &[usize]) -> String {
    ranges(shards).join(", ")
}

/// `shards` as a list short enough for a line: its first `most` ranges, then how many more
/// (the status's JSON line lists every one).
pub fn listed_briefly(shards: &[usize], most: usize) -> String {
    let all = ranges(shards);
    if all.len() <= most {
        return all.join(", ");
    }
    format!("{}, and {} more ranges ({} shards in all)", all[..most].join(", "), all.len() - most, shards.len())
}

/// `shards` (sorted) as ranges of consecutive shards: "0-3", "5", "7-9".
pub fn ranges(shards: &[usize]) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < shards.len() {
        let mut j = i;
        while j + 1 < shards.len() && shards[j + 1] == shards[j] + 1 {
            j += 1;
        }
        parts.push(if j > i { format!("{}-{}", shards[i], shards[j]) } else { shards[i].to_string() });
        i = j + 1;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::super::tests::{case, located};
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
        let records = located(vec![
            case(0, 1, 2, 4, 5),
            case(0, 1, 0, 4, 1),
            from_run(case(0, 1, 2, 4, 5), "r2"),
            from_run(case(0, 1, 2, 4, 5), "r3"),
        ]);
        let ledger = Ledger::new(&records).unwrap();
        let shards = &ledger.inputs[&0].cases[&1];
        assert_eq!(shards.missing(4), vec![1, 3]);
        assert_eq!(shards.recounts(), (1, 2));
        assert!(shards.repeated().is_none() && shards.disagreement().is_none());
        assert_eq!(shards.firsts().map(|r| r.line).collect::<Vec<_>>(), vec![2, 1]);

        let records = located(vec![case(0, 1, 2, 4, 5), from_run(case(0, 1, 2, 4, 6), "r2"), case(0, 1, 2, 4, 5)]);
        let ledger = Ledger::new(&records).unwrap();
        let shards = &ledger.inputs[&0].cases[&1];
        let twice = shards.repeated().unwrap();
        assert_eq!((twice.shard, twice.first.line, twice.second.line), (2, 1, 3));
        let differ = shards.disagreement().unwrap();
        assert_eq!((differ.first.line, differ.second.line), (1, 2));
    }

    #[test]
    fn a_copy_from_a_checkpoint_is_not_a_recount() {
        let copy = |record: Record, run: &str| match from_run(record, run) {
            Record::Case(c) => Record::Case(Box::new(CaseRecord { counted_by: Some("r1".into()), ..*c })),
            other => other,
        };
        // Beside the count it copies, or an earlier copy of it: dropped.
        let records = located(vec![copy(case(0, 1, 0, 2, 5), "r2"), case(0, 1, 0, 2, 5), copy(case(0, 1, 0, 2, 5), "r3")]);
        let ledger = Ledger::new(&records).unwrap();
        assert_eq!(ledger.inputs[&0].cases[&1].recounts(), (0, 0));
        assert_eq!(ledger.inputs[&0].cases[&1].all().iter().map(|r| r.line).collect::<Vec<_>>(), vec![2]);
        let records = located(vec![copy(case(0, 1, 0, 2, 5), "r2"), copy(case(0, 1, 0, 2, 5), "r3")]);
        assert_eq!(Ledger::new(&records).unwrap().inputs[&0].cases[&1].recounts(), (0, 0));
        // A real recount stays one, and a copy that disagrees is kept and seen.
        let records = located(vec![case(0, 1, 0, 2, 5), copy(case(0, 1, 0, 2, 5), "r2"), from_run(case(0, 1, 0, 2, 5), "r4")]);
        assert_eq!(Ledger::new(&records).unwrap().inputs[&0].cases[&1].recounts(), (1, 1));
        let records = located(vec![case(0, 1, 0, 2, 5), copy(case(0, 1, 0, 2, 6), "r2")]);
        assert!(Ledger::new(&records).unwrap().inputs[&0].cases[&1].disagreement().is_some());
    }

    #[test]
    fn shard_lists_are_short() {
        assert_eq!(listed(&[0, 1, 2, 3, 5, 7, 8, 9]), "0-3, 5, 7-9");
        assert_eq!(listed_briefly(&[0, 1, 2, 3, 5, 7, 8, 9], 3), "0-3, 5, 7-9");
        assert_eq!(listed_briefly(&[0, 1, 2, 3, 5, 7, 8, 9], 2), "0-3, 5, and 1 more ranges (8 shards in all)");
    }
}
