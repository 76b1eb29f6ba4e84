//! `nqueen merge`: the part files given as inputs added up into the answers a plain run
//! prints (with `--summary`, and the summary to publish beside them); `nqueen status`, how
//! far the run is and what each case still lacks; `nqueen recheck`, which shards to count
//! again.

use std::io::Write;
use std::path::Path;

use super::{Config, Failure, Input, Merging, Outcome, Sink};
use crate::control::{AtRest, Control};
use crate::error::Error;
use crate::files::kind::Kind as FileKind;
use crate::files::whole::{self, Own, Rules};
use crate::files::FileError;
use crate::parts::ledger::{Keep, Ledger};
use crate::parts::{self, machines, merge, plot, recheck, status, summary, PartsError};
use crate::words::{counted, plural, shown, STDIN, STDIN_PATH};

/// The summary `merge --summary` writes, and how a file is known for one.
const SUMMARY: Own = Own { role: "summary", kind: FileKind::Summary, written: summary::is_written };
/// The picture `status --plot` draws, and how a file is known for one.
const PLOT: Own = Own { role: "plot", kind: FileKind::Plot, written: plot::is_written };

/// Merges the part files `config` names as `merging` says, noting what fails in `outcome`.
/// A file given twice is refused before any is read: its records would be taken for
/// recounts.
///
/// Reading and adding up many records takes a while and writes nothing: the run is at rest
/// meanwhile (see [`Control::at_rest`]), so that a signal ends it at once. What it then
/// writes, it writes after a look at `ctl`: a run stopped by a signal writes no more lines,
/// and no summary or plot.
pub(super) fn run<O: Write, E: Write>(config: &Config, merging: &Merging, ctl: &Control, sink: &mut Sink<'_, O, E>, outcome: &mut Outcome) {
    let inputs = &config.inputs;
    let named: Vec<&Path> = inputs.iter().map(|input| input.path().unwrap_or(Path::new(STDIN_PATH))).collect();
    if let Some((first, again)) = crate::files::first_repeat(&named) {
        let (first, again) = (inputs[first].shown(), inputs[again].shown());
        if first == again {
            sink.say(format_args!("{first} is given twice: give each part file once"));
        } else {
            sink.say(format_args!("{again} is {first}, given twice: give each part file once"));
        }
        return outcome.note(Failure::Usage);
    }
    let rest = ctl.at_rest();
    // The records stream into the ledger, which keeps a few bytes a shard of them.
    let keep = match merging {
        Merging::Answers { summary } => Keep { summary: summary.is_some(), plot: false },
        Merging::Status { plot, .. } => Keep { summary: false, plot: plot.is_some() },
        Merging::Recheck { .. } => Keep::default(),
    };
    let mut records = Ledger::new(keep);
    let mut unreadable = false;
    for input in inputs {
        let mut take = |r| records.add(r);
        let problem = match input {
            Input::File(path) => parts::read_path_into(path, &mut take),
            Input::Stdin if config.stdin_closed => Some(PartsError::Unreadable(format!("{STDIN}: {}", FileError::StdinClosed))),
            Input::Stdin => parts::read_into(std::io::stdin().lock(), STDIN, &mut take),
        };
        if let Some(problem) = problem {
            sink.say(format_args!("{problem}"));
            unreadable = true;
        }
    }
    records.close();
    if unreadable {
        outcome.note(Failure::BadInput);
    }
    if records.records == 0 {
        // A glob that matched nothing, say: a merge of nothing is no answer.
        if !unreadable {
            let named = inputs.iter().map(Input::shown).collect::<Vec<_>>().join(", ");
            sink.say(format_args!("no part records in {named}: expected the JSON lines that --shard runs write"));
        }
        return outcome.note(Failure::BadInput);
    }
    match merging {
        Merging::Answers { summary } => answers(&records, summary.as_deref(), inputs, (ctl, rest), sink, outcome),
        Merging::Status { by_host, silent_after, plot } => {
            let status = status::status(&records);
            let mut said = status.lines;
            let mut picture = None;
            match machines::machines(&records, status.complete, *silent_after) {
                Ok(found) => {
                    // The machines before the case status's JSON line, and theirs after it.
                    let json = said.pop();
                    said.extend(if *by_host { found.lines() } else { found.summary() });
                    said.extend(json);
                    said.push(serde_json::to_string(&found).expect("machines are plain data"));
                    picture = plot.as_deref().map(|path| (path, plot::svg(&records, &found)));
                }
                Err(problem) => said.push(problem.to_string()),
            }
            drop(rest);
            // The status before its picture: a FIFO with no reader holds back the picture
            // alone.
            if lines(&said, ctl, sink, outcome) && !status.complete {
                outcome.note(Failure::BadInput);
            }
            match picture {
                Some((path, Ok(svg))) => write_file(path, svg.as_bytes(), PLOT, inputs, ctl, sink, outcome),
                Some((path, Err(e))) => {
                    sink.say(format_args!("plot {}: {e}", shown(path)));
                    outcome.note(Failure::Output);
                }
                None => {}
            }
        }
        Merging::Recheck { share, seed } => {
            let chosen = recheck::choose(&records, *share, *seed);
            drop(rest);
            match chosen {
                Ok(chosen) if chosen.shards.is_empty() => {
                    sink.say(format_args!("no shard to count again: the share draws none (a share of 0, or none left counted once), every machine has a shard recounted, and no records disagree"));
                }
                Ok(chosen) => {
                    if lines(&[chosen.shard_list()], ctl, sink, outcome) {
                        sink.say(format_args!(
                            "{} of {} shards to count again: {} at random (seed {seed}), {} more so that each of {} machine{} has one, {} whose records disagree",
                            chosen.shards.len(),
                            chosen.of,
                            chosen.random,
                            chosen.for_machines,
                            chosen.machines,
                            plural(chosen.machines),
                            chosen.disagreeing
                        ));
                    }
                }
                Err(problem) => {
                    sink.say(format_args!("{problem}"));
                    outcome.note(Failure::BadInput);
                }
            }
        }
    }
    // Letting go of many records takes a while too: the answers go out first, and the run
    // is at rest meanwhile.
    if let Err(stop) = sink.flush() {
        outcome.stopped(stop);
    }
    let _rest = ctl.at_rest();
    drop(records);
}

