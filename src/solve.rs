//! One board in, one count out: plans the board and finds the prefixes a count takes
//! (`case`), then hands them to the counter the options call for: the CPU or the GPU
//! (`backend`), or `auto`'s choice between them (`auto`). The rest of the program does not
//! care which backend ran.

mod auto;
mod backend;
mod case;
mod opener;
mod report;

use std::fmt;
use std::io;
use std::time::Instant;

use crate::board::Board;
use crate::control::{Control, Interrupted};
use crate::cpu::Schedule;
use crate::gpu::{Gpu, GpuCountError, GpuError};
use crate::plan::{self, Plan};
use crate::split::Split;
use crate::work::Shard;
use auto::Auto;
use backend::GpuPlan;
use case::Job;
pub use case::{Case, Part, RecordUnit};
use opener::Opener;
pub use report::Report;

/// Which counter to use: the GPU when one is usable and the board is big enough to gain
/// from it (`Auto`, the default), always the CPU, or always the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// The GPU when one is usable and the board is big enough to gain from it.
    #[default]
    Auto,
    /// Always the CPU.
    Cpu,
    /// The GPU for every board but those the planner counts at once: trees under its
    /// small-tree bound (see [`plan::small_count`]), and trees whose first rows, expanded
    /// into prefixes, reach the last row. An error when none is usable.
    Gpu,
}

/// How to solve every board of a run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which counter to use.
    pub backend: BackendChoice,
    /// How the CPU hands out prefixes.
    pub schedule: Schedule,
    /// Skip orientation and symmetry (for testing and timing).
    pub no_symmetry: bool,
    /// GPU ordinals to use; all visible ones when `None`.
    pub devices: Option<Vec<usize>>,
    /// Prefixes to aim for on the GPU; [`crate::gpu::prefix_target`] of the estimated tree when `None`.
    pub gpu_prefixes: Option<usize>,
    /// Hand the GPU driver's teardown to a child process once the GPU is open (see
    /// [`Gpu::hand_over_teardown`]): for a process that exits without dropping its solver.
    pub quick_exit: bool,
}

/// Why a board was not solved.
#[derive(Debug)]
pub enum SolveError {
    /// Cancelled by the user.
    Interrupted,
    /// `--backend gpu` and no usable GPU, or the GPU failed.
    Gpu(GpuError),
    /// A finished unit could not be recorded (see [`Part::record`]).
    Record(io::Error),
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::Interrupted => f.write_str("interrupted"),
            SolveError::Gpu(e) => e.fmt(f),
            SolveError::Record(e) => write!(f, "cannot record a finished unit: {e}"),
        }
    }
}

impl std::error::Error for SolveError {}

impl From<Interrupted> for SolveError {
    fn from(_: Interrupted) -> Self {
        SolveError::Interrupted
    }
}

impl From<GpuCountError> for SolveError {
    fn from(e: GpuCountError) -> Self {
        match e {
            GpuCountError::Interrupted => SolveError::Interrupted,
            GpuCountError::Gpu(e) => SolveError::Gpu(e),
            GpuCountError::Record(e) => SolveError::Record(e),
        }
    }
}

/// Solves boards one after another with fixed options.
pub struct Solver {
    options: Options,
    gpu: Opener,
    auto: Auto,
    /// The last board split for shards, with its plan and split, for the next of its
    /// shards.
    last_split: Option<(Board, Plan, Split)>,
    /// Whether the run ends after the board counted next (see [`Solver::expect_end`]).
    ends: bool,
}

impl Solver {
    /// A solver; with `--backend gpu`, the GPU starts opening in the background at once.
    pub fn new(options: Options) -> Solver {
        let mut gpu = Opener::new(options.devices.clone(), options.quick_exit);
        if options.backend == BackendChoice::Gpu {
            gpu.start();
        }
        Solver { options, gpu, auto: Auto::default(), last_split: None, ends: false }
    }

    /// The GPU, waiting for it to open if need be; an error when none is usable.
    pub fn gpu(&mut self) -> Result<&Gpu, GpuError> {
        self.gpu.wait()
    }

