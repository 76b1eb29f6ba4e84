//! `--merge`: the part files given as inputs added up into the answers a plain run prints,
//! or with `--status`, what each case still lacks.

use std::io::Write;

use super::{Failure, Input, Outcome, Sink};
use crate::parts::{self, merge};

/// Merges the part files `inputs` (see the module doc), noting what fails in `outcome`.
pub(super) fn run<O: Write, E: Write>(inputs: &[Input], status: bool, sink: &mut Sink<'_, O, E>, outcome: &mut Outcome) {
    let mut records = Vec::new();
    let mut unreadable = false;
    for input in inputs {
        let (read, problem) = match input {
            Input::File(path) => parts::read(path),
            Input::Stdin => parts::read_from(std::io::stdin().lock(), "<stdin>"),
        };
        records.extend(read);
        if let Some(problem) = problem {
            sink.say(format_args!("{problem}"));
            unreadable = true;
        }
    }
    if unreadable {
        outcome.note(Failure::BadInput);
    } else if records.is_empty() {
        // A glob that matched nothing, say: a merge of nothing is no answer.
        let named = inputs.iter().map(Input::name).collect::<Vec<_>>().join(", ");
        sink.say(format_args!("no part records in {named}: expected the JSON lines that --shard runs write"));
        return outcome.note(Failure::BadInput);
    }
    if status {
        let (lines, complete) = merge::status(&records);
        for line in lines {
            if let Err(stop) = sink.line(&line) {
                return outcome.stopped(stop);
            }
        }
        if !complete {
            outcome.note(Failure::BadInput);
        }
        return;
    }
    let merged = merge::merge(&records);
    for answer in &merged.answers {
        if let Err(stop) = sink.line(answer) {
            return outcome.stopped(stop);
        }
    }
    for error in &merged.input_errors {
        sink.say(format_args!("{error}"));
        outcome.note(Failure::BadInput);
    }
    if let Some(problem) = merged.problem {
        sink.say(format_args!("{problem}"));
        outcome.note(Failure::BadInput);
    }
}
