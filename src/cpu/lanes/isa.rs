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

/// The environment variable in which `.ci/run` lists what its machine's CPU lacks
/// (`avx512`, `avx2`), so that the lanes' tests know which skips CI expects.
#[cfg(test)]
const CI_LACKS_VARIABLE: &str = "NQUEEN_CI_CPU_LACKS";

#[cfg(test)]
impl Isa {
    /// The instruction sets `test` can run here: [`Isa::available`]. Each one this CPU
    /// lacks is said to be skipped, where `cargo test` shows it; under CI (`CI=true`) that
    /// fails the test, unless `.ci/run` has declared that its machine's CPU lacks it.
    pub(crate) fn available_to_test(test: &str) -> Vec<Isa> {
        let here = Isa::available();
        let under_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        let declared = std::env::var(CI_LACKS_VARIABLE).unwrap_or_default();
        for (isa, name, what) in [(Isa::Avx512, "avx512", "AVX-512 (16 lanes)"), (Isa::Avx2, "avx2", "AVX2 (8 lanes)")] {
            if !here.contains(&isa) {
                let expected = declared.split_whitespace().any(|w| w == name);
                assert!(!under_ci || expected, "{test}: this CPU lacks {what}, and {CI_LACKS_VARIABLE} does not say so");
                // Written past the harness's capture, where `cargo test` shows it.
                let note = format!("SKIPPED {test}: this CPU lacks {what}\n");
                let _ = std::io::Write::write_all(&mut std::io::stderr(), note.as_bytes());
            }
        }
        here
    }
}
