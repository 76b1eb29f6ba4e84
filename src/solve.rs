//! One board in, one count out: plans the board, expands its prefixes, picks a backend and
//! runs it. The rest of the program does not care which backend ran.

use std::fmt;
use std::time::{Duration, Instant};

use crate::board::Board;
use crate::control::{self, Control, Interrupted};
use crate::cpu::{self, Schedule};
use crate::gpu::{self, Gpu, GpuCountError, GpuError};
use crate::plan::{self, Plan};
use crate::prefix::{self, Prefixes};
use crate::symmetry::{self, Sym};

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
    /// [`Gpu::hand_over_teardown`]): for a process that exits without dropping its solver.
    pub quick_exit: bool,
}

/// Estimated CPU seconds above which `auto` moves a board to an open GPU: below it, the
/// GPU's cost per board (prefixes, transfers, launches) is more than it saves. A second
/// copy of a 17x17 or 18x18 benchmark board added 0.02 to 0.06 s on the H100 once it was
/// open; the estimate assumes every thread runs at full speed, about twice too fast on
/// the H100 host's 16 threads.
pub const AUTO_GPU_SECONDS: f64 = 0.05;
/// What opening the GPU costs, added to [`AUTO_GPU_SECONDS`] for as long as it is still
/// opening (H100: cuInit 0.10 s, then the context 0.12 s, when the driver set up 8
/// hardware queues). With 1 or 2 the wait is 0.08 to 0.13 s (about 0.2 s while the
/// previous run's teardown is still going on), but 0.10 here sent mirror_17, empty_17 and
/// density_18_20 to the GPU and made them slower (H100, auto, median of 5: 0.215, 0.281
/// and 0.233 s against 0.213, 0.216 and 0.194 s), so the margin stays.
const GPU_START_SECONDS: f64 = 0.25;
/// Random dives that estimate a board's search tree before it goes to the GPU (about 1 ms).
const ESTIMATE_DIVES: u32 = 4096;
/// Prefixes timed on the CPU to estimate a board's cost for `auto`.
const SAMPLE: usize = 64;
/// Search nodes one thread gets through per second (this machine, plain and split boards
/// of the benchmarks, AVX-512 lanes: 5e8 to 6.6e8; the scalar search: 1.3e8).
const NODES_PER_THREAD_SECOND: f64 = 6e8;
/// How many times fewer nodes a plan may need than its board's plain tree: the symmetry
/// split's gain (up to about 5x) times what the orientation and the quick estimate's
/// error may add.
const PLANNING_CUT: f64 = 8.0;

/// What happened on one board, for the answer and `--stats`.
#[derive(Clone, Debug)]
pub struct Report {
    /// The number of solutions.
    pub count: u64,
    /// Side length.
    pub n: usize,
    /// Obstacle cells.
    pub obstacles: usize,
    /// The symmetry the board was searched through.
    pub orientation: &'static str,
    /// The symmetries used, by name.
    pub group: String,
    /// Boards in the plan (one per orbit of frames, or 1).
    pub boards: usize,
    /// Boards of a symmetry split searched turned (see [`Plan::turned`]).
    pub turned: usize,
    /// Prefixes counted and the rows they fill.
    pub prefixes: u64,
    /// Rows filled in each prefix.
    pub depth: usize,
    /// Search nodes (queens placed by the search loop).
    pub nodes: u64,
    /// Which backend and device ran it.
    pub backend: String,
    /// Wall time for the whole board.
    pub elapsed: Duration,
    /// Time to choose the orientation and split by symmetry.
    pub plan_time: Duration,
    /// Time to plan the GPU's prefixes: how many rows deeper, and how many each root makes
    /// (the GPU makes them; the CPU's are part of `plan_time`'s sequel).
    pub prefix_time: Duration,
    /// Time spent waiting for the GPU to finish opening.
    pub gpu_wait: Duration,
    /// Time in GPU kernels and transfers, apart from start-up.
    pub kernel_time: Option<Duration>,
}

