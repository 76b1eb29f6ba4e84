//! A model of what the square's symmetry split costs in search nodes on empty boards, and
//! of the rules that might cut them: exact node counts of every board of a plan, with the
//! searches' own rules (a queen placed is a node; down only where the row after next keeps
//! a cell; the last two rows in closed form), so that its figures match `--stats`.
//!
//!     cargo run --release --example split_model -- nodes 14 15 16
//!     cargo run --release --example split_model -- kinds 16
//!     cargo run --release --example split_model -- frames 14
//!     cargo run --release --example split_model -- dives 16 32,64
//!     cargo run --release --example split_model -- rows 16
//!
//! - `nodes`: the plain tree, the split as made, turned (each board to its quarter turn of
//!   smallest estimated tree, as `Plan::turned`), and turned the best way by exact count;
//!   each with and without the due columns, and nodes a solution against the plain tree's
//!   eighth. Empty 16: plain 881.0M; split 227.5M, turned 168.4M (5.23x; `--stats` 168.36M),
//!   best turn 166.8M; with due columns 197.3M, 157.5M (5.59x).
//! - `kinds`: the turned split's nodes per kind of board (the corner boards, one board per
//!   top column, the tied frames) and the nodes each spends a solution it stands for. Empty
//!   16: 59.6 a solution for the plain tree; 71 to 94 for the corner and top-column boards
//!   but 118 to 858 for top columns 4 to 6 and the tied frames. With the due columns, each
//!   kind keeps 0.94 to 1.0 of its nodes but top columns 4 to 6 (0.85, 0.52, 0.24): due
//!   columns on those boards alone would save 2.8% of the nodes.
//! - `frames`: every frame fixed, one board a frame (4 queens placed): 2.6x fewer nodes
//!   than plain at 14 and 15 as split, 4.6x turned the best way, against the split's 3.8x
//!   and 5.2x: the rows above the side queens are searched again for each frame.
//! - `dives`: turning by estimates of so many dives: the nodes the chosen turns cost and
//!   the time the estimates take.
//! - `rows`: the turned split's nodes by row, and what a band of the last k rows counted by
//!   table would replace: the nodes in its rows above the closed form, against the partial
//!   boards at its top that would each be joined against the band's table.

use std::time::Instant;

use nqueen::board::{due_columns, last_two_rows, next_cells, Board};
use nqueen::estimate;
use nqueen::plan::Plan;
use nqueen::square::Sym;

/// The quarter turns: a board and its mirror image have the same tree.
const TURNS: [Sym; 4] = [Sym::Identity, Sym::Rot90, Sym::Rot180, Sym::Rot270];

/// Exact (solutions, nodes) of the board `rows` from row 0, due columns honoured where
/// `due`, nodes counted by row into `by_row` where given.
fn exact_by_row(rows: &[u32], due: bool, mut by_row: Option<&mut [u64]>) -> (u64, u64) {
    fn go(rows: &[u32], d: &[u32], row: usize, (cols, ld, rd): (u32, u32, u32), acc: &mut (u64, u64), by_row: &mut Option<&mut [u64]>) {
        let n = rows.len();
        let mut avail = next_cells(rows[row], d[row], cols, ld, rd);
        while avail != 0 {
            let bit = avail & avail.wrapping_neg();
            avail ^= bit;
            acc.1 += 1;
            if let Some(by_row) = by_row {
                by_row[row] += 1;
            }
            let (nc, nl, nr) = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
            if row + 3 == n {
                let a = next_cells(rows[row + 1], d[row + 1], nc, nl, nr);
                acc.0 += last_two_rows(a, rows[row + 2] & !(nc | nl << 1 | nr >> 1));
            } else if rows[row + 2] & !(nc | nl << 1 | nr >> 1) != 0 {
                go(rows, d, row + 1, (nc, nl, nr), acc, by_row);
            }
        }
    }
    let n = rows.len();
    let d = if due { due_columns(rows) } else { vec![0; n] };
    let mut acc = (0, 0);
    if n >= 3 {
        go(rows, &d, 0, (0, 0, 0), &mut acc, &mut by_row);
    }
    acc
}

fn exact(rows: &[u32], due: bool) -> (u64, u64) {
    exact_by_row(rows, due, None)
}

