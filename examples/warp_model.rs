//! A model of the GPU kernel's warps (kernels/count.cu): runs its counting loop on the real
//! prefixes of one batch of an empty board, 32 lanes in step per warp and every warp of a
//! card side by side, and counts what a profile would see: the lanes busy in each pass of
//! the loop, how often each path of the loop is taken, how deep the stacks grow, and where
//! the nodes lie. With `share`, lanes whose work is done once the prefixes are used up take
//! the shallowest kept row of a lane of their warp that has one, as the kernel's *_shared
//! entry points do.
//!
//!     cargo run --release --example warp_model -- N [WARPS [THIN [share]]]
//!
//! WARPS is the card's resident warps (132 SMs of 40: 5280), THIN keeps one prefix in THIN
//! of the batch, at random, with as many times fewer warps (so that a large board's batch
//! runs in seconds).
//!
//! Each path of the loop is weighed by its length in the compiled kernel, so that the model
//! tells the warp instructions a pass issues, the lanes busy per warp instruction (ncu's
//! `smsp__thread_inst_executed_per_inst_executed`) and, at a measured issue rate, the
//! kernel's seconds for the whole count. `NQUEEN_LOOP=H,L,N,D` gives the lengths, as
//! `scripts/gpu/kernel-sass.py` prints them for `count_prefixes_due`: H every pass runs (the
//! head, the step back and the first tests), L the last two rows' path, N the look-ahead's
//! (a queen not in row n-3), D the step down. `NQUEEN_ISSUE=G` is the warp instructions
//! the card issues per ns (132 SMs x 4 schedulers x 1.98 GHz x the issue active that ncu
//! measured), `NQUEEN_NODES` the count's nodes (`--stats` tells them; else the planner's
//! estimate).

#[path = "kernel_model/mod.rs"]
mod kernel_model;

use kernel_model::{middle_batch, Entry, Middle};
use nqueen::board::Board;
use nqueen::plan::Plan;
use nqueen::prefix::Prefix;
use nqueen::tuning::NODES_PER_ESTIMATED_NODE;

#[derive(Clone, Default)]
struct Lane {
    /// No prefix was left for it, and no lane had a row to give.
    done: bool,
    avail: u32,
    cols: u32,
    ld: u32,
    rd: u32,
    board: usize,
    stack: Vec<Entry>,
}

/// What one lane did in one pass of the loop.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Idle = 0,
    /// A queen in row n-3: the last two rows in closed form.
    Leaf = 1,
    /// A queen that leaves a row of the look-ahead no cell.
    Stop = 2,
    /// A queen and a step down.
    Down = 3,
}

/// The prefixes of a batch, handed out one at a time, and the boards' row windows.
struct Batch<'a> {
    n: usize,
    depth: usize,
    rows: &'a [Vec<[u32; 4]>],
    prefixes: &'a [Prefix],
    next: usize,
    /// Whether a queen that leaves the row after next no cell is stopped, as the kernel
    /// does (`NQUEEN_LOOK_AHEAD=1`, the default) or not (`0`).
    look_ahead: bool,
}

/// What the passes of the loop came to.
#[derive(Default)]
struct Tally {
    passes: u64,
    /// Lanes that placed a queen, over every pass.
    busy: u64,
    /// Per step: passes where some lane took it, and the lanes that did.
    path_passes: [u64; 4],
    path_lanes: [u64; 4],
    /// Stack lengths after each step down that kept a row.
    depth: Vec<u64>,
    /// Warp instructions issued and thread instructions run, by the compiled lengths.
    warp_instructions: u64,
    thread_instructions: u64,
    /// Per row of the queen placed, the steps of each kind.
    rows: Vec<[u64; 4]>,
    shares: u64,
}

