//! A count on the GPUs: the roots (prefixes made on the host) cut into batches within each
//! unit of work, batches taken by every stream of every device as it comes free, each
//! batch expanded further and counted on the device, and each unit reported once its last
//! batch is in.

use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::{CudaFunction, CudaStream, LaunchConfig, PushKernelArg};

use super::launch::{block_shapes, expand_cfg, offsets, row_windows, STACK_ENTRY};
use super::memory::Buffer;
use super::module::{self, EntryPoint};
use super::{driver_err, Device, Gpu, GpuError};
use crate::control::{Control, Interrupted};
use crate::plan::Plan;
use crate::prefix::{self, Deeper, Prefix, Prefixes};
use crate::tally::Tally;
use crate::tuning::SHARED_NODES;

/// Prefixes per batch of a count's last batches, and of every batch when several devices
/// share a board: the last two batches of each stream, whose lanes share work at the end,
/// stay this small, since sharing costs a vote on every pass.
pub const BATCH_CAP: usize = 4 << 20;
/// Prefixes per batch before the last ones, where one device counts: fewer, larger
/// launches leave fewer warps idle at each launch's end (16 bytes a prefix on the device,
/// 1 GB a stream), unless the card's memory asks for less (a sixteenth of it at most).
pub const LARGE_BATCH_CAP: usize = 64 << 20;
/// The share of a card's memory that its streams' prefixes may take.
const BATCH_MEMORY_SHARE: usize = 16;
/// Batches each device should get when several share the work.
const BATCHES_PER_DEVICE: u64 = 16;
/// The smallest batch worth a launch when several devices share the work.
const MIN_SHARED_BATCH: usize = 64 << 10;
/// The last batches of each stream are counted by the kernel's entry points whose lanes
/// share work at the end: no later launch on the stream overlaps their tails, where the
/// slowest lane of each warp would hold its 31 others. Earlier launches leave out the vote
/// that sharing takes on every pass.
const SHARED_TAIL_BATCHES: usize = 2;

/// Why a count on the GPUs stopped before its end.
#[derive(Debug)]
pub enum CountError {
    /// A device failed.
    Gpu(GpuError),
    /// The count was cancelled (see [`Control::cancel`]).
    Interrupted,
    /// A finished unit could not be recorded: [`Units::done`] failed.
    Record(io::Error),
}

impl From<GpuError> for CountError {
    fn from(e: GpuError) -> CountError {
        CountError::Gpu(e)
    }
}

impl From<Interrupted> for CountError {
    fn from(_: Interrupted) -> CountError {
        CountError::Interrupted
    }
}

impl std::fmt::Display for CountError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CountError::Gpu(e) => write!(f, "the GPU failed: {e}"),
            CountError::Interrupted => f.write_str("interrupted"),
            CountError::Record(e) => write!(f, "cannot record a finished unit: {e}"),
        }
    }
}

impl std::error::Error for CountError {}

/// A failed CUDA call during a count.
fn failed(e: cudarc::driver::DriverError) -> CountError {
    CountError::Gpu(driver_err(e))
}

/// A finished GPU count.
#[derive(Clone, Debug)]
pub struct GpuTally {
    /// How many devices counted: the first ones opened (see [`Gpu::describe`]).
    pub devices: usize,
    /// Weighted solutions and nodes.
    pub tally: Tally,
    /// Prefixes the kernels counted.
    pub prefixes: u64,
    /// The kernel's entry point that counted them.
    pub entry_point: EntryPoint,
    /// Time during which a device had a batch in flight (its transfers and kernels),
    /// summed over devices.
    pub kernel_time: Duration,
    /// The same for each device counted, in the order of [`GpuTally::devices`], and the
    /// prefixes each counted.
    pub busy: Vec<Duration>,
    pub counted: Vec<u64>,
}

/// The units a count is cut into, and what to do as they finish.
pub struct Units<'a> {
    /// Consecutive ranges of the roots, covering them all, in order.
    pub ranges: &'a [Range<usize>],
    /// Each root's share of the estimated work, for the progress bar (empty: one each).
    pub work: &'a [f64],
    /// Called, from any thread, with each unit's index and tally once it is counted.
    pub done: &'a (dyn Fn(usize, Tally) -> io::Result<()> + Sync),
}

