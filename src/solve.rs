//! One board in, one count out: plans the board, expands its prefixes, divides them (see
//! [`crate::work`]), picks a backend and runs it. The rest of the program does not care
//! which backend ran.

mod auto;
mod opener;
mod report;

use std::borrow::Cow;
use std::fmt;
use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::board::Board;
use crate::control::{Control, Interrupted};
use crate::cpu::{self, Schedule};
use crate::gpu::{self, GpuCountError, GpuError, Units};
use crate::plan::{self, Plan};
use crate::prefix::{self, Prefixes};
use crate::split::{self, Root, Split};
use crate::tally::Tally;
use crate::work::{Blocks, Selection, Shard, Unit};
use auto::{cpu_seconds, cpu_seconds_by_estimate, cpu_surely_takes, may_need_gpu, AUTO_GPU_SECONDS, GPU_START_SECONDS, PLANNING_CUT};
use opener::Opener;
pub use report::Report;

/// Which counter to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// The GPU when one is usable and the board is big enough to gain from it.
    #[default]
    Auto,
    /// Always the CPU.
    Cpu,
    /// Always the GPU; an error when none is usable.
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
    /// Prefixes to aim for on the GPU; [`gpu::prefix_target`] of the estimated tree when `None`.
    pub gpu_prefixes: Option<usize>,
    /// Hand the GPU driver's teardown to a child process once the GPU is open (see
    /// [`gpu::Gpu::hand_over_teardown`]): for a process that exits without dropping its solver.
    pub quick_exit: bool,
}

/// Random dives that estimate a board's search tree before it goes to the GPU, where its
/// blocks were not estimated (about 1 ms).
const ESTIMATE_DIVES: u32 = 4096;
/// Planned trees from which a case's blocks are estimated even when no shard or
/// checkpoint needs it, for the progress bar: such a case may run for many seconds, and
/// the estimate costs milliseconds.
const ESTIMATED_WORK_NODES: f64 = 1e11;
/// Seconds of counting a unit of a checkpointed run aims at: a kill loses about this much.
const UNIT_SECONDS: f64 = 2.0;
/// Search nodes per second per CPU thread that units are sized by (the scalar search's
/// rate times each search's speed-up).
const SCALAR_NODES_PER_SECOND: f64 = 1.3e8;
/// Search nodes per second per GPU that units are sized by (an H100 on the plain kernel).
const GPU_NODES_PER_SECOND: f64 = 4e11;

/// Which backend counts a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    Cpu,
    Gpu,
    /// The CPU until the GPU has opened, then whichever would finish first.
    Race,
}

/// For `auto`, a board the CPU would count in `cpu` seconds: once the GPU is open, the GPU
/// where the CPU would take longer than the GPU's cost of a board. While it is opening
/// (`start_up` seconds left), the CPU below [`AUTO_GPU_SECONDS`]; up to `start_up` seconds
/// more, a race between them (or the CPU, where the units are `recorded` as they finish);
/// else the GPU.
fn route(cpu: f64, start_up: Option<f64>, recorded: bool) -> Choice {
    match start_up {
        None if cpu < GPU_BOARD_SECONDS => Choice::Cpu,
        None => Choice::Gpu,
        Some(_) if cpu < AUTO_GPU_SECONDS => Choice::Cpu,
        Some(s) if cpu < AUTO_GPU_SECONDS + s && recorded => Choice::Cpu,
        Some(s) if cpu < AUTO_GPU_SECONDS + s => Choice::Race,
        _ => Choice::Gpu,
    }
}

/// The CPU seconds from which [`route`] gives the GPU whatever more the CPU would take:
/// the estimate and the timed sample need tell no more than this.
fn decided_from(start_up: Option<f64>) -> f64 {
    start_up.map_or(GPU_BOARD_SECONDS, |s| AUTO_GPU_SECONDS + s)
}

/// What a board costs an open GPU besides its planning and search (prefixes, transfers,
/// launches): about 5 to 7 ms on boards of 15 and 16 on an H100 host.
const GPU_BOARD_SECONDS: f64 = 0.006;
/// How often a race looks whether the GPU has opened.
const RACE_LOOK_EVERY: Duration = Duration::from_millis(1);

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

