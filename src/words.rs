//! How the program writes numbers, names and errors in its messages and records: "1
//! device", "3 devices", hex digests, file names quoted (`words/quote.rs`), standard input as
//! [`STDIN`], the system's errors in the program's words.

mod quote;

use std::io;
use std::path::Path;

pub use quote::{quoted, shown};

/// Standard input, as messages and records name it.
pub const STDIN: &str = "<stdin>";

/// The path by which the program tells standard input's file from others (see
/// [`shown_input`]).
pub const STDIN_PATH: &str = "/dev/stdin";

/// `n` and `noun`, the noun in the plural unless `n` is 1 (nouns that take an "s").
pub fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", plural(n))
}

/// The "s" a noun takes after `n`.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `bytes` in lowercase hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(2 * bytes.len());
    for &b in bytes {
        text.push(char::from(DIGITS[usize::from(b >> 4)]));
        text.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    text
}

/// An input of the run, by its path, for a message: [`STDIN`] for standard input's file,
/// else the path quoted (see [`shown`]).
pub fn shown_input(path: &Path) -> String {
    if path == Path::new(STDIN_PATH) {
        STDIN.to_string()
    } else {
        shown(path)
    }
}

/// An input of the run, by the name its records give it, for a message: [`STDIN`] as it
/// is, else quoted (see [`quoted`]).
pub fn quoted_input(name: &str) -> String {
    if name == STDIN {
        STDIN.to_string()
    } else {
        quoted(name)
    }
}

/// What went wrong in `e`, in the program's words where the system's are obscure ("Too
/// many levels of symbolic links", "Not a directory", "Invalid argument"), else as the
/// system says it without the error's number ("No such file or directory", not "No such
/// file or directory (os error 2)").
pub fn os_words(e: &io::Error) -> String {
    let ours = match e.kind() {
        _ if is_link_loop(e) => Some(LINK_LOOP),
        io::ErrorKind::NotADirectory => Some("a name on its path is a file, not a directory"),
        io::ErrorKind::InvalidInput if e.raw_os_error().is_some() => Some("the system cannot read or write it as a file"),
        io::ErrorKind::InvalidFilename => Some("its name is longer than the system takes"),
        _ => None,
    };
    if let Some(words) = ours {
        return words.to_string();
    }
    let said = e.to_string();
    match said.rfind(" (os error ") {
        Some(at) if said.ends_with(')') => said[..at].to_string(),
        _ => said,
    }
}

/// What a chain of symbolic links that never ends in a file is (the system's "Too many
/// levels of symbolic links").
pub const LINK_LOOP: &str = "its symbolic links go round in a loop, or more than 40 deep";

/// The error of a chain of symbolic links followed by the program itself that never ends in
/// a file, said as the system's own is (see [`os_words`]).
#[derive(Debug)]
pub struct LinkLoop;

impl std::fmt::Display for LinkLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(LINK_LOOP)
    }
}

impl std::error::Error for LinkLoop {}

/// Whether `e` is the system's error for a loop of symbolic links, or a [`LinkLoop`].
fn is_link_loop(e: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return true;
    }
    e.get_ref().is_some_and(|inner| inner.is::<LinkLoop>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_number_plural() {
        assert_eq!([counted(0, "device"), counted(1, "device"), counted(2, "row")], ["0 devices", "1 device", "2 rows"]);
    }

    #[test]
    fn the_systems_words_come_without_the_errors_number() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(os_words(&e), "No such file or directory");
        assert_eq!(os_words(&std::io::Error::other("cut short")), "cut short");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_systems_obscure_words_are_said_in_the_programs_own() {
        for (code, said) in
            [(40, LINK_LOOP), (20, "a name on its path is a file, not a directory"), (22, "the system cannot read or write it as a file")]
        {
            assert_eq!(os_words(&std::io::Error::from_raw_os_error(code)), said);
        }
        assert_eq!(os_words(&std::io::Error::other(LinkLoop)), LINK_LOOP);
    }
}
