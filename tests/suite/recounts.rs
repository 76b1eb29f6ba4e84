//! Drills for a record-size run, through the real binary: shards counted again by other
//! runs (recounts) that the merge checks against the first count, records whose digest
//! gives away an edit, where each record came from, how far a run is, which shards to
//! count again, and a summary anyone holding the same part files makes alike.

use std::path::{Path, PathBuf};

use assert_cmd::Command as Cmd;
use predicates::prelude::*;

use crate::common::resealed;

fn nqueen() -> Cmd {
    Cmd::cargo_bin("nqueen").expect("the binary is built with the tests")
}

/// Nine cases of boards of 10 to 12, split into M = 6 shards.
const INPUT: &str = "fixtures/mixed_10_12.in";
const M: usize = 6;

/// Writes what `nqueen --shard LIST/M INPUT` with `options` prints to `dir/name`.
fn counted(dir: &Path, name: &str, list: &str, options: &[&str]) -> PathBuf {
    let out = nqueen().args(options).args(["--shard", &format!("{list}/{M}"), INPUT]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let path = dir.join(name);
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

/// The first run's parts, one file per shard, and what a plain run prints.
fn first_run(dir: &Path) -> (Vec<PathBuf>, Vec<u8>) {
    let parts = (0..M).map(|k| counted(dir, &format!("part-{k}.jsonl"), &k.to_string(), &[])).collect();
    (parts, nqueen().arg(INPUT).output().unwrap().stdout)
}

/// `path`'s lines, with line `index` changed by `edit`.
fn edited(path: &Path, index: usize, edit: impl Fn(&str) -> String) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines[index] = edit(&lines[index]);
    lines.join("\n") + "\n"
}

/// A record's field, as JSON.
fn field(line: &str, name: &str) -> serde_json::Value {
    serde_json::from_str::<serde_json::Value>(line).unwrap()[name].clone()
}

#[test]
fn part_records_say_where_when_and_by_which_build_they_were_made() {
    let out = nqueen().args(["--shard", "1/3", INPUT]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    for name in ["run", "host", "build", "started", "ended", "shard_nodes", "case_nodes", "digest"] {
        assert!(!field(first, name).is_null(), "no {name} in {first}");
    }
    assert!(field(first, "build").as_str().unwrap().starts_with(env!("CARGO_PKG_VERSION")));
    assert!(field(first, "started").as_str().unwrap().ends_with('Z'));
    // Every record of one process names the same run; another process, another.
    let runs: std::collections::HashSet<_> = text.lines().map(|l| field(l, "run")).collect();
    assert_eq!(runs.len(), 1);
    let again = nqueen().args(["--shard", "1/3", INPUT]).output().unwrap().stdout;
    assert_ne!(field(String::from_utf8_lossy(&again).lines().next().unwrap(), "run"), field(first, "run"));
}

#[test]
fn a_recount_by_another_run_or_backend_is_taken_once_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, plain) = first_run(dir.path());
    // Shards 2 and 4 counted again by another process, on one thread.
    let again = counted(dir.path(), "again.jsonl", "2,4", &["--backend", "cpu", "-j", "1"]);
    // Shard 5 as the GPU counted it: the merge sees only the record, so one made from the
    // CPU's recount stands for it on machines without a GPU.
    let gpu = dir.path().join("gpu.jsonl");
    let on_gpu = |l: &str| {
        let (run, backend) = (field(l, "run"), field(l, "backend"));
        let as_gpu = "\"backend\":\"gpu(NVIDIA H100 80GB HBM3; plain)\"";
        resealed(l, |b| b.replace(&format!("\"run\":{run}"), "\"run\":\"gpu-run\"").replace(&format!("\"backend\":{backend}"), as_gpu))
    };
    let five = counted(dir.path(), "five.jsonl", "5", &[]);
    let text = std::fs::read_to_string(&five).unwrap();
    std::fs::write(&gpu, text.lines().map(|l| on_gpu(l) + "\n").collect::<String>()).unwrap();
    nqueen()
        .arg("merge")
        .args(&parts)
        .args([&again, &gpu])
        .assert()
        .success()
        .stdout(plain)
        .stderr(predicate::str::contains("27 shards over 9 cases were counted more than once (27 recounts), and every recount agrees"));
    // The status says so too.
    let status = nqueen().arg("status").args(&parts).args([&again, &gpu]).output().unwrap();
    assert!(status.status.success());
    let text = String::from_utf8(status.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("{\"record\":\"status\"")).unwrap();
    let json: serde_json::Value = serde_json::from_str(line).unwrap();
    let case = &json["cases"][0];
    assert_eq!((case["done"].as_u64(), case["recounted"].as_u64(), case["disagree"].as_u64()), (Some(6), Some(3), Some(0)));
    assert_eq!(case["backends"]["gpu"]["records"].as_u64(), Some(1));
    assert!(text.contains("9 of 9 cases complete in 1 input of 6 shards"), "{text}");
}

