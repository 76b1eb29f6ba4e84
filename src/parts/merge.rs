//! Adds up the part records of a sharded run into the answers a plain run would print,
//! after checking that every case has every shard exactly once, all counted from the same
//! board and plan.

use std::collections::BTreeMap;

use super::{Located, Record};
use crate::unique::Fixed;

/// What a merge found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// The answer lines of the cases complete before the first problem, in order.
    pub answers: Vec<String>,
    /// What a plain run would have said of bad input ("FILE: line L: ..."), in order.
    pub input_errors: Vec<String>,
    /// Why the merge stopped short: a missing, repeated or mismatched shard.
    pub problem: Option<String>,
}

/// One input's records: its cases' and its end records.
#[derive(Default)]
struct Input<'a> {
    file: String,
    cases: BTreeMap<usize, Vec<&'a Located>>,
    ends: Vec<&'a Located>,
}

/// The records by input, and the shard count they were written for (that of the first).
fn by_input(records: &[Located]) -> Result<(BTreeMap<usize, Input<'_>>, usize), String> {
    let shards = records.first().map_or(1, |r| r.record.shard().1);
    let mut inputs: BTreeMap<usize, Input> = BTreeMap::new();
    for r in records {
        let (shard, count) = r.record.shard();
        if count != shards || shard >= count {
            return Err(format!(
                "{}: shard {shard} of {count}, but {} is shard {} of {shards}",
                r.place(),
                records[0].place(),
                records[0].record.shard().0
            ));
        }
        let (index, file) = match &r.record {
            Record::Case(c) => (c.input, &c.file),
            Record::End(e) => (e.input, &e.file),
        };
        let input = inputs.entry(index).or_default();
        input.file.clone_from(file);
        match &r.record {
            Record::Case(c) => input.cases.entry(c.case).or_default().push(r),
            Record::End(_) => input.ends.push(r),
        }
    }
    Ok((inputs, shards))
}

/// The shards of `0..shards` that `records` lack, and the first shard they hold twice.
fn coverage(records: &[&Located], shards: usize) -> (Vec<usize>, Option<(usize, String, String)>) {
    let mut seen: Vec<Option<&Located>> = vec![None; shards];
    let mut twice = None;
    for r in records {
        let shard = r.record.shard().0;
        match seen[shard] {
            Some(first) => {
                twice.get_or_insert((shard, first.place(), r.place()));
            }
            None => seen[shard] = Some(r),
        }
    }
    ((0..shards).filter(|&s| seen[s].is_none()).collect(), twice)
}

/// `shards` as a short list: "0-3, 5, 7-9".
fn listed(shards: &[usize]) -> String {
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
    parts.join(", ")
}

/// Adds up `records` (every part file's, in any order).
pub fn merge(records: &[Located]) -> Merged {
    let mut merged = Merged::default();
    let (inputs, shards) = match by_input(records) {
        Ok(grouped) => grouped,
        Err(problem) => return Merged { problem: Some(problem), ..merged },
    };
    let last = inputs.keys().next_back().copied();
    for index in 0..last.map_or(0, |l| l + 1) {
        let Some(input) = inputs.get(&index) else {
            merged.problem = Some(format!("input {} of the sharded run has no records in any part file", index + 1));
            return merged;
        };
        match merge_input(input, shards, &mut merged.answers) {
            Ok(Some(error)) => merged.input_errors.push(format!("{}: {error}", input.file)),
            Ok(None) => {}
            Err(problem) => {
                merged.problem = Some(problem);
                return merged;
            }
        }
    }
    merged
}

