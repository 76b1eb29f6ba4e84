//! `nqueen merge --summary FILE`: the merged total with what it rests on, to publish beside it:
//! per case the board's hash, n, the shards and the split's fingerprint, the count, how
//! many shards were recounted and by how many runs, hosts and builds; and one digest over
//! every record used. It is made from the records alone, in a fixed order, so anyone who
//! holds the same part files, under any names and in any order, makes the same summary.
//!
//! The records' digest is the SHA-256 of their own digests (see [`super::digest`]), sorted,
//! one per line: `sed -E 's/.*,"digest":"([0-9a-f]{64})"}$/\1/' parts/*.jsonl | LC_ALL=C
//! sort | sha256sum` for records of format 2.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::ledger::{self, Ledger};
use super::merge::Merged;
use super::{Located, PartsError};
use crate::files::digest;

/// The summary's format.
const FORMAT: u32 = 1;

#[derive(Serialize)]
struct Summary {
    record: &'static str,
    format: u32,
    /// What a plain run prints, line by line, and what it says of bad input.
    answers: Vec<String>,
    input_errors: Vec<String>,
    cases: Vec<CaseSummary>,
    /// Every build that wrote a record, sorted.
    builds: Vec<String>,
    /// Records used, case and end records alike, and the digest over them.
    records: usize,
    records_digest: String,
}

#[derive(Serialize)]
struct CaseSummary {
    input: usize,
    file: String,
    case: usize,
    n: usize,
    /// SHA-256 of the board's text.
    board: String,
    shards: usize,
    /// The split's fingerprint.
    split: String,
    count: u128,
    #[serde(skip_serializing_if = "Option::is_none")]
    unique_fixed: Option<u128>,
    /// Records of the case, shards counted more than once and the records beyond each
    /// shard's first, all of which agreed.
    records: usize,
    recounted_shards: usize,
    recount_records: usize,
    runs: usize,
    hosts: usize,
    /// Seconds of counting by backend ("cpu", "gpu"), as the records say.
    seconds: BTreeMap<String, f64>,
}

/// The summary of `records`, which merged into `merged`, as one JSON document (with a
/// final newline); an error, saying why, where they do not merge into every case's answer.
pub fn summary(records: &[Located], merged: &Merged) -> Result<String, PartsError> {
    if let Some(problem) = &merged.problem {
        return Err(problem.clone());
    }
    let ledger = Ledger::new(records)?;
    let mut cases = Vec::new();
    for (&input, entry) in &ledger.inputs {
        for (&case, by_shard) in &entry.cases {
            let all: Vec<_> = by_shard.all().iter().filter_map(|r| ledger::case(r)).collect();
            let firsts: Vec<_> = by_shard.firsts().filter_map(ledger::case).collect();
            let (recounted_shards, recount_records) = by_shard.recounts();
            let mut by_backend: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            for c in &all {
                by_backend.entry(c.backend_kind().to_string()).or_default().push(c.seconds);
            }
            // Summed in sorted order, so that the sum does not depend on the records' order.
            let seconds = by_backend
                .into_iter()
                .map(|(kind, mut s)| {
                    s.sort_by(f64::total_cmp);
                    (kind, s.iter().sum())
                })
                .collect();
            let first = all[0];
            cases.push(CaseSummary {
                input,
                file: entry.file.clone(),
                case,
                n: first.n,
                board: first.board.clone(),
                shards: ledger.shards,
                split: first.plan.clone(),
                count: firsts.iter().map(|c| c.count).sum(),
                unique_fixed: first.unique.map(|_| firsts.iter().filter_map(|c| c.unique).map(|u| u.fixed).sum()),
                records: all.len(),
                recounted_shards,
                recount_records,
                runs: by_shard.all().iter().map(|r| r.record.run()).collect::<BTreeSet<_>>().len(),
                hosts: by_shard.all().iter().map(|r| r.record.host()).collect::<BTreeSet<_>>().len(),
                seconds,
            });
        }
    }
    let mut digests: Vec<&str> = records.iter().map(|r| r.digest.as_str()).collect();
    digests.sort_unstable();
    let listed: String = digests.iter().flat_map(|d| [*d, "\n"]).collect();
    let summary = Summary {
        record: "summary",
        format: FORMAT,
        answers: merged.answers.clone(),
        input_errors: merged.input_errors.clone(),
        cases,
        builds: records.iter().map(|r| r.record.build().to_string()).collect::<BTreeSet<_>>().into_iter().collect(),
        records: records.len(),
        records_digest: digest::of(&listed),
    };
    let mut text = serde_json::to_string_pretty(&summary).expect("a summary is plain data");
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::super::merge::merge;
    use super::super::merge::tests::{recount, run};
    use super::super::tests::located;
    use super::super::Record;
    use super::*;

    #[test]
    fn the_same_records_in_any_order_make_the_same_summary() {
        let mut records = run();
        records.push(recount(&records[5], "r2", 2));
        let summarised = |records: Vec<Record>| {
            let located = located(records);
            summary(&located, &merge(&located))
        };
        let text = summarised(records.clone()).unwrap();
        records.reverse();
        assert_eq!(summarised(records.clone()).unwrap(), text);
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["answers"], serde_json::json!(["Case 1: 6", "Case 2: 12"]));
        assert_eq!((json["records"].as_u64(), json["cases"][0]["recounted_shards"].as_u64()), (Some(10), Some(1)));
        assert_eq!((json["cases"][0]["runs"].as_u64(), json["cases"][0]["hosts"].as_u64()), (Some(2), Some(2)));
        // A disagreeing recount makes no summary.
        records.push(recount(&records[0], "r3", 99));
        assert!(matches!(summarised(records), Err(PartsError::Disagree(why)) if why.contains("counted differently")));
    }
}
