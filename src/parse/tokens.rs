//! Whitespace-separated tokens of any input, streamed with bounded memory: a token keeps
//! at most [`KEPT`] bytes (its length is still counted), and no line is ever held whole,
//! so one long line costs no more than many short ones.
//!
//! The input is scanned in bulk, not a byte and a branch at a time: a row's cells, `.` and
//! `*`, are passed over eight at a time, as are runs of spaces, and a long token ends at
//! the next line end, found by `memchr2`, unless a space or tab comes first.

use std::io::{self, Read};

/// Bytes of a token kept for the parser: a row has at most 32 cells and a board size a
/// few digits, so anything longer is an error whose message needs only its start.
pub const KEPT: usize = 64;

/// The UTF-8 byte-order mark some editors put at the start of a text file.
pub(super) const BOM: &[u8] = b"\xef\xbb\xbf";

/// Where a token starts and how long it is; its bytes are [`Tokens::bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// Line of its first byte, from 1.
    pub line: usize,
    /// Column of its first byte in that line, in bytes, from 1.
    pub column: usize,
    /// Its whole length in bytes, or where it was cut.
    pub len: usize,
    /// It was cut: after [`MAX_TOKEN`] bytes, or after its first byte where that is a
    /// control byte, which no token of judge input holds. It is wrong whatever follows, and
    /// what follows is not read.
    pub cut: bool,
}

/// The longest token read whole: no board size or row comes near it, and an endless one
/// (`/dev/zero`) is refused after this much.
pub const MAX_TOKEN: usize = 1 << 20;

/// Whether `b` separates tokens: every ASCII whitespace byte, the vertical tab included
/// (which Rust's `is_ascii_whitespace` leaves out).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Eight spaces, as a little-endian word.
const SPACES: u64 = u64::from_le_bytes(*b"        ");
/// Eight `.` cells; a word of cells only, `.` or `*` (which differ in bit 2 alone), is this
/// with the bit set in every byte.
const CELLS: u64 = u64::from_le_bytes(*b"........");
const BIT_2: u64 = 0x0404_0404_0404_0404;

/// Whether the eight bytes of `word` are all cells, `.` or `*`.
pub fn all_cells(word: u64) -> bool {
    word | BIT_2 == CELLS
}

/// Bytes looked at one at a time after a token's cells before its line end is searched for
/// by `memchr2`: a row ends right after its cells, and the search costs more than a few
/// bytes do.
const NEAR: usize = 16;

/// How long the token at the start of `bytes` is: up to the first separator, or all of
/// `bytes`. Cells are passed eight at a time; past them, a separator within [`NEAR`] bytes
/// is found byte by byte, a further one by finding the line end with `memchr2` and looking
/// for a space or tab before it.
fn token_length(bytes: &[u8]) -> usize {
    let mut i = 0;
    while let Some(word) = bytes.get(i..i + 8) {
        if !all_cells(u64::from_le_bytes(word.try_into().expect("eight bytes"))) {
            break;
        }
        i += 8;
    }
    let near = (i + NEAR).min(bytes.len());
    if let Some(k) = bytes[i..near].iter().position(|&b| is_space(b)) {
        return i + k;
    }
    let line = memchr::memchr2(b'\n', b'\r', &bytes[near..]).map_or(bytes.len(), |k| near + k);
    near + bytes[near..line].iter().position(|&b| is_space(b)).unwrap_or(line - near)
}

/// Where a byte of the input is: its line and the line's start, counting LF, CRLF and CR-only
/// line ends alike.
#[derive(Clone, Copy, Debug)]
struct Place {
    /// The line, from 1, and the byte offset in the input where it starts.
    line: usize,
    line_start: u64,
    /// Bytes before it.
    offset: u64,
    /// The byte before was a CR, so an LF now ends no further line.
    after_cr: bool,
}

