//! A model of the GPU kernel's stack (kernels/count.cu): what each layout of it costs in
//! shared memory, and so in occupancy, against how often the search reads and writes each
//! level, and what the layouts that keep less in shared memory pay for it. It chose the
//! layout that was built and measured: 16-byte entries of the rows with cells left, each
//! thread's top entries in shared memory (its window, sized for 14 blocks an SM) and the
//! older ones in global memory. On four H100s that kernel ran 17 times slower, with 87.5%
//! occupancy but 1.25 lanes of 32 busy (BENCHMARKS.md, "Tried and retired"): the kernel
//! keeps whole stacks in shared memory again, and this model stays as the layouts' record.
//!
//!     cargo run --release --example stack_model -- [BOARD[:THIN] ...]
//!
//! BOARD is `empty20`, `empty21`, `empty22`, `dense26` (26x26, half the cells blocked at
//! random, seed 26: a count of about 3e11 nodes) or `dense26x60` (60% blocked: 2e9); with
//! none, all of them at their default THIN (24, 96, 200, 16, 4). THIN keeps one prefix in
//! THIN of the middle batch, at random, on as many times fewer warps than an H100 held
//! before (5,280), so that the boards run in about six minutes in all on two cores.
//!
//! What it decided: entries of 8 bytes (a row's cells left and its queen) cannot serve a
//! stack of the rows with cells left, since about 60% of its reads step back over rows
//! whose queens it would need, and a stack of every row takes 40 to 47% more warp passes.
//! Keeping the deep levels in global memory and testing every read and write for it costs
//! 9 to 10 instructions a pass. A window tended between passes costs 1 to 3 and its upkeep,
//! on 1.5 to 4% of the warp passes of empty 20 to 22 at 14 blocks an SM.
//!
//! First, for empty boards of n = 20 to 32 at the prefix depth the GPU backend picks for
//! the whole board (Knuth's estimate of the prefixes a row; a shard's are as deep or
//! deeper), and for a board of 32 searched from its first row (the deepest stack the
//! kernel can be given): the shared memory each layout needs a block of 128 threads, and
//! the blocks and occupancy it allows on an H100 or H200 (228 KB and 64 warps an SM, 1 KB
//! of shared memory reserved a block, 32 registers a thread).
//!
//! Then, for each board, it runs the counting loop on the real prefixes of that batch (the
//! plan, the prefix depth and the rows as the GPU backend makes them), 32 lanes in step per
//! warp, and prints:
//! - per stack level: writes and reads, the lane passes that find the stack that long, the
//!   rows a read steps back over (rows with no cells left, never kept), the warp passes
//!   where some lane reads or writes the level or a deeper one (what keeping the levels
//!   from there in global memory, tested on every access, costs in memory traffic) and
//!   where some lane's stack is that long;
//! - how many rows each read steps back: a layout of 8 bytes an entry (cells left and the
//!   queen) can restore the row from the queen only one row back;
//! - a second run that keeps an entry for every row, as a stack of queens must, and steps
//!   back one row a pass: the passes it adds;
//! - the window the kernel keeps, for 13 to 16 blocks an SM: the warp passes where some lane
//!   tends its window (moves entries between shared and global memory) and the entries
//!   moved a pass.
//!
//! Last, a table of the layouts side by side over the boards, with the loop instructions
//! each costs (scripts/gpu/kernel-sass.py on sm_90; see LOOP_INSTRUCTIONS).

#[path = "kernel_model/mod.rs"]
mod kernel_model;

use kernel_model::{middle_batch, Entry, Middle};
use nqueen::board::{next_cells, Board};
use nqueen::gpu;
use nqueen::plan::Plan;
use nqueen::prefix::Prefix;
use nqueen::rng::Rng;