/// Adds up one input's cases into `answers`, stopping at the first incomplete one; the
/// error that ended the input early, if one did.
fn merge_input(input: &Input<'_>, shards: usize, answers: &mut Vec<String>) -> Result<Option<String>, String> {
    let ends: Vec<_> = input.ends.iter().filter_map(|r| if let Record::End(e) = &r.record { Some((e, *r)) } else { None }).collect();
    let last_seen = input.cases.keys().next_back().copied().unwrap_or(0);
    let cases = ends.iter().map(|(e, _)| e.cases).max().unwrap_or(0).max(last_seen);
    for case in 1..=cases {
        let records = input.cases.get(&case).map_or(&[][..], Vec::as_slice);
        let (missing, twice) = coverage(records, shards);
        if let Some((shard, first, second)) = twice {
            return Err(format!("{}: case {case}: shard {shard} was counted twice: {first} and {second}", input.file));
        }
        if !missing.is_empty() {
            return Err(format!(
                "{}: case {case}: missing shard{} {} of {shards}",
                input.file,
                if missing.len() == 1 { "" } else { "s" },
                listed(&missing)
            ));
        }
        let (mut total, mut fixed) = (0u128, 0u128);
        let first = match &records[0].record {
            Record::Case(c) => c,
            Record::End(_) => unreachable!("only case records are grouped by case"),
        };
        for r in records {
            let Record::Case(c) = &r.record else { unreachable!("only case records are grouped by case") };
            if c.board != first.board || c.plan != first.plan {
                let what = if c.board != first.board { "another board" } else { "another plan or split" };
                return Err(format!("{}: case {case}: {} was counted from {what} than {}", input.file, r.place(), records[0].place()));
            }
            if c.unique.map(|u| u.group) != first.unique.map(|u| u.group) {
                return Err(format!("{}: case {case}: {} and {} disagree on --unique", input.file, r.place(), records[0].place()));
            }
            total += c.count;
            fixed += c.unique.map_or(0, |u| u.fixed);
        }
        let answer = match first.unique {
            None => format!("Case {case}: {total}"),
            Some(u) => {
                let unique = Fixed { group: u.group, solutions: fixed }
                    .unique(total)
                    .ok_or_else(|| format!("{}: case {case}: {}", input.file, crate::unique::mismatch()))?;
                format!("Case {case}: {total} (unique {unique})")
            }
        };
        answers.push(answer);
    }
    let (missing_ends, twice) = coverage(&input.ends, shards);
    if let Some((shard, first, second)) = twice {
        return Err(format!("{}: shard {shard} ended the input twice: {first} and {second}", input.file));
    }
    if let Some((e, r)) = ends.iter().find(|(e, _)| e.cases != ends[0].0.cases || e.error != ends[0].0.error) {
        return Err(format!(
            "{}: the shards disagree on where the input ends: {} says {} cases, {} says {}",
            input.file,
            ends[0].1.place(),
            ends[0].0.cases,
            r.place(),
            e.cases
        ));
    }
    if !missing_ends.is_empty() {
        return Err(format!(
            "{}: shard{} {} of {shards} did not finish the input",
            input.file,
            if missing_ends.len() == 1 { "" } else { "s" },
            listed(&missing_ends)
        ));
    }
    Ok(ends.first().and_then(|(e, _)| e.error.clone()))
}

/// For `--merge --status`: a line for each case that is not complete and each input not
/// finished by every shard, then one line in all; and whether everything is complete.
pub fn status(records: &[Located]) -> (Vec<String>, bool) {
    let (inputs, shards) = match by_input(records) {
        Ok(grouped) => grouped,
        Err(problem) => return (vec![problem], false),
    };
    let mut lines = Vec::new();
    let (mut complete, mut total) = (0, 0);
    for input in inputs.values() {
        let cases = input.ends.iter().filter_map(|r| if let Record::End(e) = &r.record { Some(e.cases) } else { None }).max();
        let last = cases.unwrap_or(0).max(input.cases.keys().next_back().copied().unwrap_or(0));
        for case in 1..=last {
            total += 1;
            let (missing, twice) = coverage(input.cases.get(&case).map_or(&[][..], Vec::as_slice), shards);
            match (missing.is_empty(), twice) {
                (true, None) => complete += 1,
                (_, Some((shard, first, second))) => {
                    lines.push(format!("{}: case {case}: shard {shard} twice ({first}; {second})", input.file))
                }
                (false, None) => lines.push(format!(
                    "{}: case {case}: {} of {shards} shards in, missing {}",
                    input.file,
                    shards - missing.len(),
                    listed(&missing)
                )),
            }
        }
        let (missing, _) = coverage(&input.ends, shards);
        if !missing.is_empty() {
            lines.push(format!("{}: not finished by shard{} {}", input.file, if missing.len() == 1 { "" } else { "s" }, listed(&missing)));
        }
    }
    let done = complete == total && lines.is_empty();
    lines.push(format!(
        "{complete} of {total} cases complete in {} input{} of {shards} shards",
        inputs.len(),
        if inputs.len() == 1 { "" } else { "s" }
    ));
    (lines, done)
}

