//! Streaming parser for judge input: `n`, then `n` rows of `.` (free) and `*` (obstacle),
//! repeated until end of input or a board size of `0`.
//!
//! Tokens may be separated by any ASCII whitespace, so blank lines, tabs, CRLF or CR line
//! ends and a whole input on one line are all accepted, as is a UTF-8 byte-order mark at
//! the start. The input is read token by token (`tokens.rs`), so memory stays bounded
//! whatever its shape.

#[cfg(test)]
mod differential;
mod tokens;

use std::fmt;
use std::io::{self, Read};

use crate::board::{Board, MAX_N};
use crate::words::{counted, os_words};
use tokens::{Row, Token, Tokens};

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
            ParseError::Io(e) => write!(f, "cannot read it: {}", os_words(e)),
        }
    }
}

impl std::error::Error for ParseError {}

/// Reads boards one at a time from a reader; stops after the first error.
///
/// ```
/// let mut boards = nqueen::boards("4\n....\n....\n....\n....\n2\n.x\n".as_bytes());
/// assert_eq!(boards.next().transpose()?.map(|b| b.n()), Some(4));
/// assert!(boards.next().is_some_and(|b| b.is_err()));
/// assert!(boards.next().is_none());
/// # Ok::<(), nqueen::Error>(())
/// ```
pub struct Parser<R> {
    tokens: Tokens<R>,
    /// The line of the last token read, for an error at the end of the input.
    last_line: usize,
    finished: bool,
}

impl<R> std::fmt::Debug for Parser<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parser").field("last_line", &self.last_line).field("finished", &self.finished).finish_non_exhaustive()
    }
}

impl<R: Read> Parser<R> {
    /// A parser over `src`.
    pub fn new(src: R) -> Self {
        Parser { tokens: Tokens::new(src), last_line: 1, finished: false }
    }

    /// The next board, `Ok(None)` at the end of the input or at a `0` board size.
    pub fn next_board(&mut self) -> Result<Option<Board>, ParseError> {
        let Some(size) = self.next_token()? else { return Ok(None) };
        let n = board_size(&size, self.tokens.bytes(&size))?;
        if n == 0 {
            return Ok(None);
        }
        let mut rows = Vec::with_capacity(n);
        for r in 0..n {
            match self.tokens.next_row(n).map_err(ParseError::Io)? {
                Row::Cells { line, mask } => {
                    self.last_line = line;
                    rows.push(mask);
                }
                Row::Token(row) => {
                    self.last_line = row.line;
                    rows.push(row_mask(n, r, &row, self.tokens.bytes(&row))?);
                }
                Row::End => {
                    return Err(syntax(
                        self.last_line,
                        None,
                        format!("the input ended inside the board of size {n} begun on line {}: expected row {} of {n}", size.line, r + 1),
                    ))
                }
            }
        }
        Ok(Some(Board::from_rows(n, rows).expect("row masks are built within n columns")))
    }

    fn next_token(&mut self) -> Result<Option<Token>, ParseError> {
        let token = self.tokens.next_token().map_err(ParseError::Io)?;
        if let Some(t) = &token {
            self.last_line = t.line;
        }
        Ok(token)
    }
}

/// The board size a token (`bytes` kept of it) gives, 0 included.
fn board_size(token: &Token, bytes: &[u8]) -> Result<usize, ParseError> {
    let error = |message: String| Err(syntax(token.line, Some(token.column), message));
    if !bytes.iter().all(u8::is_ascii_digit) {
        return error(format!("expected a board size (a whole number from 1 to {MAX_N}, or 0 to end), found {}", shown(token, bytes)));
    }
    // Saturate so that any run of digits is judged without overflow; a token longer than
    // it keeps is far out of range.
    let n = bytes.iter().fold(0usize, |v, &d| v.saturating_mul(10).saturating_add((d - b'0') as usize));
    if n > MAX_N || token.len > bytes.len() {
        return error(format!("board size {} is out of range: expected 1 to {MAX_N}, or 0 to end", shown(token, bytes)));
    }
    Ok(n)
}

