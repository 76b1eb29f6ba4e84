//! What a file holds, told from its first bytes: judge input, one of the files nqueen writes
//! (a part record, a checkpoint, a summary, a plot), or something else. The program uses it
//! to refuse a file it did not write, and to say what a file is where another kind was
//! expected, and which command reads it.

use std::io::Read;
use std::sync::{Arc, Mutex};

use serde::Deserialize;

/// How many bytes of a file [`Kind::of`] looks at.
pub const SNIFF: usize = 4096;

/// How the comment starts by which the program knows a plot for its own (see
/// `crate::parts::plot`), and the comment of earlier builds' plots, which named the option.
pub const PLOT_MARKS: [&str; 2] = ["<!-- nqueen status plot", "<!-- nqueen status --plot -->"];

/// What a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Nothing at all.
    Empty,
    /// Judge input: a board size first.
    Judge,
    /// A part record of a `--shard` run.
    PartRecord,
    /// A checkpoint: its header first.
    Checkpoint,
    /// The first part of a checkpoint's header and nothing after it: a run stopped while
    /// it wrote the header.
    TornHeader,
    /// A summary of `nqueen merge --summary`.
    Summary,
    /// A picture of `nqueen status --plot`.
    Plot,
    /// The plans of `nqueen --dry-run`.
    Plan,
    /// The JSON lines of `nqueen status`.
    Status,
    /// Answers as nqueen prints them: "Case 1: 92".
    Answers,
    /// JSON of another kind.
    Json,
    /// Bytes that are not text: a NUL, or no UTF-8.
    Binary,
    /// Text of another kind.
    Text,
}

/// The `record` field that every line nqueen writes as JSON starts with, and the fields
/// that tell its files apart.
#[derive(Deserialize)]
struct Tagged {
    record: String,
    format: Option<u32>,
    nqueen: Option<String>,
}

impl Kind {
    /// What `start`, the first bytes of a file (up to [`SNIFF`]), says the file holds.
    pub fn of(start: &[u8]) -> Kind {
        let first_line = start.split(|&b| b == b'\n').next().unwrap_or_default();
        let text = first_line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(first_line);
        let trimmed = text.trim_ascii();
        if start.is_empty() {
            return Kind::Empty;
        }
        if start.contains(&0) || std::str::from_utf8(start).is_err_and(|e| e.error_len().is_some()) {
            return Kind::Binary;
        }
        if trimmed.first().is_some_and(u8::is_ascii_digit) {
            return Kind::Judge;
        }
        if trimmed.starts_with(b"{") {
            return match (first_record(start), serde_json::from_slice::<Tagged>(trimmed)) {
                (_, Ok(Tagged { record, format: Some(_), nqueen: Some(_) })) if record == "case" || record == "end" => Kind::PartRecord,
                (_, Ok(Tagged { record, format: Some(_), nqueen: Some(_) })) if record == "header" => Kind::Checkpoint,
                (_, Err(_)) if !start.contains(&b'\n') && is_torn_header(text) => Kind::TornHeader,
                (Some("summary"), _) => Kind::Summary,
                (Some("plan"), _) => Kind::Plan,
                (Some("status" | "machines"), _) => Kind::Status,
                _ => Kind::Json,
            };
        }
        if is_answer(trimmed) {
            return Kind::Answers;
        }
        let marked = PLOT_MARKS.iter().any(|mark| contains(start, mark.as_bytes()));
        if (trimmed.starts_with(b"<svg") || trimmed.starts_with(b"<?xml")) && marked {
            return Kind::Plot;
        }
        Kind::Text
    }

    /// Whether it is plainly one kind of file: judge input, one of the files the program
    /// writes, or binary data; not JSON or text of some other kind.
    pub fn is_known(self) -> bool {
        !matches!(self, Kind::Empty | Kind::Json | Kind::Text)
    }

