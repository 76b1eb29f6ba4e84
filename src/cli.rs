//! The command line: every flag is defined and documented here, and parsed once into the
//! library's [`Config`].

use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use nqueen::app::{Config, Counting, Input, Listing, Merging, Mode};
use nqueen::cpu::Schedule;
use nqueen::solve::{Backend, Options};
use nqueen::work::Shards;

/// The most worker threads `-j` takes: every thread is started before any work, so a typo
/// of a few zeros must not start tens of thousands.
const MAX_THREADS: i64 = 1024;

/// Counts the ways to place n non-attacking queens on n×n boards with obstacles.
///
/// Reads judge input: each case is a line with n, then n rows of n cells, '.' free and
/// '*' an obstacle (a queen may not stand on one; obstacles do not block attacks). Input
/// ends at end of file or at a line holding 0. Prints "Case k: count" for each case as
/// soon as it is counted.
///
/// Exit status: 0 all answered, 1 bad or unreadable input (earlier cases are answered
/// first), 2 bad command line, 3 --backend gpu with no usable GPU (or the GPU failed), 4
/// the answers could not be written, 130 / 143 stopped by SIGINT / SIGTERM. When several
/// fail, the first in the order 130/143, 4, 3, 1 sets the status.
#[derive(Parser, Debug)]
#[command(name = "nqueen", version, max_term_width = 100)]
pub struct Cli {
    /// Input files, read in order; each restarts the case numbering. Standard input when
    /// none is given, or for "-".
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,

    /// Which counter to use: auto picks the GPU when one is usable and the board is big
    /// enough to gain from it, else the CPU; gpu sends it every board but those the planner
    /// counts at once (trees of under 20,000 nodes, or whose prefixes reach the last row).
    #[arg(short, long, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,

