//! The `auto` backend's policy: when to open the GPU at all, and whether a board is big
//! enough that the GPU counts it sooner than the CPU would.

use std::time::{Duration, Instant};

use crate::control;
use crate::cpu;
use crate::plan::Plan;
use crate::prefix::Prefixes;

/// Estimated CPU seconds, beyond what is left of the GPU's opening, under which `auto`
/// keeps a board on the CPU while the GPU is opening, and above which the board no longer
/// races the opening but waits for it. The estimate assumes every thread runs at full
/// speed. Once the GPU is open, the line is its own cost of a board (`GPU_BOARD_SECONDS`
/// in `solve.rs`).
pub const AUTO_GPU_SECONDS: f64 = 0.05;
/// What opening the GPU costs, added to [`AUTO_GPU_SECONDS`] for as long as it is still
/// opening: the driver's start-up and the context (about 0.17 s on an H100 host), with a
/// margin.
pub const GPU_START_SECONDS: f64 = 0.2;
/// Prefixes timed on the CPU to estimate a board's cost.
const SAMPLE: usize = 64;
/// Search nodes one thread gets through per second at full speed (the AVX-512 lanes on
/// the benchmark boards; the scalar search does about a fifth of that).
const NODES_PER_THREAD_SECOND: f64 = 6e8;
/// The CPU's search nodes per node of Knuth's estimate of the same tree: the CPU counts
/// the last two rows in closed form (about 0.8 on the split boards of empty 15x15 and
/// 17x17).
const CPU_NODES_PER_ESTIMATED: f64 = 0.8;

/// How long `threads` CPU threads would take over a search estimated at `nodes` nodes, at
/// full speed.
pub fn cpu_seconds_by_estimate(nodes: f64, threads: usize) -> f64 {
    nodes * CPU_NODES_PER_ESTIMATED / (NODES_PER_THREAD_SECOND * threads as f64)
}

/// How many times fewer nodes a plan may need than its board's plain tree: the symmetry
/// split's gain (up to about 5x) times what the orientation and the quick estimate's
/// error may add.
pub const PLANNING_CUT: f64 = 8.0;

/// Whether a search of about `nodes` nodes might take `threads` CPU threads long enough for
/// `auto` to move it to a GPU still to be opened: as long as the opening, at full speed on
/// every thread. A run that opens the GPU for nothing waits at exit for it to finish
/// opening, and such a search ends no sooner than the opening does.
pub fn may_need_gpu(nodes: f64, threads: usize) -> bool {
    nodes >= GPU_START_SECONDS * NODES_PER_THREAD_SECOND * threads as f64
}

/// How many times the estimate of a search's nodes may be off: an estimate this many times
/// what the CPU gets through in the time at stake settles the question without a sample.
const ESTIMATE_MARGIN: f64 = 8.0;

/// Whether a search estimated at `nodes` nodes would surely take `threads` CPU threads at
/// least `seconds`, even at full speed: then timing a sample, which on a board of few and
/// heavy prefixes (a shard) can take longer than the GPU's count, is not needed.
pub fn cpu_surely_takes(nodes: f64, threads: usize, seconds: f64) -> bool {
    nodes >= ESTIMATE_MARGIN * seconds * NODES_PER_THREAD_SECOND * threads as f64
}

/// How long the whole board would take the CPU pool, judged by timing an even sample of
/// its prefixes (at most [`SAMPLE`]) in the scalar search and scaling by how much faster
/// the search the CPU would run is; or, once that is known to be at least `cap`, a figure
/// of at least `cap`. Sampling stops as soon as it is, within a prefix if need be: on a
/// large board the full sample would cost more than the GPU's whole count. The lanes
/// cannot time a sample fairly: with so few prefixes, most lanes wait for the longest one.
pub fn cpu_seconds(plan: &Plan, base: &Prefixes, cap: f64) -> f64 {
    if base.depth >= plan.n || base.items.is_empty() {
        return 0.0;
    }
    let step = (base.items.len() / SAMPLE).max(1);
    let planned = base.items.len().div_ceil(step);
    let threads = rayon::current_num_threads() as f64;
    let scale = base.items.len() as f64 / planned as f64 / threads / cpu::speedup_over_scalar(plan, base.depth);
    // The sample's time, scaled, can only grow into the estimate: once it has run this
    // long, the answer is known to be at least `cap`.
    let enough = Duration::try_from_secs_f64(cap / scale).unwrap_or(Duration::MAX);
    let started = Instant::now();
    control::with_time_limit(enough, |ctl| {
        base.items.iter().step_by(step).any(|p| {
            let b = p.board as usize;
            let counted = std::hint::black_box(cpu::count_prefix(&plan.boards[b], &plan.due[b], base.depth, p, ctl));
            counted.is_err() || started.elapsed() >= enough
        })
    });
    started.elapsed().as_secs_f64() * scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::prefix;

    #[test]
    fn only_boards_that_may_be_too_big_for_the_cpu_may_open_the_gpu() {
        let quick = |n| Plan::as_is(&Board::empty(n).unwrap()).expected_nodes.unwrap();
        // On 16 threads, empty 15x15 (1.3e8 nodes) takes 0.02 s; 19x19 always goes to the GPU.
        assert!(!may_need_gpu(quick(15), 16));
        assert!(may_need_gpu(quick(19) / PLANNING_CUT, 16));
    }

    #[test]
    fn the_estimate_gives_seconds_at_full_speed() {
        let seconds = cpu_seconds_by_estimate(1.2e10, 16);
        assert!((seconds - 1.0).abs() < 1e-9, "{seconds}");
    }

    #[test]
    fn only_far_too_large_estimates_settle_the_question_alone() {
        assert!(cpu_surely_takes(1e12, 16, 0.3));
        assert!(!cpu_surely_takes(1e10, 16, 0.3));
    }

    #[test]
    fn the_cpu_sample_tells_big_boards_from_small_ones() {
        let big = Plan::plain(&Board::empty(15).unwrap());
        assert!(cpu_seconds(&big, &prefix::expand(&big, prefix::cpu_target(None)), 1e-9) >= 1e-9);
        let small = Plan::plain(&Board::empty(8).unwrap());
        assert!(cpu_seconds(&small, &prefix::expand(&small, 10), 10.0) < 0.01);
    }
}
