//! The real binary on the fixtures and on bad input, through assert_cmd.

use std::path::Path;

use assert_cmd::Command;
use nqueen::board::Board;
use predicates::prelude::*;

fn nqueen() -> Command {
    Command::cargo_bin("nqueen").expect("the binary is built with the tests")
}

fn expected(input: &Path) -> String {
    std::fs::read_to_string(input.with_extension("out")).expect("every fixture has a .out")
}

/// The fixtures in `fixtures/` now: a run over fewer has lost some, or looked in the wrong
/// place and would pass on nothing.
const FIXTURES: usize = 8;

/// How many `.out` files in `dir` have their `.in` beside them, counted apart from the run.
fn fixture_pairs(dir: &str) -> usize {
    let outs = std::fs::read_dir(dir).expect("fixtures directory").map(|e| e.expect("readable entry").path());
    outs.filter(|p| p.extension().is_some_and(|e| e == "out") && p.with_extension("in").is_file()).count()
}

/// Runs every `*.in` of `dir` and compares with its `.out`, which each must have; checks
/// that the run took every pair there is, and at least `least`.
fn check_fixtures(dir: &str, args: &[&str], least: usize) {
    let mut inputs: Vec<_> = std::fs::read_dir(dir)
        .expect("fixtures directory")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "in"))
        .collect();
    inputs.sort();
    let lacking: Vec<_> = inputs.iter().filter(|p| !p.with_extension("out").is_file()).collect();
    assert!(lacking.is_empty(), "fixtures without their expected .out: {lacking:?}");
    let mut ran = 0;
    for input in &inputs {
        nqueen().args(args).arg(input).assert().success().stdout(expected(input));
        ran += 1;
    }
    assert_eq!(ran, fixture_pairs(dir), "fixtures run, against the pairs in {dir}");
    assert!(ran >= least, "ran {ran} fixtures of {dir}, fewer than the {least} there are");
}

#[test]
fn every_fixture_gives_its_expected_output() {
    check_fixtures("fixtures", &[], FIXTURES);
}

#[test]
fn every_fixture_gives_its_expected_output_without_symmetry_and_with_static_chunks() {
    // Dynamic chunks are the default, which the test above runs.
    check_fixtures("fixtures", &["--no-symmetry", "--schedule", "static", "--threads", "3"], FIXTURES);
}

#[test]
#[ignore = "empty 17x17 to 19x19 take minutes on a small machine; run with --ignored"]
fn long_fixtures_give_their_expected_output() {
    check_fixtures("fixtures/long", &[], 3);
}

#[test]
fn both_schedule_names_and_the_old_one_are_accepted() {
    for name in ["dynamic", "static", "steal"] {
        nqueen().args(["--schedule", name, "fixtures/sample.in"]).assert().success().stdout("Case 1: 92\nCase 2: 1\n");
    }
    nqueen().args(["--schedule", "guided", "fixtures/sample.in"]).assert().code(2);
}

#[test]
fn reads_standard_input_and_dash() {
    let sample = std::fs::read_to_string("fixtures/sample.in").unwrap();
    nqueen().write_stdin(sample.clone()).assert().success().stdout("Case 1: 92\nCase 2: 1\n");
    nqueen().arg("-").write_stdin(sample).assert().success().stdout("Case 1: 92\nCase 2: 1\n");
}

#[test]
fn each_file_restarts_the_case_numbers() {
    nqueen().args(["fixtures/sample.in", "fixtures/sample.in"]).assert().success().stdout("Case 1: 92\nCase 2: 1\nCase 1: 92\nCase 2: 1\n");
}

#[test]
fn empty_input_prints_nothing_and_succeeds() {
    nqueen().write_stdin("").assert().success().stdout("");
    nqueen().write_stdin("0\n").assert().success().stdout("");
}