    /// Worker threads for the CPU counter, 1 to 1024 [default: all cores].
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS))]
    threads: Option<u16>,

    /// How the CPU hands prefixes to its threads: dynamic (chunks of 16, each to the next
    /// free thread) or static (fixed chunks of 1024, dealt round-robin, as OpenMP's
    /// schedule(static, 1024)).
    #[arg(long, value_enum, default_value_t = ScheduleArg::Dynamic)]
    schedule: ScheduleArg,

    /// Search every board as it is: no orientation choice, no symmetry (for testing and timing).
    #[arg(long)]
    no_symmetry: bool,

    /// GPUs to use, as a comma-separated list of ordinals [default: all visible].
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    devices: Option<Vec<usize>>,

    /// Prefixes to aim for on the GPU (tuning; by default one per 20K estimated nodes on
    /// small trees down to one per 10K from 8e11 nodes, between 256K and 256M, and more
    /// where one would hold over 5e5 nodes).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    gpu_prefixes: Option<u64>,

    /// Print per case, on stderr: n, obstacles, backend (with the device and the GPU
    /// kernel's entry point), orientation, symmetry, boards (and how many were turned),
    /// prefixes, depth, nodes, wall time and nodes per second.
    #[arg(long)]
    stats: bool,

    /// Never draw the progress bar (it is drawn only when stderr is a terminal).
    #[arg(short, long)]
    quiet: bool,

    /// Also count the solutions distinct under the symmetries the board keeps (for an
    /// empty board, OEIS A002562): each line becomes "Case k: count (unique u)".
    #[arg(short, long)]
    unique: bool,

    /// After each case's answer, up to K of its solutions (a number, or all), one a line:
    /// the column of the queen in each row, from 1, space-separated, in lexicographic order
    /// (the order a row-by-row, leftmost-first search finds them), the same whatever counts
    /// the case
    #[arg(long, value_name = "K", value_parser = listed, conflicts_with_all = ["shard", "merge", "dry_run", "table"])]
    solutions: Option<u64>,

    /// With --solutions: each solution as a line of columns, or drawn as its board (Q for a
    /// queen, . and * as in the input), a blank line between
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = FormatArg::Lines, requires = "solutions")]
    solutions_format: FormatArg,

    /// Print the table of the empty boards n = A..B instead of reading input: n, the
    /// count, the unique count and the seconds each took (1 <= A <= B <= 32).
    #[arg(long, value_name = "A..B", value_parser = table, conflicts_with_all = ["files", "shard", "checkpoint", "merge", "dry_run"])]
    table: Option<(usize, usize)>,

    /// Count only shard K (from 0) of M of every case, and print a JSON part record per
    /// case instead of its answer; the M shards of a case add up to its count (see --merge).
    /// Every machine splits a board into the same shards, and plans only its own. K may be
    /// a list of shards and ranges, e.g. 0-15 or 3,17,40-42: one run counts each in turn,
    /// with a part record for each.
    #[arg(long, value_name = "K/M", value_parser = shard, help_heading = "Counting past one machine")]
    shard: Option<Shards>,

    /// Plan each case (with --shard, each of its shards) without counting it, and print
    /// what would be counted as a JSON line: its roots, prefixes and estimated search nodes.
    #[arg(long, conflicts_with_all = ["checkpoint", "unique"], help_heading = "Counting past one machine")]
    dry_run: bool,

    /// Append each finished unit of work and case to FILE (synced to disk), and skip what
    /// it already holds: a run stopped at any moment and started again with the same
    /// input and FILE loses at most a few seconds of work and prints the same answers.
    #[arg(long, value_name = "FILE", help_heading = "Counting past one machine")]
    checkpoint: Option<PathBuf>,

    /// Add up the part records in the FILEs (from --shard runs) and print the answers a
    /// plain run would. A shard may be counted by several runs (a recount): it is added
    /// once, and its records must agree. A missing or mismatched shard, one counted twice
    /// by one run, records that disagree, or a record whose digest does not match it is an
    /// error.
    #[arg(long, conflicts_with_all = ["shard", "checkpoint", "dry_run"], help_heading = "Counting past one machine")]
    merge: bool,

    /// With --merge: instead of the answers, how far the run is: per case the shards in,
    /// recounted and disagreeing, the share of the estimated work done, and per backend the
    /// device-hours spent, the rate and the hours left at it; then the machines flagged
    /// slow, disagreeing or silent, and why, and one line for the rest; as tables, the
    /// problems, and two JSON lines, of the cases and of every machine (exit status 1
    /// while incomplete).
    #[arg(long, requires = "merge", conflicts_with_all = ["recheck", "summary"], help_heading = "Counting past one machine")]
    status: bool,

    /// With --status, host: every machine in a table, not only the flagged ones, with each
    /// counter on it (its CPU, each GPU card): records, device-hours, rate against the
    /// median of the others of its kind (CPUs against CPUs, cards against cards of the same
    /// model), recounts, disagreements, last record; a counter under half that median is
    /// slow
    #[arg(long, value_name = "WHAT", value_parser = ["case", "host"], default_value = "case", requires = "status", help_heading = "Counting past one machine")]
    by: String,

    /// With --status: while shards are missing, flag a machine silent when its last record
    /// is older than this before the run's newest, e.g. 30m or 2h (a finished run has no
    /// silent machine)
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration, default_value = "1h", requires = "status", help_heading = "Counting past one machine")]
    silent_after: std::time::Duration,

    /// With --status: also draw FILE, an SVG of the share of the work done over time, with
    /// the finish time at the recent rate, and each counter's rate against the median of
    /// its kind, slowest first, flagged ones in red
    #[arg(long, value_name = "FILE", requires = "status", help_heading = "Counting past one machine")]
    plot: Option<PathBuf>,

    /// With --merge: instead of the answers, print a --shard list of shards to count again
    /// elsewhere: a random SHARE (0 to 1) of those counted once, one more for each host
    /// with none among them, and every shard whose records disagree.
    #[arg(long, value_name = "SHARE", value_parser = share, requires = "merge", conflicts_with = "summary", help_heading = "Counting past one machine")]
    recheck: Option<f64>,

    /// With --recheck: the seed of its random choice; the same records and seed give the
    /// same shards.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "recheck", help_heading = "Counting past one machine")]
    seed: u64,

    /// With --merge: also write FILE, a JSON summary of the total and what it rests on
    /// (board, n, shards, split, builds, recounts, and a digest over every record used),
    /// the same for anyone who holds the same part files.
    #[arg(long, value_name = "FILE", requires = "merge", help_heading = "Counting past one machine")]
    summary: Option<PathBuf>,
}

/// Parses a share from 0 to 1.
fn share(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|f| (0.0..=1.0).contains(f))
        .ok_or_else(|| format!("{text:?} is not a share from 0 to 1, e.g. 0.02"))
}

