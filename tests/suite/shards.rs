//! Counting past one machine, through the real binary: shards that add up to a plain run,
//! part records a merge checks, and checkpoints that survive a kill -9.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use assert_cmd::Command as Cmd;
use predicates::prelude::*;

use crate::common::{random_board, resealed, wait_or_kill, Rng};

const BIN: &str = env!("CARGO_BIN_EXE_nqueen");

fn nqueen() -> Cmd {
    Cmd::cargo_bin("nqueen").expect("the binary is built with the tests")
}

/// Runs every shard of `m` over `inputs` with `options`, each into its own part file in
/// `dir`; returns the part files.
fn run_shards(dir: &Path, m: usize, inputs: &[&str], options: &[&str]) -> Vec<PathBuf> {
    (0..m)
        .map(|k| {
            let part = dir.join(format!("part-{k}.jsonl"));
            let out = nqueen().args(options).arg("--shard").arg(format!("{k}/{m}")).args(inputs).output().unwrap();
            std::fs::write(&part, &out.stdout).unwrap();
            part
        })
        .collect()
}

/// A file of random boards large enough to be split (n 11..13, some obstacles).
fn boards_file(dir: &Path) -> PathBuf {
    let mut rng = Rng::new(21);
    let text: String = (0..4)
        .map(|_| {
            let n = rng.range(11, 13);
            random_board(&mut rng, n, 0.08).to_string()
        })
        .collect();
    let path = dir.join("boards.in");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn shards_add_up_to_a_plain_run_for_any_number_of_shards() {
    let dir = tempfile::tempdir().unwrap();
    let boards = boards_file(dir.path());
    let boards = boards.to_str().unwrap();
    let inputs = [boards, "fixtures/sample.in", "fixtures/mixed_10_12.in"];
    for options in [&[][..], &["--no-symmetry"], &["--backend", "cpu", "-j", "1"]] {
        let plain = nqueen().args(options).args(inputs).output().unwrap();
        assert!(plain.status.success());
        for m in [1, 2, 3, 8] {
            let parts = run_shards(dir.path(), m, &inputs, options);
            nqueen().arg("merge").args(&parts).assert().success().stdout(plain.stdout.clone());
        }
    }
}

/// A file of `count` small random boards, as a judge's file holds them (n 8..11, 15%
/// obstacles): most are counted at once, the others split by their nodes counted.
fn small_boards_file(dir: &Path, count: usize) -> PathBuf {
    let mut rng = Rng::new(66);
    let text: String = (0..count)
        .map(|_| {
            let n = rng.range(8, 11);
            random_board(&mut rng, n, 0.15).to_string()
        })
        .collect();
    let path = dir.join("small.in");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn shards_of_many_small_boards_add_up_to_a_plain_run() {
    let dir = tempfile::tempdir().unwrap();
    let boards = 60;
    let small = small_boards_file(dir.path(), boards);
    let plain = nqueen().arg(&small).output().unwrap();
    assert!(plain.status.success());
    let mut split = 0;
    for m in [1, 2, 5] {
        let parts = run_shards(dir.path(), m, &[small.to_str().unwrap()], &[]);
        nqueen().arg("merge").args(&parts).assert().success().stdout(plain.stdout.clone());
        let records: Vec<Vec<serde_json::Value>> =
            parts.iter().map(|p| std::fs::read_to_string(p).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()).collect();
        for case in 1..=boards {
            // One record of each board in each shard, in order, then the end's.
            let of_case: Vec<&serde_json::Value> = records.iter().map(|r| &r[case - 1]).collect();
            assert!(of_case.iter().all(|r| r["record"] == "case" && r["case"] == case), "case {case} of {m} shards");
            // A split board's line is its nodes, counted: whole, and the shards' add up to it.
            let whole = of_case[0]["case_nodes"].as_f64().unwrap();
            let shards: f64 = of_case.iter().map(|r| r["shard_nodes"].as_f64().unwrap()).sum();
            assert!(whole.fract() == 0.0 && (shards - whole).abs() <= 1e-9 * whole, "case {case}: {shards} of {whole}");
            split += usize::from(whole > 0.0);
        }
        assert!(records.iter().all(|r| r.len() == boards + 1 && r[boards]["record"] == "end"));
    }
    assert!(split >= 3 * 5, "only {split} boards' splits were looked at");
}

#[test]
fn thousands_of_shards_of_small_boards_and_of_a_large_one_add_up_to_a_plain_run() {
    // Narrow shards: found a window at a time, most of them holding nothing of their board.
    let dir = tempfile::tempdir().unwrap();
    let small = small_boards_file(dir.path(), 40);
    for (input, m) in [(small.to_str().unwrap(), 2048), ("fixtures/bench/empty_16.in", 1500)] {
        let plain = nqueen().arg(input).output().unwrap();
        let parts = dir.path().join("parts.jsonl");
        let out = nqueen().arg("--shard").arg(format!("0-{}/{m}", m - 1)).arg(input).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::write(&parts, &out.stdout).unwrap();
        nqueen().arg("merge").arg(&parts).assert().success().stdout(plain.stdout);
        // The last shard alone is the same as in the list.
        let last = nqueen().arg("--shard").arg(format!("{}/{m}", m - 1)).arg(input).output().unwrap().stdout;
        let counts = |text: &[u8]| -> Vec<serde_json::Value> {
            String::from_utf8_lossy(text)
                .lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .filter(|v| v["record"] == "case" && v["shard"] == m - 1)
                .map(|v| serde_json::json!([v["plan"], v["count"], v["nodes"]]))
                .collect()
        };
        assert_eq!(counts(&out.stdout), counts(&last));
    }
}

#[test]
fn a_list_of_shards_of_small_boards_writes_what_runs_of_each_would() {
    let dir = tempfile::tempdir().unwrap();
    let small = small_boards_file(dir.path(), 40);
    // What a record says of the count, not of the run.
    let counted = |text: &[u8], shard: u64| -> Vec<serde_json::Value> {
        let fields = ["case", "plan", "count", "nodes", "backend", "shard_nodes", "case_nodes"];
        String::from_utf8_lossy(text)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["shard"] == shard && v["record"] == "case")
            .map(|v| fields.iter().map(|&f| v[f].clone()).collect())
            .collect()
    };
    // Shard 0, which holds all of a board too small to split, not first.
    let listed = nqueen().args(["--shard", "2,0-1/3"]).arg(&small).output().unwrap();
    assert!(listed.status.success());
    for shard in 0..3 {
        let alone = nqueen().arg("--shard").arg(format!("{shard}/3")).arg(&small).output().unwrap().stdout;
        let want = counted(&alone, shard);
        assert_eq!(want.len(), 40);
        assert_eq!(counted(&listed.stdout, shard), want, "shard {shard}");
    }
}

#[test]
fn every_machine_splits_a_board_alike() {
    // The same shard with other threads and schedules: the same plan, prefixes and count.
    let dir = tempfile::tempdir().unwrap();
    let boards = boards_file(dir.path());
    let record = |options: &[&str]| {
        let out = nqueen().args(options).args(["--shard", "1/3"]).arg(&boards).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (v["plan"].clone(), v["count"].clone(), v["nodes"].clone())
            })
            .collect::<Vec<_>>()
    };
    let first = record(&["-j", "1"]);
    assert_eq!(first, record(&["-j", "3", "--schedule", "static"]));
    assert_eq!(first, record(&["--backend", "cpu"]));
}

