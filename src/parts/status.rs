//! `nqueen status`: how far a sharded run has got. Per case: the shards in, recounted
//! and disagreeing, the share of the planner's estimated work done (shards differ in
//! size), and per backend the device time spent, the rate so far and the device-hours left
//! at that rate; as a short table, the problems that stop a merge, and one JSON line for
//! scripts.

use std::collections::BTreeMap;

use serde::Serialize;

use super::ledger::{listed, listed_briefly, CaseBook, Ledger};
use super::merge::{case_clash, end_clash, mixed};
use crate::words::{counted, plural, quoted_input};

/// Ranges of missing shards a line lists, at most.
const LISTED: usize = 12;

/// What the status says: its lines, and whether every case can be answered.
pub struct Status {
    pub lines: Vec<String>,
    pub complete: bool,
}

/// The status as one JSON line.
#[derive(Serialize)]
struct StatusLine<'a> {
    record: &'static str,
    shards: usize,
    /// Whether every case can be answered.
    complete: bool,
    cases: &'a [CaseStatus],
}

/// One case's progress.
#[derive(Serialize)]
struct CaseStatus {
    input: usize,
    file: String,
    case: usize,
    /// Side length, where a record says it.
    n: Option<usize>,
    shards: usize,
    /// Shards with at least one record.
    done: usize,
    /// Shards with records from more than one run, and records beyond each shard's first.
    recounted: usize,
    recounts: usize,
    /// Shards whose records disagree, or that one run counted twice.
    disagree: usize,
    repeated: usize,
    /// Records that stand apart from the case's first: of another board, option or split.
    apart: usize,
    /// Shards with no record, as ranges ("0-3, 7").
    missing: String,
    /// The planner's estimate of the case's search nodes, where a record gives it.
    case_nodes: Option<f64>,
    /// The share of the case's estimated nodes in the shards done (of its shards, where
    /// no record gives estimates).
    work_done: f64,
    backends: BTreeMap<String, BackendStatus>,
}

/// What one backend did of a case.
#[derive(Default, Serialize)]
struct BackendStatus {
    /// Records (first counts and recounts alike).
    records: usize,
    /// Device-seconds the counts took, as their records say (for a shard resumed from a
    /// checkpoint, every run's), as `nqueen status --by host` counts them.
    seconds: f64,
    /// Estimated search nodes a second, over its records that took time.
    rate: Option<f64>,
    /// The case's estimated nodes not yet counted, at that rate, in hours.
    hours_left: Option<f64>,
}

/// The status of the records of `ledger` (every part file's, in any order, closed).
pub fn status(ledger: &Ledger) -> Status {
    if let Some(problem) = ledger.refused() {
        return Status { lines: vec![problem.to_string()], complete: false };
    }
    let shards = ledger.shards();
    let (mut cases, mut problems, mut absent) = (Vec::new(), Vec::new(), 0);
    for (&index, input) in &ledger.inputs {
        let file = input.shown();
        let mut next = 1;
        for (&case, book) in &input.cases {
            if case > next {
                problems.push(no_record(&file, next..case, shards));
                absent += case - next;
            }
            next = next.max(case + 1);
            cases.push(case_status(ledger, index, &input.file, case, book, shards));
            problems.extend(mixed(ledger, &file, case, book).map(|p| p.to_string()));
            problems.extend(case_clash(ledger, &file, case, book).map(|p| p.to_string()));
            let missing = book.missing(shards);
            if !missing.is_empty() {
                let done: usize = shards - missing.iter().map(ExactSizeIterator::len).sum::<usize>();
                problems.push(format!("{file}: case {case}: {done} of {shards} shards in, missing {}", listed_briefly(&missing, LISTED)));
            }
        }
        if input.case_count() >= next {
            problems.push(no_record(&file, next..input.case_count() + 1, shards));
            absent += input.case_count() + 1 - next;
        }
        problems.extend(end_clash(ledger, &file, &input.ends).map(|p| p.to_string()));
        let missing = input.ends.missing(shards);
        if !missing.is_empty() {
            let plural = plural(missing.iter().map(ExactSizeIterator::len).sum());
            problems.push(format!("{file}: not finished by shard{plural} {}", listed_briefly(&missing, LISTED)));
        }
    }
    let answered = cases.iter().filter(|c| c.done == shards && c.disagree == 0 && c.repeated == 0 && c.apart == 0).count();
    let total = cases.len() + absent;
    let complete = answered == total && problems.is_empty();
    let mut lines = table(&cases);
    lines.extend(problems);
    let inputs = ledger.inputs.len();
    lines.push(format!("{answered} of {total} cases complete in {inputs} input{} of {}", plural(inputs), counted(shards, "shard")));
    let json = StatusLine { record: "status", shards, complete, cases: &cases };
    lines.push(serde_json::to_string(&json).expect("a status is plain data"));
    Status { lines, complete }
}

