//! The command line: every subcommand and option is defined and documented here, and parsed
//! once into the library's [`Config`]. A doc comment's first paragraph is the option's line
//! under `-h`; the whole comment is its entry under `--help`.

mod generate;
mod refuse;
mod values;

pub use refuse::parse;
use refuse::{refuse, refuse_a_slip};

use std::path::PathBuf;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand, ValueEnum};
use nqueen::app::{Config, Counting, Input, Listing, Merging, Mode};
use nqueen::cpu::Schedule;
use nqueen::solve::{Backend, Options};
use nqueen::work::Shards;
use values::{device, duration, listed, prefixes, seed, shard, share, table, threads};

/// Counts the ways to place n non-attacking queens on n×n boards with obstacles.
///
/// Reads judge input, from the files or standard input: each case is a line with n (1 to
/// 32), then n rows of n cells, '.' free and '*' an obstacle (a queen may not stand on one;
/// obstacles do not block attacks), until the end or a 0. Prints "Case k: count" for each
/// case as soon as it is counted. Example: nqueen fixtures/sample.in
///
/// Exit status: 0 all answered; 1 bad or unreadable input (earlier cases are answered
/// first), a checkpoint or part file that does not fit, or for nqueen status a run not yet
/// complete; 2 bad command line (nothing was run); 3 --backend gpu with no usable GPU
/// (before any answer), or the GPU failed; 4 the answers, a checkpoint, a summary or a
/// plot could not be written, or a summary or plot would replace a file that is not
/// nqueen's; 130 / 143 stopped by SIGINT / SIGTERM. When several fail, the first in the
/// order 130/143, 4, 3, 1 sets the status.
#[derive(Parser, Debug)]
#[command(name = "nqueen", version, max_term_width = 100, args_conflicts_with_subcommands = true)]
#[command(about = "Counts n non-attacking queens on n×n boards with obstacles, in judge input:\n\
n, then n rows of '.' free or '*' blocked; prints \"Case k: count\" per board.\n\
Example: nqueen fixtures/sample.in")]
#[command(after_help = "Each command has its own help: nqueen merge -h. Documents: README.md, GUIDE.md.")]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Print the man page or a shell's completions, and nothing else
    ///
    /// KIND: man, complete-bash, complete-zsh, complete-fish or complete-powershell; made
    /// from this help. E.g. nqueen --generate man > ~/.local/share/man/man1/nqueen.1
    #[arg(long, value_name = "KIND", value_parser = generate::KINDS, exclusive = true, hide_short_help = true, hide_possible_values = true)]
    generate: Option<generate::Kind>,
    #[command(flatten)]
    count: CountArgs,
    #[command(flatten)]
    old: OldSpellings,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count every case of the inputs (the default command)
    Count(CountArgs),
    /// Add up the part records of --shard runs into the answers
    ///
    /// The answers are the lines a plain run prints. A shard may be counted by several runs
    /// (a recount): it is added once, and its records must agree. A missing or mismatched
    /// shard, one counted twice by one run, records that disagree, or a record whose digest
    /// does not match it is an error that names the file and line; the complete cases
    /// before it are answered.
    Merge(MergeArgs),
    /// How far a sharded run is, and which machines to look at
    ///
    /// Per case the shards in, recounted and disagreeing, the share of the estimated work
    /// done, and per backend the device-hours spent, the rate and the hours left at it;
    /// then the machines flagged slow, disagreeing or silent, and why, and one line for the
    /// rest; as tables, the problems, and two JSON lines, of the cases and of every machine.
    /// Exit status 1 while incomplete.
    Status(StatusArgs),
    /// Choose shards to count again elsewhere, as a --shard list
    ///
    /// A random SHARE of the shards counted once, one more for each host with none among
    /// them, and every shard whose records disagree.
    Recheck(RecheckArgs),
    /// Print the table of the empty boards A..B
    ///
    /// One line per size: n, the count, the unique count and the seconds they took.
    Table(TableArgs),
}

