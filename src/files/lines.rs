//! Lines of a file nqueen did not write, read with a bound: a line longer than the bound is
//! an error, found in memory that does not grow with the file (a file of NUL bytes, or a
//! judge input of one long line, given where a checkpoint or part file belongs).

use std::fmt;
use std::io::{self, BufRead};

use super::FileError;
use crate::words::os_words;

/// Why the next line could not be read.
#[derive(Debug)]
pub enum LineError {
    /// Line `line` (from 1) is longer than the bound.
    TooLong { line: usize, most: usize },
    /// Reading failed at line `line`.
    Io { line: usize, error: io::Error },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::TooLong { line, most } => {
                write!(f, "line {line}: longer than {most} bytes, more than any line nqueen writes")
            }
            LineError::Io { line, error } => write!(f, "line {line}: {}", os_words(error)),
        }
    }
}

impl std::error::Error for LineError {}

/// A line read: its bytes without the line end, and whether it had one (a last line that
/// lacks it was cut short, or is the end of a file that nqueen did not write).
#[derive(Debug, PartialEq, Eq)]
pub struct Line<'a> {
    pub text: &'a [u8],
    pub ended: bool,
    /// Its number, from 1.
    pub number: usize,
    /// Its length in the file, line end included.
    pub bytes: usize,
}

/// The lines of a reader, each at most `most` bytes.
pub struct Lines<R> {
    src: R,
    most: usize,
    buf: Vec<u8>,
    number: usize,
}

impl<R: BufRead> Lines<R> {
    pub fn new(src: R, most: usize) -> Lines<R> {
        Lines { src, most, buf: Vec::new(), number: 0 }
    }

    /// The next line, `None` at the end.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Line<'_>>, LineError> {
        self.buf.clear();
        self.number += 1;
        let line = self.number;
        let ended = loop {
            let chunk = self.src.fill_buf().map_err(|error| LineError::Io { line, error })?;
            if chunk.is_empty() {
                break false;
            }
            let (take, ended) = match memchr::memchr(b'\n', chunk) {
                Some(at) => (at + 1, true),
                None => (chunk.len(), false),
            };
            if self.buf.len() + take > self.most + 1 {
                return Err(LineError::TooLong { line, most: self.most });
            }
            self.buf.extend_from_slice(&chunk[..take]);
            self.src.consume(take);
            if ended {
                break true;
            }
        };
        if self.buf.is_empty() {
            return Ok(None);
        }
        let bytes = self.buf.len();
        let mut text = &self.buf[..];
        if ended {
            text = &text[..text.len() - 1];
        }
        Ok(Some(Line { text: text.strip_suffix(b"\r").unwrap_or(text), ended, number: line, bytes }))
    }
}

/// A line's bytes as text, or where it is not UTF-8: "byte 0xE9 at column 4 is not UTF-8".
pub fn text(line: &[u8]) -> Result<&str, FileError> {
    std::str::from_utf8(line).map_err(|e| {
        let at = e.valid_up_to();
        FileError::NotUtf8 { byte: line[at], column: at + 1 }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], most: usize) -> Vec<Result<(String, bool), String>> {
        let mut lines = Lines::new(io::BufReader::with_capacity(4, input), most);
        let mut out = Vec::new();
        loop {
            match lines.next() {
                Ok(Some(l)) => out.push(Ok((String::from_utf8_lossy(l.text).into_owned(), l.ended))),
                Ok(None) => return out,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    return out;
                }
            }
        }
    }

    #[test]
    fn lines_end_at_a_newline_and_the_last_may_lack_one() {
        let ok = |s: &str, ended| Ok((s.to_string(), ended));
        assert_eq!(all(b"ab\r\ncdefgh\n\nx", 6), [ok("ab", true), ok("cdefgh", true), ok("", true), ok("x", false)]);
        assert_eq!(all(b"", 6), []);
    }

    #[test]
    fn a_line_past_the_bound_is_an_error_that_names_it() {
        let long = all(b"ok\n0123456789\nmore\n", 6);
        assert_eq!(long[0], Ok(("ok".to_string(), true)));
        assert_eq!(long[1], Err("line 2: longer than 6 bytes, more than any line nqueen writes".to_string()));
        // A file of NUL bytes with no line end, read in pieces no larger than the bound.
        let nul = vec![0u8; 1 << 20];
        let mut lines = Lines::new(io::BufReader::with_capacity(4096, &nul[..]), 8192);
        assert!(matches!(lines.next(), Err(LineError::TooLong { line: 1, .. })));
        assert!(lines.buf.capacity() <= 16384, "the buffer grew to {}", lines.buf.capacity());
    }

    #[test]
    fn text_says_where_it_is_not_utf8() {
        assert_eq!(text(b"caf\xe9").unwrap_err().to_string(), "byte 0xE9 at column 4 is not UTF-8 text");
        assert_eq!(text("café".as_bytes()).unwrap(), "café");
    }
}