/// A board made ready to count: its plan and the prefixes to count, all of the case's or
/// one shard's, the same on every machine for the same board, options and shard.
pub struct Case {
    pub plan: Plan,
    /// The prefixes to count; units are ranges of them.
    pub base: Prefixes,
    /// The shard's roots, where the case was split (see [`crate::split`]).
    pub roots: Vec<Root>,
    /// Whether the prefixes' search nodes were estimated (else one unit of work each).
    pub estimated: bool,
    /// Each prefix's estimated work, where estimated; else empty.
    work: Vec<f64>,
    /// The whole case's estimated search nodes, where estimated.
    pub whole: f64,
    /// What decides the case's split (see [`Split::fingerprint`]), where it was split.
    pub split: String,
    /// The shard the prefixes are of.
    pub shard: Shard,
    started: Instant,
    pub plan_time: Duration,
}

impl Case {
    /// Each prefix's estimated work; empty where nothing was estimated (one unit each).
    pub fn work(&self) -> &[f64] {
        &self.work
    }

    /// What a checkpoint's units of this case were counted from (see
    /// [`split::prefixes_fingerprint`]).
    pub fn prefixes_fingerprint(&self) -> String {
        split::prefixes_fingerprint(&self.split, self.shard, &self.base)
    }

    /// All of its prefixes.
    pub fn all(&self) -> Selection {
        Selection::all(self.base.items.len())
    }

    /// The prefixes in `ranges`, in order: borrowed when they are all of them.
    fn prefixes(&self, ranges: &[Range<usize>]) -> Cow<'_, Prefixes> {
        if matches!(ranges, [whole] if *whole == (0..self.base.items.len())) {
            return Cow::Borrowed(&self.base);
        }
        Cow::Owned(Prefixes {
            depth: self.base.depth,
            items: ranges.iter().flat_map(|r| self.base.items[r.clone()].iter().copied()).collect(),
        })
    }

    /// The estimated work of the prefixes in `ranges`, in order (empty where nothing was
    /// estimated).
    fn work_of(&self, ranges: &[Range<usize>]) -> Vec<f64> {
        ranges.iter().flat_map(|r| self.work.get(r.clone()).unwrap_or_default().iter().copied()).collect()
    }
}

/// What to do with each unit of a count once it is counted (from any thread): record it.
pub type RecordUnit<'a> = &'a (dyn Fn(&Unit, Tally) -> io::Result<()> + Sync);

/// Which of a case's prefixes a count covers, and what it does as units finish.
pub struct Part<'a> {
    /// The prefixes to count now.
    pub selection: Selection,
    /// What an earlier run counted of the same case (from a checkpoint), added to the report.
    pub counted_before: Tally,
    /// The estimated work of that earlier count, for the progress bar.
    pub work_before: f64,
    /// Called with each unit, from any thread, once it is counted; the count is cut into
    /// units of a few seconds each only when this is given, else it is one unit.
    pub record: Option<RecordUnit<'a>>,
}

/// Solves boards one after another with fixed options.
pub struct Solver {
    options: Options,
    gpu: Opener,
    /// Whether `auto` has said why it counts on the CPU (once a run).
    warned: bool,
    /// The last board split for shards, with its plan and split, for the next of its
    /// shards.
    last_split: Option<(Board, Plan, Split)>,
}

impl Solver {
    /// A solver; with `--backend gpu`, the GPU starts opening in the background at once.
    pub fn new(options: Options) -> Solver {
        let gpu =
            if options.backend == BackendChoice::Gpu { Opener::start(options.devices.clone(), options.quick_exit) } else { Opener::Idle };
        Solver { options, gpu, warned: false, last_split: None }
    }

    /// The GPU, waiting for it to open if need be; an error when none is usable.
    pub fn gpu(&mut self) -> Result<&gpu::Gpu, GpuError> {
        self.gpu.wait(self.options.devices.as_deref(), self.options.quick_exit)
    }

    /// For `auto`: `board` will be counted later, after those before it. If it may need the
    /// GPU, the GPU starts opening in the background now, so that its start-up overlaps
    /// the boards before it.
    pub fn expect(&mut self, board: &Board) {
        // Empty 14x14's whole tree has about 2.7e7 nodes: no board that small may need the
        // GPU, even on one thread, and files of many small boards skip the estimate.
        if board.n() < 15 {
            return;
        }
        if self.options.backend == BackendChoice::Auto && self.gpu.is_idle() && plan::small_count(board).is_none() {
            let cut = if self.options.no_symmetry { 1.0 } else { PLANNING_CUT };
            self.open_gpu_if_needed(Plan::as_is(board).expected_nodes, cut);
        }
    }