/// What a count takes: the inputs, and how to count them.
#[derive(Args, Debug, Default)]
struct CountArgs {
    /// Input files, in order; standard input if none, or for -
    ///
    /// Each file restarts the case numbering, as if nqueen were run on it alone.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,

    /// Also count the solutions distinct under symmetry
    ///
    /// Those distinct under the board's symmetries (rotations, mirror images). For an empty board, OEIS A002562: each line becomes "Case k: count (unique u)".
    #[arg(short, long, help_heading = "Counting")]
    unique: bool,

    /// List up to K solutions of each case (or all)
    ///
    /// After each answer, one a line: the column of the queen in each row, from 1,
    /// space-separated, in lexicographic order (the order a row-by-row, leftmost-first
    /// search finds them), the same whatever counts the case.
    #[arg(long, value_name = "K", value_parser = listed, allow_negative_numbers = true, conflicts_with_all = ["shard", "dry_run"], help_heading = "Output")]
    solutions: Option<u64>,

    /// List them as lines (columns) or board (drawn)
    ///
    /// lines: the columns of the queens, from 1, as above; board: Q for a queen, . and * as
    /// in the input, a blank line between. Only with --solutions.
    #[arg(long, value_name = "FORMAT", value_enum, hide_possible_values = true, help_heading = "Output")]
    solutions_format: Option<FormatArg>,

    #[command(flatten)]
    run: RunArgs,

    /// Count shard K (from 0) of M, as a part record
    ///
    /// A JSON part record per case instead of its answer; the M shards of a case add up to
    /// its count (nqueen merge). Every machine splits a board into the same shards, and
    /// plans only its own. K may be a list of shards and ranges, e.g. 0-15 or 3,17,40-42:
    /// one run counts each in turn, with a part record for each.
    #[arg(long, value_name = "K/M", value_parser = shard, help_heading = "Past one machine")]
    shard: Option<Shards>,

    /// Append finished work to FILE; skip what it holds
    ///
    /// Synced to disk: a run stopped at any moment and started again with the same input
    /// and FILE loses at most a few seconds of work and prints the same answers.
    #[arg(long, value_name = "FILE", help_heading = "Past one machine")]
    checkpoint: Option<PathBuf>,

    /// Print each case's plan instead of counting it
    ///
    /// A JSON line per case and shard: its roots, prefixes and estimated search nodes.
    #[arg(long, conflicts_with_all = ["checkpoint", "unique"], help_heading = "Past one machine")]
    dry_run: bool,
}

/// How a count runs, for a count and for the table: where, on how many threads, what it shows.
#[derive(Args, Debug, Default)]
struct RunArgs {
    /// Search boards as given: no symmetry, no turning
    ///
    /// For testing and timing.
    #[arg(long, help_heading = "Counting")]
    no_symmetry: bool,

    /// Per case on stderr: plan, nodes, time
    ///
    /// n, obstacles, backend (with the device and the GPU kernel's entry point),
    /// orientation, symmetry, boards (and how many were turned), prefixes, depth, nodes,
    /// wall time and nodes per second, and where the time went.
    #[arg(long, help_heading = "Output")]
    stats: bool,

    /// Never draw the progress bar
    ///
    /// It is drawn on stderr only when that is a terminal, and only for a count that takes a
    /// while.
    #[arg(short, long, help_heading = "Output")]
    quiet: bool,

    /// Counter: auto, cpu or gpu [default: auto]
    ///
    /// auto picks the GPU when one is usable and a board, or the file's boards still to come,
    /// are big enough to gain from it, else the CPU. gpu sends the GPU every board but
    /// those the planner counts at once (trees of under 20,000 nodes, or whose prefixes
    /// reach the last row), and fails before any answer where no GPU is usable.
    #[arg(short, long, value_name = "BACKEND", value_parser = values::BACKENDS, hide_possible_values = true, help_heading = "GPU and tuning")]
    backend: Option<Backend>,

    /// CPU worker threads, 1 to 1024 [default: all cores]
    #[arg(short = 'j', long, value_name = "N", value_parser = threads, allow_negative_numbers = true, help_heading = "GPU and tuning")]
    threads: Option<u16>,

