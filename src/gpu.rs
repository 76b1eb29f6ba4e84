//! The GPU counter, host side: finds the devices, loads `kernels/count.cu` on each (compiled
//! by NVRTC and cached on disk: src/gpu/module.rs), hands every device the host's prefixes
//! in bounded batches, which it expands further and counts, and sums the counts.
//!
//! A machine without CUDA is the normal case: [`Gpu::open`] then returns an error that says
//! what is missing, and nothing panics. cudarc panics when a CUDA library is absent, so the
//! libraries are looked for before the first cudarc call (NVRTC only when no compiled
//! kernel is cached, since loading it costs start-up time).

use std::fmt;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DeviceRepr, DriverError, ValidAsZeroBits};

use crate::prefix::Prefix;
use crate::tuning::{LARGE_TREE, MAX_NODES_PER_PREFIX, NODES_PER_PREFIX_LARGE, NODES_PER_PREFIX_SMALL, SMALL_TREE};

mod cache;
mod count;
mod launch;
mod memory;
mod module;
#[cfg(target_os = "linux")]
pub mod teardown;
pub use cache::{opening_seconds, remember_opening, CACHE_VARIABLE};
pub use count::{CountError, GpuTally, Units, BATCH_CAP, LARGE_BATCH_CAP};
pub use launch::{block_shape, block_shapes, row_windows};
pub use module::{EntryPoint, KERNEL_SOURCE, KERNEL_SOURCE_VARIABLE};

/// The most prefixes the GPU path aims for: beyond it, the host's count of each root's
/// prefixes and the fetching of prefixes cost more than the shorter tails save.
pub const GPU_TARGET: usize = 1 << 28;
/// The fewest prefixes the GPU path aims for: enough for every thread of an H100 to start
/// with one.
pub const GPU_MIN_TARGET: usize = 256 << 10;

/// How many prefixes to aim for on a board of about `estimated_nodes` search nodes. Small
/// boards get fewer: making millions of prefixes for a board that counts in 0.1 s takes
/// longer than the counting.
pub fn prefix_target(estimated_nodes: f64) -> usize {
    let along = ((estimated_nodes.max(1.0) / SMALL_TREE).ln() / (LARGE_TREE / SMALL_TREE).ln()).clamp(0.0, 1.0);
    let per_prefix = NODES_PER_PREFIX_SMALL * (NODES_PER_PREFIX_LARGE / NODES_PER_PREFIX_SMALL).powf(along);
    ((estimated_nodes / per_prefix) as usize).clamp(GPU_MIN_TARGET, GPU_TARGET).max(finest(estimated_nodes))
}

/// The fewest prefixes that keep each of `estimated_nodes` within [`MAX_NODES_PER_PREFIX`].
pub fn finest(estimated_nodes: f64) -> usize {
    (estimated_nodes / MAX_NODES_PER_PREFIX) as usize
}

// SAFETY: `Prefix` is `repr(C)` of four `u32`s, exactly the kernel's `struct Prefix`.
unsafe impl DeviceRepr for Prefix {}
// SAFETY: four `u32`s, for which all zero bits is a value.
unsafe impl ValidAsZeroBits for Prefix {}

/// A GPU card that counted, by its UUID (see [`Gpu::cards`]) and model, the seconds it had
/// work in flight, and the prefixes it counted: cards take batches as they are free, so a
/// slow card counts fewer in the same time. Records of earlier builds name no model.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize, serde::Deserialize), serde(deny_unknown_fields))]
pub struct Card {
    pub uuid: String,
    #[cfg_attr(feature = "cli", serde(default, skip_serializing_if = "Option::is_none"))]
    pub model: Option<String>,
    pub seconds: f64,
    pub prefixes: u64,
}

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
            GpuError::Driver(why) => f.write_str(why),
            GpuError::Compile(log) => write!(f, "NVRTC could not compile the kernel:\n{log}"),
        }
    }
}

impl std::error::Error for GpuError {}

/// A failed CUDA call, in the driver's own description and name of the error (as in
/// "out of memory (CUDA_ERROR_OUT_OF_MEMORY)").
fn driver_err(e: DriverError) -> GpuError {
    GpuError::Driver(driver_words(e))
}

