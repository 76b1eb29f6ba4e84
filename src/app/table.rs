//! `nqueen table A..B`: the empty boards n = A..B, one aligned line each with the count, the
//! unique count and the seconds they took, as the CUDA programs nqueen grew from print.

use std::io::Write;
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::Instant;

use super::{Config, Failure, Outcome, Sink};
use crate::board::Board;
use crate::control::Control;
use crate::error::Error;
use crate::progress::Progress;
use crate::solve::Solver;
use crate::unique;

/// The widths of the table's columns: n, total, unique, seconds.
const WIDTHS: [usize; 4] = [2, 20, 20, 10];

/// Prints the table of the empty boards of `sizes` (see the module doc), with `config`'s
/// statistics and progress bar, noting what fails in `outcome`.
pub(super) fn run<O: Write, E: Write>(
    config: &Config,
    sizes: RangeInclusive<usize>,
    solver: &mut Solver,
    ctl: &Arc<Control>,
    sink: &mut Sink<'_, O, E>,
    outcome: &mut Outcome,
) {
    // --backend gpu and no usable GPU: no line at all, as for a count.
    if let Err(e) = solver.gpu_ready() {
        sink.say(format_args!("--backend gpu: {e}"));
        return outcome.note(Failure::of(&e, ctl));
    }
    let [wn, wt, wu, ws] = WIDTHS;
    if let Err(stop) = sink.line(&format!("{:>wn$} {:>wt$} {:>wu$} {:>ws$}", "n", "total", "unique", "seconds")) {
        return outcome.stopped(stop);
    }
    for n in sizes {
        let board = Board::empty(n).expect("the table's sizes are checked on the command line");
        let started = Instant::now();
        let report = {
            let _bar = Progress::start(Arc::clone(ctl), format!("n={n}"), config.progress);
            solver.solve(&board, false, ctl)
        };
        let report = match report {
            Ok(r) => r,
            Err(e) => {
                if !matches!(e, Error::Interrupted) {
                    sink.say(format_args!("n={n}: {e}"));
                }
                return outcome.note(Failure::of(&e, ctl));
            }
        };
        let Some(unique) = unique::fixed(&board).unique(report.count) else {
            sink.say(format_args!("n={n}: {}", unique::mismatch()));
            return outcome.note(Failure::BadInput);
        };
        let seconds = started.elapsed().as_secs_f64();
        for warning in &report.warnings {
            sink.say(format_args!("warning: {warning}"));
        }
        if let Err(stop) = sink.line(&format!("{n:>wn$} {:>wt$} {unique:>wu$} {seconds:>ws$.3}", report.count)).and_then(|_| sink.flush()) {
            return outcome.stopped(stop);
        }
        if config.stats {
            sink.say(format_args!("n={n}: {report}"));
        }
    }
}
