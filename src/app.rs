//! The program's whole job: read every input, answer every case as soon as it is counted,
//! and report the first bad input with where it is and what was expected.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::sync::Arc;

use crate::control::Control;
use crate::parse::Parser;
use crate::progress::Progress;
use crate::solve::{BackendChoice, Options, SolveError, Solver};

/// Exit status: every case answered.
pub const EXIT_OK: i32 = 0;
/// Exit status: an input was malformed or unreadable (earlier cases were answered).
pub const EXIT_BAD_INPUT: i32 = 1;
/// Exit status: the command line was wrong (nothing was run).
pub const EXIT_USAGE: i32 = 2;
/// Exit status: the GPU was asked for and is not usable, or failed.
pub const EXIT_NO_GPU: i32 = 3;
/// Exit status: the answers could not be written (a full disk, say).
pub const EXIT_OUTPUT: i32 = 4;

/// What went wrong in a run, in order of precedence: when several things fail, the exit
/// status is the first of these that happened. A signal stops everything; answers that
/// could not be written are lost; a GPU failure stops the run; bad input stops only its
/// own file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Failure {
    /// Stopped by this signal (exit status 128 + signal).
    Signal(i32),
    /// The answers could not be written.
    Output,
    /// The GPU was asked for and is not usable, or failed.
    Gpu,
    /// An input was malformed or unreadable.
    BadInput,
}

impl Failure {
    /// The exit status for this failure.
    pub fn status(self) -> i32 {
        match self {
            Failure::Signal(signal) => 128 + signal,
            Failure::Output => EXIT_OUTPUT,
            Failure::Gpu => EXIT_NO_GPU,
            Failure::BadInput => EXIT_BAD_INPUT,
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

    fn status(self) -> i32 {
        self.0.map_or(EXIT_OK, Failure::status)
    }
}

/// Where boards come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Input {
    fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(p) => p.display().to_string(),
        }
    }
}

/// Everything a run needs, parsed once from the command line.
#[derive(Clone, Debug)]
pub struct Config {
    /// Inputs in order; each restarts the case numbering, as if run on its own.
    pub inputs: Vec<Input>,
    /// How to solve.
    pub solve: Options,
    /// Print a line of statistics per case on stderr.
    pub stats: bool,
    /// Draw a progress bar on stderr for long cases.
    pub progress: bool,
}

/// Runs the whole job with `solver` (made from `config.solve`), writing answers to `out`
/// and diagnostics (errors, warnings, `--stats`) to `err`; returns the exit status (see
/// [`Failure`]).
pub fn run(config: &Config, solver: &mut Solver, ctl: &Arc<Control>, out: &mut impl Write, err: &mut impl Write) -> i32 {
    let mut outcome = Outcome::default();
    for input in &config.inputs {
        let reader: Box<dyn BufRead> = match input {
            Input::Stdin => Box::new(io::stdin().lock()),
            Input::File(path) => match File::open(path) {
                Ok(f) => Box::new(BufReader::with_capacity(1 << 16, f)),
                Err(e) => {
                    say(err, format_args!("{}: {e}", path.display()));
                    outcome.note(Failure::BadInput);
                    continue;
                }
            },
        };
        match answer_all(reader, &input.name(), config, solver, ctl, out, err) {
            Ok(true) => {}
            Ok(false) => outcome.note(Failure::BadInput),
            Err(Stop::Failed(failure)) => {
                outcome.note(failure);
                return outcome.status();
            }
            Err(Stop::Quiet) => return outcome.status(),
        }
    }
    // Asked for the GPU and never needed it (no boards): still say when there is none.
    if config.solve.backend == BackendChoice::Gpu {
        if let Err(e) = solver.gpu() {
            say(err, format_args!("--backend gpu: {e}"));
            outcome.note(Failure::Gpu);
        }
    }
    outcome.status()
}

/// Why a run ends before its inputs do.
enum Stop {
    /// This failure.
    Failed(Failure),
    /// Stdout was closed by its reader: nobody wants more answers.
    Quiet,
}

/// Answers every case of one input; `Ok(false)` when it held bad input (reported).
fn answer_all(
    reader: impl BufRead,
    name: &str,
    config: &Config,
    solver: &mut Solver,
    ctl: &Arc<Control>,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<bool, Stop> {
    for (i, board) in Parser::new(reader).enumerate() {
        let case = i + 1;
        let board = match board {
            Ok(b) => b,
            Err(e) => {
                say(err, format_args!("{name}: {e}"));
                return Ok(false);
            }
        };
        let report = {
            let _bar = Progress::start(Arc::clone(ctl), case, config.progress);
            solver.solve(&board, ctl)
        };
        let report = match report {
            Ok(r) => r,
            Err(SolveError::Interrupted) => return Err(Stop::Failed(Failure::Signal(ctl.signal().unwrap_or(2)))),
            Err(SolveError::Gpu(e)) => {
                say(err, format_args!("--backend gpu: {name}: case {case}: {e}"));
                return Err(Stop::Failed(Failure::Gpu));
            }
        };
        for warning in &report.warnings {
            say(err, format_args!("warning: {warning}"));
        }
        // One write per line, flushed at once, so a later failure loses nothing.
        let line = format!("Case {case}: {}\n", report.count);
        if let Err(e) = out.write_all(line.as_bytes()).and_then(|_| out.flush()) {
            if e.kind() == io::ErrorKind::BrokenPipe {
                return Err(Stop::Quiet);
            }
            say(err, format_args!("cannot write the answers: {e}"));
            return Err(Stop::Failed(Failure::Output));
        }
        if config.stats {
            say(err, format_args!("{name}: case {case}: {report}"));
        }
    }
    Ok(true)
}

/// Writes one diagnostic line to `err`. A diagnostic that cannot be written has nowhere
/// else to go, so a failure here is ignored.
fn say(err: &mut impl Write, message: fmt::Arguments<'_>) {
    let _ = writeln!(err, "nqueen: {message}");
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
