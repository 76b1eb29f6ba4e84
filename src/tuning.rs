//! The figures the counters are tuned by, each fitted or measured on real boards: the
//! speeds `auto` judges the CPU and the GPU by, what planning may cut, and the sizes of
//! the pieces of work. Each comment names the section of BENCHMARKS.md that has the
//! measurement; change a figure with a new one there.

// The CPU (BENCHMARKS.md, "CPU against the OpenMP baseline and peers" and "The default
// run (H100 host)").

/// Search nodes per second one thread gets through in the scalar search while every thread
/// of the pool is busy: with the search's speedup over it, what `auto` judges the CPU by
/// and a recorded count's units are sized by (fitted to 16 threads of the H100 host).
pub const SCALAR_NODES_PER_THREAD_SECOND: f64 = 1.0e8;
/// The CPU's search nodes per node of Knuth's estimate of the same tree: the CPU counts
/// the last two rows in closed form (0.66 to 0.94 on empty and obstacle boards of 12 to
/// 15, 0.8 on average).
pub const NODES_PER_ESTIMATED_NODE: f64 = 0.8;
/// How many times faster than the scalar search the AVX-512 lanes (16) and the AVX2 lanes
/// (8) get through nodes where they start at the prefixes: their low end over the
/// benchmark boards.
#[cfg(target_arch = "x86_64")]
pub const LANES_SPEEDUP: [f64; 2] = [4.4, 1.7];
/// What a node costs, in nodes of the scalar search, where the scalar way brings prefixes
/// down to lanes that start below them: it yields each partial board where the scalar
/// search counts the last rows at once.
#[cfg(target_arch = "x86_64")]
pub const DESCEND_COST: f64 = 1.22;
/// What a lane's start on a partial board costs: a lane's search of a partial board of `p`
/// nodes costs `1 / speedup + LANE_START / sqrt(p)` nodes of the scalar search a node, as
/// fitted to sixteen boards of 20 to 30 with 20 to 75% obstacles, whose lanes started from
/// 0.3 to 900 nodes a partial board (one thread, AVX-512 and AVX2 alike).
#[cfg(target_arch = "x86_64")]
pub const LANE_START: f64 = 1.8;
/// A thread's share of the work over the most that one prefix may hold: a heavier one
/// keeps its thread busy after the others finish.
pub const PREFIXES_PER_SHARE: f64 = 16.0;
/// A thread's share of the work over the most that one chunk of the dynamic schedule may
/// hold.
pub const CHUNKS_PER_SHARE: f64 = 64.0;
/// Estimated search nodes under which a count runs on the thread that asks for it: waking
/// the pool's other threads would cost more than they save (BENCHMARKS.md, "Shards": a
/// board's shards in their thousands, most of them of a few hundred nodes).
pub const ONE_THREAD_NODES: f64 = 65_536.0;

// The GPU (BENCHMARKS.md, "GPU, empty boards (H100 host)" and "The default run (H100
// host)").

/// Search nodes per second of one GPU that a recorded count's units are sized by, and
/// `auto` judges it by (an H100 on the plain kernel).
pub const GPU_NODES_PER_SECOND: f64 = 4e11;
/// What a board costs an open GPU besides its planning and search (prefixes, transfers,
/// launches), as measured on boards of 15 and 16 on an H100 host.
pub const GPU_BOARD_SECONDS: f64 = 0.006;
/// What opening a GPU costs: the driver's start-up and the context, as measured on an
/// H100 host whose driver is idle; more while another process's teardown runs. `auto`
/// weighs what opening took on the machine before, once a run has opened one there (an
/// H200 pair took 0.3 to 0.4 s); this is the figure until then. Opening
/// several cards costs about this much a card, though they open side by side
/// (BENCHMARKS.md, "Files of many boards").
pub const GPU_START_SECONDS: f64 = 0.17;
/// Search nodes per prefix on the GPU (at most, as the first level with enough prefixes is
/// used) on small trees, where making prefixes is a large part of the count.
pub const NODES_PER_PREFIX_SMALL: f64 = 20_000.0;
/// The same on large trees, where a batch's last prefixes, on a few threads while the
/// others idle, cost more than making more and smaller prefixes.
pub const NODES_PER_PREFIX_LARGE: f64 = 10_000.0;
/// The trees between which the nodes per prefix go from the first to the second, evenly
/// on a log scale, so that no board size falls between two rules.
pub const SMALL_TREE: f64 = 5e10;
pub const LARGE_TREE: f64 = 8e11;
/// The most search nodes a prefix may hold on the GPU: a thread searches a few million
/// nodes a second, so a heavier prefix makes a long tail.
pub const MAX_NODES_PER_PREFIX: f64 = 5e5;
/// Estimated search nodes from which a board is shared among several GPUs: below it, the
/// second device's set-up per board costs more than it saves (BENCHMARKS.md, "Several GPUs
/// of one host").
pub const SHARED_NODES: f64 = 2e11;