/// An H100's or H200's SM, and what a block of the counting kernel takes.
const SM_SHARED: usize = 228 * 1024;
const BLOCK_RESERVED: usize = 1024;
const SHARED_UNIT: usize = 128;
const SM_WARPS: usize = 64;
const SM_BLOCKS: usize = 32;
const SM_REGISTERS: usize = 65536;
/// Registers a thread of the counting entry points holds (cuobjdump).
const REGISTERS: usize = 32;
/// Shared memory a block may use without raising the kernel's limit, and the block.
const SHARED_LIMIT: usize = 48 * 1024;
const BLOCK: usize = 128;
/// Resident warps of an H100 at the occupancy of empty 20 before the window (132 SMs of 40).
const WARPS: usize = 5280;
/// Shared levels of the layout that keeps the deep levels in global memory and tests every
/// read and write for it: 7 levels (112 bytes a thread) leave room for 15 blocks an SM.
const SPLIT_LEVELS: usize = 7;
/// Loop instructions (plain, due, uniform entry points) of each layout that was compiled,
/// from scripts/gpu/kernel-sass.py (sm_90, NVRTC 13.0), over all paths of the loop: the
/// stack before the window, the window as built, and the deep levels in global memory
/// tested on every read and write (a variant not kept: the global accesses in branches,
/// +9 to 10 instructions on the common path of a pass, or predicated, as many).
const LOOP_INSTRUCTIONS: [(&str, [u32; 3]); 3] = [
    ("16 B, all in shared (before)", [60, 62, 56]),
    ("16 B, window (built)", [63, 64, 57]),
    ("16 B, deep levels in global, tested each access", [87, 87, 81]),
];

#[derive(Clone, Default)]
struct Lane {
    done: bool,
    avail: u32,
    cols: u32,
    ld: u32,
    rd: u32,
    board: usize,
    stack: Vec<Entry>,
    /// With a window: the entries in shared memory (the top of the stack) and in global.
    window: usize,
    spilled: usize,
}

/// The kernel's window (see stack_upkeep in kernels/count.cu): every thread keeps `slots`
/// entries in shared memory, the first `wide` threads of a block one more. At the top of a
/// pass, a full window keeps its top `slots - 1` entries and moves the others to global
/// memory; an empty one with a step back to take gets up to `slots - 2` back.
#[derive(Clone, Copy)]
struct Window {
    slots: usize,
    wide: usize,
}

/// What a lane did in a pass.
#[derive(Clone, Copy, Default)]
struct Pass {
    active: bool,
    /// Placed a queen (else the pass only stepped back).
    placed: bool,
    /// The stack's length at the top of the pass.
    top: usize,
    /// The level read by a step back, and how many rows up it lies.
    pop: Option<(usize, usize)>,
    /// The level written by a kept row.
    push: Option<usize>,
    /// Entries moved between shared and global memory before the pass (the window's upkeep).
    moved: Option<usize>,
}

/// The prefixes of a batch, handed out one at a time, and the boards' row windows.
struct Batch<'a> {
    n: usize,
    depth: usize,
    rows: &'a [Vec<[u32; 4]>],
    prefixes: &'a [Prefix],
    next: usize,
}

