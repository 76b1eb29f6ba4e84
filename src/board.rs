//! A square board with obstacles, stored as one bit mask of free cells per row, and the
//! primitives every search applies to such rows: the cells left for the next queen, and the
//! columns that must be filled by a given row.

use std::fmt;

use crate::square::Sym;
use crate::words::counted;

/// The largest board side: a row's cells must fit in one `u32` mask.
pub const MAX_N: usize = 32;

/// Why a board cannot be made: its side is not 1 to 32, or its rows do not fit it.
///
/// ```
/// let why = nqueen::Board::empty(40).unwrap_err();
/// assert_eq!(why, nqueen::BoardError::Side(40));
/// assert_eq!(why.to_string(), "a board's side is 1 to 32, not 40");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BoardError {
    /// A side outside 1 to 32.
    Side(usize),
    /// This many rows were given for a board of side `n`.
    Rows { rows: usize, n: usize },
    /// Row `row` (from 0) has a free cell at column `n` or beyond.
    Beyond { row: usize, n: usize },
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BoardError::Side(n) => write!(f, "a board's side is 1 to {MAX_N}, not {n}"),
            BoardError::Rows { rows, n } => write!(f, "{} for a board of side {n}", counted(rows, "row")),
            BoardError::Beyond { row, n } => write!(f, "row {row} has a cell beyond column {}", n - 1),
        }
    }
}

impl std::error::Error for BoardError {}

/// A board of side `n` (1 to 32) with obstacles: cells where no queen may stand, though
/// attacks pass over them. `Display` writes it as judge input, which `str::parse` reads.
///
/// ```
/// let board = nqueen::Board::empty(4)?.without(0, 1);
/// assert_eq!(board.to_string(), "4\n.*..\n....\n....\n....\n");
/// assert_eq!(board.to_string().parse::<nqueen::Board>()?, board);
/// assert!(!board.is_free(0, 1) && board.is_free(3, 3));
/// # Ok::<(), nqueen::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    n: usize,
    /// `rows[r]` has bit `c` set when cell (r, c) is free for a queen.
    rows: Vec<u32>,
}

impl Board {
    /// A board of side `n` from its row masks, bit `c` of `rows[r]` set where cell (r, c) is
    /// free; an error if `n` is not 1 to 32, there are not `n` rows, or a mask has a bit at
    /// column `n` or beyond.
    pub fn from_rows(n: usize, rows: Vec<u32>) -> Result<Board, BoardError> {
        let full = side(n)?;
        if rows.len() != n {
            return Err(BoardError::Rows { rows: rows.len(), n });
        }
        match rows.iter().position(|&m| m & !full != 0) {
            Some(row) => Err(BoardError::Beyond { row, n }),
            None => Ok(Board { n, rows }),
        }
    }

    /// An empty board (no obstacles) of side `n`; an error unless `1 <= n <= 32`.
    pub fn empty(n: usize) -> Result<Board, BoardError> {
        let full = side(n)?;
        Ok(Board { n, rows: vec![full; n] })
    }

    /// The board of side `n` whose cell (r, c) is free where `free(r, c)` is true; an error
    /// unless `1 <= n <= 32`.
    pub fn from_fn(n: usize, mut free: impl FnMut(usize, usize) -> bool) -> Result<Board, BoardError> {
        side(n)?;
        let rows = (0..n).map(|r| (0..n).filter(|&c| free(r, c)).fold(0u32, |m, c| m | 1 << c)).collect();
        Ok(Board { n, rows })
    }

    /// The side length.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The free-cell masks, one per row, bit `c` for column `c`.
    pub fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// Whether cell (r, c), from 0, is free.
    ///
    /// # Panics
    ///
    /// If the cell is not on the board (`r` or `c` is `n` or more), as slice indexing does.
    pub fn is_free(&self, r: usize, c: usize) -> bool {
        self.rows[self.cell(r, c)] >> c & 1 == 1
    }

    /// The same board with cell (r, c), from 0, made an obstacle.
    ///
    /// # Panics
    ///
    /// If the cell is not on the board (`r` or `c` is `n` or more), as slice indexing does.
    pub fn without(mut self, r: usize, c: usize) -> Board {
        let row = self.cell(r, c);
        self.rows[row] &= !(1 << c);
        self
    }

