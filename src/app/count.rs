//! Counting every case of every input: a line per case as soon as it is counted, or with
//! `--shard` a part record per case and shard and one at the end of each input and shard,
//! resuming from and recording into a checkpoint if one is given; or with `--dry-run`, the
//! plan of each case's shards instead of a count.

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde::de::IgnoredAny;

use super::answer::answer_line;
use super::dry_run;
use super::read_ahead::ReadAhead;
use super::{Config, Counting, Failure, Input, Outcome, Sink, Stop};
use crate::board::Board;
use crate::checkpoint::{CaseShard, Checkpoint, Resume};
use crate::control::Control;
use crate::error::Error;
use crate::files;
use crate::files::kind::{self, Kind as FileKind, Recorded};
use crate::parse::ParseError;
use crate::parts::provenance::{self, Provenance};
use crate::parts::{self, CaseRecord, EndRecord, Kind, Record, UniquePart, FORMAT};
use crate::progress::Progress;
use crate::solve::{self, Part, Report, Scope, Solver};
use crate::symmetry::invariant_group;
use crate::tally::Tally;
use crate::unique;
use crate::words::os_words;
use crate::work::{self, Shard, Unit};

/// Counts every case of `config`'s inputs as `counting` asks (see the module doc), noting
/// what fails in `outcome`.
pub(super) fn run<O: Write, E: Write>(
    config: &Config,
    counting: &Counting,
    solver: &mut Solver,
    ctl: &Arc<Control>,
    sink: &mut Sink<'_, O, E>,
    outcome: &mut Outcome,
) {
    let provenance = Provenance::of_this_process();
    // What goes into part records is bounded before anything is written.
    if counting.shards.is_some() {
        let names = config.inputs.iter().try_for_each(|input| parts::file_name_fits(&input.name()));
        if let Err(why) = provenance.fits_records().and(names) {
            sink.say(format_args!("{why}"));
            return outcome.note(Failure::Usage);
        }
    }
    let inputs = Input::paths(&config.inputs);
    let checkpoint = match counting.checkpoint.as_deref().map(|path| Checkpoint::open(path, &inputs)).transpose() {
        Ok(opened) => opened.map(|(c, warning)| {
            if let Some(w) = warning {
                sink.say(format_args!("warning: {w}"));
            }
            c
        }),
        Err(e) => {
            sink.say(format_args!("{e}"));
            outcome.note(if e.is_io() { Failure::Output } else { Failure::BadInput });
            return;
        }
    };
    // --backend gpu and no usable GPU: no answer at all, since the GPU was asked for.
    if !counting.dry_run {
        if let Err(e) = solver.gpu_ready() {
            sink.say(format_args!("--backend gpu: {e}"));
            return outcome.note(Failure::of(&e, ctl));
        }
    }
    let mut run = Run { config, counting, checkpoint, solver, ctl, provenance, board_hash: None };
    for (index, input) in config.inputs.iter().enumerate() {
        let opened: Result<Box<dyn Read + Send>, _> = match input {
            Input::Stdin if config.stdin_closed => Err(files::FileError::StdinClosed),
            Input::Stdin => Ok(Box::new(io::stdin())),
            Input::File(path) => open_at_rest(path, ctl, sink).map(|f| Box::new(f) as Box<dyn Read + Send>),
        };
        let reader = match opened {
            Ok(reader) => reader,
            Err(why) => {
                sink.say(format_args!("{}: {why}", input.shown()));
                outcome.note(Failure::BadInput);
                if let Err(stop) = run.end(index, input, 0, Some(why.to_string()), sink) {
                    return outcome.stopped(stop);
                }
                continue;
            }
        };
        let (reader, start) = Recorded::new(reader);
        match run.input(index, input, (reader, &start), sink) {
            Ok(true) => {}
            Ok(false) => outcome.note(Failure::BadInput),
            Err(stop) => return outcome.stopped(stop),
        }
    }
}

