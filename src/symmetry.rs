//! The subgroup of the square's 8 symmetries ([`Sym`]) a board keeps, and the split of a
//! board's solutions by their *frame* that lets the counter search one frame per orbit.
//!
//! Every solution has exactly one queen in the top row, the bottom row, the left column and
//! the right column; those (at most four) queens are its frame. A symmetry `g` of the board
//! maps the solutions with frame `F` one-to-one onto those with frame `g(F)`, so the count
//! is the sum, over the orbits of frames under the board's group, of the orbit's size times
//! the count for one frame in it. This holds for any subgroup and any obstacles, whatever
//! symmetry the solutions themselves have, so no case needs a special rule for being
//! right. One case has one for speed: a queen in the top-left corner (see [`frame_split`]).

use crate::board::Board;
pub use crate::square::Sym;

/// The symmetries that map the board's obstacles onto themselves (always a subgroup).
pub fn invariant_group(board: &Board) -> Vec<Sym> {
    Sym::ALL.into_iter().filter(|&g| board.transformed(g) == *board).collect()
}

/// A short name for a subgroup of the square's symmetries, e.g. "D4" or "{id, flip-columns}".
pub fn group_name(group: &[Sym]) -> String {
    match group.len() {
        8 => "D4 (all 8)".to_string(),
        1 => "trivial".to_string(),
        _ => format!("{{{}}}", group.iter().map(|g| g.name()).collect::<Vec<_>>().join(", ")),
    }
}

/// A board restricted to the solutions with one frame, and how many frames it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightedBoard {
    /// Free cells once every cell the frame's queens attack is removed.
    pub board: Board,
    /// The size of the frame's orbit.
    pub weight: u64,
}

/// Splits `board` into restricted boards with weights whose weighted counts sum to the
/// board's count, using the symmetries in `group` (a subgroup `board` is invariant under).
///
/// A frame stands for its orbit when it is the orbit's least member, comparing the top
/// queen's column first. For each top column `t` that can be least:
/// - frames whose every image has its top queen right of `t` are the orbit's only member
///   with top `t`, so their orbit has all `|group|` members. "Every image's top is right
///   of `t`" only says which cells of the other sides may hold their queens, so one board
///   (top queen at `t`, those cells removed) counts them all, with weight `|group|`: no
///   part of the search is repeated.
/// - frames where some image ties at `t` are few; each is fixed queen by queen on every
///   side the group reaches, kept if it is its orbit's least member, and weighted by its
///   orbit's size.
/// - frames with a queen in the top-left corner, when the group has the transpose, all
///   tie with their transposed frame, and fixing them queen by queen would search the
///   rows above each side queen once per frame. Instead, as in Takaki's classic corner
///   case, the solution is told from its transpose by its second row and column: the queens
///   at (1, c) and (r, 1) become (1, r) and (c, 1), and c ≠ r, so exactly one of the two has
///   c < r. One board per c (row 1 is searched first anyway, so nothing is repeated) with
///   column 1 free only below row c counts them, with weight `|group|` (see
///   `corner_boards`).
pub fn frame_split(board: &Board, group: &[Sym]) -> Vec<WeightedBoard> {
    let n = board.n();
    let sides = sides_reached(n, group);
    let onto_top: Vec<(Side, Sym)> = group.iter().filter(|&&g| g != Sym::Identity).map(|&g| (side_onto_top(n, g), g)).collect();
    // The column an image's top queen lands in, from the queen at `pos` on `side`.
    let top_of = |side: Side, g: Sym, pos: usize| {
        let (r, c) = side.cell(n, pos);
        g.apply(n, r, c).1
    };
    let corner_rule = n >= 2 && group.contains(&Sym::Transpose) && board.is_free(0, 0);
    let mut out = if corner_rule { corner_boards(board, group.len() as u64) } else { Vec::new() };
    for t in (0..n).filter(|&t| board.is_free(0, t) && !(corner_rule && t == 0)) {
        let top_queen = (0, t);
        let mut strict = with_queen(board, top_queen);
        let mut possible = true;
        for &(side, g) in &onto_top {
            match side.position(n, top_queen) {
                // The top queen itself is this side's queen: its image's top is fixed.
                Some(pos) => possible &= top_of(side, g, pos) > t,
                None => {
                    for pos in (0..n).filter(|&pos| top_of(side, g, pos) <= t) {
                        let (r, c) = side.cell(n, pos);
                        strict = strict.without(r, c);
                    }
                }
            }
        }
        if possible {
            out.push(WeightedBoard { board: strict, weight: group.len() as u64 });
        }
    }
    for frame in frames(board, &sides) {
        let t = frame.positions[0] as usize;
        if corner_rule && t == 0 {
            continue;
        }
        let tops = onto_top.iter().map(|&(side, g)| top_of(side, g, frame.position_on(&sides, side)));
        let (ties, below) = tops.fold((0, 0), |(eq, lt), top| (eq + usize::from(top == t), lt + usize::from(top < t)));
        if ties == 0 || below > 0 {
            continue;
        }
        let mut images = [frame; 8];
        for (slot, &g) in images.iter_mut().zip(group) {
            *slot = frame.transformed(n, g, &sides);
        }
        let images = &mut images[..group.len()];
        // The frame stands for its orbit only if it is the orbit's least member.
        if images.iter().any(|img| *img < frame) {
            continue;
        }
        images.sort_unstable();
        let weight = 1 + images.windows(2).filter(|w| w[0] != w[1]).count() as u64;
        out.push(WeightedBoard { board: frame.restrict(board, &sides), weight });
    }
    out
}