#[test]
fn a_wrong_recount_is_refused_and_named_with_both_counts_origins() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, _) = first_run(dir.path());
    let again = counted(dir.path(), "again.jsonl", "3", &["--backend", "cpu", "-j", "1"]);
    // Well-formed, its digest made again, from another host: one solution too many.
    let wrong = dir.path().join("wrong.jsonl");
    let off_by_one = |l: &str| {
        let (count, host) = (field(l, "count").as_u64().unwrap(), field(l, "host"));
        resealed(l, |b| {
            let b = b.replacen(&format!("\"count\":{count},"), &format!("\"count\":{},", count + 1), 1);
            b.replacen(&format!("\"host\":{host}"), "\"host\":\"node-17\"", 1)
        })
    };
    std::fs::write(&wrong, edited(&again, 0, off_by_one)).unwrap();
    let out = nqueen().arg("merge").args(&parts).arg(&wrong).output().unwrap();
    assert_eq!((out.status.code(), out.stdout.as_slice()), (Some(1), &b""[..]), "the case with the wrong shard gets no answer");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("case 1: shard 3 was counted differently: "), "{err}");
    assert!(
        err.contains("part-3.jsonl, line 1 (shard 3; host ") && err.contains("wrong.jsonl, line 1 (shard 3; host node-17, cpu("),
        "{err}"
    );
    assert!(err.contains(", build ") && err.contains(" solutions, but "), "{err}");
    // The status lists it, and the recheck choice takes it.
    let status = nqueen().arg("status").args(&parts).arg(&wrong).output().unwrap();
    assert_eq!(status.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&status.stdout).contains("shard 3 was counted differently"));
    let chosen = nqueen().args(["recheck", "--share", "0"]).args(&parts).arg(&wrong).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&chosen.stdout), "3/6\n");
}

/// `line` with its count set to `count`, its digest made again: a forged record.
fn forged(line: &str, count: u128) -> String {
    let was = field(line, "count").as_u64().unwrap();
    resealed(line, |b| b.replacen(&format!("\"count\":{was},"), &format!("\"count\":{count},"), 1))
}

