//! Whether a checkpoint's last line, which has no newline, is one that a run stopped while
//! writing it: the start of a line nqueen writes, its fields in nqueen's order, each value
//! of its kind as far as it goes (hex digits for a hash, digits for a whole number, free
//! text only where nqueen writes free text). A note a person added is none of these, and
//! is kept.

/// What a field's value is, as nqueen writes it.
#[derive(Clone, Copy, Debug)]
enum Value {
    /// This string: the line's kind.
    Is(&'static str),
    /// A string of lowercase hex digits: a hash, a digest, a run's id.
    Hex,
    /// A string of any text: a version, a backend's name.
    Text,
    /// A whole number.
    Whole,
    /// A number as JSON writes it: seconds.
    Number,
    /// Pairs of whole numbers: `[[0,5],[9,17]]`.
    Ranges,
}

use Value::{Hex, Is, Number, Ranges, Text, Whole};

/// A field: its name, its value, and whether lines of some build leave it out.
type Field = (&'static str, Value, bool);

/// The fields of each line, in the order nqueen writes them; those of earlier builds too
/// (no digest, no seconds, a case's method).
const LINES: [&[Field]; 3] = [
    &[("record", Is("header"), false), ("format", Whole, false), ("nqueen", Text, false), ("digest", Hex, true)],
    &[
        ("record", Is("unit"), false),
        ("input", Whole, false),
        ("case", Whole, false),
        ("board", Hex, false),
        ("shard", Whole, false),
        ("shards", Whole, false),
        ("plan", Hex, false),
        ("ranges", Ranges, false),
        ("solutions", Whole, false),
        ("nodes", Whole, false),
        ("device_seconds", Number, true),
        ("digest", Hex, true),
    ],
    &[
        ("record", Is("case"), false),
        ("input", Whole, false),
        ("case", Whole, false),
        ("board", Hex, false),
        ("shard", Whole, false),
        ("shards", Whole, false),
        ("plan", Hex, false),
        ("solutions", Whole, false),
        ("nodes", Whole, false),
        ("device_seconds", Number, true),
        ("backend", Text, true),
        ("method", Text, true),
        ("run", Hex, true),
        ("digest", Hex, true),
    ],
];

/// Why text did not go on as a line.
#[derive(Debug, PartialEq, Eq)]
enum Stop {
    /// It ended where the line goes on.
    Ended,
    /// It holds what the line does not.
    Differs,
}

/// What is left of the text past what was read; or why it was not read.
type Step<'a> = Result<&'a str, Stop>;

/// Whether `text`, a last line with no newline, is the start of a checkpoint line, cut
/// short before its end (a character may be cut in two).
pub(super) fn cut_short(text: &[u8]) -> bool {
    let text = match std::str::from_utf8(text) {
        Ok(text) => text,
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&text[..e.valid_up_to()]).unwrap_or_default(),
        Err(_) => return false,
    };
    LINES.iter().any(|fields| line(text, fields) == Err(Stop::Ended))
}

/// `text` read as a line of `fields`, to its closing brace.
fn line<'a>(text: &'a str, fields: &[Field]) -> Step<'a> {
    let mut at = exactly(text, "{")?;
    let mut next = 0;
    loop {
        // The fields that may come next: optional ones up to the first one a line must have.
        let must = fields[next..].iter().position(|f| !f.2).map_or(fields.len(), |k| next + k + 1);
        let comma = if next == 0 { "" } else { "," };
        let mut found = None;
        for (k, (name, value, _)) in fields.iter().enumerate().take(must).skip(next) {
            match exactly(at, &format!("{comma}\"{name}\":")) {
                Ok(rest) => {
                    found = Some((k, *value, rest));
                    break;
                }
                Err(Stop::Ended) => return Err(Stop::Ended),
                Err(Stop::Differs) => {}
            }
        }
        match found {
            Some((k, value, rest)) => {
                at = read(rest, value)?;
                next = k + 1;
            }
            None if must == fields.len() && fields[next..].iter().all(|f| f.2) => return exactly(at, "}"),
            None => return Err(Stop::Differs),
        }
    }
}

/// `text` past `expected`, which it starts with.
fn exactly<'a>(text: &'a str, expected: &str) -> Step<'a> {
    match text.strip_prefix(expected) {
        Some(rest) => Ok(rest),
        None if expected.starts_with(text) => Err(Stop::Ended),
        None => Err(Stop::Differs),
    }
}

/// `text` past a value of `kind`.
fn read(text: &str, kind: Value) -> Step<'_> {
    match kind {
        Is(what) => exactly(exactly(text, "\"")?, what).and_then(|rest| exactly(rest, "\"")),
        Hex => string(text, |rest| {
            let digits = rest.bytes().take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b)).count();
            Ok(&rest[digits..])
        }),
        Text => string(text, text_within),
        Whole => digits(text),
        Number => number(text),
        Ranges => {
            let mut at = exactly(text, "[")?;
            loop {
                at = exactly(at, "[")?;
                at = exactly(digits(at)?, ",")?;
                at = exactly(digits(at)?, "]")?;
                match exactly(at, ",") {
                    Ok(rest) => at = rest,
                    Err(Stop::Differs) => return exactly(at, "]"),
                    Err(Stop::Ended) => return Err(Stop::Ended),
                }
            }
        }
    }
}