/// What the driver says of `e`: its description, then its name.
fn driver_words(e: DriverError) -> String {
    let text = |s: Result<&std::ffi::CStr, DriverError>| s.ok().map(|c| c.to_string_lossy().into_owned());
    match (text(e.error_string()), text(e.error_name())) {
        (Some(said), Some(name)) => format!("{said} ({name})"),
        (None, Some(name)) => name,
        _ => format!("CUDA error {}", e.0 as u32),
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
    /// The card's UUID as the driver gives it, as `nvidia-smi -L` prints it
    /// ("GPU-1234abcd-...").
    uuid: String,
    streams: Vec<Arc<CudaStream>>,
    /// The kernel's entry points, indexed by [`EntryPoint::number`].
    kernels: Vec<CudaFunction>,
    multiprocessors: u32,
    /// The card's memory, in bytes.
    memory: usize,
}

/// The opened GPUs, ready to count.
pub struct Gpu {
    devices: Vec<Device>,
    /// Devices asked for but not opened yet (see [`Gpu::open_first`]).
    unopened: Vec<usize>,
    /// The child holding the driver's files, if [`Gpu::hand_over_teardown`] started one.
    /// Declared after `devices`, so that a dropped `Gpu` destroys its contexts first and
    /// the child then exits with nothing left to tear down.
    #[cfg(target_os = "linux")]
    holder: Option<teardown::Holder>,
}

impl Gpu {
    /// Opens the devices `ordinals` (all visible devices when `None`) and loads the kernel.
    pub fn open(ordinals: Option<&[usize]>) -> Result<Gpu, GpuError> {
        let devices = open_side_by_side(&Gpu::wanted(ordinals)?).into_iter().collect::<Result<_, _>>()?;
        Ok(Gpu {
            devices,
            unopened: Vec::new(),
            #[cfg(target_os = "linux")]
            holder: None,
        })
    }

    /// The devices `ordinals` names, all visible ones when `None`, checked against those the
    /// driver sees.
    fn wanted(ordinals: Option<&[usize]>) -> Result<Vec<usize>, GpuError> {
        // SAFETY: these only try to load the libraries; cudarc would panic without them.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(GpuError::NoDriver);
        }
        cudarc::driver::result::init().map_err(|e| GpuError::NoDevice(driver_words(e)))?;
        let visible = CudaContext::device_count().map_err(|e| GpuError::NoDevice(driver_words(e)))? as usize;
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
        Ok(wanted)
    }

    /// Opens the first of the devices `ordinals` (all visible devices when `None`), the
    /// others left for [`Gpu::open_rest`]: a count shares its work among several only from
    /// [`crate::tuning::SHARED_NODES`] on, and each card's opening costs about as much as the first's.
    pub fn open_first(ordinals: Option<&[usize]>) -> Result<Gpu, GpuError> {
        let wanted = Gpu::wanted(ordinals)?;
        let (&first, rest) = wanted.split_first().ok_or_else(|| GpuError::NoDevice("no device asked for".into()))?;
        Ok(Gpu {
            devices: vec![Device::open(first)?],
            unopened: rest.to_vec(),
            #[cfg(target_os = "linux")]
            holder: None,
        })
    }

    /// Whether some devices asked for are not open yet.
    pub fn has_unopened(&self) -> bool {
        !self.unopened.is_empty()
    }

    /// Opens the devices asked for that [`Gpu::open_first`] left, side by side. On an error
    /// the devices open so far stay, and none of the rest is tried again.
    pub fn open_rest(&mut self) -> Result<(), GpuError> {
        let mut result = Ok(());
        for device in open_side_by_side(&std::mem::take(&mut self.unopened)) {
            match device {
                Ok(d) => self.devices.push(d),
                Err(e) => result = result.and(Err(e)),
            }
        }
        // The child holding the driver's files must hold the new devices' too.
        #[cfg(target_os = "linux")]
        if self.holder.take().is_some() {
            self.hand_over_teardown();
        }
        result
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

    /// The UUIDs (see [`card_uuid`]) and models of the first `used` devices.
    pub fn cards(&self, used: usize) -> Vec<(String, String)> {
        self.devices.iter().take(used).map(|d| (d.uuid.clone(), d.name.clone())).collect()
    }
}

impl Device {
    fn open(ordinal: usize) -> Result<Device, GpuError> {
        let ctx = CudaContext::new(ordinal).map_err(|e| GpuError::NoDevice(format!("device {ordinal}: {}", driver_words(e))))?;
        memory::untracked(&ctx);
        let name = ctx.name().map_err(driver_err)?;
        let uuid = card_uuid(&ctx.uuid().map_err(driver_err)?.bytes.map(|b| b as u8));
        let multiprocessors =
            ctx.attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).map_err(driver_err)? as u32;
        let memory = ctx.total_mem().map_err(driver_err)?;
        let kernels = module::load_kernels(&ctx)?;
        let streams = (0..STREAMS_PER_DEVICE).map(|_| ctx.new_stream()).collect::<Result<_, _>>().map_err(driver_err)?;
        Ok(Device { ordinal, name, uuid, streams, kernels, multiprocessors, memory })
    }
}