impl Batch<'_> {
    /// The next prefix with cells in its next row, if any is left.
    fn start(&mut self, l: &mut Lane) -> bool {
        while let Some(&p) = self.prefixes.get(self.next) {
            self.next += 1;
            l.board = p.board as usize;
            (l.cols, l.ld, l.rd) = (p.cols, p.ld, p.rd);
            let row = self.rows[l.board][self.depth];
            l.avail = next_cells(row[0], row[1], l.cols, l.ld, l.rd);
            if l.avail != 0 {
                return true;
            }
        }
        l.done = true;
        false
    }

    /// One pass of the loop for lane `l`, thread `thread` of its block. With `every_row`,
    /// every row stepped down from is kept, and a step back goes up one row only (a stack of
    /// queens); else only rows with cells left are kept, as the kernel does.
    fn step(&mut self, l: &mut Lane, thread: usize, every_row: bool, window: Option<Window>) -> Pass {
        let mut moved = None;
        if let Some(w) = window {
            let slots = w.slots + usize::from(thread % BLOCK < w.wide);
            if l.window == slots {
                moved = Some(l.window);
                l.spilled += l.window - (w.slots - 1);
                l.window = w.slots - 1;
            } else if l.avail == 0 && l.window == 0 && l.spilled > 0 {
                let back = l.spilled.min(w.slots - 2);
                moved = Some(back);
                (l.spilled, l.window) = (l.spilled - back, back);
            }
        }
        if l.avail == 0 && l.stack.is_empty() && !self.start(l) {
            return Pass::default();
        }
        let mut pass = Pass { active: true, top: l.stack.len(), moved, ..Pass::default() };
        if l.avail == 0 {
            let e = l.stack.pop().expect("a kept row");
            l.window = l.window.wrapping_sub(1);
            pass.pop = Some((l.stack.len(), (l.cols.count_ones() - e.cols.count_ones()) as usize));
            (l.avail, l.cols, l.ld, l.rd) = (e.avail, e.cols, e.ld, e.rd);
            if l.avail == 0 {
                // Only with every_row: a row whose cells are used up, left next pass.
                return pass;
            }
        }
        pass.placed = true;
        let bit = l.avail & l.avail.wrapping_neg();
        l.avail ^= bit;
        let (nc, nl, nr) = (l.cols | bit, (l.ld | bit) << 1, (l.rd | bit) >> 1);
        let next_row = nc.count_ones() as usize;
        let r1 = self.rows[l.board][next_row];
        let x1 = r1[0] & !(nc | nl | nr);
        let m2 = r1[2] & !(nc | (nl << 1) | (nr >> 1));
        if next_row == self.n - 2 || m2 == 0 || r1[3] & !(nc | (nl << 2) | (nr >> 2)) == 0 {
            return pass;
        }
        if l.avail != 0 || every_row {
            pass.push = Some(l.stack.len());
            l.stack.push(Entry { avail: l.avail, cols: l.cols, ld: l.ld, rd: l.rd });
            l.window += 1;
        }
        (l.cols, l.ld, l.rd) = (nc, nl, nr);
        let late = r1[1] & !nc;
        l.avail = if late == 0 { x1 } else { x1 & late };
        pass
    }
}

/// What the passes of one run came to.
#[derive(Default)]
struct Tally {
    warp_passes: u64,
    lane_passes: u64,
    queens: u64,
    /// Per level: kept rows written, read back, lane passes that found the stack that long,
    /// and rows stepped over (beyond the one) by the reads.
    pushes: Vec<u64>,
    pops: Vec<u64>,
    at: Vec<u64>,
    skipped: Vec<u64>,
    /// Per level: warp passes where some lane reads or writes it or a deeper one, and where
    /// some lane's stack reaches it at the top of the pass.
    warp_touch: Vec<u64>,
    warp_deep: Vec<u64>,
    /// Reads by rows stepped back: 1, 2, 3, 4, 5 or more.
    rows_back: [u64; 5],
    /// The window's upkeep: entries moved, and warp passes where some lane moved any.
    moved: u64,
    upkeep_warps: u64,
}

impl Tally {
    fn new(levels: usize) -> Tally {
        let v = vec![0; levels + 2];
        Tally {
            pushes: v.clone(),
            pops: v.clone(),
            at: v.clone(),
            skipped: v.clone(),
            warp_touch: v.clone(),
            warp_deep: v,
            ..Tally::default()
        }
    }
}

