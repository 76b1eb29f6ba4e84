//! `nqueen merge --summary FILE`: the merged total with what it rests on, to publish beside it:
//! per case the board's hash, n, the shards and the split's fingerprint, the count, how
//! many shards were recounted and by how many runs, hosts and builds; and one digest over
//! every record used. It is made from the records alone, in a fixed order, so anyone who
//! holds the same part files, under any names and in any order, makes the same summary.
//!
//! The records' digest is the SHA-256 of their own digests (see [`super::digest`]), sorted,
//! one per line: `sed -E 's/.*,"digest":"([0-9a-f]{64})"}$/\1/' parts/*.jsonl | LC_ALL=C
//! sort | sha256sum` for records of format 2.
//!
//! A summary is replaced only by a later one: a file is taken for one nqueen wrote where
//! the whole of it is a summary, field for field, as nqueen writes it ([`is_written`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::ledger::Ledger;
use super::merge::Merged;
use super::PartsError;
use sha2::{Digest, Sha256};

/// The summary's format.
const FORMAT: u32 = 1;
/// Its `record` field, as of every JSON file nqueen writes.
const RECORD: &str = "summary";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Summary {
    record: String,
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

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    seconds: BTreeMap<String, Seconds>,
    /// Records by how they counted the last rows ("search", "join"), as builds with a table
    /// join wrote it: read, so that their summaries are still known for nqueen's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    methods: BTreeMap<String, usize>,
}

/// Seconds, written as JSON writes a number, and read back exactly from the text (the JSON
/// reader's own may miss by the last bit, and a summary read back must write the same).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Seconds(f64);

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, to: S) -> Result<S::Ok, S::Error> {
        to.serialize_f64(self.0)
    }
}

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(from: D) -> Result<Seconds, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(from)?;
        raw.get().parse().map(Seconds).map_err(|_| serde::de::Error::custom("not a number"))
    }
}

/// The summary of the records of `ledger`, which merged into `merged`, as one JSON document
/// (with a final newline); an error, saying why, where they do not merge into every case's
/// answer. The ledger must have kept what a summary needs (see
/// [`Keep`](super::ledger::Keep)).
pub fn summary(ledger: &Ledger, merged: &Merged) -> Result<String, PartsError> {
    if let Some(problem) = merged.problem.as_ref().or(ledger.refused()) {
        return Err(problem.clone());
    }
    let mut cases = Vec::new();
    for (&input, entry) in &ledger.inputs {
        for (&case, book) in &entry.cases {
            let (recounted_shards, recount_records) = book.recounts();
            // Summed in sorted order, so that the sum does not depend on the records' order.
            let seconds = book
                .sums
                .seconds
                .iter()
                .map(|(&kind, s)| {
                    let mut s = s.clone();
                    s.sort_by(f64::total_cmp);
                    (ledger.name(kind).to_string(), Seconds(s.iter().sum()))
                })
                .collect();
            // The merge has added these up with a check.
            let (count, fixed) = book.firsts().fold((0u128, 0u128), |(c, f), first| (c.saturating_add(first.0), f.saturating_add(first.1)));
            let header = &book.header;
            cases.push(CaseSummary {
                input,
                file: entry.file.clone(),
                case,
                n: header.n,
                board: header.board.clone(),
                shards: ledger.shards(),
                split: header.plan.clone(),
                count,
                unique_fixed: header.unique.map(|_| fixed),
                records: book.sums.records,
                recounted_shards,
                recount_records,
                runs: book.sums.runs.len(),
                hosts: book.sums.hosts.len(),
                seconds,
                methods: BTreeMap::new(),
            });
        }
    }
    // The digest of the records' digests in hex, sorted, one a line: made as it goes, not
    // from the whole list at once.
    let mut listed = Sha256::new();
    for d in &ledger.digests {
        listed.update(crate::words::hex(d).as_bytes());
        listed.update(b"\n");
    }
    let summary = Summary {
        record: RECORD.to_string(),
        format: FORMAT,
        answers: merged.answers.clone(),
        input_errors: merged.input_errors.clone(),
        cases,
        builds: ledger.builds.iter().map(|&b| ledger.name(b).to_string()).collect::<BTreeSet<_>>().into_iter().collect(),
        records: ledger.records,
        records_digest: crate::words::hex(&listed.finalize()),
    };
    Ok(text(&summary))
}

/// `summary` as nqueen writes it: pretty JSON and a final newline.
fn text(summary: &Summary) -> String {
    let mut text = serde_json::to_string_pretty(summary).expect("a summary is plain data");
    text.push('\n');
    text
}

/// Whether `bytes`, the whole of a file, are a summary as nqueen writes one: JSON whose
/// fields are a summary's, each of its kind, written out again to the same bytes. A file
/// with more in it, or a field added, edited or set out otherwise, is not.
pub fn is_written(bytes: &[u8]) -> bool {
    let Ok(read) = std::str::from_utf8(bytes) else { return false };
    match serde_json::from_str::<Summary>(read) {
        Ok(summary) => summary.record == RECORD && summary.format == FORMAT && text(&summary) == read,
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::merge::merge;
    use super::super::merge::tests::{recount, run};
    use super::super::tests::ledger;
    use super::super::Record;
    use super::*;

    #[test]
    fn the_same_records_in_any_order_make_the_same_summary() {
        let mut records = run();
        records.push(recount(&records[5], "r2", 2));
        let summarised = |records: Vec<Record>| {
            let ledger = ledger(records);
            summary(&ledger, &merge(&ledger))
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

    #[test]
    fn a_summary_is_known_as_written_whole_and_unedited_only() {
        let fixture = include_str!("../../fixtures/parts/empty_22.recounted.summary.json");
        assert!(is_written(fixture.as_bytes()));
        let ledger = ledger(run());
        let made = summary(&ledger, &merge(&ledger)).unwrap();
        assert!(is_written(made.as_bytes()));
        // A summary of builds that had a table join names the methods.
        let seconds_end = fixture.find("\n      }\n    }").unwrap() + "\n      }".len();
        let methods = ",\n      \"methods\": {\n        \"search\": 68\n      }";
        assert!(is_written(format!("{}{methods}{}", &fixture[..seconds_end], &fixture[seconds_end..]).as_bytes()));
        let edited = [
            format!("{fixture}// checked by alice\n"),
            format!("{fixture}\n"),
            fixture.trim_end().to_string(),
            fixture.replacen("\"hosts\": 1,", "\"hosts\": 1,\n      \"mine\": \"data\",", 1),
            fixture.replacen("2691008701644,", "2691008701644.0,", 1),
            fixture.replacen("295.951912016", "295.9519120160", 1),
            fixture.replacen("\"format\": 1", "\"format\": 2", 1),
            fixture.replacen("\"record\": \"summary\"", "\"record\": \"summarY\"", 1),
            fixture.replacen("  \"format\"", " \"format\"", 1),
            format!("{{\n  \"record\": \"summary\",\n{}", "note\n".repeat(2000)),
            "{\"record\":\"summary\"} and my thesis".to_string(),
            "{\"record\":\"summary\",\"mine\":\"data\"}".to_string(),
            String::new(),
        ];
        for text in edited {
            assert!(!is_written(text.as_bytes()), "{:?}", &text[text.len().saturating_sub(300)..]);
        }
    }
}
