//! The CPU's vector instruction sets that the counters use, and which one a run uses: the
//! widest this CPU has, narrowed by [`SEARCH_VARIABLE`] for testing and timing each. The
//! search's lanes ([`crate::cpu`]) and the table's joins ([`crate::table`]) both follow it.

/// The environment variable that narrows the CPU's search, for testing and timing each one
/// on a machine that has a wider: `avx2` (at most eight lanes) or `scalar` (no lanes).
pub const SEARCH_VARIABLE: &str = "NQUEEN_CPU_SEARCH";

/// An instruction set of vector lanes.
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
        [Isa::Avx512, Isa::Avx2].into_iter().filter(|isa| isa.supported()).collect()
    }

    /// Whether this CPU has it: AVX-512 with conflict detection (for the leading-zero
    /// count) and the native population count, or AVX2.
    pub fn supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Isa::Avx512 => {
                    is_x86_feature_detected!("avx512f")
                        && is_x86_feature_detected!("avx512cd")
                        && is_x86_feature_detected!("avx512vpopcntdq")
                }
                Isa::Avx2 => is_x86_feature_detected!("avx2"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// The widest instruction set the counters use here: the widest available, narrowed by
    /// [`SEARCH_VARIABLE`]; `None` for the scalar code.
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

    /// Its name, as `--stats` says it.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }
}
