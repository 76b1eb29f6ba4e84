//! The GPU, opened on a thread of its own so that CUDA's start-up overlaps planning the
//! board that needs it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::gpu::{Gpu, GpuError};
use crate::tuning::{GPU_START_SECONDS, SHARED_NODES};

/// The GPUs a run may use, and where opening them stands.
pub(super) struct Opener {
    pub(super) state: State,
    /// GPU ordinals to open; all visible ones when `None`.
    devices: Option<Vec<usize>>,
    /// How many cards opening them all would open, once asked: runs that never weigh the
    /// GPU never look for its cards.
    cards: OnceLock<usize>,
    /// What opening one card costs: what it took on this machine before, as the cache
    /// keeps it, else [`GPU_START_SECONDS`].
    one_card: OnceLock<f64>,
    /// Hand the driver's teardown to a child process once open (see
    /// [`Gpu::hand_over_teardown`]).
    quick_exit: bool,
    /// When the opening began, and when it ended (set by the thread that opens).
    pub(super) began: Option<Instant>,
    ended: Arc<OnceLock<Instant>>,
    /// Whether a count will share its work among all the cards: until then only the first
    /// is opened, whose opening is what `auto` weighs.
    all_cards: Arc<AtomicBool>,
    /// Why some of the other cards did not open, if they did not; said once.
    rest_failed: Arc<OnceLock<GpuError>>,
    told_rest_failed: bool,
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
        Opener {
            state: State::Idle,
            devices,
            cards: OnceLock::new(),
            one_card: OnceLock::new(),
            quick_exit,
            began: None,
            ended: Arc::new(OnceLock::new()),
            all_cards: Arc::new(AtomicBool::new(false)),
            rest_failed: Arc::new(OnceLock::new()),
            told_rest_failed: false,
        }
    }

    /// What opening the GPU costs, about: the first card's start-up, as it took here before,
    /// or every card's where a count already asked for all of them (they open side by side,
    /// at about the cost of one each).
    pub(super) fn start_seconds(&self) -> f64 {
        let cards = if self.all_cards.load(Ordering::Relaxed) {
            *self.cards.get_or_init(|| self.devices.as_ref().map_or_else(visible_cards, Vec::len))
        } else {
            1
        };
        let one = *self.one_card.get_or_init(|| crate::gpu::opening_seconds().unwrap_or(GPU_START_SECONDS));
        one * cards.max(1) as f64
    }

    /// Starts opening the GPU in the background: the first card, or all of them where a
    /// count of [`SHARED_NODES`] or more has asked for them ([`Opener::want_cards_for`]).
    pub(super) fn start(&mut self) {
        let opened = Arc::new(OnceLock::new());
        let (said, ended) = (Arc::clone(&opened), Arc::clone(&self.ended));
        let (devices, quick_exit) = (self.devices.clone(), self.quick_exit);
        let (all_cards, rest_failed) = (Arc::clone(&self.all_cards), Arc::clone(&self.rest_failed));
        self.began = Some(Instant::now());
        let all_now = self.all_cards.load(Ordering::Relaxed);
        let thread = std::thread::spawn(move || {
            let gpu = open(devices.as_deref(), all_now, quick_exit).map(|mut gpu| {
                // Asked for while the first card was opening.
                if all_cards.load(Ordering::Relaxed) && gpu.has_unopened() {
                    open_rest(&mut gpu, &rest_failed);
                }
                gpu
            });
            let _ = ended.set(Instant::now());
            let _ = said.set(gpu.is_ok());
            gpu
        });
        self.state = State::Opening(thread, opened);
    }

    /// A count of about `nodes` search nodes will come: from [`SHARED_NODES`] on it shares
    /// its work among all the cards, so those not open yet start opening in the background.
    pub(super) fn want_cards_for(&mut self, nodes: f64) {
        if nodes < SHARED_NODES || self.all_cards.swap(true, Ordering::Relaxed) {
            return;
        }
        if let State::Ready(gpu) = &self.state {
            if !gpu.has_unopened() {
                return;
            }
            let State::Ready(mut gpu) = std::mem::replace(&mut self.state, State::Idle) else { unreachable!("matched just above") };
            let rest_failed = Arc::clone(&self.rest_failed);
            let thread = std::thread::spawn(move || {
                open_rest(&mut gpu, &rest_failed);
                Ok(gpu)
            });
            self.state = State::Opening(thread, Arc::new(OnceLock::from(true)));
        }
    }

    /// Why some of the cards a count asked for did not open, once a run: the count goes on
    /// on the others.
    pub(super) fn rest_failed(&mut self) -> Option<String> {
        let e = self.rest_failed.get().filter(|_| !self.told_rest_failed)?;
        self.told_rest_failed = true;
        Some(format!("counting on fewer GPUs than asked for: {e}"))
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
                    let opened = open(self.devices.as_deref(), self.all_cards.load(Ordering::Relaxed), self.quick_exit);
                    let _ = self.ended.set(Instant::now());
                    opened
                }
            };
            self.state = match opened {
                Ok(mut g) => {
                    // Asked for while the first card was opening, after its thread looked.
                    if self.all_cards.load(Ordering::Relaxed) && g.has_unopened() {
                        open_rest(&mut g, &self.rest_failed);
                    }
                    State::Ready(g)
                }
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

/// Opens the GPUs `devices` names: the first, or with `all` every one, side by side. What
/// the first card alone took is kept for the next runs to weigh.
fn open(devices: Option<&[usize]>, all: bool, quick_exit: bool) -> Result<Gpu, GpuError> {
    let began = Instant::now();
    let mut gpu = if all { Gpu::open(devices)? } else { Gpu::open_first(devices)? };
    if quick_exit {
        gpu.hand_over_teardown();
    }
    if !all {
        crate::gpu::remember_opening(began.elapsed().as_secs_f64());
    }
    Ok(gpu)
}

/// Opens the cards `gpu` has not opened yet, keeping in `failed` why some did not.
fn open_rest(gpu: &mut Gpu, failed: &OnceLock<GpuError>) {
    if let Err(e) = gpu.open_rest() {
        let _ = failed.set(e);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_count_that_shares_the_cards_weighs_opening_them_all() {
        // One card's opening: as it took here before, if a GPU ever opened here.
        let one = Opener::new(Some(vec![0]), false).start_seconds();
        assert!(one > 0.0);
        let mut gpu = Opener::new(Some(vec![0, 1, 2]), false);
        assert_eq!(gpu.start_seconds(), one);
        gpu.want_cards_for(SHARED_NODES / 2.0);
        assert_eq!(gpu.start_seconds(), one);
        gpu.want_cards_for(SHARED_NODES);
        assert_eq!(gpu.start_seconds(), 3.0 * one);
        assert!(gpu.is_idle(), "asking for cards opens nothing by itself");
        assert_eq!(gpu.rest_failed(), None);
    }
}
