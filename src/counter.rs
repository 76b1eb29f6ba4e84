//! The counter as a library: [`count`] for the common case, and [`Counter`] for the options
//! people set (which counter, how many threads, whether to use the board's symmetry).

use std::fmt;

use crate::board::Board;
use crate::control::Control;
use crate::error::Error;
use crate::solve::{Backend, Options, Solver};

/// The most worker threads a count may start: every thread is started before any work, so
/// a typo of a few zeros must not start tens of thousands.
pub const MAX_THREADS: usize = 1024;

/// Counts the solutions of `board`, as the `nqueen` command does by default: on all CPU
/// cores, or on a GPU where one is usable and the board is big enough to gain from it.
///
/// It cannot fail: where no GPU is usable, or the GPU fails, the CPU counts the board, and
/// nothing stops a count before its end. Use [`Counter`] to choose the backend.
///
/// ```
/// let board: nqueen::Board = "8\n........\n........\n........\n........\n........\n........\n........\n........\n".parse()?;
/// assert_eq!(nqueen::count(&board), 92);
/// # Ok::<(), nqueen::Error>(())
/// ```
pub fn count(board: &Board) -> u128 {
    // With the default backend a GPU that fails leaves the board to the CPU, and nothing
    // cancels the count: it always ends with the count.
    Counter::new().count(board).unwrap_or_else(|e| unreachable!("the default counter cannot fail: {e}"))
}

/// A counter with the options people set, kept from one board to the next (a GPU is
/// opened once, a thread pool started once).
///
/// ```
/// use nqueen::{Backend, Counter};
///
/// let mut counter = Counter::new().backend(Backend::Cpu).threads(2)?.symmetry(false);
/// let board: nqueen::Board = "6\n......\n......\n......\n......\n......\n......\n".parse()?;
/// assert_eq!(counter.count(&board)?, 4);
/// assert!(Counter::new().threads(0).is_err());
/// # Ok::<(), nqueen::Error>(())
/// ```
///
/// With [`Backend::Gpu`], every count is an error ([`Error::NoGpu`]) where no GPU is usable,
/// small boards too: the GPU was asked for.
pub struct Counter {
    options: Options,
    threads: Option<usize>,
    /// Made at the first count, with the options as they are then.
    solver: Option<Solver>,
    pool: Option<rayon::ThreadPool>,
}

impl fmt::Debug for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Counter")
            .field("backend", &self.options.backend)
            .field("threads", &self.threads)
            .field("symmetry", &!self.options.no_symmetry)
            .field("sieve", &!self.options.no_sieve)
            .finish_non_exhaustive()
    }
}

impl Default for Counter {
    fn default() -> Counter {
        Counter::new()
    }
}

impl Counter {
    /// The default counter: `Backend::Auto`, every core, the board's symmetry used.
    pub fn new() -> Counter {
        Counter { options: Options::default(), threads: None, solver: None, pool: None }
    }

    /// Counts on `backend`.
    pub fn backend(mut self, backend: Backend) -> Counter {
        self.options.backend = backend;
        self.solver = None;
        self
    }

    /// Counts on `threads` CPU threads instead of one a core: an error
    /// ([`Error::BadOption`]) unless 1 to [`MAX_THREADS`].
    pub fn threads(mut self, threads: usize) -> Result<Counter, Error> {
        if !(1..=MAX_THREADS).contains(&threads) {
            return Err(Error::BadOption(format!("{threads} threads: a count takes 1 to {MAX_THREADS}")));
        }
        self.threads = Some(threads);
        self.pool = None;
        Ok(self)
    }

    /// Whether to cut the search by the board's symmetries and orientation (on by default;
    /// off searches every board as it is, for testing and timing).
    pub fn symmetry(mut self, on: bool) -> Counter {
        self.options.no_symmetry = !on;
        self.solver = None;
        self
    }

    /// Whether a counter that has counted enough boards of one size from 10x10 to 15x15
    /// may find the empty board's solutions once and count each further board as those
    /// with no queen on its obstacles, where that is faster than a search (on by default;
    /// off searches every board, for testing and timing).
    pub fn sieve(mut self, on: bool) -> Counter {
        self.options.no_sieve = !on;
        self.solver = None;
        self
    }

    /// Counts the solutions of `board`.
    pub fn count(&mut self, board: &Board) -> Result<u128, Error> {
        if let (Some(threads), None) = (self.threads, &self.pool) {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
            self.pool = Some(pool.map_err(|e| Error::Threads(e.to_string()))?);
        }
        let options = &self.options;
        let solver = self.solver.get_or_insert_with(|| Solver::new(options.clone()));
        let ctl = Control::default();
        let solved = match &self.pool {
            Some(pool) => pool.install(|| solver.solve(board, false, &ctl)),
            None => solver.solve(board, false, &ctl),
        };
        solved.map(|report| report.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_counts_alike() {
        let board = Board::from_fn(9, |r, c| (r * 3 + c * 5) % 7 != 0).unwrap();
        let want = count(&board);
        for symmetry in [true, false] {
            for threads in [1, 3] {
                let mut counter = Counter::new().backend(Backend::Cpu).threads(threads).unwrap().symmetry(symmetry);
                assert_eq!(counter.count(&board).unwrap(), want);
                assert_eq!(counter.count(&Board::empty(8).unwrap()).unwrap(), 92);
            }
        }
        // Boards of 12x12 in a row, until their searches pay for a sieve, then by it.
        let twelve = Board::from_fn(12, |r, c| (r * 5 + c * 3) % 9 != 0).unwrap();
        let want = count(&twelve);
        for sieve in [true, false] {
            let mut counter = Counter::new().backend(Backend::Cpu).sieve(sieve);
            for _ in 0..50 {
                assert_eq!(counter.count(&twelve).unwrap(), want);
            }
            let made = counter.solver.as_mut().is_some_and(|s| s.sieved(&twelve).is_some());
            assert_eq!(made, sieve);
        }
    }

    #[test]
    fn threads_are_bounded_as_on_the_command_line() {
        for threads in [0, MAX_THREADS + 1, 100_000] {
            assert!(matches!(Counter::new().threads(threads), Err(Error::BadOption(why)) if why.contains("1 to 1024")));
        }
        assert!(Counter::new().threads(MAX_THREADS).is_ok());
        let shown = format!("{:?}", Counter::new().backend(Backend::Gpu).symmetry(false));
        assert!(shown.contains("Gpu") && shown.contains("symmetry: false"), "{shown}");
    }
}
