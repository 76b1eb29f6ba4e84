//! A model of the CPU lanes' fill on the symmetry split's many boards: what one table a
//! pass (the lanes all on one board, as on a plan of one board) would cost in passes,
//! against the two tables that let lanes start the next board while others finish.
//!
//!     cargo run --release --example lane_model -- 15 16 17
//!
//! Each prefix's search nodes are counted exactly (the scalar search's rules); a lane takes
//! the next prefix when its last ends, and a pass steps every busy lane one node. Passes
//! are counted for 8 and 16 lanes: free (any lane takes any board's prefix: the two tables,
//! about), and with a barrier at each board (one table: a board's prefixes all end before
//! the next board's start), at the prefixes' depth and one row deeper.
//!
//! Eight lanes, barrier against free: 1.021 at 15, 1.055 at 16 (row 3), 1.006 at 17; a row
//! deeper 1.000 to 1.007. One table saves about a tenth of a pass on AVX2, so the lanes
//! take the split's boards in turn: measured, one thread, 16 −5% and 17 −9%.

use std::collections::BinaryHeap;

use nqueen::board::Board;
use nqueen::control::Control;
use nqueen::cpu::count_prefix;
use nqueen::plan::Plan;
use nqueen::prefix::{cpu_target, expand, Prefixes};

/// Passes `lanes` lanes take over `jobs` (nodes each, in order), every lane taking the
/// next job as soon as it is free.
fn passes(jobs: impl IntoIterator<Item = u64>, lanes: usize) -> u64 {
    let mut free: BinaryHeap<std::cmp::Reverse<u64>> = (0..lanes).map(|_| std::cmp::Reverse(0)).collect();
    let mut end = 0;
    for job in jobs {
        let std::cmp::Reverse(at) = free.pop().expect("lanes");
        end = end.max(at + job);
        free.push(std::cmp::Reverse(at + job));
    }
    end
}

/// Each prefix's board and search nodes.
fn sizes(plan: &Plan, prefixes: &Prefixes) -> Vec<(u32, u64)> {
    let none = vec![0; plan.n];
    let ctl = Control::default();
    prefixes
        .items
        .iter()
        .map(|p| {
            let (_, nodes) = count_prefix(&plan.boards[p.board as usize], &none, prefixes.depth, p, &ctl).expect("not cancelled");
            (p.board, nodes)
        })
        .collect()
}

/// Passes with a barrier at each board.
fn by_board(sizes: &[(u32, u64)], lanes: usize) -> u64 {
    sizes.chunk_by(|a, b| a.0 == b.0).map(|board| passes(board.iter().map(|s| s.1), lanes)).sum()
}

fn main() {
    for n in std::env::args().skip(1).filter_map(|a| a.parse::<usize>().ok()) {
        let plan = Plan::optimized(&Board::empty(n).expect("a side of 1 to 32"));
        let prefixes = expand(&plan, cpu_target(plan.expected_nodes));
        let deeper = expand(&plan, prefixes.items.len() + 1);
        let (at, below) = (sizes(&plan, &prefixes), sizes(&plan, &deeper));
        let nodes: u64 = at.iter().map(|s| s.1).sum();
        println!("n={n}: {} boards, {} prefixes at row {}, {nodes} nodes", plan.boards.len(), at.len(), prefixes.depth);
        for lanes in [8, 16] {
            let ideal = nodes.div_ceil(lanes as u64) as f64;
            println!(
                "  {lanes:2} lanes: free {:.3}; a barrier a board {:.3}; the same a row deeper ({} prefixes) {:.3}  (passes over nodes/lanes)",
                passes(at.iter().map(|s| s.1), lanes) as f64 / ideal,
                by_board(&at, lanes) as f64 / ideal,
                below.len(),
                by_board(&below, lanes) as f64 / ideal,
            );
        }
    }
}
