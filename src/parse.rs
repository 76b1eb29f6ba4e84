//! Streaming parser for judge input: `n`, then `n` rows of `.` (free) and `*` (obstacle),
//! repeated until end of input or a board size of `0`.
//!
//! Tokens may be separated by any ASCII whitespace, so blank lines, tabs and CRLF line
//! ends are all accepted. The input is read one line at a time (found with `memchr`), and
//! a line may be at most [`MAX_LINE`] bytes, so memory stays bounded whatever the input.

use std::fmt;
use std::io::{self, BufRead};

use crate::board::{Board, MAX_N};

/// The longest input line accepted, in bytes; longer lines are an error, not an allocation.
pub const MAX_LINE: usize = 64 * 1024;

/// Why the input could not be read as boards.
#[derive(Debug)]
pub enum ParseError {
    /// The input breaks the format; `line` and `column` count from 1.
    Syntax { line: usize, column: Option<usize>, message: String },
    /// Reading the input failed.
    Io(io::Error),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Syntax { line, column: Some(col), message } => {
                write!(f, "line {line}, column {col}: {message}")
            }
            ParseError::Syntax { line, column: None, message } => write!(f, "line {line}: {message}"),
            ParseError::Io(e) => write!(f, "read error: {e}"),
        }
    }
}

impl std::error::Error for ParseError {}

/// A token's 1-based column and its byte range (start, end) in the line.
type Token = (usize, (usize, usize));

/// Reads boards one at a time from a buffered reader; stops after the first error.
pub struct Parser<R> {
    src: R,
    line: Vec<u8>,
    line_no: usize,
    pos: usize,
    finished: bool,
}

impl<R: BufRead> Parser<R> {
    /// A parser over `src`.
    pub fn new(src: R) -> Self {
        Parser { src, line: Vec::new(), line_no: 0, pos: 0, finished: false }
    }

    /// The next board, `Ok(None)` at the end of the input or at a `0` board size.
    pub fn next_board(&mut self) -> Result<Option<Board>, ParseError> {
        let Some((col, tok)) = self.next_token()? else { return Ok(None) };
        let n = self.board_size(col, tok)?;
        if n == 0 {
            return Ok(None);
        }
        let size_line = self.line_no;
        let mut rows = Vec::with_capacity(n);
        for r in 0..n {
            let Some((col, tok)) = self.next_token()? else {
                let line = self.line_no.max(size_line);
                return Err(syntax(
                    line,
                    None,
                    format!(
                        "the input ended inside the board of size {n} begun on line {size_line}: \
                         expected row {} of {n}",
                        r + 1
                    ),
                ));
            };
            rows.push(self.row_mask(n, r, col, tok)?);
        }
        Ok(Some(Board::from_rows(n, rows).expect("row masks are built within n columns")))
    }

    fn board_size(&self, col: usize, tok: (usize, usize)) -> Result<usize, ParseError> {
        let bytes = &self.line[tok.0..tok.1];
        if !bytes.iter().all(u8::is_ascii_digit) {
            return Err(syntax(
                self.line_no,
                Some(col),
                format!("expected a board size (a whole number from 1 to {MAX_N}, or 0 to end), found {}", shown(bytes)),
            ));
        }
        // Saturate so that any run of digits is judged without overflow.
        let n = bytes.iter().fold(0usize, |v, &d| v.saturating_mul(10).saturating_add((d - b'0') as usize));
        if n > MAX_N {
            return Err(syntax(
                self.line_no,
                Some(col),
                format!("board size {} is out of range: expected 1 to {MAX_N}, or 0 to end", shown(bytes)),
            ));
        }
        Ok(n)
    }

    fn row_mask(&self, n: usize, r: usize, col: usize, tok: (usize, usize)) -> Result<u32, ParseError> {
        let bytes = &self.line[tok.0..tok.1];
        let mut mask = 0u32;
        for (c, &b) in bytes.iter().enumerate() {
            match b {
                b'.' if c < n => mask |= 1 << c,
                b'*' if c < n => {}
                b'.' | b'*' => break,
                _ => {
                    return Err(syntax(
                        self.line_no,
                        Some(col + c),
                        format!("expected '.' (free) or '*' (obstacle) in row {} of {n}, found {}", r + 1, shown(&bytes[c..c + 1])),
                    ))
                }
            }
        }
        if bytes.len() != n {
            return Err(syntax(self.line_no, Some(col), format!("row {} of {n} has {} cells, expected {n}", r + 1, bytes.len())));
        }
        Ok(mask)
    }