impl Report {
    /// A board counted whole by the planner's probe, on the calling thread.
    fn small(board: &Board, count: u64, nodes: u64, elapsed: Duration) -> Report {
        Report {
            count,
            n: board.n(),
            obstacles: board.obstacles(),
            orientation: Sym::Identity.name(),
            group: symmetry::group_name(&[Sym::Identity]),
            boards: 1,
            turned: 0,
            prefixes: 1,
            depth: 0,
            nodes,
            backend: "cpu(probe: whole tree under the planning budget)".to_string(),
            elapsed,
            plan_time: elapsed,
            prefix_time: Duration::ZERO,
            gpu_wait: Duration::ZERO,
            kernel_time: None,
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.elapsed.as_secs_f64();
        write!(
            f,
            "n={} obstacles={} backend={} orientation={} symmetry={} boards={} turned={} prefixes={} depth={} nodes={} time={:.3}s nodes/s={:.3e}",
            self.n,
            self.obstacles,
            self.backend,
            self.orientation,
            self.group,
            self.boards,
            self.turned,
            self.prefixes,
            self.depth,
            self.nodes,
            secs,
            self.nodes as f64 / secs.max(1e-9),
        )?;
        write!(f, " plan={:.3}s", self.plan_time.as_secs_f64())?;
        if let Some(k) = self.kernel_time {
            write!(
                f,
                " gpu-open-wait={:.3}s gpu-prefixes={:.3}s kernel={:.3}s",
                self.gpu_wait.as_secs_f64(),
                self.prefix_time.as_secs_f64(),
                k.as_secs_f64()
            )?;
        }
        Ok(())
    }
}

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

/// The GPU, opened in the background (see [`Solver::open_gpu_if_needed`]) so that CUDA's
/// start-up overlaps planning the board that needs it.
enum GpuSlot {
    None,
    /// Opening on the thread, since the instant.
    Opening(std::thread::JoinHandle<Result<Gpu, GpuError>>, Instant),
    Ready(Gpu),
    Unusable(GpuError),
}

/// Solves boards one after another with fixed options.
pub struct Solver {
    options: Options,
    gpu: GpuSlot,
    warned: bool,
}

impl Solver {
    /// A solver; with `--backend gpu`, the GPU starts opening in the background at once.
    pub fn new(options: Options) -> Solver {
        let gpu = if options.backend == BackendChoice::Gpu { open_in_background(&options) } else { GpuSlot::None };
        Solver { options, gpu, warned: false }
    }

    /// For `auto`: starts opening the GPU in the background once a board's estimated tree,
    /// `nodes` nodes that planning may still cut by `cut` times, could make the CPU sample
    /// pick the GPU. Opening it at once for every run made runs that never used it wait at
    /// exit, since a process cannot end while a thread is inside the driver's start-up
    /// (H100: cuInit 0.10 s, then the context 0.12 s): fixtures/empty_1_16.in took 0.09 to
    /// 0.17 s there against 0.06 to 0.08 s with `--backend cpu`.
    fn open_gpu_if_needed(&mut self, nodes: Option<f64>, cut: f64) {
        let idle = self.options.backend == BackendChoice::Auto && matches!(self.gpu, GpuSlot::None);
        if idle && nodes.is_some_and(|e| may_need_gpu(e / cut, rayon::current_num_threads())) {
            self.gpu = open_in_background(&self.options);
        }
    }

    /// The GPU, waiting for it to open if need be; an error when none is usable.
    pub fn gpu(&mut self) -> Result<&Gpu, GpuError> {
        if let GpuSlot::Opening(..) | GpuSlot::None = self.gpu {
            let opened = match std::mem::replace(&mut self.gpu, GpuSlot::None) {
                GpuSlot::Opening(handle, _) => handle.join().unwrap_or_else(|_| Err(GpuError::Driver("opening the GPU panicked".into()))),
                _ => open_gpu(&self.options),
            };
            self.gpu = match opened {
                Ok(g) => GpuSlot::Ready(g),
                Err(e) => GpuSlot::Unusable(e),
            };
        }
        match &self.gpu {
            GpuSlot::Ready(g) => Ok(g),
            GpuSlot::Unusable(e) => Err(e.clone()),
            GpuSlot::None | GpuSlot::Opening(..) => unreachable!("settled just above"),
        }
    }

