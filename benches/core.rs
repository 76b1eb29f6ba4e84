//! Criterion benchmarks of the parts: the counting core (nodes per second), the parser
//! (bytes per second) and prefix expansion. Run with `cargo bench`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use nqueen::board::Board;
use nqueen::control::Control;
use nqueen::cpu::{self, Schedule};
use nqueen::parse::Parser;
use nqueen::plan::Plan;
use nqueen::prefix;

/// A fixed board with a sprinkle of obstacles, the same on every run.
fn sprinkled(n: usize) -> Board {
    Board::from_fn(n, |r, c| (r * 7 + c * 13) % 17 != 0).expect("n within range")
}

fn counting_core(c: &mut Criterion) {
    let mut group = c.benchmark_group("count");
    group.sample_size(10);
    for (name, board) in [("empty_12", Board::empty(12).unwrap()), ("sprinkled_13", sprinkled(13))] {
        let plan = Plan::plain(&board);
        let prefixes = prefix::expand(&plan, prefix::cpu_target(None));
        let ctl = Control::default();
        // Nodes are fixed for a board, so elements/s here is nodes per second.
        let nodes = cpu::count(&plan, &prefixes, &[], Schedule::default(), &ctl).expect("not cancelled").nodes;
        group.throughput(Throughput::Elements(u64::try_from(nodes).expect("a benchmark board's nodes fit in 64 bits")));
        group.bench_function(name, |b| b.iter(|| cpu::count(&plan, &prefixes, &[], Schedule::default(), &ctl)));
    }
    group.finish();
}

/// 188,857 boards of n = 32 whose first row is all obstacles: 200 MB that the planner
/// answers at once, so that reading is all there is to time.
fn blocked_boards() -> Vec<u8> {
    let board = format!("32\n{}\n{}", "*".repeat(32), format!("{}\n", ".".repeat(32)).repeat(31));
    board.repeat(188_857).into_bytes()
}

fn parser(c: &mut Criterion) {
    let read = |path: &str| std::fs::read(path).expect("run from the repository root");
    let judge = read("fixtures/bench/judge.in").repeat(1000);
    let inputs = [("many_small", read("fixtures/bench/many_small.in")), ("judge_x1000", judge), ("blocked_32_200MB", blocked_boards())];
    let mut group = c.benchmark_group("parse");
    group.sample_size(10);
    for (name, text) in &inputs {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(*name, |b| b.iter(|| Parser::new(text.as_slice()).filter(|r| r.is_ok()).count()));
    }
    group.finish();
}

fn expansion(c: &mut Criterion) {
    let mut group = c.benchmark_group("expand");
    for n in [16, 19] {
        let board = Board::empty(n).unwrap();
        group.bench_function(format!("plain_{n}_to_cpu_target"), |b| {
            b.iter_batched(|| Plan::plain(&board), |plan| prefix::expand(&plan, prefix::cpu_target(None)), BatchSize::SmallInput)
        });
        group.bench_function(format!("symmetric_plan_{n}"), |b| b.iter(|| Plan::optimized(&board)));
    }
    group.finish();
}

criterion_group!(benches, counting_core, parser, expansion);
criterion_main!(benches);
