//! The 8 symmetries of the square as maps of cells: below boards, which are seen through
//! them, and symmetry splits, which count by them.

/// One of the 8 symmetries of the square, acting on cells (row, column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sym {
    /// Leaves every cell in place.
    Identity,
    /// Quarter turn clockwise.
    Rot90,
    /// Half turn.
    Rot180,
    /// Quarter turn anticlockwise.
    Rot270,
    /// Mirror left to right (columns reversed).
    FlipColumns,
    /// Mirror top to bottom (rows reversed).
    FlipRows,
    /// Mirror in the main diagonal (rows and columns swapped).
    Transpose,
    /// Mirror in the other diagonal.
    AntiTranspose,
}

impl Sym {
    /// All eight, identity first.
    pub const ALL: [Sym; 8] =
        [Sym::Identity, Sym::Rot90, Sym::Rot180, Sym::Rot270, Sym::FlipColumns, Sym::FlipRows, Sym::Transpose, Sym::AntiTranspose];

    /// Where cell (r, c) of an `n`-board goes.
    pub fn apply(self, n: usize, r: usize, c: usize) -> (usize, usize) {
        let m = n - 1;
        match self {
            Sym::Identity => (r, c),
            Sym::Rot90 => (c, m - r),
            Sym::Rot180 => (m - r, m - c),
            Sym::Rot270 => (m - c, r),
            Sym::FlipColumns => (r, m - c),
            Sym::FlipRows => (m - r, c),
            Sym::Transpose => (c, r),
            Sym::AntiTranspose => (m - c, m - r),
        }
    }

    /// A short name for `--stats` and tests.
    pub fn name(self) -> &'static str {
        match self {
            Sym::Identity => "identity",
            Sym::Rot90 => "rot90",
            Sym::Rot180 => "rot180",
            Sym::Rot270 => "rot270",
            Sym::FlipColumns => "flip-columns",
            Sym::FlipRows => "flip-rows",
            Sym::Transpose => "transpose",
            Sym::AntiTranspose => "anti-transpose",
        }
    }
}