/// The plan's (weighted solutions, nodes).
fn plan_nodes(boards: &[Vec<u32>], weights: &[u64], due: bool) -> (u64, u64) {
    boards.iter().zip(weights).fold((0, 0), |(s, k), (rows, &w)| {
        let (s2, k2) = exact(rows, due);
        (s + s2 * w, k + k2)
    })
}

/// The fewest nodes any quarter turn of `rows` costs.
fn best_turn(n: usize, rows: &[u32], due: bool) -> u64 {
    let board = Board::from_rows(n, rows.to_vec()).expect("a plan's board");
    TURNS.iter().map(|&g| exact(board.transformed(g).rows(), due).1).min().expect("four turns")
}

fn split(n: usize) -> Plan {
    Plan::symmetric(&Board::empty(n).expect("a side of 1 to 32"), Sym::Identity)
}

fn nodes(n: usize) {
    let (solutions, plain) = exact(Board::empty(n).expect("a side").rows(), false);
    println!("n={n}: {solutions} solutions, plain tree {plain} nodes, {:.1} a solution", plain as f64 / solutions as f64);
    let made = split(n);
    let turned = made.clone().turned();
    for due in [false, true] {
        let (s1, as_made) = plan_nodes(&made.boards, &made.weights, due);
        let (s2, by_turn) = plan_nodes(&turned.boards, &turned.weights, due);
        assert_eq!((s1, s2), (solutions, solutions));
        let best: u64 = made.boards.iter().map(|rows| best_turn(n, rows, due)).sum();
        let show = |k: u64| format!("{k} ({:.2}x, {:.1} a solution)", plain as f64 / k as f64, k as f64 * 8.0 / solutions as f64);
        println!("  due={due}: split {}; turned {}; best turn {}", show(as_made), show(by_turn), show(best));
    }
}

fn kinds(n: usize) {
    let made = split(n);
    let turned = made.clone().turned();
    let mut kinds: std::collections::BTreeMap<String, (usize, u64, u64, u64)> = Default::default();
    for ((rows, trows), &w) in made.boards.iter().zip(&turned.boards).zip(&made.weights) {
        let kind = if rows[0] == 1 {
            "corner".to_string()
        } else if rows[n - 1].count_ones() == 1 {
            format!("tied, weight {w}")
        } else {
            format!("top column {}", rows[0].trailing_zeros())
        };
        let ((s, k), (_, kd)) = (exact(trows, false), exact(trows, true));
        let entry = kinds.entry(kind).or_default();
        *entry = (entry.0 + 1, entry.1 + k, entry.2 + s * w, entry.3 + kd);
    }
    let (solutions, plain) = exact(Board::empty(n).expect("a side").rows(), false);
    println!("n={n}: the plain tree {:.1} nodes a solution", plain as f64 / solutions as f64);
    for (kind, (boards, nodes, sols, due)) in kinds {
        println!(
            "  {kind:16} boards {boards:4}  nodes {nodes:12}  {:.1} a solution it stands for; due columns {due:12} ({:.3})",
            nodes as f64 * 8.0 / sols.max(1) as f64,
            due as f64 / nodes.max(1) as f64
        );
    }
}

fn attacks(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 == b.0 || a.1 == b.1 || a.0.abs_diff(b.0) == a.1.abs_diff(b.1)
}

