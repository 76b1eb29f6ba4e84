//! An input's boards parsed on a thread of their own, a bounded number ahead of the count,
//! so that the count can see what is coming: `auto` opens the GPU as soon as a queued board
//! may need it, and the opening overlaps the boards before it. Boards are handed over in
//! batches, each as soon as the parser would otherwise wait for input. However fast the
//! parser and however slow the count, at most [`QUEUED`] boards wait on the count's side,
//! [`BATCHES`] batches in the channel and one batch on the parser's: a board holds at most
//! 32 rows, so memory stays within a few hundred kilobytes whatever the input.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Read};
use std::rc::Rc;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};

use crate::board::Board;
use crate::parse::{ParseError, Parser};

/// Boards handed over at a time, at most: enough that the hand-over costs nothing beside a
/// board, few enough that memory stays small whatever the input.
const BATCH: usize = 256;
/// Batches in flight, at most.
const BATCHES: usize = 2;
/// Boards taken out of the channel and not yet counted, at most, beyond one batch: the
/// count's look-ahead. The queue is topped up to this and no further.
const QUEUED: usize = BATCH;

type Parsed = Result<Board, ParseError>;

/// The input as the parsing thread reads it: before each read, which may wait for input,
/// the boards parsed so far are handed over, so that none waits behind the read.
struct HandOver<R> {
    src: R,
    batch: Rc<RefCell<Vec<Parsed>>>,
    send: SyncSender<Vec<Parsed>>,
}

impl<R: Read> Read for HandOver<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let batch = std::mem::take(&mut *self.batch.borrow_mut());
        if !batch.is_empty() && self.send.send(batch).is_err() {
            // Nobody wants more boards: the input ends here.
            return Ok(0);
        }
        self.src.read(buf)
    }
}

/// The boards of one input, in order, up to and including its first error.
pub(super) struct ReadAhead {
    parsed: Receiver<Vec<Parsed>>,
    /// Parsed, not yet taken.
    queue: VecDeque<Parsed>,
    /// How many of `queue`'s first entries [`ReadAhead::newly_queued`] has shown.
    shown: usize,
    /// Whether the parser has handed over everything it will.
    parsed_all: bool,
}

impl ReadAhead {
    /// Starts parsing `src` on a thread of its own. The thread ends at the input's end or
    /// first error, or once the boards are no longer wanted.
    pub(super) fn start(src: impl Read + Send + 'static) -> ReadAhead {
        let (send, parsed) = sync_channel(BATCHES);
        std::thread::spawn(move || {
            let batch = Rc::new(RefCell::new(Vec::new()));
            let src = HandOver { src, batch: Rc::clone(&batch), send: send.clone() };
            for board in Parser::new(src) {
                let full = {
                    let mut batch = batch.borrow_mut();
                    batch.push(board);
                    batch.len() >= BATCH
                };
                if full && send.send(batch.take()).is_err() {
                    return;
                }
            }
            let _ = send.send(batch.take());
        });
        ReadAhead { parsed, queue: VecDeque::new(), shown: 0, parsed_all: false }
    }

    /// Takes what the parser has handed over, without waiting, while fewer than
    /// [`QUEUED`] boards wait: the rest waits in the channel, and the parser behind it.
    fn top_up(&mut self) {
        while self.queue.len() < QUEUED {
            match self.parsed.try_recv() {
                Ok(batch) => self.queue.extend(batch),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.parsed_all = true;
                    break;
                }
            }
        }
    }

    /// Whether the next board (or the end, or an error) can be taken without waiting for
    /// the input.
    pub(super) fn ready(&mut self) -> bool {
        self.top_up();
        !self.queue.is_empty()
    }

    /// Whether no board is left to take, and none will come: the input has ended (as far as
    /// is known without waiting for it).
    pub(super) fn at_end(&mut self) -> bool {
        self.top_up();
        self.queue.is_empty() && self.parsed_all
    }

    /// Whether the parser had handed over every board it will when the queue was last
    /// topped up: the boards queued then, and none after, are the last.
    pub(super) fn parsed_all(&self) -> bool {
        self.parsed_all
    }

    /// The boards parsed since the last call that are still to be taken (none of an
    /// error), without waiting for more.
    pub(super) fn newly_queued(&mut self) -> impl Iterator<Item = &Board> {
        self.top_up();
        let from = self.shown.min(self.queue.len());
        self.shown = self.queue.len();
        self.queue.range(from..).filter_map(|b| b.as_ref().ok())
    }
}

impl Iterator for ReadAhead {
    type Item = Parsed;

    /// The next board, or the error that ends the input, waiting for it if need be.
    fn next(&mut self) -> Option<Parsed> {
        while self.queue.is_empty() {
            self.queue.extend(self.parsed.recv().ok()?);
        }
        self.shown = self.shown.saturating_sub(1);
        self.queue.pop_front()
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
            boards.queue.extend(boards.parsed.recv().unwrap());
        }
        assert_eq!(boards.newly_queued().map(|b| b.n()).collect::<Vec<_>>(), vec![2]);
        assert_eq!(boards.newly_queued().count(), 0);
        assert_eq!(boards.next().unwrap().unwrap().n(), 2);
        assert!(!boards.at_end(), "the error is still to come");
        assert!(boards.next().unwrap().is_err());
        // Once the parser has gone, nothing more comes.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !boards.at_end() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(boards.at_end());
        assert!(boards.next().is_none());
    }

    #[test]
    fn once_everything_was_parsed_the_boards_shown_are_the_last() {
        let text = "1\n.\n".repeat(100);
        let mut boards = ReadAhead::start(std::io::Cursor::new(text.into_bytes()));
        assert!(!boards.parsed_all(), "nothing has been looked at yet");
        assert!(boards.next().unwrap().is_ok());
        // Wait until a top-up has seen the parser's end.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !boards.parsed_all() && std::time::Instant::now() < deadline {
            boards.ready();
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(boards.parsed_all());
        // The boards shown now are all that is left: none comes after them.
        assert_eq!(boards.newly_queued().count(), 99);
        assert_eq!(boards.newly_queued().count(), 0);
        assert_eq!(boards.filter(Result::is_ok).count(), 99);
    }

    #[test]
    fn the_queue_is_topped_up_to_its_bound_and_no_further() {
        let text = "1\n.\n".repeat(20 * BATCH);
        let mut boards = ReadAhead::start(std::io::Cursor::new(text.into_bytes()));
        // However long the parser runs ahead, the count's side holds at most a batch over.
        for taken in 0..10 * BATCH {
            std::thread::yield_now();
            boards.ready();
            let _ = boards.newly_queued().count();
            assert!(boards.queue.len() < QUEUED + BATCH, "{} boards queued after {taken}", boards.queue.len());
            assert!(boards.next().unwrap().is_ok());
        }
        assert_eq!(boards.count(), 10 * BATCH);
    }
}
