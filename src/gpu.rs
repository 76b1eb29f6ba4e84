//! The GPU counter, host side: finds the devices, loads `kernels/count.cu` on each (compiled
//! by NVRTC and cached on disk: src/gpu/module.rs), hands every device the host's prefixes
//! in bounded batches, which it expands further and counts, and sums the counts.
//!
//! A machine without CUDA is the normal case: [`Gpu::open`] then returns an error that says
//! what is missing, and nothing panics. cudarc panics when a CUDA library is absent, so the
//! libraries are looked for before the first cudarc call (NVRTC only when no compiled
//! kernel is cached, since loading it costs start-up time).

use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits};

use crate::control::{Control, Interrupted};
use crate::plan::Plan;
use crate::prefix::{self, Deeper, Prefix, Prefixes};
use crate::tally::Tally;
use launch::{expand_cfg, offsets, STACK_ENTRY};
use memory::Buffer;

mod launch;
mod memory;
mod module;
#[cfg(target_os = "linux")]
pub mod teardown;
pub use launch::{block_shape, row_windows};
pub use module::{EntryPoint, KERNEL_SOURCE};

/// The most prefixes the GPU path aims for: short subtrees balance better, until fetching
/// prefixes costs more than it saves.
pub const GPU_TARGET: usize = 8 << 20;
/// The fewest prefixes the GPU path aims for: enough for every thread of an H100 to start
/// with one.
pub const GPU_MIN_TARGET: usize = 256 << 10;
/// Search nodes per prefix (at most, as the first level with enough prefixes is used) that
/// balance well.
const NODES_PER_PREFIX: f64 = 20_000.0;

/// Trees from this many estimated nodes get prefixes half as large: the kernel balances
/// them better, while smaller trees lose more to making twice the prefixes than their
/// kernels gain.
const FINE_TREE_NODES: f64 = 5e10;

/// How many prefixes to aim for on a board of about `estimated_nodes` search nodes. Small
/// boards get fewer than [`GPU_TARGET`]: making millions of prefixes for a board that
/// counts in 0.1 s takes longer than the counting.
pub fn prefix_target(estimated_nodes: f64) -> usize {
    let per_prefix = if estimated_nodes >= FINE_TREE_NODES { NODES_PER_PREFIX / 2.0 } else { NODES_PER_PREFIX };
    ((estimated_nodes / per_prefix) as usize).clamp(GPU_MIN_TARGET, GPU_TARGET)
}

/// Prefixes per batch: bounds device memory (16 bytes each) whatever the board.
pub const BATCH_CAP: usize = 4 << 20;
/// Estimated search nodes from which a board is shared among several devices. Below it,
/// the second device's set-up per board costs more than it saves.
const SHARED_NODES: f64 = 2e11;
/// Batches each device should get when several share the work.
const BATCHES_PER_DEVICE: u64 = 16;
/// The smallest batch worth a launch when several devices share the work.
const MIN_SHARED_BATCH: usize = 64 << 10;

// SAFETY: `Prefix` is `repr(C)` of four `u32`s, exactly the kernel's `struct Prefix`.
unsafe impl DeviceRepr for Prefix {}
// SAFETY: four `u32`s, for which all zero bits is a value.
unsafe impl ValidAsZeroBits for Prefix {}

/// Why the GPU backend cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuError {
    /// The CUDA driver library (libcuda) was not found.
    NoDriver,
    /// The NVRTC library (libnvrtc) was not found.
    NoNvrtc,
    /// The driver is there but shows no usable device.
    NoDevice(String),
    /// A CUDA call failed.
    Driver(String),
    /// NVRTC could not compile the kernel; holds its log.
    Compile(String),
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoDriver => f.write_str("no CUDA driver found (libcuda is not installed or not on the library path)"),
            GpuError::NoNvrtc => f.write_str("CUDA's run-time compiler NVRTC (libnvrtc) was not found; install the CUDA toolkit"),
            GpuError::NoDevice(why) => write!(f, "no usable CUDA device: {why}"),
            GpuError::Driver(why) => write!(f, "CUDA error: {why}"),
            GpuError::Compile(log) => write!(f, "NVRTC could not compile the kernel:\n{log}"),
        }
    }
}

impl std::error::Error for GpuError {}

fn driver_err(e: impl fmt::Display) -> GpuError {
    GpuError::Driver(e.to_string())
}

