//! The `auto` backend: which counter takes a board, and when. The GPU opens in the
//! background only once some board may need it ([`open_if_needed`]), or the boards of the
//! run still to come would save more than its opening on it, the boards counted so far
//! standing for them until the input's end is read ([`gain`]); a board goes to it
//! when the planner's estimate or a timed sample of its prefixes ([`sample`]) says the CPU
//! would take longer than the GPU would ([`route`]); a board near the line starts on the
//! CPU and races the GPU's opening; and the CPU counts whatever the GPU cannot, because it
//! did not open or failed.

mod gain;
mod sample;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::backend::{self, GpuPlan};
use super::case::Job;
use super::opener::Opener;
use super::{Options, Report};
use crate::board::Board;
use crate::control::Control;
use crate::cpu::{self, Schedule};
use crate::error::Error;
use crate::gpu::GpuError;
use crate::plan::Plan;
use crate::tuning::{GPU_BOARD_SECONDS, GPU_NODES_PER_SECOND, OPENING_LINE_SECONDS};
use gain::{saving, Gain};
use sample::{cpu_seconds, cpu_seconds_by_estimate, cpu_surely_quick, cpu_surely_takes, may_need_gpu};

/// How often a race looks whether the GPU has opened.
const RACE_LOOK_EVERY: Duration = Duration::from_millis(1);

/// Which backend counts a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    Cpu,
    Gpu,
    /// The CPU until the GPU has opened, then whichever would finish first.
    Race,
}

/// For a board the CPU would count in `cpu` seconds: once the GPU is open, the GPU where
/// the CPU would take longer than the GPU's cost of a board. While it is opening
/// (`start_up` seconds left), the CPU below [`OPENING_LINE_SECONDS`]; up to `start_up`
/// seconds more, a race between them (or the CPU, where the units are `recorded` as they
/// finish: the sample may have judged the CPU too fast; or the GPU where the run `ends`
/// after the board: a race slows the opening, and counting the last boards of a file by
/// racing them measured slower); else the GPU.
fn route(cpu: f64, start_up: Option<f64>, recorded: bool, ends: bool) -> Choice {
    match start_up {
        None if cpu < GPU_BOARD_SECONDS => Choice::Cpu,
        None => Choice::Gpu,
        Some(_) if cpu < OPENING_LINE_SECONDS => Choice::Cpu,
        Some(s) if cpu < OPENING_LINE_SECONDS + s && recorded => Choice::Cpu,
        Some(s) if cpu < OPENING_LINE_SECONDS + s && !ends => Choice::Race,
        _ => Choice::Gpu,
    }
}

/// The CPU seconds under which [`route`] leaves a search to the CPU, the GPU opening in
/// `start_up` seconds or not opening.
fn route_line(start_up: Option<f64>) -> f64 {
    start_up.map_or(GPU_BOARD_SECONDS, |_| OPENING_LINE_SECONDS)
}

/// The CPU seconds from which [`route`] gives the GPU whatever more the CPU would take:
/// the estimate and the timed sample need tell no more than this.
fn decided_from(start_up: Option<f64>) -> f64 {
    start_up.map_or(GPU_BOARD_SECONDS, |s| OPENING_LINE_SECONDS + s)
}

/// Starts opening the GPU in the background, unless something did already, once a board's
/// estimated tree (`plan`'s, which planning may still cut by `cut` times, over `shards`
/// shards) could make the CPU sample pick the GPU. Runs that never use the GPU do not open
/// it: its start-up takes CPU time from the count, and a run that loaded the driver ends
/// without its exit handlers (see `nqueen::app::exit`).
pub(super) fn open_if_needed(gpu: &mut Opener, plan: &Plan, cut: f64, shards: usize) {
    if !gpu.is_idle() || !may_need_a_gpu(plan.n) {
        return;
    }
    let rate = || cpu::nodes_per_second(plan, 0, rayon::current_num_threads());
    if let Some(fewest) = plan.expected_nodes.map(|e| e / cut / shards as f64).filter(|&f| may_need_gpu(f, rate(), gpu.start_seconds())) {
        // A board whose count will share all the cards opens them all at once.
        gpu.want_cards_for(fewest);
        gpu.start();
    }
}

/// Whether a board of side `n` may need the GPU at all. Empty 14x14's whole tree has about
/// 2.7e7 nodes: no board that small may, even on one thread, and files of many small boards
/// skip the estimates that would say so.
pub(super) fn may_need_a_gpu(n: usize) -> bool {
    n >= 15
}

/// What `auto` keeps from one board to the next.
#[derive(Default)]
pub(super) struct Auto {
    /// Whether it has said why it counts on the CPU (once a run).
    warned: bool,
    /// What the GPU would save on the run's boards, while it is not asked for.
    gain: Gain,
}

