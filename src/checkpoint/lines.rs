//! A checkpoint's lines: one JSON object each, a header first, then units and cases; and
//! reading them back up to a torn last line.

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Seek, SeekFrom};

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use super::torn::cut_short;
use crate::files::digest::{self, Unsealed};
use crate::files::json::{self, JsonError};
use crate::files::lines::{self as bounded, LineError, Lines};
use crate::files::{FileError, MAX_LINE};

/// The file's format; a checkpoint of another is refused.
pub(super) use crate::files::kind::CHECKPOINT_FORMAT as FORMAT;

/// One line of a checkpoint.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Line {
    /// The first line: who wrote the file.
    Header(HeaderLine),
    /// Some prefixes of a case, counted.
    Unit(UnitLine),
    /// A whole case (of its shard), counted.
    Case(CaseLine),
}

/// What a line is, in its `record` field. (The lines are not one tagged enum for serde: a
/// tagged enum reads numbers through a buffer that has no 128 bits.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Kind {
    Header,
    Unit,
    Case,
}

/// The `record` field alone, to tell which line a line is.
#[derive(Deserialize)]
struct Tag {
    record: Kind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct HeaderLine {
    pub(super) record: Kind,
    pub(super) format: u32,
    pub(super) nqueen: String,
    /// The line's digest (see [`digest`]), checked as the line is read.
    #[serde(default, skip_serializing)]
    pub(super) digest: IgnoredAny,
}

/// Case `case` of input `input` (from 0), whose board's hash is `board`, counted as shard
/// `shard` of `shards` from the plan `plan`: its units `ranges` counted `solutions` in
/// `device_seconds` (a second of one CPU or one GPU card; lines of earlier builds say none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct UnitLine {
    pub(super) record: Kind,
    pub(super) input: usize,
    pub(super) case: usize,
    pub(super) board: String,
    pub(super) shard: usize,
    pub(super) shards: usize,
    pub(super) plan: String,
    pub(super) ranges: Vec<[usize; 2]>,
    pub(super) solutions: u128,
    pub(super) nodes: u128,
    #[serde(default)]
    pub(super) device_seconds: f64,
    /// The line's digest (see [`digest`]), checked as the line is read.
    #[serde(default, skip_serializing)]
    pub(super) digest: IgnoredAny,
}

/// The same of a whole case (of its shard).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CaseLine {
    pub(super) record: Kind,
    pub(super) input: usize,
    pub(super) case: usize,
    pub(super) board: String,
    pub(super) shard: usize,
    pub(super) shards: usize,
    pub(super) plan: String,
    pub(super) solutions: u128,
    pub(super) nodes: u128,
    #[serde(default)]
    pub(super) device_seconds: f64,
    /// The backend of the last run that counted it (lines of earlier builds say nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) backend: Option<String>,
    /// That run's id (see [`crate::parts::provenance`]), which a later run that finds the
    /// case here names in its part record (lines of earlier builds say nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) run: Option<String>,
    /// How lines of builds that had a table join (up to commit e5ec949) say the last rows
    /// were counted: read, and not kept.
    #[serde(default, skip_serializing)]
    pub(super) method: IgnoredAny,
    /// The line's digest (see [`digest`]), checked as the line is read.
    #[serde(default, skip_serializing)]
    pub(super) digest: IgnoredAny,
}

impl Line {
    /// The line as one line of JSON with its digest last, newline included.
    pub(super) fn to_text(&self) -> String {
        let json = match self {
            Line::Header(l) => serde_json::to_string(l),
            Line::Unit(l) => serde_json::to_string(l),
            Line::Case(l) => serde_json::to_string(l),
        }
        .expect("a checkpoint line is plain data");
        let mut text = digest::seal(&json);
        text.push('\n');
        text
    }

    /// The line one line of JSON holds, and whether it carries its digest; or what is wrong
    /// with it. Its digest must match it; lines of builds before the digest carry none, and
    /// may lack it unless `sealed` (a line before it carried one).
    pub(super) fn from_text(text: &str, sealed: bool) -> Result<(Line, bool), NotALine> {
        // What is wrong with a line's fields says more than its digest does.
        let line = match json::parse::<Tag>(text)?.record {
            Kind::Header => Line::Header(json::parse(text)?),
            Kind::Unit => Line::Unit(json::parse(text)?),
            Kind::Case => Line::Case(json::parse(text)?),
        };
        match digest::check(text) {
            Err(Unsealed::Mismatch) => Err(NotALine::Edited),
            Err(Unsealed::Missing) if sealed => Err(NotALine::Unsealed),
            Err(Unsealed::Missing) => Ok((line, false)),
            Ok(_) => Ok((line, true)),
        }
    }
}

