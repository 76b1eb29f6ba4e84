//! What the kernels are handed and how they are launched: each board's rows as 16-byte
//! windows, where each root's prefixes start in a batch, and block shapes that keep every
//! thread's stack within shared memory.

use cudarc::driver::LaunchConfig;

use crate::plan::Plan;

/// Threads per block, unless the stack in shared memory needs a smaller block.
const BLOCK: u32 = 128;
/// The most threads a block of the counting kernels may have: their `__launch_bounds__`.
const MAX_BLOCK: u32 = 256;
/// Threads per block of expand_prefixes (its `__launch_bounds__`), each with a 16-byte
/// stack entry per row it expands but the last: at most 29 rows, within 48 KB.
const EXPAND_BLOCK: u32 = 64;
/// Shared memory a block may use without raising the kernel's limit.
const SHARED_LIMIT: usize = 48 * 1024;

/// Bytes of one stack entry in the kernel: a row's cells left, columns and diagonals.
pub(super) const STACK_ENTRY: usize = 16;

/// Threads per block and shared bytes per block for prefixes at `depth` on an `n` board:
/// each thread keeps one 16-byte stack entry per row it searches above the last two.
pub fn block_shape(n: usize, depth: usize) -> (u32, usize) {
    let per_thread = stack_bytes(n, depth);
    let fit = (SHARED_LIMIT / per_thread) as u32 / 32 * 32;
    let block = BLOCK.min(fit).max(32);
    (block, block as usize * per_thread)
}

/// The block shapes a counting launch may take, [`block_shape`]'s first, then every other
/// whole number of warps up to the kernel's bound whose stacks fit in shared memory: which
/// keeps the most warps on an SM depends on the stack's depth and the card.
pub fn block_shapes(n: usize, depth: usize) -> impl Iterator<Item = (u32, usize)> {
    let per_thread = stack_bytes(n, depth);
    let first = block_shape(n, depth);
    let others = (1..=MAX_BLOCK / 32)
        .map(move |warps| warps * 32)
        .filter(move |&block| block != first.0 && block as usize * per_thread <= SHARED_LIMIT)
        .map(move |block| (block, block as usize * per_thread));
    std::iter::once(first).chain(others)
}

/// Shared bytes a thread's stack takes.
fn stack_bytes(n: usize, depth: usize) -> usize {
    n.saturating_sub(depth + 3).max(1) * STACK_ENTRY
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

    #[test]
    fn every_block_shape_offered_fits_and_the_usual_one_comes_first() {
        for n in 1..=32 {
            for depth in 0..=n {
                let shapes: Vec<_> = block_shapes(n, depth).collect();
                assert_eq!(shapes[0], block_shape(n, depth));
                for &(block, shared) in &shapes {
                    assert!(block % 32 == 0 && block <= MAX_BLOCK && shared <= SHARED_LIMIT, "n={n} depth={depth} block={block}");
                    assert_eq!(shared, block as usize * stack_bytes(n, depth));
                }
                let mut blocks: Vec<u32> = shapes.iter().map(|s| s.0).collect();
                blocks.sort_unstable();
                blocks.dedup();
                assert_eq!(blocks.len(), shapes.len(), "no shape twice");
            }
        }
        // 12 levels of 16 bytes: 128 threads first, then 32..256 but 128.
        assert_eq!(block_shapes(21, 6).map(|s| s.0).collect::<Vec<_>>(), [128, 32, 64, 96, 160, 192, 224, 256]);
    }

    #[test]
    fn block_shape_keeps_the_stack_within_shared_memory() {
        for n in 1..=32 {
            for depth in 0..=n {
                let (block, shared) = block_shape(n, depth);
                assert!(block >= 32 && block % 32 == 0 && block <= BLOCK);
                assert!(shared <= SHARED_LIMIT, "n={n} depth={depth}");
            }
        }
    }
}
