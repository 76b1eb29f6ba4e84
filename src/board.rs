//! A square board with obstacles, stored as one bit mask of free cells per row, and the
//! primitives every search applies to such rows: the cells left for the next queen, and the
//! columns that must be filled by a given row.

use crate::square::Sym;

/// The largest board side: a row's cells must fit in one `u32` mask.
pub const MAX_N: usize = 32;

/// A board: `rows[r]` has bit `c` set when cell (r, c) is free for a queen.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    n: usize,
    rows: Vec<u32>,
}

impl Board {
    /// A board of side `n` from its row masks; `None` if `n` is out of range,
    /// the row count differs from `n`, or a mask has a bit at column `n` or beyond.
    pub fn from_rows(n: usize, rows: Vec<u32>) -> Option<Board> {
        let full = full_mask(n)?;
        (rows.len() == n && rows.iter().all(|&m| m & !full == 0)).then_some(Board { n, rows })
    }

    /// An empty board (no obstacles) of side `n`, `1 <= n <= 32`.
    pub fn empty(n: usize) -> Option<Board> {
        let full = full_mask(n)?;
        Some(Board { n, rows: vec![full; n] })
    }

    /// Builds a board from a predicate saying which cells are free.
    pub fn from_fn(n: usize, mut free: impl FnMut(usize, usize) -> bool) -> Option<Board> {
        full_mask(n)?;
        let rows = (0..n).map(|r| (0..n).filter(|&c| free(r, c)).fold(0u32, |m, c| m | 1 << c)).collect();
        Some(Board { n, rows })
    }

    /// The side length.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The free-cell masks, one per row, bit `c` for column `c`.
    pub fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// Whether cell (r, c) is free.
    pub fn is_free(&self, r: usize, c: usize) -> bool {
        self.rows[r] >> c & 1 == 1
    }

    /// The same board with cell (r, c) made an obstacle.
    pub fn without(mut self, r: usize, c: usize) -> Board {
        self.rows[r] &= !(1 << c);
        self
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

    /// The board as judge input text: `n`, then one line of `.` and `*` per row.
    pub fn to_text(&self) -> String {
        let mut s = format!("{}\n", self.n);
        for r in 0..self.n {
            s.extend((0..self.n).map(|c| if self.is_free(r, c) { '.' } else { '*' }));
            s.push('\n');
        }
        s
    }
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
        assert!(Board::from_rows(2, vec![0b11, 0b01]).is_some());
        assert!(Board::from_rows(2, vec![0b111, 0b01]).is_none());
        assert!(Board::from_rows(2, vec![0b11]).is_none());
    }

    #[test]
    fn text_round_trips_obstacles() {
        let b = Board::from_fn(3, |r, c| (r + c) % 2 == 0).unwrap();
        assert_eq!(b.to_text(), "3\n.*.\n*.*\n.*.\n");
        assert_eq!(b.obstacles(), 4);
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
}
