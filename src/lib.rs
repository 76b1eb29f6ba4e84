//! nqueen counts the ways to place n non-attacking queens on an n×n board with obstacles
//! (cells where no queen may stand, though attacks pass over them), on all CPU cores or a
//! CUDA GPU, and lists them.
//!
//! Count a board in three lines:
//!
//! ```
//! let board: nqueen::Board = "4\n.*..\n....\n....\n....\n".parse()?;
//! assert_eq!(nqueen::count(&board), 1);
//! assert_eq!(nqueen::solutions(&board).next(), Some(vec![2, 0, 3, 1]));
//! # Ok::<(), nqueen::Error>(())
//! ```
//!
//! - [`Board`]: a board, parsed from judge text (`"n\nrows..."`) by [`str::parse`], read
//!   from any reader with [`boards`], or made with [`Board::empty`] and
//!   [`Board::from_fn`].
//! - [`count`] for the common case, [`Counter`] to choose the [`Backend`], the threads and
//!   the use of symmetry.
//! - [`solutions`]: every solution, in lexicographic order of the queens' columns.
//! - [`Error`]: what can go wrong, one variant a kind. Reading judge text fails with a
//!   [`ParseError`] (its line and column), which `?` turns into an [`Error::Parse`].
//!
//! Judge text is a board's side *n* (1 to 32), then *n* rows of *n* cells, `.` free and `*`
//! an obstacle, separated by any whitespace (spaces, tabs, LF, CRLF or CR line ends, blank
//! lines). [`boards`] reads any number of boards, up to the end of the input or a `0` in
//! place of *n*; `str::parse` takes exactly one board and refuses anything after it.
//!
//! Reading judge input of any length, one board at a time:
//!
//! ```
//! let input = "5\n.....\n.....\n.....\n.....\n.....\n4\n.*..\n....\n....\n....\n0\n";
//! for board in nqueen::boards(input.as_bytes()) {
//!     let board = board?;
//!     println!("{}x{}: {}", board.n(), board.n(), nqueen::count(&board));
//! }
//! # Ok::<(), nqueen::Error>(())
//! ```
//!
//! The `nqueen` command is built on the same crate; what it uses beyond the items above is
//! hidden from these pages, and is not a stable interface.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The program's insides: public, for the `nqueen` command and the tests, and hidden from
// the documented face above.
#[doc(hidden)]
pub mod board;
#[doc(hidden)]
pub mod control;
#[doc(hidden)]
pub mod cpu;
#[doc(hidden)]
pub mod estimate;
#[doc(hidden)]
pub mod gpu;
#[doc(hidden)]
pub mod parse;
#[doc(hidden)]
pub mod plan;
#[doc(hidden)]
pub mod prefix;
#[doc(hidden)]
pub mod rng;
#[doc(hidden)]
pub mod sieve;
#[doc(hidden)]
pub mod solve;
#[doc(hidden)]
pub mod split;
#[doc(hidden)]
pub mod square;
#[doc(hidden)]
pub mod symmetry;
#[doc(hidden)]
pub mod tally;
#[doc(hidden)]
pub mod tuning;
#[doc(hidden)]
pub mod unique;
#[doc(hidden)]
pub mod words;
#[doc(hidden)]
pub mod work;

// The program's own insides, which the library does without (the `cli` feature): the
// command line's run, part records, checkpoints and the progress bar.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod app;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod checkpoint;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod files;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod parts;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod progress;

mod counter;
mod error;
mod solutions;

pub use board::{Board, BoardError};
#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
pub use checkpoint::CheckpointError;
pub use counter::{count, Counter, MAX_THREADS};
pub use error::Error;
pub use gpu::GpuError;
pub use parse::{ParseError, Parser};
#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
pub use parts::PartsError;
pub use solutions::Solutions;
pub use solve::Backend;

/// The boards of judge input read from `src`, one at a time, up to the input's end, a `0`
/// board size, or the first error (a [`ParseError`] naming the line and column).
pub fn boards<R: std::io::Read>(src: R) -> Parser<R> {
    Parser::new(src)
}

/// Every solution of `board` (see [`Solutions`]): each a `Vec` of the queens' columns, one
/// per row, from 0, in lexicographic order.
///
/// ```
/// let board = nqueen::Board::empty(8)?;
/// let first = nqueen::solutions(&board).next();
/// assert_eq!(first, Some(vec![0, 4, 7, 5, 2, 6, 1, 3]));
/// assert_eq!(nqueen::solutions(&board).count(), 92);
/// # Ok::<(), nqueen::Error>(())
/// ```
pub fn solutions(board: &Board) -> Solutions {
    Solutions::new(board)
}

/// The README's Rust example, run as a test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
