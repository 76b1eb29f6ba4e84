//! The program's whole job, whichever way it is asked: count every case of every input
//! and answer each as soon as it is counted (or, with `--shard`, write its part record);
//! merge part files; or print the table of empty boards. Errors name the file, line and
//! column and what was expected; the exit status says what went wrong first.

mod answer;
mod count;
mod dry_run;
mod environment;
mod listing;
mod merge;
mod read_ahead;
mod table;

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::control::Control;
use crate::error::Error;
use crate::files::FileError;
use crate::solve::{Options, Solver};
use crate::words::{os_words, shown, STDIN, STDIN_PATH};
use crate::work::Shards;
pub use listing::Listing;

/// Exit status: every case answered.
pub const EXIT_OK: i32 = 0;
/// Exit status: an input was malformed or unreadable (earlier cases were answered).
pub const EXIT_BAD_INPUT: i32 = 1;
/// Exit status: the command line was wrong (nothing was run).
pub const EXIT_USAGE: i32 = 2;
/// Exit status: the GPU was asked for and is not usable, or failed.
pub const EXIT_NO_GPU: i32 = 3;
/// Exit status: the answers (or a checkpoint) could not be written (a full disk, say).
pub const EXIT_OUTPUT: i32 = 4;
/// The signal a cancel without one stands for: SIGINT, as Ctrl-C.
const SIGINT: i32 = 2;

/// Where boards come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Input {
    /// The files `inputs` are read from, standard input's too where it is one: what the
    /// run may not write to.
    pub fn paths(inputs: &[Input]) -> Vec<&Path> {
        inputs
            .iter()
            .filter_map(|input| match input {
                Input::File(path) => Some(path.as_path()),
                Input::Stdin if cfg!(unix) => Some(Path::new(STDIN_PATH)),
                Input::Stdin => None,
            })
            .collect()
    }

    /// The file it names; none for standard input.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Input::Stdin => None,
            Input::File(path) => Some(path),
        }
    }

    /// Its name in records.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => STDIN.to_string(),
            Input::File(p) => p.display().to_string(),
        }
    }

    /// Its name in messages: quoted where it needs to be (see [`crate::words::quoted`]).
    pub fn shown(&self) -> String {
        match self {
            Input::Stdin => STDIN.to_string(),
            Input::File(p) => shown(p),
        }
    }
}

/// What a run does.
#[derive(Clone, Debug, PartialEq)]
pub enum Mode {
    /// Counts every case of the inputs.
    Count(Counting),
    /// Reads the part files given as inputs, and does what `Merging` says with them.
    Merge(Merging),
    /// Prints the table of empty boards `from..=to`, with their unique counts.
    Table { from: usize, to: usize },
}

/// What a counting run is asked for besides its inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counting {
    /// The shards to count of every case, each with a part record; all of it, answered,
    /// when `None`.
    pub shards: Option<Shards>,
    /// Where to resume from and record into.
    pub checkpoint: Option<PathBuf>,
    /// Count the unique solutions too.
    pub unique: bool,
    /// Plan each case (or shard) and say what would be counted, instead of counting.
    pub dry_run: bool,
    /// Solutions to list after each case's answer.
    pub solutions: Option<Listing>,
}

/// What a merge of part files makes of them.
#[derive(Clone, Debug, PartialEq)]
pub enum Merging {
    /// The answers a plain run prints; with `summary`, the summary to publish written to
    /// that file too.
    Answers { summary: Option<PathBuf> },
    /// How far the run is, and what it still lacks (exit status 1 while incomplete); with
    /// `by_host`, each machine's and card's part too, flagged silent after `silent_after`
    /// without a record; with `plot`, a picture of the run written there.
    Status { by_host: bool, silent_after: std::time::Duration, plot: Option<PathBuf> },
    /// A seeded random `share` of the shards to count again, as a `--shard` list.
    Recheck { share: f64, seed: u64 },
}

/// Everything a run needs, parsed once from the command line.
#[derive(Clone, Debug)]
pub struct Config {
    /// Inputs in order; each restarts the case numbering, as if run on its own.
    pub inputs: Vec<Input>,
    pub mode: Mode,
    /// How to solve.
    pub solve: Options,
    /// Print a line of statistics per case on stderr.
    pub stats: bool,
    /// Draw a progress bar on stderr for long cases.
    pub progress: bool,
    /// Standard input was closed when the process started: where an input reads it, that
    /// input is an error, as a missing file is (the system reads it as empty).
    pub stdin_closed: bool,
}