/// Why a GPU count stopped.
#[derive(Debug)]
pub enum GpuCountError {
    /// Cancelled by the user.
    Interrupted,
    /// The device failed.
    Gpu(GpuError),
}

impl From<Interrupted> for GpuCountError {
    fn from(_: Interrupted) -> Self {
        GpuCountError::Interrupted
    }
}

impl From<GpuError> for GpuCountError {
    fn from(e: GpuError) -> Self {
        GpuCountError::Gpu(e)
    }
}

/// Streams per device, each with a batch in flight: while the last prefixes of one batch
/// finish on a few SMs, the next batch's blocks take the idle ones.
const STREAMS_PER_DEVICE: usize = 2;

/// The environment variable by which the CUDA driver is told how many hardware queues
/// ("connections") to set up per context; by default 8.
const CONNECTIONS_VARIABLE: &str = "CUDA_DEVICE_MAX_CONNECTIONS";

/// Asks the CUDA driver for one hardware queue per context, unless the user chose a
/// number: each queue costs context creation time, and the two streams share one queue
/// without waiting on each other.
///
/// It sets an environment variable, which is safe only while no other thread may read the
/// environment: call it first thing in `main`.
pub fn ask_for_few_queues() {
    if std::env::var_os(CONNECTIONS_VARIABLE).is_none() {
        std::env::set_var(CONNECTIONS_VARIABLE, "1");
    }
}

/// One device with the kernel loaded.
struct Device {
    ordinal: usize,
    name: String,
    streams: Vec<Arc<CudaStream>>,
    /// The kernel's entry points, indexed by [`EntryPoint::number`].
    kernels: Vec<CudaFunction>,
    multiprocessors: u32,
}

/// The opened GPUs, ready to count.
pub struct Gpu {
    devices: Vec<Device>,
    /// The child holding the driver's files, if [`Gpu::hand_over_teardown`] started one.
    /// Declared after `devices`, so that a dropped `Gpu` destroys its contexts first and
    /// the child then exits with nothing left to tear down.
    #[cfg(target_os = "linux")]
    holder: Option<teardown::Holder>,
}

/// A finished GPU count.
#[derive(Clone, Copy, Debug)]
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
}

