//! Part records: what a sharded run (`--shard K/M`) writes instead of answer lines, one
//! JSON line per case and one at the end of each input, each with where, when and by which
//! build it was made ([`provenance`]) and a digest of its own content ([`digest`](crate::files::digest)); how
//! they are read back, grouped by shard with their recounts ([`ledger`]), and what is made
//! of them: the answers ([`merge`]), how far a run is ([`status`]), which shards to count
//! again ([`recheck`]), and a summary to publish ([`summary`]).

pub mod apart;
pub mod ledger;
pub mod machines;
pub mod merge;
pub mod plot;
pub mod provenance;
mod read;
pub mod recheck;
pub mod status;
pub mod summary;

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use crate::files::{digest, json, FileError};
pub use crate::gpu::Card;
pub use read::{read, read_from, read_into, read_path_into, Located};

/// Why part records give no answer, status, list of shards or summary; each message names
/// the file and line of the record at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PartsError {
    /// A part file could not be read, or a line of it is not a whole part record (torn,
    /// edited, or another kind of line).
    Unreadable(String),
    /// Records that do not belong together: of different splits, numbers of shards,
    /// boards or options.
    Mismatch(String),
    /// A case or input lacks a shard, or one run counted a shard twice.
    Incomplete(String),
    /// Records of one shard, or of one input's end, disagree.
    Disagree(String),
    /// Records that cannot all be right: counts that add up past 2^128 - 1, or a count of
    /// an empty board that no empty board has.
    Impossible(String),
    /// The picture of the run could not be drawn.
    Plot(String),
}

impl std::fmt::Display for PartsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PartsError::Unreadable(why)
            | PartsError::Mismatch(why)
            | PartsError::Incomplete(why)
            | PartsError::Disagree(why)
            | PartsError::Impossible(why)
            | PartsError::Plot(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for PartsError {}

/// The longest name of an input a part record takes, in bytes (Linux's longest path). With
/// the machine and host names bounded too ([`provenance::MAX_MACHINE`]), every record nqueen
/// writes fits in a line its readers take ([`crate::files::MAX_LINE`]), whatever characters
/// the names hold.
pub const MAX_FILE_NAME: usize = 4096;

/// A name too long for a part record (see [`MAX_FILE_NAME`] and
/// [`provenance::MAX_MACHINE`]), by its length in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TooLong {
    /// An input's name, and its first 40 characters to know it by.
    FileName { start: String, bytes: usize },
    /// The machine's name from [`provenance::MACHINE_VARIABLE`].
    Machine { bytes: usize },
    /// The host's name.
    Host { bytes: usize },
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (most, limit) = (provenance::MAX_MACHINE, "a part record takes");
        match self {
            TooLong::FileName { start, bytes } => {
                write!(f, "{start}...: a file name of {bytes} bytes, more than the {MAX_FILE_NAME} {limit}")
            }
            TooLong::Machine { bytes } => write!(f, "{} is {bytes} bytes long, more than the {most} {limit}", provenance::MACHINE_VARIABLE),
            TooLong::Host { bytes } => write!(f, "the host's name is {bytes} bytes long, more than the {most} {limit}"),
        }
    }
}

impl std::error::Error for TooLong {}

/// Why a part record could not take `name`, an input's name, if it could not.
pub fn file_name_fits(name: &str) -> Result<(), TooLong> {
    if name.len() <= MAX_FILE_NAME {
        return Ok(());
    }
    Err(TooLong::FileName { start: name.chars().take(40).collect(), bytes: name.len() })
}

/// The records' format: 2 has provenance and a digest; a merge refuses other formats.
pub const FORMAT: u32 = 2;
/// The oldest format a merge still reads: its records have no provenance and no digest.
pub const OLDEST_FORMAT: u32 = 1;