#[cfg(test)]
mod tests {
    use super::super::tests::case;
    use super::super::{EndRecord, Kind, Located, Record, FORMAT};
    use super::*;

    fn end(input: usize, cases: usize, shard: usize, shards: usize, error: Option<&str>) -> Record {
        Record::End(EndRecord {
            record: Kind::End,
            format: FORMAT,
            nqueen: "test".into(),
            input,
            file: "in".into(),
            cases,
            shard,
            shards,
            error: error.map(String::from),
        })
    }

    fn located(records: Vec<Record>) -> Vec<Located> {
        records.into_iter().enumerate().map(|(i, record)| Located { record, file: "parts".into(), line: i + 1 }).collect()
    }

    /// Two cases over three shards, in a jumbled order.
    fn run() -> Vec<Record> {
        vec![case(0, 2, 1, 3, 5), case(0, 1, 0, 3, 1), end(0, 2, 0, 3, None), case(0, 1, 2, 3, 3), case(0, 2, 0, 3, 0), case(0, 1, 1, 3, 2)]
            .into_iter()
            .chain([case(0, 2, 2, 3, 7), end(0, 2, 2, 3, None), end(0, 2, 1, 3, None)])
            .collect()
    }

    #[test]
    fn complete_shards_add_up_case_by_case() {
        let merged = merge(&located(run()));
        assert_eq!(merged, Merged { answers: vec!["Case 1: 6".into(), "Case 2: 12".into()], ..Merged::default() });
        assert!(status(&located(run())).1);
    }

    #[test]
    fn a_missing_shard_stops_the_merge_at_its_case() {
        let mut records = run();
        records.remove(0); // case 2, shard 1
        let merged = merge(&located(records.clone()));
        assert_eq!(merged.answers, vec!["Case 1: 6"]);
        assert_eq!(merged.problem.as_deref(), Some("in: case 2: missing shard 1 of 3"));
        let (lines, complete) = status(&located(records));
        assert!(!complete && lines[0] == "in: case 2: 2 of 3 shards in, missing 1", "{lines:?}");
    }

    #[test]
    fn a_shard_counted_twice_is_named_with_both_places() {
        let mut records = run();
        records.push(case(0, 1, 2, 3, 3));
        let problem = merge(&located(records)).problem.unwrap();
        assert_eq!(problem, "in: case 1: shard 2 was counted twice: parts, line 4 (shard 2) and parts, line 10 (shard 2)");
    }

    #[test]
    fn parts_of_another_board_or_shard_count_do_not_mix() {
        let mut records = run();
        if let Record::Case(c) = &mut records[3] {
            c.board = "other".into();
        }
        assert!(merge(&located(records)).problem.unwrap().contains("counted from another board"));
        let mut records = run();
        records.push(case(0, 3, 0, 4, 1));
        assert!(merge(&located(records)).problem.unwrap().contains("shard 0 of 4"));
    }

    #[test]
    fn an_input_that_ended_in_an_error_says_so_after_its_cases() {
        let records =
            vec![case(0, 1, 0, 2, 4), case(0, 1, 1, 2, 5), end(0, 1, 0, 2, Some("line 9: bad")), end(0, 1, 1, 2, Some("line 9: bad"))];
        let merged = merge(&located(records));
        assert_eq!(
            (merged.answers, merged.input_errors, merged.problem),
            (vec!["Case 1: 9".to_string()], vec!["in: line 9: bad".to_string()], None)
        );
    }

    #[test]
    fn a_shard_that_never_finished_leaves_its_input_open() {
        let records: Vec<_> = run().into_iter().filter(|r| !matches!(r, Record::End(e) if e.shard == 1)).collect();
        let merged = merge(&located(records));
        assert_eq!(merged.answers.len(), 2);
        assert_eq!(merged.problem.as_deref(), Some("in: shard 1 of 3 did not finish the input"));
    }

    #[test]
    fn shard_lists_are_short() {
        assert_eq!(listed(&[0, 1, 2, 3, 5, 7, 8, 9]), "0-3, 5, 7-9");
    }
}
