//! One board in, one count out: plans the board and finds the prefixes a count takes
//! (`case`), then hands them to the counter the options call for: the CPU or the GPU
//! (`backend`), or `auto`'s choice between them (`auto`). The rest of the program does not
//! care which backend ran.

mod auto;
mod backend;
mod case;
mod opener;
mod options;
mod report;
mod sieves;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use crate::board::Board;
use crate::control::Control;
use crate::error::Error;
use crate::plan::{self, Plan};
use crate::split::{Root, Split, Weights};
use crate::tuning::ONE_THREAD_NODES;
use crate::work::Shard;
use auto::Auto;
use backend::GpuPlan;
use case::Job;
pub use case::{Case, Part, RecordUnit};
use opener::Opener;
pub use options::{Backend, Options, Scope};
pub use report::Report;
use sieves::Sieves;
pub use sieves::SIEVE_VARIABLE;

/// Solves boards one after another with fixed options: prepares a case (plans a board and
/// finds the prefixes a count of it takes), counts a part of a prepared case, or counts a
/// board whole. A count that is written down as it goes prepares its case and counts it;
/// one that is not solves the board.
pub struct Solver {
    options: Options,
    gpu: Opener,
    auto: Auto,
    /// The last board split for shards, for the next of its shards.
    last_split: Option<LastSplit>,
    /// The CPU's name for a count of the plan's prefixes at a depth, as last made: its
    /// shards that hold nothing are named without a search being set up for each.
    cpu_name: Option<(Arc<Plan>, usize, String)>,
    sieves: Sieves,
}

/// Shards whose roots one walk down a board's tree finds, at most: their roots wait for
/// their turn.
pub const AHEAD: usize = 1024;

/// A board split for shards: whether it is small (see [`plan::small_count`]), its plan and
/// its split, with the weights of the nodes its shards' walks have weighed so far and the
/// roots of the shards found ahead of their turn: the shards of one board are planned
/// together, not each again.
pub(super) struct LastSplit {
    board: Board,
    small: bool,
    pub(super) plan: Arc<Plan>,
    pub(super) split: Split,
    pub(super) fingerprint: String,
    weights: Weights,
    ahead: HashMap<usize, Vec<Root>>,
}

impl LastSplit {
    /// The roots of shard `shard`: found ahead, or now, beside those of the first of
    /// `ahead`, the shards listed after it.
    pub(super) fn roots(&mut self, shard: usize, ahead: &[usize]) -> Vec<Root> {
        if let Some(roots) = self.ahead.remove(&shard) {
            return roots;
        }
        let mut walk: Vec<usize> = std::iter::once(shard).chain(ahead.iter().copied().take(AHEAD - 1)).collect();
        walk.sort_unstable();
        walk.dedup();
        let found = self.split.roots_of(&self.plan, &walk, &mut self.weights);
        self.ahead = walk.into_iter().zip(found).collect();
        self.ahead.remove(&shard).unwrap_or_default()
    }
}

impl Solver {
    /// A solver; with `Backend::Gpu`, the GPU starts opening in the background at once.
    pub fn new(options: Options) -> Solver {
        let mut gpu = Opener::new(options.devices.clone(), options.quick_exit);
        if options.backend == Backend::Gpu {
            gpu.start();
        }
        Solver { options, gpu, auto: Auto::default(), last_split: None, cpu_name: None, sieves: Sieves::default() }
    }

    /// With `Backend::Gpu`, waits for the GPU to open: an error when none is usable. With
    /// the other backends, nothing to wait for.
    pub fn gpu_ready(&mut self) -> Result<(), Error> {
        match self.options.backend {
            Backend::Gpu => self.gpu.wait().map(|_| ()).map_err(Error::NoGpu),
            Backend::Auto | Backend::Cpu => Ok(()),
        }
    }

    /// Whether this solver has loaded the CUDA driver: the GPU open, opening, or tried. A
    /// process that did must not run its exit handlers (see `nqueen::app::exit`).
    pub fn driver_loaded(&self) -> bool {
        !self.gpu.is_idle()
    }

    /// For `auto`: `board` will be counted later, after those before it. If it may need the
    /// GPU, or it and the boards before it would together save more than the GPU's opening
    /// on it, the GPU starts opening in the background now, so that its start-up overlaps
    /// the boards before it.
    /// A board queued also tells whether its side's boards would pay for a sieve.
    pub fn look_ahead(&mut self, board: &Board) {
        if self.sieving() {
            self.sieves.queue(board);
        }
        if self.options.backend == Backend::Auto
            && auto::may_need_a_gpu(board.n())
            && self.gpu.is_idle()
            && plan::small_count(board).is_none()
        {
            let cut = if self.options.no_symmetry { 1.0 } else { plan::planning_cut(board) };
            self.auto.expect(&mut self.gpu, board, &Plan::as_is(board), cut);
        }
    }