/// Runs `batch` on `warps` warps of 32 lanes in step.
fn run(batch: &mut Batch<'_>, warps: usize, levels: usize, every_row: bool, window: Option<Window>) -> Tally {
    let mut lanes = vec![vec![Lane::default(); 32]; warps];
    let mut t = Tally::new(levels);
    while !lanes.is_empty() {
        lanes.retain(|w| w.iter().any(|l| !l.done));
        for (w, warp) in lanes.iter_mut().enumerate() {
            let (mut touch, mut deep, mut any, mut upkeep) = (None::<usize>, 0usize, false, false);
            for (lane, l) in warp.iter_mut().enumerate().filter(|(_, l)| !l.done) {
                let p = batch.step(l, 32 * w + lane, every_row, window);
                if let Some(m) = p.moved {
                    (t.moved, upkeep) = (t.moved + m as u64, true);
                }
                if !p.active {
                    continue;
                }
                any = true;
                t.lane_passes += 1;
                t.queens += u64::from(p.placed);
                t.at[p.top] += 1;
                deep = deep.max(p.top);
                if let Some((level, back)) = p.pop {
                    t.pops[level] += 1;
                    t.skipped[level] += back as u64 - 1;
                    t.rows_back[(back - 1).min(4)] += 1;
                    touch = touch.max(Some(level));
                }
                if let Some(level) = p.push {
                    t.pushes[level] += 1;
                    touch = touch.max(Some(level));
                }
            }
            t.upkeep_warps += u64::from(upkeep);
            if any {
                t.warp_passes += 1;
                if let Some(level) = touch {
                    t.warp_touch[..=level].iter_mut().for_each(|c| *c += 1);
                }
                t.warp_deep[..=deep].iter_mut().for_each(|c| *c += 1);
            }
        }
    }
    t
}

/// Blocks of `threads` threads with `shared` bytes of dynamic shared memory each that one
/// SM holds at once, and the occupancy that makes.
fn occupancy(threads: usize, shared: usize) -> (usize, f64) {
    let warps = threads.div_ceil(32);
    let by_registers = SM_REGISTERS / (REGISTERS * 32).next_multiple_of(256) / warps;
    let by_shared = SM_SHARED / (shared + BLOCK_RESERVED).next_multiple_of(SHARED_UNIT);
    let blocks = by_registers.min(by_shared).min(SM_WARPS / warps).min(SM_BLOCKS);
    (blocks, (blocks * warps) as f64 / SM_WARPS as f64)
}

/// Threads a block and its shared bytes for `per_thread` bytes of stack a thread, all in
/// shared memory, as src/gpu/launch.rs sized them before the window.
fn whole_stack(per_thread: usize) -> (usize, usize) {
    let fit = (SHARED_LIMIT / per_thread.max(1)) / 32 * 32;
    let block = BLOCK.min(fit).max(32);
    (block, block * per_thread)
}

/// A layout of the stack: its name and the threads a block and shared bytes a block for
/// `levels` levels.
struct Layout {
    name: &'static str,
    shape: fn(usize) -> (usize, usize),
}

/// Blocks an SM the window was sized for.
const STACK_BLOCKS: usize = 14;
/// The fewest entries a thread's window holds: the kernel kept all but one of them at an
/// upkeep, and brought back all but two.
const LEAST_WINDOW: usize = 3;

/// How the windowed kernel kept each thread's stack of `n - depth - 3` levels within `budget`
/// shared bytes a block: whole where it fits, else `window` entries a thread in shared
/// memory (`wide` threads one more) and the rest in global memory.
struct StackShape {
    block: u32,
    shared: usize,
    window: u32,
    wide: u32,
}

impl StackShape {
    fn new(n: usize, depth: usize, budget: usize) -> StackShape {
        let levels = n.saturating_sub(depth + 3).max(1);
        let entries = (budget.min(48 * 1024) / 16).max(BLOCK * LEAST_WINDOW);
        if entries >= BLOCK * levels {
            return StackShape { block: BLOCK as u32, shared: BLOCK * levels * 16, window: 0, wide: 0 };
        }
        StackShape { block: BLOCK as u32, shared: entries * 16, window: (entries / BLOCK) as u32, wide: (entries % BLOCK) as u32 }
    }
}