/// One line of a part file.
#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    /// One case's count over one shard.
    Case(Box<CaseRecord>),
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
    /// SHA-256 of the board's text (as `Display` writes it: see [`crate::board::Board`]).
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
    /// How records of builds that had a table join (up to commit e5ec949) counted the last
    /// rows, "search" or "join(k=K)": read, and not kept.
    #[serde(default, skip_serializing)]
    pub method: IgnoredAny,
    /// With `--unique`: what the shard adds to the case's unique count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique: Option<UniquePart>,
    /// Whether it was counted with `--no-symmetry`, whose plan and split are another's
    /// (written only where it was: records of other runs read as they were).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_symmetry: bool,
    /// The process that counted it (see [`provenance::Provenance`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// When the shard's count started and ended, in UTC (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
    /// The planner's estimate of the shard's search nodes, and of the whole case's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard_nodes: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_nodes: Option<f64>,
    /// The machine that counted it (see [`provenance`]) and what its id was made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_from: Option<String>,
    /// The GPU cards that counted it, each with the seconds it had work in flight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cards: Option<Vec<Card>>,
    /// Seconds of one device (the CPU, or one GPU card) the count took, over every run
    /// that counted part of it (a shard resumed from a checkpoint, or found done there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_seconds: Option<f64>,
    /// Where this run found the shard counted whole in its checkpoint: the run that
    /// counted it. The record is a copy of that run's count, not a second count of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_by: Option<String>,
    /// The line's digest (see [`digest`](crate::files::digest)): checked as the line is read and kept in
    /// [`Located::digest`]; written after the rest by [`Record::to_line`].
    #[serde(default, skip_serializing)]
    pub digest: IgnoredAny,
}

/// What one shard adds to a case's unique count (see [`crate::unique`]): the board's group
/// size, and the solutions its symmetries fix (counted by shard 0 alone, 0 in the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UniquePart {
    pub group: usize,
    pub fixed: u128,
}

impl CaseRecord {
    /// Which kind of counter counted it: its backend without the device, "cpu" or "gpu"
    /// ("checkpoint" where an earlier build's checkpoint held the count without saying how
    /// it was counted).
    pub fn backend_kind(&self) -> &str {
        self.backend.split('(').next().unwrap_or_default()
    }

    /// Seconds of one device the count took: its device-seconds, or the process's seconds
    /// where an earlier build's record has none.
    pub fn device_time(&self) -> f64 {
        self.device_seconds.unwrap_or(self.seconds)
    }
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
    /// The process that wrote it, as in [`CaseRecord`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// The line's digest (see [`digest`](crate::files::digest)): checked as the line is read and kept in
    /// [`Located::digest`]; written after the rest by [`Record::to_line`].
    #[serde(default, skip_serializing)]
    pub digest: IgnoredAny,
}

impl Record {
    /// The record as one line of JSON with its digest last, newline included.
    pub fn to_line(&self) -> String {
        let mut line = self.sealed();
        line.push('\n');
        line
    }

    /// The record as one line of JSON with its digest last, without the newline.
    pub fn sealed(&self) -> String {
        let json = match self {
            Record::Case(r) => serde_json::to_string(r),
            Record::End(r) => serde_json::to_string(r),
        }
        .expect("a record is plain data");
        digest::seal(&json)
    }

