//! The GPU, opened on a thread of its own so that CUDA's start-up overlaps planning the
//! board that needs it.

use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::gpu::{Gpu, GpuError};
use crate::tuning::GPU_START_SECONDS;

/// The GPUs a run may use, and where opening them stands.
pub(super) struct Opener {
    pub(super) state: State,
    /// GPU ordinals to open; all visible ones when `None`.
    devices: Option<Vec<usize>>,
    /// What opening them would cost, by how many there are (see [`GPU_START_SECONDS`]),
    /// once asked: runs that never weigh the GPU never look for its cards.
    start_seconds: OnceLock<f64>,
    /// Hand the driver's teardown to a child process once open (see
    /// [`Gpu::hand_over_teardown`]).
    quick_exit: bool,
    /// When the opening began, and when it ended (set by the thread that opens).
    pub(super) began: Option<Instant>,
    ended: Arc<OnceLock<Instant>>,
}

/// Where opening the GPU stands.
pub(super) enum State {
    /// Not asked for yet.
    Idle,
    /// Opening on the thread (since [`Opener::began`]); the thread says in the cell whether
    /// it opened, just before it ends.
    Opening(JoinHandle<Result<Gpu, GpuError>>, Arc<OnceLock<bool>>),
    Ready(Gpu),
    Unusable(GpuError),
}

impl Opener {
    /// The GPUs `devices` names (all visible ones when `None`), not opened yet; with
    /// `quick_exit`, their driver's teardown will be handed to a child process.
    pub(super) fn new(devices: Option<Vec<usize>>, quick_exit: bool) -> Opener {
        Opener { state: State::Idle, devices, start_seconds: OnceLock::new(), quick_exit, began: None, ended: Arc::new(OnceLock::new()) }
    }

    /// What opening the GPUs costs, about: each card's start-up.
    pub(super) fn start_seconds(&self) -> f64 {
        *self.start_seconds.get_or_init(|| {
            let cards = self.devices.as_ref().map_or_else(visible_cards, Vec::len);
            GPU_START_SECONDS * cards.max(1) as f64
        })
    }

    /// Starts opening the GPU in the background.
    pub(super) fn start(&mut self) {
        let opened = Arc::new(OnceLock::new());
        let (said, ended) = (Arc::clone(&opened), Arc::clone(&self.ended));
        let (devices, quick_exit) = (self.devices.clone(), self.quick_exit);
        self.began = Some(Instant::now());
        let thread = std::thread::spawn(move || {
            let gpu = open(devices.as_deref(), quick_exit);
            let _ = ended.set(Instant::now());
            let _ = said.set(gpu.is_ok());
            gpu
        });
        self.state = State::Opening(thread, opened);
    }

    /// Whether nothing has been asked of the GPU yet.
    pub(super) fn is_idle(&self) -> bool {
        matches!(self.state, State::Idle)
    }

    /// Whether the GPU is open or still opening (not known to be unusable).
    pub(super) fn may_be_usable(&self) -> bool {
        matches!(self.state, State::Opening(..) | State::Ready(_))
    }

    /// When the GPU began to open, while it still is opening.
    pub(super) fn opening_since(&self) -> Option<Instant> {
        match &self.state {
            State::Opening(handle, _) if !handle.is_finished() => self.began,
            _ => None,
        }
    }

    /// While the GPU is opening: the cell that will say whether it opened.
    pub(super) fn outcome(&self) -> Option<Arc<OnceLock<bool>>> {
        match &self.state {
            State::Opening(_, opened) => Some(Arc::clone(opened)),
            _ => None,
        }
    }

    /// Once the opening has ended: when it began, in seconds from `from` (less than 0
    /// where it began before), and how long it took.
    pub(super) fn timing(&self, from: Instant) -> Option<(f64, f64)> {
        let began = self.began?;
        let after = began.checked_duration_since(from).map_or_else(|| -(from - began).as_secs_f64(), |d| d.as_secs_f64());
        Some((after, self.ended.get()?.saturating_duration_since(began).as_secs_f64()))
    }

    /// Marks the GPU unusable after it failed, so that nothing more is sent to it.
    pub(super) fn failed(&mut self, e: GpuError) {
        self.state = State::Unusable(e);
    }

    /// The GPU, waiting for it to open if need be (opening it here if nothing started it);
    /// an error when none is usable.
    pub(super) fn wait(&mut self) -> Result<&Gpu, GpuError> {
        if let State::Opening(..) | State::Idle = self.state {
            let opened = match std::mem::replace(&mut self.state, State::Idle) {
                State::Opening(handle, ..) => handle.join().unwrap_or_else(|_| Err(GpuError::Driver("opening the GPU panicked".into()))),
                _ => {
                    self.began = Some(Instant::now());
                    let opened = open(self.devices.as_deref(), self.quick_exit);
                    let _ = self.ended.set(Instant::now());
                    opened
                }
            };
            self.state = match opened {
                Ok(g) => State::Ready(g),
                Err(e) => State::Unusable(e),
            };
        }
        match &self.state {
            State::Ready(g) => Ok(g),
            State::Unusable(e) => Err(e.clone()),
            State::Idle | State::Opening(..) => unreachable!("settled just above"),
        }
    }
}

impl Drop for Opener {
    /// Waits for an opening still under way: a thread left inside the CUDA driver when the
    /// process exits is torn out from under it by the driver's exit handlers (a crash at
    /// exit). The `nqueen` program never drops its solver, and ends without those handlers
    /// once it has loaded the driver (see `nqueen::app::exit`).
    fn drop(&mut self) {
        if let State::Opening(handle, _) = std::mem::replace(&mut self.state, State::Idle) {
            let _ = handle.join();
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

/// How many GPUs opening all visible ones would open, told without the driver, whose
/// start-up is the cost being judged: the NVIDIA device files (`/dev/nvidia0`, ...), or
/// the entries of `CUDA_VISIBLE_DEVICES` where it names fewer; 1 where neither says.
fn visible_cards() -> usize {
    let files = std::fs::read_dir("/dev").map_or(0, |dir| {
        dir.filter_map(Result::ok)
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .and_then(|n| n.strip_prefix("nvidia"))
                    .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
            })
            .count()
    });
    let listed = std::env::var("CUDA_VISIBLE_DEVICES").ok().map(|v| v.split(',').filter(|d| !d.trim().is_empty()).count());
    match (files, listed) {
        (0, listed) => listed.unwrap_or(1),
        (files, listed) => listed.map_or(files, |l| l.min(files)),
    }
}
