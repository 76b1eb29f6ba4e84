//! Prefixes brought further down the scalar search's way: for lanes that cannot start where
//! the prefixes are (a lane keeps its stack of queens in a register, so on large boards the
//! lanes take prefixes only a few rows down: row 5 of a 20×20 board, row 7 of a 21×21), and
//! for threads whose prefixes are too few or too heavy to share the work (see
//! [`super::pieces`]).

use std::cell::Cell;

use crate::board::next_cells;
use crate::plan::Plan;
use crate::prefix::Prefix;

/// The prefixes at row `to` below one at row `from`, in the order the scalar search meets
/// them and with its pruning: a queen that leaves the row after next no cell is a node
/// but makes no prefix. The queens it places are added to `nodes`, so that the lanes'
/// nodes and these add up to the scalar search's.
pub struct Descend<'a> {
    rows: &'a [u32],
    /// The board's due columns, where the lanes below look at them.
    due: Option<&'a [u32]>,
    from: usize,
    to: usize,
    /// From row `from` down: the prefix at each row and its cells not yet tried.
    stack: Vec<(Prefix, u32)>,
    nodes: &'a Cell<u64>,
}

impl<'a> Descend<'a> {
    /// The prefixes at row `to` below `p` (at row `from`, with `from < to <= n - 3`),
    /// taking due columns into account if `due`.
    pub fn new(plan: &'a Plan, p: Prefix, from: usize, to: usize, due: bool, nodes: &'a Cell<u64>) -> Descend<'a> {
        let b = p.board as usize;
        let mut d =
            Descend { rows: &plan.boards[b], due: due.then_some(&plan.due[b][..]), from, to, stack: Vec::with_capacity(to - from), nodes };
        let cells = d.cells(from, &p);
        d.stack.push((p, cells));
        d
    }

    fn cells(&self, row: usize, p: &Prefix) -> u32 {
        let late = self.due.map_or(0, |due| due[row]);
        next_cells(self.rows[row], late, p.cols, p.ld, p.rd)
    }
}

impl Iterator for Descend<'_> {
    type Item = Prefix;

    fn next(&mut self) -> Option<Prefix> {
        loop {
            let row = self.from + self.stack.len().saturating_sub(1);
            let (p, avail) = self.stack.last_mut()?;
            if *avail == 0 {
                self.stack.pop();
                continue;
            }
            let bit = *avail & avail.wrapping_neg();
            *avail ^= bit;
            self.nodes.set(self.nodes.get() + 1);
            let child = p.place(bit);
            if self.rows[row + 2] & !(child.cols | child.ld << 1 | child.rd >> 1) == 0 {
                continue;
            }
            if row + 1 == self.to {
                return Some(child);
            }
            let cells = self.cells(row + 1, &child);
            self.stack.push((child, cells));
        }
    }
}