    /// What it is, in a few words: "judge input", "a part record", ...
    pub fn name(self) -> &'static str {
        match self {
            Kind::Empty => "an empty file",
            Kind::Judge => "judge input",
            Kind::PartRecord => "a part record of a --shard run",
            Kind::Checkpoint => "a checkpoint",
            Kind::TornHeader => "the start of a checkpoint",
            Kind::Summary => "a summary of nqueen merge",
            Kind::Plot => "a plot of nqueen status",
            Kind::Plan => "the plans that nqueen --dry-run prints",
            Kind::Status => "the JSON lines that nqueen status prints",
            Kind::Answers => "answers that nqueen printed",
            Kind::Json => "JSON that nqueen did not write",
            Kind::Binary => "binary data",
            Kind::Text => "text that nqueen did not write",
        }
    }

    /// Which command reads it, where one does: "nqueen merge adds part records up".
    pub fn read_by(self) -> Option<&'static str> {
        match self {
            Kind::Judge => Some("nqueen FILE counts judge input"),
            Kind::PartRecord => Some("nqueen merge adds part records up"),
            Kind::Checkpoint | Kind::TornHeader => Some("nqueen --checkpoint FILE resumes from a checkpoint"),
            _ => None,
        }
    }

    /// "this holds X, not Y (Z reads X)": what a file given where `expected` belongs holds
    /// instead.
    pub fn instead_of(self, expected: &str) -> String {
        match self.read_by() {
            Some(command) => format!("this holds {}, not {expected} ({command})", self.name()),
            None => format!("this holds {}, not {expected}", self.name()),
        }
    }
}

/// A reader that keeps the first [`SNIFF`] bytes read through it, so that what the stream
/// held can be told once it has been read (see [`Kind::of`]), from any thread.
pub struct Recorded<R> {
    inner: R,
    start: Arc<Mutex<Vec<u8>>>,
}

impl<R: Read> Recorded<R> {
    /// `inner`, recorded, and the handle that [`start`] reads the record by.
    pub fn new(inner: R) -> (Recorded<R>, Arc<Mutex<Vec<u8>>>) {
        let start = Arc::new(Mutex::new(Vec::new()));
        (Recorded { inner, start: Arc::clone(&start) }, start)
    }
}

impl<R: Read> Read for Recorded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let got = self.inner.read(buf)?;
        let mut start = self.start.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let room = SNIFF.saturating_sub(start.len()).min(got);
        start.extend_from_slice(&buf[..room]);
        Ok(got)
    }
}

