//! The two counters as a count drives them: the CPU's pool, one unit at a time, and the
//! GPU, whose deeper prefixes are planned before it is waited for, so that the planning
//! overlaps a GPU still opening.

use std::sync::Mutex;
use std::time::Instant;

use super::case::Job;
use super::Report;
use crate::control::Control;
use crate::cpu::{self, Schedule};
use crate::error::Error;
use crate::gpu::{self, Card, Gpu, Units};
use crate::prefix::{self, Deeper};
use crate::tally::Tally;
use crate::words::plural;

/// Counts `job` on the CPU's pool with `schedule`, one unit at a time, recording each as it
/// finishes where the job says so.
pub(super) fn count_on_cpu(job: &Job<'_>, schedule: Schedule, ctl: &Control, report: &mut Report) -> Result<(), Error> {
    let (case, part) = (job.case, job.part);
    let (plan, depth) = (&case.plan, case.base.depth);
    let units = job.units(|| cpu::nodes_per_second(plan, depth, rayon::current_num_threads()));
    ctl.begin(part.work_before..part.work_before + units.iter().map(|u| u.estimate).sum::<f64>(), "cpu");
    for unit in &units {
        let started = Instant::now();
        let tally = cpu::count(plan, &case.prefixes(&unit.ranges), &case.work_of(&unit.ranges), schedule, ctl)?;
        let seconds = started.elapsed().as_secs_f64();
        report.count += tally.solutions;
        report.nodes += tally.nodes;
        report.device_seconds += seconds;
        if let Some(record) = part.record {
            record(unit, tally, seconds).map_err(Error::Write)?;
        }
    }
    report.backend = cpu_name(plan, depth, schedule).into();
    Ok(())
}

/// The CPU as a record names it, counting prefixes at row `depth` of `plan` with `schedule`
/// on the current pool: "cpu(2 threads, dynamic, avx512)".
pub(super) fn cpu_name(plan: &crate::plan::Plan, depth: usize, schedule: Schedule) -> String {
    let threads = rayon::current_num_threads();
    let search = cpu::search_name(plan, depth);
    let plural = plural(threads);
    format!("cpu({threads} thread{plural}, {schedule:?}, {search})").to_lowercase()
}

/// A job's prefixes as the GPU takes them: how much deeper each of the job's goes, planned
/// before the GPU is waited for.
pub(super) struct GpuPlan {
    deeper: Deeper,
    /// The job's estimated search nodes.
    nodes: f64,
    started: Instant,
}

impl GpuPlan {
    /// Plans `job`, of about `nodes` search nodes ([`Job::nodes`]), for the GPU, aiming at
    /// `target` prefixes where given, else at what [`gpu::prefix_target`] says of its size.
    pub(super) fn new(job: &Job<'_>, nodes: f64, target: Option<usize>, report: &mut Report) -> GpuPlan {
        let started = Instant::now();
        let case = job.case;
        // A part of a case (a shard, or what a checkpoint left) gets at least its share of
        // the whole case's prefixes, so that they are as small as the whole case's (a part
        // has as heavy prefixes as the whole, and the heaviest makes the tail of the
        // count), and at least what a board of its own size gets: a short count has few
        // prefixes a thread, and a whole board's are too coarse to end it evenly.
        let share = if case.estimated && case.whole > 0.0 { (nodes / case.whole).min(1.0) } else { 1.0 };
        let target = target.unwrap_or_else(|| {
            let of_whole = (gpu::prefix_target(case.whole) as f64 * share) as usize;
            gpu::prefix_target(nodes).max(of_whole)
        });
        let deeper = prefix::deeper(&case.plan, &job.prefixes, target);
        report.prefix_time = started.elapsed();
        GpuPlan { deeper, nodes, started }
    }

    /// Counts `job` on `gpu`, one unit after another in the GPU's batches, recording each
    /// as it finishes where the job says so.
    pub(super) fn count(&self, gpu: &Gpu, job: &Job<'_>, ctl: &Control, report: &mut Report) -> Result<(), Error> {
        report.gpu_wait = self.started.elapsed() - report.prefix_time;
        let (plan, roots, part) = (&job.case.plan, &*job.prefixes, job.part);
        let units = job.units(|| crate::tuning::GPU_NODES_PER_SECOND);
        // The units as ranges of the job's prefixes, which are the selection's in order.
        let mut at = 0;
        let ranges: Vec<_> = units.iter().map(|u| (at..at + u.len(), at += u.len()).0).collect();
        // A unit's device-seconds: the time since the last unit finished, on every card.
        let last = Mutex::new(Instant::now());
        let cards = gpu.devices_for(self.nodes) as f64;
        let record = |i: usize, tally: Tally| {
            let seconds = {
                let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
                let now = Instant::now();
                (now - std::mem::replace(&mut *last, now)).as_secs_f64() * cards
            };
            part.record.map_or(Ok(()), |record| record(&units[i], tally, seconds))
        };
        let all_work = job.work.iter().sum::<f64>().max(roots.items.len() as f64);
        ctl.begin(part.work_before..part.work_before + all_work, "gpu");
        let t = gpu.count(plan, roots, &self.deeper, &Units { ranges: &ranges, work: &job.work, done: &record }, self.nodes, ctl)?;
        report.count = t.tally.solutions;
        report.nodes = t.tally.nodes;
        report.prefixes = t.prefixes;
        report.depth = roots.depth + self.deeper.extra;
        report.kernel_time = Some(t.kernel_time);
        report.cards = gpu
            .cards(t.devices)
            .into_iter()
            .zip(t.busy.iter().zip(&t.counted))
            .map(|((uuid, model), (busy, &prefixes))| Card { uuid, model: Some(model), seconds: busy.as_secs_f64(), prefixes })
            .collect();
        report.device_seconds += t.busy.iter().map(|b| b.as_secs_f64()).sum::<f64>();
        report.backend = format!("gpu({}; {})", gpu.describe(t.devices), t.entry_point.name()).into();
        Ok(())
    }
}