#[test]
fn part_records_say_what_was_counted() {
    let out = nqueen().args(["--shard", "0/2", "fixtures/sample.in"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "two cases and the end of the input: {text}");
    for field in ["format", "nqueen", "input", "case", "n", "board", "plan", "shard", "shards", "count", "nodes", "backend", "seconds"] {
        assert!(lines[0].get(field).is_some(), "no {field} in {}", lines[0]);
    }
    assert_eq!((lines[0]["case"].as_u64(), lines[0]["n"].as_u64(), lines[0]["board"].as_str().map(str::len)), (Some(1), Some(8), Some(64)));
    assert_eq!(lines[2]["record"], "end");
    assert_eq!(lines[2]["cases"], 2);
}

#[test]
fn a_bad_shard_or_mode_is_a_usage_error() {
    for shard in ["4/4", "0/0", "x/3", "1", "-1/3"] {
        nqueen().arg(format!("--shard={shard}")).arg("fixtures/sample.in").assert().code(2).stderr(predicate::str::contains("--shard"));
    }
    nqueen().args(["merge", "--shard", "1/2", "fixtures/sample.in"]).assert().code(2);
    nqueen().args(["status", "--checkpoint", "x", "fixtures/sample.in"]).assert().code(2);
}

#[test]
fn a_merge_names_what_is_missing_repeated_or_foreign() {
    let dir = tempfile::tempdir().unwrap();
    let parts = run_shards(dir.path(), 3, &["fixtures/sample.in", "fixtures/mixed_10_12.in"], &[]);
    let all = |extra: &[&Path]| {
        let mut files: Vec<PathBuf> = parts.clone();
        files.extend(extra.iter().map(|p| p.to_path_buf()));
        files
    };
    // A part file cut after the first input's first case of shard 1.
    let text = std::fs::read_to_string(&parts[1]).unwrap();
    let cut = dir.path().join("cut.jsonl");
    std::fs::write(&cut, text.lines().next().unwrap().to_string() + "\n").unwrap();
    nqueen()
        .arg("merge")
        .args([&parts[0], &cut, &parts[2]])
        .assert()
        .code(1)
        .stdout("Case 1: 92\n")
        .stderr(predicate::str::contains("fixtures/sample.in: case 2: missing shard 1 of 3"));
    // The same shard twice, in a copy of its file.
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(&parts[1], &copy).unwrap();
    nqueen()
        .arg("merge")
        .args(all(&[&copy]))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("was counted twice").and(predicate::str::contains("part-1.jsonl, line 1 (shard 1)")));
    // A torn last line, and a line that is not a record.
    let torn = dir.path().join("torn.jsonl");
    std::fs::write(&torn, &text[..text.len() - 20]).unwrap();
    nqueen()
        .arg("merge")
        .args([&parts[0], &torn, &parts[2]])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("torn.jsonl: line 13: a torn last line"));
    let junk = dir.path().join("junk.jsonl");
    std::fs::write(&junk, "Case 1: 92\n").unwrap();
    nqueen()
        .arg("merge")
        .args(all(&[&junk]))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("junk.jsonl: line 1: this holds answers that nqueen printed, not a part record"));
    // Parts of another board, well-formed (their digests made again).
    let other = dir.path().join("other.jsonl");
    let text = std::fs::read_to_string(&parts[2]).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines[0] = resealed(&lines[0], |l| l.replacen("\"board\":\"", "\"board\":\"0", 1));
    std::fs::write(&other, lines.join("\n") + "\n").unwrap();
    nqueen()
        .arg("merge")
        .args([&parts[0], &parts[1], &other])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is a record of another board than"));
    // The status lists what is missing, and says when nothing is.
    nqueen()
        .arg("status")
        .args([&parts[0], &cut])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("fixtures/sample.in: case 2: 1 of 3 shards in, missing 1-2"));
    nqueen()
        .arg("status")
        .args(&parts)
        .assert()
        .success()
        .stdout(predicate::str::contains("11 of 11 cases complete in 2 inputs of 3 shards"));
}