impl Gpu {
    /// Opens the devices `ordinals` (all visible devices when `None`) and loads the kernel.
    pub fn open(ordinals: Option<&[usize]>) -> Result<Gpu, GpuError> {
        // SAFETY: these only try to load the libraries; cudarc would panic without them.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(GpuError::NoDriver);
        }
        cudarc::driver::result::init().map_err(|e| GpuError::NoDevice(e.to_string()))?;
        let visible = CudaContext::device_count().map_err(|e| GpuError::NoDevice(e.to_string()))? as usize;
        if visible == 0 {
            return Err(GpuError::NoDevice("the driver reports no devices".into()));
        }
        let wanted: Vec<usize> = match ordinals {
            Some(list) => list.to_vec(),
            None => (0..visible).collect(),
        };
        if let Some(&ordinal) = wanted.iter().find(|&&o| o >= visible) {
            return Err(GpuError::NoDevice(format!("device {ordinal} asked for, but only {visible} visible")));
        }
        // Opening a device (context, module) is slow: open them side by side.
        let opened: Vec<Result<Device, GpuError>> = std::thread::scope(|scope| {
            let threads: Vec<_> = wanted.iter().map(|&ordinal| scope.spawn(move || Device::open(ordinal))).collect();
            threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|_| Err(GpuError::Driver("a thread opening a device panicked".into()))))
                .collect()
        });
        let devices = opened.into_iter().collect::<Result<Vec<_>, _>>()?;
        Ok(Gpu {
            devices,
            #[cfg(target_os = "linux")]
            holder: None,
        })
    }

    /// Hands the driver's teardown at this process's exit to a child process (see
    /// src/gpu/teardown.rs), so that the process ends as soon as its work is done; for a
    /// process that will exit without dropping this `Gpu`. Does nothing where that cannot
    /// be done (no /proc, no fork): the exit is then as slow as before, no worse.
    pub fn hand_over_teardown(&mut self) {
        #[cfg(target_os = "linux")]
        if self.holder.is_none() {
            let fds = teardown::driver_files().unwrap_or_default();
            if !fds.is_empty() {
                self.holder = teardown::Holder::start(&fds).ok();
            }
        }
    }

    /// The first `used` devices, for `--stats`: e.g. "0: NVIDIA H100 80GB HBM3".
    pub fn describe(&self, used: usize) -> String {
        self.devices.iter().take(used).map(|d| format!("{}: {}", d.ordinal, d.name)).collect::<Vec<_>>().join(", ")
    }

    /// Counts the prefixes `deeper.extra` rows below `base`, about `estimated_nodes` search
    /// nodes, spread over every device when there is enough work for them all. The devices
    /// make those prefixes themselves from `base`, a batch of roots at a time.
    pub fn count(
        &self,
        plan: &Plan,
        base: &Prefixes,
        deeper: &Deeper,
        estimated_nodes: f64,
        ctl: &Control,
    ) -> Result<GpuTally, GpuCountError> {
        let devices = if estimated_nodes >= SHARED_NODES { &self.devices[..] } else { &self.devices[..1] };
        let entry_point = EntryPoint::for_plan(plan, base.depth + deeper.extra);
        let mut total = GpuTally { devices: devices.len(), tally: Tally::default(), prefixes: 0, entry_point, kernel_time: Duration::ZERO };
        if base.items.is_empty() {
            return Ok(total);
        }
        let batches = prefix::batches(deeper, batch_cap(deeper.total(), devices.len()));
        let largest = batches.iter().map(|r| deeper.per_root[r.clone()].iter().sum::<u64>()).max().unwrap_or(0);
        let largest_batch =
            u32::try_from(largest).map_err(|_| GpuError::Driver(format!("a batch of {largest} prefixes is too large for the kernel")))?;
        let most_roots = batches.iter().map(|r| r.len()).max().unwrap_or(0);
        let work = Work {
            plan,
            base,
            deeper,
            entry_point,
            rows: row_windows(plan),
            batches,
            largest_batch,
            most_roots,
            next_batch: AtomicUsize::new(0),
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
                        total.tally = total.tally + t.tally;
                        total.prefixes += t.prefixes;
                        busy[device].extend(t.busy);
                    }
                    Ok(Err(e)) => {
                        first_error.get_or_insert(e);
                    }
                    Err(_) => {
                        first_error.get_or_insert(GpuCountError::Gpu(GpuError::Driver("a GPU worker thread panicked".into())));
                    }
                }
            }
            if let Some(e) = first_error {
                return Err(e);
            }
            total.kernel_time = busy.into_iter().map(covered).sum();
            Ok(total)
        })
    }
}