// Planning and `auto`'s choices (BENCHMARKS.md, "The default run (H100 host)").

/// Trees estimated below this many nodes are searched as they are: choosing an
/// orientation and a symmetry (eight estimates) costs as much as such a search, which many
/// small boards in one input would pay again and again.
pub const PLANNING_PAYS_NODES: f64 = 2e6;
/// Estimated trees (after symmetry) from which turning each board of a split pays for its
/// planning.
pub const TURNING_PAYS_NODES: f64 = 1e8;
/// How many times fewer nodes a plan may need than its board's plain tree, at most: the
/// symmetry split's gain (up to about 5x) times what the orientation and the quick
/// estimate's error may add.
pub const PLANNING_CUT: f64 = 8.0;
/// What the orientation and the quick estimate's error may cut beside the symmetry split:
/// on 114 boards of 13 to 32 with obstacles and no symmetry, the cut was under 1.5x for
/// two thirds and over 3x for 8.
pub const ORIENTATION_CUT: f64 = 3.0;
/// Estimated CPU seconds, beyond what is left of the GPU's opening, under which `auto`
/// keeps a board on the CPU while the GPU is opening, and above which the board no longer
/// races the opening but waits for it. Once the GPU is open, the line is its own cost of a
/// board ([`GPU_BOARD_SECONDS`]).
pub const OPENING_LINE_SECONDS: f64 = 0.05;
/// How many times the estimate of a search's nodes may be off: an estimate this many times
/// what the CPU gets through in the time at stake settles the question without a sample.
pub const ESTIMATE_MARGIN: f64 = 8.0;

// The sieve (BENCHMARKS.md, "Files of many boards of one size", local machine).

/// Seconds making a sieve takes per solution of the empty board it keeps: the part no
/// thread shares (memory faulted in, the lists joined) and the part the threads share.
/// 14x14 (365,596 solutions): 75 ms on one thread here, 32 ms on the H100 host's 16;
/// 15x15 (2,279,184): about 550 ms here, 266 ms there.
pub const SIEVE_SECONDS_PER_SOLUTION: [f64; 2] = [1.0e-7, 1.5e-7];
/// Seconds a count by sieve takes per word of the bit sets it combines (14x14 with 10%
/// obstacles: 19 sets of 5,713 words in 50 us).
pub const SIEVE_SECONDS_PER_WORD: f64 = 5e-10;
/// How many times its cost the boards of a side must be expected to save before their
/// sieve is made: the estimates err both ways, and a sieve made in vain costs all of it
/// (two boards of 14x14 on two threads were 1.4x slower made at 1x).
pub const SIEVE_MARGIN: f64 = 2.0;
/// Seconds a dive of Knuth's estimate takes per row: what choosing an orientation costs
/// a board (eight looks of 4,000 dives: about 5 ms on 14x14).
pub const DIVE_ROW_SECONDS: f64 = 1e-8;

// Units of work (BENCHMARKS.md, "Shards").

/// Planned trees from which a case's blocks are estimated even when no shard or
/// checkpoint needs it, for the progress bar: such a case may run for many seconds, and
/// the estimate costs milliseconds.
pub const ESTIMATED_WORK_NODES: f64 = 1e11;
/// Seconds of counting a unit of a recorded count aims at: a kill loses about this much.
pub const UNIT_SECONDS: f64 = 2.0;
