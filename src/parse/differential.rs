//! The tokenizer and the parser against an obviously correct reference, written here: the
//! whole input in memory, a byte at a time. On inputs of every shape, invalid bytes
//! included, read in pieces cut at any offset, both must give the same tokens at the same
//! lines and columns, and the parser the same boards and the same errors.

use proptest::prelude::*;

use super::tokens::{Chunked, Token, Tokens, BOM, KEPT, MAX_TOKEN};
use super::{board_size, row_mask, syntax, ParseError, Parser};
use crate::board::Board;

/// The reference's tokens of `text`: (token, its first [`KEPT`] bytes).
fn reference_tokens(text: &[u8]) -> Vec<(Token, Vec<u8>)> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let (mut line, mut line_start, mut out) = (1, 0, Vec::new());
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
            // A CR ends a line; an LF ends one unless it follows a CR.
            if b == b'\r' || (b == b'\n' && (i == 0 || text[i - 1] != b'\r')) {
                line += 1;
            }
            if b == b'\r' || b == b'\n' {
                line_start = i + 1;
            }
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && !matches!(text[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
            i += 1;
        }
        // Cut after a control byte that starts it, or after MAX_TOKEN bytes; what follows is
        // the next token.
        let cut_at = if b.is_ascii_control() { Some(start + 1) } else { (i - start >= MAX_TOKEN).then_some(start + MAX_TOKEN) };
        let end = cut_at.unwrap_or(i);
        let token = Token { line, column: start - line_start + 1, len: end - start, cut: cut_at.is_some() };
        out.push((token, text[start..start + (end - start).min(KEPT)].to_vec()));
        i = end;
    }
    out
}

/// The reference's boards of `text`, as the parser's rules read them from its tokens.
fn reference_boards(text: &[u8]) -> Vec<Result<Board, String>> {
    let tokens = reference_tokens(text);
    let mut it = tokens.iter();
    let mut out = Vec::new();
    let mut last_line = 1;
    let result = (|| -> Result<(), ParseError> {
        while let Some((size, bytes)) = it.next() {
            last_line = size.line;
            let n = board_size(size, bytes)?;
            if n == 0 {
                return Ok(());
            }
            let mut rows = Vec::new();
            for r in 0..n {
                let Some((row, bytes)) = it.next() else {
                    let message =
                        format!("the input ended inside the board of size {n} begun on line {}: expected row {} of {n}", size.line, r + 1);
                    return Err(syntax(last_line, None, message));
                };
                last_line = row.line;
                rows.push(row_mask(n, r, row, bytes)?);
            }
            out.push(Ok(Board::from_rows(n, rows).expect("masks within n columns")));
        }
        Ok(())
    })();
    if let Err(e) = result {
        out.push(Err(e.to_string()));
    }
    out
}

/// The tokenizer's tokens of `text`, read in pieces of `cuts` bytes.
fn tokens_of(text: &[u8], cuts: &[usize]) -> Vec<(Token, Vec<u8>)> {
    let mut t = Tokens::new(Chunked { text, cuts: cuts.to_vec() });
    let mut out = Vec::new();
    while let Some(token) = t.next_token().expect("reading memory cannot fail") {
        out.push((token, t.bytes(&token).to_vec()));
    }
    out
}

/// Inputs of every shape: judge-like boards with any separators, stray and invalid bytes,
/// a byte-order mark or half of one, long tokens.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let separator = prop::sample::select(vec![&b" "[..], b"\t", b"\n", b"\r", b"\r\n", b"\x0b", b"\x0c", b"\n\n", b"  "]);
    let row = |n: usize| prop::collection::vec(prop::sample::select(vec![b'.', b'*']), n);
    let board =
        (1usize..=12).prop_flat_map(move |n| (Just(n), prop::collection::vec(row(n), n), prop::collection::vec(separator.clone(), n + 1)));
    let junk = prop::collection::vec(any::<u8>(), 0..6);
    let piece = prop_oneof![
        6 => board.prop_map(|(n, rows, seps)| {
            let mut text = n.to_string().into_bytes();
            for (row, sep) in rows.iter().zip(&seps) {
                text.extend_from_slice(sep);
                text.extend_from_slice(row);
            }
            text.extend_from_slice(seps[n]);
            text
        }),
        1 => junk,
        1 => (1usize..200).prop_map(|k| b".".repeat(k)),
        1 => Just(b"0\n".to_vec()),
    ];
    let start = prop::sample::select(vec![&b""[..], BOM, &BOM[..2]]);
    (start, prop::collection::vec(piece, 0..6)).prop_map(|(start, pieces)| [start.to_vec(), pieces.concat()].concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn the_tokenizer_matches_the_reference(text in input(), cuts in prop::collection::vec(1usize..80, 1..8)) {
        prop_assert_eq!(tokens_of(&text, &cuts), reference_tokens(&text));
    }

    #[test]
    fn the_parser_matches_the_reference(text in input(), cuts in prop::collection::vec(1usize..80, 1..8)) {
        let got: Vec<Result<Board, String>> =
            Parser::new(Chunked { text: &text, cuts }).map(|b| b.map_err(|e| e.to_string())).collect();
        prop_assert_eq!(got, reference_boards(&text));
    }
}

#[test]
fn reads_cut_at_every_offset_give_the_same_tokens() {
    let text = b"\xef\xbb\xbf3\r\n.*.\n\r\n*.*\t...\x0b2 ..\r..\x0c0";
    let want = reference_tokens(text);
    for cut in 1..=text.len() {
        for first in 1..=text.len() {
            assert_eq!(tokens_of(text, &[first, cut]), want, "reads of {first} then {cut} bytes");
        }
    }
}