#[test]
fn forged_counts_that_wrap_the_sum_or_no_empty_board_has_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Empty 14x14 in two shards, each with its share of the solutions.
    let out = nqueen().args(["--shard", "0-1/2", "fixtures/bench/empty_14.in"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let q14 = crate::common::a000170()[13];
    let shard = |k: usize| text.lines().position(|l| l.contains(&format!("\"shard\":{k},")) && l.contains("\"record\":\"case\"")).unwrap();
    let merged = |forge: &dyn Fn(&str) -> String, k: usize| {
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines[shard(k)] = forge(&lines[shard(k)]);
        let part = dir.path().join("parts.jsonl");
        std::fs::write(&part, lines.join("\n") + "\n").unwrap();
        let out = nqueen().arg("merge").arg(&part).output().unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    assert_eq!(merged(&|l| l.to_string(), 0), (Some(0), format!("Case 1: {q14}\n"), String::new()));
    // Shard 0 claims 2^128 - 1 solutions, its digest made again: the sum would wrap.
    let (code, out, err) = merged(&|l| forged(l, u128::MAX), 0);
    assert_eq!((code, out.as_str()), (Some(1), ""), "{err}");
    assert!(err.contains("case 1: its shards' counts add up past 2^128 - 1"), "{err}");
    assert!(err.contains(&format!("parts.jsonl, line {} (shard 0; host ", shard(0) + 1)) && err.contains(&u128::MAX.to_string()), "{err}");
    // Shard 1 claims one solution more: no empty board has that count.
    let (code, out, err) = merged(&|l| forged(l, field(l, "count").as_u64().unwrap() as u128 + 1), 1);
    assert_eq!((code, out.as_str()), (Some(1), ""), "{err}");
    assert!(err.contains(&format!("case 1: its shards add up to {} solutions, which is not a multiple of 4", q14 + 1)), "{err}");
}

#[test]
fn records_of_two_boards_of_one_name_or_other_options_are_named_for_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    // board.in in two directories: empty 8x8 and empty 6x6, each counted there as shard 0 of 1.
    for (sub, n) in [("A", 8), ("B", 6)] {
        let home = dir.path().join(sub);
        std::fs::create_dir(&home).unwrap();
        std::fs::write(home.join("board.in"), format!("{n}\n{}", format!("{}\n", ".".repeat(n)).repeat(n))).unwrap();
        let out = nqueen().current_dir(&home).args(["--shard", "0/1", "board.in"]).output().unwrap();
        std::fs::write(dir.path().join(format!("{sub}.jsonl")), out.stdout).unwrap();
    }
    let files = [dir.path().join("A.jsonl"), dir.path().join("B.jsonl")];
    let said = "B.jsonl, line 1 (shard 0) is a record of another board than ";
    let merged = nqueen().arg("merge").args(&files).output().unwrap();
    let err = String::from_utf8(merged.stderr).unwrap();
    assert_eq!((merged.status.code(), merged.stdout.as_slice()), (Some(1), &b""[..]), "{err}");
    assert!(err.contains("board.in: case 1: ") && err.contains(said) && err.contains("(6x6) against "), "{err}");
    assert!(!err.contains("counted differently"), "{err}");
    let status = nqueen().arg("status").args(&files).output().unwrap();
    let text = String::from_utf8(status.stdout).unwrap();
    assert_eq!(status.status.code(), Some(1));
    assert!(text.contains(said) && !text.contains("counted differently") && !text.contains("disagrees"), "{text}");
    let chosen = nqueen().args(["recheck", "--share", "1"]).args(&files).output().unwrap();
    assert_eq!((chosen.status.code(), chosen.stdout.as_slice()), (Some(1), &b""[..]));
    assert!(String::from_utf8_lossy(&chosen.stderr).contains(said));
    // A recount of shard 1 with --unique beside the first count without it.
    let (parts, _) = first_run(dir.path());
    let unique = counted(dir.path(), "unique.jsonl", "1", &["--unique"]);
    let merged = nqueen().arg("merge").args(&parts).arg(&unique).output().unwrap();
    let err = String::from_utf8(merged.stderr).unwrap();
    assert!(
        err.contains("unique.jsonl, line 1 (shard 1) was counted with --unique and ")
            && err.contains("part-1.jsonl, line 1 (shard 1) without"),
        "{err}"
    );
    assert!(!err.contains("counted differently"), "{err}");
    // And with --no-symmetry, whose records say so.
    let plain = counted(dir.path(), "plain.jsonl", "1", &["--no-symmetry"]);
    assert_eq!(field(std::fs::read_to_string(&plain).unwrap().lines().next().unwrap(), "no_symmetry"), true);
    let merged = nqueen().arg("merge").args(&parts).arg(&plain).output().unwrap();
    let err = String::from_utf8(merged.stderr).unwrap();
    assert!(err.contains("plain.jsonl, line 1 (shard 1) was counted with --no-symmetry and "), "{err}");
}

/// A run of `m` shards of empty 14x14 made from one real shard's records, each shard's
/// copy sealed again, in part files of 1,024 shards in `dir`; and what a merge prints of it.
fn synthetic_run(dir: &Path, m: usize) -> (Vec<PathBuf>, String) {
    let out = nqueen().args(["--shard", &format!("0/{m}"), "fixtures/bench/empty_14.in"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let count = field(text.lines().next().unwrap(), "count").as_u64().unwrap();
    let mut files = Vec::new();
    for (task, first) in (0..m).step_by(1024).enumerate() {
        let mut part = String::new();
        for k in first..(first + 1024).min(m) {
            for line in text.lines() {
                part.push_str(&resealed(line, |b| b.replacen("\"shard\":0,", &format!("\"shard\":{k},"), 1)));
                part.push('\n');
            }
        }
        let path = dir.join(format!("part-{task}.jsonl"));
        std::fs::write(&path, part).unwrap();
        files.push(path);
    }
    (files, format!("Case 1: {}\n", u128::from(count) * m as u128))
}

#[test]
fn merge_status_and_recheck_keep_a_few_bytes_a_shard() {
    if !Path::new("/proc/self/status").exists() {
        return crate::common::skip_missing_tool("merge_status_and_recheck_keep_a_few_bytes_a_shard", "/proc (Linux)");
    }
    let dir = tempfile::tempdir().unwrap();
    let mut peaks = Vec::new();
    for m in [16_384, 131_072] {
        let home = dir.path().join(m.to_string());
        std::fs::create_dir(&home).unwrap();
        let (files, answer) = synthetic_run(&home, m);
        for command in [&["merge"][..], &["status"], &["recheck", "--share", "0.02"]] {
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nqueen"))
                .args(command)
                .args(&files)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let mut said = String::new();
            let mut out = child.stdout.take().unwrap();
            let reader = std::thread::spawn(move || std::io::Read::read_to_string(&mut out, &mut said).map(|_| said));
            let peak = crate::common::peak_rss_kb(&mut child);
            let said = reader.join().unwrap().unwrap();
            if command == ["merge"] {
                assert_eq!(said, answer);
            }
            peaks.push((command[0], m, peak));
        }
    }
    eprintln!("peak RSS (command, shards, kB): {peaks:?}");
    // Each record was about 1.6 kB kept; a ledger keeps a few bytes a shard.
    for (small, large) in peaks[..3].iter().zip(&peaks[3..]) {
        let grew = large.2.saturating_sub(small.2) as f64 * 1024.0 / (large.1 - small.1) as f64;
        assert!(grew <= 64.0 && large.2 < 64 * 1024, "{}: {grew:.1} bytes a shard more, {} kB in all", small.0, large.2);
    }
}

#[test]
fn an_edited_record_is_refused_by_its_digest() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, _) = first_run(dir.path());
    let edited_part = dir.path().join("edited.jsonl");
    std::fs::write(&edited_part, edited(&parts[1], 0, |l| l.replacen("\"count\":", "\"count\":1", 1))).unwrap();
    nqueen()
        .arg("merge")
        .args([&parts[0], &edited_part])
        .args(&parts[2..])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("edited.jsonl: line 1: the record's digest does not match its content"));
}

