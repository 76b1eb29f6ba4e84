//! The GPU, opened on a thread of its own so that CUDA's start-up overlaps planning the
//! board that needs it.

use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::gpu::{Gpu, GpuError};

/// Where opening the GPU stands.
pub(super) enum Opener {
    /// Not asked for yet.
    Idle,
    /// Opening on the thread, since the instant; the thread says in the cell whether it
    /// opened, just before it ends.
    Opening(JoinHandle<Result<Gpu, GpuError>>, Instant, Arc<OnceLock<bool>>),
    Ready(Gpu),
    Unusable(GpuError),
}

impl Opener {
    /// Starts opening the GPU that `devices` names (all visible ones when `None`) in the
    /// background; with `quick_exit`, its driver's teardown is handed to a child process
    /// (see [`Gpu::hand_over_teardown`]).
    pub(super) fn start(devices: Option<Vec<usize>>, quick_exit: bool) -> Opener {
        let opened = Arc::new(OnceLock::new());
        let said = Arc::clone(&opened);
        let thread = std::thread::spawn(move || {
            let gpu = open(devices.as_deref(), quick_exit);
            let _ = said.set(gpu.is_ok());
            gpu
        });
        Opener::Opening(thread, Instant::now(), opened)
    }

    /// Whether nothing has been asked of the GPU yet.
    pub(super) fn is_idle(&self) -> bool {
        matches!(self, Opener::Idle)
    }

    /// Whether the GPU is open or still opening (not known to be unusable).
    pub(super) fn may_be_usable(&self) -> bool {
        matches!(self, Opener::Opening(..) | Opener::Ready(_))
    }

    /// When the GPU began to open, while it still is opening.
    pub(super) fn opening_since(&self) -> Option<Instant> {
        match self {
            Opener::Opening(handle, since, _) if !handle.is_finished() => Some(*since),
            _ => None,
        }
    }

    /// While the GPU is opening: the cell that will say whether it opened.
    pub(super) fn outcome(&self) -> Option<Arc<OnceLock<bool>>> {
        match self {
            Opener::Opening(_, _, opened) => Some(Arc::clone(opened)),
            _ => None,
        }
    }

    /// The GPU, waiting for it to open if need be (opening it here if nothing started it);
    /// an error when none is usable.
    pub(super) fn wait(&mut self, devices: Option<&[usize]>, quick_exit: bool) -> Result<&Gpu, GpuError> {
        if let Opener::Opening(..) | Opener::Idle = self {
            let opened = match std::mem::replace(self, Opener::Idle) {
                Opener::Opening(handle, ..) => handle.join().unwrap_or_else(|_| Err(GpuError::Driver("opening the GPU panicked".into()))),
                _ => open(devices, quick_exit),
            };
            *self = match opened {
                Ok(g) => Opener::Ready(g),
                Err(e) => Opener::Unusable(e),
            };
        }
        match self {
            Opener::Ready(g) => Ok(g),
            Opener::Unusable(e) => Err(e.clone()),
            Opener::Idle | Opener::Opening(..) => unreachable!("settled just above"),
        }
    }
}

/// Opens the GPU `devices` names.
fn open(devices: Option<&[usize]>, quick_exit: bool) -> Result<Gpu, GpuError> {
    let mut gpu = Gpu::open(devices)?;
    if quick_exit {
        gpu.hand_over_teardown();
    }
    Ok(gpu)
}
