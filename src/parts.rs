//! Part records: what a sharded run (`--shard K/M`) writes instead of answer lines, one
//! JSON line per case and one at the end of each input, and how they are read back for
//! [`merge`].

pub mod merge;

use std::io::{self, BufRead};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The records' format; a merge refuses records of another.
pub const FORMAT: u32 = 1;

/// One line of a part file.
#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    /// One case's count over one shard.
    Case(CaseRecord),
    /// The end of one input: how many cases it held, and the error that ended it early.
    End(EndRecord),
}

/// What a line of a part file is, in its `record` field. (The records are not one tagged
/// enum for serde: a tagged enum reads numbers through a buffer that has no 128 bits.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Case,
    End,
}

/// The `record` field alone, to tell which record a line holds.
#[derive(Deserialize)]
struct Tag {
    record: Kind,
}

/// One case's count over one shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseRecord {
    /// Always [`Kind::Case`].
    pub record: Kind,
    pub format: u32,
    /// The nqueen that wrote it.
    pub nqueen: String,
    /// Which input of the run (from 0) and its name.
    pub input: usize,
    pub file: String,
    /// The case, from 1 within its input.
    pub case: usize,
    pub n: usize,
    /// SHA-256 of the board's text (see [`crate::board::Board::to_text`]).
    pub board: String,
    /// What the count was made from: the plan and its split (see [`crate::split::Split::fingerprint`]).
    pub plan: String,
    pub shard: usize,
    pub shards: usize,
    /// Weighted solutions in this shard.
    pub count: u128,
    pub nodes: u128,
    pub backend: String,
    pub seconds: f64,
    /// With `--unique`: what the shard adds to the case's unique count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique: Option<UniquePart>,
}

/// What one shard adds to a case's unique count (see [`crate::unique`]): the board's group
/// size, and the solutions its symmetries fix (counted by shard 0 alone, 0 in the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UniquePart {
    pub group: usize,
    pub fixed: u128,
}

impl From<crate::unique::Fixed> for UniquePart {
    fn from(f: crate::unique::Fixed) -> UniquePart {
        UniquePart { group: f.group, fixed: f.solutions }
    }
}

/// The end of one input in one shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndRecord {
    /// Always [`Kind::End`].
    pub record: Kind,
    pub format: u32,
    pub nqueen: String,
    pub input: usize,
    pub file: String,
    /// How many cases the input held (up to a bad one).
    pub cases: usize,
    pub shard: usize,
    pub shards: usize,
    /// What was wrong with the input after its last good case, as a plain run says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Record {
    /// The record as one line of JSON, newline included.
    pub fn to_line(&self) -> String {
        let mut line = match self {
            Record::Case(r) => serde_json::to_string(r),
            Record::End(r) => serde_json::to_string(r),
        }
        .expect("a record is plain data");
        line.push('\n');
        line
    }

    /// The record one line of JSON holds.
    pub fn from_line(line: &str) -> serde_json::Result<Record> {
        Ok(match serde_json::from_str::<Tag>(line)?.record {
            Kind::Case => Record::Case(serde_json::from_str(line)?),
            Kind::End => Record::End(serde_json::from_str(line)?),
        })
    }

    /// Its format.
    pub fn format(&self) -> u32 {
        match self {
            Record::Case(r) => r.format,
            Record::End(r) => r.format,
        }
    }

    /// The shard and shard count it belongs to.
    pub fn shard(&self) -> (usize, usize) {
        match self {
            Record::Case(r) => (r.shard, r.shards),
            Record::End(r) => (r.shard, r.shards),
        }
    }
}

/// A record and where it was read.
#[derive(Clone, Debug)]
pub struct Located {
    pub record: Record,
    pub file: String,
    /// Line in its file, from 1.
    pub line: usize,
}

impl Located {
    /// Where it was read, for messages: "FILE, line L (shard K)".
    pub fn place(&self) -> String {
        format!("{}, line {} (shard {})", self.file, self.line, self.record.shard().0)
    }
}

/// The records of the part file `path`, in order, up to what is wrong with it, if
/// anything: the first line that is not a part record of this format, or a torn last line.
pub fn read(path: &Path) -> (Vec<Located>, Option<String>) {
    let name = path.display().to_string();
    match std::fs::File::open(path) {
        Ok(file) => read_from(io::BufReader::new(file), &name),
        Err(e) => (Vec::new(), Some(format!("{name}: {e}"))),
    }
}

/// [`read`] from any reader, named `name` in messages.
pub fn read_from(mut src: impl BufRead, name: &str) -> (Vec<Located>, Option<String>) {
    let mut records = Vec::new();
    let mut text = String::new();
    for line in 1.. {
        text.clear();
        match src.read_line(&mut text) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return (records, Some(format!("{name}, line {line}: {e}"))),
        }
        let complete = text.ends_with('\n');
        let problem = match Record::from_line(text.trim_end()) {
            Ok(r) if r.format() != FORMAT => format!("{name}, line {line}: a part record of format {}, expected {FORMAT}", r.format()),
            Ok(record) if complete => {
                records.push(Located { record, file: name.to_string(), line });
                continue;
            }
            _ if !complete => format!("{name}, line {line}: a torn last line (the run that wrote it was stopped mid-write)"),
            Ok(_) => unreachable!("complete lines are taken above"),
            Err(e) => format!("{name}, line {line}: not a part record ({e})"),
        };
        return (records, Some(problem));
    }
    (records, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn case(input: usize, case: usize, shard: usize, shards: usize, count: u128) -> Record {
        Record::Case(CaseRecord {
            record: Kind::Case,
            format: FORMAT,
            nqueen: "test".into(),
            input,
            file: "in".into(),
            case,
            n: 8,
            board: "b".into(),
            plan: "p".into(),
            shard,
            shards,
            count,
            nodes: 1,
            backend: "cpu".into(),
            seconds: 0.5,
            unique: None,
        })
    }

    #[test]
    fn records_round_trip_through_their_lines() {
        let big = case(0, 1, 2, 3, u128::from(u64::MAX) * 10);
        let end = Record::End(EndRecord {
            record: Kind::End,
            format: FORMAT,
            nqueen: "t".into(),
            input: 0,
            file: "in".into(),
            cases: 4,
            shard: 2,
            shards: 3,
            error: None,
        });
        let text = big.to_line() + &end.to_line();
        let (read, problem) = read_from(text.as_bytes(), "parts");
        assert_eq!(problem, None);
        assert_eq!(read.iter().map(|l| l.record.clone()).collect::<Vec<_>>(), vec![big, end]);
        assert_eq!(read[1].place(), "parts, line 2 (shard 2)");
    }

    #[test]
    fn a_torn_or_foreign_line_is_named() {
        let whole = case(0, 1, 0, 1, 92).to_line();
        let torn = format!("{whole}{}", &whole[..whole.len() / 2]);
        let (kept, problem) = read_from(torn.as_bytes(), "p");
        assert_eq!(
            (kept.len(), problem.as_deref()),
            (1, Some("p, line 2: a torn last line (the run that wrote it was stopped mid-write)"))
        );
        assert!(read_from(format!("{whole}Case 1: 92\n").as_bytes(), "p").1.unwrap().starts_with("p, line 2: not a part record"));
        let other = whole.replace("\"format\":1", "\"format\":9");
        assert!(read_from(other.as_bytes(), "p").1.unwrap().contains("format 9, expected 1"));
    }
}