/// Parses how many solutions to list: a number, or "all" (as many as a count can be).
fn listed(text: &str) -> Result<u64, String> {
    match text.trim() {
        "all" => Ok(u64::MAX),
        k => k.parse().map_err(|_| format!("{text:?} is not a number of solutions or \"all\", e.g. 10")),
    }
}

/// Parses "A..B": the board sizes A to B of the table.
fn table(text: &str) -> Result<(usize, usize), String> {
    let (a, b) = text.split_once("..").ok_or("expected A..B, board sizes A to B, e.g. 4..16")?;
    let size =
        |s: &str| s.trim().parse::<usize>().ok().filter(|n| (1..=32).contains(n)).ok_or(format!("{s:?} is not a board size from 1 to 32"));
    let (a, b) = (size(a)?, size(b)?);
    if a > b {
        return Err(format!("{a} is more than {b}: the table runs from the smaller size to the larger"));
    }
    Ok((a, b))
}

/// Parses "K/M": shard K, from 0, of M, where K may be a comma-separated list of shards
/// and ranges A-B.
fn shard(text: &str) -> Result<Shards, String> {
    let (list, m) = text.rsplit_once('/').ok_or("expected K/M, shard K (from 0) of M, e.g. 3/64 or 0-15/64")?;
    let m: usize = m.trim().parse().map_err(|_| format!("{m:?} is not a number of shards"))?;
    if m == 0 {
        return Err("M must be at least 1".into());
    }
    let number = |k: &str| k.trim().parse::<usize>().map_err(|_| format!("{k:?} is not a shard number"));
    let mut indices = Vec::new();
    for item in list.split(',') {
        let (a, b) = match item.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(item)?, number(item)?),
        };
        if a > b {
            return Err(format!("{item:?}: a range runs from the lower shard to the higher"));
        }
        if b >= m {
            return Err(format!("shards are numbered from 0, so K must be below M ({m})"));
        }
        indices.extend(a..=b);
    }
    let mut sorted = indices.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("shard {} is listed twice", w[0]));
    }
    Ok(Shards { indices, count: m })
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum BackendArg {
    Auto,
    Cpu,
    Gpu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    Lines,
    Board,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ScheduleArg {
    Static,
    /// Also accepted as "steal", the name it had before.
    #[value(alias = "steal")]
    Dynamic,
}

impl Cli {
    /// The thread count asked for, if any.
    pub fn threads(&self) -> Option<usize> {
        self.threads.map(usize::from)
    }

    /// The run's configuration; `stderr_is_terminal` decides whether a bar may be drawn.
    pub fn config(&self, stderr_is_terminal: bool) -> Config {
        let inputs = if self.files.is_empty() {
            vec![Input::Stdin]
        } else {
            self.files.iter().map(|f| if f.as_os_str() == "-" { Input::Stdin } else { Input::File(f.clone()) }).collect()
        };
        let mode = if let Some((from, to)) = self.table {
            Mode::Table { from, to }
        } else if self.merge {
            Mode::Merge(match (self.status, self.recheck) {
                (true, _) => Merging::Status { by_host: self.by == "host", silent_after: self.silent_after, plot: self.plot.clone() },
                (false, Some(share)) => Merging::Recheck { share, seed: self.seed },
                (false, None) => Merging::Answers { summary: self.summary.clone() },
            })
        } else {
            Mode::Count(Counting {
                shards: self.shard.clone(),
                checkpoint: self.checkpoint.clone(),
                unique: self.unique,
                dry_run: self.dry_run,
                solutions: self
                    .solutions
                    .map(|k| Listing { most: (k < u64::MAX).then_some(k), drawn: self.solutions_format == FormatArg::Board }),
            })
        };
        Config {
            inputs,
            mode,
            solve: Options {
                // A dry run counts nothing, so it never opens a GPU.
                backend: match self.backend {
                    _ if self.dry_run => Backend::Cpu,
                    BackendArg::Auto => Backend::Auto,
                    BackendArg::Cpu => Backend::Cpu,
                    BackendArg::Gpu => Backend::Gpu,
                },
                schedule: match self.schedule {
                    ScheduleArg::Dynamic => Schedule::Dynamic,
                    ScheduleArg::Static => Schedule::Static,
                },
                no_symmetry: self.no_symmetry,
                devices: self.devices.clone(),
                gpu_prefixes: self.gpu_prefixes.map(|n| n as usize),
                // main exits without dropping the solver.
                quick_exit: true,
            },
            stats: self.stats,
            progress: stderr_is_terminal && !self.quiet,
        }
    }
}