    /// Counts the solutions of `board`.
    pub fn solve(&mut self, board: &Board, ctl: &Control) -> Result<Report, SolveError> {
        let started = Instant::now();
        if self.options.backend != BackendChoice::Gpu {
            if let Some((count, nodes)) = plan::small_count(board) {
                return Ok(Report::small(board, count, nodes, started.elapsed()));
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
        let mut report = Report {
            count: 0,
            n: board.n(),
            obstacles: board.obstacles(),
            orientation: plan.orientation.name(),
            group: symmetry::group_name(&plan.group),
            boards: plan.boards.len(),
            turned: plan.turned,
            prefixes: base.items.len() as u64,
            depth: base.depth,
            nodes: 0,
            backend: String::new(),
            elapsed: Duration::ZERO,
            plan_time,
            prefix_time: Duration::ZERO,
            gpu_wait: Duration::ZERO,
            kernel_time: None,
        };
        if self.wants_gpu(&plan, &base) {
            match self.count_on_gpu(&plan, &base, ctl, &mut report) {
                Ok(true) => {
                    report.elapsed = started.elapsed();
                    return Ok(report);
                }
                Ok(false) => {}
                Err(GpuCountError::Interrupted) => return Err(SolveError::Interrupted),
                Err(GpuCountError::Gpu(e)) if self.options.backend == BackendChoice::Gpu => return Err(SolveError::Gpu(e)),
                Err(GpuCountError::Gpu(e)) => {
                    eprintln!("nqueen: warning: the GPU failed, counting on the CPU instead: {e}");
                    self.gpu = GpuSlot::Unusable(e);
                }
            }
        }
        ctl.begin(base.items.len() as u64, "cpu");
        let tally = cpu::count(&plan, &base, self.options.schedule, ctl)?;
        report.count = tally.solutions;
        report.nodes = tally.nodes;
        let search = cpu::search_name(&plan, base.depth);
        report.backend = format!("cpu({} threads, {:?}, {search})", rayon::current_num_threads(), self.options.schedule).to_lowercase();
        report.elapsed = started.elapsed();
        Ok(report)
    }

    /// Whether this board goes to the GPU: always with `--backend gpu`; with `auto`, when a
    /// GPU is usable or still opening, some board's estimate was big enough to open it (see
    /// [`Solver::open_gpu_if_needed`]), and a timed sample says the CPU would take longer
    /// than the GPU would, its start-up included while it is still opening. The sample
    /// alone misjudged boards near the line: 64 prefixes of a skewed tree sent mirror_17,
    /// which 16 threads count in 0.25 s, to the GPU (0.41 s) in one lease of three.
    fn wants_gpu(&mut self, plan: &Plan, base: &Prefixes) -> bool {
        match self.options.backend {
            BackendChoice::Cpu => false,
            BackendChoice::Gpu => true,
            BackendChoice::Auto => {
                if matches!(self.gpu, GpuSlot::None | GpuSlot::Unusable(_)) {
                    return false;
                }
                let start_up = self.opening_since().map_or(0.0, |since| (GPU_START_SECONDS - since.elapsed().as_secs_f64()).max(0.0));
                if !cpu_would_take(plan, base, AUTO_GPU_SECONDS + start_up) {
                    return false;
                }
                // A GPU still opening is waited for in count_on_gpu, after the board's GPU
                // prefixes are planned: waiting here put that planning (0.02 to 0.04 s) after
                // the start-up. H100, process wall time, median of 9: empty 18x18 0.419 s ->
                // 0.402 s, empty 19x19 0.555 s -> 0.551 s.
                self.opening_since().is_some() || self.auto_gpu_opened()
            }
        }
    }

    /// When the GPU began to open, while it still is opening.
    fn opening_since(&self) -> Option<Instant> {
        match &self.gpu {
            GpuSlot::Opening(handle, since) if !handle.is_finished() => Some(*since),
            _ => None,
        }
    }

    /// For `auto`: whether the GPU opened, waiting for it if need be. Why it did not is said
    /// once, unless there is simply no driver or device.
    fn auto_gpu_opened(&mut self) -> bool {
        match self.gpu() {
            Ok(_) => true,
            Err(e) => {
                if !self.warned && !matches!(e, GpuError::NoDriver | GpuError::NoDevice(_)) {
                    eprintln!("nqueen: warning: counting on the CPU: {e}");
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
        let estimated_nodes = plan::estimated_nodes(plan, &base.items, base.depth, ESTIMATE_DIVES);
        let target = self.options.gpu_prefixes.unwrap_or_else(|| gpu::prefix_target(estimated_nodes));
        let deeper = prefix::deeper(plan, base, target);
        report.prefix_time = started.elapsed();
        if self.options.backend == BackendChoice::Auto && !self.auto_gpu_opened() {
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

/// The GPU, opening on a thread of its own.
fn open_in_background(options: &Options) -> GpuSlot {
    let options = options.clone();
    GpuSlot::Opening(std::thread::spawn(move || open_gpu(&options)), Instant::now())
}

/// Opens the GPU that `options` ask for.
fn open_gpu(options: &Options) -> Result<Gpu, GpuError> {
    let mut gpu = Gpu::open(options.devices.as_deref())?;
    if options.quick_exit {
        gpu.hand_over_teardown();
    }
    Ok(gpu)
}

/// Whether a search of about `nodes` nodes might take `threads` CPU threads long enough for
/// `auto` to move it to a GPU still to be opened, at full speed on every thread. The
/// estimate is rough either way, but the threads of the H100 host ran at about half that
/// speed together, which keeps boards near the line from opening the GPU for nothing: a
/// run that counted on the CPU still waited at exit for the GPU to finish opening (empty
/// 17x17, which 16 threads count in 0.22 s, took 0.37 s when it opened the GPU).
fn may_need_gpu(nodes: f64, threads: usize) -> bool {
    nodes >= (AUTO_GPU_SECONDS + GPU_START_SECONDS) * NODES_PER_THREAD_SECOND * threads as f64
}

/// Whether the whole board would take the CPU pool at least `seconds`, judged by timing an
/// even sample of its prefixes (at most [`SAMPLE`]) in the scalar search and scaling by how
/// much faster the search the CPU would run is. Sampling stops as soon as the answer is
/// known to be yes, within a prefix if need be: on a large board the full sample would cost
/// more than the GPU's whole count, and one prefix alone can (empty 20x20 with symmetry:
/// 3.1 s of sampling on the H100 host before a count of 1.7 s). The lanes themselves cannot
/// time a sample fairly: with so few prefixes, most lanes wait for the longest one.
fn cpu_would_take(plan: &Plan, base: &Prefixes, seconds: f64) -> bool {
    if base.depth >= plan.n || base.items.is_empty() {
        return false;
    }
    let step = (base.items.len() / SAMPLE).max(1);
    let planned = base.items.len().div_ceil(step);
    let threads = rayon::current_num_threads() as f64;
    let scale = base.items.len() as f64 / planned as f64 / threads / cpu::speedup_over_scalar(plan, base.depth);
    // The sample's time, scaled, can only grow into the estimate: once it has run this
    // long, the answer is yes.
    let enough = Duration::try_from_secs_f64(seconds / scale).unwrap_or(Duration::MAX);
    control::with_time_limit(enough, |ctl| {
        let started = Instant::now();
        base.items.iter().step_by(step).any(|p| {
            let b = p.board as usize;
            let counted = std::hint::black_box(cpu::count_prefix(&plan.boards[b], &plan.due[b], base.depth, p, ctl));
            counted.is_err() || started.elapsed() >= enough
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_boards_that_may_be_too_big_for_the_cpu_open_the_gpu() {
        let quick = |n| Plan::as_is(&Board::empty(n).unwrap()).expected_nodes.unwrap();
        // On 16 threads, empty 15x15 (1.3e8 nodes) takes 0.02 s; 19x19 always goes to the GPU.
        assert!(!may_need_gpu(quick(15), 16));
        assert!(may_need_gpu(quick(19) / PLANNING_CUT, 16));
        let mut solver = Solver::new(Options::default());
        solver.solve(&Board::empty(12).unwrap(), &Control::default()).unwrap();
        assert!(matches!(solver.gpu, GpuSlot::None));
        solver.open_gpu_if_needed(Some(quick(19)), PLANNING_CUT);
        assert!(!matches!(solver.gpu, GpuSlot::None));
        let forced = Solver::new(Options { backend: BackendChoice::Gpu, ..Options::default() });
        assert!(matches!(forced.gpu, GpuSlot::Opening(..)));
    }

    #[test]
    fn auto_counts_on_the_cpu_when_the_gpu_it_waited_for_fails_to_open() {
        let board = Board::empty(10).unwrap();
        let plan = Plan::plain(&board);
        let base = prefix::expand(&plan, 16);
        let mut solver = Solver::new(Options::default());
        let failing = std::thread::spawn(|| Err(GpuError::NoDevice("none here".into())));
        solver.gpu = GpuSlot::Opening(failing, Instant::now());
        let mut report = Report::small(&board, 0, 0, Duration::ZERO);
        assert!(!solver.count_on_gpu(&plan, &base, &Control::default(), &mut report).unwrap());
        assert!(matches!(solver.gpu, GpuSlot::Unusable(GpuError::NoDevice(_))));
        assert!(report.kernel_time.is_none());
    }

    #[test]
    fn the_cpu_sample_tells_big_boards_from_small_ones() {
        let big = Plan::plain(&Board::empty(15).unwrap());
        assert!(cpu_would_take(&big, &prefix::expand(&big, prefix::cpu_target(None)), 1e-9));
        let small = Plan::plain(&Board::empty(8).unwrap());
        assert!(!cpu_would_take(&small, &prefix::expand(&small, 10), 10.0));
    }
}
