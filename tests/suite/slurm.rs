//! The job array on a real one-node Slurm cluster (deploy/slurm): sixteen shards of a
//! board as eight array tasks of two shards each, one of them killed mid-run and requeued
//! by the cluster, the parts merged and checked against a direct run; then a second array
//! over the shards `nqueen recheck` chooses, merged with the first into the same count,
//! with the recounts reported; then the slow-machine drill: an array whose tasks run as two
//! machines named by NQUEEN_MACHINE, one of them slowed, whose status flags the slow one
//! alone; last, the campaign drill (scripts/campaign_drill.sh) with its tasks on the cluster.
//! Needs root and Debian's slurmctld, slurmd, slurm-client and munge, which .ci/run
//! installs; it leaves alone a machine whose Slurm is configured for another cluster.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{not_here, skip_missing_tool};

const BIN: &str = env!("CARGO_BIN_EXE_nqueen");
const TEST: &str = "slurm::a_job_array_with_a_killed_task_merges_into_the_direct_count";

/// Stops the cluster when dropped, whatever happened.
struct Cluster;

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("deploy/slurm/local-cluster.sh").arg("stop").status();
    }
}

/// Runs `cmd` and returns its stdout, which must succeed.
fn output(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Polls `done` every 50 ms for up to `limit`; whether it came true.
fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn a_job_array_with_a_killed_task_merges_into_the_direct_count() {
    // Whether each tool is installed, not whether it runs: without the cluster's
    // configuration, which the test writes, Slurm's clients fail even on --version.
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<_> = std::env::split_paths(&path).chain([PathBuf::from("/usr/sbin")]).collect();
    for tool in ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "pgrep"] {
        if !dirs.iter().any(|d| d.join(tool).is_file()) {
            return skip_missing_tool(TEST, tool);
        }
    }
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        return skip_missing_tool(TEST, "root (to start slurmctld and slurmd)");
    }
    if std::fs::read_to_string("/etc/slurm/slurm.conf").is_ok_and(|c| !c.contains("ClusterName=nqueen")) {
        return not_here(TEST, "this machine's Slurm is configured for another cluster, which the test leaves alone");
    }
    let started = Instant::now();
    let up = Command::new("deploy/slurm/local-cluster.sh").arg("start").output().unwrap();
    let _cluster = Cluster;
    if !up.status.success() {
        return skip_missing_tool(TEST, &format!("a Slurm cluster that starts ({})", String::from_utf8_lossy(&up.stderr).trim()));
    }
    let dir = tempfile::tempdir().unwrap();
    let parts = dir.path().join("parts");
    let board = "fixtures/bench/empty_18.in";
    let job = output(
        Command::new("sbatch")
            .args(["--parsable", "--array=0-7", "--chdir"])
            .arg(dir.path())
            .arg(format!("--export=ALL,NQUEEN={BIN},SHARDS_PER_TASK=2"))
            .arg(std::fs::canonicalize("deploy/slurm/nqueen-array.sbatch").unwrap())
            .arg("16")
            .arg(std::fs::canonicalize(board).unwrap())
            .arg(&parts)
            .args(["-j", "1", "--backend", "cpu"]),
    );
    let job = job.trim().to_string();
    // Kill task 3's nqueen (shards 6 and 7 of 16) once it has run a little: its script
    // exits 75, which the cluster requeues.
    let task_3 = || {
        let out = Command::new("pgrep").args(["-f", "--", "--shard 6-7/16"]).output().ok().filter(|o| o.status.success())?;
        String::from_utf8_lossy(&out.stdout).lines().next().map(str::to_string)
    };
    let mut victim = None;
    assert!(
        wait_for(Duration::from_secs(60), || {
            victim = task_3();
            victim.is_some()
        }),
        "task 3 never ran"
    );
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill").args(["-9", victim.as_deref().unwrap_or("")]).status().unwrap();
    assert!(killed.success(), "task 3 ended before it could be killed: the board is too small for this test");
    let left = || output(Command::new("squeue").args(["-h", "-j", &job])).trim().is_empty();
    assert!(
        wait_for(Duration::from_secs(180), left),
        "the job array did not finish: {}",
        output(Command::new("squeue").args(["-j", &job]))
    );
    let log = std::fs::read_to_string(dir.path().join(format!("nqueen-{job}_3.log"))).unwrap_or_default();
    assert!(log.contains("shards 6-7/16") && log.contains("attempt 2"), "task 3 was not requeued:\n{log}");
    let mut part_files: Vec<_> = (0..8).map(|k| parts.join(format!("part-{k}.jsonl"))).collect();
    part_files.retain(|p| p.exists());
    assert_eq!(part_files.len(), 8, "parts: {part_files:?}");
    let merged = output(Command::new(BIN).arg("merge").args(&part_files));
    let direct = output(Command::new(BIN).arg(board));
    assert_eq!(merged, direct);

    // A quarter of the shards counted again, by a second array into a directory of its own.
    let chosen = output(Command::new(BIN).args(["recheck", "--share", "0.25", "--seed", "3"]).args(&part_files));
    let list = dir.path().join("recheck.txt");
    std::fs::write(&list, &chosen).unwrap();
    let span = |item: &str| item.split_once('-').map_or(1, |(a, b)| b.parse::<usize>().unwrap() - a.parse::<usize>().unwrap() + 1);
    let count: usize = chosen.trim().trim_end_matches("/16").split(',').map(span).sum();
    assert_eq!(count, 4, "{chosen}");
    let recount = dir.path().join("recount");
    let job = output(
        Command::new("sbatch")
            .args(["--parsable", &format!("--array=0-{}", count.div_ceil(2) - 1), "--chdir"])
            .arg(dir.path())
            .arg(format!("--export=ALL,NQUEEN={BIN},SHARDS_PER_TASK=2,SHARD_LIST={}", list.display()))
            .arg(std::fs::canonicalize("deploy/slurm/nqueen-array.sbatch").unwrap())
            .arg("16")
            .arg(std::fs::canonicalize(board).unwrap())
            .arg(&recount)
            .args(["-j", "1", "--backend", "cpu"]),
    );
    let job = job.trim().to_string();
    let left = || output(Command::new("squeue").args(["-h", "-j", &job])).trim().is_empty();
    assert!(wait_for(Duration::from_secs(180), left), "the recount array did not finish");
    let recounts: Vec<_> = (0..count.div_ceil(2)).map(|k| recount.join(format!("part-{k}.jsonl"))).collect();
    let out = Command::new(BIN).arg("merge").args(&part_files).args(&recounts).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), direct);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("4 shards over 1 case were counted more than once (4 recounts), and every recount agrees"), "{said}");
    slow_machine_drill(dir.path());
    // The campaign drill, its tasks an array on the cluster: a killed task and one whose disk
    // is full are requeued by Slurm, and every fault of the part files is named or repaired.
    let said = crate::drill::drill(5, &["--slurm"]);
    let _ = std::io::Write::write_fmt(&mut std::io::stderr(), format_args!("slurm campaign drill: {said}\n"));
    let _ = std::io::Write::write_fmt(&mut std::io::stderr(), format_args!("slurm test: {:.1} s\n", started.elapsed().as_secs_f64()));
}

