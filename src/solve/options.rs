//! How a solver counts: which backend, how the CPU's threads take prefixes, the use of
//! symmetry and of the GPUs, and what a count covers of a case.

use std::fmt;
use std::str::FromStr;

use crate::cpu::Schedule;
use crate::error::Error;
use crate::work::Shard;

/// Which counter counts a board: the GPU when one is usable and the board is big enough to
/// gain from it (`Auto`, the default), always the CPU, or always the GPU. Written and read
/// as `auto`, `cpu` and `gpu`.
///
/// ```
/// use nqueen::Backend;
///
/// assert_eq!("gpu".parse::<Backend>()?, Backend::Gpu);
/// assert_eq!(Backend::default().to_string(), "auto");
/// assert!("tpu".parse::<Backend>().is_err());
/// # Ok::<(), nqueen::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Backend {
    /// The GPU when one is usable and the board is big enough to gain from it, else the CPU.
    #[default]
    Auto,
    /// Always the CPU.
    Cpu,
    /// The GPU: an error ([`Error::NoGpu`]) where none is usable, before any board is
    /// counted. Boards the planner counts at once (trees under its small-tree bound, and
    /// trees whose first rows, expanded into prefixes, reach the last row) are counted on
    /// the CPU, where they are planned.
    Gpu,
}

impl Backend {
    /// Every backend's name, as `FromStr` reads them.
    pub const NAMES: [&'static str; 3] = ["auto", "cpu", "gpu"];
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Backend::NAMES[*self as usize])
    }
}

impl FromStr for Backend {
    type Err = Error;

    fn from_str(text: &str) -> Result<Backend, Error> {
        match text {
            "auto" => Ok(Backend::Auto),
            "cpu" => Ok(Backend::Cpu),
            "gpu" => Ok(Backend::Gpu),
            _ => Err(Error::BadOption(format!("{text:?} is not a backend: auto, cpu or gpu"))),
        }
    }
}

/// How to solve every board of a run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which counter to use.
    pub backend: Backend,
    /// How the CPU hands out prefixes.
    pub schedule: Schedule,
    /// Skip orientation and symmetry (for testing and timing): every board is searched as
    /// it is, and none by sieve.
    pub no_symmetry: bool,
    /// Count no board by sieve (see [`crate::sieve`]): search every one.
    pub no_sieve: bool,
    /// GPU ordinals to use; all visible ones when `None`.
    pub devices: Option<Vec<usize>>,
    /// Prefixes to aim for on the GPU; [`crate::gpu::prefix_target`] of the estimated tree when `None`.
    pub gpu_prefixes: Option<usize>,
    /// Hand the GPU driver's teardown to a child process once the GPU is open (see
    /// [`crate::gpu::Gpu::hand_over_teardown`]): for a process that exits without dropping
    /// its solver.
    pub quick_exit: bool,
}

/// What a count covers of a case: all of it, or one shard of a split into several (the
/// same on every machine: see [`crate::split`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Whole,
    Shard(Shard),
}

impl Scope {
    /// The shard it is, as records and checkpoints name it: the whole case is shard 0 of 1.
    pub fn shard(self) -> Shard {
        match self {
            Scope::Whole => Shard { index: 0, count: 1 },
            Scope::Shard(shard) => shard,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backends_read_back_what_they_write() {
        for backend in [Backend::Auto, Backend::Cpu, Backend::Gpu] {
            assert_eq!(backend.to_string().parse::<Backend>().unwrap(), backend);
        }
        assert!(matches!("GPU".parse::<Backend>(), Err(Error::BadOption(why)) if why.contains("auto, cpu or gpu")));
    }
}
