//! What the kernels are handed and how they are launched: each board's rows as 16-byte
//! windows, where each root's prefixes start in a batch, and how the counting kernels keep
//! their stacks: as much of them in shared memory as leaves room for enough blocks an SM,
//! the rest in global memory.

use cudarc::driver::LaunchConfig;

use crate::plan::Plan;

/// Threads per block of the counting entry points (at most their `__launch_bounds__`).
const BLOCK: u32 = 128;
/// Threads per block of expand_prefixes (its `__launch_bounds__`), each with a 16-byte
/// stack entry per row it expands but the last: at most 29 rows, within 48 KB.
const EXPAND_BLOCK: u32 = 64;
/// Shared memory a block may use without raising the kernel's limit.
const SHARED_LIMIT: usize = 48 * 1024;

/// Bytes of one stack entry in the kernel: a row's cells left, columns and diagonals.
pub(super) const STACK_ENTRY: usize = 16;

/// Blocks an SM the counting kernels' stacks leave room for, unless `NQUEEN_STACK_BLOCKS`
/// says otherwise: 14 of 16 (their registers allow 16). Past 14, more of the deep stacks of
/// 21x21 and larger boards go to global memory and back (examples/stack_model.rs).
pub const STACK_BLOCKS: usize = 14;
/// The fewest entries a thread's window holds: the kernel keeps all but one of them at an
/// upkeep, and brings back all but two.
const LEAST_WINDOW: usize = 3;

/// How the counting kernels keep each thread's stack, one 16-byte entry per row it searches
/// above the last two, for one plan and prefix depth: all of it in shared memory where that
/// leaves an SM room for the blocks wanted, else only the top of it there (the window) and
/// the rest in global memory (see `stack_upkeep` in kernels/count.cu).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackShape {
    /// Threads a block.
    pub block: u32,
    /// Shared bytes a block: the threads' windows, or their whole stacks.
    pub shared: usize,
    /// Entries each thread keeps in shared memory, 0 where it keeps them all: the kernel's
    /// `window`.
    pub window: u32,
    /// Threads, the first of the block, that keep one entry more: the kernel's `wide`.
    pub wide: u32,
    /// The most entries a thread keeps in global memory, 0 with no window: the kernel's
    /// `capacity`, which sizes its spill area.
    pub capacity: u32,
}

impl StackShape {
    /// The shape for prefixes at `depth` on an `n` board with at most `budget` bytes of
    /// shared memory a block (see [`stack_budget`]).
    pub fn new(n: usize, depth: usize, budget: usize) -> StackShape {
        let levels = n.saturating_sub(depth + 3).max(1);
        // Whole entries, as many a thread as fit and one more for the first threads; at
        // least the least window, which the occupancy gives way to.
        let entries = (budget.min(SHARED_LIMIT) / STACK_ENTRY).max(BLOCK as usize * LEAST_WINDOW);
        if entries >= BLOCK as usize * levels {
            return StackShape { block: BLOCK, shared: BLOCK as usize * levels * STACK_ENTRY, window: 0, wide: 0, capacity: 0 };
        }
        let (window, wide) = (entries / BLOCK as usize, entries % BLOCK as usize);
        // A full window keeps all its entries but one, and a thread never holds more than
        // `levels` entries in all.
        let capacity = levels - (window - 1);
        StackShape { block: BLOCK, shared: entries * STACK_ENTRY, window: window as u32, wide: wide as u32, capacity: capacity as u32 }
    }

    /// Bytes of the spill area the kernel needs on a grid of `blocks` blocks: each thread's
    /// `capacity` entries, the count of them and the row it searches while it tends its
    /// window (one entry each).
    pub fn spill_bytes(&self, blocks: u32) -> usize {
        if self.capacity == 0 {
            return STACK_ENTRY;
        }
        blocks as usize * self.block as usize * (self.capacity as usize + 2) * STACK_ENTRY
    }
}

/// Shared bytes a block may give its stacks so that `blocks` blocks fit an SM of
/// `per_sm` bytes of shared memory, of which the driver reserves `reserved` a block: all
/// the kernel may use (48 KB) for `blocks` 0. Shared memory is handed out in 128 bytes.
pub fn stack_budget(per_sm: usize, reserved: usize, blocks: usize) -> usize {
    if blocks == 0 {
        return SHARED_LIMIT;
    }
    (per_sm / blocks).saturating_sub(reserved) / 128 * 128
}

/// [`stack_budget`] for this process: `NQUEEN_STACK_BLOCKS=B` (kernel work: 0 keeps whole
/// stacks in shared memory where they fit) sets the blocks, else [`STACK_BLOCKS`].
pub(super) fn stack_budget_here(per_sm: usize, reserved: usize) -> usize {
    let blocks = std::env::var("NQUEEN_STACK_BLOCKS").ok().and_then(|b| b.trim().parse().ok()).unwrap_or(STACK_BLOCKS);
    stack_budget(per_sm, reserved, blocks)
}

/// How expand_prefixes is launched on `roots` roots expanding `extra` rows each.
pub(super) fn expand_cfg(roots: u32, extra: usize) -> LaunchConfig {
    let shared = EXPAND_BLOCK as usize * extra.saturating_sub(1) * STACK_ENTRY;
    LaunchConfig { grid_dim: (roots.div_ceil(EXPAND_BLOCK), 1, 1), block_dim: (EXPAND_BLOCK, 1, 1), shared_mem_bytes: shared as u32 }
}