    /// Counts the solutions of `board`, all of them.
    pub fn solve(&mut self, board: &Board, ctl: &Control) -> Result<Report, SolveError> {
        match self.solve_small(board) {
            Some(report) => Ok(report),
            None => self.solve_planned(board, ctl),
        }
    }

    /// Counts `board` at once if its whole tree is small (see [`plan::small_count`]), with
    /// no planning, prefixes or thread pool (and not with `--backend gpu`, which counts
    /// every board on the GPU); `None` for a larger board.
    pub fn solve_small(&mut self, board: &Board) -> Option<Report> {
        if self.options.backend == BackendChoice::Gpu {
            return None;
        }
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
        let case = self.whole_case(board);
        let part = Part { selection: case.all(), counted_before: Tally::default(), work_before: 0.0, record: None };
        self.count(board, &case, &part, ctl)
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
        let roots = split.roots(&plan, shard.index);
        let estimate = roots.iter().map(|r| r.estimate).sum::<f64>();
        let least = if small { 1 } else { prefix::cpu_target(Some(estimate)) };
        let (base, work) = split::prefixes(&plan, &roots, least);
        let fingerprint = split.fingerprint(&plan);
        let whole = split.total();
        self.last_split = Some((board.clone(), plan.clone(), split));
        Case { plan, base, roots, estimated: true, work, whole, split: fingerprint, shard, started, plan_time: started.elapsed() }
    }

    /// Plans all of `board` for a plain count: its first rows expanded into the CPU's
    /// prefixes, estimated only where the case is large enough to show progress.
    fn whole_case(&mut self, board: &Board) -> Case {
        let started = Instant::now();
        let plan = self.plan(board, 1);
        let base = prefix::expand(&plan, prefix::cpu_target(plan.expected_nodes));
        let estimated = plan.expected_nodes.is_some_and(|e| e >= ESTIMATED_WORK_NODES);
        let work = if estimated { Blocks::estimated(&plan, &base).per_prefix() } else { Vec::new() };
        let whole = work.iter().sum();
        let (roots, split) = (Vec::new(), String::new());
        Case { plan, base, roots, estimated, work, whole, split, shard: Shard::WHOLE, started, plan_time: started.elapsed() }
    }

    /// The plan to count `board` by, over `shards` shards; with `auto`, the GPU starts
    /// opening in the background as soon as an estimate says a shard may need it.
    fn plan(&mut self, board: &Board, shards: usize) -> Plan {
        let as_is = Plan::as_is(board);
        let per_shard = |e: Option<f64>| e.map(|e| e / shards as f64);
        let plan = if self.options.no_symmetry {
            as_is
        } else {
            self.open_gpu_if_needed(per_shard(as_is.expected_nodes), PLANNING_CUT);
            Plan::chosen(board, as_is)
        };
        self.open_gpu_if_needed(per_shard(plan.expected_nodes), 1.0);
        plan
    }