#[test]
fn a_part_file_given_twice_is_refused_before_any_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let parts = run_shards(dir.path(), 2, &["fixtures/sample.in"], &[]);
    std::os::unix::fs::symlink("part-0.jsonl", dir.path().join("link.jsonl")).unwrap();
    let text = std::fs::read(&parts[0]).unwrap();
    for (command, args, said) in [
        ("merge", vec!["part-0.jsonl", "part-1.jsonl", "part-0.jsonl"], "part-0.jsonl is given twice"),
        ("merge", vec!["part-0.jsonl", "part-1.jsonl", "./part-0.jsonl"], "./part-0.jsonl is part-0.jsonl, given twice"),
        ("status", vec!["link.jsonl", "part-1.jsonl", "part-0.jsonl"], "part-0.jsonl is link.jsonl, given twice"),
        ("recheck", vec!["--share", "1", "-", "part-1.jsonl", "-"], "<stdin> is given twice"),
    ] {
        nqueen()
            .current_dir(dir.path())
            .arg(command)
            .args(&args)
            .write_stdin(text.clone())
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!("nqueen: {said}: give each part file once\n"));
    }
}

#[test]
fn a_merge_of_no_part_records_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    for command in ["merge", "status"] {
        nqueen()
            .arg(command)
            .write_stdin("")
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::contains("no part records in <stdin>: expected the JSON lines that --shard runs write"));
        nqueen().arg(command).arg(&empty).assert().code(1).stderr(predicate::str::contains("no part records in "));
    }
}

