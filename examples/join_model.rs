//! The join's model at the sizes it may meet: for empty boards of n = 14..28, split as
//! nqueen plans them (the D4 split, or the plain board with `plain`), and bands of k = 5..10
//! rows, the partial boards that reach the band (joins), the sets of columns they reach and
//! those sets' placements (the table's entries), the placements a join reads on average, the
//! table's bytes, and one thread's seconds by join and by search, as `--method auto` weighs
//! them on an AVX-512 CPU. Up to `exact` (15 by default) the joins and placements are also
//! counted exactly, by a search of every board and band, beside the model's estimates.
//!
//! ```text
//! cargo run --release --example join_model -- [plain] [MAX_N] [EXACT]
//! ```

use std::collections::HashMap;

use nqueen::board::Board;
use nqueen::isa::Isa;
use nqueen::plan::Plan;
use nqueen::prefix;
use nqueen::table::model::{Count, Model};
use nqueen::table::{Method, Table};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let plain = args.iter().any(|a| a == "plain");
    let numbers: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let (max_n, exact_to) = (numbers.first().copied().unwrap_or(28), numbers.get(1).copied().unwrap_or(15));
    println!("| n | boards | k | joins | sets | entries | entries per join | table bytes | join s | search s | counted: joins, entries, per join |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for n in 14..=max_n {
        let board = Board::empty(n).expect("a board size");
        let plan = if plain { Plan::plain(&board) } else { Plan::optimized(&board) };
        let depth = prefix::expand(&plan, prefix::cpu_target(plan.expected_nodes)).depth;
        let count = Count { plan: &plan, depth, part: None, bound: usize::MAX / 4, threads: 1, isa: Some(Isa::Avx512) };
        let model = Model::new(count);
        for k in 5..=10 {
            let Some(c) = model.at(k, Method::Join) else { continue };
            let exact = if n <= exact_to { counted(&plan, k) } else { String::from("(sampled only)") };
            println!(
                "| {n} | {} | {k} | {:.3e} | {:.3e} | {:.3e} | {:.0} | {:.3e} | {:.3e} | {:.3e} | {exact} |",
                plan.boards.len(),
                c.joins,
                c.sets,
                c.entries,
                c.per_join,
                c.bytes,
                c.seconds,
                c.search_seconds
            );
        }
    }
}

/// The joins, the placements of the sets they reach, and the placements a join reads, by
/// searching every board down to the band and every band's sets.
fn counted(plan: &Plan, k: usize) -> String {
    let n = plan.n;
    let (bands, of_board) = Table::bands_of(plan, k, &vec![true; plan.boards.len()]);
    let mut sets: HashMap<(u32, u32), u64> = HashMap::new();
    let (mut joins, mut read) = (0u64, 0u64);
    for (b, rows) in plan.boards.iter().enumerate() {
        let band = of_board[b];
        let mut reach = |cols: u32| {
            let set = !cols & (u32::MAX >> (32 - n));
            let m = *sets.entry((band, set)).or_insert_with(|| placements(&bands[band as usize], set, 0, (0, 0, 0)));
            joins += 1;
            read += m;
        };
        down(rows, 0, n - k, (0, 0, 0), &mut reach);
    }
    let entries: u64 = sets.values().sum();
    format!("{joins:.3e}, {entries:.3e}, {:.0}", read as f64 / joins.max(1) as f64)
}

/// Calls `reach` with the columns of every partial board of `rows` at row `top`, from row
/// `row` with columns and attacks `(cols, ld, rd)`, pruned as the search prunes: a queen that
/// leaves the row after next no cell goes no further.
fn down(rows: &[u32], row: usize, top: usize, (cols, ld, rd): (u32, u32, u32), reach: &mut impl FnMut(u32)) {
    let mut cells = rows[row] & !(cols | ld | rd);
    while cells != 0 {
        let bit = cells & cells.wrapping_neg();
        cells ^= bit;
        let (c, l, r) = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
        if rows[row + 2] & !(c | l << 1 | r >> 1) == 0 {
            continue;
        }
        if row + 1 == top {
            reach(c);
        } else {
            down(rows, row + 1, top, (c, l, r), reach);
        }
    }
}

/// The placements of `band`'s rows from `row` on in exactly the columns of `set`.
fn placements(band: &[u32], set: u32, row: usize, (cols, ld, rd): (u32, u32, u32)) -> u64 {
    if row == band.len() {
        return 1;
    }
    let mut cells = band[row] & set & !(cols | ld | rd);
    let mut total = 0;
    while cells != 0 {
        let bit = cells & cells.wrapping_neg();
        cells ^= bit;
        total += placements(band, set, row + 1, (cols | bit, (ld | bit) << 1, (rd | bit) >> 1));
    }
    total
}
