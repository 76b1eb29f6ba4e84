//! An input's boards parsed on a thread of their own, a bounded number ahead of the count,
//! so that the count can see what is coming: `auto` opens the GPU as soon as a queued board
//! may need it, and the opening overlaps the boards before it.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::mpsc::{sync_channel, Receiver};

use crate::board::Board;
use crate::parse::{ParseError, Parser};

/// Boards parsed ahead of the one being counted, at most: enough to see a judge file's
/// next boards, few enough that memory stays small whatever the input.
const AHEAD: usize = 64;

type Parsed = Result<Board, ParseError>;

/// The boards of one input, in order, up to and including its first error.
pub(super) struct ReadAhead {
    parsed: Receiver<Parsed>,
    /// Parsed, not yet taken.
    queue: VecDeque<Parsed>,
    /// How many of `queue`'s first entries [`ReadAhead::newly_queued`] has shown.
    shown: usize,
}

impl ReadAhead {
    /// Starts parsing `src` on a thread of its own. The thread ends at the input's end or
    /// first error, or once the boards are no longer wanted.
    pub(super) fn start(src: impl Read + Send + 'static) -> ReadAhead {
        let (send, parsed) = sync_channel(AHEAD);
        std::thread::spawn(move || {
            for board in Parser::new(src) {
                if send.send(board).is_err() {
                    break;
                }
            }
        });
        ReadAhead { parsed, queue: VecDeque::new(), shown: 0 }
    }

    /// Whether the next board (or the end, or an error) can be taken without waiting for
    /// the input.
    pub(super) fn ready(&mut self) -> bool {
        self.queue.extend(self.parsed.try_iter());
        !self.queue.is_empty()
    }

    /// The boards parsed since the last call that are still to be taken (none of an
    /// error), without waiting for more.
    pub(super) fn newly_queued(&mut self) -> impl Iterator<Item = &Board> {
        self.queue.extend(self.parsed.try_iter());
        let from = self.shown.min(self.queue.len());
        self.shown = self.queue.len();
        self.queue.range(from..).filter_map(|b| b.as_ref().ok())
    }
}

impl Iterator for ReadAhead {
    type Item = Parsed;

    /// The next board, or the error that ends the input, waiting for it if need be.
    fn next(&mut self) -> Option<Parsed> {
        let next = self.queue.pop_front().or_else(|| self.parsed.recv().ok());
        self.shown = self.shown.saturating_sub(1);
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_come_in_order_up_to_the_first_error_and_are_shown_once() {
        let text = "1\n.\n2\n..\n..\n2\n.x\n";
        let mut boards = ReadAhead::start(text.as_bytes());
        let first = boards.next().unwrap().unwrap();
        assert_eq!(first.n(), 1);
        // Wait until the thread has parsed the rest.
        while boards.queue.len() < 2 {
            boards.queue.extend(boards.parsed.recv().ok());
        }
        assert_eq!(boards.newly_queued().map(|b| b.n()).collect::<Vec<_>>(), vec![2]);
        assert_eq!(boards.newly_queued().count(), 0);
        assert_eq!(boards.next().unwrap().unwrap().n(), 2);
        assert!(boards.next().unwrap().is_err());
        assert!(boards.next().is_none());
    }
}