    /// For `auto`: `board` will be counted later, after those before it. If it may need the
    /// GPU, or it and the boards before it would together save more than the GPU's opening
    /// on it, the GPU starts opening in the background now, so that its start-up overlaps
    /// the boards before it.
    pub fn expect(&mut self, board: &Board) {
        if self.options.backend == BackendChoice::Auto
            && auto::may_need_a_gpu(board.n()) && self.gpu.is_idle() && plan::small_count(board).is_none() {
            let cut = if self.options.no_symmetry { 1.0 } else { plan::planning_cut(board) };
            self.auto.expect(&mut self.gpu, board, &Plan::as_is(board), cut);
        }
    }

    /// Says whether the run ends once the board counted next is counted. Then `auto` does
    /// not race a GPU that is still opening: the process cannot end before the opening does,
    /// and a race would only slow it.
    pub fn expect_end(&mut self, ends: bool) {
        self.ends = ends;
    }

    /// Counts the solutions of `board`, all of them.
    pub fn solve(&mut self, board: &Board, ctl: &Control) -> Result<Report, SolveError> {
        match self.solve_small(board) {
            Some(report) => Ok(report),
            None => self.solve_planned(board, ctl),
        }
    }

    /// Counts `board` at once if its whole tree is small (see [`plan::small_count`]), with
    /// no planning, prefixes or thread pool, whatever the backend: the planner has counted
    /// it by the time it would be sent anywhere. `None` for a larger board.
    pub fn solve_small(&mut self, board: &Board) -> Option<Report> {
        let started = Instant::now();
        let (count, nodes) = plan::small_count(board)?;
        let mut report = Report::small(board);
        report.count = u128::from(count);
        report.nodes = u128::from(nodes);
        report.elapsed = started.elapsed();
        report.plan_time = report.elapsed;
        Some(report)
    }

    /// Counts all of `board`, planned, on the backend the options and the board call for:
    /// [`Solver::solve`] for a board [`Solver::solve_small`] does not count.
    pub fn solve_planned(&mut self, board: &Board, ctl: &Control) -> Result<Report, SolveError> {
        let started = Instant::now();
        let case = Case::whole(self.plan(board, 1), false, false, started);
        self.count(board, &case, &Part::all_of(&case), ctl)
    }

    /// Plans all of `board` for a count recorded unit by unit (see [`Part::record`]): as a
    /// plain count plans it, its prefixes estimated and fingerprinted.
    pub fn prepare_whole(&mut self, board: &Board) -> Case {
        let started = Instant::now();
        let small = plan::small_count(board).is_some();
        Case::whole(self.plan(board, 1), true, small, started)
    }

    /// Plans `board` and finds the prefixes of its shard `shard` (see [`crate::split`]),
    /// the same on every machine, estimated for units of work and the progress bar. A
    /// board too small to split lies whole in shard 0. With `auto`, the GPU starts opening
    /// in the background if the shard may need it.
    pub fn prepare(&mut self, board: &Board, shard: Shard) -> Case {
        let started = Instant::now();
        let small = plan::small_count(board).is_some();
        let (plan, split) = match self.last_split.take() {
            Some((b, plan, split)) if b == *board && split.shards() == shard.count => (plan, split),
            _ if small => {
                let plan = Plan::plain(board);
                let split = Split::all_in_first(&plan, shard.count);
                (plan, split)
            }
            _ => {
                let plan = self.plan(board, shard.count);
                let split = Split::new(&plan, shard.count);
                (plan, split)
            }
        };
        let case = Case::of_shard(&plan, &split, shard, small, started);
        self.last_split = Some((board.clone(), plan, split));
        case
    }

    /// The plan to count `board` by, over `shards` shards; with `auto`, the GPU starts
    /// opening in the background as soon as an estimate says a shard may need it.
    fn plan(&mut self, board: &Board, shards: usize) -> Plan {
        let auto = self.options.backend == BackendChoice::Auto;
        let mut expect = |plan: &Plan, cut| {
            if auto {
                auto::open_if_needed(&mut self.gpu, plan, cut, shards);
            }
        };
        let as_is = Plan::as_is(board);
        let plan = if self.options.no_symmetry {
            as_is
        } else {
            expect(&as_is, plan::planning_cut(board));
            Plan::chosen(board, as_is)
        };
        expect(&plan, 1.0);
        plan
    }

