//! The empty board's solutions kept as one bit set per cell, and a board counted as those
//! solutions none of whose queens stands on one of its obstacles. Obstacles only take
//! cells away, so every solution of a board with obstacles is a solution of the empty
//! board: where a file holds many boards of one size, finding the empty board's solutions
//! once and sieving them for each board costs far less than searching each board.
//!
//! Each solution has one queen a row, so a row's cells split the solutions between them:
//! the solutions whose queen in row `r` stands on a free cell are the union of the free
//! cells' sets, or all but the union of the obstacles' sets, whichever has fewer sets. A
//! board's count is the size of the intersection of those, over the rows with obstacles.

use rayon::prelude::*;

use crate::board::{full_mask, next_cells, Board};
use crate::estimate::Start;
use crate::plan::Plan;
use crate::square::Sym;

/// The largest side sieved: the bit sets of 15×15 take 64 MB (2,279,184 solutions a cell,
/// 225 cells); 16×16's would take 473 MB.
pub const MAX_N: usize = 15;

/// Words of bit sets a block of the count works through, each set's share kept in the L1
/// cache while the rows are combined.
const BLOCK: usize = 512;

/// The empty `n`×`n` board's solutions, as one set of solution indices a cell.
pub struct Sieve {
    n: usize,
    solutions: u64,
    /// Words per cell.
    words: usize,
    /// Cell (r, c)'s set in `sets[(r * n + c) * words..][..words]`, bit `i` for solution `i`.
    sets: Vec<u64>,
}

impl std::fmt::Debug for Sieve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sieve").field("n", &self.n).field("solutions", &self.solutions).finish_non_exhaustive()
    }
}

impl Sieve {
    /// Finds every solution of the empty `n`×`n` board, on the current rayon pool, and
    /// keeps them by cell. `None` unless `1 <= n <= MAX_N`.
    pub fn new(n: usize) -> Option<Sieve> {
        if !(1..=MAX_N).contains(&n) {
            return None;
        }
        let solutions = solutions(n);
        let words = solutions.len().div_ceil(64);
        let mut sets = vec![0u64; n * n * words];
        // Each row's cells are filled by one task: their sets lie side by side.
        sets.par_chunks_mut((n * words).max(1)).enumerate().for_each(|(r, row)| {
            for (i, s) in solutions.iter().enumerate() {
                let c = (s >> (4 * r)) as usize & 15;
                row[c * words + i / 64] |= 1 << (i % 64);
            }
        });
        Some(Sieve { n, solutions: solutions.len() as u64, words, sets })
    }

    /// The side of the boards this sieve counts.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The empty board's solutions.
    pub fn solutions(&self) -> u64 {
        self.solutions
    }

    /// The bytes its bit sets take.
    pub fn bytes(&self) -> usize {
        self.sets.len() * 8
    }

    /// The bytes a sieve of side `n` takes, before it is made: `n * n` sets of `q` bits,
    /// for the empty board's `q` solutions.
    pub fn bytes_for(n: usize, q: u64) -> usize {
        n * n * (q as usize).div_ceil(64) * 8
    }

    /// The sets a count of `board` combines, a measure of its cost: per row with
    /// obstacles, the fewer of its free cells and its obstacles.
    pub fn sets_for(board: &Board) -> usize {
        let full = full_mask(board.n()).unwrap_or(u32::MAX);
        board
            .rows()
            .iter()
            .filter(|&&row| row != full)
            .map(|&row| (row.count_ones() as usize).min(board.n() - row.count_ones() as usize))
            .sum()
    }