/// The boards for the solutions with a queen at (0, 0) and queens at (1, c) and (r, 1) with
/// c < r, one per c, each of weight `weight`. Such a solution's orbit has `weight` members:
/// only a symmetry fixing the corner could map it to itself, and the transpose does not,
/// since c ≠ r; and only it and its transpose have a queen at (0, 0), since a solution has
/// at most one corner queen.
fn corner_boards(board: &Board, weight: u64) -> Vec<WeightedBoard> {
    let n = board.n();
    let corner = with_queen(board, (0, 0));
    (2..n)
        .filter(|&c| corner.is_free(1, c))
        .map(|c| {
            let second = with_queen(&corner, (1, c));
            let board = Board::from_fn(n, |r, col| second.is_free(r, col) && !(col == 1 && r <= c)).expect("same size as a valid board");
            WeightedBoard { board, weight }
        })
        .collect()
}

/// The side whose cells `g` carries onto the top row.
fn side_onto_top(n: usize, g: Sym) -> Side {
    Side::ALL
        .into_iter()
        .find(|side| {
            (0..n).all(|pos| {
                let (r, c) = side.cell(n, pos);
                g.apply(n, r, c).0 == 0
            })
        })
        .expect("a symmetry carries some side onto the top row")
}

/// A side of the board: the line of cells a frame holds one queen on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Top,
    Bottom,
    Left,
    Right,
}

impl Side {
    const ALL: [Side; 4] = [Side::Top, Side::Bottom, Side::Left, Side::Right];

    /// The cell at `pos` along this side (column for rows, row for columns).
    fn cell(self, n: usize, pos: usize) -> (usize, usize) {
        match self {
            Side::Top => (0, pos),
            Side::Bottom => (n - 1, pos),
            Side::Left => (pos, 0),
            Side::Right => (pos, n - 1),
        }
    }

    /// Where `cell` lies along this side, if it is on it.
    fn position(self, n: usize, (r, c): (usize, usize)) -> Option<usize> {
        match self {
            Side::Top => (r == 0).then_some(c),
            Side::Bottom => (r == n - 1).then_some(c),
            Side::Left => (c == 0).then_some(r),
            Side::Right => (c == n - 1).then_some(r),
        }
    }
}

/// The sides the top row is carried onto by the symmetries of `group`, top first.
fn sides_reached(n: usize, group: &[Sym]) -> Vec<Side> {
    // The images of the top row's middle-free cell (0, 1) fall on distinct sides; for n < 3
    // there is no such cell, and every side is used.
    if n < 3 {
        return Side::ALL.to_vec();
    }
    Side::ALL
        .into_iter()
        .filter(|side| group.iter().any(|&g| side.position(n, g.apply(n, 0, 1)).is_some_and(|p| p != 0 && p != n - 1)))
        .collect()
}

/// One queen's position on each side of a frame, in the order of the side list it was made
/// with (unused entries stay 0). A corner queen serves two sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Frame {
    positions: [u8; 4],
}

impl Frame {
    fn cells(self, n: usize, sides: &[Side]) -> impl Iterator<Item = (usize, usize)> + '_ {
        sides.iter().zip(self.positions).map(move |(s, p)| s.cell(n, p as usize))
    }

    /// The position of the queen on `side`, one of `sides`.
    fn position_on(self, sides: &[Side], side: Side) -> usize {
        let i = sides.iter().position(|&s| s == side).expect("every side carried onto the top is in the frame");
        self.positions[i] as usize
    }

    /// The frame `g` makes of this one; `sides` is closed under `g`, so every side finds
    /// exactly one image queen on it (two queens of a frame never share a side).
    fn transformed(&self, n: usize, g: Sym, sides: &[Side]) -> Frame {
        let mut images = [(0, 0); 4];
        for (slot, (r, c)) in images.iter_mut().zip(self.cells(n, sides)) {
            *slot = g.apply(n, r, c);
        }
        let images = &images[..sides.len()];
        let mut positions = [0u8; 4];
        for (slot, side) in positions.iter_mut().zip(sides) {
            let pos = images.iter().find_map(|&cell| side.position(n, cell));
            *slot = pos.expect("the sides are closed under the group") as u8;
        }
        Frame { positions }
    }

    /// The board with every cell attacked by a frame queen removed (the queens' own cells stay).
    fn restrict(&self, board: &Board, sides: &[Side]) -> Board {
        Board::from_fn(board.n(), |r, c| board.is_free(r, c) && self.cells(board.n(), sides).all(|q| q == (r, c) || !attacks(q, (r, c))))
            .expect("same size as a valid board")
    }
}