/// The free-cell mask of row `r` of an `n` board, from its token (`bytes` kept of it).
fn row_mask(n: usize, r: usize, token: &Token, bytes: &[u8]) -> Result<u32, ParseError> {
    if token.len == n {
        if let Some(mask) = tokens::cells_mask(bytes) {
            return Ok(mask);
        }
    }
    let mut mask = 0u32;
    for (c, &b) in bytes.iter().enumerate() {
        match b {
            b'.' if c < n => mask |= 1 << c,
            b'*' if c < n => {}
            b'.' | b'*' => break,
            _ => {
                return Err(syntax(
                    token.line,
                    Some(token.column + c),
                    format!("expected '.' (free) or '*' (obstacle) in row {} of {n}, found {}", r + 1, shown_char(bytes, c)),
                ))
            }
        }
    }
    if token.len != n {
        let cells = format!("{}{}", if token.cut { "at least " } else { "" }, counted(token.len, "cell"));
        return Err(syntax(token.line, Some(token.column), format!("row {} of {n} has {cells}, expected {n}", r + 1)));
    }
    Ok(mask)
}

impl<R: Read> Iterator for Parser<R> {
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

impl std::str::FromStr for Board {
    type Err = ParseError;

    /// One board in judge format: `n`, then its `n` rows, in any whitespace; a `0` may end
    /// it, as it ends an input, and nothing else may follow.
    ///
    /// ```
    /// let board: nqueen::Board = "4\n.*..\n....\n....\n....\n".parse()?;
    /// assert_eq!((board.n(), board.obstacles()), (4, 1));
    /// assert!("4\n.*..\n".parse::<nqueen::Board>().unwrap_err().to_string().contains("expected row 2 of 4"));
    /// # Ok::<(), nqueen::ParseError>(())
    /// ```
    fn from_str(text: &str) -> Result<Board, ParseError> {
        let mut parser = Parser::new(text.as_bytes());
        let board =
            parser.next_board()?.ok_or_else(|| syntax(parser.last_line, None, "expected a board: its size n, then n rows".into()))?;
        match parser.next_board()? {
            None => Ok(board),
            Some(_) => Err(syntax(parser.last_line, None, "expected one board, found another after it".into())),
        }
    }
}

fn syntax(line: usize, column: Option<usize>, message: String) -> ParseError {
    ParseError::Syntax { line, column, message }
}

/// A token as the user will recognise it: quoted, escaped, cut to a readable length.
fn shown(token: &Token, bytes: &[u8]) -> String {
    const MAX_SHOWN: usize = 20;
    let cut = &bytes[..bytes.len().min(MAX_SHOWN)];
    let more = if token.len > MAX_SHOWN { "..." } else { "" };
    format!("\"{}{more}\"", printable(cut))
}

/// The character that starts at `bytes[at]`, as the user will recognise it: "é" where the
/// bytes are UTF-8 text, else the byte in hex.
fn shown_char(bytes: &[u8], at: usize) -> String {
    let rest = &bytes[at..];
    match rest.utf8_chunks().next() {
        Some(chunk) if !chunk.valid().is_empty() => {
            let c = chunk.valid().chars().next().unwrap_or_default();
            match c {
                c if c.is_ascii_graphic() => format!("\"{c}\""),
                c if c.is_ascii_control() => format!("\"\\x{:02x}\"", c as u32),
                c if c.is_control() || c.is_whitespace() => format!("\"{}\"", c.escape_debug()),
                c => format!("\"{c}\" (U+{:04X})", c as u32),
            }
        }
        _ => format!("the byte 0x{:02X}, which is not UTF-8 text", rest.first().copied().unwrap_or_default()),
    }
}

/// Bytes as text: UTF-8 as it is, control characters escaped, other bytes in hex.
fn printable(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                c if c.is_ascii_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
                c if c.is_control() => out.extend(c.escape_debug()),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
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
        assert_eq!(e("2\n..\n.\n"), "line 3, column 1: row 2 of 2 has 1 cell, expected 2");
        assert_eq!(e("2\n..\n...\n"), "line 3, column 1: row 2 of 2 has 3 cells, expected 2");
        assert_eq!(e("2\n..\n.x\n"), "line 3, column 2: expected '.' (free) or '*' (obstacle) in row 2 of 2, found \"x\"");
        assert!(e("abc\n").starts_with("line 1, column 1: expected a board size"));
        assert!(e("33\n").contains("board size \"33\" is out of range"));
        assert!(e("99999999999999999999999\n").contains("out of range"));
        assert!(e("3\n...\n").starts_with("line 2: the input ended inside the board of size 3 begun on line 1: expected row 2 of 3"));
        assert!(e("-1\n").contains("found \"-1\""));
    }