impl Batch<'_> {
    /// One pass of the loop for lane `l`.
    fn step(&mut self, l: &mut Lane, tally: &mut Tally) -> Step {
        if l.avail == 0 && l.stack.is_empty() {
            loop {
                let Some(&p) = self.prefixes.get(self.next) else {
                    l.done = true;
                    return Step::Idle;
                };
                self.next += 1;
                l.board = p.board as usize;
                (l.cols, l.ld, l.rd) = (p.cols, p.ld, p.rd);
                let row = self.rows[l.board][self.depth];
                l.avail = nqueen::board::next_cells(row[0], row[1], l.cols, l.ld, l.rd);
                if l.avail != 0 {
                    break;
                }
            }
        }
        if l.avail == 0 {
            let e = l.stack.pop().expect("a kept row");
            (l.avail, l.cols, l.ld, l.rd) = (e.avail, e.cols, e.ld, e.rd);
        }
        let bit = l.avail & l.avail.wrapping_neg();
        l.avail ^= bit;
        let (nc, nl, nr) = (l.cols | bit, (l.ld | bit) << 1, (l.rd | bit) >> 1);
        let next_row = nc.count_ones() as usize;
        let r1 = self.rows[l.board][next_row];
        let x1 = r1[0] & !(nc | nl | nr);
        let m2 = r1[2] & !(nc | (nl << 1) | (nr >> 1));
        let step = if next_row == self.n - 2 {
            Step::Leaf
        } else if m2 == 0 || (self.look_ahead && r1[3] & !(nc | (nl << 2) | (nr >> 2)) == 0) {
            Step::Stop
        } else {
            if l.avail != 0 {
                l.stack.push(Entry { avail: l.avail, cols: l.cols, ld: l.ld, rd: l.rd });
                tally.depth[l.stack.len()] += 1;
            }
            (l.cols, l.ld, l.rd) = (nc, nl, nr);
            let late = r1[1] & !nc;
            l.avail = if late == 0 { x1 } else { x1 & late };
            Step::Down
        };
        tally.rows[next_row - 1][step as usize] += 1;
        step
    }
}

/// Gives the shallowest kept row of a lane that keeps work of its own to each lane that has
/// none, as far as they go.
fn share(warp: &mut [Lane], tally: &mut Tally) {
    let hungry: Vec<usize> = (0..warp.len()).filter(|&i| warp[i].avail == 0 && warp[i].stack.is_empty()).collect();
    let givers = (0..warp.len()).filter(|&i| warp[i].stack.len() > 1 || (warp[i].stack.len() == 1 && warp[i].avail != 0));
    for (h, g) in hungry.into_iter().zip(givers.collect::<Vec<_>>()) {
        let e = warp[g].stack.remove(0);
        let board = warp[g].board;
        let l = &mut warp[h];
        (l.avail, l.cols, l.ld, l.rd, l.board, l.done) = (e.avail, e.cols, e.ld, e.rd, board, false);
        tally.shares += 1;
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(18);
    let warps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(132 * 40);
    let thin: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1).max(1);
    let sharing = args.next().is_some_and(|a| a == "share");
    let loop_lengths = LoopLengths::from_env();
    let issue_per_ns: f64 = std::env::var("NQUEEN_ISSUE").ok().and_then(|v| v.parse().ok()).unwrap_or(ISSUE_PER_NS);
    let Ok(board) = Board::empty(n) else {
        eprintln!("warp_model: N is a board size from 1 to 32");
        std::process::exit(2);
    };
    // The plan, the roots and the middle batch, as the GPU backend makes them.
    let plan = Plan::optimized(&board);
    let nodes = plan.expected_nodes.unwrap_or(0.0);
    let Middle { prefixes, all, batch: (index, batches), total, rows } = middle_batch(&plan, thin);
    let warps = (warps / thin).max(1);
    println!(
        "n={n}: {} boards, prefixes {} rows deep, batch {} of {}: {} of its {all} prefixes on {warps} warps{}",
        plan.boards.len(),
        prefixes.depth,
        index,
        batches,
        prefixes.items.len(),
        if sharing { ", sharing" } else { "" }
    );
    let look_ahead = std::env::var("NQUEEN_LOOK_AHEAD").map_or(true, |v| v != "0");
    let mut batch = Batch { n, depth: prefixes.depth, rows: &rows, prefixes: &prefixes.items, next: 0, look_ahead };
    let mut lanes = vec![vec![Lane::default(); 32]; warps];
    let mut tally = Tally { depth: vec![0; 40], rows: vec![[0; 4]; 40], ..Tally::default() };
    let mut time = 0u64;
    while lanes.iter().any(|w| w.iter().any(|l| !l.done)) {
        time += 1;
        for warp in &mut lanes {
            if sharing && batch.next >= batch.prefixes.len() {
                share(warp, &mut tally);
            }
            if warp.iter().all(|l| l.done) {
                continue;
            }
            tally.passes += 1;
            let mut on = [0u64; 4];
            for l in warp.iter_mut().filter(|l| !l.done) {
                on[batch.step(l, &mut tally) as usize] += 1;
            }
            tally.busy += on[1] + on[2] + on[3];
            for (k, &lanes) in on.iter().enumerate().skip(1) {
                tally.path_passes[k] += u64::from(lanes > 0);
                tally.path_lanes[k] += lanes;
            }
            let paths = [
                (loop_lengths.head, on[1] + on[2] + on[3]),
                (loop_lengths.leaf, on[1]),
                (loop_lengths.not_leaf, on[2] + on[3]),
                (loop_lengths.down, on[3]),
            ];
            for (length, lanes) in paths {
                tally.warp_instructions += length * u64::from(lanes > 0);
                tally.thread_instructions += length * lanes;
            }
        }
    }
    report(&tally, time, warps);
    // The whole count issues what the batch did per node: its batches' prefixes differ in
    // weight (a symmetric plan's first boards are the heaviest), its nodes do not.
    let per_node = tally.warp_instructions as f64 / tally.busy.max(1) as f64;
    let count_nodes = std::env::var("NQUEEN_NODES").ok().and_then(|v| v.parse().ok()).unwrap_or(nodes * NODES_PER_ESTIMATED_NODE);
    println!(
        "by the compiled lengths {loop_lengths:?}: {:.2} warp instructions a pass, {:.2} lanes of 32 a warp instruction; \
         the count's {count_nodes:.3e} nodes ({total} prefixes): {:.3e} warp instructions, {:.2} s at {issue_per_ns} per ns",
        tally.warp_instructions as f64 / tally.passes.max(1) as f64,
        tally.thread_instructions as f64 / tally.warp_instructions.max(1) as f64,
        per_node * count_nodes,
        per_node * count_nodes / issue_per_ns / 1e9
    );
}