impl Gpu {
    /// How many devices count a search of about `estimated_nodes` nodes: all of them from
    /// [`SHARED_NODES`], else one.
    pub fn devices_for(&self, estimated_nodes: f64) -> usize {
        if estimated_nodes >= SHARED_NODES {
            self.devices.len()
        } else {
            1
        }
    }

    /// Counts the prefixes `deeper.extra` rows below `roots`, about `estimated_nodes`
    /// search nodes, spread over every device when there is enough work for them all. The
    /// devices make those prefixes themselves from the roots, a batch at a time; no batch
    /// spans two units, so that each unit is reported as soon as its batches are in.
    pub fn count(
        &self,
        plan: &Plan,
        roots: &Prefixes,
        deeper: &Deeper,
        units: &Units<'_>,
        estimated_nodes: f64,
        ctl: &Control,
    ) -> Result<GpuTally, CountError> {
        let devices = &self.devices[..self.devices_for(estimated_nodes)];
        let entry_point = EntryPoint::for_plan(plan, roots.depth + deeper.extra);
        let mut total = GpuTally {
            devices: devices.len(),
            tally: Tally::default(),
            prefixes: 0,
            entry_point,
            kernel_time: Duration::ZERO,
            busy: vec![Duration::ZERO; devices.len()],
            counted: vec![0; devices.len()],
        };
        if roots.items.is_empty() {
            return Ok(total);
        }
        let tail_batches = SHARED_TAIL_BATCHES * devices.iter().map(|d| d.streams.len()).sum::<usize>();
        let cap = batch_cap(deeper.total(), devices.len()).min(devices.iter().map(Device::batch_cap).min().unwrap_or(BATCH_CAP));
        let batches = plan_batches(&deeper.per_root, units.ranges, cap, tail_batches);
        let mut left = vec![0usize; units.ranges.len()];
        batches.iter().for_each(|b| left[b.unit] += 1);
        let largest = batches.iter().map(|b| deeper.per_root[b.roots.clone()].iter().sum::<u64>()).max().unwrap_or(0);
        let largest_batch =
            u32::try_from(largest).map_err(|_| GpuError::Driver(format!("a batch of {largest} prefixes is too large for the kernel")))?;
        let most_roots = batches.iter().map(|b| b.roots.len()).max().unwrap_or(0);
        let work = Work {
            plan,
            roots,
            deeper,
            entry_point,
            rows: row_windows(plan),
            tail_batches,
            batches,
            largest_batch,
            most_roots,
            next_batch: AtomicUsize::new(0),
            units: Mutex::new(left.into_iter().map(|left| (left, Tally::default())).collect()),
            on_units: units,
        };
        std::thread::scope(|scope| {
            let workers: Vec<_> = devices
                .iter()
                .enumerate()
                .flat_map(|(i, d)| d.streams.iter().map(move |s| (i, d, s)))
                .map(|(i, d, stream)| {
                    let work = &work;
                    (i, scope.spawn(move || d.run(stream, work, ctl)))
                })
                .collect();
            let mut busy = vec![Vec::new(); devices.len()];
            let mut first_error = None;
            for (device, w) in workers {
                match w.join() {
                    Ok(Ok(t)) => {
                        total.tally += t.tally;
                        total.prefixes += t.prefixes;
                        total.counted[device] += t.prefixes;
                        busy[device].extend(t.busy);
                    }
                    Ok(Err(e)) => {
                        first_error.get_or_insert(e);
                    }
                    Err(_) => {
                        first_error.get_or_insert(CountError::Gpu(GpuError::Driver("a GPU worker thread panicked".into())));
                    }
                }
            }
            if let Some(e) = first_error {
                return Err(e);
            }
            total.busy = busy.into_iter().map(covered).collect();
            total.kernel_time = total.busy.iter().sum();
            Ok(total)
        })
    }
}

impl Device {
    /// The most prefixes a batch may hold on this card: its streams' buffers of prefixes
    /// take at most one [`BATCH_MEMORY_SHARE`]th of its memory.
    fn batch_cap(&self) -> usize {
        let per_stream = self.memory / BATCH_MEMORY_SHARE / self.streams.len().max(1);
        (per_stream / std::mem::size_of::<Prefix>()).clamp(MIN_SHARED_BATCH, LARGE_BATCH_CAP)
    }

