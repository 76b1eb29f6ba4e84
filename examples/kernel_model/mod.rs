//! What the kernel's models share (warp_model.rs, stack_model.rs): a kept row of the
//! stack, and the GPU backend's middle batch of a board, its prefixes made as the kernel's
//! expand_prefixes makes them and thinned at random, with the rows the kernel reads.

use nqueen::gpu;
use nqueen::plan::Plan;
use nqueen::prefix::{self, Prefix, Prefixes};

/// A kept row: its cells left, the columns and the two diagonals.
#[derive(Clone, Copy, Default)]
pub struct Entry {
    pub avail: u32,
    pub cols: u32,
    pub ld: u32,
    pub rd: u32,
}

/// The middle batch of a board's count on the GPU.
pub struct Middle {
    /// One prefix in `thin` of the batch's, kept at random.
    pub prefixes: Prefixes,
    /// The batch's prefixes before thinning.
    pub all: usize,
    /// Its place among the count's batches: (index, batches).
    pub batch: (usize, usize),
    /// The prefixes of the whole count.
    pub total: u64,
    /// Each board's row windows as the kernel reads them: free cells, due columns, the next
    /// two rows' free cells.
    pub rows: Vec<Vec<[u32; 4]>>,
}

/// The middle batch of `plan`'s count, as the GPU backend makes it, thinned to one prefix
/// in `thin` from a fixed seed.
pub fn middle_batch(plan: &Plan, thin: usize) -> Middle {
    let n = plan.n;
    let nodes = plan.expected_nodes.unwrap_or(1e9);
    let base = prefix::expand(plan, prefix::cpu_target(plan.expected_nodes));
    let deeper = prefix::deeper(plan, &base, gpu::prefix_target(nodes));
    let batches = prefix::batches(&deeper.per_root, gpu::LARGE_BATCH_CAP);
    let middle = &batches[batches.len() / 2];
    let roots = Prefixes { depth: base.depth, items: base.items[middle.clone()].to_vec() };
    let mut prefixes = expanded(plan, roots, deeper.extra);
    let all = prefixes.items.len();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    prefixes.items.retain(|_| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed.is_multiple_of(thin as u64)
    });
    let rows = plan
        .boards
        .iter()
        .zip(&plan.due)
        .map(|(free, due)| (0..n).map(|r| [free[r], due[r], *free.get(r + 1).unwrap_or(&0), *free.get(r + 2).unwrap_or(&0)]).collect())
        .collect();
    Middle { prefixes, all, batch: (batches.len() / 2, batches.len()), total: deeper.total(), rows }
}

/// The prefixes of `roots` `extra` rows further down, as the kernel's expand_prefixes makes
/// them.
fn expanded(plan: &Plan, mut level: Prefixes, extra: usize) -> Prefixes {
    for _ in 0..extra {
        let mut next: Vec<Prefix> = Vec::new();
        for p in &level.items {
            let mut avail = p.avail(plan, level.depth);
            while avail != 0 {
                let bit = avail & avail.wrapping_neg();
                avail ^= bit;
                next.push(p.place(bit));
            }
        }
        level = Prefixes { depth: level.depth + 1, items: next };
    }
    level
}