/// Eight shards of empty 17 as six tasks, one at a time, on two machines of this node
/// named by NQUEEN_MACHINE: even tasks as "node-a" on both cores, odd ones as "node-b" on
/// one core, one thread and the scalar search. The merge's status flags node-b slow, and
/// nothing else.
fn slow_machine_drill(dir: &std::path::Path) {
    let wrapper = dir.join("two-machines.sh");
    let script = format!(
        "#!/bin/sh\nif [ $((SLURM_ARRAY_TASK_ID % 2)) -eq 1 ]; then\n    export NQUEEN_MACHINE=node-b NQUEEN_CPU_SEARCH=scalar\n    exec taskset -c 0 {BIN} -j 1 \"$@\"\nfi\nexport NQUEEN_MACHINE=node-a\nexec {BIN} -j 2 \"$@\"\n"
    );
    std::fs::write(&wrapper, script).unwrap();
    let mut mode = std::fs::metadata(&wrapper).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&wrapper, mode).unwrap();
    let parts = dir.join("drill");
    let board = std::fs::canonicalize("fixtures/bench/empty_17.in").unwrap();
    let job = output(
        Command::new("sbatch")
            .args(["--parsable", "--array=0-5%1", "--chdir"])
            .arg(dir)
            .arg(format!("--export=ALL,NQUEEN={},SHARDS_PER_TASK=2", wrapper.display()))
            .arg(std::fs::canonicalize("deploy/slurm/nqueen-array.sbatch").unwrap())
            .args(["12".as_ref(), board.as_os_str(), parts.as_os_str()])
            .args(["--backend", "cpu"]),
    );
    let job = job.trim().to_string();
    let left = || output(Command::new("squeue").args(["-h", "-j", &job])).trim().is_empty();
    assert!(wait_for(Duration::from_secs(300), left), "the drill's array did not finish");
    let files: Vec<_> = (0..6).map(|k| parts.join(format!("part-{k}.jsonl"))).collect();
    let out = Command::new(BIN).args(["status", "--by", "host"]).args(&files).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let flags = |id: &str| {
        let m = json["machines"].as_array().unwrap().iter().find(|m| m["id"] == id).unwrap_or_else(|| panic!("no {id}: {text}"));
        let device: Vec<String> = m["devices"][0]["flags"].as_array().unwrap().iter().map(|f| f.to_string()).collect();
        (m["flags"].as_array().unwrap().len(), device, m["devices"][0]["against_median"].as_f64().unwrap())
    };
    let (a, b) = (flags("node-a"), flags("node-b"));
    assert!(a.0 == 0 && a.1.is_empty() && b.0 == 0 && b.1 == ["\"slow\""], "node-a {a:?}, node-b {b:?}:\n{text}");
    assert!(text.contains("2 machines, 1 flagged; every shard is in, so none is silent"), "{text}");
    let said = format!("slurm drill: node-b at {:.2}x of node-a's rate, node-a at {:.2}x of node-b's\n", b.2, a.2);
    let _ = std::io::Write::write_all(&mut std::io::stderr(), said.as_bytes());
}
