//! The CPU counter: every prefix's completions counted by an iterative bitmask search
//! (sixteen or eight prefixes at a time in [`lanes`] where the CPU has AVX-512 or
//! AVX2), spread over a rayon pool in static or dynamic chunks.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::board::{due_matters, last_two_rows, next_cells};
use crate::control::{Control, Interrupted};
use crate::plan::Plan;
use crate::prefix::{Prefix, Prefixes};
use crate::tally::Tally;
use crate::tuning::ONE_THREAD_NODES;
use search::Search;
pub use search::{nodes_per_second, search_name, speedup_over_scalar, widest_speedup};

mod descend;
#[cfg(target_arch = "x86_64")]
pub mod lanes;
mod pieces;
mod search;

/// How prefixes are handed to the pool's threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Schedule {
    /// Fixed chunks of [`STATIC_CHUNK`] prefixes, chunk `i` to thread `i % threads`, as
    /// the exercise's OpenMP `schedule(static, 1024)` does.
    Static,
    /// Chunks of at most [`DYNAMIC_CHUNK`] prefixes (and, where their work is estimated, of
    /// at most a small part of a thread's share) taken in order by whichever thread is free, as
    /// OpenMP's `schedule(dynamic)`: with many threads, fixed chunks leave threads idle
    /// while others finish the heavy ones.
    #[default]
    Dynamic,
}

/// Prefixes per chunk in the static schedule.
pub const STATIC_CHUNK: usize = 1024;
/// Prefixes per chunk in the dynamic schedule: small enough that threads finish together,
/// large enough that taking one stays out of the profile.
pub const DYNAMIC_CHUNK: usize = 16;

/// Counts all of `prefixes` on the current rayon pool: each thread takes its chunks as the
/// schedule says and feeds their prefixes to one search, so that the lanes of
/// [`lanes`] never wait for a chunk's last prefix. `work` is each prefix's estimated work
/// (empty: one each), by which heavy prefixes are made finer and the dynamic schedule's
/// chunks cut (see `pieces`), and the progress bar advances.
pub fn count(plan: &Plan, prefixes: &Prefixes, work: &[f64], schedule: Schedule, ctl: &Control) -> Result<Tally, Interrupted> {
    // A shard may hold nothing of a board: no search to set up, no thread to wake.
    if prefixes.items.is_empty() {
        ctl.check()?;
        return Ok(Tally::default());
    }
    let threads = rayon::current_num_threads();
    let finer = pieces::finer(plan, prefixes, work, threads);
    ctl.advance(finer.dropped);
    let (depth, items, work) = (finer.prefixes.depth, &finer.prefixes.items[..], &finer.work[..]);
    let chunks = pieces::chunks(work, items.len(), threads);
    let taken = AtomicUsize::new(0);
    let search = Search::new(plan, depth);
    let count_chunks = |thread: usize| {
        let mut dealt = (thread * STATIC_CHUNK..).step_by(threads * STATIC_CHUNK);
        let mine = std::iter::repeat_with(|| {
            // A cancelled run stops taking chunks; its partial sums are thrown away below.
            ctl.check().ok()?;
            let range = match schedule {
                Schedule::Static => dealt.next().map(|start| start..items.len().min(start + STATIC_CHUNK))?,
                Schedule::Dynamic => {
                    let i = taken.fetch_add(1, Ordering::Relaxed);
                    *chunks.get(i)?..*chunks.get(i + 1)?
                }
            };
            let chunk = items.get(range.clone())?;
            ctl.advance(work.get(range).map_or(chunk.len() as f64, |work| work.iter().sum()));
            Some(chunk)
        });
        search.run(plan, depth, mine.map_while(|chunk| chunk).flatten().copied(), ctl)
    };
    // One thread, or one chunk, which one thread takes whatever the pool, or less work than
    // waking the others costs: counted here, the count wakes no thread.
    let one_thread = threads == 1
        || (!work.is_empty() && work.iter().sum::<f64>() < ONE_THREAD_NODES)
        || match schedule {
            Schedule::Static => items.len() <= STATIC_CHUNK,
            Schedule::Dynamic => chunks.len() <= 2,
        };
    let outcome: Vec<Result<Tally, Interrupted>> =
        if one_thread { vec![count_chunks(0)] } else { rayon::broadcast(|ctx| count_chunks(ctx.index())) };
    let below = Tally { solutions: 0, nodes: u128::from(finer.nodes) };
    let total = outcome.into_iter().try_fold(below, |a, b| b.map(|b| a + b))?;
    ctl.check()?;
    Ok(total)
}