/// Every frame of the empty board fixed, least in its orbit, weighted by its orbit.
fn frames(n: usize) {
    let m = n - 1;
    let key = |cells: &[(usize, usize)]| {
        let mut v = cells.to_vec();
        v.sort_unstable();
        v.dedup();
        v
    };
    let frame = |cells: &[(usize, usize)]| -> Option<[usize; 4]> {
        let on = |f: &dyn Fn(&(usize, usize)) -> bool, pick: &dyn Fn(&(usize, usize)) -> usize| {
            let mut it = cells.iter().filter(|c| f(c));
            let first = it.next().map(pick);
            if it.next().is_some() {
                None
            } else {
                first
            }
        };
        Some([on(&|c| c.0 == 0, &|c| c.1)?, on(&|c| c.0 == m, &|c| c.1)?, on(&|c| c.1 == 0, &|c| c.0)?, on(&|c| c.1 == m, &|c| c.0)?])
    };
    let (mut boards, mut sols, mut as_fixed, mut best) = (0, 0u64, 0u64, 0u64);
    for p in 0..n * n * n * n {
        let (a, b, c, d) = (p % n, p / n % n, p / n / n % n, p / n / n / n);
        let cells = key(&[(0, a), (m, b), (c, 0), (d, m)]);
        let apart = (0..cells.len()).all(|i| (i + 1..cells.len()).all(|j| !attacks(cells[i], cells[j])));
        if !apart || frame(&cells) != Some([a, b, c, d]) {
            continue;
        }
        let images: Vec<[usize; 4]> =
            Sym::ALL.iter().filter_map(|&g| frame(&key(&cells.iter().map(|&(r, k)| g.apply(n, r, k)).collect::<Vec<_>>()))).collect();
        if images.iter().any(|i| *i < [a, b, c, d]) {
            continue;
        }
        let mut orbit = images.clone();
        orbit.sort_unstable();
        orbit.dedup();
        let board = Board::from_fn(n, |r, k| cells.iter().all(|&q| q == (r, k) || !attacks(q, (r, k)))).expect("a side");
        let (s, k) = exact(board.rows(), false);
        boards += 1;
        sols += s * orbit.len() as u64;
        as_fixed += k;
        best += best_turn(n, board.rows(), false);
    }
    let (solutions, plain) = exact(Board::empty(n).expect("a side").rows(), false);
    assert_eq!(sols, solutions);
    println!(
        "n={n}: {boards} frames; as fixed {as_fixed} nodes ({:.2}x fewer than plain), best turn {best} ({:.2}x)",
        plain as f64 / as_fixed as f64,
        plain as f64 / best as f64
    );
}

fn dives(n: usize, counts: &[u32]) {
    let made = split(n);
    let mut line = format!("n={n}:");
    for &d in counts {
        let started = Instant::now();
        let picks: Vec<Vec<u32>> = made
            .boards
            .iter()
            .map(|rows| {
                let board = Board::from_rows(n, rows.clone()).expect("a plan's board");
                let looks = TURNS.iter().map(|&g| board.transformed(g).rows().to_vec());
                looks.min_by(|a, b| estimate::tree(a, d).total_cmp(&estimate::tree(b, d))).expect("four turns")
            })
            .collect();
        let took = started.elapsed();
        let nodes: u64 = picks.iter().map(|rows| exact(rows, false).1).sum();
        line += &format!(" | {d} dives: {nodes} nodes, estimates {took:.1?}");
    }
    println!("{line}");
}

fn rows(n: usize) {
    let turned = split(n).turned();
    let mut by_row = vec![0u64; n];
    for rows in &turned.boards {
        exact_by_row(rows, false, Some(&mut by_row));
    }
    let total: u64 = by_row.iter().sum();
    println!("n={n}: {total} nodes");
    for (r, k) in by_row.iter().enumerate().take(n - 2) {
        println!("  row {r:2}: {k:12} {:5.1}%", *k as f64 * 100.0 / total as f64);
    }
    for k in 3..=7.min(n - 1) {
        // A band of the last k rows: rows n-k..n-3 searched today, joined at row n-k.
        let replaced: u64 = by_row[n - k..n - 2].iter().sum();
        let joins = by_row[n - k - 1];
        println!(
            "  band of {k}: replaces {:.1}% of the nodes, {:.2} nodes a join over {joins} joins",
            replaced as f64 * 100.0 / total as f64,
            replaced as f64 / joins as f64
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sides = |from: usize| args.iter().skip(from).filter_map(|a| a.parse::<usize>().ok()).filter(|n| (4..=20).contains(n));
    match args.first().map(String::as_str) {
        Some("nodes") => sides(1).for_each(nodes),
        Some("kinds") => sides(1).for_each(kinds),
        Some("frames") => sides(1).for_each(frames),
        Some("rows") => sides(1).for_each(rows),
        Some("dives") => {
            let counts: Vec<u32> = args.last().map_or(vec![32, 64], |l| l.split(',').filter_map(|d| d.parse().ok()).collect());
            args.get(1).and_then(|n| n.parse().ok()).into_iter().for_each(|n| dives(n, &counts));
        }
        _ => eprintln!("usage: split_model nodes|kinds|frames|rows N... | dives N COUNTS"),
    }
}
