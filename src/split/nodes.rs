//! A small case's search nodes, counted: below a node, and below each node of its first
//! rows, of which a shard's walk down the tree keeps those it may weigh.

use std::collections::HashMap;

use crate::board::{last_two_rows, next_cells};
use crate::prefix::Prefix;

/// A node of the first rows a count notes, with its search nodes, itself included.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Note {
    pub prefix: Prefix,
    /// Rows below the node the count started from.
    pub depth: usize,
    pub nodes: u64,
}

/// The search nodes below `p`, at the first of `rows` (with due columns `due`), `p`
/// included, where they are at most `budget` (which they are taken from); with a [`Note`]
/// of each node in the first `note` rows pushed on `notes`, each after its parent.
pub(super) fn count(rows: &[u32], due: &[u32], p: Prefix, budget: &mut u64, (note, notes): (usize, &mut Vec<Note>)) -> Option<u64> {
    let len = rows.len();
    let cells = |k: usize, cols: u32, ld: u32, rd: u32| match rows.get(k) {
        Some(&free) => next_cells(free, due.get(k).copied().unwrap_or(0), cols, ld, rd),
        None => 0,
    };
    // The node `k` rows down: its cells not yet tried, and per row above it, the state to
    // return to, and where the note of the node there is.
    let (mut k, mut cols, mut ld, mut rd) = (0, p.cols, p.ld, p.rd);
    let mut avail = cells(0, cols, ld, rd);
    let mut stack = [[0u32; 4]; 33];
    let mut noted = [0usize; 33];
    let mut total = 1;
    if note > 0 {
        noted[0] = notes.len();
        notes.push(Note { prefix: p, depth: 0, nodes: 0 });
    }
    loop {
        if k + 1 >= note {
            // The last rows' nodes at once, in closed form: a queen in the last row has
            // one column left, which its due columns never take away.
            let base = |cols: u32, ld: u32, rd: u32| rows[len - 1] & !(cols | ld << 1 | rd >> 1);
            match len - k {
                1 => total += u64::from(avail.count_ones()),
                2 => total += u64::from(avail.count_ones()) + last_two_rows(avail, base(cols, ld, rd)),
                3 => {
                    while avail != 0 {
                        let bit = avail & avail.wrapping_neg();
                        avail ^= bit;
                        let (c, l, r) = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
                        let a = cells(k + 1, c, l, r);
                        total += 1 + u64::from(a.count_ones()) + last_two_rows(a, base(c, l, r));
                    }
                }
                _ => {}
            }
            if len - k <= 3 {
                avail = 0;
            }
            if total > *budget {
                return None;
            }
        }
        if avail == 0 {
            if k < note {
                let i = noted[k];
                notes[i].nodes = total - notes[i].nodes;
            }
            if k == 0 {
                break;
            }
            k -= 1;
            [avail, cols, ld, rd] = stack[k];
            continue;
        }
        let bit = avail & avail.wrapping_neg();
        avail ^= bit;
        total += 1;
        let (c, l, r) = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
        let below = cells(k + 1, c, l, r);
        if below == 0 && k + 1 >= note {
            // Counted, with nothing below it.
            continue;
        }
        if total > *budget {
            return None;
        }
        stack[k] = [avail, cols, ld, rd];
        k += 1;
        (cols, ld, rd, avail) = (c, l, r, below);
        if k < note {
            noted[k] = notes.len();
            // Its nodes are those counted from here until it is left.
            notes.push(Note { prefix: Prefix { cols, ld, rd, ..p }, depth: k, nodes: total - 1 });
        }
    }
    *budget = budget.checked_sub(total)?;
    Some(total)
}