/// Bad input: earlier cases answered, then one error line naming the line, status 1.
fn bad(input: &str, answered: &str, message: &str) {
    nqueen()
        .write_stdin(input)
        .assert()
        .code(1)
        .stdout(answered.to_string())
        .stderr(predicate::str::contains(message).and(predicate::str::contains("panicked").not()));
}

#[test]
fn a_short_row_is_reported_with_its_line() {
    bad("1\n.\n3\n...\n..\n...\n", "Case 1: 1\n", "<stdin>: line 5, column 1: row 2 of 3 has 2 cells, expected 3");
    bad("3\n...\n.\n...\n", "", "line 3, column 1: row 2 of 3 has 1 cell, expected 3");
}

#[test]
fn a_long_row_is_reported_with_its_line() {
    bad("2\n...\n..\n", "", "line 2, column 1: row 1 of 2 has 3 cells, expected 2");
}

#[test]
fn a_bad_cell_is_reported_with_its_line_and_column() {
    bad("4\n.*..\n....\n..#.\n....\n", "", "line 4, column 3: expected '.' (free) or '*' (obstacle) in row 3 of 4, found \"#\"");
}

#[test]
fn a_size_that_is_not_a_number_is_reported() {
    bad(
        "1\n.\nfive\n",
        "Case 1: 1\n",
        "line 3, column 1: expected a board size (a whole number from 1 to 32, or 0 to end), found \"five\"",
    );
}

#[test]
fn a_size_out_of_range_is_reported() {
    bad("33\n", "", "line 1, column 1: board size \"33\" is out of range: expected 1 to 32, or 0 to end");
    bad("1000000000\n", "", "out of range");
}

#[test]
fn end_of_input_inside_a_board_is_reported() {
    bad("1\n.\n4\n....\n....\n", "Case 1: 1\n", "the input ended inside the board of size 4 begun on line 3: expected row 3 of 4");
}

#[test]
fn binary_garbage_is_an_error_not_a_panic() {
    nqueen().write_stdin(vec![0u8, 159, 146, 150, 255, b'\n', 7]).assert().code(1).stderr(
        predicate::str::contains("<stdin>: line 1: this holds binary data, not judge input")
            .and(predicate::str::contains("panicked").not()),
    );
}

#[test]
fn later_files_are_still_answered_after_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.in");
    std::fs::write(&broken, "2\n..\n").unwrap();
    nqueen()
        .arg(&broken)
        .arg("fixtures/sample.in")
        .assert()
        .code(1)
        .stdout("Case 1: 92\nCase 2: 1\n")
        .stderr(predicate::str::contains("broken.in: line 2"));
}

#[test]
fn a_missing_file_is_reported() {
    nqueen().arg("no/such/file.in").assert().code(1).stderr(predicate::str::contains("no/such/file.in"));
}

#[test]
fn a_bad_command_line_exits_2() {
    nqueen().arg("--backend=tpu").assert().code(2);
    nqueen().args(["--threads", "0"]).assert().code(2);
    nqueen().arg("--no-such-flag").assert().code(2);
}

#[test]
fn thousands_of_threads_are_refused_at_once() {
    nqueen()
        .args(["-j", "20000", "fixtures/sample.in"])
        .timeout(std::time::Duration::from_secs(10))
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("20000 threads: give 1 to 1024"));
}

#[test]
fn a_whole_input_on_one_line_is_answered() {
    let one_line = ["4 .... .... .... ...."; 5000].join(" ");
    let want: String = (1..=5000).map(|k| format!("Case {k}: 2\n")).collect();
    nqueen().write_stdin(one_line).assert().success().stdout(want);
}

#[test]
fn a_byte_order_mark_vertical_tabs_and_cr_line_ends_are_read() {
    nqueen().write_stdin("\u{feff}4\n....\n....\n....\n....\n").assert().success().stdout("Case 1: 2\n");
    nqueen().write_stdin("4\x0b....\x0b....\x0c....\t....").assert().success().stdout("Case 1: 2\n");
    bad("1\r.\r2\r..\r.x\r", "Case 1: 1\n", "<stdin>: line 5, column 2: expected '.' (free) or '*' (obstacle) in row 2 of 2");
}

