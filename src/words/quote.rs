//! Names in messages as coreutils' `ls --quoting-style=shell-escape` shows them: a plain
//! name as it is, any other in single quotes, and a control character or a byte that is not
//! UTF-8 as a `$'\n'` escape. A message naming a file is then one line whatever the name
//! holds, and the name can be pasted back into a shell.
//!
//! Written here because no crate writes this style. `shell-quote` (0.8) quotes for bash in
//! `$'...'` alone (`$'my board.in'` where `ls` shows `'my board.in'`), and for sh keeps a
//! newline as it is; `shell-words` (1.1), `shlex` (2.0) and `shell-escape` (0.1) put a name
//! in single quotes with its control characters as they are, so that a newline in a name
//! would break the message in two.

use std::path::Path;

/// `name` quoted for a message (see the module's doc).
pub fn quoted(name: &str) -> String {
    quoted_bytes(name.as_bytes())
}

/// The file name `path` quoted for a message (see the module's doc), from its bytes: one
/// that is not UTF-8 is shown as its escape.
pub fn shown(path: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        quoted_bytes(path.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        quoted(&path.to_string_lossy())
    }
}

/// One character of a name, by what it takes in quotes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    /// Needs no quotes.
    Plain(&'a [u8]),
    /// Needs quotes, and reads the same in double quotes (a space, a leading `#` or `~`).
    Spaced(&'a [u8]),
    /// Needs quotes, and only single quotes keep it as it is (`$`, `*`, ...).
    Special(&'a [u8]),
    /// A single quote: said as `'\''` within single quotes.
    Quote,
    /// Shown only as an escape, `\n` or `\033`, within `$'...'`.
    Escape(&'a [u8]),
}

impl Piece<'_> {
    /// Whether the name reads the same in double quotes as in single quotes where it holds
    /// this character: as coreutils does, a name whose only quote is an apostrophe, and
    /// that holds nothing a shell reads within double quotes, is shown as "it's". (`#`, `~`,
    /// `{` and `}` need no quotes where they stand, but coreutils counts them out.)
    fn fits_double_quotes(self) -> bool {
        match self {
            Piece::Quote | Piece::Spaced(_) => true,
            Piece::Plain(b) => !(b.len() == 1 && b"#~{}".contains(&b[0])),
            Piece::Special(_) | Piece::Escape(_) => false,
        }
    }
}

/// `name`, a file name's bytes, quoted (see the module's doc).
fn quoted_bytes(name: &[u8]) -> String {
    if name.is_empty() {
        return "''".to_string();
    }
    let pieces = pieces(name);
    if pieces.iter().all(|p| matches!(p, Piece::Plain(_))) {
        return String::from_utf8_lossy(name).into_owned();
    }
    let double = pieces.contains(&Piece::Quote) && pieces.iter().all(|p| p.fits_double_quotes());
    if double {
        return format!("\"{}\"", String::from_utf8_lossy(name));
    }
    let mut out = String::from("'");
    // Within a `$'...'` run of escapes, which a character of the name must end first.
    let mut escaping = false;
    for piece in pieces {
        match piece {
            Piece::Escape(bytes) => {
                if !escaping {
                    out.push_str("'$'");
                    escaping = true;
                }
                for &b in bytes {
                    out.push_str(&escape(b));
                }
            }
            Piece::Quote => {
                out.push_str("'\\''");
                escaping = false;
            }
            Piece::Plain(text) | Piece::Spaced(text) | Piece::Special(text) => {
                if escaping {
                    out.push_str("''");
                    escaping = false;
                }
                out.push_str(&String::from_utf8_lossy(text));
            }
        }
    }
    out.push('\'');
    out
}

/// The characters of `name`, each with what it takes.
fn pieces(name: &[u8]) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut rest = name;
    while !rest.is_empty() {
        let (piece, len) = piece(rest, pieces.is_empty(), name.len());
        pieces.push(piece);
        rest = &rest[len..];
    }
    pieces
}

/// The first character of `rest` and its length in bytes; `first` where it starts the name,
/// which is `whole` bytes long.
fn piece(rest: &[u8], first: bool, whole: usize) -> (Piece<'_>, usize) {
    let b = rest[0];
    if b.is_ascii() {
        let one = &rest[..1];
        let piece = match b {
            b'\'' => Piece::Quote,
            b' ' => Piece::Spaced(one),
            b'#' | b'~' if first => Piece::Spaced(one),
            b'{' | b'}' if whole == 1 => Piece::Spaced(one),
            b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>' | b'?' | b'[' | b'\\' | b'^' | b'`' | b'|' => {
                Piece::Special(one)
            }
            _ if b.is_ascii_control() => Piece::Escape(one),
            _ => Piece::Plain(one),
        };
        return (piece, 1);
    }
    let len = match b {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    };
    match rest.get(..len).map(std::str::from_utf8) {
        Some(Ok(text)) if text.chars().all(printable) => (Piece::Plain(&rest[..len]), len),
        Some(Ok(_)) => (Piece::Escape(&rest[..len]), len),
        // A byte that starts no character: escaped alone, and the rest read from the next.
        _ => (Piece::Escape(&rest[..1]), 1),
    }
}

/// Whether a character outside ASCII is shown as it is: not a control character, and not
/// one that breaks a line.
fn printable(c: char) -> bool {
    !c.is_control() && !matches!(c, '\u{2028}' | '\u{2029}')
}

/// The escape of byte `b` within `$'...'`: a letter for the usual control characters, else
/// three octal digits.
fn escape(b: u8) -> String {
    match b {
        b'\x07' => "\\a".into(),
        b'\x08' => "\\b".into(),
        b'\x0C' => "\\f".into(),
        b'\n' => "\\n".into(),
        b'\r' => "\\r".into(),
        b'\t' => "\\t".into(),
        b'\x0B' => "\\v".into(),
        _ => format!("\\{b:03o}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_as_ls_shell_escape_quotes_them() {
        // What `ls --quoting-style=shell-escape` (GNU coreutils 9.1, C.UTF-8) shows for each.
        let cases: [(&[u8], &str); 38] = [
            (b"plain.in", "plain.in"),
            (b"a b", "'a b'"),
            (b"it's", "\"it's\""),
            (b"it's a", "\"it's a\""),
            (b"it's$x", "'it'\\''s$x'"),
            (b"a$b", "'a$b'"),
            (b"a!b", "'a!b'"),
            (b"a\"b", "'a\"b'"),
            (b"a\\b", "'a\\b'"),
            (b"a?b", "'a?b'"),
            (b"a]b", "a]b"),
            (b"a[b", "'a[b'"),
            (b"#a", "'#a'"),
            (b"a#", "a#"),
            (b"~a", "'~a'"),
            (b"a~", "a~"),
            (b"{", "'{'"),
            (b"}", "'}'"),
            (b"a{b}", "a{b}"),
            (b"a=b", "'a=b'"),
            (b"a:b", "a:b"),
            (b"a%b,c+d@e", "a%b,c+d@e"),
            (b"a^b", "'a^b'"),
            (b"a|b", "'a|b'"),
            (b"a&b", "'a&b'"),
            (b"a;b", "'a;b'"),
            (b"a*b", "'a*b'"),
            (b"a(b", "'a(b'"),
            (b"a`b", "'a`b'"),
            (b"bad\nname.in", "'bad'$'\\n''name.in'"),
            (b"bad\x1b[31mname.in", "'bad'$'\\033''[31mname.in'"),
            (b"\n", "''$'\\n'"),
            (b"a\n", "'a'$'\\n'"),
            (b"\tx", "''$'\\t''x'"),
            (b"caf\xe9", "'caf'$'\\351'"),
            ("café".as_bytes(), "café"),
            (b"a\x7fb", "'a'$'\\177''b'"),
            (b"a\xc2\x85b", "'a'$'\\302\\205''b'"),
        ];
        for (name, shown) in cases {
            assert_eq!(quoted_bytes(name), shown, "{:?}", String::from_utf8_lossy(name));
        }
        assert_eq!(quoted(""), "''");
        assert_eq!(quoted("-a"), "-a");
        assert_eq!(quoted("it's#1"), "'it'\\''s#1'");
        // coreutils 9.1 starts this one with a stray '', which a shell reads as nothing.
        assert_eq!(quoted("it's\n"), "'it'\\''s'$'\\n'");
    }

    #[test]
    fn a_shown_name_is_always_one_line() {
        for name in ["a\nb", "a\rb", "a\u{2028}b", "\u{85}", "x\x1b"] {
            assert!(!quoted(name).contains(['\n', '\r', '\u{2028}', '\u{85}', '\x1b']), "{name:?}: {}", quoted(name));
        }
    }
}
