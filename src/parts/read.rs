//! Reading part files back: each line checked as a record of a format a merge takes, with
//! its digest, and kept with where it was read; a bad line ends the file's records.

use std::io::{self, Read};
use std::path::Path;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::{PartsError, Record, FORMAT, OLDEST_FORMAT};
use crate::files;
use crate::files::digest;
use crate::files::kind::{self, Kind as FileKind, Recorded};
use crate::files::lines::{self, Lines};
use crate::files::MAX_LINE;
use crate::words::shown;

/// A record and where it was read.
#[derive(Clone, Debug)]
pub struct Located {
    pub record: Record,
    pub file: Arc<str>,
    /// Line in its file, from 1.
    pub line: usize,
    /// Its digest, checked; for a record of format 1, the SHA-256 of its line.
    pub digest: String,
}

impl Located {
    /// Where it was read, for messages: "FILE, line L (shard K)".
    pub fn place(&self) -> String {
        format!("{}, line {} (shard {})", self.file, self.line, self.record.shard().0)
    }

    /// Where it was read and who wrote it, for messages about a disagreement: "FILE, line
    /// L (shard K; host H, BACKEND, build B)".
    pub fn origin(&self) -> String {
        let backend = match &self.record {
            Record::Case(c) => c.backend.as_str(),
            Record::End(_) => "end of input",
        };
        let (host, build) = (self.record.host(), self.record.build());
        format!("{}, line {} (shard {}; host {host}, {backend}, build {build})", self.file, self.line, self.record.shard().0)
    }
}

/// The records of the part file `path`, in order, up to what is wrong with it, if
/// anything: the first line that is not a part record of this format, or a torn last line.
pub fn read(path: &Path) -> (Vec<Located>, Option<PartsError>) {
    let mut records = Vec::new();
    let problem = read_path_into(path, &mut |r| records.push(r));
    (records, problem)
}

/// [`read`] from any reader, named `name` in messages (quoted where it needs to be).
pub fn read_from(src: impl Read, name: &str) -> (Vec<Located>, Option<PartsError>) {
    let mut records = Vec::new();
    let problem = read_into(src, name, &mut |r| records.push(r));
    (records, problem)
}

/// [`read`], handing each record to `take` as it is read, so that none need be kept.
pub fn read_path_into(path: &Path, take: &mut dyn FnMut(Located)) -> Option<PartsError> {
    let name = shown(path);
    match files::open_input(path, "a part file") {
        Ok(file) => read_into(file, &name, take),
        Err(why) => Some(PartsError::Unreadable(format!("{name}: {why}"))),
    }
}

/// Lines read before they are checked, side by side on the worker threads (checking a
/// line, its JSON and its digest, takes far longer than reading it), and their bytes at
/// most, however long the lines.
const BATCH: usize = 2048;
const BATCH_BYTES: usize = 1 << 22;

/// [`read_from`], handing each record to `take` as it is read.
pub fn read_into(src: impl Read, name: &str, take: &mut dyn FnMut(Located)) -> Option<PartsError> {
    let file: Arc<str> = Arc::from(name);
    let (src, start) = Recorded::new(src);
    let mut lines = Lines::new(io::BufReader::with_capacity(1 << 16, src), MAX_LINE);
    // A batch of lines: their text end to end, and where each ends, its number and
    // whether it was ended.
    let (mut text, mut ends): (Vec<u8>, Vec<(usize, usize, bool)>) = (Vec::new(), Vec::new());
    loop {
        text.clear();
        ends.clear();
        let mut stop = None;
        while ends.len() < BATCH && text.len() < BATCH_BYTES {
            match lines.next() {
                Ok(Some(line)) => {
                    text.extend_from_slice(line.text);
                    ends.push((text.len(), line.number, line.ended));
                }
                Ok(None) => break,
                Err(e) => {
                    stop = Some(PartsError::Unreadable(format!("{name}: {e}")));
                    break;
                }
            }
        }
        let lines_of = |i: usize| (&text[if i == 0 { 0 } else { ends[i - 1].0 }..ends[i].0], ends[i].1, ends[i].2);
        let checked: Vec<Result<Located, String>> = (0..ends.len()).into_par_iter().map(|i| located(lines_of(i), &file, &start)).collect();
        for (record, (_, number, _)) in checked.into_iter().zip(&ends) {
            match record {
                Ok(r) => take(r),
                Err(problem) => return Some(PartsError::Unreadable(format!("{name}: line {number}: {problem}"))),
            }
        }
        if stop.is_some() || ends.is_empty() {
            return stop;
        }
    }
}

/// The record a line of a part file holds, `(text, number, ended)` of the file named
/// `file` whose start `start` holds, or what is wrong with it.
fn located((text, number, complete): (&[u8], usize, bool), file: &Arc<str>, start: &Mutex<Vec<u8>>) -> Result<Located, String> {
    if complete && text.iter().all(u8::is_ascii_whitespace) {
        return Err("not a part record: it is blank".to_string());
    }
    let parsed = lines::text(text).and_then(|json| Record::from_line(json).map(|r| (r, json)));
    Err(match parsed {
        Ok((r, _)) if !(OLDEST_FORMAT..=FORMAT).contains(&r.format()) => {
            format!("a part record of format {}, expected {OLDEST_FORMAT} to {FORMAT}", r.format())
        }
        Ok((record, json)) if complete => match checked(&record, json) {
            Ok(digest) => return Ok(Located { record, file: Arc::clone(file), line: number, digest }),
            Err(problem) => problem.to_string(),
        },
        // What a file holds, where its start says it is another kind of file.
        Err(_) if number == 1 && foreign(kind::of_recorded(start)) => kind::of_recorded(start).instead_of("a part record"),
        _ if !complete => "a torn last line (the run that wrote it was stopped or ran out of room mid-write)".to_string(),
        Ok(_) => unreachable!("complete lines are taken above"),
        Err(why) => format!("not a part record: {why}"),
    })
}