/// Nodes between looks at the cancel flag: about a millisecond of search.
const CHECK_EVERY: u64 = 1 << 18;

/// Completions of prefix `p` (at row `depth`) on the board `rows` with due columns `due`
/// (see [`crate::board::due_columns`]): (solutions, nodes).
/// Stops with `Interrupted` within 2^18 nodes (`CHECK_EVERY`) of `ctl` being cancelled.
pub fn count_prefix(rows: &[u32], due: &[u32], depth: usize, p: &Prefix, ctl: &Control) -> Result<(u64, u64), Interrupted> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has just been seen to support popcnt.
            return unsafe { count_prefix_popcnt(rows, due, depth, p, ctl) };
        }
    }
    search(rows, due, depth, p, ctl)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn count_prefix_popcnt(rows: &[u32], due: &[u32], depth: usize, p: &Prefix, ctl: &Control) -> Result<(u64, u64), Interrupted> {
    search(rows, due, depth, p, ctl)
}

/// Picks the search variant: most boards have no column due before the last two rows,
/// and skipping the check there keeps the plain search faster.
#[inline(always)]
fn search(rows: &[u32], due: &[u32], depth: usize, p: &Prefix, ctl: &Control) -> Result<(u64, u64), Interrupted> {
    if due_matters(due, depth) {
        search_with::<true>(rows, due, depth, p, ctl)
    } else {
        search_with::<false>(rows, due, depth, p, ctl)
    }
}

/// The hot loop: an iterative depth-first search with an explicit stack. `DUE`: whether
/// to look at the due columns.
#[inline(always)]
fn search_with<const DUE: bool>(rows: &[u32], due: &[u32], depth: usize, p: &Prefix, ctl: &Control) -> Result<(u64, u64), Interrupted> {
    let cells = |row: usize, cols: u32, ld: u32, rd: u32| {
        if DUE {
            next_cells(rows[row], due[row], cols, ld, rd)
        } else {
            rows[row] & !(cols | ld | rd)
        }
    };
    let n = rows.len();
    if depth + 2 >= n {
        ctl.check()?;
        return Ok((small_tail(rows, depth, p), 0));
    }
    let last2 = n - 2;
    // Per row: the cells not yet tried, and the state to return to.
    let mut stack = [[0u32; 4]; 32];
    let (mut row, mut cols, mut ld, mut rd) = (depth, p.cols, p.ld, p.rd);
    let mut avail = cells(row, cols, ld, rd);
    let (mut total, mut nodes) = (0u64, 0u64);
    loop {
        if avail == 0 {
            if row == depth {
                break;
            }
            row -= 1;
            [avail, cols, ld, rd] = stack[row];
            continue;
        }
        // Lowest set bit: two's complement leaves only it in common with avail.
        let bit = avail & avail.wrapping_neg();
        avail ^= bit;
        nodes += 1;
        if nodes % CHECK_EVERY == 0 {
            ctl.check()?;
        }
        let (nc, nl, nr) = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
        if row + 1 == last2 {
            total += last_two_rows(rows[last2] & !(nc | nl | nr), rows[last2 + 1] & !(nc | nl << 1 | nr >> 1));
            continue;
        }
        // Look one row further before going down: a queen that leaves the row after next
        // no cell would cost a push and a pop to find out (empty 15x15: 16% fewer nodes).
        if rows[row + 2] & !(nc | nl << 1 | nr >> 1) == 0 {
            continue;
        }
        stack[row] = [avail, cols, ld, rd];
        row += 1;
        (cols, ld, rd) = (nc, nl, nr);
        avail = cells(row, cols, ld, rd);
    }
    Ok((total, nodes))
}