/// Opens the judge input at `path`. A FIFO may wait for its writer: the answers so far go
/// out first, and a signal may then end the run at once (see [`Control::at_rest`]).
fn open_at_rest<O: Write, E: Write>(path: &Path, ctl: &Control, sink: &mut Sink<'_, O, E>) -> Result<std::fs::File, files::FileError> {
    let _waiting = (files::is_stream(path) && sink.flush().is_ok()).then(|| ctl.at_rest());
    files::open_input(path, "judge input")
}

/// A counting run: what counting a case needs besides the case.
struct Run<'a> {
    config: &'a Config,
    /// What the run asks for besides the count: shards, unique counts, a dry run, solutions.
    counting: &'a Counting,
    checkpoint: Option<Checkpoint>,
    solver: &'a mut Solver,
    ctl: &'a Arc<Control>,
    /// What every part record says of this run.
    provenance: Provenance,
    /// The last case's board hash, by input and case: made once for all its shards.
    board_hash: Option<((usize, usize), String)>,
}

/// A counted case: its tally, the plan it was counted from (see [`crate::split::Split::fingerprint`];
/// empty for a plain count), and the report of this run's count (none where the checkpoint
/// held the whole case).
struct Counted {
    tally: Tally,
    /// The board's hash (see [`work::sha256`]), where a record or checkpoint needs it.
    board: String,
    plan: String,
    report: Option<Report>,
    /// The planner's estimate of the shard's search nodes and of the whole case's, where
    /// this run planned it.
    estimate: Option<(f64, f64)>,
    /// When this run began on it, where a part record says so (not for a case counted at
    /// once, which has none).
    started: Option<SystemTime>,
    /// Seconds of one device it took, over every run that counted part of it.
    device_seconds: f64,
    /// The backend the checkpoint that held it names, where this run did not count it.
    resumed: Option<String>,
    /// The run that counted it, where the checkpoint held it whole.
    counted_by: Option<String>,
}

impl Counted {
    /// The backend that counted it: this run's, else the one the checkpoint that held it
    /// names.
    fn backend(&self) -> Option<&str> {
        self.report.as_ref().map_or(self.resumed.as_deref(), |r| Some(&*r.backend))
    }

    /// A case counted all at once by `report`, with no record or checkpoint to fill.
    fn plain(report: Report) -> Counted {
        Counted {
            tally: Tally { solutions: report.count, nodes: report.nodes },
            board: String::new(),
            plan: String::new(),
            device_seconds: report.device_seconds,
            resumed: None,
            counted_by: None,
            report: Some(report),
            estimate: None,
            started: None,
        }
    }
}