/// The nodes of `notes` (as [`count`] pushed them) that a shard's walk may weigh, with
/// their search nodes: those whose parent has more than `least` search nodes. The walk
/// weighs only the children of nodes it divides, and counts any other it meets.
pub(super) fn kept(notes: &[Note], least: f64) -> HashMap<Prefix, u64> {
    // The nodes of the last note met at each depth: a note's parent is the last before it.
    let mut last = Vec::new();
    let mut out = HashMap::new();
    for n in notes {
        last.truncate(n.depth);
        if last.last().is_some_and(|&parent| parent as f64 > least) {
            out.insert(n.prefix, n.nodes);
        }
        last.push(n.nodes);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{due_columns, Board};

    /// The search nodes below `p` at the first of `rows`, `p` included, one call a node;
    /// with each node of the first `note` rows, and its depth, in the order met.
    fn exact(rows: &[u32], due: &[u32], p: Prefix, depth: usize, note: usize, notes: &mut Vec<Note>) -> u64 {
        let at = notes.len();
        if depth < note {
            notes.push(Note { prefix: p, depth, nodes: 0 });
        }
        let mut avail = if depth < rows.len() { next_cells(rows[depth], due[depth], p.cols, p.ld, p.rd) } else { 0 };
        let mut total = 1;
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            total += exact(rows, due, p.place(bit), depth + 1, note, notes);
        }
        if depth < note {
            notes[at].nodes = total;
        }
        total
    }

    /// Boards of every size a small case has, with obstacles, and those of a symmetry
    /// split, whose due columns bite early.
    fn boards() -> Vec<Board> {
        let mut rng = crate::rng::Rng::new(7);
        let mut boards: Vec<Board> = [1, 2, 3, 8, 10].iter().map(|&n| Board::empty(n).unwrap()).collect();
        boards.extend((0..20).map(|i| Board::from_fn(6 + i % 6, |_, _| !rng.chance(0.2)).unwrap()));
        let split = crate::symmetry::frame_split(&Board::empty(9).unwrap(), &crate::symmetry::Sym::ALL);
        assert!(split.iter().any(|w| crate::board::due_matters(&due_columns(w.board.rows()), 0)));
        boards.extend(split.into_iter().map(|w| w.board));
        boards
    }

    #[test]
    fn the_count_and_its_notes_are_every_nodes_own() {
        for board in boards() {
            let (rows, due) = (board.rows(), due_columns(board.rows()));
            for note in [0, 1, 3, 20] {
                let mut want_notes = Vec::new();
                let want = exact(rows, &due, Prefix::default(), 0, note, &mut want_notes);
                // After another board's notes, as a plan's boards are counted.
                let mut notes = vec![Note { prefix: Prefix::default(), depth: 0, nodes: 7 }];
                let mut budget = u64::MAX;
                assert_eq!(count(rows, &due, Prefix::default(), &mut budget, (note, &mut notes)), Some(want), "{board}");
                assert_eq!(budget, u64::MAX - want);
                assert_eq!(notes[0].nodes, 7);
                assert_eq!(notes[1..], want_notes, "{board}");
            }
        }
    }

    #[test]
    fn a_count_past_its_budget_is_none() {
        for board in boards() {
            let (rows, due) = (board.rows(), due_columns(board.rows()));
            let nodes = exact(rows, &due, Prefix::default(), 0, 0, &mut Vec::new());
            for (budget, fits) in [(nodes, true), (nodes + 5, true), (nodes - 1, false), (0, false)] {
                let mut left = budget;
                let counted = count(rows, &due, Prefix::default(), &mut left, (2, &mut Vec::new()));
                assert_eq!(counted, fits.then_some(nodes), "{board} within {budget}");
                if fits {
                    assert_eq!(left, budget - nodes);
                }
            }
        }
    }

    #[test]
    fn the_notes_kept_are_the_children_of_large_nodes() {
        let board = Board::from_fn(9, |r, c| (r * 5 + c * 3) % 7 != 0).unwrap();
        let (rows, due) = (board.rows(), due_columns(board.rows()));
        let (mut budget, mut notes) = (u64::MAX, Vec::new());
        count(rows, &due, Prefix::default(), &mut budget, (4, &mut notes));
        let least = 100.0;
        let kept = kept(&notes, least);
        // A node's parent is the node it places one more queen on.
        let is_parent = |m: &Note, n: &Note| {
            let mut bits = n.prefix.cols & !m.prefix.cols;
            m.depth + 1 == n.depth && bits.count_ones() == 1 && m.prefix.place(std::mem::take(&mut bits)) == n.prefix
        };
        let want: HashMap<Prefix, u64> =
            notes.iter().filter(|n| notes.iter().any(|m| is_parent(m, n) && m.nodes as f64 > least)).map(|n| (n.prefix, n.nodes)).collect();
        assert!(!want.is_empty() && want.len() < notes.len() - 1);
        assert_eq!(kept, want);
    }
}