/// Shared bytes a block may give its stacks so that `blocks` blocks fit an SM of `per_sm`
/// bytes, of which the driver reserves `reserved` a block (handed out in 128 bytes).
fn stack_budget(per_sm: usize, reserved: usize, blocks: usize) -> usize {
    (per_sm / blocks).saturating_sub(reserved) / 128 * 128
}

/// The window the windowed kernel gave a stack of `levels` levels for `blocks` blocks an SM.
fn window(levels: usize, blocks: usize) -> (usize, usize) {
    // StackShape takes n and the prefix depth: levels = n - depth - 3.
    let shape = StackShape::new(levels + 3, 0, stack_budget(SM_SHARED, BLOCK_RESERVED, blocks));
    (shape.block as usize, shape.shared)
}

const LAYOUTS: [Layout; 7] = [
    Layout { name: "16 B, all in shared (before)", shape: |levels| whole_stack(16 * levels) },
    Layout { name: "16 B, window for 13 blocks", shape: |levels| window(levels, 13) },
    Layout { name: "16 B, window for 14 blocks (built)", shape: |levels| window(levels, 14) },
    Layout { name: "16 B, window for 15 blocks", shape: |levels| window(levels, 15) },
    Layout { name: "16 B, window for 16 blocks", shape: |levels| window(levels, 16) },
    Layout { name: "8 B a row (cells left, queen)", shape: |levels| whole_stack(8 * levels) },
    Layout { name: "4 B a row (queen)", shape: |levels| whole_stack(4 * levels) },
];

/// Knuth's estimate of the prefixes at each depth of `plan`: random dives from the top of
/// boards picked at random, the product of the branching factors down to each row.
fn level_counts(plan: &Plan, dives: u32) -> Vec<f64> {
    let mut rng = Rng::new(7);
    let boards = plan.boards.len() as f64;
    let mut at = vec![0.0; plan.n + 1];
    at[0] = boards;
    for _ in 0..dives {
        let b = rng.below(plan.boards.len() as u64) as usize;
        let (rows, due) = (&plan.boards[b], &plan.due[b]);
        let (mut cols, mut ld, mut rd, mut width) = (0u32, 0u32, 0u32, boards);
        for r in 0..plan.n {
            let mut avail = next_cells(rows[r], due[r], cols, ld, rd);
            let k = avail.count_ones();
            if k == 0 {
                break;
            }
            width *= k as f64;
            at[r + 1] += width / dives as f64;
            for _ in 0..rng.below(k as u64) {
                avail &= avail - 1;
            }
            let bit = avail & avail.wrapping_neg();
            (cols, ld, rd) = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
        }
    }
    at
}

/// The occupancy of each layout on empty boards of n = 20 to 32.
fn occupancy_table() {
    println!("## Occupancy by layout: shared memory a block, blocks x threads an SM, occupancy\n");
    let mut head = String::from("| n | depth | levels |");
    for l in &LAYOUTS {
        head += &format!(" {} |", l.name);
    }
    println!("{head}");
    println!("|---|---|---|{}", "---|".repeat(LAYOUTS.len()));
    let mut rows: Vec<(String, usize, usize)> = Vec::new();
    for n in 20..=32 {
        let plan = Plan::optimized(&Board::empty(n).expect("a side of 1 to 32"));
        let target = gpu::prefix_target(plan.expected_nodes.unwrap_or(1e9)) as f64;
        let depth = level_counts(&plan, 20_000).iter().position(|&c| c >= target).unwrap_or(n);
        rows.push((n.to_string(), n, depth));
    }
    rows.push(("32 from row 0".into(), 32, 0));
    for (label, n, depth) in rows {
        let levels = n.saturating_sub(depth + 3).max(1);
        let mut line = format!("| {label} | {depth} | {levels} |");
        for l in &LAYOUTS {
            let (threads, shared) = (l.shape)(levels);
            let (blocks, occ) = occupancy(threads, shared);
            line += &format!(" {:.1} KB, {blocks}x{threads}, {:.1}% |", shared as f64 / 1024.0, 100.0 * occ);
        }
        println!("{line}");
    }
}

