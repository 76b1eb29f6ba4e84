//! Adds up the part records of a sharded run into the answers a plain run would print,
//! after checking that every case has every shard, all counted from the same board and
//! plan, and that every shard counted more than once (by other runs: on other hosts, by
//! the other backend or by another build of the same split) was counted alike.

use super::apart::{self, Side};
use super::ledger::{self, listed, CaseBook, EndBook, InputBook, Ledger, Odd, Place};
use super::PartsError;
use crate::board::Board;
use crate::unique::Fixed;
use crate::words::plural;
use crate::work;

/// What a merge found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// The answer lines of the cases complete before the first problem, in order.
    pub answers: Vec<String>,
    /// What a plain run would have said of bad input ("FILE: line L: ..."), in order.
    pub input_errors: Vec<String>,
    /// Why the merge stopped short: a missing, repeated, mismatched or disagreeing shard.
    pub problem: Option<PartsError>,
    /// What was counted more than once in the answered cases, all of it alike (or the
    /// merge stopped at it).
    pub recounted: Recounted,
}

/// Shards counted more than once: in how many cases, how many shards of them, and how many
/// records beyond each shard's first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recounted {
    pub cases: usize,
    pub shards: usize,
    pub records: usize,
}

/// Adds up the records of `ledger` (every part file's, in any order, closed).
pub fn merge(ledger: &Ledger) -> Merged {
    let mut merged = Merged::default();
    if let Some(problem) = ledger.refused() {
        return Merged { problem: Some(problem.clone()), ..merged };
    }
    let last = ledger.inputs.keys().next_back().copied();
    for index in 0..last.map_or(0, |l| l + 1) {
        let Some(input) = ledger.inputs.get(&index) else {
            merged.problem =
                Some(PartsError::Incomplete(format!("input {} of the sharded run has no records in any part file", index + 1)));
            return merged;
        };
        match merge_input(ledger, input, &mut merged) {
            Ok(Some(error)) => merged.input_errors.push(format!("{}: {error}", input.shown())),
            Ok(None) => {}
            Err(problem) => {
                merged.problem = Some(problem);
                return merged;
            }
        }
    }
    merged
}

/// Why the records of case `case` of the input `file` may not be added up together, if
/// they may not: the first that stands apart from the case's first (see [`apart`]).
pub fn mixed(ledger: &Ledger, file: &str, case: usize, book: &CaseBook) -> Option<PartsError> {
    let Odd { why, beside: (at, by), odd: (odd, header, from) } = book.first_apart.as_ref()?;
    let build = |origin: u32| ledger.name(ledger.shared.origins.get(origin).build);
    let a = Side { place: ledger.place(*at), header: &book.header, build: build(*by) };
    let b = Side { place: ledger.place(*odd), header, build: build(*from) };
    Some(PartsError::Mismatch(apart::message(file, case, *why, &a, &b)))
}

/// The first shard of case `case` of the input `file` that one run counted twice or two
/// runs counted differently, as a message.
pub fn case_clash(ledger: &Ledger, file: &str, case: usize, book: &CaseBook) -> Option<PartsError> {
    let what = format!("case {case}");
    if let Some((shard, a, b)) = book.repeated() {
        return Some(twice(ledger, file, &what, shard, a.place, b.place));
    }
    let (shard, a, b) = book.disagreement()?;
    let said = |e: &ledger::Entry| match book.header.unique {
        None => format!("{} solutions", e.count),
        Some(_) => format!("{} solutions ({} fixed by its symmetries)", e.count, e.fixed),
    };
    Some(differently(file, &what, shard, (ledger.origin(a.place, a.origin), said(a)), (ledger.origin(b.place, b.origin), said(b))))
}