    /// Counts batches of `work` on stream `s`, taking the next one left until none is.
    fn run(&self, s: &Arc<CudaStream>, work: &Work, ctl: &Control) -> Result<StreamTally, CountError> {
        s.context().bind_to_thread().map_err(failed)?;
        let (plan, deeper) = (work.plan, work.deeper);
        let rows_dev = Buffer::copied(s, &work.rows).map_err(failed)?;
        let weights_dev = Buffer::copied(s, &plan.weights).map_err(failed)?;
        let mut roots_dev = Buffer::<Prefix>::zeroed(s, work.most_roots).map_err(failed)?;
        let mut prefixes_dev = Buffer::<Prefix>::zeroed(s, work.largest_batch as usize).map_err(failed)?;
        let mut offsets_dev = Buffer::<u32>::zeroed(s, work.most_roots + 1).map_err(failed)?;
        // Per batch: [0] weighted solutions, [1] nodes, [2] set if [0] would have wrapped.
        let mut totals = Buffer::<u64>::zeroed(s, 3).map_err(failed)?;
        let mut next = Buffer::<u32>::zeroed(s, 1).map_err(failed)?;
        let mut mismatches = Buffer::<u32>::zeroed(s, 1).map_err(failed)?;
        let depth = work.roots.depth + deeper.extra;
        let kernel = &self.kernels[work.entry_point.number()];
        let sharing = &self.kernels[work.entry_point.shared_number()];
        let expand = &self.kernels[module::EXPAND];
        let (block, shared, per_sm) = most_warps(kernel, plan.n, depth)?;
        let grid = self.multiprocessors * per_sm;
        let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: shared as u32 };
        let (n, base_depth, extra, depth) = (plan.n as i32, work.roots.depth as i32, deeper.extra as i32, depth as i32);
        // Bytes from one stack entry of a thread to its next: the stack is [entry][thread].
        let stack_stride = block * STACK_ENTRY as u32;
        let mut tally = Tally::default();
        let mut prefixes = 0u64;
        let mut busy = Vec::new();
        loop {
            let index = work.next_batch.fetch_add(1, Ordering::Relaxed);
            let Some(batch) = work.batches.get(index) else { break };
            let kernel = if index + work.tail_batches >= work.batches.len() { sharing } else { kernel };
            ctl.check()?;
            let started = Instant::now();
            let roots = batch.roots.clone();
            // The batch holds at most `largest_batch` prefixes, so its offsets fit in u32.
            let offsets = offsets(&deeper.per_root[roots.clone()]);
            let count = offsets[roots.len()];
            s.memcpy_htod(&offsets, &mut *offsets_dev).map_err(failed)?;
            // Only this batch's roots: copying all of them up front delays each stream's
            // first launch and needs as much device memory again as the roots.
            s.memcpy_htod(&work.roots.items[roots.clone()], &mut *roots_dev).map_err(failed)?;
            let num_roots = roots.len() as u32;
            let mut launch = s.launch_builder(expand);
            launch
                .arg(&*roots_dev)
                .arg(&num_roots)
                .arg(&*offsets_dev)
                .arg(&*rows_dev)
                .arg(&n)
                .arg(&base_depth)
                .arg(&extra)
                .arg(&mut *prefixes_dev)
                .arg(&mut *mismatches);
            // SAFETY: the arguments match expand_prefixes in kernels/count.cu; `roots_dev`
            // starts with this batch's num_roots roots and `offsets_dev` with their
            // num_roots + 1 offsets, whose last, the batch's size, is at most
            // `largest_batch`, the length of `prefixes_dev`; expand_cfg gives each thread
            // its stack.
            unsafe { launch.launch(expand_cfg(num_roots, deeper.extra)) }.map_err(failed)?;
            s.memset_zeros(&mut *next).map_err(failed)?;
            s.memset_zeros(&mut *totals).map_err(failed)?;
            let mut launch = s.launch_builder(kernel);
            launch
                .arg(&*prefixes_dev)
                .arg(&count)
                .arg(&*rows_dev)
                .arg(&*weights_dev)
                .arg(&n)
                .arg(&depth)
                .arg(&mut *next)
                .arg(&mut *totals)
                .arg(&stack_stride);
            // SAFETY: the arguments match the kernel's signature in kernels/count.cu, and
            // every buffer holds as many elements as the kernel is told.
            unsafe { launch.launch(cfg) }.map_err(failed)?;
            s.synchronize().map_err(failed)?;
            busy.push((started, Instant::now()));
            let t = s.clone_dtoh(&*totals).map_err(failed)?;
            if t[2] != 0 {
                return Err(GpuError::Driver("a batch's count passed 2^64 solutions".into()).into());
            }
            let counted = Tally { solutions: u128::from(t[0]), nodes: u128::from(t[1]) };
            tally += counted;
            prefixes += u64::from(count);
            ctl.advance(work.on_units.work.get(roots.clone()).map_or(roots.len() as f64, |w| w.iter().sum()));
            work.finished(batch.unit, counted)?;
        }
        if s.clone_dtoh(&*mismatches).map_err(failed)?[0] != 0 {
            return Err(GpuError::Driver("the device made other prefixes than the host counted (a bug in nqueen)".into()).into());
        }
        Ok(StreamTally { tally, prefixes, busy })
    }
}

