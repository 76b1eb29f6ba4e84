//! `--dry-run`: each case's shards planned and described instead of counted, one JSON line
//! per case and shard: the roots the split gives the shard, the prefixes made from them
//! and the estimated search nodes. It shows what a shard would count, and what planning it
//! costs, on a machine that could not count it.

use serde::Serialize;

use crate::board::Board;
use crate::solve::Case;
use crate::symmetry;
use crate::work;

/// What one shard of one case would count.
#[derive(Serialize)]
struct PlanRecord<'a> {
    /// Always "plan".
    record: &'static str,
    nqueen: &'static str,
    input: usize,
    file: &'a str,
    case: usize,
    n: usize,
    /// SHA-256 of the board's text, as part records have it.
    board: String,
    /// The split's fingerprint, as the shard's part record would have it.
    plan: &'a str,
    shard: usize,
    shards: usize,
    orientation: &'static str,
    symmetry: String,
    /// Boards in the plan.
    boards: usize,
    /// The whole case's estimated search nodes.
    case_nodes: f64,
    /// The shard's: the sum of its roots', or the case's where it is not split.
    nodes: f64,
    roots: Vec<RootRecord>,
    /// Prefixes made from the roots, all at one depth.
    prefixes: usize,
    depth: usize,
    /// Seconds spent planning the shard.
    seconds: f64,
}

/// One of a shard's roots.
#[derive(Serialize)]
struct RootRecord {
    /// The plan's board it lies on.
    board: u32,
    /// Its queens' columns, row by row (of the plan's board, in its orientation).
    queens: Vec<u8>,
    /// Its estimated search nodes.
    nodes: f64,
}

/// The line describing `case` (planned from case `case` of input `input`, named `file`,
/// `board`).
pub(super) fn line(input: usize, file: &str, case: usize, board: &Board, planned: &Case) -> String {
    let record = PlanRecord {
        record: "plan",
        nqueen: env!("CARGO_PKG_VERSION"),
        input,
        file,
        case,
        n: board.n(),
        board: work::sha256(board.to_string().as_bytes()),
        plan: &planned.fingerprint,
        shard: planned.shard.index,
        shards: planned.shard.count,
        orientation: planned.plan.orientation.name(),
        symmetry: symmetry::group_name(&planned.plan.group),
        boards: planned.plan.boards.len(),
        case_nodes: planned.whole,
        nodes: if planned.roots.is_empty() { planned.whole } else { planned.roots.iter().map(|r| r.estimate).sum() },
        roots: planned.roots.iter().map(|r| RootRecord { board: r.board, queens: r.queens.clone(), nodes: r.estimate }).collect(),
        prefixes: planned.base.items.len(),
        depth: planned.base.depth,
        seconds: planned.plan_time.as_secs_f64(),
    };
    serde_json::to_string(&record).expect("a plan record is plain data")
}
