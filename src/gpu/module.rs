//! The kernel module: `kernels/count.cu`, compiled for each device by NVRTC straight to
//! device code, and kept on disk so that later runs skip NVRTC; its entry points, and
//! which of them counts a plan.

use std::ffi::{c_char, CString};
use std::path::Path;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys, Ptx};

use super::{cache, driver_err, GpuError};
use crate::plan::Plan;
use crate::words::{os_words, shown};

/// The kernel's CUDA C source, compiled at run time.
pub const KERNEL_SOURCE: &str = include_str!("../../kernels/count.cu");
/// The kernel's entry points: the counters as [`EntryPoint::number`] numbers them, those
/// whose lanes share work at the end of a launch, then the one that makes the prefixes
/// ([`EXPAND`]).
const KERNEL_NAMES: [&str; 7] = [
    "count_prefixes",
    "count_prefixes_due",
    "count_prefixes_uniform",
    "count_prefixes_shared",
    "count_prefixes_due_shared",
    "count_prefixes_uniform_shared",
    "expand_prefixes",
];
/// The entry point that expands the host's prefixes into the deeper ones counted.
pub(super) const EXPAND: usize = 6;

/// Which of the kernel's entry points counts a plan's prefixes: each is the same search,
/// with less to read in the hot loop where the plan allows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryPoint {
    /// Reads each row's free cells from the plan's table.
    Plain = 0,
    /// Also narrows each row to its due columns (see [`crate::board::due_columns`]).
    Due = 1,
    /// Keeps the one row that every row below the prefixes is (see [`Plan::uniform_from`]).
    Uniform = 2,
}

impl EntryPoint {
    /// The entry point for `plan`'s prefixes `depth` rows deep.
    pub fn for_plan(plan: &Plan, depth: usize) -> EntryPoint {
        if plan.any_due(depth) {
            EntryPoint::Due
        } else if plan.uniform_from(depth) {
            EntryPoint::Uniform
        } else {
            EntryPoint::Plain
        }
    }

    /// Its number, as tests/suite/kernel/host.cpp takes it.
    pub fn number(self) -> usize {
        self as usize
    }

    /// The number of its form whose lanes, once the prefixes are used up, take work from
    /// the others of their warp: for a launch whose tail no later launch overlaps.
    pub fn shared_number(self) -> usize {
        self.number() + 3
    }

    /// Its name in kernels/count.cu.
    pub fn name(self) -> &'static str {
        KERNEL_NAMES[self.number()]
    }
}

/// Loads the kernel's entry points for `ctx`'s device, in [`KERNEL_NAMES`]' order,
/// compiling it with NVRTC unless a cached CUBIN for this source, these options and this
/// compute capability is on disk. For kernel work, `NQUEEN_KERNEL_SOURCE=FILE` compiles
/// FILE instead of the built-in source.
pub(super) fn load_kernels(ctx: &Arc<CudaContext>) -> Result<Vec<CudaFunction>, GpuError> {
    let entry_points = |module: Arc<cudarc::driver::CudaModule>| -> Result<Vec<CudaFunction>, GpuError> {
        KERNEL_NAMES.iter().map(|name| module.load_function(name).map_err(driver_err)).collect()
    };
    let (major, minor) = ctx.compute_capability().map_err(driver_err)?;
    let options = vec![format!("--gpu-architecture=sm_{major}{minor}"), "--std=c++14".to_string()];
    let source = match std::env::var_os(KERNEL_SOURCE_VARIABLE) {
        Some(path) => std::fs::read_to_string(&path).map_err(|e| {
            GpuError::Compile(format!("{KERNEL_SOURCE_VARIABLE}={}: cannot read it: {}", shown(Path::new(&path)), os_words(&e)))
        })?,
        None => KERNEL_SOURCE.to_string(),
    };
    let key = fnv1a(&[source.as_bytes(), options.join(" ").as_bytes()]);
    let cached = cache::dir().map(|d| d.join(format!("count-{key:016x}.cubin")));
    if let Some(bytes) = cached.as_ref().and_then(|p| cache::read(p, MOST_KERNEL_BYTES)).filter(|b| is_cubin(b)) {
        if let Ok(module) = ctx.load_module(Ptx::from_binary(bytes)) {
            return entry_points(module);
        }
    }
    // SAFETY: this only tries to load the library; cudarc would panic without it.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(GpuError::NoNvrtc);
    }
    let cubin = compile_cubin(&source, &options)?;
    if let Some(path) = cached {
        cache::store(&path, &cubin);
    }
    entry_points(ctx.load_module(Ptx::from_binary(cubin)).map_err(driver_err)?)
}

/// The environment variable that names a kernel source to compile instead of the built-in
/// one, for kernel work.
pub const KERNEL_SOURCE_VARIABLE: &str = "NQUEEN_KERNEL_SOURCE";