    /// GPUs to use, e.g. 0,1 [default: all]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = device, allow_negative_numbers = true, help_heading = "GPU and tuning")]
    devices: Option<Vec<usize>>,

    /// How CPU threads take prefixes: dynamic or static
    ///
    /// dynamic: chunks of 16, each to the next free thread; static: fixed chunks of 1024,
    /// dealt round-robin, as OpenMP's schedule(static, 1024).
    #[arg(long, value_enum, hide_possible_values = true, help_heading = "GPU and tuning")]
    schedule: Option<ScheduleArg>,

    /// Prefixes to aim for on the GPU (tuning)
    ///
    /// By default one per 20K estimated nodes on small trees down to one per 10K from 8e11
    /// nodes, between 256K and 256M, and more where one would hold over 5e5 nodes.
    #[arg(long, value_name = "N", value_parser = prefixes, allow_negative_numbers = true, help_heading = "GPU and tuning")]
    gpu_prefixes: Option<u64>,
}

/// `nqueen merge`'s inputs and options.
#[derive(Args, Debug)]
struct MergeArgs {
    /// Part files of --shard runs, in any order; standard input if none
    #[arg(value_name = "PARTS")]
    parts: Vec<PathBuf>,

    /// Also write FILE: a JSON summary of the total and what it rests on
    ///
    /// Board, n, shards, split, builds, recounts, and a digest over every record used: the
    /// same for anyone who holds the same part files. FILE - writes it to standard output,
    /// and the answers to standard error.
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
}

/// `nqueen status`'s inputs and options.
#[derive(Args, Debug)]
struct StatusArgs {
    /// Part files of --shard runs, in any order; standard input if none
    #[arg(value_name = "PARTS")]
    parts: Vec<PathBuf>,

    /// List every machine (host) or only the flagged ones (case)
    ///
    /// host: every machine in a table, with each device on it (its CPU, each GPU card):
    /// records, device-hours, rate against the median of the others of its kind (CPUs
    /// against CPUs, cards against cards of the same model), recounts, disagreements, last
    /// record; a device under half that median is slow.
    #[arg(long, value_name = "WHAT", value_enum, hide_possible_values = true, default_value_t = By::Case)]
    by: By,

    /// Flag a machine silent this long behind the newest record
    ///
    /// When its last record is this much older than the newest of all. E.g. 30m or 2h; only while shards are missing (a finished run has no silent
    /// machine).
    #[arg(long, value_name = "DURATION", value_parser = duration, default_value = "1h")]
    silent_after: Duration,

    /// Also draw FILE: an SVG of the progress and the devices' rates
    ///
    /// The share of the work done over time, with the finish time at the recent rate, and
    /// each device's rate against the median of its kind, slowest first, flagged ones red.
    /// FILE - writes it to standard output, and the status to standard error.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
}

/// `nqueen recheck`'s inputs and options.
#[derive(Args, Debug)]
struct RecheckArgs {
    /// The share (0 to 1) of once-counted shards to choose, e.g. 0.02
    #[arg(long, value_name = "SHARE", value_parser = share, allow_negative_numbers = true)]
    share: f64,

    /// Part files of --shard runs, in any order; standard input if none
    #[arg(value_name = "PARTS")]
    parts: Vec<PathBuf>,

    /// The random choice's seed: the same records and seed, the same shards
    #[arg(long, value_name = "N", value_parser = seed, allow_negative_numbers = true, default_value_t = 1)]
    seed: u64,
}

/// `nqueen table`'s sizes and how to count them.
#[derive(Args, Debug)]
struct TableArgs {
    /// The board sizes, A to B (1 <= A <= B <= 32), e.g. 4..16
    #[arg(value_name = "A..B", value_parser = table)]
    sizes: (usize, usize),

    #[command(flatten)]
    run: RunArgs,
}