    /// No board will come after those given to [`Solver::look_ahead`]: for `auto`, the
    /// boards counted so far no longer stand for boards to come, and only those left can
    /// repay opening the GPU.
    pub fn no_more_boards(&mut self) {
        self.auto.end_known();
    }

    /// `board`, given earlier to [`Solver::look_ahead`] or not, is taken to be counted.
    pub fn taken(&mut self, board: &Board) {
        self.sieves.taken(board);
    }

    /// Whether boards may be counted by sieve: not where the options ask for the plain
    /// search or the GPU, or [`SIEVE_VARIABLE`] turns sieves off.
    fn sieving(&self) -> bool {
        !self.options.no_sieve && !self.options.no_symmetry && self.options.backend != Backend::Gpu && !sieves::switched_off()
    }

    /// The report of `board` counted whole by the sieve of its side, where that is faster
    /// than a search (see [`crate::sieve`]); `None` where it is to be searched.
    pub fn sieved(&mut self, board: &Board) -> Option<Report> {
        if !self.sieving() {
            return None;
        }
        let started = Instant::now();
        let sieved = self.sieves.count(board)?;
        let mut report = Report::small(board);
        report.count = u128::from(sieved.count);
        report.prefixes = 0;
        report.backend = format!("cpu(sieve of the empty board's {} solutions)", sieved.solutions).into();
        report.sieve_time = sieved.made_in;
        report.elapsed = started.elapsed();
        report.device_seconds = report.elapsed.as_secs_f64();
        Some(report)
    }

    /// Counts all of `board`: at once if its whole tree is small (see
    /// [`plan::small_count`]), with no planning, prefixes or thread pool, whatever the
    /// backend, since the probe that finds it small has counted it; else planned, on the
    /// backend the options and the board call for. `ends` says whether the run ends once
    /// this board is counted (see [`Solver::count`]).
    pub fn solve(&mut self, board: &Board, ends: bool, ctl: &Control) -> Result<Report, Error> {
        self.gpu_ready()?;
        if let Some(report) = small(board, true).or_else(|| self.sieved(board)) {
            return Ok(report);
        }
        let case = self.prepare_large(board, Scope::Whole);
        self.count(board, &case, &Part::all_of(&case), ends, ctl)
    }

    /// Plans `scope` of `board` and finds the prefixes a count of it takes, the same on
    /// every machine for the same board, options and scope. The whole case is planned as
    /// a plain count plans it; a shard, by the split (see [`crate::split`]), estimated for
    /// units of work and the progress bar, a board too small to split lying whole in shard
    /// 0. With `auto`, the GPU starts opening in the background as soon as an estimate says
    /// the count may need it.
    pub fn prepare(&mut self, board: &Board, scope: Scope) -> Case {
        self.prepare_ahead(board, scope, &[])
    }

    /// [`Solver::prepare`] of a shard to be followed by the shards `ahead` of the same
    /// board: the roots of up to [`AHEAD`] of them are found in the same walk down the
    /// board's tree, and kept for their turn.
    pub fn prepare_ahead(&mut self, board: &Board, scope: Scope, ahead: &[usize]) -> Case {
        // The shards of a list are prepared one after another: the first probed the board.
        let small = match &self.last_split {
            Some(last) if last.board == *board => last.small,
            _ => plan::small_count(board).is_some(),
        };
        self.prepare_known(board, scope, small, ahead)
    }

    /// Whether shard `shard` of `board` is known to be quick to count: found ahead of its
    /// turn (see [`Solver::prepare_ahead`]) with less work than the CPU counts on one thread
    /// ([`ONE_THREAD_NODES`]), such as the shards that hold nothing of a small board.
    pub fn is_quick(&self, board: &Board, shard: Shard) -> bool {
        let last = self.last_split.as_ref().filter(|l| l.split.shards() == shard.count && l.board == *board);
        let roots = last.and_then(|l| l.ahead.get(&shard.index));
        roots.is_some_and(|roots| roots.iter().map(|r| r.estimate).sum::<f64>() < ONE_THREAD_NODES)
    }