    /// Counts the prefixes `part` selects of `case` (the case of `board`), on the backend
    /// the options and the board call for.
    pub fn count(&mut self, board: &Board, case: &Case, part: &Part<'_>, ctl: &Control) -> Result<Report, SolveError> {
        let (plan, base) = (&case.plan, &case.base);
        let roots = case.prefixes(&part.selection.ranges);
        let work = case.work_of(&part.selection.ranges);
        let units = |rate| {
            let budget = if part.record.is_some() && case.estimated { UNIT_SECONDS * rate } else { f64::INFINITY };
            part.selection.units(case.work(), budget)
        };
        let mut report = Report::new(board, plan, &roots);
        report.plan_time = case.plan_time;
        let mut result = None;
        let estimate = case.estimated.then(|| work.iter().sum::<f64>());
        let mut choice = self.choose(plan, &roots, estimate, part.record.is_some(), &mut report.warnings);
        if choice == Choice::Race {
            let threads = rayon::current_num_threads() as f64;
            let rate = SCALAR_NODES_PER_SECOND * cpu::speedup_over_scalar(plan, base.depth) * threads;
            let nodes = estimate.unwrap_or_else(|| roots.estimated_nodes(plan, ESTIMATE_DIVES));
            if self.race_on_cpu(case, part, units(rate), nodes, ctl, &mut report)? {
                result = Some(());
            }
            choice = Choice::Gpu;
        }
        if choice == Choice::Gpu && result.is_none() {
            match self.count_on_gpu(case, part, &roots, &work, units(GPU_NODES_PER_SECOND), ctl, &mut report) {
                Ok(true) => result = Some(()),
                Ok(false) => {}
                Err(GpuCountError::Interrupted) => return Err(SolveError::Interrupted),
                Err(GpuCountError::Record(e)) => return Err(SolveError::Record(e)),
                Err(GpuCountError::Gpu(e)) if self.options.backend == BackendChoice::Gpu => return Err(SolveError::Gpu(e)),
                Err(GpuCountError::Gpu(e)) => {
                    report.warnings.push(format!("the GPU failed, counting on the CPU instead: {e}"));
                    self.gpu = Opener::Unusable(e);
                }
            }
        }
        if result.is_none() {
            let threads = rayon::current_num_threads() as f64;
            let rate = SCALAR_NODES_PER_SECOND * cpu::speedup_over_scalar(plan, base.depth) * threads;
            self.count_on_cpu(case, part, units(rate), ctl, &mut report)?;
        }
        report.count += part.counted_before.solutions;
        report.nodes += part.counted_before.nodes;
        report.nodes_before = part.counted_before.nodes;
        report.elapsed = case.started.elapsed();
        ctl.end();
        Ok(report)
    }

    /// Counts `part` of `case` on the CPU, one of `units` at a time.
    fn count_on_cpu(
        &mut self,
        case: &Case,
        part: &Part<'_>,
        units: Vec<Unit>,
        ctl: &Control,
        report: &mut Report,
    ) -> Result<(), SolveError> {
        let (plan, base) = (&case.plan, &case.base);
        let threads = rayon::current_num_threads();
        ctl.begin(part.work_before, part.work_before + units.iter().map(|u| u.estimate).sum::<f64>(), "cpu");
        for unit in &units {
            let tally = cpu::count(plan, &case.prefixes(&unit.ranges), &case.work_of(&unit.ranges), self.options.schedule, ctl)?;
            report.count += tally.solutions;
            report.nodes += tally.nodes;
            if let Some(record) = part.record {
                record(unit, tally).map_err(SolveError::Record)?;
            }
        }
        let search = cpu::search_name(plan, base.depth);
        let plural = if threads == 1 { "" } else { "s" };
        report.backend = format!("cpu({threads} thread{plural}, {:?}, {search})", self.options.schedule).to_lowercase().into();
        Ok(())
    }

    /// For `auto`: starts opening the GPU in the background once a board's estimated tree,
    /// `nodes` nodes that planning may still cut by `cut` times, could make the CPU sample
    /// pick the GPU. Runs that never use the GPU do not open it, since a process cannot end
    /// while a thread is inside the driver's start-up.
    fn open_gpu_if_needed(&mut self, nodes: Option<f64>, cut: f64) {
        let idle = self.options.backend == BackendChoice::Auto && self.gpu.is_idle();
        if idle && nodes.is_some_and(|e| may_need_gpu(e / cut, rayon::current_num_threads())) {
            self.gpu = Opener::start(self.options.devices.clone(), self.options.quick_exit);
        }
    }

