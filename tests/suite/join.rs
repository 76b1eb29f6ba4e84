//! The last rows joined against a table (`--method join`) against the oracle, OEIS and the
//! search: random boards with and without symmetry, every band's height and instruction set,
//! bounds too small to keep the sets, some boards searched and others joined, many threads.

use crate::common::{a000170, oracle, random_board, symmetric_board, Rng};
use nqueen::board::Board;
use nqueen::control::Control;
use nqueen::cpu::{self, Schedule};
use nqueen::isa::Isa;
use nqueen::plan::Plan;
use nqueen::prefix;
use nqueen::solve::{BackendChoice, Options, Solver};
use nqueen::symmetry::Sym;
use nqueen::table::{model, Method, Table};
use proptest::prelude::*;

/// Every instruction set the joins can use here: the scalar code and each this CPU has.
fn instruction_sets() -> Vec<Option<Isa>> {
    std::iter::once(None).chain(Isa::available().into_iter().map(Some)).collect()
}

/// `plan`'s count from prefixes at least `min` strong, its last `k` rows joined for the
/// boards `joined` says, in `isa`, within `bound` bytes.
fn count_joined(plan: &Plan, min: usize, k: usize, joined: &[bool], bound: usize, isa: Option<Isa>) -> u128 {
    let prefixes = prefix::expand(plan, min);
    let table = Table::with_isa(plan, k, joined, bound, isa);
    cpu::count(plan, &prefixes, &[], Schedule::Dynamic, Some(&table), &Control::default()).expect("not cancelled").solutions
}

/// A solver on the CPU that joins every board it can.
fn joining(no_symmetry: bool) -> Solver {
    Solver::new(Options { backend: BackendChoice::Cpu, method: Method::Join, no_symmetry, ..Options::default() })
}

fn board_strategy() -> impl Strategy<Value = Board> {
    (4usize..=11, 0u32..=40, any::<u64>()).prop_map(|(n, percent, seed)| random_board(&mut Rng::new(seed), n, percent as f64 / 100.0))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn joins_match_the_oracle_on_random_boards_at_every_band_height(board in board_strategy(), min in 1usize..60) {
        let want = u128::from(oracle(&board));
        for plan in [Plan::plain(&board), Plan::optimized(&board)] {
            let depth = prefix::expand(&plan, min).depth;
            for k in model::rows_allowed(&plan, depth) {
                let all = vec![true; plan.boards.len()];
                for isa in instruction_sets() {
                    let got = count_joined(&plan, min, k, &all, 1 << 30, isa);
                    prop_assert_eq!(got, want, "k={} depth={} {:?}\n{}", k, depth, isa, board.to_text());
                }
            }
        }
    }

    #[test]
    fn the_solver_joins_to_the_oracle_count(board in board_strategy()) {
        let want = u128::from(oracle(&board));
        for no_symmetry in [false, true] {
            let got = joining(no_symmetry).solve(&board, &Control::default()).unwrap().count;
            prop_assert_eq!(got, want, "no_symmetry={}\n{}", no_symmetry, board.to_text());
        }
    }
}

#[test]
fn joined_empty_boards_match_oeis_a000170() {
    let a000170 = a000170();
    for n in 4..=14 {
        for no_symmetry in [false, true] {
            let report = joining(no_symmetry).solve(&Board::empty(n).unwrap(), &Control::default()).unwrap();
            assert_eq!(report.count, u128::from(a000170[n - 1]), "n={n} no_symmetry={no_symmetry}");
            if n >= 11 {
                assert!(report.table.is_some(), "n={n}: --method join searched");
            }
        }
    }
}

#[test]
fn sets_past_the_bound_are_counted_without_being_kept() {
    let mut rng = Rng::new(11);
    for n in [10, 12, 13] {
        let board = random_board(&mut rng, n, 0.08);
        let want = u128::from(oracle(&board));
        for plan in [Plan::plain(&board), Plan::optimized(&board)] {
            let all = vec![true; plan.boards.len()];
            for bound in [0, 4096, 1 << 20] {
                for isa in instruction_sets() {
                    assert_eq!(count_joined(&plan, 50, 5, &all, bound, isa), want, "n={n} bound={bound} {isa:?}");
                }
            }
        }
    }
}

#[test]
fn some_boards_joined_and_the_rest_searched_add_up() {
    let mut rng = Rng::new(12);
    for n in [9, 11, 12] {
        for group in [&[Sym::Identity, Sym::FlipColumns][..], &Sym::ALL[..]] {
            let board = symmetric_board(&mut rng, n, group, 0.05);
            let want = u128::from(oracle(&board));
            let plan = Plan::optimized(&board);
            let joined: Vec<bool> = (0..plan.boards.len()).map(|_| rng.chance(0.5)).collect();
            for k in [3, 4, n / 2] {
                assert_eq!(count_joined(&plan, 40, k, &joined, 1 << 30, Isa::chosen()), want, "n={n} k={k} boards={}", plan.boards.len());
            }
        }
    }
}

#[test]
fn many_threads_share_one_table_and_count_the_same() {
    let board = Board::from_fn(13, |r, c| (r * 3 + c * 5) % 17 != 0).unwrap();
    let want = u128::from(oracle(&board));
    let plan = Plan::plain(&board);
    let prefixes = prefix::expand(&plan, 500);
    let table = Table::new(&plan, 6, &[true], 1 << 30);
    for threads in [1, 3, 8] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for schedule in [Schedule::Dynamic, Schedule::Static] {
            let got = pool.install(|| cpu::count(&plan, &prefixes, &[], schedule, Some(&table), &Control::default())).unwrap();
            assert_eq!(got.solutions, want, "threads={threads} {schedule:?}");
        }
    }
    // Counted four times with one table: every set was made once, by the first count.
    let sizes = table.sizes();
    assert!(sizes.sets > 0 && sizes.sets <= u64::from(nqueen_binom(13, 6)), "{sizes:?}");
}

/// `binom(a, b)`.
fn nqueen_binom(a: u32, b: u32) -> u32 {
    (0..b).fold(1u64, |acc, i| acc * u64::from(a - i) / u64::from(i + 1)) as u32
}

#[test]
fn a_cancelled_join_stops_with_an_error() {
    let plan = Plan::plain(&Board::empty(12).unwrap());
    let table = Table::new(&plan, 6, &[true], 1 << 30);
    let ctl = Control::default();
    ctl.cancel();
    assert!(cpu::count(&plan, &prefix::expand(&plan, 100), &[], Schedule::Dynamic, Some(&table), &ctl).is_err());
}