    /// The record one line of JSON holds.
    pub fn from_line(line: &str) -> Result<Record, FileError> {
        // Lines nqueen writes say which record they hold first: read once, not twice.
        if line.starts_with("{\"record\":\"case\",") {
            return Ok(Record::Case(Box::new(json::parse(line)?)));
        }
        if line.starts_with("{\"record\":\"end\",") {
            return Ok(Record::End(json::parse(line)?));
        }
        Ok(match json::parse::<Tag>(line)?.record {
            Kind::Case => Record::Case(Box::new(json::parse(line)?)),
            Kind::End => Record::End(json::parse(line)?),
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

    /// The run that wrote it; `None` for a record of format 1.
    pub fn run(&self) -> Option<&str> {
        match self {
            Record::Case(r) => r.run.as_deref(),
            Record::End(r) => r.run.as_deref(),
        }
    }

    /// The host that wrote it, or "unknown".
    pub fn host(&self) -> &str {
        match self {
            Record::Case(r) => r.host.as_deref(),
            Record::End(r) => r.host.as_deref(),
        }
        .unwrap_or("unknown")
    }

    /// The machine that wrote it, as `nqueen status` tells machines apart: its machine id
    /// (or `NQUEEN_MACHINE`'s name), else `host:` and its host name (end records, and case
    /// records of builds that named no machine).
    pub fn machine(&self) -> String {
        match self {
            Record::Case(r) if r.machine.is_some() => r.machine.clone().unwrap_or_default(),
            _ => format!("host:{}", self.host()),
        }
    }

    /// The build that wrote it: its version and commit, or the version alone.
    pub fn build(&self) -> &str {
        match self {
            Record::Case(r) => r.build.as_deref().unwrap_or(&r.nqueen),
            Record::End(r) => r.build.as_deref().unwrap_or(&r.nqueen),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn case(input: usize, case: usize, shard: usize, shards: usize, count: u128) -> Record {
        Record::Case(Box::new(CaseRecord {
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
            method: IgnoredAny,
            unique: None,
            no_symmetry: false,
            run: Some("r1".into()),
            host: Some("h".into()),
            build: Some("0.1.0+abc".into()),
            started: None,
            ended: None,
            shard_nodes: Some(10.0),
            machine: None,
            machine_from: None,
            cards: None,
            device_seconds: None,
            counted_by: None,
            case_nodes: Some(10.0 * shards as f64),
            digest: IgnoredAny,
        }))
    }

    /// An end record of `input` with `cases` cases up to `error`, from run "r1".
    pub(super) fn end(input: usize, cases: usize, shard: usize, shards: usize, error: Option<&str>) -> Record {
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
            run: Some("r1".into()),
            host: Some("h".into()),
            build: Some("0.1.0+abc".into()),
            digest: IgnoredAny,
        })
    }

    #[test]
    fn the_longest_records_nqueen_may_write_are_lines_its_readers_take() {
        // A control character is the worst a name may hold: JSON writes its byte as six.
        let worst = |bytes: usize| "\u{1}".repeat(bytes);
        let Record::Case(mut longest) = case(usize::MAX, usize::MAX, usize::MAX, usize::MAX, u128::MAX) else { unreachable!() };
        longest.file = worst(MAX_FILE_NAME);
        longest.host = Some(worst(provenance::MAX_MACHINE));
        longest.machine = Some(worst(provenance::MAX_MACHINE));
        longest.machine_from = Some(provenance::MACHINE_VARIABLE.into());
        // Sixteen cards, each named by its driver in at most 256 bytes.
        let card = |i| Card { uuid: format!("GPU-{i:036}"), model: Some("M".repeat(256)), seconds: f64::MIN, prefixes: u64::MAX };
        longest.cards = Some((0..16).map(card).collect());
        longest.backend = format!("gpu({})", "M".repeat(16 * 260));
        (longest.board, longest.plan) = ("b".repeat(64), "p".repeat(64));
        longest.unique = Some(UniquePart { group: usize::MAX, fixed: u128::MAX });
        (longest.started, longest.ended) = (Some("2026-11-25T19:21:52Z".into()), Some("2026-11-25T19:21:52Z".into()));
        (longest.seconds, longest.device_seconds, longest.shard_nodes, longest.case_nodes) =
            (f64::MIN, Some(f64::MIN), Some(f64::MIN), Some(f64::MIN));
        longest.counted_by = longest.run.clone();
        let Record::End(mut end) = end(usize::MAX, usize::MAX, usize::MAX, usize::MAX, Some(&worst(1024))) else { unreachable!() };
        end.file = worst(MAX_FILE_NAME);
        end.host = Some(worst(provenance::MAX_MACHINE));
        for record in [Record::Case(longest), Record::End(end)] {
            let line = record.to_line();
            assert!(line.len() <= crate::files::MAX_LINE, "{} bytes", line.len());
            let (read, problem) = read_from(line.as_bytes(), "parts");
            assert_eq!((read.len(), problem), (1, None));
        }
    }

    /// `records` as a part file named "parts" would hold them.
    pub(super) fn located(records: Vec<Record>) -> Vec<Located> {
        let text: String = records.iter().map(Record::to_line).collect();
        let (read, problem) = read_from(text.as_bytes(), "parts");
        assert_eq!(problem, None);
        read
    }

    /// `records`, read from a part file named "parts", in a closed ledger that keeps
    /// what a summary and a picture need.
    pub(super) fn ledger(records: Vec<Record>) -> ledger::Ledger {
        ledger::Ledger::of(located(records), ledger::Keep { summary: true, plot: true })
    }
}