/// Prints the answers `records` add up to, says what they rest on, and with `summary`
/// writes the summary to publish to that file. The run is at rest (`rest`) until the
/// answers are added up.
fn answers<O: Write, E: Write>(
    records: &Ledger,
    summary: Option<&Path>,
    inputs: &[Input],
    (ctl, rest): (&Control, AtRest<'_>),
    sink: &mut Sink<'_, O, E>,
    outcome: &mut Outcome,
) {
    let merged = merge::merge(records);
    drop(rest);
    if !lines(&merged.answers, ctl, sink, outcome) {
        return;
    }
    for error in &merged.input_errors {
        sink.say(format_args!("{error}"));
        outcome.note(Failure::BadInput);
    }
    if let Some(problem) = &merged.problem {
        sink.say(format_args!("{problem}"));
        outcome.note(Failure::BadInput);
    }
    let recounted = merged.recounted;
    if recounted.shards > 0 {
        sink.say(format_args!(
            "{} over {} {} counted more than once ({}), and every recount agrees",
            counted(recounted.shards, "shard"),
            counted(recounted.cases, "case"),
            if recounted.shards == 1 { "was" } else { "were" },
            counted(recounted.records, "recount")
        ));
    }
    let Some(path) = summary else { return };
    if merged.problem.is_some() {
        sink.say(format_args!("no summary written to {}: the merge is not complete", shown(path)));
        return;
    }
    // The answers out, and at rest while the summary is made.
    if let Err(stop) = sink.flush() {
        return outcome.stopped(stop);
    }
    let made = {
        let _rest = ctl.at_rest();
        summary::summary(records, &merged)
    };
    match made {
        Ok(text) => write_file(path, text.as_bytes(), SUMMARY, inputs, ctl, sink, outcome),
        Err(problem) => {
            sink.say(format_args!("no summary written to {}: {problem}", shown(path)));
            outcome.note(Failure::BadInput);
        }
    }
}

/// Whether the run was stopped by a signal: then noted in `outcome`, and nothing more is
/// written.
fn stopped(ctl: &Control, outcome: &mut Outcome) -> bool {
    if ctl.is_cancelled() {
        outcome.note(Failure::of(&Error::Interrupted, ctl));
    }
    ctl.is_cancelled()
}

/// Writes `lines` to the answers; false, noted in `outcome`, where the run stops there.
fn lines<O: Write, E: Write>(lines: &[String], ctl: &Control, sink: &mut Sink<'_, O, E>, outcome: &mut Outcome) -> bool {
    for line in lines {
        if stopped(ctl, outcome) {
            return false;
        }
        if let Err(stop) = sink.line(line) {
            outcome.stopped(stop);
            return false;
        }
    }
    true
}

/// Writes `bytes`, a file of the kind `own`, to `path` whole (see [`crate::files::whole`]),
/// or to standard output for "-" (the answers then go to standard error), unless the run
/// was stopped by a signal; a failure is noted in `outcome`.
fn write_file<O: Write, E: Write>(
    path: &Path,
    bytes: &[u8],
    own: Own,
    inputs: &[Input],
    ctl: &Control,
    sink: &mut Sink<'_, O, E>,
    outcome: &mut Outcome,
) {
    if stopped(ctl, outcome) {
        return;
    }
    // The answers go out before the file is opened: a FIFO with no reader yet holds back
    // the file alone.
    if let Err(stop) = sink.flush() {
        outcome.stopped(stop);
    }
    if path.as_os_str() == "-" {
        if let Err(stop) = sink.bytes(bytes) {
            outcome.stopped(stop);
        }
        return;
    }
    // A FIFO may wait for its reader: a signal may then end the run at once.
    let _waiting = crate::files::is_stream(path).then(|| ctl.at_rest());
    if let Err(e) = whole::write(path, bytes, &Rules { own, inputs: &Input::paths(inputs) }) {
        sink.say(format_args!("{e}"));
        outcome.note(Failure::Output);
    }
}