impl Run<'_> {
    /// Answers every case of input `index`; `Ok(false)` when it held bad input (reported).
    fn input<O: Write, E: Write>(
        &mut self,
        index: usize,
        input: &Input,
        (reader, start): (impl Read + Send + 'static, &Mutex<Vec<u8>>),
        sink: &mut Sink<'_, O, E>,
    ) -> Result<bool, Stop> {
        // Once an input, not once a case: a file of small boards is counted faster than its
        // name is quoted.
        let (name, shown) = (input.name(), input.shown());
        // Each scope, with the shards listed after it: a shard is planned beside them.
        let shards = self.counting.shards.as_ref();
        let listed = shards.map_or(&[][..], |s| &s.indices[..]);
        let scopes: Vec<Scope> = match shards {
            Some(s) => s.indices.iter().map(|&index| Scope::Shard(Shard { index, count: s.count })).collect(),
            None => vec![Scope::Whole],
        };
        let mut cases = 0;
        let mut boards = ReadAhead::start(reader);
        loop {
            // About to wait for input: the answers so far go out first, and a signal may end
            // the run at once while it waits.
            let board = if boards.ready() {
                boards.next()
            } else {
                sink.flush()?;
                let _waiting = self.ctl.at_rest();
                boards.next()
            };
            let Some(board) = board else { break };
            if let Ok(board) = &board {
                self.solver.taken(board);
            }
            // Asked first: once everything was parsed, the boards shown now are the last.
            let parsed_all = boards.parsed_all();
            for later in boards.newly_queued() {
                self.solver.look_ahead(later);
            }
            if parsed_all && index + 1 == self.config.inputs.len() {
                self.solver.no_more_boards();
            }
            let board = match board {
                Ok(b) => b,
                Err(e) => {
                    // Another of the program's files, given where judge input belongs.
                    match kind::of_recorded(start) {
                        k if k.is_known() && k != FileKind::Judge && cases == 0 && matches!(e, ParseError::Syntax { line: 1, .. }) => {
                            sink.say(format_args!("{shown}: line 1: {}", k.instead_of("judge input")))
                        }
                        _ => sink.say(format_args!("{shown}: {e}")),
                    }
                    self.end(index, input, cases, Some(e.to_string()), sink)?;
                    return Ok(false);
                }
            };
            cases += 1;
            if self.counting.dry_run {
                for (i, &scope) in scopes.iter().enumerate() {
                    let mut case = self.solver.prepare_ahead(&board, scope, listed.get(i + 1..).unwrap_or_default());
                    case.estimate();
                    sink.line(&dry_run::line(index, &name, cases, &board, &case))?;
                }
                continue;
            }
            // Nothing after the last board of the last input: auto need not race its opening GPU.
            let last = index + 1 == self.config.inputs.len() && boards.at_end();
            for (i, &scope) in scopes.iter().enumerate() {
                let ends = last && i + 1 == scopes.len();
                let ahead = listed.get(i + 1..).unwrap_or_default();
                self.answer_case(index, (&name, &shown), (cases, &board), (scope, ahead), ends, sink)?;
            }
        }
        self.end(index, input, cases, None, sink)?;
        Ok(true)
    }

    /// Counts `scope` of case `case` of input `index` (named `name` in records, `shown` in
    /// messages), `board`, and writes its answer or part record; says its warnings and
    /// statistics. `ahead` lists the shards to count after it, and `ends` says whether the
    /// run ends once it is counted.
    fn answer_case<O: Write, E: Write>(
        &mut self,
        index: usize,
        (name, shown): (&str, &str),
        (case, board): (usize, &Board),
        (scope, ahead): (Scope, &[usize]),
        ends: bool,
        sink: &mut Sink<'_, O, E>,
    ) -> Result<(), Stop> {
        // Timed only where the time is shown: two clock reads cost more than a small board.
        let small = match scope == Scope::Whole && self.checkpoint.is_none() {
            true => solve::small(board, self.config.stats),
            false => None,
        };
        let quick = match scope {
            Scope::Shard(shard) => self.solver.is_quick(board, shard),
            Scope::Whole => false,
        };
        let counted = match small {
            Some(report) => Ok(Counted::plain(report)),
            None if quick => self.case(index, (case, board), (scope, ahead), ends),
            None => {
                // A count that may take a while: the answers before it go out first.
                sink.flush()?;
                let label = match scope {
                    Scope::Whole => format!("case {case}"),
                    Scope::Shard(s) => format!("case {case}, shard {}/{}", s.index, s.count),
                };
                let _bar = Progress::start(Arc::clone(self.ctl), label, self.config.progress);
                self.case(index, (case, board), (scope, ahead), ends)
            }
        };
        let counted = match counted {
            Ok(counted) => counted,
            Err(e) => {
                match &e {
                    Error::Interrupted => {}
                    // The count writes nothing but its units to the checkpoint.
                    Error::Write(why) => {
                        sink.say(format_args!("{shown}: case {case}: cannot record it in the checkpoint: {}", os_words(why)))
                    }
                    Error::NoGpu(_) | Error::Gpu(_) => sink.say(format_args!("--backend gpu: {shown}: case {case}: {e}")),
                    _ => sink.say(format_args!("{shown}: case {case}: {e}")),
                }
                return Err(Stop::Failed(Failure::of(&e, self.ctl)));
            }
        };
        for warning in counted.report.iter().flat_map(|r| &r.warnings) {
            sink.say(format_args!("warning: {warning}"));
        }
        let Some(line) = self.answer(index, name, (case, board), scope, &counted) else {
            sink.say(format_args!("{shown}: case {case}: {}", unique::mismatch()));
            return Err(Stop::Failed(Failure::BadInput));
        };
        sink.line(&line)?;
        // A case the checkpoint held whole is there already.
        if let (Some(c), Some(_)) = (&self.checkpoint, &counted.report) {
            let at = CaseShard { input: index, case, board: counted.board.clone(), shard: scope.shard() };
            if let Err(e) = c.case(&at, &counted.plan, counted.tally, counted.device_seconds, (counted.backend(), &self.provenance.run)) {
                sink.say(format_args!("{shown}: case {case}: cannot record it in the checkpoint: {}", os_words(&e)));
                return Err(Stop::Failed(Failure::Output));
            }
        }
        if let (Some(listing), Scope::Whole) = (self.counting.solutions, scope) {
            listing.list(board, counted.tally.solutions, (shown, case), (self.ctl, self.config.progress), sink)?;
        }
        let which = match scope {
            Scope::Whole => String::new(),
            Scope::Shard(s) => format!(" shard {}/{}:", s.index, s.count),
        };
        match &counted.report {
            Some(r) if self.config.stats => sink.say(format_args!("{shown}: case {case}:{which} {r}")),
            None if self.config.stats => sink.say(format_args!("{shown}: case {case}:{which} counted by an earlier run (checkpoint)")),
            _ => {}
        }
        Ok(())
    }

    /// The line that answers case `case` of input `index` (named `name`), `board`, counted
    /// as `counted`: its answer, or for a shard its part record; with `--unique`, with what
    /// that needs. None if the unique count fails its check.
    fn answer(&self, index: usize, name: &str, (case, board): (usize, &Board), scope: Scope, counted: &Counted) -> Option<String> {
        // Counted by shard 0 alone, so that a merge adds them once.
        let fixed = (self.counting.unique && scope.shard().index == 0).then(|| unique::fixed(board));
        let Scope::Shard(shard) = scope else {
            let total = counted.tally.solutions;
            return match fixed {
                None => Some(answer_line(case, total)),
                Some(f) => f.unique(total).map(|u| format!("Case {case}: {total} (unique {u})")),
            };
        };
        let backend = counted.backend().unwrap_or("checkpoint").to_string();
        let seconds = counted.report.as_ref().map_or(0.0, |r| r.elapsed.as_secs_f64());
        let cards = counted.report.as_ref().map(|r| r.cards.clone()).filter(|c| !c.is_empty());
        let (machine, machine_from) = self.provenance.machine.clone().unzip();
        let record = CaseRecord {
            record: Kind::Case,
            format: FORMAT,
            nqueen: env!("CARGO_PKG_VERSION").to_string(),
            input: index,
            file: name.to_string(),
            case,
            n: board.n(),
            board: counted.board.clone(),
            plan: counted.plan.clone(),
            shard: shard.index,
            shards: shard.count,
            count: counted.tally.solutions,
            nodes: counted.tally.nodes,
            backend,
            seconds,
            method: IgnoredAny,
            unique: self
                .counting
                .unique
                .then(|| fixed.map_or(UniquePart { group: invariant_group(board).len(), fixed: 0 }, UniquePart::from)),
            no_symmetry: self.config.solve.no_symmetry,
            run: Some(self.provenance.run.clone()),
            host: Some(self.provenance.host.clone()),
            build: Some(self.provenance.build.clone()),
            started: counted.started.map(provenance::utc),
            ended: Some(provenance::utc(SystemTime::now())),
            shard_nodes: counted.estimate.map(|e| e.0),
            case_nodes: counted.estimate.map(|e| e.1),
            machine,
            machine_from,
            cards,
            device_seconds: Some(counted.device_seconds),
            counted_by: counted.counted_by.clone(),
            digest: IgnoredAny,
        };
        Some(Record::Case(Box::new(record)).sealed())
    }

    /// Counts `scope` of case `case` of input `index`, `board`, skipping what the checkpoint
    /// holds: its tally, and the report of this run's count (none when the checkpoint held
    /// all of it). `ahead` lists the shards to count after it, planned beside it, and
    /// `ends` says whether the run ends once it is counted.
    fn case(
        &mut self,
        index: usize,
        (case, board): (usize, &Board),
        (scope, ahead): (Scope, &[usize]),
        ends: bool,
    ) -> Result<Counted, Error> {
        let started = SystemTime::now();
        if scope == Scope::Whole && self.checkpoint.is_none() {
            // answer_case found it is not small.
            if let Some(report) = self.solver.sieved(board) {
                return Ok(Counted::plain(report));
            }
            let prepared = self.solver.prepare_large(board, scope);
            return Ok(Counted::plain(self.solver.count(board, &prepared, &Part::all_of(&prepared), ends, self.ctl)?));
        }
        let hash = match self.board_hash.take() {
            Some((at, hash)) if at == (index, case) => hash,
            _ => work::sha256(board.to_string().as_bytes()),
        };
        self.board_hash = Some(((index, case), hash.clone()));
        let at = CaseShard { input: index, case, board: hash, shard: scope.shard() };
        let resume = match &self.checkpoint {
            Some(c) => c.resume(&at).map_err(Error::Checkpoint)?,
            None => Resume::Fresh,
        };
        if let Resume::Done { plan, tally, device_seconds, backend, run } = resume {
            let resumed = backend;
            return Ok(Counted {
                tally,
                board: at.board,
                plan,
                report: None,
                estimate: None,
                started: Some(started),
                device_seconds,
                resumed,
                counted_by: run,
            });
        }
        let mut prepared = self.solver.prepare_ahead(board, scope, ahead);
        // Units are cut by estimated work.
        prepared.estimate();
        let all = prepared.all();
        let (done, counted_before, device_seconds_before) = match resume {
            Resume::Partial { plan, ranges, tally, device_seconds } => {
                let c = self.checkpoint.as_ref().expect("a partial case comes from a checkpoint");
                c.check_partial(&plan, &prepared.prefixes_fingerprint(), &ranges, &all).map_err(Error::Checkpoint)?;
                (ranges, tally, device_seconds)
            }
            Resume::Fresh | Resume::Done { .. } => (Vec::new(), Tally::default(), 0.0),
        };
        let work_before = done.iter().map(|r| prepared.work().get(r.clone()).map_or(r.len() as f64, |w| w.iter().sum())).sum();
        // What the checkpoint's units are counted from, where there is a checkpoint.
        let units = self.checkpoint.as_ref().map(|_| prepared.prefixes_fingerprint());
        let record = |unit: &Unit, tally: Tally, seconds: f64| match (&self.checkpoint, &units) {
            (Some(c), Some(units)) => c.unit(&at, units, unit, tally, seconds),
            _ => Ok(()),
        };
        // Units are recorded, and so cut, only where a checkpoint keeps them.
        let record = self.checkpoint.as_ref().map(|_| &record as solve::RecordUnit<'_>);
        let part = Part { selection: all.without(&done), counted_before, work_before, device_seconds_before, record };
        let report = self.solver.count(board, &prepared, &part, ends, self.ctl)?;
        let tally = Tally { solutions: report.count, nodes: report.nodes };
        let estimate = Some((prepared.roots.iter().map(|r| r.estimate).sum(), prepared.whole));
        let device_seconds = report.device_seconds;
        Ok(Counted {
            tally,
            board: at.board,
            plan: prepared.fingerprint.clone(),
            report: Some(report),
            estimate,
            started: Some(started),
            device_seconds,
            resumed: None,
            counted_by: None,
        })
    }

    /// With `--shard`, writes the end record of input `index` for each shard, which held
    /// `cases` cases up to `error`, if one ended it early.
    fn end<O: Write, E: Write>(
        &self,
        index: usize,
        input: &Input,
        cases: usize,
        error: Option<String>,
        sink: &mut Sink<'_, O, E>,
    ) -> Result<(), Stop> {
        let Some(shards) = self.counting.shards.as_ref().filter(|_| !self.counting.dry_run) else { return Ok(()) };
        for shard in shards.iter() {
            let record = EndRecord {
                record: Kind::End,
                format: FORMAT,
                nqueen: env!("CARGO_PKG_VERSION").to_string(),
                input: index,
                file: input.name(),
                cases,
                shard: shard.index,
                shards: shard.count,
                error: error.clone(),
                run: Some(self.provenance.run.clone()),
                host: Some(self.provenance.host.clone()),
                build: Some(self.provenance.build.clone()),
                digest: IgnoredAny,
            };
            sink.line(&Record::End(record).sealed())?;
        }
        Ok(())
    }
}
