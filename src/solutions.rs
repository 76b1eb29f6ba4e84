//! Every solution of a board, one at a time, in lexicographic order of the queens' columns
//! row by row: the order a row-by-row search that tries the leftmost cell first finds them.
//! The plain search, with no symmetry and no planning, so that the list is the same
//! whatever counted the board; its memory is a few hundred bytes however many solutions
//! there are.

use crate::board::Board;

/// The solutions of a board, each as the column of the queen in each row, from 0, in
/// lexicographic order: the order a row-by-row search that tries the leftmost cell first
/// finds them. It searches the board as it is, with no symmetry, so the list is the same
/// whatever counted the board, and holds a few hundred bytes however many there are.
///
/// ```
/// let board: nqueen::Board = "4\n....\n....\n....\n....\n".parse()?;
/// let all: Vec<Vec<usize>> = nqueen::solutions(&board).collect();
/// assert_eq!(all, [[1, 3, 0, 2], [2, 0, 3, 1]]);
/// # Ok::<(), nqueen::ParseError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Solutions {
    n: usize,
    rows: Vec<u32>,
    /// The row being filled, and per row the cells still to try there and what the queens
    /// above attack (columns, the two diagonals).
    row: usize,
    left: [u32; 32],
    cols: [u32; 32],
    ld: [u32; 32],
    rd: [u32; 32],
    queens: [usize; 32],
}

impl Solutions {
    /// The solutions of `board`.
    pub fn new(board: &Board) -> Solutions {
        let rows = board.rows().to_vec();
        let mut left = [0; 32];
        left[0] = rows[0];
        Solutions { n: board.n(), rows, row: 0, left, cols: [0; 32], ld: [0; 32], rd: [0; 32], queens: [0; 32] }
    }

    /// The next solution's columns, from 0, one per row, as the iterator gives them but
    /// without allocating: for listing many.
    ///
    /// ```
    /// let mut all = nqueen::solutions(&nqueen::Board::empty(4)?);
    /// assert_eq!(all.next_columns(), Some(&[1, 3, 0, 2][..]));
    /// assert_eq!(all.next(), Some(vec![2, 0, 3, 1]));
    /// assert_eq!(all.next_columns(), None);
    /// # Ok::<(), nqueen::Error>(())
    /// ```
    pub fn next_columns(&mut self) -> Option<&[usize]> {
        loop {
            let r = self.row;
            if self.left[r] == 0 {
                if r == 0 {
                    return None;
                }
                self.row -= 1;
                continue;
            }
            let bit = self.left[r] & self.left[r].wrapping_neg();
            self.left[r] ^= bit;
            self.queens[r] = bit.trailing_zeros() as usize;
            if r + 1 == self.n {
                return Some(&self.queens[..self.n]);
            }
            let (cols, ld, rd) = (self.cols[r] | bit, (self.ld[r] | bit) << 1, (self.rd[r] | bit) >> 1);
            (self.cols[r + 1], self.ld[r + 1], self.rd[r + 1]) = (cols, ld, rd);
            self.left[r + 1] = self.rows[r + 1] & !(cols | ld | rd);
            self.row += 1;
        }
    }
}

impl Iterator for Solutions {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        self.next_columns().map(<[usize]>::to_vec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `columns` places n queens on free cells of `board`, none attacking another.
    fn valid(board: &Board, columns: &[usize]) -> bool {
        columns.len() == board.n()
            && columns.iter().enumerate().all(|(r, &c)| board.is_free(r, c))
            && (0..columns.len())
                .all(|a| (a + 1..columns.len()).all(|b| columns[a] != columns[b] && columns[a].abs_diff(columns[b]) != b - a))
    }

    #[test]
    fn empty_boards_list_oeis_many_valid_solutions_in_order() {
        for (n, want) in [(1, 1), (2, 0), (3, 0), (4, 2), (5, 10), (6, 4), (7, 40), (8, 92), (9, 352), (10, 724)] {
            let board = Board::empty(n).unwrap();
            let all: Vec<Vec<usize>> = Solutions::new(&board).collect();
            assert_eq!(all.len(), want, "n={n}");
            assert!(all.iter().all(|s| valid(&board, s)), "n={n}");
            assert!(all.windows(2).all(|w| w[0] < w[1]), "n={n}: sorted and distinct");
        }
    }

    #[test]
    fn obstacles_are_never_queens() {
        let board = Board::empty(6).unwrap().without(0, 1).without(3, 0);
        let all: Vec<Vec<usize>> = Solutions::new(&board).collect();
        assert!(!all.is_empty() && all.iter().all(|s| valid(&board, s) && s[0] != 1 && s[3] != 0));
    }
}