/// `text` past a string whose characters `within` reads.
fn string<'a>(text: &'a str, within: fn(&'a str) -> Step<'a>) -> Step<'a> {
    exactly(within(exactly(text, "\"")?)?, "\"")
}

/// `text` past the characters of a JSON string, up to its closing quote.
fn text_within(text: &str) -> Step<'_> {
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok(&text[at..]),
            '\\' => match chars.next() {
                None => return Err(Stop::Ended),
                Some((_, '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't')) => {}
                Some((_, 'u')) => {
                    for _ in 0..4 {
                        match chars.next() {
                            None => return Err(Stop::Ended),
                            Some((_, h)) if h.is_ascii_hexdigit() => {}
                            Some(_) => return Err(Stop::Differs),
                        }
                    }
                }
                Some(_) => return Err(Stop::Differs),
            },
            c if c < ' ' => return Err(Stop::Differs),
            _ => {}
        }
    }
    Err(Stop::Ended)
}

/// `text` past one digit or more.
fn digits(text: &str) -> Step<'_> {
    let n = text.bytes().take_while(u8::is_ascii_digit).count();
    match n {
        _ if n == text.len() => Err(Stop::Ended),
        0 => Err(Stop::Differs),
        _ => Ok(&text[n..]),
    }
}

/// `text` past a JSON number: `-1.5e-7`.
fn number(text: &str) -> Step<'_> {
    let mut at = text.strip_prefix('-').unwrap_or(text);
    at = digits(at)?;
    if let Some(rest) = at.strip_prefix('.') {
        at = digits(rest)?;
    }
    if let Some(rest) = at.strip_prefix(['e', 'E']) {
        at = digits(rest.strip_prefix(['+', '-']).unwrap_or(rest))?;
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_or_a_line_of_another_kind_is_not_cut_short() {
        let texts: [&[u8]; 16] = [
            b"note: started on node 5",
            b" {\"record\":\"unit\"",
            b"{\"note\":\"started on node 5",
            b"{\"record\":\"note",
            b"{\"record\":\"unit\",\"input\":\"zero\",\"case",
            b"{\"record\":\"case\",\"input\":0}",
            b"{\"record\":\"unit\"}, more",
            b"{\"record\":\"header\",\"format\":1,\"nqueen\":\"0\xff",
            b"{\"record\":\"unit\",\"input\":0,\"case\":1,\"board\":\"my note here, do not lose",
            b"{\"record\":\"unit\",\"input\":0,\"case\":1,\"board\":\"ab\",\"note\":\"mine",
            b"{\"record\":\"unit\",\"input\":0,\"case\":1,\"board\":\"ab\",\"shards\":1",
            b"{\"record\":\"unit\",\"input\":0,\"case\":1,\"board\":\"ab\",\"shard\":0,\"shards\":1,\"plan\":\"cd\",\"ranges\":[[0,5],[x",
            b"{\"record\":\"case\",\"input\":0,\"case\":1,\"board\":\"ab\",\"shard\":0,\"shards\":1,\"plan\":\"cd\",\"solutions\":1,\"nodes\":2,\"run\":\"ab\",\"backend\":\"cpu",
            b"{\"record\":\"case\",\"input\":0,\"case\":1,\"board\":\"ab\",\"shard\":0,\"shards\":1,\"plan\":\"cd\",\"solutions\":1,\"nodes\":2,\"device_seconds\":1.x",
            b"{\"record\":\"header\",\"format\":1,\"nqueen\":\"0.1.0\"}",
            b"{\"record\":\"header\",\"format\":1,\"nqueen\":\"a\x01",
        ];
        for text in texts {
            assert!(!cut_short(text), "{}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn the_lines_of_earlier_builds_are_cut_short_too() {
        let case = r#"{"record":"case","input":0,"case":1,"board":"0b","shard":0,"shards":1,"plan":"0f","solutions":92,"nodes":9,"device_seconds":1.5,"backend":"cpu(2 threads)","method":"join(k=9)"}"#;
        let unit = r#"{"record":"unit","input":0,"case":1,"board":"0b","shard":0,"shards":1,"plan":"0f","ranges":[[0,5]],"solutions":92,"nodes":9}"#;
        let escaped = r#"{"record":"case","input":0,"case":1,"board":"0b","shard":0,"shards":1,"plan":"0f","solutions":92,"nodes":9,"backend":"gpu(\"x\" \u00d7 8)"}"#;
        for line in [case, unit, escaped] {
            for cut in 1..line.len() - 1 {
                assert!(cut_short(&line.as_bytes()[..cut]), "{}", &line[..cut]);
            }
            assert!(!cut_short(line.as_bytes()), "a whole line is not cut short");
        }
    }
}