/// Where each root's prefixes start in a batch of roots that make `per_root` prefixes
/// each, and at the end the batch's size (which the caller knows fits in u32).
pub(super) fn offsets(per_root: &[u64]) -> Vec<u32> {
    let mut at = 0u32;
    let mut offsets = Vec::with_capacity(per_root.len() + 1);
    offsets.push(at);
    for &k in per_root {
        at += k as u32;
        offsets.push(at);
    }
    offsets
}

/// Every board's rows as the kernel reads them, one 16-byte window a row: row r's free
/// cells and due columns, then rows r+1 and r+2's free cells (none past the last row).
pub fn row_windows(plan: &Plan) -> Vec<u32> {
    // A queen placed in row r-1 needs all four, and one 16-byte load brings them instead
    // of three.
    let mut windows = Vec::with_capacity(plan.boards.len() * plan.n * 4);
    for (free, due) in plan.boards.iter().zip(&plan.due) {
        let below = |r: usize| free.get(r).copied().unwrap_or(0);
        for r in 0..plan.n {
            windows.extend([free[r], due[r], below(r + 1), below(r + 2)]);
        }
    }
    windows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    #[test]
    fn each_rows_window_holds_it_and_the_two_below() {
        let board = Board::from_rows(4, vec![0b1110, 0b1111, 0b1011, 0b0111]).expect("a 4x4 board");
        let mut plan = Plan::plain(&board);
        plan.due[0] = vec![1, 2, 4, 8];
        let (f, d) = (&plan.boards[0], &plan.due[0]);
        assert_eq!(
            row_windows(&plan),
            [[f[0], d[0], f[1], f[2]], [f[1], d[1], f[2], f[3]], [f[2], d[2], f[3], 0], [f[3], d[3], 0, 0]].concat()
        );
    }

    #[test]
    fn expansions_stay_within_shared_memory() {
        // Expansions stop three rows from the end of a board of at most 32 rows.
        assert!(expand_cfg(1000, 29).shared_mem_bytes as usize <= SHARED_LIMIT);
        assert_eq!(expand_cfg(1000, 0).shared_mem_bytes, 0);
        assert_eq!(expand_cfg(129, 3).grid_dim.0, 3);
    }

    #[test]
    fn each_roots_prefixes_start_where_the_ones_before_end() {
        assert_eq!(offsets(&[3, 0, 5, 1]), [0, 3, 3, 8, 9]);
        assert_eq!(offsets(&[]), [0]);
    }

    /// An H100's or H200's SM: 228 KB of shared memory, 1 KB of it reserved a block.
    const HOPPER: (usize, usize) = (228 * 1024, 1024);

    #[test]
    fn stacks_leave_room_for_the_blocks_wanted() {
        for blocks in [0, 10, 14, 15, 16] {
            let budget = stack_budget(HOPPER.0, HOPPER.1, blocks);
            for n in 1..=32 {
                for depth in 0..=n {
                    let shape = StackShape::new(n, depth, budget);
                    assert_eq!(shape.block, BLOCK);
                    assert!(shape.shared <= SHARED_LIMIT && shape.shared.is_multiple_of(STACK_ENTRY), "n={n} depth={depth}");
                    let levels = n.saturating_sub(depth + 3).max(1);
                    if shape.window == 0 {
                        assert_eq!((shape.shared, shape.wide, shape.capacity), (levels * STACK_ENTRY * BLOCK as usize, 0, 0));
                    } else {
                        // Every thread's window holds at least the least, and fewer entries
                        // than its whole stack; the blocks wanted fit an SM.
                        let (least, wide) = (shape.window as usize, shape.wide as usize);
                        assert!(least >= LEAST_WINDOW && least < levels && wide < BLOCK as usize, "n={n} depth={depth}");
                        assert_eq!(shape.shared, (least * BLOCK as usize + wide) * STACK_ENTRY);
                        assert_eq!(shape.capacity as usize, levels + 1 - least);
                        if blocks > 0 {
                            assert!(blocks * (shape.shared + HOPPER.1).next_multiple_of(128) <= HOPPER.0);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn fourteen_blocks_an_sm_give_empty_boards_of_20_and_more_a_window() {
        let budget = stack_budget(HOPPER.0, HOPPER.1, STACK_BLOCKS);
        // Empty 20, 21 and 22 take prefixes 7 rows deep: 10 to 12 levels, 7 of them (one
        // more for the first 80 threads) in shared memory.
        for n in [20, 21, 22] {
            let shape = StackShape::new(n, 7, budget);
            assert_eq!((shape.shared, shape.window, shape.wide), (15_616, 7, 80), "n={n}");
            assert_eq!(shape.capacity as usize, n - 16, "n={n}");
        }
        // Shallow enough stacks stay whole, as before.
        assert_eq!(StackShape::new(18, 8, budget), StackShape { block: BLOCK, shared: 7 * 2048, window: 0, wide: 0, capacity: 0 });
        // A whole board of 32 from its first row: 29 levels, 28 of them in global memory.
        let deep = StackShape::new(32, 0, budget);
        assert_eq!(deep.capacity, 23);
        assert_eq!(deep.spill_bytes(132 * 14), 132 * 14 * 128 * 25 * 16);
        // 0 blocks keep whole stacks where they fit in the kernel's 48 KB, as before.
        assert_eq!(StackShape::new(20, 7, stack_budget(HOPPER.0, HOPPER.1, 0)).window, 0);
        assert_ne!(StackShape::new(32, 0, stack_budget(HOPPER.0, HOPPER.1, 0)).window, 0);
    }
}