impl Config {
    /// The files the run writes by name, each with its role ("checkpoint", "summary",
    /// "plot"); not a file named `-`, which is standard output.
    pub fn outputs(&self) -> Vec<(&'static str, &Path)> {
        let (role, path) = match &self.mode {
            Mode::Count(counting) => ("checkpoint", counting.checkpoint.as_deref()),
            Mode::Merge(Merging::Answers { summary }) => ("summary", summary.as_deref()),
            Mode::Merge(Merging::Status { plot, .. }) => ("plot", plot.as_deref()),
            Mode::Merge(Merging::Recheck { .. }) | Mode::Table { .. } => return Vec::new(),
        };
        path.filter(|p| p.as_os_str() != "-").map(|p| (role, p)).into_iter().collect()
    }

    /// What the run writes to standard error besides messages, if anything: the answers
    /// where a file takes standard output (see [`Config::file_on_stdout`]), or a file named
    /// by standard error's own name (`--summary /dev/stderr`), by its role.
    fn on_stderr(&self) -> Option<&'static str> {
        if self.file_on_stdout().is_some() {
            return Some("answers");
        }
        self.outputs().into_iter().find(|(_, path)| crate::files::names_stderr(path)).map(|(role, _)| role)
    }

    /// The file the run writes to standard output (`--summary -`, `--plot -`), by its role,
    /// where there is one: the answers then go to standard error, so that standard output
    /// holds that file alone.
    fn file_on_stdout(&self) -> Option<&'static str> {
        let dash = |path: &Option<PathBuf>| path.as_ref().is_some_and(|p| p.as_os_str() == "-");
        match &self.mode {
            Mode::Merge(Merging::Answers { summary }) if dash(summary) => Some("summary"),
            Mode::Merge(Merging::Status { plot, .. }) if dash(plot) => Some("plot"),
            _ => None,
        }
    }
}

/// What went wrong in a run, in order of precedence: when several things fail, the exit
/// status is the first of these that happened. A signal stops everything; answers that
/// could not be written are lost; a GPU failure stops the run; bad input stops only its
/// own file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Failure {
    /// Stopped by this signal (exit status 128 + signal).
    Signal(i32),
    /// The answers or a checkpoint could not be written.
    Output,
    /// The GPU was asked for and is not usable, or failed.
    Gpu,
    /// An input was malformed or unreadable.
    BadInput,
    /// The command line asked for what cannot be done: nothing was run.
    Usage,
}

impl Failure {
    /// What `e` makes of a run: the one place where a kind of error gets its exit status.
    /// An interruption is the signal `ctl` was cancelled by.
    pub fn of(e: &Error, ctl: &Control) -> Failure {
        match e {
            Error::Interrupted => Failure::Signal(ctl.signal().unwrap_or(SIGINT)),
            Error::Write(_) => Failure::Output,
            Error::NoGpu(_) | Error::Gpu(_) => Failure::Gpu,
            Error::BadOption(_) | Error::Threads(_) => Failure::Usage,
            Error::BadBoard(_) | Error::Parse(_) | Error::Checkpoint(_) | Error::Parts(_) => Failure::BadInput,
        }
    }

    /// The exit status for this failure.
    pub fn status(self) -> i32 {
        match self {
            Failure::Signal(signal) => 128 + signal,
            Failure::Output => EXIT_OUTPUT,
            Failure::Gpu => EXIT_NO_GPU,
            Failure::BadInput => EXIT_BAD_INPUT,
            Failure::Usage => EXIT_USAGE,
        }
    }
}

/// The most important failure of a run so far (see [`Failure`]), which makes its status.
#[derive(Clone, Copy, Debug, Default)]
struct Outcome(Option<Failure>);

impl Outcome {
    fn note(&mut self, failure: Failure) {
        self.0 = Some(self.0.map_or(failure, |f| f.min(failure)));
    }

    /// Notes why a run stopped early, if it was a failure.
    fn stopped(&mut self, stop: Stop) {
        if let Stop::Failed(failure) = stop {
            self.note(failure);
        }
    }