/// Why a line of a checkpoint is not a checkpoint line.
#[derive(Debug)]
pub(super) enum NotALine {
    /// Its digest does not match its content.
    Edited,
    /// It has no digest, in a checkpoint whose every line has one.
    Unsealed,
    /// It is not UTF-8, or not JSON of a checkpoint line.
    File(FileError),
}

impl fmt::Display for NotALine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotALine::Edited => f.write_str("its digest does not match its content: the line was edited or damaged after it was written"),
            NotALine::Unsealed => f.write_str(
                "it lacks the digest of 64 hex digits that ends every line of this checkpoint: the line was edited or damaged after it was written",
            ),
            NotALine::File(e) => e.fmt(f),
        }
    }
}

impl From<FileError> for NotALine {
    fn from(e: FileError) -> NotALine {
        NotALine::File(e)
    }
}

impl From<JsonError> for NotALine {
    fn from(e: JsonError) -> NotALine {
        NotALine::File(e.into())
    }
}

/// Why a checkpoint's lines could not be read.
pub(super) enum ReadError {
    Io(io::Error),
    /// Line `line`, not the last, is not a checkpoint line, or is longer than any.
    BadLine {
        line: usize,
        why: String,
    },
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

impl From<LineError> for ReadError {
    fn from(e: LineError) -> ReadError {
        match e {
            LineError::Io { error, .. } => ReadError::Io(error),
            LineError::TooLong { line, .. } => {
                ReadError::BadLine { line, why: format!("longer than {MAX_LINE} bytes, more than any checkpoint line") }
            }
        }
    }
}

/// The checkpoint lines of `file`, the bytes up to the end of the last whole one, and the
/// number of a torn last line if there is one: the start of a checkpoint line with no
/// newline after it, as a run stopped mid-write leaves ([`cut_short`]). Any other line that
/// is not a checkpoint line, the last one too, is an error.
pub(super) fn read_lines(file: &mut File) -> Result<(Vec<Line>, u64, Option<usize>), ReadError> {
    file.seek(SeekFrom::Start(0))?;
    let mut reader = Lines::new(BufReader::new(&*file), MAX_LINE);
    let (mut lines, mut kept) = (Vec::new(), 0u64);
    // Once a line carries a digest, so must every line after it: a build that seals its
    // lines never writes an unsealed one after a sealed one.
    let mut sealed = false;
    while let Some(line) = reader.next()? {
        let (number, bytes, ended) = (line.number, line.bytes, line.ended);
        if line.text.trim_ascii().is_empty() {
            return Err(ReadError::BadLine { line: number, why: "not a checkpoint line: it is blank".into() });
        }
        // Only the last line can lack its newline.
        let parsed = bounded::text(line.text).map_err(NotALine::from).and_then(|text| {
            let (parsed, carries) = Line::from_text(text, sealed)?;
            sealed |= carries;
            Ok(parsed)
        });
        match parsed {
            Ok(line) if ended => {
                lines.push(line);
                kept += bytes as u64;
            }
            Ok(_) => return Ok((lines, kept, Some(number))),
            Err(_) if !ended && cut_short(line.text) => return Ok((lines, kept, Some(number))),
            Err(why) => return Err(ReadError::BadLine { line: number, why: format!("not a checkpoint line: {why}") }),
        }
    }
    Ok((lines, kept, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines() -> [String; 3] {
        let unit = UnitLine {
            record: Kind::Unit,
            input: 0,
            case: 12,
            board: "ab27".into(),
            shard: 3,
            shards: 64,
            plan: "0f1e".into(),
            ranges: vec![[0, 5], [9, 17]],
            solutions: 1 << 70,
            nodes: 123_456,
            device_seconds: 1.25e-3,
            digest: IgnoredAny,
        };
        let case = CaseLine {
            record: Kind::Case,
            input: 1,
            case: 2,
            board: "cd".into(),
            shard: 0,
            shards: 1,
            plan: "0a".into(),
            solutions: 92,
            nodes: 9,
            device_seconds: 0.5,
            backend: Some("gpu(NVIDIA H200 \u{d7}8)".into()),
            run: Some("0123abcd".into()),
            method: IgnoredAny,
            digest: IgnoredAny,
        };
        let header = HeaderLine { record: Kind::Header, format: FORMAT, nqueen: "0.1.0".into(), digest: IgnoredAny };
        [Line::Unit(unit).to_text(), Line::Case(case).to_text(), Line::Header(header).to_text()]
    }

    #[test]
    fn every_start_of_a_checkpoint_line_is_cut_short() {
        for line in lines() {
            let bytes = line.as_bytes();
            for cut in 1..bytes.len() - 1 {
                assert!(cut_short(&bytes[..cut]), "{:?}", String::from_utf8_lossy(&bytes[..cut]));
            }
        }
    }
}