#[test]
fn a_sharded_run_of_bad_input_merges_into_the_same_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.in");
    std::fs::write(&bad, "1\n.\n2\n..\n.x\n").unwrap();
    let bad = bad.to_str().unwrap();
    let plain = nqueen().arg(bad).output().unwrap();
    assert_eq!(plain.status.code(), Some(1));
    let parts = run_shards(dir.path(), 2, &[bad], &[]);
    let merged = nqueen().arg("merge").args(&parts).output().unwrap();
    assert_eq!((merged.status.code(), &merged.stdout, &merged.stderr), (Some(1), &plain.stdout, &plain.stderr));
}

/// Runs `input` with a checkpoint at `ckpt` and `options`, killed with SIGKILL after
/// `after` unless it ends first; returns its stdout.
fn killed_after(input: &Path, ckpt: &Path, after: Duration, options: &[&str]) -> String {
    let mut child = Command::new(BIN)
        .args(options)
        .args(["--backend", "cpu", "-j", "2", "--checkpoint"])
        .arg(ckpt)
        .arg(input)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    // Read beside the wait, so that a full pipe never holds the run up.
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).map(|_| out)
    });
    wait_or_kill(&mut child, after);
    reader.join().unwrap().unwrap()
}

#[test]
fn a_checkpointed_run_killed_at_any_moment_resumes_to_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    // Quick cases, then one of a few seconds, then a quick one.
    let text =
        ["fixtures/sample.in", "fixtures/bench/empty_17.in", "fixtures/sample.in"].map(|f| std::fs::read_to_string(f).unwrap()).concat();
    let input = dir.path().join("run.in");
    std::fs::write(&input, text.replace("\n0\n", "\n")).unwrap();
    let want = nqueen().arg(&input).output().unwrap().stdout;
    for (i, ms) in [0u64, 40, 300, 900].into_iter().enumerate() {
        let ckpt = dir.path().join(format!("run-{i}.ckpt"));
        killed_after(&input, &ckpt, Duration::from_millis(ms), &[]);
        // A second kill of the resumed run, then a run to the end.
        killed_after(&input, &ckpt, Duration::from_millis(ms / 2), &[]);
        nqueen().arg("--checkpoint").arg(&ckpt).arg(&input).assert().success().stdout(want.clone());
        // Everything is in the checkpoint now: a run only reads it.
        nqueen().arg("--checkpoint").arg(&ckpt).arg(&input).assert().success().stdout(want.clone());
    }
}

#[test]
fn a_checkpointed_run_of_several_shards_killed_resumes_each_shard() {
    let dir = tempfile::tempdir().unwrap();
    let input = Path::new("fixtures/bench/empty_17.in");
    let ckpt = dir.path().join("shards.ckpt");
    let shards = ["--shard", "0-3/4"];
    // Killed once its first unit is on disk, however long that takes here.
    let mut child = Command::new(BIN)
        .args(shards)
        .args(["--backend", "cpu", "-j", "2", "--checkpoint"])
        .arg(&ckpt)
        .arg(input)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let units = || std::fs::read_to_string(&ckpt).unwrap_or_default().matches("\"unit\"").count();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while units() == 0 && std::time::Instant::now() < deadline && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let units = units();
    let parts = dir.path().join("parts.jsonl");
    let out = nqueen().args(shards).args(["--backend", "cpu", "--checkpoint"]).arg(&ckpt).arg(input).output().unwrap();
    assert!(out.status.success());
    std::fs::write(&parts, &out.stdout).unwrap();
    nqueen().arg("merge").arg(&parts).assert().success().stdout("Case 1: 95815104\n");
    assert!(units > 0, "no unit reached the disk before the run ended");
    // A shard found done in the checkpoint names the backend that counted it.
    assert_eq!(String::from_utf8_lossy(&out.stdout).matches("\"backend\":\"cpu(").count(), 4);
}