    /// The number of solutions of `board`, which must be of this sieve's side.
    ///
    /// # Panics
    ///
    /// If `board` is not `n`×`n`.
    pub fn count(&self, board: &Board) -> u64 {
        assert_eq!(board.n(), self.n, "a sieve of {0}x{0} counts boards of that side only", self.n);
        let (n, words) = (self.n, self.words);
        let full = full_mask(n).unwrap_or(u32::MAX);
        let rows: Vec<(usize, u32)> = board.rows().iter().copied().enumerate().filter(|&(_, row)| row != full).collect();
        let set = |r: usize, c: usize| &self.sets[(r * n + c) * words..][..words];
        let mut total = 0;
        let mut kept = [0u64; BLOCK];
        let mut union = [0u64; BLOCK];
        for start in (0..words).step_by(BLOCK) {
            let len = BLOCK.min(words - start);
            let kept = &mut kept[..len];
            kept.fill(u64::MAX);
            for &(r, row) in &rows {
                // The union of the fewer of the row's free cells and obstacles.
                let free = row.count_ones() as usize <= n / 2;
                let cells = if free { row } else { full & !row };
                let union = &mut union[..len];
                union.fill(0);
                for c in (0..n).filter(|&c| cells >> c & 1 == 1) {
                    for (u, w) in union.iter_mut().zip(&set(r, c)[start..start + len]) {
                        *u |= w;
                    }
                }
                for (k, u) in kept.iter_mut().zip(union.iter()) {
                    *k &= if free { *u } else { !*u };
                }
            }
            total += kept.iter().map(|k| u64::from(k.count_ones())).sum::<u64>();
        }
        // The last word's bits past the last solution are set where no row narrowed them.
        let past = (words * 64) as u64 - self.solutions;
        if rows.is_empty() {
            total - past
        } else {
            total - self.past_kept(&rows, past)
        }
    }

    /// Of the `past` bits past the last solution, those the rows `rows` keep: none, since
    /// each row's sets hold no such bit, unless a row is narrowed by its obstacles' union,
    /// whose complement holds them all.
    fn past_kept(&self, rows: &[(usize, u32)], past: u64) -> u64 {
        let all_by_obstacles = rows.iter().all(|&(_, row)| row.count_ones() as usize > self.n / 2);
        if all_by_obstacles {
            past
        } else {
            0
        }
    }
}

/// Every solution of the empty `n`×`n` board (`n <= MAX_N`), each as its queens' columns
/// row by row in 4 bits each, row 0 lowest. One board per orbit of frames under the
/// square's symmetries is searched (see [`crate::symmetry::frame_split`]), a task per
/// queen of its first two rows on the rayon pool, and each solution found stands for its
/// images with other frames.
fn solutions(n: usize) -> Vec<u64> {
    if n < 4 {
        return if n == 1 { vec![0] } else { Vec::new() };
    }
    let empty = Board::empty(n).expect("a side of 4 to 15");
    let plan = Plan::symmetric(&empty, Sym::Identity);
    let tasks: Vec<(usize, u64, Start)> = (0..plan.boards.len())
        .flat_map(|b| {
            let (rows, due) = (&plan.boards[b], &plan.due[b]);
            bits(rows[0]).flat_map(move |a| {
                let first = Start { cols: a, ld: a << 1, rd: a >> 1 };
                bits(next_cells(rows[1], due[1], first.cols, first.ld, first.rd)).map(move |q| {
                    let placed = u64::from(a.trailing_zeros()) | u64::from(q.trailing_zeros()) << 4;
                    (b, placed, Start { cols: first.cols | q, ld: (first.ld | q) << 1, rd: (first.rd | q) >> 1 })
                })
            })
        })
        .collect();
    // One growing list a piece of rayon's split, not one a task: fewer allocations.
    let found: Vec<Vec<u64>> = tasks
        .par_iter()
        .fold(Vec::new, |mut all, &(b, placed, at)| {
            let mut canonical = Vec::new();
            extend(&plan.boards[b], &plan.due[b], 2, at, placed, &mut canonical);
            for s in canonical {
                images(n, s, &mut all);
            }
            all
        })
        .collect();
    found.concat()
}

/// The bits of `mask`, lowest first, one mask each.
fn bits(mut mask: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        let bit = mask & mask.wrapping_neg();
        mask ^= bit;
        (bit != 0).then_some(bit)
    })
}

/// Every completion on the board `rows` (due columns `due`) of the queens `placed`
/// (columns of rows `0..row`, `row <= n - 2`) with the attacks `at` on row `row`, pushed
/// to `out`. Iterative, with the last row's one free column read off directly.
fn extend(rows: &[u32], due: &[u32], row: usize, at: Start, placed: u64, out: &mut Vec<u64>) {
    let (n, top) = (rows.len(), row);
    let mut avail = [0u32; MAX_N];
    let mut state = [Start::default(); MAX_N];
    let mut queens = [0u64; MAX_N];
    let mut row = row;
    (avail[row], state[row], queens[row]) = (next_cells(rows[row], due[row], at.cols, at.ld, at.rd), at, placed);
    loop {
        if avail[row] == 0 {
            if row == top {
                return;
            }
            row -= 1;
            continue;
        }
        let bit = avail[row] & avail[row].wrapping_neg();
        avail[row] ^= bit;
        let s = state[row];
        let next = Start { cols: s.cols | bit, ld: (s.ld | bit) << 1, rd: (s.rd | bit) >> 1 };
        let queens_here = queens[row] | u64::from(bit.trailing_zeros()) << (4 * row);
        if row + 2 == n {
            let last = rows[n - 1] & !(next.cols | next.ld | next.rd);
            if last != 0 {
                out.push(queens_here | u64::from(last.trailing_zeros()) << (4 * (n - 1)));
            }
            continue;
        }
        row += 1;
        (avail[row], state[row], queens[row]) = (next_cells(rows[row], due[row], next.cols, next.ld, next.rd), next, queens_here);
    }
}