#[test]
fn the_recheck_choice_is_a_shard_list_that_repeats_from_its_seed() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, _) = first_run(dir.path());
    let choose = |seed: &str, files: &[PathBuf]| {
        let out = nqueen().args(["recheck", "--share", "0.34", "--seed", seed]).args(files).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    let (list, said) = choose("7", &parts);
    assert!(said.contains("3 of 6 shards to count again: 3 at random (seed 7), 0 more so that each of 1 machine has one"), "{said}");
    let reversed: Vec<PathBuf> = parts.iter().rev().cloned().collect();
    assert_eq!(choose("7", &reversed).0, list);
    // The list is what --shard takes: counting it again is a recount the merge accepts.
    let again = counted(dir.path(), "again.jsonl", list.trim().trim_end_matches("/6"), &["-j", "1"]);
    nqueen().arg("merge").args(&parts).arg(&again).assert().success();
    // Shards already recounted are not drawn again.
    let (next, _) = choose("7", &[parts.clone(), vec![again]].concat());
    let taken = |l: &str| l.trim().trim_end_matches("/6").split(',').map(String::from).collect::<Vec<_>>();
    assert!(taken(&next).iter().all(|k| !taken(&list).contains(k)), "{list} then {next}");
    nqueen().args(["recheck", "--share", "1.5"]).args(&parts).assert().code(2);
}

#[test]
fn anyone_with_the_same_part_files_makes_the_same_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, plain) = first_run(dir.path());
    let again = counted(dir.path(), "again.jsonl", "0", &["-j", "1"]);
    let summary = dir.path().join("summary.json");
    nqueen().arg("merge").arg("--summary").arg(&summary).args(&parts).arg(&again).assert().success().stdout(plain);
    // Someone else: the same records, in one file, in another order.
    let all: String =
        [vec![again.clone()], parts.iter().rev().cloned().collect()].concat().iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    let theirs = dir.path().join("theirs.jsonl");
    std::fs::write(&theirs, all).unwrap();
    let their_summary = dir.path().join("their-summary.json");
    nqueen().arg("merge").arg("--summary").arg(&their_summary).arg(&theirs).assert().success();
    let text = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(text, std::fs::read_to_string(&their_summary).unwrap());
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["cases"][0]["recounted_shards"].as_u64(), Some(1));
    assert_eq!(json["cases"][0]["shards"].as_u64(), Some(M as u64));
    // The records' digest, as the README makes it with standard tools.
    let mut digests: Vec<String> =
        std::fs::read_to_string(&theirs).unwrap().lines().map(|l| field(l, "digest").as_str().unwrap().to_string()).collect();
    digests.sort();
    let listed: String = digests.iter().map(|d| format!("{d}\n")).collect();
    let digest: String = <sha2::Sha256 as sha2::Digest>::digest(listed.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(json["records_digest"].as_str(), Some(digest.as_str()));
    // An incomplete merge writes none.
    let none = dir.path().join("none.json");
    nqueen().arg("merge").arg("--summary").arg(&none).args(&parts[1..]).assert().code(1);
    assert!(!none.exists());
}