    /// Which backend counts these prefixes: always the GPU with `--backend gpu`; with
    /// `auto`, when a GPU is usable or still opening, some board's estimate was big enough
    /// to open it (see [`Solver::open_gpu_if_needed`]), and a timed sample says the CPU
    /// would take longer than the GPU would, its start-up included while it is opening. A
    /// board the sample puts within the start-up starts on the CPU and races the GPU's
    /// opening (see [`Solver::race_on_cpu`]), unless its units are recorded as they finish:
    /// the sample may have judged the CPU too fast.
    /// `estimate` is the prefixes' estimated search nodes, where they were estimated.
    fn choose(&mut self, plan: &Plan, roots: &Prefixes, estimate: Option<f64>, recorded: bool, warnings: &mut Vec<String>) -> Choice {
        match self.options.backend {
            BackendChoice::Cpu => Choice::Cpu,
            BackendChoice::Gpu => Choice::Gpu,
            BackendChoice::Auto => {
                if !self.gpu.may_be_usable() {
                    return Choice::Cpu;
                }
                let opening = self.gpu.opening_since();
                let start_up = opening.map_or(0.0, |since| (GPU_START_SECONDS - since.elapsed().as_secs_f64()).max(0.0));
                let threads = rayon::current_num_threads();
                let decided = decided_from(opening.map(|_| start_up));
                // A GPU still opening is waited for in count_on_gpu, after the board's GPU
                // prefixes are planned, so that the planning overlaps the start-up.
                if estimate.is_some_and(|nodes| cpu_surely_takes(nodes, threads, decided)) {
                    return if opening.is_some() || self.auto_gpu_opened(warnings) { Choice::Gpu } else { Choice::Cpu };
                }
                // The timed sample can judge the CPU several times too fast (heavy prefixes
                // it misses, threads that share cores), so the planner's estimate bounds it.
                let planned = estimate.or(plan.expected_nodes).map_or(0.0, |nodes| cpu_seconds_by_estimate(nodes, threads));
                let cpu = cpu_seconds(plan, roots, decided).max(planned);
                match route(cpu, opening.map(|_| start_up), recorded) {
                    Choice::Gpu if opening.is_none() && !self.auto_gpu_opened(warnings) => Choice::Cpu,
                    choice => choice,
                }
            }
        }
    }

