//! One board in, one count out: plans the board, expands its prefixes, picks a backend and
//! runs it. The rest of the program does not care which backend ran.

mod auto;
mod opener;
mod report;

use std::fmt;
use std::time::Instant;

use crate::board::Board;
use crate::control::{Control, Interrupted};
use crate::cpu::{self, Schedule};
use crate::gpu::{self, GpuCountError, GpuError};
use crate::plan::{self, Plan};
use crate::prefix::{self, Prefix, Prefixes};
use auto::{cpu_would_take, may_need_gpu, AUTO_GPU_SECONDS, GPU_START_SECONDS, PLANNING_CUT};
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

/// Random dives that estimate a board's search tree before it goes to the GPU (about 1 ms).
const ESTIMATE_DIVES: u32 = 4096;

/// Why a board was not solved.
#[derive(Debug)]
pub enum SolveError {
    /// Cancelled by the user.
    Interrupted,
    /// `--backend gpu` and no usable GPU, or the GPU failed.
    Gpu(GpuError),
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::Interrupted => f.write_str("interrupted"),
            SolveError::Gpu(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SolveError {}

impl From<Interrupted> for SolveError {
    fn from(_: Interrupted) -> Self {
        SolveError::Interrupted
    }
}

/// Solves boards one after another with fixed options.
pub struct Solver {
    options: Options,
    gpu: Opener,
    /// Whether `auto` has said why it counts on the CPU (once a run).
    warned: bool,
}

impl Solver {
    /// A solver; with `--backend gpu`, the GPU starts opening in the background at once.
    pub fn new(options: Options) -> Solver {
        let gpu =
            if options.backend == BackendChoice::Gpu { Opener::start(options.devices.clone(), options.quick_exit) } else { Opener::Idle };
        Solver { options, gpu, warned: false }
    }

    /// The GPU, waiting for it to open if need be; an error when none is usable.
    pub fn gpu(&mut self) -> Result<&gpu::Gpu, GpuError> {
        self.gpu.wait(self.options.devices.as_deref(), self.options.quick_exit)
    }

    /// Counts the solutions of `board`.
    pub fn solve(&mut self, board: &Board, ctl: &Control) -> Result<Report, SolveError> {
        let started = Instant::now();
        if self.options.backend != BackendChoice::Gpu {
            if let Some((count, nodes)) = plan::small_count(board) {
                let plan = Plan::plain(board);
                let root = Prefixes { depth: 0, items: vec![Prefix::default()] };
                let mut report = Report::new(board, &plan, &root);
                report.count = count;
                report.nodes = nodes;
                report.backend = "cpu(probe: whole tree under the planning budget)".to_string();
                report.elapsed = started.elapsed();
                report.plan_time = report.elapsed;
                return Ok(report);
            }
        }
        let as_is = Plan::as_is(board);
        let plan = if self.options.no_symmetry {
            as_is
        } else {
            self.open_gpu_if_needed(as_is.expected_nodes, PLANNING_CUT);
            Plan::chosen(board, as_is)
        };
        self.open_gpu_if_needed(plan.expected_nodes, 1.0);
        let plan_time = started.elapsed();
        let base = prefix::expand(&plan, prefix::cpu_target(plan.expected_nodes));
        let mut report = Report::new(board, &plan, &base);
        report.plan_time = plan_time;
        if self.wants_gpu(&plan, &base, &mut report.warnings) {
            match self.count_on_gpu(&plan, &base, ctl, &mut report) {
                Ok(true) => {
                    report.elapsed = started.elapsed();
                    return Ok(report);
                }
                Ok(false) => {}
                Err(GpuCountError::Interrupted) => return Err(SolveError::Interrupted),
                Err(GpuCountError::Gpu(e)) if self.options.backend == BackendChoice::Gpu => return Err(SolveError::Gpu(e)),
                Err(GpuCountError::Gpu(e)) => {
                    report.warnings.push(format!("the GPU failed, counting on the CPU instead: {e}"));
                    self.gpu = Opener::Unusable(e);
                }
            }
        }
        ctl.begin(base.items.len() as u64, "cpu");
        let tally = cpu::count(&plan, &base, self.options.schedule, ctl)?;
        report.count = tally.solutions;
        report.nodes = tally.nodes;
        let search = cpu::search_name(&plan, base.depth);
        let threads = rayon::current_num_threads();
        let plural = if threads == 1 { "" } else { "s" };
        report.backend = format!("cpu({threads} thread{plural}, {:?}, {search})", self.options.schedule).to_lowercase();
        report.elapsed = started.elapsed();
        Ok(report)
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

    /// Whether this board goes to the GPU: always with `--backend gpu`; with `auto`, when a
    /// GPU is usable or still opening, some board's estimate was big enough to open it (see
    /// [`Solver::open_gpu_if_needed`]), and a timed sample says the CPU would take longer
    /// than the GPU would, its start-up included while it is still opening.
    fn wants_gpu(&mut self, plan: &Plan, base: &Prefixes, warnings: &mut Vec<String>) -> bool {
        match self.options.backend {
            BackendChoice::Cpu => false,
            BackendChoice::Gpu => true,
            BackendChoice::Auto => {
                if !self.gpu.may_be_usable() {
                    return false;
                }
                let start_up = self.gpu.opening_since().map_or(0.0, |since| (GPU_START_SECONDS - since.elapsed().as_secs_f64()).max(0.0));
                if !cpu_would_take(plan, base, AUTO_GPU_SECONDS + start_up) {
                    return false;
                }
                // A GPU still opening is waited for in count_on_gpu, after the board's GPU
                // prefixes are planned, so that the planning overlaps the start-up.
                self.gpu.opening_since().is_some() || self.auto_gpu_opened(warnings)
            }
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

    /// Counts the board on the GPU; false, having counted nothing, when `auto` finds that
    /// the GPU could not be opened after all.
    fn count_on_gpu(&mut self, plan: &Plan, base: &Prefixes, ctl: &Control, report: &mut Report) -> Result<bool, GpuCountError> {
        let started = Instant::now();
        let estimated_nodes = base.estimated_nodes(plan, ESTIMATE_DIVES);
        let target = self.options.gpu_prefixes.unwrap_or_else(|| gpu::prefix_target(estimated_nodes));
        let deeper = prefix::deeper(plan, base, target);
        report.prefix_time = started.elapsed();
        if self.options.backend == BackendChoice::Auto && !self.auto_gpu_opened(&mut report.warnings) {
            return Ok(false);
        }
        let gpu = self.gpu()?;
        report.gpu_wait = started.elapsed() - report.prefix_time;
        ctl.begin(deeper.total(), "gpu");
        let t = gpu.count(plan, base, &deeper, estimated_nodes, ctl)?;
        report.count = t.tally.solutions;
        report.nodes = t.tally.nodes;
        report.prefixes = t.prefixes;
        report.depth = base.depth + deeper.extra;
        report.kernel_time = Some(t.kernel_time);
        report.backend = format!("gpu({}; {})", gpu.describe(t.devices), t.entry_point.name());
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
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
        let plan = Plan::plain(&board);
        let base = prefix::expand(&plan, 16);
        let mut solver = Solver::new(Options::default());
        let failing = std::thread::spawn(|| Err(GpuError::NoDevice("none here".into())));
        solver.gpu = Opener::Opening(failing, Instant::now());
        let mut report = Report::new(&board, &plan, &base);
        assert!(!solver.count_on_gpu(&plan, &base, &Control::default(), &mut report).unwrap());
        assert!(matches!(solver.gpu, Opener::Unusable(GpuError::NoDevice(_))));
        assert!(report.kernel_time.is_none() && report.warnings.is_empty());
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
}
