//! `--solutions`: what it lists is checked by an independent test of each solution, against
//! the oracle's count, in order, alike from every backend and symmetry setting and from the
//! library; it streams, stops after a whole line at a signal, and a write error stops it
//! as it stops the answers.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use assert_cmd::Command as Cmd;

use crate::common::{oracle, symmetric_board, Rng};
use nqueen::board::Board;
use nqueen::symmetry::Sym;
use Sym::*;

const BIN: &str = env!("CARGO_BIN_EXE_nqueen");

fn nqueen() -> Cmd {
    Cmd::cargo_bin("nqueen").expect("the binary is built with the tests")
}

/// Each case of a `--solutions` listing: its answer line and its solutions' lines.
fn cases(out: &str) -> Vec<(String, Vec<Vec<usize>>)> {
    let mut found: Vec<(String, Vec<Vec<usize>>)> = Vec::new();
    for line in out.lines() {
        if line.starts_with("Case ") {
            found.push((line.to_string(), Vec::new()));
        } else {
            let columns = line.split(' ').map(|c| c.parse::<usize>().expect("a column from 1")).collect();
            found.last_mut().expect("an answer before its solutions").1.push(columns);
        }
    }
    found
}

/// Whether `columns` (from 1) puts a queen on a free cell of every row of `board`, no two
/// in a column or on a diagonal: checked cell by cell, as a person would.
fn valid(board: &Board, columns: &[usize]) -> bool {
    let n = board.n();
    let queens: Vec<(usize, usize)> = columns.iter().enumerate().map(|(r, &c)| (r, c.wrapping_sub(1))).collect();
    columns.len() == n
        && queens.iter().all(|&(r, c)| c < n && board.is_free(r, c))
        && queens
            .iter()
            .all(|&(r, c)| queens.iter().all(|&(r2, c2)| (r2, c2) == (r, c) || (c2 != c && r2 + c2 != r + c && r2 + c != r + c2)))
}

/// Boards symmetric under each subgroup of the square's symmetries, n up to 12, with
/// obstacles.
fn boards() -> Vec<Board> {
    let groups: [&[Sym]; 10] = [
        &[Identity],
        &[Identity, Rot180],
        &[Identity, FlipColumns],
        &[Identity, FlipRows],
        &[Identity, Transpose],
        &[Identity, AntiTranspose],
        &[Identity, Rot90, Rot180, Rot270],
        &[Identity, FlipColumns, FlipRows, Rot180],
        &[Identity, Transpose, AntiTranspose, Rot180],
        &Sym::ALL,
    ];
    let mut rng = Rng::new(47);
    let mut boards = Vec::new();
    for group in groups {
        for _ in 0..8 {
            let n = rng.range(4, 12);
            let density = if n > 9 { 0.04 * rng.range(0, 3) as f64 } else { 0.05 * rng.range(0, 6) as f64 };
            boards.push(symmetric_board(&mut rng, n, group, density));
        }
    }
    boards
}