    /// Counts the prefixes `part` selects of `case` (the case of `board`), on the backend
    /// the options and the board call for.
    pub fn count(&mut self, board: &Board, case: &Case, part: &Part<'_>, ctl: &Control) -> Result<Report, SolveError> {
        let job = Job::new(case, part);
        let mut report = Report::new(board, &case.plan, &job.prefixes);
        report.plan_time = case.plan_time;
        // A small board's whole tree was walked by the probe that found it small; prefixes
        // that reach the last row are each a solution already.
        let planned_whole = case.small || job.prefixes.depth >= case.plan.n;
        match self.options.backend {
            BackendChoice::Gpu if !planned_whole => {
                let planned = GpuPlan::new(&job, self.options.gpu_prefixes, &mut report);
                planned.count(self.gpu.wait().map_err(SolveError::Gpu)?, &job, ctl, &mut report)?;
            }
            BackendChoice::Auto => self.auto.count(&mut self.gpu, &self.options, (board, &job), self.ends, ctl, &mut report)?,
            BackendChoice::Cpu | BackendChoice::Gpu => backend::count_on_cpu(&job, self.options.schedule, ctl, &mut report)?,
        }
        report.gpu_open = report.kernel_time.and(self.gpu.timing(case.started));
        report.count += part.counted_before.solutions;
        report.nodes += part.counted_before.nodes;
        report.nodes_before = part.counted_before.nodes;
        report.device_seconds += part.device_seconds_before;
        report.elapsed = case.started.elapsed();
        ctl.end();
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::tally::Tally;
    use crate::work::Unit;

    #[test]
    fn small_boards_never_open_the_gpu_and_big_ones_do() {
        let mut solver = Solver::new(Options::default());
        solver.solve(&Board::empty(12).unwrap(), &Control::default()).unwrap();
        assert!(solver.gpu.is_idle());
        solver.expect(&Board::empty(19).unwrap());
        assert!(!solver.gpu.is_idle());
        let forced = Solver::new(Options { backend: BackendChoice::Gpu, ..Options::default() });
        assert!(!forced.gpu.is_idle());
    }

    #[test]
    fn a_recorded_whole_case_is_planned_as_a_plain_count_plans_it() {
        // What a resumed run re-derives is a plain plan and its blocks' estimates, not a split.
        let board = Board::empty(13).unwrap();
        let mut solver = Solver::new(Options { backend: BackendChoice::Cpu, ..Options::default() });
        let recorded = solver.prepare_whole(&board);
        let plain = Case::whole(solver.plan(&board, 1), false, false, Instant::now());
        assert_eq!(recorded.base.items, plain.base.items);
        assert!(recorded.roots.is_empty() && recorded.estimated && !plain.estimated);
        assert_eq!(recorded.work().len(), recorded.base.items.len());
        assert_eq!(recorded.fingerprint.len(), 64);
        assert_eq!(recorded.prefixes_fingerprint(), solver.prepare_whole(&board).prefixes_fingerprint());
        assert_ne!(recorded.fingerprint, solver.prepare_whole(&Board::empty(12).unwrap()).fingerprint);
    }

    #[test]
    fn shards_add_up_to_the_whole_and_units_are_recorded_once() {
        let board = Board::from_fn(11, |r, c| (r * 5 + c * 3) % 13 != 0).unwrap();
        let mut solver = Solver::new(Options { backend: BackendChoice::Cpu, ..Options::default() });
        let whole = solver.solve(&board, &Control::default()).unwrap().count;
        let mut sum = 0;
        for index in 0..5 {
            let case = solver.prepare(&board, Shard { index, count: 5 });
            let recorded = Mutex::new(Vec::new());
            let record = |u: &Unit, t: Tally, _: f64| {
                recorded.lock().unwrap().push((u.clone(), t));
                Ok(())
            };
            let selection = case.all();
            let part = Part {
                selection: selection.clone(),
                counted_before: Tally::default(),
                work_before: 0.0,
                device_seconds_before: 0.0,
                record: Some(&record),
            };
            let report = solver.count(&board, &case, &part, &Control::default()).unwrap();
            let recorded = recorded.into_inner().unwrap();
            assert_eq!(recorded.iter().map(|(_, t)| t.solutions).sum::<u128>(), report.count);
            assert_eq!(recorded.iter().map(|(u, _)| u.len()).sum::<usize>(), selection.len());
            sum += report.count;
        }
        assert_eq!(sum, whole);
    }
}
