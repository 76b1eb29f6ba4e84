//! What the GPU would save over a run's boards. No board of a file of many may keep the CPU
//! as long as the GPU's opening, and yet together they may: `auto` opens the GPU once the
//! CPU time it would save on the boards counted so far and on those the read-ahead holds
//! passes what opening it costs (see [`crate::tuning::GPU_START_SECONDS`]: each card's).
//! The boards counted so far stand for those still to come, until the input's end is in
//! the read-ahead: from then on only the boards left can repay an opening, and a GPU opened
//! for boards already counted only delays the exit, which waits for the driver's call in
//! flight.

use std::collections::VecDeque;

use crate::board::Board;
use crate::tuning::{GPU_BOARD_SECONDS, GPU_NODES_PER_SECOND};

/// The seconds an open GPU would save on a count that keeps the CPU `cpu` seconds over about
/// `nodes` search nodes: none where its own cost of a board is more.
pub(super) fn saving(cpu: f64, nodes: f64) -> f64 {
    (cpu - GPU_BOARD_SECONDS - nodes / GPU_NODES_PER_SECOND).max(0.0)
}

/// What the GPU would save, from the boards expected and counted so far.
#[derive(Debug, Default)]
pub(super) struct Gain {
    /// The boards expected and not counted yet, in order, each with what the GPU would save
    /// on it by its estimate.
    waiting: VecDeque<(Board, f64)>,
    /// What the GPU would save on the waiting boards, by their estimates.
    ahead: f64,
    /// What it would have saved on the boards counted so far, by their counts.
    seen: f64,
    /// Whether every board still to come is among `waiting` (or saves nothing): the input's
    /// end has been read.
    end_known: bool,
}

impl Gain {
    /// `board`, on which the GPU would save `saving` seconds by its estimate, will be
    /// counted after those expected before it.
    pub(super) fn expect(&mut self, board: &Board, saving: f64) {
        if saving > 0.0 {
            self.waiting.push_back((board.clone(), saving));
            self.ahead += saving;
        }
    }

    /// `board` was counted on the CPU in `cpu` seconds, over `nodes` search nodes: what the
    /// GPU would have saved on it replaces what its estimate said.
    pub(super) fn counted(&mut self, board: &Board, cpu: f64, nodes: f64) {
        if self.waiting.front().is_some_and(|(b, _)| b == board) {
            if let Some((_, estimated)) = self.waiting.pop_front() {
                self.ahead -= estimated;
            }
        }
        self.seen += saving(cpu, nodes);
    }

    /// No board will come after those expected so far.
    pub(super) fn end_known(&mut self) {
        self.end_known = true;
    }

    /// Whether the GPU would save more than opening it costs (`start` seconds): on the
    /// boards still to come, told by those counted so far where the end is not known.
    pub(super) fn pays(&self, start: f64) -> bool {
        let told_by_past = if self.end_known { 0.0 } else { self.seen };
        told_by_past + self.ahead >= start
    }

    /// Drops what it holds: once the GPU is asked for, the run needs no more of it.
    pub(super) fn forget(&mut self) {
        *self = Gain::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuning::GPU_START_SECONDS;

    #[test]
    fn boards_too_small_alone_open_the_gpu_together() {
        let mut gain = Gain::default();
        // Boards that keep the CPU 50 ms each, where the GPU takes 10 ms: none is worth the
        // opening alone, five are.
        let board = Board::empty(20).unwrap();
        let nodes = 0.004 * GPU_NODES_PER_SECOND;
        for _ in 0..4 {
            gain.counted(&board, 0.05, nodes);
        }
        assert!(!gain.pays(GPU_START_SECONDS));
        gain.expect(&board, saving(0.05, nodes));
        assert!(gain.pays(GPU_START_SECONDS));
    }

    #[test]
    fn once_the_end_is_known_only_the_boards_left_can_pay() {
        let board = Board::empty(20).unwrap();
        let nodes = 0.004 * GPU_NODES_PER_SECOND;
        let (mut open_end, mut known_end) = (Gain::default(), Gain::default());
        known_end.end_known();
        for gain in [&mut open_end, &mut known_end] {
            gain.expect(&board, saving(0.05, nodes));
            for _ in 0..6 {
                gain.counted(&board, 0.05, nodes);
            }
        }
        // Six boards counted would have repaid an opening: a guide to boards unknown, but
        // nothing is left to repay it where the input has ended.
        assert!(open_end.pays(GPU_START_SECONDS));
        assert!(!known_end.pays(GPU_START_SECONDS));
        for _ in 0..5 {
            known_end.expect(&board, saving(0.05, nodes));
        }
        assert!(known_end.pays(GPU_START_SECONDS));
    }

    #[test]
    fn a_counted_board_replaces_its_estimate() {
        let mut gain = Gain::default();
        let (a, b) = (Board::empty(18).unwrap(), Board::empty(19).unwrap());
        gain.expect(&a, 0.1);
        gain.expect(&b, 0.1);
        assert!(gain.pays(GPU_START_SECONDS));
        // The first board turned out quick on the CPU: only the second's estimate is left.
        gain.counted(&a, 0.001, 1e6);
        assert!(!gain.pays(GPU_START_SECONDS));
        assert_eq!(gain.waiting.len(), 1);
        // A board never expected (the first of an input) adds its count alone.
        gain.counted(&Board::empty(16).unwrap(), 0.2, 1e8);
        assert!(gain.pays(GPU_START_SECONDS));
        gain.forget();
        assert!(!gain.pays(GPU_START_SECONDS) && gain.waiting.is_empty());
    }

    #[test]
    fn boards_the_gpu_would_count_no_faster_save_nothing() {
        assert_eq!(saving(0.001, 1e6), 0.0);
        assert_eq!(saving(GPU_BOARD_SECONDS, 0.0), 0.0);
        assert!((saving(1.0, 0.0) - (1.0 - GPU_BOARD_SECONDS)).abs() < 1e-12);
    }
}
