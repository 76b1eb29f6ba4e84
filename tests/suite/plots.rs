//! The pictures `nqueen status --plot` draws are well-formed XML whose root is `svg`, read by
//! a real XML parser: of a finished run and of one still going, with few devices (each bar
//! named) and with many (only the flagged ones named), and with machine names that hold
//! the characters XML escapes.

use std::path::Path;
use std::process::Command;

use crate::common::resealed;

const BIN: &str = env!("CARGO_BIN_EXE_nqueen");

/// `body` (a record's JSON without its digest) with the value of `field` set to `value`,
/// given as JSON.
fn set(body: &str, field: &str, value: &str) -> String {
    let key = format!("\"{field}\":");
    let at = body.find(&key).unwrap_or_else(|| panic!("no {field} in {body}")) + key.len();
    let rest = &body[at..];
    let len = if rest.starts_with('"') {
        // A string: up to its closing quote, past escaped ones.
        let bytes = rest.as_bytes();
        let mut i = 1;
        while bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        i + 1
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    format!("{}{value}{}", &body[..at], &rest[len..])
}

/// The part records of a run of `shards` shards of one board over `machines` machines
/// (the first of them four times slower than the others), with the shards `missing` left
/// out, made from shard 0's records of a real run in `dir`.
fn run_of(dir: &Path, shards: usize, machines: usize, missing: std::ops::Range<usize>) -> String {
    std::fs::write(dir.join("ten.in"), format!("10\n{}", "..........\n".repeat(10))).unwrap();
    let shard = Command::new(BIN).current_dir(dir).args(["--shard", &format!("0/{shards}"), "ten.in"]).output().unwrap();
    assert!(shard.status.success());
    let text = String::from_utf8(shard.stdout).unwrap();
    // The slow machine's name is drawn: it holds what XML escapes.
    let names = ["a&b <cell> \\\"it's\\\"", "plain", "a&b"];
    let mut all = String::new();
    for k in (0..shards).filter(|k| !missing.contains(k)) {
        let m = k % machines;
        let machine = format!("\"{}-{m}\"", names[m % names.len()]);
        let ended = format!("\"2026-01-01T{:02}:{:02}:00Z\"", k / 60 % 24, k % 60);
        for line in text.lines() {
            all.push_str(&resealed(line, |body| {
                let body = body.replacen("\"shard\":0,", &format!("\"shard\":{k},"), 1);
                if !body.contains("\"record\":\"case\"") {
                    return body;
                }
                let body = set(&set(&body, "machine", &machine), "host", &format!("\"h{m}\""));
                let body = set(&set(&body, "started", "\"2026-01-01T00:00:00Z\""), "ended", &ended);
                let body = set(&set(&body, "shard_nodes", "1000.0"), "case_nodes", &format!("{}.0", shards * 1000));
                set(&body, "device_seconds", if m == 0 { "4.0" } else { "1.0" })
            }));
            all.push('\n');
        }
    }
    all
}

#[test]
fn every_plot_is_well_formed_svg() {
    let dir = tempfile::tempdir().unwrap();
    let runs = [
        ("finished, few devices", run_of(dir.path(), 64, 8, 0..0)),
        ("still going", run_of(dir.path(), 64, 8, 40..64)),
        ("many devices", run_of(dir.path(), 600, 300, 0..0)),
        ("one record", run_of(dir.path(), 1, 1, 0..0)),
    ];
    for (what, records) in runs {
        std::fs::write(dir.path().join("parts.jsonl"), records).unwrap();
        let out = Command::new(BIN).current_dir(dir.path()).args(["status", "--plot", "run.svg", "parts.jsonl"]).output().unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{what}: {}", String::from_utf8_lossy(&out.stderr));
        let svg = std::fs::read_to_string(dir.path().join("run.svg")).unwrap();
        let parsed = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{what}: not well-formed XML: {e}"));
        assert_eq!(parsed.root_element().tag_name().name(), "svg", "{what}");
        let comments: Vec<&str> = parsed.root().descendants().filter(|n| n.is_comment()).filter_map(|n| n.text()).collect();
        assert!(comments.iter().any(|c| c.contains("nqueen status")), "{what}: no mark of nqueen's among {comments:?}");
    }
}