#[test]
fn asking_for_the_gpu_without_one_fails_before_reading_the_input() {
    if nqueen::gpu::Gpu::open(None).is_ok() {
        return crate::common::not_here("asking_for_the_gpu_without_one_fails_before_reading_the_input", "a GPU is present");
    }
    // The GPU was asked for: its absence is the error, and the bad input after it is never read.
    nqueen()
        .args(["--backend", "gpu"])
        .write_stdin("2\n..\n")
        .assert()
        .code(3)
        .stdout("")
        .stderr(predicate::str::contains("--backend gpu:").and(predicate::str::contains("line 2").not()));
}

#[test]
fn help_and_version_describe_the_tool() {
    nqueen().arg("--help").assert().success().stdout(predicate::str::contains("Case k: count").and(predicate::str::contains("--backend")));
    nqueen().arg("--version").assert().success().stdout(predicate::str::contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn stats_go_to_stderr_and_leave_stdout_alone() {
    nqueen()
        .args(["--stats", "fixtures/sample.in"])
        .assert()
        .success()
        .stdout("Case 1: 92\nCase 2: 1\n")
        .stderr(predicate::str::contains("case 1: n=8 obstacles=0 backend=cpu").and(predicate::str::contains("nodes/s=")));
}

#[test]
fn stats_name_the_cpu_search_that_ran() {
    let names = predicate::function(|err: &str| [", avx512) ", ", avx2) ", ", scalar) "].iter().any(|name| err.contains(name)));
    nqueen().args(["--backend", "cpu", "--stats", "fixtures/bench/empty_14.in"]).assert().success().stderr(names);
}

#[test]
fn stats_say_how_many_boards_of_a_large_split_were_turned() {
    // Empty 16x16 is large enough for turning (its tree is estimated over 1e8 nodes after
    // symmetry); empty 14x14 is not.
    let some_turned =
        predicate::function(|err: &str| err.contains("symmetry=D4") && !err.contains(" turned=0 ") && err.contains(" turned="));
    nqueen().args(["--backend", "cpu", "--stats", "fixtures/bench/empty_16.in"]).assert().success().stderr(some_turned);
    nqueen()
        .args(["--backend", "cpu", "--stats", "fixtures/bench/empty_14.in"])
        .assert()
        .success()
        .stderr(predicate::str::contains(" turned=0 "));
}

#[test]
fn asking_for_the_gpu_without_one_exits_3_before_any_answer() {
    if nqueen::gpu::Gpu::open(None).is_ok() {
        return crate::common::not_here(
            "asking_for_the_gpu_without_one_exits_3_before_any_answer",
            "a GPU is present, so --backend gpu succeeds",
        );
    }
    // The sample's boards are under the planner's small-tree bound, and empty 10x10's first
    // rows expand to its last: the GPU would never see them. Still no answer: the GPU was
    // asked for, and the user should know at once that there is none.
    let empty_10 = Board::empty(10).unwrap().to_string();
    let input =
        [std::fs::read_to_string("fixtures/sample.in").unwrap(), empty_10, std::fs::read_to_string("fixtures/bench/empty_14.in").unwrap()]
            .map(|text| text.replace("\n0\n", "\n"))
            .concat();
    nqueen()
        .args(["--backend", "gpu"])
        .write_stdin(input)
        .assert()
        .code(3)
        .stdout("")
        .stderr(predicate::str::contains("--backend gpu:").and(predicate::str::contains("panicked").not()));
}

#[test]
fn auto_backend_without_a_gpu_counts_on_the_cpu() {
    nqueen().args(["--backend", "auto", "fixtures/empty_1_16.in"]).assert().success().stdout(expected(Path::new("fixtures/empty_1_16.in")));
}