    fn status(self) -> i32 {
        self.0.map_or(EXIT_OK, Failure::status)
    }
}

/// Runs the whole job with `solver` (made from `config.solve`), writing answers to `out`
/// and diagnostics (errors, warnings, `--stats`) to `err`; returns the exit status (see
/// [`Failure`]).
pub fn run(config: &Config, solver: &mut Solver, ctl: &Arc<Control>, out: &mut impl Write, err: &mut impl Write) -> i32 {
    let mut outcome = Outcome::default();
    let mut sink = Sink { out, err, file_on_stdout: config.file_on_stdout(), broken: false };
    for warning in environment::warnings(&config.mode, |name| std::env::var_os(name)) {
        sink.say(format_args!("warning: {warning}"));
    }
    match &config.mode {
        Mode::Count(counting) => count::run(config, counting, solver, ctl, &mut sink, &mut outcome),
        Mode::Merge(merging) => merge::run(config, merging, ctl, &mut sink, &mut outcome),
        Mode::Table { from, to } => table::run(config, *from..=*to, solver, ctl, &mut sink, &mut outcome),
    }
    if let Err(stop) = sink.flush() {
        outcome.stopped(stop);
    }
    // A signal that came while the work was finishing anyway still ends it as a signal.
    if let Some(signal) = ctl.signal() {
        outcome.note(Failure::Signal(signal));
    }
    outcome.status()
}

/// Whether standard output can take the answers: not where it was closed when the process
/// started (`closed_at_start`: the standard library then puts /dev/null in its place), or
/// is open for reading only, where every answer would be lost without a word.
pub fn stdout_writable(closed_at_start: bool) -> Result<(), String> {
    writable(1, closed_at_start).map_err(|why| format!("standard output {why}"))
}

/// Whether standard error can take what the run `config` writes to it besides messages,
/// as [`stdout_writable`] tells it (a write to a closed or read-only standard error is lost
/// without an error); else the line that says why not.
pub fn stderr_writable(config: &Config, closed_at_start: bool) -> Result<(), String> {
    match config.on_stderr() {
        Some(what) => writable(2, closed_at_start).map_err(|why| format!("cannot write the {what}: standard error {why}")),
        None => Ok(()),
    }
}

/// Whether the descriptor `fd` can be written to (see [`stdout_writable`]); else why not.
fn writable(fd: i32, closed_at_start: bool) -> Result<(), &'static str> {
    if closed_at_start {
        return Err("is closed");
    }
    #[cfg(target_os = "linux")]
    {
        // SAFETY: F_GETFL only reads the descriptor's flags.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags == -1 {
            return Err("is closed");
        }
        if flags & libc::O_ACCMODE == libc::O_RDONLY {
            return Err("is open for reading only");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
    Ok(())
}

/// Why standard output cannot take the answers of the run `config`, if it cannot: it is one
/// of the run's inputs, which the answers would overwrite, or one of the files the run
/// writes by name, which would overwrite the answers or be lost among them.
pub fn stdout_apart(config: &Config) -> Result<(), FileError> {
    if let Some(input) = crate::files::stdout_among(Input::paths(&config.inputs)) {
        return Err(FileError::StdoutIsInput(input.to_path_buf()));
    }
    match config.outputs().into_iter().find(|(_, path)| crate::files::is_stdout(path)) {
        Some((role, path)) => Err(FileError::StdoutIsOutput { role, path: path.to_path_buf() }),
        None => Ok(()),
    }
}

/// The input the run `config` reads, or the file it writes by name, that standard error
/// writes to, if one is: the messages would go into it (`--checkpoint c.ck 2>> c.ck`,
/// `nqueen in 2>> in`), or it would replace them.
pub fn stderr_apart(config: &Config) -> Result<(), FileError> {
    if let Some(input) = crate::files::stderr_among(Input::paths(&config.inputs)) {
        return Err(FileError::StderrIsInput(input.to_path_buf()));
    }
    match config.outputs().into_iter().find(|(_, path)| crate::files::is_stderr(path)) {
        Some((role, path)) => Err(FileError::StderrIsOutput { role, path: path.to_path_buf() }),
        None => Ok(()),
    }
}