/// The first shard whose end records of the input `file` one run wrote twice or two runs
/// wrote differently, as a message.
pub fn end_clash(ledger: &Ledger, file: &str, ends: &EndBook) -> Option<PartsError> {
    if let Some((shard, a, b)) = ends.repeated() {
        return Some(twice(ledger, file, END, shard, a.place, b.place));
    }
    let (shard, a, b) = ends.disagreement()?;
    let said = |e: &ledger::EndEntry| ended(&e.says);
    Some(differently(file, END, shard, (ledger.origin(a.place, a.origin), said(a)), (ledger.origin(b.place, b.origin), said(b))))
}

/// What an end record says, in a message: "3 cases, then ERROR".
fn ended(says: &ledger::Says) -> String {
    format!("{} cases{}", says.cases, says.error.as_ref().map_or(String::new(), |e| format!(", then {e}")))
}

/// A shard one run counted twice, as a message.
fn twice(ledger: &Ledger, file: &str, what: &str, shard: usize, a: Place, b: Place) -> PartsError {
    let (a, b) = (ledger.place(a), ledger.place(b));
    PartsError::Incomplete(format!("{file}: {what}: shard {shard} was counted twice by the same run: {a} and {b}"))
}

/// A shard two runs counted differently, as a message: each record's origin and what it
/// says.
fn differently(file: &str, what: &str, shard: usize, (a, said_a): (String, String), (b, said_b): (String, String)) -> PartsError {
    PartsError::Disagree(format!("{file}: {what}: shard {shard} was counted differently: {a} says {said_a}, but {b} says {said_b}"))
}

/// What a message calls an input's end records.
pub const END: &str = "the end of the input";

/// The missing shards of a case (`what`), or of one input's ends, as a message.
fn missing(file: &str, what: &str, missing: &[std::ops::Range<usize>], shards: usize) -> PartsError {
    let count: usize = missing.iter().map(ExactSizeIterator::len).sum();
    let plural = plural(count);
    PartsError::Incomplete(match what {
        END => format!("{file}: shard{plural} {} of {shards} did not finish the input", listed(missing)),
        _ => format!("{file}: {what}: missing shard{plural} {} of {shards}", listed(missing)),
    })
}

/// The solutions of a case's shards, and the solutions its symmetries fix, added up (each
/// shard's first record); an error naming the case and its records where a sum passes
/// 2^128 - 1, which no board's count reaches: a forged or damaged record.
fn sums(ledger: &Ledger, file: &str, case: usize, book: &CaseBook) -> Result<(u128, u128), PartsError> {
    let (mut total, mut fixed) = (0u128, 0u128);
    for (count, fixes, place, _) in book.firsts() {
        let Some(sums) = total.checked_add(count).zip(fixed.checked_add(fixes)) else {
            let largest = book.firsts().max_by_key(|f| f.0).map_or((count, place, 0), |f| (f.0, f.2, f.3));
            return Err(PartsError::Impossible(format!(
                "{file}: case {case}: its shards' counts add up past 2^128 - 1, which no board's count reaches \
                 (the sum passes it at {}): a record is wrong, most likely the largest, {}, which says {} solutions",
                ledger.place(place),
                ledger.origin(largest.1, largest.2),
                largest.0
            )));
        };
        (total, fixed) = sums;
    }
    Ok((total, fixed))
}

/// Why `total` cannot be the count of the board `header` names, if it cannot: every count
/// of an empty board of n >= 6 is a multiple of 4 (Nielsen 2026, arXiv 2601.05856), one
/// more check a forged or damaged record must pass.
fn impossible(header: &apart::Header, total: u128) -> Option<String> {
    let empty = Board::empty(header.n).ok().filter(|_| header.n >= 6)?;
    if header.board != work::sha256(empty.to_string().as_bytes()) || total.is_multiple_of(4) {
        return None;
    }
    let n = header.n;
    Some(format!(
        "its shards add up to {total} solutions, which is not a multiple of 4, though every count of an empty \
         board of side 6 or more is (Nielsen 2026, arXiv 2601.05856): a record of an empty {n}x{n} board is wrong; \
         count its shards again (nqueen recheck)"
    ))
}

