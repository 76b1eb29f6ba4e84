//! Which vector instruction set the lanes run on: the widest this CPU has, narrowed by
//! [`SEARCH_VARIABLE`] for testing and timing each.

/// The environment variable that narrows the CPU's search, for testing and timing each one
/// on a machine that has a wider: `avx2` (at most eight lanes) or `scalar` (no lanes).
pub const SEARCH_VARIABLE: &str = "NQUEEN_CPU_SEARCH";

/// An instruction set the lanes can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// Eight 32-bit lanes.
    Avx2,
    /// Sixteen 32-bit lanes, with a native population and leading-zero count.
    Avx512,
}

impl Isa {
    /// Every instruction set this CPU supports, widest first.
    pub fn available() -> Vec<Isa> {
        let mut found = Vec::new();
        if super::avx512::supported() {
            found.push(Isa::Avx512);
        }
        if super::avx2::supported() {
            found.push(Isa::Avx2);
        }
        found
    }

    /// The widest instruction set the lanes use here: the widest available, narrowed by
    /// [`SEARCH_VARIABLE`]; `None` for the scalar search.
    pub fn chosen() -> Option<Isa> {
        static CHOSEN: std::sync::OnceLock<Option<Isa>> = std::sync::OnceLock::new();
        *CHOSEN.get_or_init(|| {
            let widest = match std::env::var(SEARCH_VARIABLE).as_deref() {
                Ok("scalar") => return None,
                Ok("avx2") => Isa::Avx2,
                _ => Isa::Avx512,
            };
            Isa::available().into_iter().find(|&isa| isa == widest || widest == Isa::Avx512)
        })
    }
}