impl Auto {
    /// `board` will be counted after those expected before it; `plan` is its quick
    /// estimate, which planning may cut by `cut` times. The GPU starts opening in the
    /// background if this board may need it, or the boards expected and counted so far
    /// would together save more than the opening on it.
    pub(super) fn expect(&mut self, gpu: &mut Opener, board: &Board, plan: &Plan, cut: f64) {
        open_if_needed(gpu, plan, cut, 1);
        if let Some(nodes) = plan.expected_nodes.filter(|_| gpu.is_idle()) {
            let fewest = nodes / cut;
            let rate = cpu::nodes_per_second(plan, 0, rayon::current_num_threads());
            self.gain.expect(board, saving(cpu_seconds_by_estimate(fewest, rate), fewest));
            self.open_if_it_pays(gpu);
        }
    }

    /// No board will come after those given to [`Auto::expect`].
    pub(super) fn end_known(&mut self) {
        self.gain.end_known();
    }

    /// Starts opening the GPU once the run's boards would save more than that costs.
    fn open_if_it_pays(&mut self, gpu: &mut Opener) {
        if !gpu.is_idle() {
            self.gain.forget();
        } else if self.gain.pays(gpu.start_seconds()) {
            self.gain.forget();
            gpu.start();
        }
    }

    /// Counts `job` on the counter the module doc says, with `options`' schedule and GPU
    /// prefixes, knowing whether the run `ends` after it; a GPU that fails is marked
    /// unusable in `gpu`, with a warning, and the CPU counts the board instead.
    pub(super) fn count(
        &mut self,
        gpu: &mut Opener,
        options: &Options,
        (board, job): (&Board, &Job<'_>),
        ends: bool,
        ctl: &Control,
        report: &mut Report,
    ) -> Result<(), Error> {
        let choice = self.choose(gpu, job, ends, &mut report.warnings);
        let gpu_seconds = || GPU_BOARD_SECONDS + job.nodes() / GPU_NODES_PER_SECOND;
        if choice == Choice::Race && race_on_cpu(gpu, options.schedule, job, gpu_seconds(), ctl, report)? {
            return Ok(());
        }
        if choice != Choice::Cpu {
            match self.count_on_gpu(gpu, options, job, ctl, report) {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(Error::Gpu(e) | Error::NoGpu(e)) => {
                    report.warnings.push(format!("the GPU failed, counting on the CPU instead: {e}"));
                    gpu.failed(e);
                }
                Err(e) => return Err(e),
            }
        }
        let started = Instant::now();
        backend::count_on_cpu(job, options.schedule, ctl, report)?;
        // A small board's time on a busy CPU says nothing of what the GPU would save.
        if gpu.is_idle() && may_need_a_gpu(board.n()) {
            self.gain.counted(board, started.elapsed().as_secs_f64(), report.nodes as f64);
            self.open_if_it_pays(gpu);
        }
        Ok(())
    }

    /// Which counter takes `job`: the GPU when it is usable or still opening, some board's
    /// estimate was big enough to open it (see [`open_if_needed`]), and the planner's
    /// estimate or a timed sample says the CPU would take longer than the GPU would, its
    /// start-up included while it is opening; the board is raced where [`route`] says.
    fn choose(&mut self, gpu: &mut Opener, job: &Job<'_>, ends: bool, warnings: &mut Vec<String>) -> Choice {
        if !gpu.may_be_usable() {
            return Choice::Cpu;
        }
        let opening = gpu.opening_since();
        let start_up = opening.map_or(0.0, |since| (gpu.start_seconds() - since.elapsed().as_secs_f64()).max(0.0));
        let decided = decided_from(opening.map(|_| start_up));
        let (plan, estimate) = (&job.case.plan, job.estimate());
        let rate = cpu::nodes_per_second(plan, job.prefixes.depth, rayon::current_num_threads());
        // A GPU still opening is waited for in count_on_gpu, after the board's GPU
        // prefixes are planned, so that the planning overlaps the start-up.
        if estimate.is_some_and(|nodes| cpu_surely_takes(nodes, rate, decided)) {
            return if opening.is_some() || self.gpu_opened(gpu, warnings) { Choice::Gpu } else { Choice::Cpu };
        }
        if estimate.is_some_and(|nodes| cpu_surely_quick(nodes, rate, route_line(opening.map(|_| start_up)))) {
            return Choice::Cpu;
        }
        // The timed sample can judge the CPU several times too fast (heavy prefixes it
        // misses, threads that share cores), so the planner's estimate bounds it.
        let planned = estimate.or(plan.expected_nodes).map_or(0.0, |nodes| cpu_seconds_by_estimate(nodes, rate));
        let cpu = cpu_seconds(plan, &job.prefixes, decided).max(planned);
        match route(cpu, opening.map(|_| start_up), job.recorded(), ends) {
            Choice::Gpu if opening.is_none() && !self.gpu_opened(gpu, warnings) => Choice::Cpu,
            choice => choice,
        }
    }

    /// Counts `job` on the GPU once its prefixes are planned; false, having counted
    /// nothing, when the GPU could not be opened after all.
    fn count_on_gpu(
        &mut self,
        gpu: &mut Opener,
        options: &Options,
        job: &Job<'_>,
        ctl: &Control,
        report: &mut Report,
    ) -> Result<bool, Error> {
        let nodes = job.nodes();
        gpu.want_cards_for(nodes);
        let planned = GpuPlan::new(job, nodes, options.gpu_prefixes, report);
        if !self.gpu_opened(gpu, &mut report.warnings) {
            return Ok(false);
        }
        planned.count(gpu.wait().map_err(Error::NoGpu)?, job, ctl, report)?;
        report.warnings.extend(gpu.rest_failed());
        Ok(true)
    }

    /// Whether the GPU opened, waiting for it if need be. Why it did not is added to
    /// `warnings` once a run, unless there is simply no driver or device.
    fn gpu_opened(&mut self, gpu: &mut Opener, warnings: &mut Vec<String>) -> bool {
        match gpu.wait() {
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
}

/// While the GPU is still opening: counts `job` (as one unit) on the CPU with `schedule`
/// until the GPU has opened, then lets the CPU go on only if, at the rate it has kept, it
/// would finish before the GPU would count the job in `gpu_seconds`. True when the CPU
/// counted it (as it does when the GPU fails to open); false when it gave way to the GPU,
/// its partial count dropped.
fn race_on_cpu(
    gpu: &Opener,
    schedule: Schedule,
    job: &Job<'_>,
    gpu_seconds: f64,
    ctl: &Control,
    report: &mut Report,
) -> Result<bool, Error> {
    let Some(opened) = gpu.outcome() else { return Ok(false) };
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
        let counted = backend::count_on_cpu(job, schedule, ctl, report);
        finished.store(true, Ordering::Relaxed);
        counted
    });
    report.race_time = Some(started.elapsed());
    // Asked to give way just as the count ended: the request is dropped with it.
    let gave_way = ctl.gave_way();
    match counted {
        Ok(()) => Ok(true),
        Err(Error::Interrupted) if gave_way => {
            (report.count, report.nodes) = (0, 0);
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, OnceLock};

    use super::super::opener::State;
    use super::super::{Backend, Part, Scope, Solver};
    use super::*;
    use crate::board::Board;

    /// An opener that says, after `after`, that the GPU opened (`said`), though its thread
    /// then finds no device; and the cell it says it in.
    fn opening(after: Duration, said: Option<bool>) -> (Opener, Arc<OnceLock<bool>>) {
        let cell = Arc::new(OnceLock::new());
        let set = Arc::clone(&cell);
        let thread = std::thread::spawn(move || {
            std::thread::sleep(after);
            if let Some(said) = said {
                let _ = set.set(said);
            }
            Err(GpuError::NoDevice("none here".into()))
        });
        let mut opener = Opener::new(None, false);
        opener.state = State::Opening(thread, Arc::clone(&cell));
        opener.began = Some(Instant::now());
        (opener, cell)
    }

    #[test]
    fn auto_counts_on_the_cpu_when_the_gpu_it_waited_for_fails_to_open() {
        let board = Board::empty(10).unwrap();
        let mut solver = Solver::new(Options::default());
        let case = solver.prepare(&board, Scope::Whole);
        let part = Part::all_of(&case);
        let job = Job::new(&case, &part);
        let (mut gpu, _) = opening(Duration::ZERO, Some(false));
        let mut report = Report::new(&board, &case.plan, &case.base);
        let mut auto = Auto::default();
        assert!(!auto.count_on_gpu(&mut gpu, &Options::default(), &job, &Control::default(), &mut report).unwrap());
        assert!(matches!(gpu.state, State::Unusable(GpuError::NoDevice(_))));
        assert!(report.kernel_time.is_none() && report.warnings.is_empty());
    }

    #[test]
    fn a_board_started_on_the_cpu_gives_way_once_the_gpu_opens_and_is_still_counted() {
        let board = Board::empty(16).unwrap();
        let cpu = Options { backend: Backend::Cpu, ..Options::default() };
        let want = Solver::new(cpu).solve(&board, false, &Control::default()).unwrap().count;
        // Whether the GPU opened, its time for the board (none: it would count it at once;
        // forever), and whether the CPU should give way.
        for (said, gpu_seconds, gave_way) in [(true, 0.0, true), (true, f64::INFINITY, false), (false, 0.0, false)] {
            let mut solver = Solver::new(Options { no_symmetry: true, ..Options::default() });
            let case = solver.prepare(&board, Scope::Whole);
            let (gpu, cell) = opening(Duration::ZERO, None);
            let part = Part::all_of(&case);
            let job = Job::new(&case, &part);
            let mut report = Report::new(&board, &case.plan, &case.base);
            let ctl = Control::default();
            // The GPU says whether it opened as soon as the CPU has taken some work.
            let raced = std::thread::scope(|scope| {
                scope.spawn(|| {
                    while ctl.progress().is_none_or(|p| p.done == 0) {
                        std::thread::sleep(Duration::from_micros(100));
                    }
                    let _ = cell.set(said);
                });
                race_on_cpu(&gpu, Schedule::default(), &job, gpu_seconds, &ctl, &mut report).unwrap()
            });
            assert_eq!(raced, !gave_way);
            assert_eq!(report.count, if gave_way { 0 } else { want });
            assert!(ctl.check().is_ok(), "the run goes on");
        }
    }

    #[test]
    fn boards_race_only_within_the_gpus_start_up_and_never_when_recorded_and_an_open_gpu_takes_all_but_the_smallest() {
        assert_eq!(route(0.01, Some(0.2), false, false), Choice::Cpu);
        assert_eq!(route(0.1, Some(0.2), false, false), Choice::Race);
        assert_eq!(route(0.1, Some(0.2), true, false), Choice::Cpu);
        assert_eq!(route(0.5, Some(0.2), false, false), Choice::Gpu);
        // The last board of a run does not race: racing the last boards measured slower.
        assert_eq!(route(0.1, Some(0.2), false, true), Choice::Gpu);
        assert_eq!(route(0.01, Some(0.2), false, true), Choice::Cpu);
        // An open GPU takes every board that would keep the CPU longer than its own cost.
        assert_eq!(route(0.01, None, false, false), Choice::Gpu);
        assert_eq!(route(0.001, None, false, true), Choice::Cpu);
        // From `decided_from`, more CPU time changes nothing: the sample may stop there.
        for (start_up, recorded) in [(None, false), (Some(0.2), false), (Some(0.2), true), (Some(0.0), false)] {
            let from = decided_from(start_up);
            for ends in [false, true] {
                assert_eq!(route(from, start_up, recorded, ends), Choice::Gpu);
                assert_eq!(route(from * 100.0, start_up, recorded, ends), Choice::Gpu);
            }
            assert_ne!(route(from * 0.99, start_up, recorded, false), Choice::Gpu);
        }
    }

    #[test]
    fn boards_each_too_small_for_the_gpu_open_it_together_and_weigh_one_card() {
        // Which boards fall between the two lines depends on this CPU's speed: find one.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(16).build().unwrap();
        pool.install(|| {
            for cards in [1, 4] {
                let mut gpu = Opener::new(Some((0..cards).collect()), false);
                // Boards this small share no work among cards: only the first is opened.
                let start = gpu.start_seconds();
                assert_eq!(start, Opener::new(Some(vec![0]), false).start_seconds());
                let between = (14..=22).map(|n| Board::empty(n).unwrap()).find_map(|board| {
                    let plan = Plan::as_is(&board);
                    let cut = crate::plan::planning_cut(&board);
                    let fewest = plan.expected_nodes? / cut;
                    let rate = cpu::nodes_per_second(&plan, 0, 16);
                    let saved = saving(cpu_seconds_by_estimate(fewest, rate), fewest);
                    (!may_need_gpu(fewest, rate, start) && saved > 0.0).then_some((board, plan, cut, saved))
                });
                let (board, plan, cut, saved) = between.expect("an empty board that alone does not open the GPU");
                let needed = (start / saved).ceil() as usize;
                let mut auto = Auto::default();
                for _ in 1..needed {
                    auto.expect(&mut gpu, &board, &plan, cut);
                }
                assert!(gpu.is_idle(), "{} boards of {}x{} opened {cards} cards", needed - 1, board.n(), board.n());
                auto.expect(&mut gpu, &board, &plan, cut);
                assert!(!gpu.is_idle(), "{needed} boards of {}x{} did not open {cards} cards", board.n(), board.n());
            }
        });
    }

    #[test]
    fn a_gpu_that_fails_for_another_reason_is_reported_once() {
        let mut auto = Auto::default();
        let mut warnings = Vec::new();
        for _ in 0..2 {
            let mut gpu = Opener::new(None, false);
            gpu.failed(GpuError::Compile("a log".into()));
            assert!(!auto.gpu_opened(&mut gpu, &mut warnings));
        }
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("a log"));
    }
}