/// Pushes the images of the solution `s` of a split's board that it stands for: one for
/// each frame its images have, by the first symmetry that gives that frame. All the
/// board's solutions share the frame's symmetries, so each image frame's solutions are
/// the board's, carried over by one same symmetry: each solution is pushed once.
fn images(n: usize, s: u64, out: &mut Vec<u64>) {
    let m = n - 1;
    let mut frames = [u32::MAX; 8];
    for (slot, g) in Sym::ALL.into_iter().enumerate() {
        let mut image = 0u64;
        let mut frame = [0u32; 4];
        for r in 0..n {
            let (r2, c2) = g.apply(n, r, (s >> (4 * r) & 15) as usize);
            image |= (c2 as u64) << (4 * r2);
            // Top and bottom queens' columns, left and right queens' rows.
            if r2 == 0 {
                frame[0] = c2 as u32;
            }
            if r2 == m {
                frame[1] = c2 as u32;
            }
            if c2 == 0 {
                frame[2] = r2 as u32;
            }
            if c2 == m {
                frame[3] = r2 as u32;
            }
        }
        let frame = frame[0] | frame[1] << 4 | frame[2] << 8 | frame[3] << 12;
        if !frames[..slot].contains(&frame) {
            out.push(image);
        }
        frames[slot] = frame;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The board's solutions, by a plain search.
    fn searched(board: &Board) -> u64 {
        fn go(rows: &[u32], row: usize, (cols, ld, rd): (u32, u32, u32)) -> u64 {
            if row == rows.len() {
                return 1;
            }
            bits(rows[row] & !(cols | ld | rd)).map(|b| go(rows, row + 1, (cols | b, (ld | b) << 1, (rd | b) >> 1))).sum()
        }
        go(board.rows(), 0, (0, 0, 0))
    }

    /// A000170 for n = 1..=MAX_N.
    const Q: [u64; MAX_N] = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184];

    #[test]
    fn the_empty_boards_solutions_are_each_found_once() {
        for n in 1..=11 {
            let mut all = solutions(n);
            assert_eq!(all.len() as u64, Q[n - 1], "n={n}");
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len() as u64, Q[n - 1], "n={n}: a solution twice");
            let sieve = Sieve::new(n).unwrap();
            assert_eq!(sieve.count(&Board::empty(n).unwrap()), Q[n - 1]);
            assert_eq!(sieve.bytes(), Sieve::bytes_for(n, Q[n - 1]));
        }
        assert!(Sieve::new(0).is_none() && Sieve::new(MAX_N + 1).is_none());
    }

    #[test]
    fn sieved_counts_match_the_search_on_random_boards() {
        let mut rng = crate::rng::Rng::new(11);
        for n in [1, 4, 7, 9, 10] {
            let sieve = Sieve::new(n).unwrap();
            for density in [0, 5, 20, 45, 60, 80, 100] {
                for _ in 0..12 {
                    let board = Board::from_fn(n, |_, _| rng.below(100) >= density).unwrap();
                    assert_eq!(sieve.count(&board), searched(&board), "n={n} density={density}\n{board}");
                }
            }
        }
    }

    #[test]
    fn rows_narrowed_by_free_cells_and_by_obstacles_combine() {
        // Row 0 narrowed by its one free cell, row 1 by its one obstacle, row 2 by its
        // obstacles (more than half the row), the rest free.
        let n = 8;
        let board = Board::from_fn(n, |r, c| match r {
            0 => c == 3,
            1 => c != 5,
            2 => c < 3,
            _ => true,
        })
        .unwrap();
        assert_eq!(Sieve::new(n).unwrap().count(&board), searched(&board));
        assert_eq!(Sieve::sets_for(&board), 1 + 1 + 3);
    }
}
