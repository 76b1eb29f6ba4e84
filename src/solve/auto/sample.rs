//! What `auto` knows of a board's cost on the CPU before counting it: the planner's
//! estimate at full speed, and a timed sample of its prefixes.

use std::time::{Duration, Instant};

use crate::control;
use crate::cpu;
use crate::plan::Plan;
use crate::prefix::Prefixes;
use crate::tuning::{ESTIMATE_MARGIN, NODES_PER_ESTIMATED_NODE};

/// Prefixes timed on the CPU to estimate a board's cost.
const SAMPLE: usize = 64;

/// How long the CPU would take over a search estimated at `nodes` nodes, at `rate` search
/// nodes a second (see [`cpu::nodes_per_second`]).
pub fn cpu_seconds_by_estimate(nodes: f64, rate: f64) -> f64 {
    nodes * NODES_PER_ESTIMATED_NODE / rate
}

/// Whether a search of about `nodes` nodes might take the CPU, at `rate` nodes a second,
/// long enough for `auto` to move it to a GPU still to be opened: as long as the opening,
/// `start` seconds. A run that opens the GPU for nothing waits at exit for it to finish
/// opening, and such a search ends no sooner than the opening does.
pub fn may_need_gpu(nodes: f64, rate: f64, start: f64) -> bool {
    cpu_seconds_by_estimate(nodes, rate) >= start
}

/// Whether a search estimated at `nodes` nodes would surely take the CPU, at `rate` nodes a
/// second, at least `seconds`: then timing a sample, which on a board of few and heavy
/// prefixes (a shard) can take longer than the GPU's count, is not needed.
pub fn cpu_surely_takes(nodes: f64, rate: f64, seconds: f64) -> bool {
    cpu_seconds_by_estimate(nodes, rate) >= ESTIMATE_MARGIN * seconds
}

/// Whether a search estimated at `nodes` nodes would surely take the CPU, at `rate` nodes a
/// second, less than `seconds`: then a sample is not needed either. A board's shards in
/// their thousands each have a few prefixes, and a sample of them would count all of them,
/// in the scalar search, before the count.
pub fn cpu_surely_quick(nodes: f64, rate: f64, seconds: f64) -> bool {
    ESTIMATE_MARGIN * cpu_seconds_by_estimate(nodes, rate) < seconds
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
    use crate::control::Control;
    use crate::prefix;
    use crate::tuning::{GPU_START_SECONDS, PLANNING_CUT};

    /// The nodes a second of 16 threads of the AVX-512 lanes.
    const LANES_16: f64 = 16.0 * 4.4 * crate::tuning::SCALAR_NODES_PER_THREAD_SECOND;

    #[test]
    fn only_boards_that_may_be_too_big_for_the_cpu_may_open_the_gpu() {
        let quick = |n| Plan::as_is(&Board::empty(n).unwrap()).expected_nodes.unwrap();
        // On 16 threads, empty 15x15 (1.3e8 nodes) takes 0.02 s; 19x19 always goes to the GPU.
        assert!(!may_need_gpu(quick(15), LANES_16, GPU_START_SECONDS));
        assert!(may_need_gpu(quick(19) / PLANNING_CUT, LANES_16, GPU_START_SECONDS));
    }

    #[test]
    fn the_scaled_estimate_is_about_the_nodes_the_cpu_searches() {
        // Seconds by estimate hold only if the planner's estimate, scaled, is what the CPU's
        // count searches. Both are deterministic: the dives are seeded, and node counts do
        // not depend on timing (the lanes search a few more on split boards, without their
        // due columns, than the scalar search).
        let boards = [
            Board::empty(12).unwrap(),
            Board::empty(13).unwrap(),
            Board::empty(14).unwrap(),
            Board::from_fn(14, |r, c| (r * 7 + c * 3) % 11 != 0).unwrap(),
            Board::from_fn(14, |r, c| r != c && r + c != 6).unwrap(),
            Board::from_fn(15, |r, c| (r * 3 + c * 5) % 17 != 4).unwrap(),
        ];
        let mut logs = Vec::new();
        for board in &boards {
            for plan in [Plan::as_is(board), Plan::optimized(board)] {
                let estimate = plan.expected_nodes.expect("boards large enough to be estimated");
                let prefixes = prefix::expand(&plan, prefix::cpu_target(plan.expected_nodes));
                let searched = cpu::count(&plan, &prefixes, &[], cpu::Schedule::Dynamic, &Control::default()).expect("not cancelled");
                let scaled = estimate * NODES_PER_ESTIMATED_NODE / searched.nodes as f64;
                // One board's estimate, from its seeded dives, may be off by a fifth.
                let what =
                    format!("n={} in {} boards: estimate {estimate:.3e}, searched {:.3e}", plan.n, plan.boards.len(), searched.nodes);
                assert!((0.8..=1.25).contains(&scaled), "{what}: the scaled estimate is {scaled:.3}x the nodes");
                logs.push(scaled.ln());
            }
        }
        // The constant is their typical ratio: on these boards, within a tenth.
        let typical = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
        assert!((0.9..=1.1).contains(&typical), "the scaled estimate is {typical:.3}x the nodes (geometric mean)");
    }

    #[test]
    fn only_far_too_large_estimates_settle_the_question_alone() {
        assert!(cpu_surely_takes(1e12, LANES_16, 0.3));
        assert!(!cpu_surely_takes(1e10, LANES_16, 0.3));
    }

    #[test]
    fn the_cpu_sample_tells_big_boards_from_small_ones() {
        let big = Plan::plain(&Board::empty(15).unwrap());
        assert!(cpu_seconds(&big, &prefix::expand(&big, prefix::cpu_target(None)), 1e-9) >= 1e-9);
        let small = Plan::plain(&Board::empty(8).unwrap());
        assert!(cpu_seconds(&small, &prefix::expand(&small, 10), 10.0) < 0.01);
    }
}