    /// [`Solver::prepare`] of a board known not to be small ([`small`] gave `None`): the
    /// probe costs as much as a small board's whole count.
    pub fn prepare_large(&mut self, board: &Board, scope: Scope) -> Case {
        self.prepare_known(board, scope, false, &[])
    }

    fn prepare_known(&mut self, board: &Board, scope: Scope, small: bool, ahead: &[usize]) -> Case {
        let started = Instant::now();
        let shard = match scope {
            Scope::Whole => return Case::whole(self.plan(board, 1), small, started),
            Scope::Shard(shard) => shard,
        };
        let mut last = match self.last_split.take() {
            Some(last) if last.board == *board && last.split.shards() == shard.count => last,
            _ => {
                let plan = if small { Plan::plain(board) } else { self.plan(board, shard.count) };
                let split = if small { Split::all_in_first(&plan, shard.count) } else { Split::new(&plan, shard.count) };
                let fingerprint = split.fingerprint(&plan);
                let plan = Arc::new(plan);
                LastSplit { board: board.clone(), small, plan, split, fingerprint, weights: Weights::default(), ahead: HashMap::new() }
            }
        };
        let case = Case::of_shard(&mut last, shard, ahead, started);
        self.last_split = Some(last);
        case
    }

    /// The plan to count `board` by, over `shards` shards; with `auto`, the GPU starts
    /// opening in the background as soon as an estimate says a shard may need it.
    fn plan(&mut self, board: &Board, shards: usize) -> Plan {
        let auto = self.options.backend == Backend::Auto;
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
    /// the options and the board call for. `ends` says whether the run ends once this count
    /// is done: then `auto` does not race a GPU that is still opening (see `auto::route`).
    pub fn count(&mut self, board: &Board, case: &Case, part: &Part<'_>, ends: bool, ctl: &Control) -> Result<Report, Error> {
        self.gpu_ready()?;
        let job = Job::new(case, part);
        let mut report = Report::new(board, &case.plan, &job.prefixes);
        report.plan_time = case.plan_time;
        let nothing = job.prefixes.items.is_empty() && part.record.is_none();
        match self.options.backend {
            // A shard that holds nothing of its board, as thousands of a small board's do:
            // no counter to choose or start.
            _ if nothing => report.backend = self.cpu_name(&case.plan, job.prefixes.depth).into(),
            Backend::Gpu if !job.counted_at_once() => {
                let nodes = job.nodes();
                self.gpu.want_cards_for(nodes);
                let planned = GpuPlan::new(&job, nodes, self.options.gpu_prefixes, &mut report);
                planned.count(self.gpu.wait().map_err(Error::NoGpu)?, &job, ctl, &mut report)?;
                report.warnings.extend(self.gpu.rest_failed());
            }
            Backend::Auto => self.auto.count(&mut self.gpu, &self.options, (board, &job), ends, ctl, &mut report)?,
            Backend::Cpu | Backend::Gpu => backend::count_on_cpu(&job, self.options.schedule, ctl, &mut report)?,
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

impl Solver {
    /// The CPU as a record names it for a count of `plan`'s prefixes at row `depth` (see
    /// [`backend::cpu_name`]), made once for the shards of one board.
    fn cpu_name(&mut self, plan: &Arc<Plan>, depth: usize) -> String {
        if let Some((_, _, name)) = self.cpu_name.as_ref().filter(|(p, d, _)| Arc::ptr_eq(p, plan) && *d == depth) {
            return name.clone();
        }
        let name = backend::cpu_name(plan, depth, self.options.schedule);
        self.cpu_name = Some((Arc::clone(plan), depth, name.clone()));
        name
    }
}

/// The report of `board` counted at once, if its whole tree is small (see
/// [`plan::small_count`]): no solver, plan or thread pool needed; `timed`, with the time
/// it took, else none. `None` for a larger board.
pub fn small(board: &Board, timed: bool) -> Option<Report> {
    let started = timed.then(Instant::now);
    let (count, nodes) = plan::small_count(board)?;
    let mut report = Report::small(board);
    report.count = u128::from(count);
    report.nodes = u128::from(nodes);
    if let Some(started) = started {
        report.elapsed = started.elapsed();
        report.plan_time = report.elapsed;
    }
    Some(report)
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::tally::Tally;
    use crate::work::{Shard, Unit};

    #[test]
    fn small_boards_never_open_the_gpu_and_big_ones_do() {
        let mut solver = Solver::new(Options { no_symmetry: true, ..Options::default() });
        solver.solve(&Board::empty(12).unwrap(), false, &Control::default()).unwrap();
        // Whole 14x14 trees on one thread, as on a busy machine, until together they have
        // kept the CPU three times longer than opening the GPU takes: still never opened.
        let (one, started) = (rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap(), Instant::now());
        while started.elapsed().as_secs_f64() < 3.0 * crate::tuning::GPU_START_SECONDS {
            one.install(|| solver.solve(&Board::empty(14).unwrap(), false, &Control::default())).unwrap();
        }
        assert!(solver.gpu.is_idle());
        solver.look_ahead(&Board::empty(19).unwrap());
        assert!(!solver.gpu.is_idle());
        let forced = Solver::new(Options { backend: Backend::Gpu, ..Options::default() });
        assert!(!forced.gpu.is_idle());
    }

    #[test]
    fn boards_already_counted_open_the_gpu_only_while_more_may_come() {
        // Empty 15x15 boards, each too quick to repay opening the GPU, on one thread until
        // together they have kept the CPU three times longer than opening it takes: they
        // open it for boards like them to come, unless the input has ended.
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let opened_after = |end_known: bool| {
            let mut solver = Solver::new(Options { no_sieve: true, ..Options::default() });
            if end_known {
                solver.no_more_boards();
            }
            let (started, enough) = (Instant::now(), 3.0 * solver.gpu.start_seconds());
            while solver.gpu.is_idle() && started.elapsed().as_secs_f64() < enough {
                one.install(|| solver.solve(&Board::empty(15).unwrap(), false, &Control::default())).unwrap();
            }
            !solver.gpu.is_idle()
        };
        assert!(opened_after(false));
        assert!(!opened_after(true));
    }

    #[test]
    fn the_whole_case_is_planned_one_way_and_estimated_on_request() {
        // A count written down unit by unit and a plain count take the same prefixes.
        let board = Board::empty(13).unwrap();
        let mut solver = Solver::new(Options { backend: Backend::Cpu, ..Options::default() });
        let mut recorded = solver.prepare(&board, Scope::Whole);
        let plain = solver.prepare(&board, Scope::Whole);
        recorded.estimate();
        assert_eq!(recorded.base.items, plain.base.items);
        assert!(recorded.roots.is_empty() && recorded.estimated && !plain.estimated);
        assert_eq!(recorded.work().len(), recorded.base.items.len());
        assert_eq!(recorded.fingerprint.len(), 64);
        assert_eq!(recorded.prefixes_fingerprint(), plain.prefixes_fingerprint());
        assert_ne!(recorded.fingerprint, solver.prepare(&Board::empty(12).unwrap(), Scope::Whole).fingerprint);
        // Shard 0 of 1 is a split's, which a whole case is not.
        assert_ne!(solver.prepare(&board, Scope::Shard(Shard { index: 0, count: 1 })).fingerprint, plain.fingerprint);
    }

    #[test]
    fn the_gpu_backend_without_a_gpu_fails_before_any_board() {
        let mut solver = Solver::new(Options { backend: Backend::Gpu, ..Options::default() });
        if solver.gpu_ready().is_ok() {
            return eprintln!("NOT APPLICABLE the_gpu_backend_without_a_gpu_fails_before_any_board: a GPU is usable here");
        }
        // Even a board the planner counts at once, which the GPU would never see.
        let board = Board::empty(8).unwrap();
        assert!(matches!(solver.solve(&board, false, &Control::default()), Err(Error::NoGpu(_))));
        let case = solver.prepare(&board, Scope::Whole);
        assert!(matches!(solver.count(&board, &case, &Part::all_of(&case), false, &Control::default()), Err(Error::NoGpu(_))));
    }

    #[test]
    fn shards_add_up_to_the_whole_and_units_are_recorded_once() {
        let board = Board::from_fn(11, |r, c| (r * 5 + c * 3) % 13 != 0).unwrap();
        let mut solver = Solver::new(Options { backend: Backend::Cpu, ..Options::default() });
        let whole = solver.solve(&board, false, &Control::default()).unwrap().count;
        let mut sum = 0;
        for index in 0..5 {
            let case = solver.prepare(&board, Scope::Shard(Shard { index, count: 5 }));
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
            let report = solver.count(&board, &case, &part, false, &Control::default()).unwrap();
            let recorded = recorded.into_inner().unwrap();
            assert_eq!(recorded.iter().map(|(_, t)| t.solutions).sum::<u128>(), report.count);
            assert_eq!(recorded.iter().map(|(u, _)| u.len()).sum::<usize>(), selection.len());
            sum += report.count;
        }
        assert_eq!(sum, whole);
    }
}
