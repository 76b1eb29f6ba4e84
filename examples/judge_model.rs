//! A model of a judge file's cost, one size at a time, three ways: each board searched (as
//! planned), each board sieved from the empty board's solutions found once for its size
//! (`nqueen::sieve`), or every board of a size counted in one shared walk of the empty
//! board's tree, each node checked against all the boards at once (64 a word). Beside each
//! prediction, from the figures `auto` and the solver judge by (`nqueen::tuning`), what this
//! machine measures, on the current rayon pool (`RAYON_NUM_THREADS`).
//!
//!     cargo run --release --example judge_model -- FILE
//!
//! It decided the sieve: on ten 14x14 boards with 10% obstacles, one thread, the search
//! costs about 16 ms a board, the sieve 75 ms once and 0.05 ms a board, and the shared walk
//! of the 21M-node tree (about 40 ms, with every board's obstacles tested at each node)
//! gains less than the sieve and cannot be made bit-exact with the split's symmetries.

use std::collections::BTreeMap;
use std::time::Instant;

use nqueen::control::Control;
use nqueen::plan::{self, PROBE_DIVES};
use nqueen::sieve::Sieve;
use nqueen::solve::{Backend, Options, Solver};
use nqueen::tuning::{
    DIVE_ROW_SECONDS, NODES_PER_ESTIMATED_NODE, PLANNING_PAYS_NODES, SCALAR_NODES_PER_THREAD_SECOND, SIEVE_SECONDS_PER_SOLUTION,
    SIEVE_SECONDS_PER_WORD,
};
use nqueen::{estimate, Board};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: judge_model FILE")?;
    let boards: Vec<Board> = nqueen::boards(std::fs::File::open(&path)?).collect::<Result<_, _>>()?;
    let mut by_side: BTreeMap<usize, Vec<Board>> = BTreeMap::new();
    for board in boards {
        by_side.entry(board.n()).or_default().push(board);
    }
    let threads = rayon::current_num_threads() as f64;
    let rate = SCALAR_NODES_PER_THREAD_SECOND * nqueen::cpu::widest_speedup() * threads;
    let mut search = Solver::new(Options { backend: Backend::Cpu, no_sieve: true, ..Options::default() });
    println!("{path}: {threads} threads; seconds predicted / measured");
    for (n, boards) in by_side {
        let (mut predicted, mut measured) = (0.0, 0.0);
        for board in &boards {
            let tree = estimate::tree(board.rows(), 64);
            let planning = if tree >= PLANNING_PAYS_NODES { 8.0 * f64::from(PROBE_DIVES) * n as f64 * DIVE_ROW_SECONDS } else { 0.0 };
            predicted += tree * NODES_PER_ESTIMATED_NODE / plan::symmetry_gain(board) / rate + planning;
            let started = Instant::now();
            search.solve(board, false, &Control::default())?;
            measured += started.elapsed().as_secs_f64();
        }
        let line = format!("n={n:2}, {:4} boards: search {predicted:8.4} / {measured:8.4}", boards.len());
        let Some(q) = [0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184].get(n).copied().filter(|_| n >= 4)
        else {
            println!("{line}");
            continue;
        };
        let make_predicted = q as f64 * (SIEVE_SECONDS_PER_SOLUTION[0] + SIEVE_SECONDS_PER_SOLUTION[1] / threads);
        let started = Instant::now();
        let sieve = Sieve::new(n).ok_or("a side a sieve serves")?;
        let make = started.elapsed().as_secs_f64();
        let words = (q as usize).div_ceil(64) as f64;
        let each_predicted: f64 = boards.iter().map(|b| Sieve::sets_for(b) as f64 * words * SIEVE_SECONDS_PER_WORD).sum();
        let started = Instant::now();
        let counts: u64 = boards.iter().map(|b| sieve.count(b)).sum();
        let each = started.elapsed().as_secs_f64();
        // The shared walk: the empty board's tree once, each node tested for every board.
        let empty = Board::empty(n)?;
        let walk = estimate::tree(empty.rows(), 4096) * NODES_PER_ESTIMATED_NODE * boards.len().div_ceil(64) as f64 / rate;
        println!(
            "{line}; sieve {:8.4} / {:8.4} (made {make_predicted:.4} / {make:.4}, {counts} solutions); shared walk {walk:8.4} / -",
            make_predicted + each_predicted,
            make + each
        );
    }
    Ok(())
}
