//! The `NQUEEN_*` environment variables (GUIDE.md, "Environment"), each looked at once as
//! a run starts: a value the run cannot use is warned of in one line that says what is
//! done instead, and the run goes on.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;

use super::Mode;
#[cfg(target_arch = "x86_64")]
use crate::cpu::lanes::SEARCH_VARIABLE;
use crate::gpu::{CACHE_VARIABLE, KERNEL_SOURCE_VARIABLE};
use crate::parts::provenance::MACHINE_VARIABLE;
use crate::progress::{self, SHOW_AFTER_VARIABLE};
use crate::solve::SIEVE_VARIABLE;
use crate::words::{os_words, shown};

/// What is wrong with the variables that a run of `mode` reads, as `var` gives them, one
/// warning a variable.
pub(super) fn warnings(mode: &Mode, var: impl Fn(&str) -> Option<OsString>) -> Vec<String> {
    let text = |name: &str| var(name).map(|v| v.to_string_lossy().into_owned());
    let mut said = Vec::new();
    let counts = !matches!(mode, Mode::Merge(_));
    #[cfg(target_arch = "x86_64")]
    if let Some(value) = text(SEARCH_VARIABLE).filter(|v| counts && !matches!(v.as_str(), "" | "avx512" | "avx2" | "scalar")) {
        said.push(format!("{SEARCH_VARIABLE}={value:?} is not a search: avx512, avx2 or scalar; the widest this CPU has is used"));
    }
    if let Some(value) = text(SIEVE_VARIABLE).filter(|v| counts && !matches!(v.as_str(), "" | "on" | "off")) {
        said.push(format!("{SIEVE_VARIABLE}={value:?} is neither on nor off: boards are counted by sieve where that is faster"));
    }
    if let Some(value) = text(SHOW_AFTER_VARIABLE).filter(|v| counts && progress::milliseconds(v).is_none()) {
        let digits = value.trim();
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            said.push(format!("{SHOW_AFTER_VARIABLE}={value:?} is too large: at most {} milliseconds; the bar waits a second", u64::MAX));
        } else {
            said.push(format!(
                "{SHOW_AFTER_VARIABLE}={value:?} is not a number of milliseconds: a whole number from 0, e.g. 200; the bar waits a second"
            ));
        }
    }
    let writes_records = matches!(mode, Mode::Count(c) if c.shards.is_some());
    match var(MACHINE_VARIABLE).filter(|_| writes_records).map(OsString::into_string) {
        Some(Ok(value)) if value.trim().is_empty() => {
            said.push(format!("{MACHINE_VARIABLE}={value:?} is blank: the part records name the machine by its id"));
        }
        Some(Err(value)) => said.push(format!(
            "{MACHINE_VARIABLE}={:?} is not UTF-8 text: the part records name the machine by its id",
            value.to_string_lossy()
        )),
        _ => {}
    }
    if let Some(dir) = var(CACHE_VARIABLE).filter(|d| counts && !d.is_empty()) {
        let dir = Path::new(&dir);
        if dir.exists() && !dir.is_dir() {
            said.push(format!("{CACHE_VARIABLE}={} is not a directory: compiled GPU kernels are not kept", shown(dir)));
        }
    }
    if let Some(source) = var(KERNEL_SOURCE_VARIABLE).filter(|_| counts) {
        let source = Path::new(&source);
        if let Err(e) = std::fs::File::open(source).and_then(|mut f| f.read(&mut [0; 1])) {
            said.push(format!("{KERNEL_SOURCE_VARIABLE}={}: cannot read it: {}; a count on the GPU fails", shown(source), os_words(&e)));
        }
    }
    said
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::app::{Counting, Merging};
    use crate::work::Shards;

    fn said(mode: &Mode, vars: &[(&str, &str)]) -> Vec<String> {
        let vars: HashMap<String, OsString> = vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect();
        warnings(mode, |name| vars.get(name).cloned())
    }

    #[test]
    fn each_variable_warns_of_a_value_it_cannot_use() {
        let count = Mode::Count(Counting::default());
        let shards = Mode::Count(Counting { shards: Some(Shards { indices: vec![0], count: 1 }), ..Counting::default() });
        let merge = Mode::Merge(Merging::Answers { summary: None });
        assert_eq!(
            said(&count, &[(SHOW_AFTER_VARIABLE, "abc")]),
            ["NQUEEN_PROGRESS_AFTER_MS=\"abc\" is not a number of milliseconds: a whole number from 0, e.g. 200; the bar waits a second"]
        );
        assert_eq!(
            said(&count, &[(SHOW_AFTER_VARIABLE, "99999999999999999999")]),
            ["NQUEEN_PROGRESS_AFTER_MS=\"99999999999999999999\" is too large: at most 18446744073709551615 milliseconds; the bar waits a second"]
        );
        assert_eq!(said(&count, &[(SHOW_AFTER_VARIABLE, "250")]), Vec::<String>::new());
        assert_eq!(
            said(&shards, &[(MACHINE_VARIABLE, " ")]),
            ["NQUEEN_MACHINE=\" \" is blank: the part records name the machine by its id"]
        );
        assert_eq!(said(&shards, &[(MACHINE_VARIABLE, "node-7")]), Vec::<String>::new());
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let bytes = OsString::from_vec(vec![0xff, 0xfe]);
            assert_eq!(
                warnings(&shards, |name| (name == MACHINE_VARIABLE).then(|| bytes.clone())),
                ["NQUEEN_MACHINE=\"\u{fffd}\u{fffd}\" is not UTF-8 text: the part records name the machine by its id"]
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a file");
        std::fs::write(&file, "x").unwrap();
        let file = file.to_str().unwrap();
        assert_eq!(
            said(&count, &[(CACHE_VARIABLE, file)]),
            [format!("NQUEEN_CACHE_DIR='{file}' is not a directory: compiled GPU kernels are not kept")]
        );
        assert_eq!(said(&count, &[(CACHE_VARIABLE, dir.path().to_str().unwrap())]), Vec::<String>::new());
        assert_eq!(
            said(&count, &[(KERNEL_SOURCE_VARIABLE, "no-such.cu")]),
            ["NQUEEN_KERNEL_SOURCE=no-such.cu: cannot read it: No such file or directory; a count on the GPU fails"]
        );
        assert_eq!(said(&count, &[(KERNEL_SOURCE_VARIABLE, file)]), Vec::<String>::new());
        // A merge counts nothing, and reads none of them.
        assert_eq!(
            said(&merge, &[(SHOW_AFTER_VARIABLE, "abc"), (CACHE_VARIABLE, file), (KERNEL_SOURCE_VARIABLE, "x")]),
            Vec::<String>::new()
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn an_unknown_search_is_warned_of() {
        let count = Mode::Count(Counting::default());
        assert_eq!(said(&count, &[(SEARCH_VARIABLE, "avx2")]), Vec::<String>::new());
        assert_eq!(
            said(&count, &[(SEARCH_VARIABLE, "avx9")]),
            ["NQUEEN_CPU_SEARCH=\"avx9\" is not a search: avx512, avx2 or scalar; the widest this CPU has is used"]
        );
    }

    #[test]
    fn a_sieve_switch_other_than_on_or_off_is_warned_of() {
        let count = Mode::Count(Counting::default());
        assert_eq!(said(&count, &[(SIEVE_VARIABLE, "off")]), Vec::<String>::new());
        assert_eq!(said(&count, &[(SIEVE_VARIABLE, "on")]), Vec::<String>::new());
        assert_eq!(
            said(&count, &[(SIEVE_VARIABLE, "no")]),
            ["NQUEEN_SIEVE=\"no\" is neither on nor off: boards are counted by sieve where that is faster"]
        );
    }
}