/// The spellings of the modes from before the subcommands, which part records' notes and
/// scripts still use: `--merge [--status | --recheck SHARE]` and `--table A..B`.
#[derive(Args, Debug, Default)]
struct OldSpellings {
    #[arg(long, hide = true)]
    merge: bool,
    #[arg(long, hide = true)]
    status: bool,
    #[arg(long, hide = true, value_parser = share, allow_negative_numbers = true)]
    recheck: Option<f64>,
    #[arg(long, hide = true, value_parser = seed, allow_negative_numbers = true)]
    seed: Option<u64>,
    #[arg(long, hide = true, value_name = "FILE")]
    summary: Option<PathBuf>,
    #[arg(long, hide = true, value_enum)]
    by: Option<By>,
    #[arg(long, hide = true, value_parser = duration)]
    silent_after: Option<Duration>,
    #[arg(long, hide = true)]
    plot: Option<PathBuf>,
    #[arg(long, hide = true, value_parser = table)]
    table: Option<(usize, usize)>,
}

// A value's doc comment is what the shells' completions say of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    /// The columns of the queens, from 1
    Lines,
    /// Drawn: Q for a queen
    Board,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ScheduleArg {
    /// Fixed chunks of 1024, dealt round-robin
    Static,
    /// Chunks of 16, each to the next free thread
    // Also read as "steal", the name it had before.
    #[value(alias = "steal")]
    Dynamic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum By {
    /// The flagged machines only
    Case,
    /// Every machine and device
    Host,
}

/// `files` as inputs: standard input when none is given, or for "-".
fn inputs(files: &[PathBuf]) -> Vec<Input> {
    if files.is_empty() {
        return vec![Input::Stdin];
    }
    files.iter().map(|f| if f.as_os_str() == "-" { Input::Stdin } else { Input::File(f.clone()) }).collect()
}

impl Cli {
    /// The thread count asked for, if any.
    pub fn threads(&self) -> Option<usize> {
        match &self.command {
            Some(Command::Count(count)) => count.run.threads,
            Some(Command::Table(table)) => table.run.threads,
            _ => self.count.run.threads,
        }
        .map(usize::from)
    }

    /// The run's configuration; `stderr_is_terminal` decides whether a bar may be drawn.
    /// Exits, as clap does, where the old spellings are put together wrongly.
    pub fn config(self, stderr_is_terminal: bool) -> Config {
        let command = match self.command {
            Some(command) => command,
            None => {
                if let Some(first) = self.count.files.first().filter(|_| !self.old.merge && self.old.table.is_none()) {
                    refuse_a_slip(first);
                }
                self.old.command(self.count)
            }
        };
        let (inputs, mode, run) = match command {
            Command::Count(count) => {
                let (inputs, counting) = (inputs(&count.files), count.counting());
                let mut run = count.run;
                // A dry run counts nothing, so it never opens a GPU.
                if counting.dry_run {
                    run.backend = Some(Backend::Cpu);
                }
                (inputs, Mode::Count(counting), run)
            }
            Command::Merge(m) => (inputs(&m.parts), Mode::Merge(Merging::Answers { summary: m.summary }), RunArgs::default()),
            Command::Status(s) => {
                let status = Merging::Status { by_host: s.by == By::Host, silent_after: s.silent_after, plot: s.plot };
                (inputs(&s.parts), Mode::Merge(status), RunArgs::default())
            }
            Command::Recheck(r) => (inputs(&r.parts), Mode::Merge(Merging::Recheck { share: r.share, seed: r.seed }), RunArgs::default()),
            Command::Table(t) => (Vec::new(), Mode::Table { from: t.sizes.0, to: t.sizes.1 }, t.run),
        };
        Config {
            inputs,
            mode,
            solve: Options {
                backend: run.backend.unwrap_or_default(),
                schedule: match run.schedule {
                    Some(ScheduleArg::Static) => Schedule::Static,
                    Some(ScheduleArg::Dynamic) | None => Schedule::Dynamic,
                },
                no_symmetry: run.no_symmetry,
                no_sieve: false,
                devices: run.devices,
                gpu_prefixes: run.gpu_prefixes.map(|n| n as usize),
                // main exits without dropping the solver.
                quick_exit: true,
            },
            stats: run.stats,
            progress: stderr_is_terminal && !run.quiet,
            stdin_closed: false,
        }
    }
}

impl CountArgs {
    /// The first option given that only a count takes (not a merge, not the table), as it
    /// is spelled.
    fn only_a_count_takes(&self) -> Option<&'static str> {
        [
            (self.solutions.is_some(), "--solutions"),
            (self.shard.is_some(), "--shard"),
            (self.checkpoint.is_some(), "--checkpoint"),
            (self.dry_run, "--dry-run"),
        ]
        .into_iter()
        .find_map(|(given, option)| given.then_some(option))
    }

    /// What the count is asked for besides its inputs.
    fn counting(&self) -> Counting {
        if self.solutions_format.is_some() && self.solutions.is_none() {
            refuse(
                Some("count"),
                ErrorKind::MissingRequiredArgument,
                "--solutions-format draws the solutions that --solutions lists: give --solutions K (or all) with it".into(),
            );
        }
        if self.checkpoint.as_ref().is_some_and(|c| c.as_os_str() == "-") {
            refuse(
                Some("count"),
                ErrorKind::InvalidValue,
                "--checkpoint names a file that is read and appended to: standard output cannot be one".into(),
            );
        }
        Counting {
            shards: self.shard.clone(),
            checkpoint: self.checkpoint.clone(),
            unique: self.unique,
            dry_run: self.dry_run,
            solutions: self
                .solutions
                .map(|k| Listing { most: (k < u64::MAX).then_some(k), drawn: self.solutions_format == Some(FormatArg::Board) }),
        }
    }
}