#[test]
fn a_checkpoint_of_another_input_or_plan_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("run.ckpt");
    nqueen().arg("--checkpoint").arg(&ckpt).arg("fixtures/sample.in").assert().success();
    nqueen()
        .arg("--checkpoint")
        .arg(&ckpt)
        .arg("fixtures/mixed_10_12.in")
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("is another board: it was written for another input"));
    nqueen()
        .args(["--shard", "0/2", "--checkpoint"])
        .arg(&ckpt)
        .arg("fixtures/sample.in")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("shard 0/1, not 0/2"));
    std::fs::write(&ckpt, "{\"record\":\"header\",\"format\":1,\"nqueen\":\"0.0.0\"}\n").unwrap();
    nqueen()
        .arg("--checkpoint")
        .arg(&ckpt)
        .arg("fixtures/sample.in")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("written by nqueen 0.0.0"));
}

#[test]
fn one_run_counts_a_list_of_shards_as_separate_runs_would() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = ["fixtures/mixed_10_12.in", "fixtures/bench/empty_14.in"];
    let plain = nqueen().args(inputs).output().unwrap();
    let listed = dir.path().join("listed.jsonl");
    let out = nqueen().args(["--shard", "3,0-1,4/5"]).args(inputs).output().unwrap();
    assert!(out.status.success());
    std::fs::write(&listed, &out.stdout).unwrap();
    // The missing shard alone, from another run, completes it.
    let rest = dir.path().join("rest.jsonl");
    std::fs::write(&rest, nqueen().args(["--shard", "2/5"]).args(inputs).output().unwrap().stdout).unwrap();
    nqueen().arg("merge").args([&listed, &rest]).assert().success().stdout(plain.stdout);
    // Each shard's records are those a run of that shard alone writes.
    let fields = |text: &[u8], shard: u64| -> Vec<(serde_json::Value, serde_json::Value, serde_json::Value)> {
        String::from_utf8_lossy(text)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["shard"] == shard && v["record"] == "case")
            .map(|v| (v["plan"].clone(), v["count"].clone(), v["nodes"].clone()))
            .collect()
    };
    let alone = nqueen().args(["--shard", "4/5", "--backend", "cpu", "-j", "1"]).args(inputs).output().unwrap().stdout;
    assert_eq!(fields(&out.stdout, 4), fields(&alone, 4));
}

#[test]
fn a_bad_shard_list_is_a_usage_error() {
    for shard in ["3-1/4", "1,1/4", "0-1,1/4", "2-5/4", "1,,2/4", "a-b/4"] {
        nqueen().arg(format!("--shard={shard}")).arg("fixtures/sample.in").assert().code(2).stderr(predicate::str::contains("--shard"));
    }
}

#[test]
fn parts_from_another_split_are_refused() {
    // Shard 2 of 3 written by a build that dealt prefixes in blocks (before the tree split).
    let dir = tempfile::tempdir().unwrap();
    let parts = run_shards(dir.path(), 3, &["fixtures/mixed_10_12.in"], &[]);
    nqueen()
        .arg("merge")
        .args([&parts[0], &parts[1]])
        .arg("fixtures/parts/mixed_10_12.old-split.2of3.jsonl")
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("case 1: ").and(predicate::str::contains("was counted from another plan or split")));
}