/// The block shape, of those [`block_shapes`] offers, that keeps the most warps of
/// `kernel` resident on an SM, and its blocks an SM: the stack's share of shared memory
/// leaves some blocks' worth unused at one size and not at another. On a tie, the first.
fn most_warps(kernel: &CudaFunction, n: usize, depth: usize) -> Result<(u32, usize, u32), CountError> {
    let mut best = None;
    for (block, shared) in block_shapes(n, depth) {
        let per_sm = kernel.occupancy_max_active_blocks_per_multiprocessor(block, shared, None).map_err(failed)?.max(1);
        if best.is_none_or(|(b, _, p): (u32, usize, u32)| per_sm * block > p * b) {
            best = Some((block, shared, per_sm));
        }
    }
    best.ok_or_else(|| CountError::Gpu(GpuError::Driver("no block shape fits the stack in shared memory".into())))
}

/// Some roots counted together, all of one unit.
struct Batch {
    roots: Range<usize>,
    unit: usize,
}

/// What every stream of a count shares: the plan, its roots and their batches, the entry
/// point that counts them, the next batch no stream has taken yet, and each unit's
/// batches still out and tally so far.
struct Work<'a> {
    plan: &'a Plan,
    roots: &'a Prefixes,
    deeper: &'a Deeper,
    entry_point: EntryPoint,
    rows: Vec<u32>,
    /// The last batches, counted by the entry point that shares work (see
    /// [`SHARED_TAIL_BATCHES`]).
    tail_batches: usize,
    batches: Vec<Batch>,
    /// The most prefixes in one batch: every stream's buffer holds that many.
    largest_batch: u32,
    /// The most roots in one batch: every stream's buffer of roots holds that many, of
    /// offsets one more.
    most_roots: usize,
    next_batch: AtomicUsize,
    units: Mutex<Vec<(usize, Tally)>>,
    on_units: &'a Units<'a>,
}

impl Work<'_> {
    /// Adds a batch of `unit` that counted `counted`, and reports the unit if it was its last.
    fn finished(&self, unit: usize, counted: Tally) -> Result<(), CountError> {
        let complete = {
            let mut units = self.units.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let (left, tally) = &mut units[unit];
            *left -= 1;
            *tally += counted;
            (*left == 0).then_some(*tally)
        };
        match complete {
            Some(tally) => (self.on_units.done)(unit, tally).map_err(CountError::Record),
            None => Ok(()),
        }
    }
}

/// What one stream counted, and when it had a batch in flight.
struct StreamTally {
    tally: Tally,
    prefixes: u64,
    busy: Vec<(Instant, Instant)>,
}

/// The time covered by at least one of `spans` (start, end): overlapping spans count once.
fn covered(mut spans: Vec<(Instant, Instant)>) -> Duration {
    spans.sort_unstable();
    let mut total = Duration::ZERO;
    let mut reached: Option<Instant> = None;
    for (start, end) in spans {
        let from = reached.map_or(start, |r| r.max(start));
        total += end.saturating_duration_since(from);
        reached = Some(reached.map_or(end, |r| r.max(end)));
    }
    total
}