impl Place {
    /// Passes over the separators at the start of `buf` (all of it, if it holds only
    /// separators), counting their line ends; returns how many there were.
    fn skip_space(&mut self, buf: &[u8]) -> usize {
        let mut used = 0;
        while used < buf.len() {
            if let Some(word) = buf.get(used..used + 8) {
                if u64::from_le_bytes(word.try_into().expect("eight bytes")) == SPACES {
                    used += 8;
                    self.offset += 8;
                    self.after_cr = false;
                    continue;
                }
            }
            let b = buf[used];
            if !is_space(b) {
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
        used
    }
}

/// The mask of the `.` cells of `bytes` (at most 32), eight at a time, if every byte is `.`
/// or `*`.
pub fn cells_mask(bytes: &[u8]) -> Option<u32> {
    let mut mask = 0u32;
    for (i, chunk) in bytes.chunks(8).enumerate() {
        // A short last chunk is made up with obstacles.
        let word = match chunk.try_into() {
            Ok(whole) => u64::from_le_bytes(whole),
            Err(_) => chunk.iter().rev().fold(u64::from_le_bytes(*b"********"), |w, &b| w << 8 | u64::from(b)),
        };
        if !all_cells(word) {
            return None;
        }
        // Bit 2 of each byte is set for `.`; the multiply gathers byte k's into bit 56 + k.
        let free = (word >> 2) & 0x0101_0101_0101_0101;
        mask |= ((free.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32) << (8 * i);
    }
    Some(mask)
}

/// What [`Tokens::next_row`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    /// A row of cells, on line `line`: the mask of its `.` cells.
    Cells { line: usize, mask: u32 },
    /// Another token, for the parser to judge.
    Token(Token),
    /// The end of the input.
    End,
}

/// Bytes read from the input at a time.
const BUFFER: usize = 1 << 16;

/// Splits a reader into tokens, counting lines for LF, CRLF and CR-only line ends alike.
/// It reads into a buffer of its own, so that taking a token costs no call on the reader.
pub struct Tokens<R> {
    src: R,
    /// Bytes read and not yet taken: `buf[start..end]`.
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// Where the next byte is.
    at: Place,
    /// The first [`KEPT`] bytes of the last token.
    kept: [u8; KEPT],
    /// The start of the input, where a byte-order mark may stand, has been looked at.
    started: bool,
}

impl<R: Read> Tokens<R> {
    /// The tokens of `src`.
    pub fn new(src: R) -> Tokens<R> {
        let at = Place { line: 1, line_start: 0, offset: 0, after_cr: false };
        Tokens { src, buf: vec![0; BUFFER].into_boxed_slice(), start: 0, end: 0, at, kept: [0; KEPT], started: false }
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
            // Reading waits for input only when nothing read is left: an input typed at a
            // terminal gets each token as soon as its line is in.
            if self.start == self.end {
                (self.start, self.end) = (0, 0);
                if !self.read_more()? {
                    return Ok(token);
                }
            }
            let buf = &self.buf[self.start..self.end];
            // Before a token: separators, with their line ends counted.
            let start = if token.is_none() { self.at.skip_space(buf) } else { 0 };
            let mut end = start + token_length(&buf[start..]);
            // Binary data is said at once, not at the input's end; an endless token is cut.
            let so_far = token.as_ref().map_or(0, |t| t.len);
            let control = end > start && so_far == 0 && buf[start].is_ascii_control();
            let cut = control || end - start >= MAX_TOKEN - so_far;
            if cut {
                end = if control { start + 1 } else { start + (MAX_TOKEN - so_far) };
            }
            if end > start {
                let at = &mut self.at;
                let t = token.get_or_insert_with(|| Token {
                    line: at.line,
                    column: (at.offset - at.line_start) as usize + 1,
                    len: 0,
                    cut: false,
                });
                let keep = (end - start).min(KEPT.saturating_sub(t.len));
                match buf.get(start..start + KEPT) {
                    // A copy of fixed size is a few moves, not a call; the bytes past the
                    // token are never read.
                    Some(whole) if t.len == 0 => self.kept.copy_from_slice(whole),
                    _ => self.kept[t.len.min(KEPT)..t.len.min(KEPT) + keep].copy_from_slice(&buf[start..start + keep]),
                }
                t.len += end - start;
                t.cut = cut;
                at.offset += (end - start) as u64;
                at.after_cr = false;
            }
            if cut {
                self.start += end;
                return Ok(token);
            }
            let ended = token.is_some() && end < buf.len();
            self.start += end;
            // A token ends at a separator, which is left for the next call so that its line
            // end is counted there.
            if ended {
                return Ok(token);
            }
        }
    }

    /// The next token, read as a row of `n` cells where it is one (`n` cells, `.` or `*`,
    /// then a separator, all read): then its mask is made from the buffer in one pass, with
    /// no token kept. Anything else comes as [`Row::Token`], the same as [`Tokens::next_token`]
    /// would give it.
    pub fn next_row(&mut self, n: usize) -> io::Result<Row> {
        if self.started && self.start < self.end {
            let buf = &self.buf[self.start..self.end];
            let mut at = self.at;
            let first = at.skip_space(buf);
            let row = buf.get(first..first + n + 1).filter(|row| is_space(row[n])).and_then(|row| cells_mask(&row[..n]));
            if let Some(mask) = row {
                let line = at.line;
                at.offset += n as u64;
                at.after_cr = false;
                self.at = at;
                self.start += first + n;
                return Ok(Row::Cells { line, mask });
            }
        }
        Ok(self.next_token()?.map_or(Row::End, Row::Token))
    }

    /// Reads more input after `buf[..end]`; false at its end.
    fn read_more(&mut self) -> io::Result<bool> {
        loop {
            match self.src.read(&mut self.buf[self.end..]) {
                Ok(0) => return Ok(false),
                Ok(k) => {
                    self.end += k;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Skips a byte-order mark at the very start of the input, reading on only while what
    /// was read could still be one.
    fn skip_bom(&mut self) -> io::Result<()> {
        self.started = true;
        while self.end < BOM.len() && BOM.starts_with(&self.buf[..self.end]) && self.read_more()? {}
        if self.buf[..self.end].starts_with(BOM) {
            self.start = BOM.len();
        }
        Ok(())
    }
}

/// A reader of `text` that gives a read at most as many bytes as `cuts` says in turn (the
/// last again once they run out): input arriving in pieces, for the tests.
#[cfg(test)]
pub(crate) struct Chunked<'a> {
    pub(crate) text: &'a [u8],
    pub(crate) cuts: Vec<usize>,
}

#[cfg(test)]
impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let cut = if self.cuts.len() > 1 { self.cuts.remove(0) } else { self.cuts.first().copied().unwrap_or(usize::MAX) };
        let k = cut.max(1).min(buf.len()).min(self.text.len());
        buf[..k].copy_from_slice(&self.text[..k]);
        self.text = &self.text[k..];
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every token of `text` as (line, column, text), read `chunk` bytes at a time.
    fn tokens(text: &[u8], chunk: usize) -> Vec<(usize, usize, String)> {
        let mut t = Tokens::new(Chunked { text, cuts: vec![chunk] });
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
        let mut t = Tokens::new(Chunked { text: text.as_bytes(), cuts: vec![16] });
        t.next_token().unwrap();
        let long = t.next_token().unwrap().unwrap();
        assert_eq!((long.len, t.bytes(&long).len(), long.column), (100_000, KEPT, 3));
        assert_eq!(t.next_token().unwrap().unwrap().column, 100_004);
        assert_eq!(t.next_token().unwrap(), None);
    }
}