impl OldSpellings {
    /// The command the old spellings name (a count where none is given), or an exit where
    /// they are put together wrongly.
    fn command(self, count: CountArgs) -> Command {
        let mode_of_merge = self.status || self.recheck.is_some() || self.summary.is_some();
        let of_status = self.by.is_some() || self.silent_after.is_some() || self.plot.is_some();
        let usage = |why: &str| refuse(None, ErrorKind::ArgumentConflict, why.to_string());
        if let Some(sizes) = self.table {
            if self.merge || mode_of_merge || of_status || !count.files.is_empty() {
                let why = "--table prints the empty boards' table: it takes no input files and no other mode";
                refuse(Some("table"), ErrorKind::ArgumentConflict, why.into());
            }
            if let Some(option) = count.only_a_count_takes() {
                refuse(Some("table"), ErrorKind::ArgumentConflict, format!("{option} goes with a count, not with --table"));
            }
            return Command::Table(TableArgs { sizes, run: count.run });
        }
        if !self.merge {
            if mode_of_merge || of_status || self.seed.is_some() {
                usage("--status, --recheck, --summary and their options go with a merge: nqueen status, nqueen recheck, nqueen merge --summary");
            }
            return Command::Count(count);
        }
        if let Some(option) = count.only_a_count_takes() {
            usage(&format!("{option} goes with a count, not with --merge"));
        }
        let parts = count.files;
        match (self.status, self.recheck) {
            (true, Some(_)) => usage("--status and --recheck are two commands: nqueen status, nqueen recheck"),
            (true, None) => Command::Status(StatusArgs {
                parts,
                by: self.by.unwrap_or(By::Case),
                silent_after: self.silent_after.unwrap_or(Duration::from_secs(3600)),
                plot: self.plot,
            }),
            (false, Some(share)) => {
                if self.summary.is_some() || of_status {
                    usage("--recheck takes --seed alone: nqueen recheck --share SHARE [--seed N] PARTS...");
                }
                Command::Recheck(RecheckArgs { share, parts, seed: self.seed.unwrap_or(1) })
            }
            (false, None) => {
                if of_status || self.seed.is_some() {
                    usage("--by, --silent-after and --plot go with --status, --seed with --recheck");
                }
                Command::Merge(MergeArgs { parts, summary: self.summary })
            }
        }
    }
}