/// The board a name stands for, and its default THIN.
fn board(name: &str) -> Option<(Board, usize)> {
    let dense = |density: f64| {
        let mut rng = Rng::new(26);
        Board::from_fn(26, |_, _| !rng.chance(density)).ok()
    };
    match name {
        "empty20" => Some((Board::empty(20).ok()?, 24)),
        "empty21" => Some((Board::empty(21).ok()?, 96)),
        "empty22" => Some((Board::empty(22).ok()?, 200)),
        "dense26" => Some((dense(0.5)?, 16)),
        "dense26x60" => Some((dense(0.6)?, 4)),
        _ => None,
    }
}

/// What one board's runs came to, for the table of layouts.
struct Summary {
    name: String,
    /// Reads that step back over rows with no cells left.
    skipping: f64,
    /// Warp passes added by a stack of every row.
    every_row: f64,
    /// Warp passes where some lane reads or writes a level past SPLIT_LEVELS.
    split: f64,
    /// Warp passes where some lane tends its window, and entries moved a warp pass, for 14
    /// blocks an SM (none where the whole stack fits).
    upkeep: f64,
    moved: f64,
}

/// Runs the stacks on the middle batch of `board`'s count and prints what they did.
fn model(name: &str, board: &Board, thin: usize) -> Summary {
    let n = board.n();
    let plan = Plan::optimized(board);
    let nodes = plan.expected_nodes.unwrap_or(1e9);
    let Middle { prefixes, all, batch: (index, batches), total, rows } = middle_batch(&plan, thin);
    let depth = prefixes.depth;
    let levels = n.saturating_sub(depth + 3).max(1);
    let warps = (WARPS / thin).max(1);
    println!(
        "\n## {name}: n={n}, {} boards, {nodes:.2e} nodes; {total} prefixes {depth} rows deep, so {levels} levels; batch {} of {}: {} of its {all} prefixes (1 in {thin}) on {warps} warps",
        plan.boards.len(),
        index,
        batches,
        prefixes.items.len(),
    );
    let batch = || Batch { n, depth, rows: &rows, prefixes: &prefixes.items, next: 0 };
    let kept = run(&mut batch(), warps, levels, false, None);
    let (wp, lp) = (kept.warp_passes as f64, kept.lane_passes as f64);
    let pct = |c: u64, of: f64| format!("{:.3}%", 100.0 * c as f64 / of);
    println!(
        "{} warp passes, {:.2} lanes a pass; reads and writes of the stack a lane pass: {:.3}, {:.3}\n",
        kept.warp_passes,
        lp / wp,
        kept.pops.iter().sum::<u64>() as f64 / lp,
        kept.pushes.iter().sum::<u64>() as f64 / lp
    );
    println!("| level | writes | reads | lane passes at this length | rows stepped over a read | warp passes reading or writing it or deeper | warp passes with a lane this deep |");
    println!("|---|---|---|---|---|---|---|");
    for level in 0..levels {
        println!(
            "| {level} | {} | {} | {} | {:.2} | {} | {} |",
            kept.pushes[level],
            kept.pops[level],
            pct(kept.at[level], lp),
            kept.skipped[level] as f64 / kept.pops[level].max(1) as f64,
            pct(kept.warp_touch[level], wp),
            pct(kept.warp_deep[level], wp),
        );
    }
    let reads: u64 = kept.rows_back.iter().sum();
    let share: Vec<String> = kept.rows_back.iter().map(|&c| format!("{:.1}%", 100.0 * c as f64 / reads as f64)).collect();
    println!("\nrows a read steps back (1, 2, 3, 4, 5 or more): {}", share.join(", "));
    let every = run(&mut batch(), warps, levels, true, None);
    let mut summary = Summary {
        name: name.to_string(),
        skipping: 1.0 - kept.rows_back[0] as f64 / reads as f64,
        every_row: every.warp_passes as f64 / wp - 1.0,
        split: kept.warp_touch.get(SPLIT_LEVELS).map_or(0.0, |&c| c as f64 / wp),
        upkeep: 0.0,
        moved: 0.0,
    };
    assert_eq!(kept.queens, every.queens, "both stacks place the same queens");
    println!(
        "a stack of every row, one row back a pass: {:+.1}% lane passes, {:+.1}% warp passes",
        100.0 * (every.lane_passes as f64 / lp - 1.0),
        100.0 * (every.warp_passes as f64 / wp - 1.0),
    );
    println!(
        "\n| blocks an SM | window: entries a thread (first threads one more) | warp passes with upkeep | entries moved a warp pass |"
    );
    println!("|---|---|---|---|");
    for blocks in [13, 14, 15, 16] {
        let shape = StackShape::new(n, depth, stack_budget(SM_SHARED, BLOCK_RESERVED, blocks));
        if shape.window == 0 {
            println!("| {blocks} | the whole stack | 0 | 0 |");
            continue;
        }
        let w = Window { slots: shape.window as usize, wide: shape.wide as usize };
        let t = run(&mut batch(), warps, levels, false, Some(w));
        assert_eq!((t.queens, t.warp_passes), (kept.queens, kept.warp_passes), "a window changes no pass");
        println!("| {blocks} | {} (+1 for {}) | {} | {:.4} |", w.slots, w.wide, pct(t.upkeep_warps, wp), t.moved as f64 / wp);
        if blocks == STACK_BLOCKS {
            (summary.upkeep, summary.moved) = (t.upkeep_warps as f64 / wp, t.moved as f64 / wp);
        }
    }
    summary
}