    #[test]
    fn a_whole_input_on_one_line_is_read() {
        let one_line = ["4 .... .... .... ...."; 5000].join(" ");
        let got = parse_all(&one_line);
        assert_eq!(got.len(), 5000);
        assert!(got.iter().all(|b| b.as_ref().is_ok_and(|b| *b == Board::empty(4).unwrap())));
    }

    #[test]
    fn a_long_token_is_an_error_not_an_allocation() {
        let long = format!("1\n{}\n", ".".repeat(1 << 20));
        assert_eq!(parse_all(&long).pop().unwrap().unwrap_err(), "line 2, column 1: row 1 of 1 has at least 1048576 cells, expected 1");
        let digits = format!("0{}", "0".repeat(100));
        assert!(parse_all(&digits).pop().unwrap().unwrap_err().contains("out of range"));
    }

    #[test]
    fn a_byte_order_mark_vertical_tabs_and_cr_line_ends_are_accepted() {
        assert_eq!(parse_all("\u{feff}2\x0b.*\r**\r").len(), 1);
        assert_eq!(
            parse_all("2\r..\r.x\r").pop().unwrap().unwrap_err(),
            "line 3, column 2: expected '.' (free) or '*' (obstacle) in row 2 of 2, found \"x\""
        );
    }

    #[test]
    fn row_masks_are_read_eight_cells_at_a_time_as_one_at_a_time() {
        let mut rng = crate::rng::Rng::new(5);
        for n in 1..=32 {
            for _ in 0..50 {
                let text: Vec<u8> = (0..n).map(|_| if rng.chance(0.5) { b'.' } else { b'*' }).collect();
                let want = text.iter().enumerate().fold(0u32, |m, (c, &b)| if b == b'.' { m | 1 << c } else { m });
                assert_eq!(tokens::cells_mask(&text), Some(want), "{}", String::from_utf8_lossy(&text));
            }
        }
        assert_eq!(tokens::cells_mask(b"..x."), None);
        assert_eq!(tokens::cells_mask(b".......\n"), None);
    }

    #[test]
    fn nothing_is_read_after_an_error() {
        let got = parse_all("1\n.\nx\n1\n.\n");
        assert_eq!(got.len(), 2);
        assert!(got[1].is_err());
    }

    #[test]
    fn text_outside_ascii_is_shown_as_its_characters() {
        let e = |text: &str| parse_all(text)[0].clone().unwrap_err();
        assert_eq!(e("2\n..\n.é\n"), "line 3, column 2: expected '.' (free) or '*' (obstacle) in row 2 of 2, found \"é\" (U+00E9)");
        assert_eq!(
            e("3\n...\n.\u{2605}.\n...\n"),
            "line 3, column 2: expected '.' (free) or '*' (obstacle) in row 2 of 3, found \"\u{2605}\" (U+2605)"
        );
        assert_eq!(e("ñ\n"), "line 1, column 1: expected a board size (a whole number from 1 to 32, or 0 to end), found \"ñ\"");
        let bytes = Parser::new(&b"2\n..\n.\xff\n"[..]).next().unwrap().unwrap_err().to_string();
        assert_eq!(
            bytes,
            "line 3, column 2: expected '.' (free) or '*' (obstacle) in row 2 of 2, found the byte 0xFF, which is not UTF-8 text"
        );
    }
}
