//! The library's one error type, [`Error`], with a variant a caller can match for each
//! thing that can go wrong.

use std::fmt;
use std::io;

#[cfg(feature = "cli")]
pub use crate::checkpoint::CheckpointError;
use crate::gpu::GpuError;
use crate::parse::ParseError;
#[cfg(feature = "cli")]
pub use crate::parts::PartsError;

/// Why a board could not be made, read or counted.
///
/// Each variant's message includes the message of the error it wraps, so
/// [`source`](std::error::Error::source) goes on below that error, not to it: a printed
/// chain says each thing once.
///
/// ```
/// match nqueen::Board::empty(40) {
///     Err(nqueen::Error::BadBoard(why)) => assert!(why.contains("40")),
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A board that cannot be: its side outside 1 to 32, or rows that do not fit it.
    BadBoard(String),
    /// Judge input that breaks the format (with the line and column), or could not be read.
    Parse(ParseError),
    /// An option out of its range, such as a thread count of 0 or over 1024.
    BadOption(String),
    /// The GPU was asked for and none is usable: no CUDA driver, no device, or no NVRTC.
    NoGpu(GpuError),
    /// The GPU failed while counting.
    Gpu(GpuError),
    /// The count was stopped before it ended: Ctrl-C in the `nqueen` program. The
    /// library's counts are never stopped early.
    Interrupted,
    /// Something could not be written: the `nqueen` program's answers, part records or
    /// checkpoint. The library's counts write nothing.
    Write(io::Error),
    /// A checkpoint that does not fit the run (the program's; the `cli` feature).
    #[cfg(feature = "cli")]
    Checkpoint(CheckpointError),
    /// Part records that do not merge, or do not say what they should (the program's; the
    /// `cli` feature).
    #[cfg(feature = "cli")]
    Parts(PartsError),
    /// Worker threads could not be started.
    Threads(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadBoard(why) => write!(f, "not a board: {why}"),
            Error::Parse(e) => e.fmt(f),
            Error::BadOption(why) => f.write_str(why),
            Error::NoGpu(e) => write!(f, "no usable GPU: {e}"),
            Error::Gpu(e) => write!(f, "the GPU failed: {e}"),
            Error::Interrupted => f.write_str("interrupted"),
            Error::Write(e) => write!(f, "cannot write: {e}"),
            #[cfg(feature = "cli")]
            Error::Checkpoint(e) => e.fmt(f),
            #[cfg(feature = "cli")]
            Error::Parts(e) => e.fmt(f),
            Error::Threads(why) => write!(f, "cannot start the worker threads: {why}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Parse(e) => e.source(),
            Error::NoGpu(e) | Error::Gpu(e) => e.source(),
            Error::Write(e) => e.source(),
            #[cfg(feature = "cli")]
            Error::Checkpoint(e) => e.source(),
            #[cfg(feature = "cli")]
            Error::Parts(e) => e.source(),
            _ => None,
        }
    }
}

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Error {
        Error::Parse(e)
    }
}