/// Whether a file whose start is of this kind is plainly not a part file.
fn foreign(kind: FileKind) -> bool {
    kind.is_known() && kind != FileKind::PartRecord
}

/// The digest of `record`, read from the line `json`: checked against its content from
/// format 2 on, made from the line for format 1.
fn checked(record: &Record, json: &str) -> Result<String, &'static str> {
    if record.format() < 2 {
        return Ok(digest::of(json));
    }
    match digest::check(json) {
        Ok(d) => Ok(d.to_string()),
        Err(digest::Unsealed::Missing) => Err("a part record without its digest as its last field"),
        Err(digest::Unsealed::Mismatch) => {
            Err("the record's digest does not match its content: the line was edited or damaged after it was written")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parts::tests::{case, end};
    use crate::parts::Record;

    #[test]
    fn records_round_trip_through_their_lines() {
        let big = case(0, 1, 2, 3, u128::from(u64::MAX) * 10);
        let end = end(0, 4, 2, 3, None);
        let text = big.to_line() + &end.to_line();
        let (read, problem) = read_from(text.as_bytes(), "parts");
        assert_eq!(problem, None);
        assert_eq!(read.iter().map(|l| l.record.clone()).collect::<Vec<_>>(), vec![big, end]);
        assert_eq!(read[1].place(), "parts, line 2 (shard 2)");
        assert_eq!(read[0].digest, digest::check(text.lines().next().unwrap()).unwrap());
    }

    #[test]
    fn long_lines_are_read_in_batches_of_bounded_bytes() {
        // A thousand records with names of 4 KiB: more than a batch's bytes, fewer lines.
        let record = |shard| match case(0, 1, shard, 1000, 1) {
            Record::Case(mut c) => {
                c.file = "f".repeat(crate::parts::MAX_FILE_NAME);
                Record::Case(c)
            }
            other => other,
        };
        let text: String = (0..1000).map(|k| record(k).to_line()).collect();
        assert!(text.len() > BATCH_BYTES);
        let (read, problem) = read_from(text.as_bytes(), "p");
        assert_eq!((read.len(), problem), (1000, None));
        assert_eq!(read[999].line, 1000);
    }

    #[test]
    fn an_edited_record_or_one_without_its_digest_is_refused() {
        let line = case(0, 1, 0, 1, 92).to_line();
        let edited = line.replace("\"count\":92", "\"count\":93");
        let problem = read_from(edited.as_bytes(), "p").1.unwrap().to_string();
        assert!(problem.starts_with("p: line 1: the record's digest does not match its content"), "{problem}");
        let unsealed = line[..line.rfind(",\"digest\"").unwrap()].to_string() + "}\n";
        assert!(read_from(unsealed.as_bytes(), "p").1.unwrap().to_string().contains("without its digest"));
        // Format 1 had no digest: its records are read, digested by their line.
        let old = unsealed.replace("\"format\":2", "\"format\":1");
        let (read, problem) = read_from(old.as_bytes(), "p");
        assert_eq!((read.len(), problem), (1, None));
        assert_eq!(read[0].digest, digest::of(old.trim_end()));
    }

    #[test]
    fn a_torn_or_foreign_line_is_named() {
        let whole = case(0, 1, 0, 1, 92).to_line();
        let torn = format!("{whole}{}", &whole[..whole.len() / 2]);
        let (kept, problem) = read_from(torn.as_bytes(), "p");
        assert_eq!(
            (kept.len(), problem),
            (
                1,
                Some(PartsError::Unreadable(
                    "p: line 2: a torn last line (the run that wrote it was stopped or ran out of room mid-write)".into()
                ))
            )
        );
        assert!(read_from(format!("{whole}Case 1: 92\n").as_bytes(), "p")
            .1
            .unwrap()
            .to_string()
            .starts_with("p: line 2: not a part record"));
        let blank = read_from(format!("{whole}\n").as_bytes(), "p");
        assert_eq!((blank.0.len(), blank.1.unwrap().to_string()), (1, "p: line 2: not a part record: it is blank".to_string()));
        let other = whole.replace("\"format\":2", "\"format\":9");
        assert!(read_from(other.as_bytes(), "p").1.unwrap().to_string().contains("format 9, expected 1 to 2"));
    }

    #[test]
    fn another_kind_of_file_is_named_for_what_it_is() {
        let said = |text: &[u8]| read_from(text, "f").1.unwrap().to_string();
        assert_eq!(said(b"8\n........\n"), "f: line 1: this holds judge input, not a part record (nqueen FILE counts judge input)");
        assert_eq!(
            said(crate::files::kind::checkpoint_header().as_bytes()),
            "f: line 1: this holds a checkpoint, not a part record (nqueen --checkpoint FILE resumes from a checkpoint)"
        );
        assert_eq!(said(b"\0\0\0"), "f: line 1: this holds binary data, not a part record");
        assert_eq!(
            said(b"{\"record\":\"case\",\"format\":\"2\"}\n"),
            "f: line 1: not a part record: the field `format` holds the text \"2\" where a whole number belongs"
        );
        let long = format!("{}\n", "x".repeat(MAX_LINE + 1));
        assert_eq!(said(long.as_bytes()), format!("f: line 1: longer than {MAX_LINE} bytes, more than any line nqueen writes"));
    }
}