/// The most bytes a cached kernel may have: a larger file there is not one.
const MOST_KERNEL_BYTES: u64 = 64 << 20;

/// Whether `bytes` may be a compiled kernel: an ELF object, as NVRTC's CUBINs are. The
/// driver crashes on some other bytes (an empty file) rather than refuse them.
fn is_cubin(bytes: &[u8]) -> bool {
    bytes.len() > 64 && bytes.starts_with(b"\x7fELF")
}

/// Compiles the kernel straight to device code (a CUBIN), so the driver has nothing to JIT.
fn compile_cubin(source: &str, options: &[String]) -> Result<Vec<u8>, GpuError> {
    let src = CString::new(source).map_err(|_| GpuError::Compile("the kernel source holds a NUL byte".into()))?;
    let prog = nvrtc::create_program(&src, Some(c"count.cu")).map_err(|e| GpuError::Compile(nvrtc_words(e)))?;
    // SAFETY: `prog` was just created and is destroyed once, below; buffers are sized by NVRTC.
    let out = unsafe {
        match nvrtc::compile_program(prog, options) {
            Err(e) => {
                let log = nvrtc::get_program_log(prog).unwrap_or_default();
                let log: Vec<u8> = log.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
                Err(GpuError::Compile(format!("{}: {}", nvrtc_words(e), String::from_utf8_lossy(&log))))
            }
            Ok(()) => {
                let mut size = 0usize;
                nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size)
                    .result()
                    .and_then(|_| {
                        let mut buf = vec![0u8; size];
                        nvrtc_sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut c_char).result().map(|_| buf)
                    })
                    .map_err(|e| GpuError::Compile(nvrtc_words(e)))
            }
        }
    };
    // SAFETY: `prog` is live and not used again.
    let _ = unsafe { nvrtc::destroy_program(prog) };
    out
}

/// NVRTC's name for the error `e`, as in "NVRTC_ERROR_COMPILATION".
fn nvrtc_words(e: nvrtc::NvrtcError) -> String {
    format!("{:?}", e.0)
}

/// 64-bit FNV-1a over several byte strings: a stable cache key across builds.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        h = (h ^ 0xff).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_elf_object_is_taken_for_a_compiled_kernel() {
        assert!(!is_cubin(b""));
        assert!(!is_cubin(b"\x7fELF"));
        assert!(!is_cubin(&[b'x'; 1000]));
        let mut elf = b"\x7fELF".to_vec();
        elf.resize(1000, 0);
        assert!(is_cubin(&elf));
    }

    #[test]
    fn entry_points_read_only_what_the_plan_needs() {
        use crate::board::Board;
        let empty = Board::empty(8).unwrap();
        assert_eq!(EntryPoint::for_plan(&Plan::plain(&empty), 2), EntryPoint::Uniform);
        // An obstacle in row 1: the rows below the prefixes are alike only from row 2.
        let mut rows = empty.rows().to_vec();
        rows[1] &= !0b100;
        let top = Plan::plain(&Board::from_rows(8, rows.clone()).unwrap());
        assert_eq!(EntryPoint::for_plan(&top, 1), EntryPoint::Plain);
        assert_eq!(EntryPoint::for_plan(&top, 2), EntryPoint::Uniform);
        // Obstacles in rows 5 and 6 of one column leave it a free cell in row 7: nothing due.
        rows[5] &= !1;
        rows[6] &= !1;
        assert_eq!(EntryPoint::for_plan(&Plan::plain(&Board::from_rows(8, rows).unwrap()), 2), EntryPoint::Plain);
        // The symmetry split's side columns are due in a middle band of rows.
        assert_eq!(EntryPoint::for_plan(&Plan::symmetric(&Board::empty(12).unwrap(), crate::symmetry::Sym::Identity), 2), EntryPoint::Due);
        let defined = |name: &str| KERNEL_SOURCE.contains(&format!(") {name}(")) || KERNEL_SOURCE.contains(&format!("COUNTER({name},"));
        assert_eq!(KERNEL_NAMES.map(defined), [true; 7]);
        let shared = [EntryPoint::Plain, EntryPoint::Due, EntryPoint::Uniform].map(|e| KERNEL_NAMES[e.shared_number()]);
        assert_eq!(shared, ["count_prefixes_shared", "count_prefixes_due_shared", "count_prefixes_uniform_shared"]);
    }

    #[test]
    fn cache_keys_differ_when_the_options_do() {
        assert_ne!(fnv1a(&[b"src", b"sm_90"]), fnv1a(&[b"src", b"sm_80"]));
        assert_ne!(fnv1a(&[b"ab", b"c"]), fnv1a(&[b"a", b"bc"]));
    }
}
