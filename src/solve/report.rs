//! What happened on one board: the answer, and the figures `--stats` prints.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use crate::board::Board;
use crate::gpu::Card;
use crate::plan::Plan;
use crate::prefix::Prefixes;
use crate::symmetry::{self, Sym};

/// What happened on one board, for the answer and `--stats`.
#[derive(Clone, Debug)]
pub struct Report {
    /// The number of solutions.
    pub count: u128,
    /// Side length.
    pub n: usize,
    /// Obstacle cells.
    pub obstacles: usize,
    /// The symmetry the board was searched through.
    pub orientation: &'static str,
    /// The symmetries used, by name.
    pub group: Cow<'static, str>,
    /// Boards in the plan (one per orbit of frames, or 1).
    pub boards: usize,
    /// Boards of a symmetry split searched turned (see [`Plan::turned`]).
    pub turned: usize,
    /// Prefixes counted.
    pub prefixes: u64,
    /// Rows filled in each prefix.
    pub depth: usize,
    /// Search nodes (queens placed by the search loop).
    pub nodes: u128,
    /// Of `nodes`, those an earlier run counted (resumed from a checkpoint).
    pub nodes_before: u128,
    /// Which backend and device ran it.
    pub backend: Cow<'static, str>,
    /// Wall time for the whole board.
    pub elapsed: Duration,
    /// Time to choose the orientation and split by symmetry.
    pub plan_time: Duration,
    /// Time to plan the GPU's prefixes: how many rows deeper, and how many each root makes.
    pub prefix_time: Duration,
    /// Time to make the sieve that counted it, where this board had it made (see
    /// [`crate::sieve`]).
    pub sieve_time: Option<Duration>,
    /// Time spent waiting for the GPU to finish opening.
    pub gpu_wait: Duration,
    /// Time the CPU counted while the GPU was opening, under `auto` (see
    /// [`crate::solve::Solver::count`]), whether or not it finished.
    pub race_time: Option<Duration>,
    /// Time in GPU kernels and transfers, apart from start-up.
    pub kernel_time: Option<Duration>,
    /// Where the GPU counted: when its opening began, in seconds from the case's start
    /// (less than 0 where an earlier board opened it), and how long it took.
    pub gpu_open: Option<(f64, f64)>,
    /// The GPU cards that counted, each with the seconds it had work in flight.
    pub cards: Vec<Card>,
    /// Seconds of one device (the CPU, or one GPU card) the count took: a count on two
    /// cards takes each one's; with those an earlier run took, where it was resumed.
    pub device_seconds: f64,
    /// Things the user should know that did not stop the count (a GPU that failed, say),
    /// one line each, for the caller to show.
    pub warnings: Vec<String>,
}

impl Report {
    /// The report of `board`, counted by `plan` from the prefixes `base`, before any count:
    /// the backend's figures are filled in as it runs.
    pub fn new(board: &Board, plan: &Plan, base: &Prefixes) -> Report {
        Report {
            orientation: plan.orientation.name(),
            group: symmetry::group_name(&plan.group).into(),
            boards: plan.boards.len(),
            turned: plan.turned,
            prefixes: base.items.len() as u64,
            depth: base.depth,
            backend: Cow::Borrowed(""),
            ..Report::small(board)
        }
    }

    /// The report of `board` counted whole at once, with no plan (see
    /// [`crate::plan::small_count`]): nothing in it is allocated, since such boards come by
    /// the thousand.
    pub fn small(board: &Board) -> Report {
        Report {
            count: 0,
            n: board.n(),
            obstacles: board.obstacles(),
            orientation: Sym::Identity.name(),
            group: Cow::Borrowed("trivial"),
            boards: 1,
            turned: 0,
            prefixes: 1,
            depth: 0,
            nodes: 0,
            nodes_before: 0,
            backend: Cow::Borrowed("cpu(probe: whole tree under the planning budget)"),
            elapsed: Duration::ZERO,
            plan_time: Duration::ZERO,
            prefix_time: Duration::ZERO,
            sieve_time: None,
            gpu_wait: Duration::ZERO,
            race_time: None,
            kernel_time: None,
            gpu_open: None,
            cards: Vec::new(),
            device_seconds: 0.0,
            warnings: Vec::new(),
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
            (self.nodes - self.nodes_before) as f64 / secs.max(1e-9),
        )?;
        if self.nodes_before > 0 {
            write!(f, " resumed-nodes={}", self.nodes_before)?;
        }
        write!(f, " plan={:.3}s", self.plan_time.as_secs_f64())?;
        if let Some(made) = self.sieve_time {
            write!(f, " sieve-made={:.3}s", made.as_secs_f64())?;
        }
        if let Some(race) = self.race_time {
            write!(f, " cpu-race={:.3}s", race.as_secs_f64())?;
        }
        if let Some(k) = self.kernel_time {
            write!(
                f,
                " gpu-open-wait={:.3}s gpu-prefixes={:.3}s kernel={:.3}s",
                self.gpu_wait.as_secs_f64(),
                self.prefix_time.as_secs_f64(),
                k.as_secs_f64()
            )?;
        }
        if let Some((began, took)) = self.gpu_open {
            write!(f, " gpu-open-began={began:.3}s gpu-open-took={took:.3}s")?;
        }
        Ok(())
    }
}
