//! The campaign drill (scripts/campaign_drill.sh) at its small size: empty 16x16 in 4,096
//! shards counted by sixteen tasks of the job array's script as worker processes, with
//! every fault it knows injected at random from a seed; each must be named by nqueen, with
//! its file and line, or repaired, and the merge must print OEIS A000170's count. The
//! same drill on a real Slurm is in `slurm.rs`.

use std::process::Command;

use crate::common::{have, skip_missing_tool};

const TEST: &str = "drill::every_fault_of_a_campaign_is_named_or_repaired";

/// Runs the drill with `seed` and `options`; its last line, which it checks is a success.
pub fn drill(seed: u64, options: &[&str]) -> String {
    let out = Command::new("bash")
        .args(["scripts/campaign_drill.sh", "--seed", &seed.to_string(), "--nqueen", env!("CARGO_BIN_EXE_nqueen")])
        .args(options)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the drill failed (seed {seed}):\n{said}\n{}", String::from_utf8_lossy(&out.stderr));
    let last = said.lines().last().unwrap_or_default().to_string();
    let q16 = crate::common::a000170()[15];
    assert!(last.contains(&format!("Case 1: {q16} (OEIS A000170: {q16})")), "{said}");
    assert!(last.ends_with("faults injected 11, repaired 6, set aside 5, misnamed 0, silent 0"), "{said}");
    last
}

#[test]
fn every_fault_of_a_campaign_is_named_or_repaired() {
    for tool in ["python3", "bash"] {
        if !have(tool) {
            return skip_missing_tool(TEST, tool);
        }
    }
    for seed in [1, 2] {
        let said = drill(seed, &[]);
        eprintln!("{said}");
    }
}
