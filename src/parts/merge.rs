//! Adds up the part records of a sharded run into the answers a plain run would print,
//! after checking that every case has every shard, all counted from the same board and
//! plan, and that every shard counted more than once (by other runs: on other hosts, by
//! the other backend or by another build of the same split) was counted alike.

use super::apart;
use super::ledger::{self, listed, ByShard, Clash, InputLedger, Ledger};
use super::{CaseRecord, Located, PartsError};
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

/// Adds up `records` (every part file's, in any order).
pub fn merge(records: &[Located]) -> Merged {
    let mut merged = Merged::default();
    let ledger = match Ledger::new(records) {
        Ok(ledger) => ledger,
        Err(problem) => return Merged { problem: Some(problem), ..merged },
    };
    let last = ledger.inputs.keys().next_back().copied();
    for index in 0..last.map_or(0, |l| l + 1) {
        let Some(input) = ledger.inputs.get(&index) else {
            merged.problem =
                Some(PartsError::Incomplete(format!("input {} of the sharded run has no records in any part file", index + 1)));
            return merged;
        };
        match merge_input(input, ledger.shards, &mut merged) {
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

/// Why the records of one case, or of one input's ends (`what` says which), cannot be
/// taken: a shard missing, repeated by one run, or counted differently by two; `None`
/// where they can.
fn refusal(file: &str, what: &str, by_shard: &ByShard<'_>, shards: usize) -> Option<PartsError> {
    if let Some(problem) = clash(file, what, by_shard) {
        return Some(problem);
    }
    let missing = by_shard.missing(shards);
    if missing.is_empty() {
        return None;
    }
    let plural = plural(missing.len());
    Some(PartsError::Incomplete(match what {
        END => format!("{file}: shard{plural} {} of {shards} did not finish the input", listed(&missing)),
        _ => format!("{file}: {what}: missing shard{plural} {} of {shards}", listed(&missing)),
    }))
}

/// Why the records of case `case` may not be added up together, if they may not: the
/// first that stands apart from the case's first (see [`apart`]).
pub fn mixed(file: &str, case: usize, by_shard: &ByShard<'_>) -> Option<PartsError> {
    let (why, a, b) = by_shard.apart()?;
    let (ca, cb) = (ledger::case(a)?, ledger::case(b)?);
    Some(PartsError::Mismatch(apart::message(file, case, why, (a, ca), (b, cb))))
}

/// What `refusal` calls an input's end records.
pub const END: &str = "the end of the input";

/// The first shard of a case, or of one input's ends (`what` is [`END`]), that one run
/// counted twice or two runs counted differently, as a message.
pub fn clash(file: &str, what: &str, by_shard: &ByShard<'_>) -> Option<PartsError> {
    if let Some(Clash { shard, first, second }) = by_shard.repeated() {
        let repeated = format!("{file}: {what}: shard {shard} was counted twice by the same run: {} and {}", first.place(), second.place());
        return Some(PartsError::Incomplete(repeated));
    }
    let Clash { shard, first, second } = by_shard.disagreement()?;
    Some(PartsError::Disagree(format!(
        "{file}: {what}: shard {shard} was counted differently: {} says {}, but {} says {}",
        first.origin(),
        said(first),
        second.origin(),
        said(second)
    )))
}

/// What a record says, in a message about a disagreement.
fn said(r: &Located) -> String {
    match (ledger::case(r), ledger::end(r)) {
        (Some(c), _) => match c.unique {
            None => format!("{} solutions", c.count),
            Some(u) => format!("{} solutions ({} fixed by its symmetries)", c.count, u.fixed),
        },
        (_, Some(e)) => format!("{} cases{}", e.cases, e.error.as_ref().map_or(String::new(), |e| format!(", then {e}"))),
        _ => String::new(),
    }
}

/// The solutions of a case's shards, and the solutions its symmetries fix, added up (each
/// shard's first record); an error naming the case and its records where a sum passes
/// 2^128 - 1, which no board's count reaches: a forged or damaged record.
fn sums(file: &str, case: usize, by_shard: &ByShard<'_>) -> Result<(u128, u128), PartsError> {
    let (mut total, mut fixed) = (0u128, 0u128);
    for r in by_shard.firsts() {
        let Some(c) = ledger::case(r) else { continue };
        let added = total.checked_add(c.count).zip(fixed.checked_add(c.unique.map_or(0, |u| u.fixed)));
        let Some(sums) = added else {
            let largest = by_shard.firsts().filter_map(|r| Some((ledger::case(r)?.count, r))).max_by_key(|(count, _)| *count);
            let (count, at) = largest.unwrap_or((c.count, r));
            return Err(PartsError::Impossible(format!(
                "{file}: case {case}: its shards' counts add up past 2^128 - 1, which no board's count reaches \
                 (the sum passes it at {}): a record is wrong, most likely the largest, {}, which says {count} solutions",
                r.place(),
                at.origin()
            )));
        };
        (total, fixed) = sums;
    }
    Ok((total, fixed))
}

/// Why `total` cannot be the count of the board the case record `first` names, if it
/// cannot: every count of an empty board of n >= 6 is a multiple of 4 (Nielsen 2026, arXiv
/// 2601.05856), one more check a forged or damaged record must pass.
fn impossible(first: &CaseRecord, total: u128) -> Option<String> {
    let empty = Board::empty(first.n).ok().filter(|_| first.n >= 6)?;
    if first.board != work::sha256(empty.to_string().as_bytes()) || total.is_multiple_of(4) {
        return None;
    }
    let n = first.n;
    Some(format!(
        "its shards add up to {total} solutions, which is not a multiple of 4, though every count of an empty \
         board of side 6 or more is (Nielsen 2026, arXiv 2601.05856): a record of an empty {n}x{n} board is wrong; \
         count its shards again (nqueen recheck)"
    ))
}

/// Adds up one input's cases into `merged`, stopping at the first that cannot be
/// answered; the error that ended the input early, if one did.
fn merge_input(input: &InputLedger<'_>, shards: usize, merged: &mut Merged) -> Result<Option<String>, PartsError> {
    let file = &input.shown();
    let empty = ByShard::default();
    for case in 1..=input.case_count() {
        let by_shard = input.cases.get(&case).unwrap_or(&empty);
        // Records that do not belong together first: theirs is no disagreement of counts.
        if let Some(problem) = mixed(file, case, by_shard) {
            return Err(problem);
        }
        if let Some(problem) = refusal(file, &format!("case {case}"), by_shard, shards) {
            return Err(problem);
        }
        let first = by_shard
            .all()
            .first()
            .and_then(|r| ledger::case(r))
            .ok_or_else(|| PartsError::Incomplete(format!("{file}: case {case}: no record of it, though the input ends after it")))?;
        let (total, fixed) = sums(file, case, by_shard)?;
        if let Some(problem) = impossible(first, total) {
            return Err(PartsError::Impossible(format!("{file}: case {case}: {problem}")));
        }
        let answer = match first.unique {
            None => format!("Case {case}: {total}"),
            Some(u) => {
                let unique = Fixed { group: u.group, solutions: fixed }
                    .unique(total)
                    .ok_or_else(|| PartsError::Disagree(format!("{file}: case {case}: {}", crate::unique::mismatch())))?;
                format!("Case {case}: {total} (unique {unique})")
            }
        };
        merged.answers.push(answer);
        let (shards, records) = by_shard.recounts();
        let r = &mut merged.recounted;
        (r.cases, r.shards, r.records) = (r.cases + usize::from(shards > 0), r.shards + shards, r.records + records);
    }
    if let Some(problem) = refusal(file, END, &input.ends, shards) {
        return Err(problem);
    }
    let ends: Vec<_> = input.ends.firsts().filter_map(ledger::end).collect();
    if let Some(e) = ends.iter().find(|e| e.cases != ends[0].cases || e.error != ends[0].error) {
        let at = |e| input.ends.firsts().find(|r| ledger::end(r) == Some(e)).map(Located::place).unwrap_or_default();
        return Err(PartsError::Disagree(format!(
            "{file}: the shards disagree on where the input ends: {} says {} cases, {} says {}",
            at(ends[0]),
            ends[0].cases,
            at(e),
            e.cases
        )));
    }
    Ok(ends.first().and_then(|e| e.error.clone()))
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::tests::{case, end, located};
    use super::super::Record;
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
        let merged = merge(&located(run()));
        assert_eq!(merged, Merged { answers: vec!["Case 1: 6".into(), "Case 2: 12".into()], ..Merged::default() });
    }

    #[test]
    fn a_missing_shard_stops_the_merge_at_its_case() {
        let mut records = run();
        records.remove(0); // case 2, shard 1
        let merged = merge(&located(records.clone()));
        assert_eq!(merged.answers, vec!["Case 1: 6"]);
        assert_eq!(merged.problem, Some(PartsError::Incomplete("in: case 2: missing shard 1 of 3".into())));
    }

    #[test]
    fn a_shard_counted_twice_by_one_run_is_named_with_both_places() {
        let mut records = run();
        records.push(case(0, 1, 2, 3, 3));
        let problem = merge(&located(records)).problem.unwrap();
        let twice = "in: case 1: shard 2 was counted twice by the same run: parts, line 4 (shard 2) and parts, line 10 (shard 2)";
        assert_eq!(problem, PartsError::Incomplete(twice.into()));
    }

    #[test]
    fn recounts_by_other_runs_that_agree_are_counted_once_and_reported() {
        let mut records = run();
        let recounts: Vec<Record> = records.iter().filter(|r| r.shard().0 == 1).map(|r| recount(r, "r2", count_of(r))).collect();
        records.extend(recounts.clone());
        records.extend(recounts.iter().map(|r| recount(r, "r3", count_of(r))));
        let merged = merge(&located(records));
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
        let merged = merge(&located(records));
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
        let merged = merge(&located(records));
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
            located(vec![on(case(0, 1, 0, 2, counts[0])), on(case(0, 1, 1, 2, counts[1])), end(0, 1, 0, 2, None), end(0, 1, 1, 2, None)])
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
        assert!(merge(&located(records)).problem.unwrap().to_string().contains("is a record of another board than"));
        let mut records = run();
        records.push(case(0, 3, 0, 4, 1));
        assert!(merge(&located(records)).problem.unwrap().to_string().contains("shard 0 of 4"));
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
        let problem = merge(&located(records)).problem.unwrap();
        let said = "in: case 1: parts, line 10 (shard 0) is a record of another board than parts, line 2 (shard 0): board \
                    sha256 6x6... (6x6) against b... (8x8); part files of two inputs (of one name, say) do not merge";
        assert_eq!(problem, PartsError::Mismatch(said.into()));
        // A recount with --unique beside a count without, or with --no-symmetry.
        let mut records = run();
        records.push(other(&records[5], "r2", |c| c.unique = Some(crate::parts::UniquePart { group: 1, fixed: 0 })));
        let problem = merge(&located(records)).problem.unwrap().to_string();
        assert!(problem.contains("parts, line 10 (shard 1) was counted with --unique and parts, line 6 (shard 1) without"), "{problem}");
        let mut records = run();
        records.push(other(&records[5], "r2", |c| (c.no_symmetry, c.plan) = (true, "q".into())));
        let problem = merge(&located(records)).problem.unwrap().to_string();
        assert!(problem.contains("parts, line 10 (shard 1) was counted with --no-symmetry and parts, line 6 (shard 1) without"));
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
        assert_eq!(merged.problem, Some(PartsError::Incomplete("in: shard 1 of 3 did not finish the input".into())));
    }
}