#[test]
fn a_real_gpu_run_with_a_cpu_recount_merges_into_oeis_and_its_published_summary() {
    // Empty 22x22 in 64 shards on two H100s, 4 shards counted again on the host's CPU
    // (scripts/gpu/recount_drill.sh 22 64 0.05), with the summary written there.
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.json");
    let parts = "fixtures/parts/empty_22.recounted.jsonl";
    let q22 = crate::common::a000170()[21];
    nqueen()
        .args(["merge", "--summary"])
        .arg(&summary)
        .arg(parts)
        .assert()
        .success()
        .stdout(format!("Case 1: {q22}\n"))
        .stderr(predicate::str::contains("4 shards over 1 case were counted more than once (4 recounts), and every recount agrees"));
    assert_eq!(
        std::fs::read_to_string(&summary).unwrap(),
        std::fs::read_to_string("fixtures/parts/empty_22.recounted.summary.json").unwrap()
    );
    let records = std::fs::read_to_string(parts).unwrap();
    let backends: std::collections::BTreeSet<String> = records
        .lines()
        .filter(|l| l.contains("\"record\":\"case\""))
        .map(|l| field(l, "backend").as_str().unwrap()[..3].to_string())
        .collect();
    assert_eq!(backends.into_iter().collect::<Vec<_>>(), ["cpu", "gpu"]);
}

#[test]
fn records_of_the_first_format_still_merge_and_a_new_run_may_recount_them() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, plain) = first_run(dir.path());
    // Shards 0 to 2 as the first format wrote them: no provenance, no digest.
    let old_format = |line: &str| {
        let mut record: serde_json::Value = serde_json::from_str(line).unwrap();
        let fields = record.as_object_mut().unwrap();
        for name in ["run", "host", "build", "started", "ended", "shard_nodes", "case_nodes", "digest"] {
            fields.remove(name);
        }
        fields.insert("format".into(), 1.into());
        record.to_string()
    };
    let mut files = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let path = dir.path().join(format!("mixed-{k}.jsonl"));
        let text = std::fs::read_to_string(part).unwrap();
        let lines: String = text.lines().map(|l| if k < 3 { old_format(l) } else { l.to_string() } + "\n").collect();
        std::fs::write(&path, lines).unwrap();
        files.push(path);
    }
    nqueen().arg("merge").args(&files).assert().success().stdout(plain.clone());
    // The same old records twice (in a copy of their file) are a repeat; a new run's recount
    // of them is not.
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(&files[1], &copy).unwrap();
    nqueen().arg("merge").args(&files).arg(&copy).assert().code(1).stderr(predicate::str::contains("counted twice by the same run"));
    let again = counted(dir.path(), "again.jsonl", "1", &["-j", "1"]);
    nqueen().arg("merge").args(&files).arg(&again).assert().success().stdout(plain);
}

#[test]
fn part_records_that_name_a_method_still_merge() {
    // Builds with the table join (up to commit e5ec949) named how each shard counted its
    // last rows: empty 20 in 16 shards on two cards, two shards recounted on a CPU.
    let run = Path::new("docs/results/two-card/parts-empty20.jsonl");
    let text = std::fs::read_to_string(run).unwrap();
    assert!(text.lines().all(|l| l.contains("\"method\":\"search\"") || !l.contains("\"record\":\"case\"")));
    let dir = tempfile::tempdir().unwrap();
    let joined = dir.path().join("joined.jsonl");
    let lines: String =
        text.lines().map(|l| resealed(l, |body| body.replace("\"method\":\"search\"", "\"method\":\"join(k=7)\"")) + "\n").collect();
    std::fs::write(&joined, lines).unwrap();
    for parts in [run, joined.as_path()] {
        nqueen().arg("merge").arg(parts).assert().success().stdout("Case 1: 39029188884\n");
    }
}

