//! The benchmark comparison script runs end to end in its quick setting, so it cannot rot.
//! It times nothing that is asserted: it checks that every program gives the same output.

use std::process::Command;

use crate::common::{have, skip_missing_tool};

#[test]
fn compare_script_runs_end_to_end_in_quick_mode() {
    for tool in ["python3", "cc"] {
        if !have(tool) {
            return skip_missing_tool("compare_script_runs_end_to_end_in_quick_mode", tool);
        }
    }
    let out = tempfile::tempdir().unwrap();
    let run = Command::new("python3")
        .args(["scripts/compare.py", "--quick", "--nqueen", env!("CARGO_BIN_EXE_nqueen"), "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "compare.py failed:\n{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    assert!(stdout.contains("| empty_14.in | 1 |"), "{stdout}");
    for file in ["compare.md", "compare.csv", "compare.svg"] {
        let text = std::fs::read_to_string(out.path().join(file)).unwrap();
        assert!(!text.is_empty(), "{file} is empty");
    }
}