/// Cases of the input `file` that no record names, though the input holds them.
fn no_record(file: &str, cases: std::ops::Range<usize>, shards: usize) -> String {
    let which = match cases.len() {
        1 => format!("case {}", cases.start),
        _ => format!("cases {}-{}", cases.start, cases.end - 1),
    };
    format!("{file}: {which}: 0 of {shards} shards in, no record in any part file")
}

/// The progress of case `case` of input `index` (named `file`) over `shards` shards.
fn case_status(ledger: &Ledger, index: usize, file: &str, case: usize, book: &CaseBook, shards: usize) -> CaseStatus {
    let case_nodes = book.case_nodes;
    // A shard's estimate, or its width of the case's where its record has none: the split
    // cuts the case into shards of equal estimated work.
    let done_nodes = (book.unestimated == 0).then_some(book.done_nodes);
    let work_done = match (done_nodes, case_nodes) {
        (Some(done), Some(all)) if all > 0.0 => (done / all).min(1.0),
        _ => book.done as f64 / shards as f64,
    };
    let left = case_nodes.zip(done_nodes).map(|(all, done)| (all - done).max(0.0));
    let backends = book
        .backends
        .iter()
        .map(|(&kind, b)| {
            let (nodes, seconds) = b.timed;
            let rate = (seconds > 0.0).then(|| nodes / seconds);
            // No rate, no time left to tell: a case of nothing but tiny shards.
            let hours_left = rate.and(left).filter(|_| nodes > 0.0).map(|l| l / (nodes / seconds) / 3600.0);
            (ledger.name(kind).to_string(), BackendStatus { records: b.records, seconds: b.seconds, rate, hours_left })
        })
        .collect();
    let (recounted, recounts) = book.recounts();
    CaseStatus {
        input: index,
        file: file.to_string(),
        case,
        n: Some(book.header.n),
        shards,
        done: book.done,
        recounted,
        recounts,
        disagree: book.groups.values().filter(|g| g.dissent.is_some()).count(),
        repeated: book.groups.values().filter(|g| g.repeat.is_some()).count(),
        apart: book.apart,
        missing: listed(&book.missing(shards)),
        case_nodes,
        work_done,
        backends,
    }
}

