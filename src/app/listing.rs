//! `--solutions K`: after a case's answer, up to K of its solutions (all of them with
//! `all`), in lexicographic order (see [`crate::solutions`]), each as a line of its queens'
//! columns from 1 or drawn as its board, streamed in whole lines through the answers'
//! buffer, with the progress bar on a terminal. A signal stops the listing after a whole
//! line.

use std::io::Write;
use std::sync::Arc;

use super::{Failure, Sink, Stop};
use crate::board::Board;
use crate::control::Control;
use crate::progress::Progress;
use crate::solutions::Solutions;

/// What `--solutions` lists after each case's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listing {
    /// The most solutions to list; all of them when `None`.
    pub most: Option<u64>,
    /// Each solution drawn as its board, a blank line between, instead of a line of columns.
    pub drawn: bool,
}

/// Solutions between looks at the cancel flag and moves of the progress bar.
const BATCH: u64 = 1 << 12;
/// Bytes gathered before they are handed to the answers' writer.
const CHUNK: usize = 1 << 16;

impl Listing {
    /// Lists the solutions of `board`, case `case` of `name` (as messages show it), whose
    /// count is `count`; says
    /// so where their number differs from the count when all are listed.
    pub(super) fn list<O: Write, E: Write>(
        &self,
        board: &Board,
        count: u128,
        (name, case): (&str, usize),
        (ctl, progress): (&Arc<Control>, bool),
        sink: &mut Sink<'_, O, E>,
    ) -> Result<(), Stop> {
        let most = self.most.map_or(count, |k| count.min(u128::from(k)));
        if most == 0 {
            return Ok(());
        }
        sink.flush()?;
        let _bar = Progress::start(Arc::clone(ctl), format!("case {case}, solutions"), progress);
        ctl.begin(0.0..most as f64, "listing");
        let (mut listed, mut chunk) = (0u128, Vec::with_capacity(CHUNK + 4096));
        let mut all = Solutions::new(board);
        while listed < most {
            let Some(columns) = all.next_columns() else { break };
            if self.drawn {
                if listed > 0 {
                    chunk.push(b'\n');
                }
                drawn(board, columns, &mut chunk);
            } else {
                line(columns, &mut chunk);
            }
            listed += 1;
            if chunk.len() >= CHUNK {
                sink.bytes(&chunk)?;
                chunk.clear();
            }
            if listed % u128::from(BATCH) == 0 {
                ctl.advance(BATCH as f64);
                if ctl.is_cancelled() {
                    sink.bytes(&chunk)?;
                    sink.flush()?;
                    return Err(Stop::Failed(Failure::Signal(ctl.signal().unwrap_or(2))));
                }
            }
        }
        sink.bytes(&chunk)?;
        ctl.end();
        if self.most.is_none() && listed != count {
            sink.say(format_args!("{name}: case {case}: listed {listed} solutions where the count is {count}: please report this"));
        }
        Ok(())
    }
}

/// A solution as a line: each row's queen's column from 1, space-separated ("2 4 1 3").
fn line(columns: &[usize], out: &mut Vec<u8>) {
    for (i, &c) in columns.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        // Columns run to 32: two digits at most.
        let column = (c + 1) as u8;
        if column >= 10 {
            out.push(b'0' + column / 10);
        }
        out.push(b'0' + column % 10);
    }
    out.push(b'\n');
}

/// A solution drawn on `board`: a line per row, `Q` for a queen, `.` and `*` as in the
/// input.
fn drawn(board: &Board, columns: &[usize], out: &mut Vec<u8>) {
    for (r, &queen) in columns.iter().enumerate() {
        out.extend((0..board.n()).map(|c| match (c == queen, board.is_free(r, c)) {
            (true, _) => b'Q',
            (false, true) => b'.',
            (false, false) => b'*',
        }));
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_drawings_read_as_the_readme_shows_them() {
        let board = Board::empty(4).unwrap().without(0, 0);
        let first = Solutions::new(&board).next().unwrap();
        let (mut text, mut picture) = (Vec::new(), Vec::new());
        line(&first, &mut text);
        drawn(&board, &first, &mut picture);
        assert_eq!(String::from_utf8(text).unwrap(), "2 4 1 3\n");
        assert_eq!(String::from_utf8(picture).unwrap(), "*Q..\n...Q\nQ...\n..Q.\n");
        let mut wide = Vec::new();
        line(&[9, 31], &mut wide);
        assert_eq!(wide, b"10 32\n");
    }
}
