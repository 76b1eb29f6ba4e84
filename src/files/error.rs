//! The files layer's error: why a file could not be opened as an input, or a line of it
//! read as one of the program's records, in the program's words.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use super::json::JsonError;
use crate::words::{os_words, shown, shown_input};

/// Why a file, or a line of it, could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum FileError {
    /// A directory, given where a file belongs: `expected` says what ("judge input", "a
    /// part file").
    Directory { expected: &'static str },
    /// The file at `path` could not be opened.
    Open { path: PathBuf, error: io::Error },
    /// A line's bytes that are not UTF-8: the first bad byte and its column, from 1.
    NotUtf8 { byte: u8, column: usize },
    /// A line of JSON that is not the record it should be.
    Json(JsonError),
    /// Standard input, an input of the run, was closed when the process started.
    StdinClosed,
    /// Standard output is the file this input of the run reads: the answers would
    /// overwrite it.
    StdoutIsInput(PathBuf),
    /// Standard output is the file the run writes as its `role` ("checkpoint", "summary",
    /// "plot"): the answers would overwrite it, or it them.
    StdoutIsOutput { role: &'static str, path: PathBuf },
    /// Standard error is the file the run writes as its `role`: the messages would go into
    /// it, or it would replace them.
    StderrIsOutput { role: &'static str, path: PathBuf },
    /// Standard error is the file this input of the run reads.
    StderrIsInput(PathBuf),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Directory { expected } => write!(f, "is a directory, not {expected}"),
            FileError::Open { path, error } => write!(f, "cannot open it: {}", open_words(path, error)),
            FileError::NotUtf8 { byte, column } => write!(f, "byte 0x{byte:02X} at column {column} is not UTF-8 text"),
            FileError::Json(e) => e.fmt(f),
            FileError::StdinClosed => f.write_str("standard input is closed"),
            FileError::StdoutIsInput(input) if input == Path::new(crate::words::STDIN_PATH) => {
                f.write_str("standard output is the file standard input reads")
            }
            FileError::StdoutIsInput(input) => write!(f, "standard output is {}, an input of this run", shown_input(input)),
            FileError::StdoutIsOutput { role: role @ ("summary" | "plot"), path } => {
                write!(f, "standard output is {}, the {role} of this run: give --{role} - to write the {role} alone there", shown(path))
            }
            FileError::StdoutIsOutput { role, path } => write!(f, "standard output is {}, the {role} of this run", shown(path)),
            FileError::StderrIsInput(input) => write!(f, "standard error is {}, an input of this run", shown_input(input)),
            FileError::StderrIsOutput { role, path } => write!(f, "standard error is {}, the {role} of this run", shown(path)),
        }
    }
}

impl std::error::Error for FileError {}

impl From<JsonError> for FileError {
    fn from(e: JsonError) -> FileError {
        FileError::Json(e)
    }
}

/// What went wrong opening `path`, in words: for a path that goes through a file, the file.
pub fn open_words(path: &Path, e: &io::Error) -> String {
    match through_a_file(path) {
        Some(file) if e.kind() == io::ErrorKind::NotADirectory => format!("{} is a file, not a directory", shown(file)),
        _ => os_words(e),
    }
}

/// The first of the directories on `path` that is a file, where one is.
fn through_a_file(path: &Path) -> Option<&Path> {
    let mut above: Vec<&Path> = path.ancestors().skip(1).filter(|dir| !dir.as_os_str().is_empty()).collect();
    above.reverse();
    above.into_iter().find(|dir| std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_path_through_a_file_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("afile");
        std::fs::write(&file, "x").unwrap();
        let inside = file.join("deeper").join("x.in");
        let e = std::fs::File::open(&inside).unwrap_err();
        let said = FileError::Open { path: inside, error: e }.to_string();
        assert_eq!(said, format!("cannot open it: {} is a file, not a directory", shown(&file)));
    }
}