/// The cases as a table: a row per case and backend.
fn table(cases: &[CaseStatus]) -> Vec<String> {
    let mut lines = vec![format!(
        "{:<24} {:>3} {:>8} {:>8} {:>9} {:>8} {:>9}  {:<10} {:>7} {:>12} {:>9} {:>12}",
        "case", "n", "shards", "done", "recounted", "disagree", "work done", "backend", "records", "device-hours", "nodes/s", "hours left"
    )];
    for c in cases {
        let name = format!("{}:{}", quoted_input(c.file.rsplit('/').next().unwrap_or(&c.file)), c.case);
        let n = c.n.map_or("-".to_string(), |n| n.to_string());
        let head = format!(
            "{name:<24} {n:>3} {:>8} {:>8} {:>9} {:>8} {:>8.2}%",
            c.shards,
            c.done,
            c.recounted,
            c.disagree + c.repeated + c.apart,
            100.0 * c.work_done
        );
        let blank = " ".repeat(head.chars().count());
        if c.backends.is_empty() {
            lines.push(head.clone());
        }
        for (i, (kind, b)) in c.backends.iter().enumerate() {
            let rate = b.rate.map_or("-".to_string(), |r| format!("{r:.2e}"));
            let left = b.hours_left.map_or("-".to_string(), |h| format!("{h:.3}"));
            let hours = b.seconds / 3600.0;
            let lead = if i == 0 { &head } else { &blank };
            lines.push(format!("{lead}  {kind:<10} {:>7} {hours:>12.4} {rate:>9} {left:>12}", b.records));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::super::merge::tests::{recount, run};
    use super::super::tests::{case, end, ledger};
    use super::super::{CaseRecord, Record};
    use super::*;

    #[test]
    fn a_complete_run_says_so_with_its_work_and_rate() {
        let status = status(&ledger(run()));
        assert!(status.complete, "{:?}", status.lines);
        assert_eq!(status.lines[status.lines.len() - 2], "2 of 2 cases complete in 1 input of 3 shards");
        let json: serde_json::Value = serde_json::from_str(status.lines.last().unwrap()).unwrap();
        let case = &json["cases"][0];
        assert_eq!((case["done"].as_u64(), case["work_done"].as_f64(), case["missing"].as_str()), (Some(3), Some(1.0), Some("")));
        // Three records of 10 estimated nodes each in 0.5 s.
        assert_eq!(case["backends"]["cpu"]["rate"].as_f64(), Some(20.0));
        assert_eq!(case["backends"]["cpu"]["hours_left"].as_f64(), Some(0.0));
    }

    #[test]
    fn device_time_is_the_records_device_seconds_where_they_have_them() {
        // The same three records, each 0.5 s of process but 0.25 s of device.
        let records: Vec<Record> = run()
            .into_iter()
            .map(|r| match r {
                Record::Case(c) => Record::Case(Box::new(CaseRecord { device_seconds: Some(0.25), ..*c })),
                other => other,
            })
            .collect();
        let status = status(&ledger(records));
        let json: serde_json::Value = serde_json::from_str(status.lines.last().unwrap()).unwrap();
        let cpu = &json["cases"][0]["backends"]["cpu"];
        assert_eq!((cpu["seconds"].as_f64(), cpu["rate"].as_f64()), (Some(0.75), Some(40.0)));
    }

    #[test]
    fn records_of_another_board_are_listed_as_such_not_as_a_disagreement() {
        let mut records = run();
        let Record::Case(c) = recount(&records[1], "r2", 4) else { unreachable!() };
        records.push(Record::Case(Box::new(CaseRecord { board: "6x6".into(), n: 6, ..*c })));
        let located = ledger(records);
        let status = status(&located);
        assert!(!status.complete);
        assert!(status.lines.iter().any(|l| l.starts_with("in: case 1: parts, line 10 (shard 0) is a record of another board")));
        assert!(!status.lines.iter().any(|l| l.contains("counted differently")), "{:?}", status.lines);
        let json: serde_json::Value = serde_json::from_str(status.lines.last().unwrap()).unwrap();
        assert_eq!((json["cases"][0]["apart"].as_u64(), json["cases"][0]["disagree"].as_u64()), (Some(1), Some(0)));
        let machines = super::super::machines::machines(&located, false, std::time::Duration::from_secs(3600)).unwrap();
        assert!(machines.machines.iter().all(|m| !m.flags.contains(&"disagrees")), "{:?}", machines.machines);
        let chosen = super::super::recheck::choose(&located, 0.5, 1);
        assert!(matches!(chosen, Err(crate::parts::PartsError::Mismatch(why)) if why.contains("another board")));
    }

    #[test]
    fn a_forged_number_of_shards_or_cases_costs_no_more_than_its_records() {
        // Shard 5 of 2^62, of case 10^15: the status and merge name what is missing at once.
        let huge = 1usize << 62;
        let records = ledger(vec![case(0, 1_000_000_000_000_000, 5, huge, 1), end(0, 1_000_000_000_000_000, 5, huge, None)]);
        let status = status(&records);
        assert!(!status.complete);
        let missing = format!("missing 0-4, 6-{}", huge - 1);
        assert!(
            status.lines.iter().any(|l| l.starts_with("in: case 1000000000000000: 1 of") && l.ends_with(&missing)),
            "{:?}",
            status.lines
        );
        assert!(status.lines.iter().any(|l| l.starts_with("in: cases 1-999999999999999: 0 of")), "{:?}", status.lines);
        let merged = super::super::merge::merge(&records);
        assert_eq!(merged.problem.unwrap().to_string(), format!("in: case 1: missing shards 0-{} of {huge}", huge - 1));
    }

    #[test]
    fn missing_shards_recounts_and_disagreements_are_listed() {
        let mut records = run();
        records.remove(0); // case 2, shard 1
        records.push(recount(&records[0], "r2", 1)); // case 1, shard 0 counted again, alike
        records.push(recount(&records[2], "r3", 4)); // case 1, shard 2: 3, then 4
        let status = status(&ledger(records));
        assert!(!status.complete);
        assert!(status.lines.contains(&"in: case 2: 2 of 3 shards in, missing 1".to_string()), "{:?}", status.lines);
        assert!(status.lines.iter().any(|l| l.starts_with("in: case 1: shard 2 was counted differently")));
        let json: serde_json::Value = serde_json::from_str(status.lines.last().unwrap()).unwrap();
        let (one, two) = (&json["cases"][0], &json["cases"][1]);
        assert_eq!((one["recounted"].as_u64(), one["disagree"].as_u64()), (Some(2), Some(1)));
        assert_eq!((two["done"].as_u64(), two["missing"].as_str()), (Some(2), Some("1")));
        assert!((two["work_done"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
        assert!((two["backends"]["cpu"]["hours_left"].as_f64().unwrap() - 10.0 / 20.0 / 3600.0).abs() < 1e-12);
    }
}