/// What the stream a [`Recorded`] reads held, by what it has read of it so far.
pub fn of_recorded(start: &Mutex<Vec<u8>>) -> Kind {
    Kind::of(&start.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
}

/// The value of a JSON object's first field where it is `"record"`, as every file the
/// program writes as JSON starts: `{"record":"summary", ...`, on one line or several.
fn first_record(start: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(start).ok().or_else(|| std::str::from_utf8(&start[..start.len().saturating_sub(3)]).ok())?;
    let rest = text.trim_start().strip_prefix('{')?.trim_start().strip_prefix("\"record\"")?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    rest.split_once('"').map(|(value, _)| value)
}

/// The header line a checkpoint of this build starts with, newline included.
pub fn checkpoint_header() -> String {
    let json = format!("{{\"record\":\"header\",\"format\":{},\"nqueen\":\"{}\"}}", CHECKPOINT_FORMAT, env!("CARGO_PKG_VERSION"));
    format!("{}\n", super::digest::seal(&json))
}

/// The checkpoint format this build writes and reads.
pub const CHECKPOINT_FORMAT: u32 = 1;

/// Whether `text`, a file's whole content, is a checkpoint header cut short: the first
/// bytes of the one this build writes.
fn is_torn_header(text: &[u8]) -> bool {
    checkpoint_header().as_bytes().starts_with(text)
}

/// Whether `line` is an answer as nqueen prints one: "Case 12: 92".
fn is_answer(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"Case ") else { return false };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && rest[digits..].starts_with(b": ")
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_nqueen_writes_is_told_from_its_start() {
        assert_eq!(Kind::of(b""), Kind::Empty);
        assert_eq!(Kind::of(b"8\n........\n"), Kind::Judge);
        assert_eq!(Kind::of(b"4 .*.. .... .... ...."), Kind::Judge);
        assert_eq!(Kind::of(b"\xef\xbb\xbf 12\n"), Kind::Judge);
        assert_eq!(Kind::of(br#"{"record":"case","format":2,"nqueen":"0.1.0","input":0}"#), Kind::PartRecord);
        assert_eq!(Kind::of(br#"{"record":"end","format":1,"nqueen":"0.1.0"}"#), Kind::PartRecord);
        assert_eq!(Kind::of(checkpoint_header().as_bytes()), Kind::Checkpoint);
        assert_eq!(Kind::of(br#"{"record":"header","format":1,"nqueen":"0.0.1"}"#), Kind::Checkpoint);
        assert_eq!(Kind::of(br#"{"record":"summary","format":1,"answers":[]}"#), Kind::Summary);
        assert_eq!(Kind::of(b"{\n  \"record\": \"summary\",\n  \"format\": 1"), Kind::Summary);
        assert_eq!(Kind::of(b"<svg width=\"1\">\n<!-- nqueen status plot sha256=00 -->\n</svg>"), Kind::Plot);
        assert_eq!(Kind::of(b"<svg width=\"1\">\n<!-- nqueen status plot -->\n</svg>"), Kind::Plot);
        assert_eq!(Kind::of(b"<svg width=\"1\">\n<!-- nqueen status --plot -->\n</svg>"), Kind::Plot);
        assert_eq!(Kind::of(b"<svg width=\"1\"></svg>"), Kind::Text);
        assert_eq!(Kind::of(br#"{"name":"notes"}"#), Kind::Json);
        assert_eq!(Kind::of(br#"{"record":"case","input":0}"#), Kind::Json);
        assert_eq!(Kind::of(b"my notes"), Kind::Text);
        assert_eq!(Kind::of(b"Case 1: 92\nCase 2: 1\n"), Kind::Answers);
        assert_eq!(Kind::of(b"Case one: 92\n"), Kind::Text);
        assert_eq!(Kind::of(br#"{"record":"plan","nqueen":"0.1.0"}"#), Kind::Plan);
        assert_eq!(Kind::of(br#"{"record":"status","shards":1,"complete":true}"#), Kind::Status);
        assert_eq!(Kind::of(br#"{"record":"machines","complete":true}"#), Kind::Status);
        assert_eq!(Kind::of(b"\0\0\0\0"), Kind::Binary);
        assert_eq!(Kind::of(b"caf\xe9 x"), Kind::Binary);
        assert_eq!(Kind::of("caf\u{e9}".as_bytes()), Kind::Text);
    }

    #[test]
    fn a_header_cut_short_is_a_torn_header_only_alone_and_as_this_build_writes_it() {
        let header = checkpoint_header();
        for cut in [1, 10, header.len() - 2] {
            assert_eq!(Kind::of(&header.as_bytes()[..cut]), Kind::TornHeader, "{cut}");
        }
        assert_eq!(Kind::of(br#"{"record":"head"#), Kind::TornHeader);
        assert_eq!(Kind::of(br#"{"record":"hex"#), Kind::Json);
        assert_eq!(Kind::of(b"{\"record\":\"head\nmore"), Kind::Json);
    }

    #[test]
    fn a_recorded_stream_keeps_its_first_bytes_only() {
        let text = format!("{}{}", checkpoint_header(), "x".repeat(3 * SNIFF));
        let (mut reader, start) = Recorded::new(text.as_bytes());
        std::io::copy(&mut reader, &mut std::io::sink()).unwrap();
        assert_eq!(start.lock().unwrap().len(), SNIFF);
        assert_eq!(of_recorded(&start), Kind::Checkpoint);
    }

    #[test]
    fn a_kind_says_which_command_reads_it() {
        assert_eq!(
            Kind::PartRecord.instead_of("judge input"),
            "this holds a part record of a --shard run, not judge input (nqueen merge adds part records up)"
        );
        assert_eq!(Kind::Binary.instead_of("a part record"), "this holds binary data, not a part record");
    }
}