    /// The next whitespace-separated token as (1-based column, byte range in `self.line`).
    fn next_token(&mut self) -> Result<Option<Token>, ParseError> {
        loop {
            while self.pos < self.line.len() && self.line[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.pos < self.line.len() {
                let start = self.pos;
                while self.pos < self.line.len() && !self.line[self.pos].is_ascii_whitespace() {
                    self.pos += 1;
                }
                return Ok(Some((start + 1, (start, self.pos))));
            }
            if !self.read_line()? {
                return Ok(None);
            }
        }
    }

    /// Loads the next line into `self.line`; `false` at the end of the input.
    fn read_line(&mut self) -> Result<bool, ParseError> {
        self.line.clear();
        self.pos = 0;
        let mut any = false;
        loop {
            let buf = match self.src.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ParseError::Io(e)),
            };
            if buf.is_empty() {
                if any {
                    self.line_no += 1;
                }
                return Ok(any);
            }
            any = true;
            let (take, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            if self.line.len() + take > MAX_LINE + 1 {
                return Err(syntax(self.line_no + 1, None, format!("line is longer than {MAX_LINE} bytes")));
            }
            self.line.extend_from_slice(&buf[..take]);
            self.src.consume(take);
            if done {
                self.line_no += 1;
                return Ok(true);
            }
        }
    }
}

impl<R: BufRead> Iterator for Parser<R> {
    type Item = Result<Board, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        let item = self.next_board().transpose();
        if !matches!(item, Some(Ok(_))) {
            self.finished = true;
        }
        item
    }
}

fn syntax(line: usize, column: Option<usize>, message: String) -> ParseError {
    ParseError::Syntax { line, column, message }
}

/// A token as the user will recognise it: quoted, escaped, cut to a readable length.
fn shown(bytes: &[u8]) -> String {
    const MAX_SHOWN: usize = 20;
    let cut = &bytes[..bytes.len().min(MAX_SHOWN)];
    let more = if bytes.len() > MAX_SHOWN { "..." } else { "" };
    format!("\"{}{more}\"", cut.escape_ascii())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(text: &str) -> Vec<Result<Board, String>> {
        Parser::new(text.as_bytes()).map(|r| r.map_err(|e| e.to_string())).collect()
    }

    #[test]
    fn reads_the_exercise_sample() {
        let got =
            parse_all("8\n........\n........\n........\n........\n........\n........\n........\n........\n4\n.*..\n....\n....\n....\n0\n");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].as_ref().unwrap(), &Board::empty(8).unwrap());
        assert_eq!(got[1].as_ref().unwrap().rows(), &[0b1101, 0b1111, 0b1111, 0b1111]);
    }

    #[test]
    fn accepts_crlf_tabs_blank_lines_and_no_final_newline() {
        let got = parse_all("\r\n 2 \r\n\t.*\r\n\r\n**");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].as_ref().unwrap().rows(), &[0b01, 0b00]);
    }

    #[test]
    fn stops_at_zero_and_ignores_what_follows() {
        assert_eq!(parse_all("1\n.\n0\ngarbage").len(), 1);
    }

    #[test]
    fn empty_input_has_no_boards() {
        assert!(parse_all("").is_empty());
        assert!(parse_all(" \n\n\t").is_empty());
    }

    #[test]
    fn errors_name_the_line_and_what_was_expected() {
        let e = |t: &str| parse_all(t).pop().unwrap().unwrap_err();
        assert_eq!(e("2\n..\n.\n"), "line 3, column 1: row 2 of 2 has 1 cells, expected 2");
        assert_eq!(e("2\n..\n.x\n"), "line 3, column 2: expected '.' (free) or '*' (obstacle) in row 2 of 2, found \"x\"");
        assert!(e("abc\n").starts_with("line 1, column 1: expected a board size"));
        assert!(e("33\n").contains("board size \"33\" is out of range"));
        assert!(e("99999999999999999999999\n").contains("out of range"));
        assert!(e("3\n...\n").starts_with("line 2: the input ended inside the board of size 3 begun on line 1: expected row 2 of 3"));
        assert!(e("-1\n").contains("found \"-1\""));
    }

    #[test]
    fn a_line_longer_than_the_limit_is_an_error_not_an_allocation() {
        let long = format!("1\n{}\n", ".".repeat(MAX_LINE + 10));
        assert_eq!(parse_all(&long).pop().unwrap().unwrap_err(), format!("line 2: line is longer than {MAX_LINE} bytes"));
    }

    #[test]
    fn nothing_is_read_after_an_error() {
        let got = parse_all("1\n.\nx\n1\n.\n");
        assert_eq!(got.len(), 2);
        assert!(got[1].is_err());
    }
}