    /// For `auto`, while the GPU is still opening: counts `part` of `case` (one unit) on
    /// the CPU until the GPU has opened, then lets the CPU go on only if, at the rate it
    /// has kept, it would finish before the GPU would count the board's `nodes` estimated
    /// nodes. True when the CPU counted it (as it does when the GPU fails to open); false
    /// when it gave way to the GPU, its partial count dropped.
    fn race_on_cpu(
        &mut self,
        case: &Case,
        part: &Part<'_>,
        unit: Vec<Unit>,
        nodes: f64,
        ctl: &Control,
        report: &mut Report,
    ) -> Result<bool, SolveError> {
        let Some(opened) = self.gpu.outcome() else { return Ok(false) };
        let gpu_seconds = GPU_BOARD_SECONDS + nodes / GPU_NODES_PER_SECOND;
        let finished = AtomicBool::new(false);
        let started = Instant::now();
        let counted = std::thread::scope(|scope| {
            scope.spawn(|| loop {
                if finished.load(Ordering::Relaxed) || ctl.is_cancelled() {
                    return;
                }
                match opened.get() {
                    None => std::thread::sleep(RACE_LOOK_EVERY),
                    Some(false) => return,
                    Some(true) => {
                        // With nothing done yet, the time left is unknown: the GPU takes it.
                        let left = ctl.progress().map_or(f64::INFINITY, |p| {
                            let done = p.done as f64 / p.total.max(1) as f64;
                            p.since.elapsed().as_secs_f64() * (1.0 - done) / done
                        });
                        if left > gpu_seconds && !finished.load(Ordering::Relaxed) {
                            ctl.give_way();
                        }
                        return;
                    }
                }
            });
            let counted = self.count_on_cpu(case, part, unit, ctl, report);
            finished.store(true, Ordering::Relaxed);
            counted
        });
        report.race_time = Some(started.elapsed());
        // Asked to give way just as the count ended: the request is dropped with it.
        let gave_way = ctl.gave_way();
        match counted {
            Ok(()) => Ok(true),
            Err(SolveError::Interrupted) if gave_way => {
                (report.count, report.nodes) = (0, 0);
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// For `auto`: whether the GPU opened, waiting for it if need be. Why it did not is
    /// added to `warnings` once a run, unless there is simply no driver or device.
    fn auto_gpu_opened(&mut self, warnings: &mut Vec<String>) -> bool {
        match self.gpu() {
            Ok(_) => true,
            Err(e) => {
                if !self.warned && !matches!(e, GpuError::NoDriver | GpuError::NoDevice(_)) {
                    warnings.push(format!("counting on the CPU: {e}"));
                }
                self.warned = true;
                false
            }
        }
    }

    /// Counts `roots` (the prefixes `part` selects of `case`, each of estimated work
    /// `work`, cut into `units`) on the GPU; false, having counted nothing, when `auto`
    /// finds that the GPU could not be opened after all.
    #[allow(clippy::too_many_arguments)]
    fn count_on_gpu(
        &mut self,
        case: &Case,
        part: &Part<'_>,
        roots: &Prefixes,
        work: &[f64],
        units: Vec<Unit>,
        ctl: &Control,
        report: &mut Report,
    ) -> Result<bool, GpuCountError> {
        let started = Instant::now();
        let plan = &case.plan;
        let estimated_nodes = if case.estimated { work.iter().sum() } else { roots.estimated_nodes(plan, ESTIMATE_DIVES) };
        let all_work = work.iter().sum::<f64>().max(roots.items.len() as f64);
        // A part of a case (a shard, or what a checkpoint left) gets at least its share of
        // the whole case's prefixes, so that they are as small as the whole case's (a part
        // has as heavy prefixes as the whole, and the heaviest makes the tail of the
        // count), and at least what a board of its own size gets: a short count has few
        // prefixes a thread, and a whole board's are too coarse to end it evenly.
        let share = if case.estimated && case.whole > 0.0 { (estimated_nodes / case.whole).min(1.0) } else { 1.0 };
        let target = self.options.gpu_prefixes.unwrap_or_else(|| {
            let of_whole = (gpu::prefix_target(case.whole) as f64 * share) as usize;
            gpu::prefix_target(estimated_nodes).max(of_whole)
        });
        let deeper = prefix::deeper(plan, roots, target);
        report.prefix_time = started.elapsed();
        if self.options.backend == BackendChoice::Auto && !self.auto_gpu_opened(&mut report.warnings) {
            return Ok(false);
        }
        // The units as ranges of `roots`, which holds the selection's prefixes in order.
        let mut at = 0;
        let ranges: Vec<_> = units.iter().map(|u| (at..at + u.len(), at += u.len()).0).collect();
        let record = |i: usize, tally: Tally| part.record.map_or(Ok(()), |record| record(&units[i], tally));
        let gpu = self.gpu()?;
        report.gpu_wait = started.elapsed() - report.prefix_time;
        ctl.begin(part.work_before, part.work_before + all_work, "gpu");
        let t = gpu.count(plan, roots, &deeper, &Units { ranges: &ranges, work, done: &record }, estimated_nodes, ctl)?;
        report.count = t.tally.solutions;
        report.nodes = t.tally.nodes;
        report.prefixes = t.prefixes;
        report.depth = roots.depth + deeper.extra;
        report.kernel_time = Some(t.kernel_time);
        report.backend = format!("gpu({}; {})", gpu.describe(t.devices), t.entry_point.name()).into();
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex, OnceLock};

    use super::*;

    #[test]
    fn small_boards_never_open_the_gpu_and_big_ones_do() {
        let mut solver = Solver::new(Options::default());
        solver.solve(&Board::empty(12).unwrap(), &Control::default()).unwrap();
        assert!(solver.gpu.is_idle());
        let quick = Plan::as_is(&Board::empty(19).unwrap()).expected_nodes;
        solver.open_gpu_if_needed(quick, PLANNING_CUT);
        assert!(!solver.gpu.is_idle());
        let forced = Solver::new(Options { backend: BackendChoice::Gpu, ..Options::default() });
        assert!(matches!(forced.gpu, Opener::Opening(..)));
    }

    #[test]
    fn auto_counts_on_the_cpu_when_the_gpu_it_waited_for_fails_to_open() {
        let board = Board::empty(10).unwrap();
        let mut solver = Solver::new(Options::default());
        let case = solver.prepare(&board, Shard::WHOLE);
        let part = Part { selection: case.all(), counted_before: Tally::default(), work_before: 0.0, record: None };
        solver.gpu = opening(Duration::ZERO, false);
        let mut report = Report::new(&board, &case.plan, &case.base);
        let units = part.selection.units(case.work(), f64::INFINITY);
        assert!(!solver.count_on_gpu(&case, &part, &case.base, case.work(), units, &Control::default(), &mut report).unwrap());
        assert!(matches!(solver.gpu, Opener::Unusable(GpuError::NoDevice(_))));
        assert!(report.kernel_time.is_none() && report.warnings.is_empty());
    }

    /// An opener that says, after `after`, that the GPU opened (`said`), though its thread
    /// then finds no device.
    fn opening(after: Duration, said: bool) -> Opener {
        let cell = Arc::new(OnceLock::new());
        let set = Arc::clone(&cell);
        let thread = std::thread::spawn(move || {
            std::thread::sleep(after);
            let _ = set.set(said);
            Err(GpuError::NoDevice("none here".into()))
        });
        Opener::Opening(thread, Instant::now(), cell)
    }

    #[test]
    fn a_board_started_on_the_cpu_gives_way_once_the_gpu_opens_and_is_still_counted() {
        let board = Board::empty(16).unwrap();
        let want = solve_on_cpu(&board);
        // Whether the GPU opened, its nodes (1: it would count them at once; 1e18: never),
        // and whether the CPU should give way.
        for (said, nodes, gave_way) in [(true, 1.0, true), (true, 1e18, false), (false, 1.0, false)] {
            let mut solver = Solver::new(Options { no_symmetry: true, ..Options::default() });
            let case = solver.prepare(&board, Shard::WHOLE);
            let cell = Arc::new(OnceLock::new());
            solver.gpu = Opener::Opening(std::thread::spawn(|| Err(GpuError::NoDevice("none".into()))), Instant::now(), Arc::clone(&cell));
            let part = Part { selection: case.all(), counted_before: Tally::default(), work_before: 0.0, record: None };
            let mut report = Report::new(&board, &case.plan, &case.base);
            let unit = part.selection.units(case.work(), f64::INFINITY);
            let ctl = Control::default();
            // The GPU says whether it opened as soon as the CPU has taken some work.
            let raced = std::thread::scope(|scope| {
                scope.spawn(|| {
                    while ctl.progress().is_none_or(|p| p.done == 0) {
                        std::thread::sleep(Duration::from_micros(100));
                    }
                    let _ = cell.set(said);
                });
                solver.race_on_cpu(&case, &part, unit, nodes, &ctl, &mut report).unwrap()
            });
            assert_eq!(raced, !gave_way);
            assert_eq!(report.count, if gave_way { 0 } else { want });
            assert!(ctl.check().is_ok(), "the run goes on");
        }
    }

    #[test]
    fn boards_race_only_within_the_gpus_start_up_and_never_when_recorded_and_an_open_gpu_takes_all_but_the_smallest() {
        assert_eq!(route(0.01, Some(0.2), false), Choice::Cpu);
        assert_eq!(route(0.1, Some(0.2), false), Choice::Race);
        assert_eq!(route(0.1, Some(0.2), true), Choice::Cpu);
        assert_eq!(route(0.5, Some(0.2), false), Choice::Gpu);
        // An open GPU takes every board that would keep the CPU longer than its own cost.
        assert_eq!(route(0.01, None, false), Choice::Gpu);
        assert_eq!(route(0.001, None, false), Choice::Cpu);
        // From `decided_from`, more CPU time changes nothing: the sample may stop there.
        for (start_up, recorded) in [(None, false), (Some(0.2), false), (Some(0.2), true), (Some(0.0), false)] {
            let from = decided_from(start_up);
            assert_eq!(route(from, start_up, recorded), Choice::Gpu);
            assert_eq!(route(from * 100.0, start_up, recorded), Choice::Gpu);
            assert_ne!(route(from * 0.99, start_up, recorded), Choice::Gpu);
        }
    }

    fn solve_on_cpu(board: &Board) -> u128 {
        Solver::new(Options { backend: BackendChoice::Cpu, ..Options::default() }).solve(board, &Control::default()).unwrap().count
    }

    #[test]
    fn a_gpu_that_fails_for_another_reason_is_reported_once() {
        let mut solver = Solver::new(Options::default());
        let mut warnings = Vec::new();
        for _ in 0..2 {
            solver.gpu = Opener::Unusable(GpuError::Compile("a log".into()));
            assert!(!solver.auto_gpu_opened(&mut warnings));
        }
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("a log"));
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
            let record = |u: &Unit, t: Tally| {
                recorded.lock().unwrap().push((u.clone(), t));
                Ok(())
            };
            let selection = case.all();
            let part = Part { selection: selection.clone(), counted_before: Tally::default(), work_before: 0.0, record: Some(&record) };
            let report = solver.count(&board, &case, &part, &Control::default()).unwrap();
            let recorded = recorded.into_inner().unwrap();
            assert_eq!(recorded.iter().map(|(_, t)| t.solutions).sum::<u128>(), report.count);
            assert_eq!(recorded.iter().map(|(u, _)| u.len()).sum::<usize>(), selection.len());
            sum += report.count;
        }
        assert_eq!(sum, whole);
    }
}