    /// The row of cell (r, c), once it is known to be on the board.
    fn cell(&self, r: usize, c: usize) -> usize {
        assert!(r < self.n && c < self.n, "cell ({r}, {c}) is not on the {n}x{n} board", n = self.n);
        r
    }

    /// The number of obstacle cells.
    pub fn obstacles(&self) -> usize {
        self.n * self.n - self.rows.iter().map(|m| m.count_ones() as usize).sum::<usize>()
    }

    /// The board seen through `sym`: cell `sym(r, c)` of the result is cell (r, c) of `self`.
    #[doc(hidden)]
    pub fn transformed(&self, sym: Sym) -> Board {
        let n = self.n;
        let mut rows = vec![0u32; n];
        for r in 0..n {
            for c in 0..n {
                if self.is_free(r, c) {
                    let (r2, c2) = sym.apply(n, r, c);
                    rows[r2] |= 1 << c2;
                }
            }
        }
        Board { n, rows }
    }
}

impl fmt::Display for Board {
    /// The board as judge input: `n`, then one line of `.` (free) and `*` (obstacle) per row.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.n)?;
        for &row in &self.rows {
            let line: String = (0..self.n).map(|c| if row >> c & 1 == 1 { '.' } else { '*' }).collect();
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

/// The full row mask of a board of side `n`, or why there is no such board.
fn side(n: usize) -> Result<u32, BoardError> {
    full_mask(n).ok_or(BoardError::Side(n))
}

/// The mask with the low `n` bits set, or `None` when `n` is not in `1..=MAX_N`.
pub fn full_mask(n: usize) -> Option<u32> {
    (1..=MAX_N).contains(&n).then(|| u32::MAX >> (MAX_N - n))
}

/// The cells of a row where the next queen may go: `free` cells not attacked by `cols`,
/// `ld` and `rd`, narrowed to the one column in `due` (columns that must be filled by this
/// row) still empty, and to none when two or more of them are still empty.
#[inline(always)]
pub fn next_cells(free: u32, due: u32, cols: u32, ld: u32, rd: u32) -> u32 {
    let avail = free & !(cols | ld | rd);
    let late = due & !cols;
    if late == 0 {
        avail
    } else if late & (late - 1) == 0 {
        avail & late
    } else {
        0
    }
}

/// Solutions of the last two rows, in closed form: `a` is row n-2's free cells, `base` row
/// n-1's free cells before the queen of row n-2 is placed. A queen at `b` in row n-2 takes
/// exactly the cells b, b<<1 and b>>1 of row n-1 (distinct bits), so summing over the bits
/// of `a` gives |a|·|base| minus the cells of `base` that `a`, `a<<1` and `a>>1` cover.
#[inline(always)]
pub fn last_two_rows(a: u32, base: u32) -> u64 {
    let taken = (base & a).count_ones() + (base & a << 1).count_ones() + (base & a >> 1).count_ones();
    (a.count_ones() * base.count_ones() - taken) as u64
}

/// For each row `r`, the columns whose last free cell is in row `r` or above: every
/// solution has a queen in each of them once rows `0..=r` are filled. Symmetry splits
/// make these bite early (the side columns' queens must lie in a middle band of rows), and
/// so do obstacles low in a column; the searches use them to cut a branch as soon as a
/// column can no longer be filled, instead of failing rows later.
pub fn due_columns(rows: &[u32]) -> Vec<u32> {
    let all = full_mask(rows.len()).unwrap_or(u32::MAX);
    let mut open_below = 0u32;
    let mut due = vec![0; rows.len()];
    for r in (0..rows.len()).rev() {
        due[r] = all & !open_below;
        open_below |= rows[r];
    }
    due
}

/// Whether a search from row `from` on must look at the due columns `due`: only when some
/// column falls due above row n-3. The last two rows are counted in closed form, and a
/// column due at row n-3 would only narrow that row, whose wrong queens the closed form
/// counts as 0 anyway, so checking it costs more than it saves.
pub fn due_matters(due: &[u32], from: usize) -> bool {
    due.get(from..due.len().saturating_sub(3)).is_some_and(|d| d.iter().any(|&d| d != 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_mask_covers_exactly_n_columns() {
        assert_eq!(full_mask(1), Some(1));
        assert_eq!(full_mask(8), Some(0xff));
        assert_eq!(full_mask(32), Some(u32::MAX));
        assert_eq!(full_mask(0), None);
        assert_eq!(full_mask(33), None);
    }

    #[test]
    fn from_rows_rejects_bits_outside_the_board() {
        assert!(Board::from_rows(2, vec![0b11, 0b01]).is_ok());
        let beyond = Board::from_rows(2, vec![0b111, 0b01]).unwrap_err();
        assert_eq!((beyond.clone(), beyond.to_string()), (BoardError::Beyond { row: 0, n: 2 }, "row 0 has a cell beyond column 1".into()));
        let rows = Board::from_rows(2, vec![0b11]).unwrap_err();
        assert_eq!((rows.clone(), rows.to_string()), (BoardError::Rows { rows: 1, n: 2 }, "1 row for a board of side 2".into()));
        assert_eq!(Board::empty(0).unwrap_err().to_string(), "a board's side is 1 to 32, not 0");
        assert_eq!(Board::from_fn(33, |_, _| true), Err(BoardError::Side(33)));
    }

    #[test]
    fn text_round_trips_obstacles() {
        let b = Board::from_fn(3, |r, c| (r + c) % 2 == 0).unwrap();
        assert_eq!(b.to_string(), "3\n.*.\n*.*\n.*.\n");
        assert_eq!(b.obstacles(), 4);
    }

    #[test]
    fn cells_off_the_board_are_refused_in_every_build() {
        // A 32-column row has no spare bit: column 33 must not wrap to column 1.
        let board = Board::empty(32).unwrap();
        for (r, c) in [(0, 32), (0, 33), (32, 0), (40, 40)] {
            let read = std::panic::catch_unwind(|| board.is_free(r, c));
            let blocked = std::panic::catch_unwind(|| board.clone().without(r, c));
            assert!(read.is_err() && blocked.is_err(), "cell ({r}, {c}) of 32x32");
        }
        assert!(!board.clone().without(0, 31).is_free(0, 31));
        assert_eq!(board.clone().without(31, 0).rows()[31], u32::MAX - 1);
    }

    #[test]
    fn one_late_column_is_forced_and_two_end_the_branch() {
        let free = 0b1111_0000;
        assert_eq!(next_cells(free, 0, 0b1000_0000, 0, 0), 0b0111_0000);
        assert_eq!(next_cells(free, 0b0100_0000, 0b1000_0000, 0, 0), 0b0100_0000);
        assert_eq!(next_cells(free, 0b1100_0000, 0b1000_0000, 0, 0), 0b0100_0000);
        assert_eq!(next_cells(free, 0b0110_0000, 0b1000_0000, 0, 0), 0);
        // A late column that is attacked or blocked leaves nowhere to go.
        assert_eq!(next_cells(free, 0b0000_0001, 0, 0, 0), 0);
    }

    #[test]
    fn columns_fall_due_at_their_last_free_row() {
        // Column 0 is blocked in the last two rows, column 2 everywhere.
        let b = Board::from_fn(4, |r, c| c != 2 && !(c == 0 && r >= 2)).unwrap();
        assert_eq!(due_columns(b.rows()), vec![0b0100, 0b0101, 0b0101, 0b1111]);
        assert!(due_matters(&due_columns(b.rows()), 0));
        assert!(!due_matters(&due_columns(Board::empty(9).unwrap().rows()), 0));
        // A column whose last free cell is in row n-4 matters; one in row n-3 does not.
        assert!(due_matters(&due_columns(Board::from_fn(6, |r, c| !(c == 0 && r >= 3)).unwrap().rows()), 0));
        assert!(!due_matters(&due_columns(Board::from_fn(6, |r, c| !(c == 0 && r >= 4)).unwrap().rows()), 0));
    }

    #[test]
    fn last_two_rows_matches_enumeration() {
        for a in 0u32..64 {
            for base in 0u32..64 {
                let slow: u64 =
                    (0..6).filter(|c| a >> c & 1 == 1).map(|c| (base & !(1 << c | 1 << c << 1 | (1 << c) >> 1)).count_ones() as u64).sum();
                assert_eq!(last_two_rows(a, base), slow, "a={a:b} base={base:b}");
            }
        }
    }
}