/// The lengths of the loop's paths in the compiled kernel (see the module's doc), by
/// default `count_prefixes_due`'s from NVRTC 13.0 for sm_90.
#[derive(Debug)]
struct LoopLengths {
    head: u64,
    leaf: u64,
    not_leaf: u64,
    down: u64,
}

impl LoopLengths {
    fn from_env() -> LoopLengths {
        let given: Vec<u64> =
            std::env::var("NQUEEN_LOOP").map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect()).unwrap_or_default();
        match given[..] {
            [head, leaf, not_leaf, down] => LoopLengths { head, leaf, not_leaf, down },
            _ => LoopLengths { head: 29, leaf: 14, not_leaf: 6, down: 13 },
        }
    }
}

/// An H200's warp instructions per ns at 80% issue active: 132 SMs x 4 x 1.98 GHz x 0.8.
const ISSUE_PER_NS: f64 = 836.4;

fn report(t: &Tally, time: u64, warps: usize) {
    let passes = t.passes as f64;
    println!(
        "{} passes of a warp; the batch took {time} passes, its warps live {:.3} of that",
        t.passes,
        passes / (time * warps as u64) as f64
    );
    println!("lanes placing a queen in a pass: {:.2} of 32; rows given to other lanes: {}", t.busy as f64 / passes, t.shares);
    for (k, name) in [(1, "last two rows"), (2, "look-ahead stops"), (3, "down a row")] {
        println!(
            "{name}: in {:.3} of the passes, {:.2} lanes then, {:.3} of the nodes",
            t.path_passes[k] as f64 / passes,
            t.path_lanes[k] as f64 / t.path_passes[k].max(1) as f64,
            t.path_lanes[k] as f64 / t.busy as f64
        );
    }
    let kept: u64 = t.depth.iter().sum();
    let mut below = 0;
    let depth: Vec<String> = t
        .depth
        .iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(d, &c)| {
            below += c;
            format!("{d}:{:.4}", below as f64 / kept as f64)
        })
        .collect();
    println!("stack length after a kept row, cumulative share: {}", depth.join(" "));
    for (r, steps) in t.rows.iter().enumerate().filter(|(_, s)| s.iter().sum::<u64>() > 0) {
        let share = |c: u64| c as f64 / t.busy as f64;
        println!(
            "queen in row {r}: {:.4} of the nodes ({:.4} down, {:.4} stopped)",
            share(steps.iter().sum()),
            share(steps[3]),
            share(steps[2])
        );
    }
}