/// Every frame on `sides` that some solution of `board` could have: queens on free cells,
/// a corner queen shared by both its sides, no two attacking each other.
fn frames(board: &Board, sides: &[Side]) -> Vec<Frame> {
    let mut out = Vec::new();
    extend_frames(board, sides, &mut Vec::with_capacity(sides.len()), &mut out);
    out
}

fn extend_frames(board: &Board, sides: &[Side], positions: &mut Vec<usize>, out: &mut Vec<Frame>) {
    let n = board.n();
    let Some(&side) = sides.get(positions.len()) else {
        let mut frame = Frame { positions: [0; 4] };
        for (slot, &p) in frame.positions.iter_mut().zip(positions.iter()) {
            *slot = p as u8;
        }
        out.push(frame);
        return;
    };
    let placed: Vec<(usize, usize)> = sides.iter().zip(positions.iter()).map(|(s, &p)| s.cell(n, p)).collect();
    for pos in 0..n {
        let cell = side.cell(n, pos);
        if !board.is_free(cell.0, cell.1) {
            continue;
        }
        // Each earlier queen either is this very cell (a shared corner) or stays off this
        // side and out of this cell's reach; and a corner cell must be the queen of every
        // chosen side it lies on.
        let fits = placed.iter().zip(sides).all(|(&q, &s)| {
            if q == cell {
                true
            } else {
                side.position(n, q).is_none() && s.position(n, cell).is_none() && !attacks(q, cell)
            }
        });
        if fits {
            positions.push(pos);
            extend_frames(board, sides, positions, out);
            positions.pop();
        }
    }
}

/// `board` with every cell that a queen at `q` attacks removed (its own cell stays).
fn with_queen(board: &Board, q: (usize, usize)) -> Board {
    Board::from_fn(board.n(), |r, c| board.is_free(r, c) && ((r, c) == q || !attacks(q, (r, c)))).expect("same size as a valid board")
}

/// Whether queens on distinct cells `a` and `b` attack each other.
fn attacks(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 == b.0 || a.1 == b.1 || a.0.abs_diff(b.0) == a.1.abs_diff(b.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eight_symmetries_are_distinct_and_closed() {
        let n = 5;
        let image = |g: Sym| -> Vec<(usize, usize)> { (0..n * n).map(|i| g.apply(n, i / n, i % n)).collect() };
        let all: Vec<_> = Sym::ALL.iter().map(|&g| image(g)).collect();
        for i in 0..8 {
            for j in i + 1..8 {
                assert_ne!(all[i], all[j]);
            }
        }
        for &g in &Sym::ALL {
            for &h in &Sym::ALL {
                let gh: Vec<_> = (0..n * n)
                    .map(|i| {
                        let (r, c) = h.apply(n, i / n, i % n);
                        g.apply(n, r, c)
                    })
                    .collect();
                assert!(all.contains(&gh));
            }
        }
    }

    #[test]
    fn the_frame_holds_the_sides_the_group_reaches() {
        use Side::*;
        let sides = |g: &[Sym]| sides_reached(7, g);
        assert_eq!(sides(&[Sym::Identity, Sym::FlipColumns]), vec![Top]);
        assert_eq!(sides(&[Sym::Identity, Sym::FlipRows]), vec![Top, Bottom]);
        assert_eq!(sides(&[Sym::Identity, Sym::Transpose]), vec![Top, Left]);
        assert_eq!(sides(&Sym::ALL), vec![Top, Bottom, Left, Right]);
    }

    #[test]
    fn an_empty_board_keeps_all_eight() {
        assert_eq!(invariant_group(&Board::empty(7).unwrap()).len(), 8);
    }

    #[test]
    fn one_off_centre_obstacle_on_the_middle_row_leaves_the_row_mirror() {
        let b = Board::from_fn(5, |r, c| (r, c) != (2, 0)).unwrap();
        assert_eq!(invariant_group(&b), vec![Sym::Identity, Sym::FlipRows]);
    }

    #[test]
    fn the_mirror_alone_is_the_classic_left_half_times_two() {
        let b = Board::empty(7).unwrap();
        let split = frame_split(&b, &[Sym::Identity, Sym::FlipColumns]);
        // Columns 0..2 with weight 2; the middle column ties with itself: weight 1.
        let tops: Vec<(u32, u64)> = split.iter().map(|w| (w.board.rows()[0], w.weight)).collect();
        assert_eq!(tops, vec![(0b1, 2), (0b10, 2), (0b100, 2), (0b1000, 1)]);
    }

    #[test]
    fn boards_without_a_tie_carry_the_whole_group() {
        let b = Board::empty(9).unwrap();
        let split = frame_split(&b, &Sym::ALL);
        assert!(split.iter().any(|w| w.weight == 8));
        assert!(split.iter().all(|w| [1, 2, 4, 8].contains(&w.weight)));
    }
}