#[test]
fn listed_solutions_are_valid_distinct_sorted_and_as_many_as_the_count() {
    let boards = boards();
    let input: String = boards.iter().map(Board::to_string).collect();
    let listed = |options: &[&str]| {
        let out = nqueen().args(options).write_stdin(input.clone()).output().unwrap();
        assert!(out.status.success(), "{options:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let all = listed(&["--solutions", "all"]);
    let found = cases(&all);
    assert_eq!(found.len(), boards.len());
    let mut solutions = 0;
    for (k, (board, (answer, listed))) in boards.iter().zip(&found).enumerate() {
        let want = oracle(board);
        assert_eq!(*answer, format!("Case {}: {want}", k + 1));
        assert_eq!(listed.len() as u64, want, "case {}:\n{}", k + 1, board);
        assert!(listed.iter().all(|s| valid(board, s)), "case {}:\n{}", k + 1, board);
        assert!(listed.windows(2).all(|w| w[0] < w[1]), "case {}: not sorted, or repeated", k + 1);
        // The library lists the same, from 0.
        let library: Vec<Vec<usize>> = nqueen::solutions(board).map(|s| s.iter().map(|c| c + 1).collect()).collect();
        assert_eq!(library, *listed, "case {}", k + 1);
        solutions += want;
    }
    assert!(solutions > 1000, "the boards have {solutions} solutions in all");
    // Every setting lists the same; fewer than all are the first of them.
    for options in [&["--solutions", "all", "--no-symmetry"][..], &["--solutions", "all", "--backend", "cpu", "-j", "1"]] {
        assert_eq!(listed(options), all, "{options:?}");
    }
    let first = cases(&listed(&["--solutions", "3"]));
    for ((answer, some), (want_answer, every)) in first.iter().zip(&found) {
        assert_eq!((answer, some.as_slice()), (want_answer, &every[..every.len().min(3)]));
    }
}

#[test]
fn a_listing_drawn_as_boards_shows_the_same_solutions() {
    let board = Board::empty(6).unwrap().without(0, 0).without(5, 2);
    let lines = nqueen().args(["--solutions", "all"]).write_stdin(board.to_string()).output().unwrap();
    let drawn = nqueen().args(["--solutions", "all", "--solutions-format", "board"]).write_stdin(board.to_string()).output().unwrap();
    let (lines, drawn) = (String::from_utf8(lines.stdout).unwrap(), String::from_utf8(drawn.stdout).unwrap());
    let (want_answer, listed) = &cases(&lines)[0];
    let (answer, pictures) = drawn.split_once('\n').unwrap();
    assert_eq!((answer, listed.len() as u64), (want_answer.as_str(), crate::common::oracle(&board)));
    let pictures: Vec<&str> = pictures.split("\n\n").collect();
    assert_eq!(pictures.len(), listed.len());
    for (picture, columns) in pictures.iter().zip(listed) {
        let rows: Vec<&str> = picture.trim_end().lines().collect();
        assert_eq!(rows.len(), 6);
        for (r, row) in rows.iter().enumerate() {
            let want: String = (0..6)
                .map(|c| {
                    if c + 1 == columns[r] {
                        'Q'
                    } else if board.is_free(r, c) {
                        '.'
                    } else {
                        '*'
                    }
                })
                .collect();
            assert_eq!(*row, want);
        }
    }
}

/// Starts listing every solution of the empty board of `file`, its stderr kept, and reads
/// its answer line: the child and the rest of its output.
fn listing(file: &str) -> (std::process::Child, BufReader<std::process::ChildStdout>, String) {
    let mut child = Command::new(BIN).args(["--solutions", "all", file]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    (child, out, first)
}

#[test]
fn a_signal_stops_a_listing_after_a_whole_line() {
    // Empty 15x15: 2,279,184 solutions, seconds to list.
    let (mut child, mut out, first) = listing("fixtures/bench/empty_15.in");
    assert_eq!(first, "Case 1: 2279184\n");
    std::thread::sleep(Duration::from_millis(200));
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(rest.is_empty() || rest.ends_with('\n'), "a partial line: {:?}", &rest[rest.len().saturating_sub(40)..]);
    let lines = rest.lines().count();
    assert!(lines < 2_279_184, "stopped after {lines} of 2,279,184 solutions");
    assert!(rest.lines().all(|l| l.split(' ').count() == 15));
}

#[test]
fn a_listing_that_cannot_be_written_stops_as_the_answers_do() {
    // A closed pipe ends the run quietly, as for the answers; a full disk is status 4.
    let (child, out, first) = listing("fixtures/bench/empty_14.in");
    assert_eq!(first, "Case 1: 365596\n");
    drop(out);
    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0), "{}", String::from_utf8_lossy(&done.stderr));
    assert!(done.stderr.is_empty(), "{}", String::from_utf8_lossy(&done.stderr));
    if std::path::Path::new("/dev/full").exists() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let run = Command::new(BIN).args(["--solutions", "all", "fixtures/bench/empty_14.in"]).stdout(full).output().unwrap();
        assert_eq!(run.status.code(), Some(4));
        assert!(String::from_utf8_lossy(&run.stderr).contains("cannot write the answers"));
    }
}