/// Ends the process with `status`, its answers written. Once the CUDA driver is loaded
/// (`driver_loaded`; on a signal, always), the process's exit handlers are skipped: the
/// driver's own tears down the contexts the process left open, and on an H200 host it
/// crashed there now and then (SIGSEGV, BENCHMARKS.md), or under a thread still opening
/// the GPU. The kernel closes the driver's files as at any exit (or, once the GPU is open,
/// the child that holds them does: see `crate::gpu::teardown`).
pub fn exit(status: i32, driver_loaded: bool) -> ! {
    crate::files::whole::remove_unfinished();
    #[cfg(target_os = "linux")]
    if driver_loaded {
        // SAFETY: ends the process at once, as a signal's default action would; the answers
        // are flushed by then, and stderr is unbuffered.
        unsafe { libc::_exit(status) }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = driver_loaded;
    std::process::exit(status)
}

/// Where a run writes: answers (or records) to `out`, diagnostics to `err`.
struct Sink<'a, O: Write, E: Write> {
    out: &'a mut O,
    err: &'a mut E,
    /// The file, by its role ("summary", "plot"), that `out` takes alone, where one does:
    /// the answers then go to `err`.
    file_on_stdout: Option<&'static str>,
    /// A write to `out` has failed and been reported: later writes fail without a word,
    /// so that the error is printed once.
    broken: bool,
}

/// Why a run ends before its inputs do.
enum Stop {
    /// This failure.
    Failed(Failure),
    /// Stdout was closed by its reader: nobody wants more answers.
    Quiet,
}

impl<O: Write, E: Write> Sink<'_, O, E> {
    /// Writes one line of output. Lines are flushed by [`Sink::flush`], which the run calls
    /// before anything that may take a while, so that an answer is never held back behind
    /// a long count or a wait for input.
    fn line(&mut self, line: &str) -> Result<(), Stop> {
        let to: &mut dyn Write = if self.file_on_stdout.is_some() { &mut *self.err } else { &mut *self.out };
        let written = to.write_all(line.as_bytes()).and_then(|_| to.write_all(b"\n"));
        self.written(written, "answers")
    }

    /// Writes a file named `-` to standard output, newlines included.
    fn bytes(&mut self, lines: &[u8]) -> Result<(), Stop> {
        let written = self.out.write_all(lines);
        self.written(written, self.on_stdout())
    }

    /// Writes out the lines written so far.
    fn flush(&mut self) -> Result<(), Stop> {
        let flushed = self.out.flush();
        self.written(flushed, self.on_stdout())?;
        let flushed = if self.file_on_stdout.is_some() { self.err.flush() } else { Ok(()) };
        self.written(flushed, "answers")
    }

    /// What standard output takes, for messages: the answers, or the file named `-`.
    fn on_stdout(&self) -> &'static str {
        self.file_on_stdout.unwrap_or("answers")
    }

    /// What a write of the `what` ("answers", "summary") came to.
    fn written(&mut self, result: io::Result<()>, what: &str) -> Result<(), Stop> {
        match result {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(Stop::Quiet),
            Err(_) if self.broken => Err(Stop::Failed(Failure::Output)),
            Err(e) => {
                self.broken = true;
                self.say(format_args!("cannot write the {what}: {}", os_words(&e)));
                Err(Stop::Failed(Failure::Output))
            }
        }
    }

    /// Writes one diagnostic line, after the answers written before it. A diagnostic that
    /// cannot be written has nowhere else to go, so a failure here is ignored (a failure
    /// to write the answers shows at their next flush).
    fn say(&mut self, message: fmt::Arguments<'_>) {
        if !self.broken {
            let _ = self.out.flush();
        }
        let _ = writeln!(self.err, "nqueen: {message}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_important_failure_sets_the_status() {
        let mut outcome = Outcome::default();
        assert_eq!(outcome.status(), EXIT_OK);
        outcome.note(Failure::BadInput);
        assert_eq!(outcome.status(), EXIT_BAD_INPUT);
        outcome.note(Failure::Gpu);
        outcome.note(Failure::BadInput);
        assert_eq!(outcome.status(), EXIT_NO_GPU);
        outcome.note(Failure::Output);
        assert_eq!(outcome.status(), EXIT_OUTPUT);
        outcome.note(Failure::Signal(15));
        assert_eq!(outcome.status(), 143);
    }
}