/// The plan records of a dry run of `shards` over `input`.
fn dry_run(shards: &str, input: &str) -> Vec<serde_json::Value> {
    let out = nqueen().args(["--dry-run", "--shard", shards, input]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn a_dry_run_shows_what_each_shard_would_count() {
    let m = 8;
    let plans = dry_run(&format!("0-{}/{m}", m - 1), "fixtures/bench/empty_16.in");
    assert_eq!(plans.len(), m);
    let width = plans[0]["case_nodes"].as_f64().unwrap() / m as f64;
    let mut roots = Vec::new();
    for (k, p) in plans.iter().enumerate() {
        assert_eq!((p["record"].as_str(), p["shard"].as_u64(), p["n"].as_u64()), (Some("plan"), Some(k as u64), Some(16)));
        assert_eq!(p["plan"], plans[0]["plan"]);
        let nodes = p["nodes"].as_f64().unwrap();
        assert!((nodes / width - 1.0).abs() < 0.1, "shard {k} holds {:.3} of its width", nodes / width);
        let sum: f64 = p["roots"].as_array().unwrap().iter().map(|r| r["nodes"].as_f64().unwrap()).sum();
        assert!((sum / nodes - 1.0).abs() < 1e-9);
        assert!(p["prefixes"].as_u64().unwrap() > 0);
        roots.extend(p["roots"].as_array().unwrap().iter().map(|r| (r["board"].clone(), r["queens"].clone())));
    }
    // No root in two shards.
    let distinct: std::collections::HashSet<_> = roots.iter().map(|(b, q)| format!("{b} {q}")).collect();
    assert_eq!(distinct.len(), roots.len());
    // The part records of the same shards carry the same split.
    let parts = nqueen().args(["--shard", "0/8", "fixtures/bench/empty_16.in"]).output().unwrap();
    let first: serde_json::Value = serde_json::from_str(String::from_utf8(parts.stdout).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(first["plan"], plans[0]["plan"]);
}

#[test]
fn a_dry_run_of_a_whole_case_gives_its_estimate() {
    // Without --shard, each case is one shard of its own: its nodes are the case's.
    let out = nqueen().args(["--dry-run", "fixtures/bench/empty_16.in", "fixtures/bench/judge.in"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plans: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(plans.len(), 11);
    for p in &plans {
        let (nodes, case_nodes) = (p["nodes"].as_f64().unwrap(), p["case_nodes"].as_f64().unwrap());
        assert!(nodes > 0.0 && nodes == case_nodes, "{p}");
        assert_eq!((p["shard"].as_u64(), p["shards"].as_u64()), (Some(0), Some(1)));
    }
    // Empty 16x16: 1.9e8 search nodes, within the estimate's error.
    assert!((1.5e8..2.5e8).contains(&plans[0]["nodes"].as_f64().unwrap()), "{}", plans[0]);
}

#[test]
fn a_shard_of_a_record_size_board_plans_here() {
    // Empty 28x28 in 262,144 shards of a few minutes of GPU each: shard K alone.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("empty_28.in");
    std::fs::write(&input, format!("28\n{}", format!("{}\n", ".".repeat(28)).repeat(28))).unwrap();
    let m = 262_144.0;
    for p in dry_run("200001,5/262144", input.to_str().unwrap()) {
        let width = p["case_nodes"].as_f64().unwrap() / m;
        let nodes = p["nodes"].as_f64().unwrap();
        assert!((nodes / width - 1.0).abs() < 0.1, "shard {} holds {:.3} of its width", p["shard"], nodes / width);
        assert!(p["roots"].as_array().unwrap().len() >= 16 && p["prefixes"].as_u64().unwrap() >= 16 * 1024);
    }
}

#[test]
fn a_rerun_from_a_finished_checkpoint_copies_its_records_without_recounts() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("ck.jsonl");
    let run = |parts: &str| {
        let out = nqueen().args(["--shard", "0-3/4", "--checkpoint"]).arg(&checkpoint).arg("fixtures/bench/empty_14.in").output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::write(dir.path().join(parts), &out.stdout).unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let first = run("a.jsonl");
    let lines = std::fs::read_to_string(&checkpoint).unwrap().lines().count();
    let again = run("b.jsonl");
    assert_eq!(std::fs::read_to_string(&checkpoint).unwrap().lines().count(), lines, "nothing more to record");
    // Each case record of the second run names the first run as the one that counted it.
    let field = |text: &str, name: &str| -> Vec<serde_json::Value> {
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|r| r["record"] == "case")
            .map(|r| r[name].clone())
            .collect()
    };
    assert_eq!(field(&again, "counted_by"), field(&first, "run"));
    assert!(field(&first, "counted_by").iter().all(|v| v.is_null()));
    // Merged together, the copies are neither recounts nor repeats.
    let merged = nqueen().arg("merge").args([dir.path().join("a.jsonl"), dir.path().join("b.jsonl")]).output().unwrap();
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    assert_eq!(String::from_utf8_lossy(&merged.stdout), "Case 1: 365596\n");
    assert!(!String::from_utf8_lossy(&merged.stderr).contains("more than once"), "{}", String::from_utf8_lossy(&merged.stderr));
}