/// Adds up one input's cases into `merged`, stopping at the first that cannot be
/// answered; the error that ended the input early, if one did.
fn merge_input(ledger: &Ledger, input: &InputBook, merged: &mut Merged) -> Result<Option<String>, PartsError> {
    let (file, shards) = (&input.shown(), ledger.shards());
    for case in 1..=input.case_count() {
        let Some(book) = input.cases.get(&case) else {
            let all = std::iter::once(0..shards).collect::<Vec<_>>();
            return Err(missing(file, &format!("case {case}"), &all, shards));
        };
        // Records that do not belong together first: theirs is no disagreement of counts.
        if let Some(problem) = mixed(ledger, file, case, book).or_else(|| case_clash(ledger, file, case, book)) {
            return Err(problem);
        }
        let absent = book.missing(shards);
        if !absent.is_empty() {
            return Err(missing(file, &format!("case {case}"), &absent, shards));
        }
        let (total, fixed) = sums(ledger, file, case, book)?;
        if let Some(problem) = impossible(&book.header, total) {
            return Err(PartsError::Impossible(format!("{file}: case {case}: {problem}")));
        }
        let answer = match book.header.unique {
            None => format!("Case {case}: {total}"),
            Some(group) => {
                let unique = Fixed { group, solutions: fixed }
                    .unique(total)
                    .ok_or_else(|| PartsError::Disagree(format!("{file}: case {case}: {}", crate::unique::mismatch())))?;
                format!("Case {case}: {total} (unique {unique})")
            }
        };
        merged.answers.push(answer);
        let (shards, records) = book.recounts();
        let r = &mut merged.recounted;
        (r.cases, r.shards, r.records) = (r.cases + usize::from(shards > 0), r.shards + shards, r.records + records);
    }
    if let Some(problem) = end_clash(ledger, file, &input.ends) {
        return Err(problem);
    }
    let absent = input.ends.missing(shards);
    if !absent.is_empty() {
        return Err(missing(file, END, &absent, shards));
    }
    let mut ends = input.ends.firsts();
    let first = ends.next();
    if let (Some(first), Some(other)) = (&first, ends.find(|e| Some(&e.says) != first.as_ref().map(|f| &f.says))) {
        return Err(PartsError::Disagree(format!(
            "{file}: the shards disagree on where the input ends: {} says {} cases, {} says {}",
            ledger.place(first.place),
            first.says.cases,
            ledger.place(other.place),
            other.says.cases
        )));
    }
    Ok(first.and_then(|e| e.says.error))
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::tests::{case, end, ledger};
    use super::super::{CaseRecord, Record};
    use super::*;

    /// Two cases over three shards, in a jumbled order.
    pub(in super::super) fn run() -> Vec<Record> {
        vec![case(0, 2, 1, 3, 5), case(0, 1, 0, 3, 1), end(0, 2, 0, 3, None), case(0, 1, 2, 3, 3), case(0, 2, 0, 3, 0), case(0, 1, 1, 3, 2)]
            .into_iter()
            .chain([case(0, 2, 2, 3, 7), end(0, 2, 2, 3, None), end(0, 2, 1, 3, None)])
            .collect()
    }

    /// `record` as another run counted it, with the count `count`.
    pub(in super::super) fn recount(record: &Record, run: &str, count: u128) -> Record {
        match record.clone() {
            Record::Case(c) => Record::Case(Box::new(CaseRecord { run: Some(run.into()), host: Some("other".into()), count, ..*c })),
            Record::End(e) => Record::End(super::super::EndRecord { run: Some(run.into()), ..e }),
        }
    }

    #[test]
    fn complete_shards_add_up_case_by_case() {
        let merged = merge(&ledger(run()));
        assert_eq!(merged, Merged { answers: vec!["Case 1: 6".into(), "Case 2: 12".into()], ..Merged::default() });
    }

    #[test]
    fn a_missing_shard_stops_the_merge_at_its_case() {
        let mut records = run();
        records.remove(0); // case 2, shard 1
        let merged = merge(&ledger(records.clone()));
        assert_eq!(merged.answers, vec!["Case 1: 6"]);
        assert_eq!(merged.problem, Some(PartsError::Incomplete("in: case 2: missing shard 1 of 3".into())));
    }

    #[test]
    fn a_shard_counted_twice_by_one_run_is_named_with_both_places() {
        let mut records = run();
        records.push(case(0, 1, 2, 3, 3));
        let problem = merge(&ledger(records)).problem.unwrap();
        let twice = "in: case 1: shard 2 was counted twice by the same run: parts, line 4 (shard 2) and parts, line 10 (shard 2)";
        assert_eq!(problem, PartsError::Incomplete(twice.into()));
    }

    #[test]
    fn recounts_by_other_runs_that_agree_are_counted_once_and_reported() {
        let mut records = run();
        let recounts: Vec<Record> = records.iter().filter(|r| r.shard().0 == 1).map(|r| recount(r, "r2", count_of(r))).collect();
        records.extend(recounts.clone());
        records.extend(recounts.iter().map(|r| recount(r, "r3", count_of(r))));
        let merged = merge(&ledger(records));
        let recounted = Recounted { cases: 2, shards: 2, records: 4 };
        assert_eq!((merged.answers, merged.problem, merged.recounted), (vec!["Case 1: 6".into(), "Case 2: 12".into()], None, recounted));
    }

    fn count_of(r: &Record) -> u128 {
        match r {
            Record::Case(c) => c.count,
            Record::End(_) => 0,
        }
    }

    #[test]
    fn a_recount_that_disagrees_leaves_its_case_unanswered_and_names_both_counts() {
        let mut records = run();
        records.push(recount(&records[5], "r2", 3)); // case 1, shard 1: 2, then 3
        let merged = merge(&ledger(records));
        assert!(merged.answers.is_empty());
        let problem = merged.problem.unwrap();
        assert_eq!(
            problem,
            PartsError::Disagree(
                "in: case 1: shard 1 was counted differently: parts, line 6 (shard 1; host h, cpu, build 0.1.0+abc) says 2 solutions, \
                 but parts, line 10 (shard 1; host other, cpu, build 0.1.0+abc) says 3 solutions"
                    .into()
            )
        );
    }

    #[test]
    fn counts_that_add_up_past_128_bits_are_refused_naming_the_records() {
        let mut records = run();
        // Case 1, shard 0, forged to 2^128 - 1 with its digest made again; shard 1 then
        // takes the sum past it.
        if let Record::Case(c) = &mut records[1] {
            c.count = u128::MAX;
        }
        let merged = merge(&ledger(records));
        assert!(merged.answers.is_empty());
        let problem = merged.problem.unwrap();
        assert_eq!(
            problem,
            PartsError::Impossible(format!(
                "in: case 1: its shards' counts add up past 2^128 - 1, which no board's count reaches (the sum passes it at \
                 parts, line 6 (shard 1)): a record is wrong, most likely the largest, parts, line 2 (shard 0; host h, cpu, \
                 build 0.1.0+abc), which says {} solutions",
                u128::MAX
            ))
        );
    }

    #[test]
    fn an_empty_boards_count_that_is_not_a_multiple_of_4_is_refused() {
        // One case of side n in two shards that count `counts`, of the board whose hash is `board`.
        let records = |n: usize, board: &str, counts: [u128; 2]| {
            let on = |record: Record| match record {
                Record::Case(c) => Record::Case(Box::new(CaseRecord { n, board: board.into(), ..*c })),
                other => other,
            };
            ledger(vec![on(case(0, 1, 0, 2, counts[0])), on(case(0, 1, 1, 2, counts[1])), end(0, 1, 0, 2, None), end(0, 1, 1, 2, None)])
        };
        let empty = |n: usize| work::sha256(Board::empty(n).unwrap().to_string().as_bytes());
        assert_eq!(merge(&records(8, &empty(8), [90, 2])).answers, ["Case 1: 92"]);
        let merged = merge(&records(8, &empty(8), [90, 3]));
        assert!(merged.answers.is_empty());
        let said = merged.problem.unwrap();
        assert!(matches!(said, PartsError::Impossible(_)));
        assert!(said.to_string().starts_with("in: case 1: its shards add up to 93 solutions, which is not a multiple of 4"), "{said}");
        // A board with obstacles may have any count, and so may an empty board under 6x6.
        assert_eq!(merge(&records(8, "b", [90, 3])).answers, ["Case 1: 93"]);
        assert_eq!(merge(&records(5, &empty(5), [8, 2])).answers, ["Case 1: 10"]);
    }

    #[test]
    fn parts_of_another_board_or_shard_count_do_not_mix() {
        let mut records = run();
        if let Record::Case(c) = &mut records[3] {
            c.board = "other".into();
        }
        assert!(merge(&ledger(records)).problem.unwrap().to_string().contains("is a record of another board than"));
        let mut records = run();
        records.push(case(0, 3, 0, 4, 1));
        assert!(merge(&ledger(records)).problem.unwrap().to_string().contains("shard 0 of 4"));
    }

    /// `record` as run `run` counted it, edited by `edit`.
    fn other(record: &Record, run: &str, edit: impl FnOnce(&mut CaseRecord)) -> Record {
        let Record::Case(c) = recount(record, run, 0) else { unreachable!() };
        let mut c = CaseRecord { count: count_of(record), ..*c };
        edit(&mut c);
        Record::Case(Box::new(c))
    }

    #[test]
    fn records_of_another_board_or_option_are_named_so_not_as_a_disagreement() {
        // Two inputs named alike, of 8x8 and of 6x6, each a shard 0 of case 1.
        let mut records = run();
        records.push(other(&records[1], "r2", |c| (c.board, c.n, c.count) = ("6x6".into(), 6, 4)));
        let problem = merge(&ledger(records)).problem.unwrap();
        let said = "in: case 1: parts, line 10 (shard 0) is a record of another board than parts, line 2 (shard 0): board \
                    sha256 6x6... (6x6) against b... (8x8); part files of two inputs (of one name, say) do not merge";
        assert_eq!(problem, PartsError::Mismatch(said.into()));
        // A recount with --unique beside a count without, or with --no-symmetry.
        let mut records = run();
        records.push(other(&records[5], "r2", |c| c.unique = Some(crate::parts::UniquePart { group: 1, fixed: 0 })));
        let problem = merge(&ledger(records)).problem.unwrap().to_string();
        assert!(problem.contains("parts, line 10 (shard 1) was counted with --unique and parts, line 6 (shard 1) without"), "{problem}");
        let mut records = run();
        records.push(other(&records[5], "r2", |c| (c.no_symmetry, c.plan) = (true, "q".into())));
        let problem = merge(&ledger(records)).problem.unwrap().to_string();
        assert!(problem.contains("parts, line 10 (shard 1) was counted with --no-symmetry and parts, line 6 (shard 1) without"));
    }

    #[test]
    fn an_input_that_ended_in_an_error_says_so_after_its_cases() {
        let records =
            vec![case(0, 1, 0, 2, 4), case(0, 1, 1, 2, 5), end(0, 1, 0, 2, Some("line 9: bad")), end(0, 1, 1, 2, Some("line 9: bad"))];
        let merged = merge(&ledger(records));
        assert_eq!(
            (merged.answers, merged.input_errors, merged.problem),
            (vec!["Case 1: 9".to_string()], vec!["in: line 9: bad".to_string()], None)
        );
    }

    #[test]
    fn a_shard_that_never_finished_leaves_its_input_open() {
        let records: Vec<_> = run().into_iter().filter(|r| !matches!(r, Record::End(e) if e.shard == 1)).collect();
        let merged = merge(&ledger(records));
        assert_eq!(merged.answers.len(), 2);
        assert_eq!(merged.problem, Some(PartsError::Incomplete("in: shard 1 of 3 did not finish the input".into())));
    }
}