/// Counts for a prefix within two rows of the end, where the search loop has no work.
fn small_tail(rows: &[u32], depth: usize, p: &Prefix) -> u64 {
    let n = rows.len();
    let occupied = p.cols | p.ld | p.rd;
    match n - depth {
        0 => 1,
        1 => (rows[depth] & !occupied).count_ones() as u64,
        _ => last_two_rows(rows[depth] & !occupied, rows[depth + 1] & !(p.cols | p.ld << 1 | p.rd >> 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::prefix::expand;

    #[test]
    fn the_speedup_over_scalar_follows_the_search_that_runs() {
        let plan = Plan::plain(&Board::empty(12).unwrap());
        let widest = match search_name(&plan, 3).as_str() {
            "avx512" => 4.4,
            "avx2" => 1.7,
            _ => 1.0,
        };
        let speedup = speedup_over_scalar(&plan, 3);
        assert!(speedup == 1.0 || (1.0 < speedup && speedup < widest), "{speedup}");
        // Fewer than three rows left: no lanes, the scalar search.
        assert_eq!((search_name(&plan, 10).as_str(), speedup_over_scalar(&plan, 10)), ("scalar", 1.0));
        // Empty 21x21 suits the lanes of either width from row 7 down (the stack).
        let big = Plan::plain(&Board::empty(21).unwrap());
        let below = ["avx512 from row 7", "avx2 from row 7", "scalar"];
        assert!(below.contains(&search_name(&big, 3).as_str()), "{}", search_name(&big, 3));
        // There the scalar way down to row 7 slows the whole by its share of the nodes.
        if search_name(&big, 3) != "scalar" {
            assert!((1.0..speedup_over_scalar(&big, 7)).contains(&speedup_over_scalar(&big, 3)));
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn lanes_and_the_scalar_search_agree_node_for_node() {
        let isas = lanes::Isa::available_to_test("lanes_and_the_scalar_search_agree_node_for_node");
        // Random obstacles, with and without the symmetry split's due columns; prefixes a
        // few rows down, and as many as a count takes, where two of the split's boards fit
        // one table of eight lanes too.
        let mut rng = crate::rng::Rng::new(3);
        for n in [6, 9, 12, 13] {
            for density in [0.0, 0.05, 0.15] {
                let board = Board::from_fn(n, |_, _| !rng.chance(density)).unwrap();
                for plan in [Plan::plain(&board), Plan::optimized(&board)] {
                    for min in [1, 300, 16 * 1024] {
                        let prefixes = expand(&plan, min);
                        if prefixes.depth + 3 > n {
                            continue;
                        }
                        let depth = prefixes.depth;
                        let scalar = Search::Scalar.run(&plan, depth, prefixes.items.iter().copied(), &Control::default()).unwrap();
                        // The same plan without due columns, for lanes that leave them out.
                        let undue = Plan { due: vec![vec![0; n]; plan.boards.len()], ..plan.clone() };
                        let scalar_undue = Search::Scalar.run(&undue, depth, prefixes.items.iter().copied(), &Control::default()).unwrap();
                        for &isa in &isas {
                            let lanes = lanes::Lanes::new(isa, &plan, depth).expect("three rows to search");
                            let fast = lanes.count(&plan, depth, prefixes.items.iter().copied(), &Control::default()).unwrap();
                            let want = if lanes.uses_due() { scalar } else { scalar_undue };
                            assert_eq!(fast, want, "{isa:?} n={n} density={density} min={min}");
                            assert_eq!(fast.solutions, scalar.solutions);
                        }
                    }
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn lanes_below_the_prefixes_agree_with_the_scalar_search() {
        let isas = lanes::Isa::available_to_test("lanes_below_the_prefixes_agree_with_the_scalar_search");
        // Boards too large for the lanes at the prefixes' row, with obstacles enough to
        // keep the search small; some prefixes have no prefix below them.
        let mut rng = crate::rng::Rng::new(5);
        let mut found = 0;
        for n in [20, 21, 22] {
            let board = Board::from_fn(n, |_, _| !rng.chance(0.6)).unwrap();
            for plan in [Plan::plain(&board), Plan::optimized(&board)] {
                let prefixes = expand(&plan, 40);
                let depth = prefixes.depth;
                let scalar = Search::Scalar.run(&plan, depth, prefixes.items.iter().copied(), &Control::default()).unwrap();
                let undue = Plan { due: vec![vec![0; n]; plan.boards.len()], ..plan.clone() };
                let scalar_undue = Search::Scalar.run(&undue, depth, prefixes.items.iter().copied(), &Control::default()).unwrap();
                for &isa in &isas {
                    let row = (depth..n).find(|&row| lanes::suits(isa, &plan, row)).expect("a row that suits the lanes");
                    assert!(row > depth, "n={n}: the lanes fit at the prefixes' row {depth}");
                    let lanes = lanes::Lanes::new(isa, &plan, row).unwrap();
                    let want = if lanes.uses_due() { scalar } else { scalar_undue };
                    let search = Search::Lanes(lanes, row, 2.0);
                    let fast = search.run(&plan, depth, prefixes.items.iter().copied(), &Control::default()).unwrap();
                    assert_eq!(fast, want, "{isa:?} n={n} from row {depth} to {row}");
                    assert_eq!(fast.solutions, scalar.solutions);
                }
                found += scalar.solutions;
            }
        }
        assert!(found > 0);
    }

    #[test]
    fn heavy_prefixes_made_finer_count_the_same() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        for board in [Board::empty(13).unwrap(), Board::from_fn(14, |r, c| (r * 7 + c * 3) % 11 != 0).unwrap()] {
            for plan in [Plan::plain(&board), Plan::optimized(&board)] {
                let base = expand(&plan, 500);
                let mut work = vec![1.0; base.items.len()];
                work.iter_mut().step_by(50).for_each(|w| *w = 2000.0);
                assert!(pieces::finer(&plan, &base, &work, 4).prefixes.depth > base.depth);
                let ctl = Control::default();
                let even = pool.install(|| count(&plan, &base, &[], Schedule::Dynamic, &ctl)).unwrap();
                let finer = pool.install(|| count(&plan, &base, &work, Schedule::Dynamic, &ctl)).unwrap();
                assert_eq!(finer.solutions, even.solutions);
            }
        }
    }

    #[test]
    fn one_thread_or_one_chunk_counts_as_the_pool_does() {
        let plan = Plan::optimized(&Board::from_fn(12, |r, c| (r * 7 + c * 3) % 11 != 0).unwrap());
        let pool = |threads| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let (one, three) = (pool(1), pool(3));
        // One chunk of either schedule, and many.
        for least in [1, 12, 3000] {
            let prefixes = expand(&plan, least);
            for schedule in [Schedule::Static, Schedule::Dynamic] {
                let ctl = Control::default();
                let alone = one.install(|| count(&plan, &prefixes, &[], schedule, &ctl)).unwrap();
                let shared = three.install(|| count(&plan, &prefixes, &[], schedule, &ctl)).unwrap();
                let scalar = Search::Scalar.run(&plan, prefixes.depth, prefixes.items.iter().copied(), &ctl).unwrap();
                assert_eq!(alone, shared, "{schedule:?}, {} prefixes", prefixes.items.len());
                assert_eq!(alone.solutions, scalar.solutions, "{schedule:?}, {} prefixes", prefixes.items.len());
            }
        }
    }

    #[test]
    fn weighted_sums_do_not_wrap() {
        // 92 solutions of weight 2^33 each: past 32 bits, as the count of an empty 19x19 is.
        let mut plan = Plan::plain(&Board::empty(8).unwrap());
        plan.weights = vec![1 << 33];
        let got = count(&plan, &expand(&plan, 100), &[], Schedule::Dynamic, &Control::default()).unwrap();
        assert_eq!(got.solutions, 92 << 33);
        // And past 64 bits, which no 64-bit sum could hold.
        plan.weights = vec![u64::MAX];
        let got = count(&plan, &expand(&plan, 100), &[], Schedule::Dynamic, &Control::default()).unwrap();
        assert_eq!(got.solutions, 92 * u128::from(u64::MAX));
    }

    #[test]
    fn a_cancelled_count_stops_with_an_error() {
        let plan = Plan::plain(&Board::empty(10).unwrap());
        let ctl = Control::default();
        ctl.cancel();
        assert!(count(&plan, &expand(&plan, 100), &[], Schedule::Dynamic, &ctl).is_err());
    }
}