/// Opens the devices `ordinals`, side by side: opening one (context, module) is slow.
fn open_side_by_side(ordinals: &[usize]) -> Vec<Result<Device, GpuError>> {
    std::thread::scope(|scope| {
        let threads: Vec<_> = ordinals.iter().map(|&ordinal| scope.spawn(move || Device::open(ordinal))).collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|_| Err(GpuError::Driver("a thread opening a device panicked".into()))))
            .collect()
    })
}

/// A card's UUID as `nvidia-smi -L` prints it: "GPU-" and the 16 bytes in hex, grouped
/// 4-2-2-2-6.
fn card_uuid(bytes: &[u8; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("GPU-{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_trees_get_fewer_prefixes_within_bounds() {
        assert_eq!(prefix_target(0.0), GPU_MIN_TARGET);
        assert_eq!(prefix_target(1e13), GPU_TARGET);
        // Past it, no prefix holds more than its share.
        assert_eq!(prefix_target(1e15), 2_000_000_000);
        assert!(prefix_target(1e10) > GPU_MIN_TARGET && prefix_target(1e10) < GPU_TARGET);
        // Large trees get finer pieces, and the pieces shrink smoothly with the tree.
        assert_eq!(prefix_target(4e10), 2_000_000);
        assert_eq!(prefix_target(2e12), 200_000_000);
        let sizes: Vec<f64> = (0..80).map(|i| 1e9 * 1.2f64.powi(i)).collect();
        assert!(sizes.windows(2).all(|w| prefix_target(w[1]) >= prefix_target(w[0])));
        assert!(sizes.iter().all(|&e| e / prefix_target(e) as f64 <= NODES_PER_PREFIX_SMALL * 1.001
            || prefix_target(e) == GPU_MIN_TARGET
            || prefix_target(e) >= GPU_TARGET.max(finest(e))));
    }

    #[test]
    fn card_uuids_read_as_nvidia_smi_prints_them() {
        let bytes: [u8; 16] = std::array::from_fn(|i| (i * 17) as u8);
        assert_eq!(card_uuid(&bytes), "GPU-00112233-4455-6677-8899-aabbccddeeff");
    }

    #[test]
    fn opening_without_a_driver_is_no_driver_and_with_one_opens_or_says_why() {
        // SAFETY: only looks for the library, as `Gpu::open` does before any cudarc call.
        let driver = unsafe { cudarc::driver::sys::is_culib_present() };
        let opened = Gpu::open(None);
        let seen = match &opened {
            Ok(gpu) => format!("opened {}", gpu.describe(usize::MAX)),
            Err(e) => format!("{e:?}"),
        };
        if !driver {
            assert_eq!(opened.err(), Some(GpuError::NoDriver), "no CUDA driver here, yet opening gave: {seen}");
            return;
        }
        match &opened {
            Ok(gpu) => assert!(!gpu.describe(1).is_empty(), "a device with no description"),
            Err(GpuError::NoDevice(_) | GpuError::NoNvrtc | GpuError::Driver(_)) => {}
            Err(e) => panic!("the CUDA driver is here, and opening failed otherwise: {e}"),
        }
        // Past the harness's capture, where `cargo test` shows it: which of these it was.
        let note = format!("opening_without_a_driver_is_no_driver_and_with_one_opens_or_says_why: the CUDA driver is here: {seen}\n");
        let _ = std::io::Write::write_all(&mut std::io::stderr(), note.as_bytes());
    }
}