/// Prefixes per batch for `total` prefixes over `devices` devices. Several devices share
/// the batches as they come, so each should get many: neighbouring prefixes have similar
/// subtrees, and one large batch of a symmetric plan's heavy first boards can hold so much
/// of the work that the other devices idle.
fn batch_cap(total: u64, devices: usize) -> usize {
    if devices <= 1 {
        return LARGE_BATCH_CAP;
    }
    let share = total / (devices as u64 * BATCHES_PER_DEVICE);
    (share as usize).clamp(MIN_SHARED_BATCH, BATCH_CAP)
}

/// The batches of a count: each unit's roots (`ranges`) cut into batches of at most `cap`
/// prefixes, but the roots of the last `tail` batches' worth of [`BATCH_CAP`] prefixes cut
/// at [`BATCH_CAP`], so that the entry points that share work at the end count no more
/// than they do with small batches everywhere.
fn plan_batches(per_root: &[u64], ranges: &[Range<usize>], cap: usize, tail: usize) -> Vec<Batch> {
    let small = cap.min(BATCH_CAP);
    let tail_prefixes = (tail * small) as u64;
    let mut tail_start = per_root.len();
    let mut in_tail = 0u64;
    while tail_start > 0 && in_tail < tail_prefixes {
        tail_start -= 1;
        in_tail += per_root[tail_start];
    }
    let mut batches = Vec::new();
    for (unit, r) in ranges.iter().enumerate() {
        let split = tail_start.clamp(r.start, r.end);
        for (part, cap) in [(r.start..split, cap), (split..r.end, small)] {
            let within = prefix::batches(&per_root[part.clone()], cap);
            batches.extend(within.into_iter().map(|b| Batch { roots: part.start + b.start..part.start + b.end, unit }));
        }
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_spans_count_once() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert_eq!(covered(vec![]), Duration::ZERO);
        assert_eq!(covered(vec![(at(0), at(10)), (at(5), at(15)), (at(20), at(30)), (at(22), at(25))]), Duration::from_millis(25));
        assert_eq!(covered(vec![(at(20), at(30)), (at(0), at(40))]), Duration::from_millis(40));
    }

    #[test]
    fn the_last_batches_stay_small_and_every_root_is_in_one_batch_of_its_unit() {
        let per_root = vec![1u64 << 16; 4096];
        let ranges = [0..1000, 1000..4000, 4000..4096];
        let batches = plan_batches(&per_root, &ranges, LARGE_BATCH_CAP, 4);
        let size = |b: &Batch| per_root[b.roots.clone()].iter().sum::<u64>();
        let mut next = 0;
        for b in &batches {
            assert_eq!(b.roots.start, next, "batches cover the roots in order");
            next = b.roots.end;
            assert!(ranges[b.unit].start <= b.roots.start && b.roots.end <= ranges[b.unit].end, "a batch within its unit");
            assert!(size(b) <= LARGE_BATCH_CAP as u64);
        }
        assert_eq!(next, per_root.len());
        let tail = &batches[batches.len() - 4..];
        assert!(tail.iter().all(|b| size(b) <= BATCH_CAP as u64), "the shared entry points' batches stay small");
        assert!(batches.iter().any(|b| size(b) > BATCH_CAP as u64), "the batches before them are large");
        // Few roots: every batch is in the tail, at the small size.
        let one_unit: [Range<usize>; 1] = [Range { start: 0, end: 10 }];
        let few = plan_batches(&per_root[..10], &one_unit, LARGE_BATCH_CAP, 4);
        assert_eq!(few.len(), 1);
        assert!(plan_batches(&[], &[], LARGE_BATCH_CAP, 4).is_empty());
    }

    #[test]
    fn several_devices_get_many_batches_each() {
        assert_eq!(batch_cap(100 << 20, 1), LARGE_BATCH_CAP);
        assert_eq!(batch_cap(64 << 20, 2), 2 << 20);
        assert_eq!(batch_cap(1000, 2), MIN_SHARED_BATCH);
    }
}
