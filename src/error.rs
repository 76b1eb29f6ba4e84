//! The library's one error type, [`Error`], at the top of its layers: each layer below owns
//! its error (the board's, the parser's, the GPU's, and the program's checkpoints and part
//! records), and `Error` wraps them, so that a caller matches one enum.

use std::fmt;
use std::io;

use crate::board::BoardError;
#[cfg(feature = "cli")]
use crate::checkpoint::CheckpointError;
use crate::control::Interrupted;
use crate::gpu::{CountError, GpuError};
use crate::parse::ParseError;
#[cfg(feature = "cli")]
use crate::parts::PartsError;

/// Why a board could not be made, read or counted.
///
/// Each variant's message includes the message of the error it wraps, so
/// [`source`](std::error::Error::source) goes on below that error, not to it: a printed
/// chain says each thing once. `?` turns each layer's error into its variant.
///
/// ```
/// fn side_of(n: usize) -> Result<usize, nqueen::Error> {
///     Ok(nqueen::Board::empty(n)?.n())
/// }
/// match side_of(40) {
///     Err(nqueen::Error::BadBoard(why)) => assert_eq!(why, nqueen::BoardError::Side(40)),
///     other => panic!("{other:?}"),
/// }
/// ```
///
/// The variants `Checkpoint` and `Parts` are the `nqueen` program's and exist only with
/// its `cli` feature (the default); a library built with `default-features = false` has
/// the others, which are all its calls can return.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A board that cannot be: its side outside 1 to 32, or rows that do not fit it.
    BadBoard(BoardError),
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
    /// A checkpoint that does not fit the run, or is not a checkpoint.
    #[cfg(feature = "cli")]
    #[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
    Checkpoint(CheckpointError),
    /// Part records that do not merge, or do not say what they should.
    #[cfg(feature = "cli")]
    #[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
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

impl From<BoardError> for Error {
    fn from(e: BoardError) -> Error {
        Error::BadBoard(e)
    }
}

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Error {
        Error::Parse(e)
    }
}

#[doc(hidden)]
impl From<Interrupted> for Error {
    fn from(_: Interrupted) -> Error {
        Error::Interrupted
    }
}

#[doc(hidden)]
impl From<CountError> for Error {
    fn from(e: CountError) -> Error {
        match e {
            CountError::Gpu(e) => Error::Gpu(e),
            CountError::Interrupted => Error::Interrupted,
            CountError::Record(e) => Error::Write(e),
        }
    }
}

#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
impl From<CheckpointError> for Error {
    fn from(e: CheckpointError) -> Error {
        Error::Checkpoint(e)
    }
}

#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
impl From<PartsError> for Error {
    fn from(e: PartsError) -> Error {
        Error::Parts(e)
    }
}