impl Device {
    fn open(ordinal: usize) -> Result<Device, GpuError> {
        let ctx = CudaContext::new(ordinal).map_err(|e| GpuError::NoDevice(format!("device {ordinal}: {e}")))?;
        memory::untracked(&ctx);
        let name = ctx.name().map_err(driver_err)?;
        let multiprocessors =
            ctx.attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).map_err(driver_err)? as u32;
        let kernels = module::load_kernels(&ctx)?;
        let streams = (0..STREAMS_PER_DEVICE).map(|_| ctx.new_stream()).collect::<Result<_, _>>().map_err(driver_err)?;
        Ok(Device { ordinal, name, streams, kernels, multiprocessors })
    }

    /// Counts batches of `work` on stream `s`, taking the next one left until none is.
    fn run(&self, s: &Arc<CudaStream>, work: &Work, ctl: &Control) -> Result<StreamTally, GpuCountError> {
        s.context().bind_to_thread().map_err(driver_err)?;
        let (plan, deeper) = (work.plan, work.deeper);
        let rows_dev = Buffer::copied(s, &work.rows).map_err(driver_err)?;
        let weights_dev = Buffer::copied(s, &plan.weights).map_err(driver_err)?;
        let mut roots_dev = Buffer::<Prefix>::zeroed(s, work.most_roots).map_err(driver_err)?;
        let mut prefixes_dev = Buffer::<Prefix>::zeroed(s, work.largest_batch as usize).map_err(driver_err)?;
        let mut offsets_dev = Buffer::<u32>::zeroed(s, work.most_roots + 1).map_err(driver_err)?;
        let mut totals = Buffer::<u64>::zeroed(s, 2).map_err(driver_err)?;
        let mut next = Buffer::<u32>::zeroed(s, 1).map_err(driver_err)?;
        let mut mismatches = Buffer::<u32>::zeroed(s, 1).map_err(driver_err)?;
        let depth = work.base.depth + deeper.extra;
        let kernel = &self.kernels[work.entry_point.number()];
        let expand = &self.kernels[module::EXPAND];
        let (block, shared) = block_shape(plan.n, depth);
        let per_sm = kernel.occupancy_max_active_blocks_per_multiprocessor(block, shared, None).map_err(driver_err)?;
        let grid = self.multiprocessors * per_sm.max(1);
        let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: shared as u32 };
        let (n, base_depth, extra, depth) = (plan.n as i32, work.base.depth as i32, deeper.extra as i32, depth as i32);
        // Bytes from one stack entry of a thread to its next: the stack is [entry][thread].
        let stack_stride = block * STACK_ENTRY as u32;
        let mut prefixes = 0u64;
        let mut busy = Vec::new();
        while let Some(roots) = work.batches.get(work.next_batch.fetch_add(1, Ordering::Relaxed)) {
            ctl.check()?;
            let started = Instant::now();
            // The batch holds at most `largest_batch` prefixes, so its offsets fit in u32.
            let offsets = offsets(&deeper.per_root[roots.clone()]);
            let count = offsets[roots.len()];
            s.memcpy_htod(&offsets, &mut *offsets_dev).map_err(driver_err)?;
            // Only this batch's roots: copying all of them up front delays each stream's
            // first launch and needs as much device memory again as the roots.
            s.memcpy_htod(&work.base.items[roots.clone()], &mut *roots_dev).map_err(driver_err)?;
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
            unsafe { launch.launch(expand_cfg(num_roots, deeper.extra)) }.map_err(driver_err)?;
            s.memset_zeros(&mut *next).map_err(driver_err)?;
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
            unsafe { launch.launch(cfg) }.map_err(driver_err)?;
            s.synchronize().map_err(driver_err)?;
            busy.push((started, Instant::now()));
            prefixes += u64::from(count);
            ctl.advance(u64::from(count));
        }
        if s.clone_dtoh(&*mismatches).map_err(driver_err)?[0] != 0 {
            return Err(GpuError::Driver("the device made other prefixes than the host counted (a bug in nqueen)".into()).into());
        }
        let t = s.clone_dtoh(&*totals).map_err(driver_err)?;
        Ok(StreamTally { tally: Tally { solutions: t[0], nodes: t[1] }, prefixes, busy })
    }
}

/// What every stream of a count shares: the plan, its roots and their batches, the entry
/// point that counts them, and the next batch no stream has taken yet.
struct Work<'a> {
    plan: &'a Plan,
    base: &'a Prefixes,
    deeper: &'a Deeper,
    entry_point: EntryPoint,
    rows: Vec<u32>,
    batches: Vec<Range<usize>>,
    /// The most prefixes in one batch: every stream's buffer holds that many.
    largest_batch: u32,
    /// The most roots in one batch: every stream's buffer of roots holds that many, of
    /// offsets one more.
    most_roots: usize,
    next_batch: AtomicUsize,
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
        return BATCH_CAP;
    }
    let share = total / (devices as u64 * BATCHES_PER_DEVICE);
    (share as usize).clamp(MIN_SHARED_BATCH, BATCH_CAP)
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
    fn small_trees_get_fewer_prefixes_within_bounds() {
        assert_eq!(prefix_target(0.0), GPU_MIN_TARGET);
        assert_eq!(prefix_target(1e15), GPU_TARGET);
        assert!(prefix_target(1e10) > GPU_MIN_TARGET && prefix_target(1e10) < GPU_TARGET);
        // Large trees get finer pieces.
        assert_eq!(prefix_target(4e10), 2_000_000);
        assert_eq!(prefix_target(8e10), 8_000_000);
    }

    #[test]
    fn several_devices_get_many_batches_each() {
        assert_eq!(batch_cap(100 << 20, 1), BATCH_CAP);
        assert_eq!(batch_cap(64 << 20, 2), 2 << 20);
        assert_eq!(batch_cap(1000, 2), MIN_SHARED_BATCH);
    }

    #[test]
    fn opening_without_a_gpu_is_an_error_not_a_panic() {
        // On CI (no CUDA) this returns an error; on a GPU machine it opens. Neither panics.
        match Gpu::open(None) {
            Ok(gpu) => assert!(!gpu.describe(1).is_empty()),
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
}
