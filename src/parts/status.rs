//! `nqueen status`: how far a sharded run has got. Per case: the shards in, recounted
//! and disagreeing, the share of the planner's estimated work done (shards differ in
//! size), and per backend the device time spent, the rate so far and the device-hours left
//! at that rate; as a short table, the problems that stop a merge, and one JSON line for
//! scripts.

use std::collections::BTreeMap;

use serde::Serialize;

use super::ledger::{self, listed, listed_briefly, ByShard, Ledger};
use super::merge::{clash, mixed, END};
use super::Located;
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

/// The status of `records` (every part file's, in any order).
pub fn status(records: &[Located]) -> Status {
    let ledger = match Ledger::new(records) {
        Ok(ledger) => ledger,
        Err(problem) => return Status { lines: vec![problem.to_string()], complete: false },
    };
    let shards = ledger.shards;
    let (mut cases, mut problems) = (Vec::new(), Vec::new());
    let empty = ByShard::default();
    for (&index, input) in &ledger.inputs {
        for case in 1..=input.case_count() {
            let by_shard = input.cases.get(&case).unwrap_or(&empty);
            cases.push(case_status(index, &input.file, case, by_shard, shards));
            problems.extend(mixed(&input.shown(), case, by_shard).map(|p| p.to_string()));
            problems.extend(clash(&input.shown(), &format!("case {case}"), by_shard).map(|p| p.to_string()));
            let missing = by_shard.missing(shards);
            if !missing.is_empty() {
                let file = input.shown();
                problems.push(format!(
                    "{file}: case {case}: {} of {shards} shards in, missing {}",
                    shards - missing.len(),
                    listed_briefly(&missing, LISTED)
                ));
            }
        }
        problems.extend(clash(&input.shown(), END, &input.ends).map(|p| p.to_string()));
        let missing = input.ends.missing(shards);
        if !missing.is_empty() {
            let plural = plural(missing.len());
            problems.push(format!("{}: not finished by shard{plural} {}", input.shown(), listed_briefly(&missing, LISTED)));
        }
    }
    let answered = cases.iter().filter(|c| c.done == shards && c.disagree == 0 && c.repeated == 0 && c.apart == 0).count();
    let complete = answered == cases.len() && problems.is_empty();
    let mut lines = table(&cases);
    lines.extend(problems);
    let inputs = ledger.inputs.len();
    lines.push(format!("{answered} of {} cases complete in {inputs} input{} of {}", cases.len(), plural(inputs), counted(shards, "shard")));
    let json = StatusLine { record: "status", shards, complete, cases: &cases };
    lines.push(serde_json::to_string(&json).expect("a status is plain data"));
    Status { lines, complete }
}

/// The progress of case `case` of input `index` (named `file`) over `shards` shards.
fn case_status(index: usize, file: &str, case: usize, by_shard: &ByShard<'_>, shards: usize) -> CaseStatus {
    let records: Vec<_> = by_shard.all().iter().filter_map(|r| ledger::case(r)).collect();
    let case_nodes = records.iter().find_map(|c| c.case_nodes);
    // A shard's estimate, or its width of the case's where its record has none: the split
    // cuts the case into shards of equal estimated work.
    let width = case_nodes.map(|c| c / shards as f64);
    let estimate = |r: &Located| ledger::case(r).and_then(|c| c.shard_nodes).or(width);
    let firsts: Vec<&Located> = by_shard.firsts().collect();
    let done_nodes: Option<f64> = firsts.iter().map(|r| estimate(r)).sum();
    let work_done = match (done_nodes, case_nodes) {
        (Some(done), Some(all)) if all > 0.0 => (done / all).min(1.0),
        _ => firsts.len() as f64 / shards as f64,
    };
    let left = case_nodes.zip(done_nodes).map(|(all, done)| (all - done).max(0.0));
    let mut backends: BTreeMap<String, BackendStatus> = BTreeMap::new();
    let mut timed: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for (r, c) in by_shard.all().iter().zip(&records) {
        let kind = c.backend_kind().to_string();
        let b = backends.entry(kind.clone()).or_default();
        b.records += 1;
        let seconds = c.device_time();
        b.seconds += seconds;
        if let (Some(nodes), true) = (estimate(r), seconds > 0.0) {
            let t = timed.entry(kind).or_default();
            *t = (t.0 + nodes, t.1 + seconds);
        }
    }
    for (kind, (nodes, seconds)) in timed {
        let b = backends.entry(kind).or_default();
        b.rate = Some(nodes / seconds);
        // No rate, no time left to tell: a case of nothing but tiny shards.
        b.hours_left = left.filter(|_| nodes > 0.0).map(|l| l / (nodes / seconds) / 3600.0);
    }
    let disagree = by_shard.groups().filter(|g| ledger::dissent_in(g).is_some()).count();
    let repeated = by_shard.groups().filter(|g| ledger::repeat_in(g).is_some()).count();
    let (recounted, recounts) = by_shard.recounts();
    let apart = records.first().map_or(0, |first| records.iter().filter(|c| super::apart::apart(first, c).is_some()).count());
    CaseStatus {
        input: index,
        file: file.to_string(),
        case,
        n: records.first().map(|c| c.n),
        shards,
        done: firsts.len(),
        recounted,
        recounts,
        disagree,
        repeated,
        apart,
        missing: listed(&by_shard.missing(shards)),
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
    use super::super::tests::located;
    use super::super::{CaseRecord, Record};
    use super::*;

    #[test]
    fn a_complete_run_says_so_with_its_work_and_rate() {
        let status = status(&located(run()));
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
        let status = status(&located(records));
        let json: serde_json::Value = serde_json::from_str(status.lines.last().unwrap()).unwrap();
        let cpu = &json["cases"][0]["backends"]["cpu"];
        assert_eq!((cpu["seconds"].as_f64(), cpu["rate"].as_f64()), (Some(0.75), Some(40.0)));
    }

    #[test]
    fn records_of_another_board_are_listed_as_such_not_as_a_disagreement() {
        let mut records = run();
        let Record::Case(c) = recount(&records[1], "r2", 4) else { unreachable!() };
        records.push(Record::Case(Box::new(CaseRecord { board: "6x6".into(), n: 6, ..*c })));
        let located = located(records);
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
    fn missing_shards_recounts_and_disagreements_are_listed() {
        let mut records = run();
        records.remove(0); // case 2, shard 1
        records.push(recount(&records[0], "r2", 1)); // case 1, shard 0 counted again, alike
        records.push(recount(&records[2], "r3", 4)); // case 1, shard 2: 3, then 4
        let status = status(&located(records));
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