/// The layouts side by side over the boards run.
fn layouts_table(boards: &[Summary]) {
    println!("\n## Layouts compared\n");
    for (name, [plain, due, uniform]) in LOOP_INSTRUCTIONS {
        println!("- {name}: loop instructions {plain}, {due}, {uniform} (plain, due, uniform)");
    }
    println!("- 8 B a row (cells left, queen), every row kept: restores a row in 5 instructions or more (XOR of the queen into the columns, shifts and XORs of the diagonals), and stepping back through rows in a row loses the diagonals' bits that the shifts pushed out (the low ones of every board), which must then be kept too");
    println!("- 8 B, kept rows only: cannot restore the rows a read steps over (their queens are not kept)\n");
    println!("| board | reads stepping over rows | every row kept: warp passes added | deep levels in global: warp passes touching them | window for 14 blocks: warp passes tending it, entries moved a warp pass |");
    println!("|---|---|---|---|---|");
    for b in boards {
        println!(
            "| {} | {:.1}% | {:+.1}% | {:.3}% | {:.3}%, {:.3} |",
            b.name,
            100.0 * b.skipping,
            100.0 * b.every_row,
            100.0 * b.split,
            100.0 * b.upkeep,
            b.moved
        );
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        args = ["empty20", "empty21", "empty22", "dense26", "dense26x60"].map(String::from).to_vec();
    }
    occupancy_table();
    let mut boards = Vec::new();
    for arg in args {
        let (name, thin) = arg.split_once(':').map_or((arg.as_str(), None), |(b, t)| (b, t.parse().ok()));
        let Some((board, default_thin)) = board(name) else {
            eprintln!("stack_model: a board is empty20, empty21, empty22, dense26 or dense26x60, with :THIN if wanted");
            std::process::exit(2);
        };
        boards.push(model(name, &board, thin.unwrap_or(default_thin).max(1)));
    }
    layouts_table(&boards);
}
