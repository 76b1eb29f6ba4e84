//! Whitespace-separated tokens of any input, streamed with bounded memory: a token keeps
//! at most [`KEPT`] bytes (its length is still counted), and no line is ever held whole,
//! so one long line costs no more than many short ones.

use std::io::{self, BufRead};

/// Bytes of a token kept for the parser: a row has at most 32 cells and a board size a
/// few digits, so anything longer is an error whose message needs only its start.
pub const KEPT: usize = 64;

/// The UTF-8 byte-order mark some editors put at the start of a text file.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// Where a token starts and how long it is; its bytes are [`Tokens::bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// Line of its first byte, from 1.
    pub line: usize,
    /// Column of its first byte in that line, in bytes, from 1.
    pub column: usize,
    /// Its whole length in bytes.
    pub len: usize,
}

/// Whether `b` separates tokens: every ASCII whitespace byte, the vertical tab included
/// (which Rust's `is_ascii_whitespace` leaves out).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Splits a reader into tokens, counting lines for LF, CRLF and CR-only line ends alike.
pub struct Tokens<R> {
    src: R,
    /// Bytes read at the start to look for a byte-order mark that turned out to be input:
    /// they are read again before `src`, from `head_used` on.
    head: Vec<u8>,
    head_used: usize,
    /// The current line, from 1, and the byte offset in the input where it starts.
    line: usize,
    line_start: u64,
    /// Bytes consumed so far.
    offset: u64,
    /// The first [`KEPT`] bytes of the last token.
    kept: [u8; KEPT],
    /// The last byte was a CR, so an LF now ends no further line.
    after_cr: bool,
    /// The start of the input, where a byte-order mark may stand, has been looked at.
    started: bool,
}

impl<R: BufRead> Tokens<R> {
    /// The tokens of `src`.
    pub fn new(src: R) -> Tokens<R> {
        Tokens { src, head: Vec::new(), head_used: 0, line: 1, line_start: 0, offset: 0, kept: [0; KEPT], after_cr: false, started: false }
    }

    /// The last token's bytes, or its first [`KEPT`] when it is longer.
    pub fn bytes(&self, token: &Token) -> &[u8] {
        &self.kept[..token.len.min(KEPT)]
    }

    /// The next token, `Ok(None)` at the end of the input.
    pub fn next_token(&mut self) -> io::Result<Option<Token>> {
        if !self.started {
            self.skip_bom()?;
        }
        let mut token: Option<Token> = None;
        loop {
            let in_head = self.head_used < self.head.len();
            let buf = if in_head {
                &self.head[self.head_used..]
            } else {
                match self.src.fill_buf() {
                    Ok(buf) => buf,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            if buf.is_empty() {
                return Ok(token);
            }
            let mut used = 0;
            let mut ended = false;
            while used < buf.len() {
                let b = buf[used];
                if !is_space(b) {
                    // A run of token bytes, taken whole.
                    let end = buf[used..].iter().position(|&b| is_space(b)).map_or(buf.len(), |k| used + k);
                    let t = token.get_or_insert_with(|| Token {
                        line: self.line,
                        column: (self.offset - self.line_start) as usize + 1,
                        len: 0,
                    });
                    let keep = (end - used).min(KEPT.saturating_sub(t.len));
                    self.kept[t.len.min(KEPT)..t.len.min(KEPT) + keep].copy_from_slice(&buf[used..used + keep]);
                    t.len += end - used;
                    self.offset += (end - used) as u64;
                    self.after_cr = false;
                    used = end;
                    continue;
                }
                if token.is_some() {
                    // The separator is left for the next call, so that its line end is
                    // counted there.
                    ended = true;
                    break;
                }
                used += 1;
                self.offset += 1;
                match b {
                    b'\n' if self.after_cr => self.line_start = self.offset,
                    b'\n' | b'\r' => {
                        self.line += 1;
                        self.line_start = self.offset;
                    }
                    _ => {}
                }
                self.after_cr = b == b'\r';
            }
            if in_head {
                self.head_used += used;
            } else {
                self.src.consume(used);
            }
            if ended {
                return Ok(token);
            }
        }
    }

    /// Skips a byte-order mark at the very start of the input; bytes read to look for one
    /// that are not one are put back.
    fn skip_bom(&mut self) -> io::Result<()> {
        self.started = true;
        let mut head = Vec::with_capacity(BOM.len());
        while head.len() < BOM.len() {
            let buf = match self.src.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let Some(&b) = buf.first() else { break };
            if b != BOM[head.len()] {
                break;
            }
            head.push(b);
            self.src.consume(1);
        }
        if head != BOM {
            self.head = head;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every token of `text` as (line, column, text), read through a buffer of `chunk` bytes.
    fn tokens(text: &[u8], chunk: usize) -> Vec<(usize, usize, String)> {
        let mut t = Tokens::new(io::BufReader::with_capacity(chunk, text));
        let mut out = Vec::new();
        while let Some(tok) = t.next_token().unwrap() {
            out.push((tok.line, tok.column, String::from_utf8_lossy(t.bytes(&tok)).into_owned()));
        }
        out
    }

    #[test]
    fn lines_and_columns_count_alike_for_every_line_end() {
        let want = vec![(1, 1, "ab".to_string()), (2, 3, "c".to_string()), (4, 1, "d".to_string())];
        for end in ["\n", "\r\n", "\r"] {
            let text = format!("ab{end}  c{end}{end}d{end}");
            for chunk in [1, 2, 3, 64] {
                assert_eq!(tokens(text.as_bytes(), chunk), want, "line end {end:?}, chunk {chunk}");
            }
        }
    }

    #[test]
    fn every_ascii_whitespace_separates() {
        assert_eq!(tokens(b"a\tb\x0bc\x0cd e", 8).iter().map(|t| t.2.as_str()).collect::<Vec<_>>(), ["a", "b", "c", "d", "e"]);
    }

    #[test]
    fn a_byte_order_mark_at_the_start_is_skipped() {
        for chunk in [1, 2, 64] {
            assert_eq!(tokens(b"\xef\xbb\xbf4 x", chunk), vec![(1, 1, "4".to_string()), (1, 3, "x".to_string())]);
        }
        // Elsewhere, or cut short, it is part of a token.
        assert_eq!(tokens(b"4 \xef\xbb\xbf", 64)[1].2, "\u{feff}");
        for chunk in [1, 64] {
            assert_eq!(tokens(b"\xef\xbbx 1", chunk), vec![(1, 1, "\u{fffd}x".to_string()), (1, 5, "1".to_string())]);
        }
    }

    #[test]
    fn a_long_token_keeps_its_start_and_its_length() {
        let text = format!("1 {} 2", ".".repeat(100_000));
        let mut t = Tokens::new(io::BufReader::with_capacity(16, text.as_bytes()));
        t.next_token().unwrap();
        let long = t.next_token().unwrap().unwrap();
        assert_eq!((long.len, t.bytes(&long).len(), long.column), (100_000, KEPT, 3));
        assert_eq!(t.next_token().unwrap().unwrap().column, 100_004);
        assert_eq!(t.next_token().unwrap(), None);
    }
}