/// `line` with its device-seconds set to give `rate` estimated nodes a second, its start at
/// 08:00 on 2026-11-20 and its end `ended`, sealed again.
fn timed(line: &str, rate: f64, ended: &str) -> String {
    let nodes = field(line, "shard_nodes").as_f64().unwrap();
    resealed(line, |body| {
        let seconds = format!("\"device_seconds\":{}", nodes / rate);
        let at = body.find("\"device_seconds\":").unwrap();
        let end = body[at..].find([',', '}']).map_or(body.len(), |e| at + e);
        let body = format!("{}{seconds}{}", &body[..at], &body[end..]);
        let set = |body: &str, name: &str, time: &str| {
            let from = body.find(&format!("\"{name}\":\"")).unwrap() + name.len() + 4;
            format!("{}{time}{}", &body[..from], &body[from + 20..])
        };
        set(&set(&body, "started", "2026-11-20T08:00:00Z"), "ended", ended)
    })
}

#[test]
fn machines_named_by_the_operator_are_rated_flagged_and_drawn() {
    let dir = tempfile::tempdir().unwrap();
    // A board whose every shard holds work to be timed by (a small board's shards of some
    // tens of thousands of nodes put all of it in one of them).
    let run = |machine: &str, list: &str| {
        let out = nqueen()
            .env("NQUEEN_MACHINE", machine)
            .args(["--shard", &format!("{list}/{M}"), "fixtures/bench/empty_17.in"])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let (alpha, beta) = (run("alpha", "0-2"), run("rack 7, node 3", "3-5"));
    let first = alpha.lines().next().unwrap();
    assert_eq!((field(first, "machine").as_str(), field(first, "machine_from").as_str()), (Some("alpha"), Some("NQUEEN_MACHINE")));
    // alpha counts at a tenth of beta's rate, and stopped three hours before beta's last record.
    let edit = |text: &str, rate: f64, ended: &str| -> String {
        text.lines().map(|l| if l.contains("\"record\":\"case\"") { timed(l, rate, ended) } else { l.to_string() } + "\n").collect()
    };
    let alpha_file = dir.path().join("alpha.jsonl");
    let beta_file = dir.path().join("beta.jsonl");
    std::fs::write(&alpha_file, edit(&alpha, 1e5, "2026-11-20T09:00:00Z")).unwrap();
    std::fs::write(&beta_file, edit(&beta, 1e6, "2026-11-20T12:00:00Z")).unwrap();
    let status = |files: &[&Path], by: &str, plot: &Path| {
        let out = nqueen().args(["status", "--by", by, "--plot"]).arg(plot).args(files).output().unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let picture = dir.path().join("run.svg");
    let (code, text) = status(&[&alpha_file, &beta_file], "case", &picture);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("2 machines, 1 flagged; every shard is in, so none is silent"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("  alpha (") && l.contains("slow: 0.10x")), "{text}");
    assert!(text.contains("  the other machine: cpu 10.00x to 10.00x of its median"), "{text}");
    let svg = std::fs::read_to_string(&picture).unwrap();
    assert!(svg.contains("Work done: complete at 2026-11-20T12:00:00Z"), "the picture's title");
    // Two bars, each named under it: alpha's red, beta's not.
    assert!(svg.contains(">\nalpha (vm) cpu\n<") && svg.contains(">\nrack 7, node 3 (vm) cpu\n<"), "{svg}");
    let red = svg.split("<rect").skip(1).filter(|r| r.split('>').next().unwrap_or_default().contains("fill=\"#D62728\"")).count();
    assert_eq!(red, 2, "a red bar and its legend's swatch");
    // With beta's last shard missing, alpha is also silent; the full table lists every device.
    let partial = dir.path().join("beta-partial.jsonl");
    let kept: String = beta.lines().filter(|l| !l.contains("\"shard\":5,")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&partial, edit(&kept, 1e6, "2026-11-20T12:00:00Z")).unwrap();
    let (code, text) = status(&[&alpha_file, &partial], "host", &picture);
    assert_eq!(code, Some(1));
    let alpha_row = text.lines().find(|l| l.starts_with("alpha (")).unwrap();
    assert!(alpha_row.trim_end().ends_with("silent"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("  cpu ") && l.trim_end().ends_with("slow")), "{text}");
    let json: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!((json["machines"][0]["id"].as_str(), json["complete"].as_bool()), (Some("alpha"), Some(false)));
    assert!(std::fs::read_to_string(&picture).unwrap().contains("Work done: "));
}
