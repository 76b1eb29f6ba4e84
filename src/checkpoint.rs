//! `--checkpoint FILE`: every unit of work a run finishes, and every case, appended to a
//! file as one JSON line and synced to disk before the run goes on, so that a run
//! restarted with the same input and file skips what is done. A kill at any moment loses
//! at most the units in flight: a line is either whole or the torn last one (the start of a
//! line, with no newline), which is dropped with a warning; any other line is refused.
//! Nothing is counted twice: a unit's prefixes are recorded with
//! it, and a resumed run counts only the prefixes no line holds.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

mod lines;
mod torn;

use serde::de::IgnoredAny;

use crate::files::kind::{Kind as FileKind, SNIFF};
use crate::files::{self, among};
use crate::tally::Tally;
use crate::words::{os_words, shown, shown_input};
use crate::work::{Selection, Shard, Unit};
use lines::{read_lines, CaseLine, HeaderLine, Kind, Line, ReadError, UnitLine, FORMAT};

/// What a checkpoint holds of one shard of one case.
#[derive(Clone, Debug, Default)]
struct Entry {
    /// The prefixes the units were counted from (see
    /// [`crate::split::prefixes_fingerprint`]), and the units.
    plan: Option<String>,
    /// Each unit's prefixes, count and the device-seconds it took.
    units: Vec<(Vec<Range<usize>>, Tally, f64)>,
    /// The shard's whole count, once it is done (a [`Resume::Done`]).
    done: Option<Resume>,
}

/// What every shard of one case recorded must agree on: the board's hash, and the number
/// of shards with the first one recorded.
#[derive(Clone, Debug)]
struct CaseKey {
    board: String,
    shard: (usize, usize),
}

/// One shard of one case, as a checkpoint names it: case `case` (from 1) of input `input`
/// (from 0), whose board's hash is `board` (see [`crate::work::sha256`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseShard {
    pub input: usize,
    pub case: usize,
    pub board: String,
    pub shard: Shard,
}

/// A case as the checkpoint has it, with the device-seconds the runs that counted it took.
#[derive(Clone, Debug, PartialEq)]
pub enum Resume {
    /// Nothing recorded.
    Fresh,
    /// Counted whole, from the split `plan`, by `backend` in the run `run` (none where an
    /// earlier build wrote the line).
    Done { plan: String, tally: Tally, device_seconds: f64, backend: Option<String>, run: Option<String> },
    /// Some prefixes counted: their ranges and tally, from the prefixes `plan`.
    Partial { plan: String, ranges: Vec<Range<usize>>, tally: Tally, device_seconds: f64 },
}

/// An open checkpoint: what it held when opened, and the file, appended to as units finish.
pub struct Checkpoint {
    path: PathBuf,
    file: Mutex<File>,
    /// By input and case.
    cases: HashMap<(usize, usize), CaseKey>,
    /// By input, case and shard.
    entries: HashMap<(usize, usize, usize), Entry>,
}

/// Why a checkpoint cannot be used: the file, and what is wrong with it, as its message
/// says ("checkpoint run.ckpt: line 3: ...").
#[derive(Debug)]
pub struct CheckpointError {
    path: PathBuf,
    problem: Problem,
}

impl CheckpointError {
    /// The checkpoint's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file could not be created, read or written (a missing directory, a full
    /// disk), rather than refused for what it holds or is.
    pub fn is_io(&self) -> bool {
        matches!(self.problem, Problem::Io(_) | Problem::Truncate(_))
    }
}

/// What is wrong with a checkpoint.
#[derive(Debug)]
#[non_exhaustive]
pub enum Problem {
    /// It could not be opened, read or written.
    Io(io::Error),
    /// Its torn last line could not be cut off.
    Truncate(io::Error),
    /// It is a directory, device, FIFO or socket, not a regular file.
    NotAFile(&'static str),
    /// It is this input of the run.
    Input(PathBuf),
    /// It holds this kind of file, not a checkpoint.
    NotOurs(FileKind),
    /// It is read-only, or this user may not write it: no unit could be recorded in it.
    ReadOnly,
    /// Another run holds it: the two would record each other's cases as their own.
    InUse,
    /// Its first line is not a checkpoint header.
    NoHeader,
    /// It was written by another version or format of nqueen.
    OtherVersion { nqueen: String, format: u32 },
    /// A line that is not a checkpoint line (and is not the last), or a second header.
    BadLine { line: usize, why: String },
    /// A case recorded two ways at `line`: for two boards or numbers of shards, or (`plans`)
    /// from two plans.
    TwoWays { line: usize, input: usize, case: usize, plans: bool },
    /// A case of the run was counted for another board: the checkpoint of another input.
    OtherBoard { input: usize, case: usize },
    /// A case of the run was counted as another number of shards.
    OtherShards { input: usize, case: usize, recorded: (usize, usize), asked: (usize, usize) },
    /// Its units were counted from another plan.
    OtherPlan,
    /// Its units overlap or lie outside the case's prefixes.
    BadUnits,
}

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "checkpoint {}: ", shown(&self.path))?;
        match &self.problem {
            Problem::Io(e) => f.write_str(&files::io_words(&self.path, e)),
            Problem::Truncate(e) => write!(f, "cannot drop its torn last line: {}", os_words(e)),
            Problem::NotAFile(what) => write!(f, "is {what}, not a regular file, so it was left as it is"),
            Problem::Input(input) => write!(f, "is the input {}, so it was left as it is", shown_input(input)),
            Problem::ReadOnly => f.write_str("is read-only, so no work could be recorded in it"),
            Problem::InUse => f.write_str("is in use by another run, so it was left as it is: give each run a checkpoint of its own"),
            Problem::NotOurs(kind) => write!(
                f,
                "holds {}, not a checkpoint, so it was left as it is: give the name of a new file, or of an earlier run's checkpoint",
                kind.name()
            ),
            Problem::NoHeader => f.write_str("line 1 is not a checkpoint header"),
            Problem::OtherVersion { nqueen, format } => write!(
                f,
                "written by nqueen {nqueen} (format {format}), not by this nqueen {} (format {FORMAT}); \
                 counts are only resumed by the version that made them: delete it to start again",
                version()
            ),
            Problem::BadLine { line, why } => write!(f, "line {line}: {why}"),
            Problem::TwoWays { line, input, case, plans: false } => {
                write!(f, "line {line}: case {case} of input {} is recorded for two different boards or numbers of shards", input + 1)
            }
            Problem::TwoWays { line, input, case, plans: true } => {
                write!(f, "line {line}: case {case} of input {} is recorded from two different plans", input + 1)
            }
            Problem::OtherBoard { input, case } => {
                write!(f, "its case {case} of input {} is another board: it was written for another input", input + 1)
            }
            Problem::OtherShards { input, case, recorded: (k, m), asked: (i, c) } => {
                write!(f, "case {case} of input {} was counted as shard {k}/{m}, not {i}/{c}", input + 1)
            }
            Problem::OtherPlan => {
                f.write_str("its units were counted from another plan (another version, or other options such as --no-symmetry or --shard)")
            }
            Problem::BadUnits => f.write_str("its units overlap or lie outside the case's prefixes"),
        }
    }
}

impl std::error::Error for CheckpointError {}

/// Whether the file at `path` may be opened as a checkpoint: none there yet, or a regular
/// file, none of `inputs`, that starts with a checkpoint header (see [`FileKind::of`]).
fn adoptable(path: &Path, inputs: &[&Path]) -> Result<(), Problem> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Problem::Io(e)),
    };
    if let Some(what) = files::not_regular(&meta) {
        return Err(Problem::NotAFile(what));
    }
    if let Some(input) = among(path, inputs.iter().copied()) {
        return Err(Problem::Input(input.to_path_buf()));
    }
    if meta.permissions().readonly() {
        return Err(Problem::ReadOnly);
    }
    let mut start = Vec::with_capacity(SNIFF);
    File::open(path).and_then(|f| io::Read::take(f, SNIFF as u64).read_to_end(&mut start)).map_err(Problem::Io)?;
    match FileKind::of(&start) {
        FileKind::Empty | FileKind::Checkpoint | FileKind::TornHeader => Ok(()),
        other => Err(Problem::NotOurs(other)),
    }
}

impl Checkpoint {
    /// Opens the checkpoint at `path`, creating it if it does not exist, for this version
    /// of nqueen; with the warning to give if its torn last line was dropped. A file that
    /// is there already is opened only if it is a regular file, none of `inputs`, and
    /// starts with a checkpoint's header (or the first bytes of one, and nothing more);
    /// anything else is refused and left as it is. The checkpoint is locked until it is
    /// dropped: one that another run holds is refused.
    pub fn open(path: &Path, inputs: &[&Path]) -> Result<(Checkpoint, Option<String>), CheckpointError> {
        let fail = |problem| CheckpointError { path: path.to_path_buf(), problem };
        adoptable(path, inputs).map_err(fail)?;
        let mut file = OpenOptions::new().read(true).append(true).create(true).open(path).map_err(|e| match e.kind() {
            // Read above, so not to be written: another user's file, say.
            io::ErrorKind::PermissionDenied if path.exists() => fail(Problem::ReadOnly),
            _ => fail(Problem::Io(e)),
        })?;
        // The file checked above, not one put in its place since.
        match file.metadata() {
            Ok(meta) if files::not_regular(&meta).is_some() => return Err(fail(Problem::NotAFile("not a regular file"))),
            Err(e) => return Err(fail(Problem::Io(e))),
            Ok(_) => {}
        }
        // Held for the run's life, and let go with the file: two runs that record into one
        // checkpoint leave it one that neither can resume. A filesystem without locks has
        // nothing to tell.
        if let Err(std::fs::TryLockError::WouldBlock) = file.try_lock() {
            return Err(fail(Problem::InUse));
        }
        let (lines, kept_bytes, torn) = read_lines(&mut file).map_err(|e| match e {
            ReadError::Io(e) => fail(Problem::Io(e)),
            ReadError::BadLine { line, why } => fail(Problem::BadLine { line, why }),
        })?;
        let mut warning = None;
        if let Some(line) = torn {
            file.set_len(kept_bytes).map_err(|e| fail(Problem::Truncate(e)))?;
            warning = Some(format!(
                "checkpoint {}: dropped its torn last line {line} (a run was stopped or ran out of room mid-write)",
                shown(path)
            ));
        }
        let mut checkpoint =
            Checkpoint { path: path.to_path_buf(), file: Mutex::new(file), cases: HashMap::new(), entries: HashMap::new() };
        if lines.is_empty() {
            let header = HeaderLine { record: Kind::Header, format: FORMAT, nqueen: version(), digest: IgnoredAny };
            checkpoint.append(&Line::Header(header)).map_err(|e| fail(Problem::Io(e)))?;
            return Ok((checkpoint, warning));
        }
        for (number, line) in lines.into_iter().enumerate() {
            let number = number + 1;
            match (number, line) {
                (1, Line::Header(HeaderLine { format, nqueen, .. })) => {
                    if format != FORMAT || nqueen != version() {
                        return Err(fail(Problem::OtherVersion { nqueen, format }));
                    }
                }
                (1, _) => return Err(fail(Problem::NoHeader)),
                (_, Line::Header(_)) => return Err(fail(Problem::BadLine { line: number, why: "a second header".into() })),
                (_, line) => checkpoint.take(number, line).map_err(fail)?,
            }
        }
        Ok((checkpoint, warning))
    }

    /// Adds unit or case line number `number` to what the checkpoint holds.
    fn take(&mut self, number: usize, line: Line) -> Result<(), Problem> {
        let (input, case, board, shard) = match &line {
            Line::Unit(l) => (l.input, l.case, l.board.clone(), (l.shard, l.shards)),
            Line::Case(l) => (l.input, l.case, l.board.clone(), (l.shard, l.shards)),
            Line::Header(_) => unreachable!("headers are taken by open"),
        };
        let key = self.cases.entry((input, case)).or_insert_with(|| CaseKey { board: board.clone(), shard });
        if key.board != board || key.shard.1 != shard.1 {
            return Err(Problem::TwoWays { line: number, input, case, plans: false });
        }
        let entry = self.entries.entry((input, case, shard.0)).or_default();
        match line {
            Line::Unit(l) => {
                if entry.plan.as_ref().is_some_and(|p| *p != l.plan) {
                    return Err(Problem::TwoWays { line: number, input, case, plans: true });
                }
                entry.plan = Some(l.plan);
                let tally = Tally { solutions: l.solutions, nodes: l.nodes };
                entry.units.push((l.ranges.into_iter().map(|[a, b]| a..b).collect(), tally, l.device_seconds));
            }
            Line::Case(l) => {
                let tally = Tally { solutions: l.solutions, nodes: l.nodes };
                entry.done = Some(Resume::Done { plan: l.plan, tally, device_seconds: l.device_seconds, backend: l.backend, run: l.run });
            }
            Line::Header(_) => unreachable!("headers are taken by open"),
        }
        Ok(())
    }

    /// What the checkpoint holds of `at`; an error when it holds that case for another
    /// board or number of shards (a checkpoint of another input or split).
    pub fn resume(&self, at: &CaseShard) -> Result<Resume, CheckpointError> {
        let CaseShard { input, case, ref board, shard } = *at;
        let Some(key) = self.cases.get(&(input, case)) else { return Ok(Resume::Fresh) };
        if key.board != *board {
            return Err(self.error(Problem::OtherBoard { input, case }));
        }
        if key.shard.1 != shard.count {
            return Err(self.error(Problem::OtherShards { input, case, recorded: key.shard, asked: (shard.index, shard.count) }));
        }
        let Some(entry) = self.entries.get(&(input, case, shard.index)) else { return Ok(Resume::Fresh) };
        if let Some(done) = entry.done.clone() {
            return Ok(done);
        }
        let ranges = entry.units.iter().flat_map(|(r, _, _)| r.iter().cloned()).collect();
        let tally = entry.units.iter().map(|(_, t, _)| *t).sum();
        let device_seconds = entry.units.iter().map(|(_, _, s)| s).sum();
        Ok(entry.plan.clone().map_or(Resume::Fresh, |plan| Resume::Partial { plan, ranges, tally, device_seconds }))
    }

    /// Checks that `ranges`, recorded from the prefixes `recorded`, may be taken off
    /// `selection`, counted from the prefixes `plan`: the same prefixes, ranges within
    /// the selection and none counted twice.
    pub fn check_partial(&self, recorded: &str, plan: &str, ranges: &[Range<usize>], selection: &Selection) -> Result<(), CheckpointError> {
        if recorded != plan {
            return Err(self.error(Problem::OtherPlan));
        }
        let total: usize = ranges.iter().map(|r| r.len()).sum();
        if !selection.covers(ranges) || total != selection.len() - selection.without(ranges).len() {
            return Err(self.error(Problem::BadUnits));
        }
        Ok(())
    }

    /// Records that `unit` of `at`, counted from the prefixes `plan`, counted `tally` in
    /// `device_seconds`; returns once the line is on disk.
    pub fn unit(&self, at: &CaseShard, plan: &str, unit: &Unit, tally: Tally, device_seconds: f64) -> io::Result<()> {
        let ranges = unit.ranges.iter().map(|r| [r.start, r.end]).collect();
        self.append(&Line::Unit(UnitLine {
            record: Kind::Unit,
            input: at.input,
            case: at.case,
            board: at.board.clone(),
            shard: at.shard.index,
            shards: at.shard.count,
            plan: plan.to_string(),
            ranges,
            solutions: tally.solutions,
            nodes: tally.nodes,
            device_seconds,
            digest: IgnoredAny,
        }))
    }

    /// Records that `at` is counted whole from the split `plan`, `tally`, its runs having
    /// taken `device_seconds` in all, the last on `backend` in the run `run`.
    pub fn case(
        &self,
        at: &CaseShard,
        plan: &str,
        tally: Tally,
        device_seconds: f64,
        (backend, run): (Option<&str>, &str),
    ) -> io::Result<()> {
        self.append(&Line::Case(CaseLine {
            record: Kind::Case,
            input: at.input,
            case: at.case,
            board: at.board.clone(),
            shard: at.shard.index,
            shards: at.shard.count,
            plan: plan.to_string(),
            solutions: tally.solutions,
            nodes: tally.nodes,
            device_seconds,
            backend: backend.map(str::to_string),
            run: Some(run.to_string()),
            method: IgnoredAny,
            digest: IgnoredAny,
        }))
    }

    /// Appends `line` and waits until it is on disk.
    fn append(&self, line: &Line) -> io::Result<()> {
        let text = line.to_text();
        let file = self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // One write per line: a kill leaves at most the last line torn.
        (&*file).write_all(text.as_bytes())?;
        file.sync_data()
    }

    fn error(&self, problem: Problem) -> CheckpointError {
        CheckpointError { path: self.path.clone(), problem }
    }
}

/// This nqueen's version, as a checkpoint records it.
fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // a range in a list is a list of ranges here
mod tests {
    use super::*;

    fn at(input: usize, case: usize, board: &str, shard: Shard) -> CaseShard {
        CaseShard { input, case, board: board.into(), shard }
    }

    fn unit(ranges: &[Range<usize>]) -> Unit {
        Unit { ranges: ranges.to_vec(), estimate: 1.0 }
    }

    #[test]
    fn what_was_recorded_is_resumed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let (c, warning) = Checkpoint::open(&path, &[]).unwrap();
        assert!(warning.is_none());
        let t = |s| Tally { solutions: s, nodes: 10 * s };
        c.unit(&at(0, 1, "b1", Shard { index: 0, count: 1 }), "p1", &unit(&[0..5]), t(3), 1.5).unwrap();
        c.unit(&at(0, 1, "b1", Shard { index: 0, count: 1 }), "p1", &unit(&[5..7, 9..10]), t(4), 2.0).unwrap();
        c.case(&at(0, 2, "b2", Shard { index: 0, count: 1 }), "p2", t(92), 9.0, (Some("gpu(0: H100)"), "run-a")).unwrap();
        drop(c);
        let (c, _) = Checkpoint::open(&path, &[]).unwrap();
        assert_eq!(
            c.resume(&at(0, 1, "b1", Shard { index: 0, count: 1 })).unwrap(),
            Resume::Partial { plan: "p1".into(), ranges: vec![0..5, 5..7, 9..10], tally: t(7), device_seconds: 3.5 }
        );
        assert_eq!(
            c.resume(&at(0, 2, "b2", Shard { index: 0, count: 1 })).unwrap(),
            Resume::Done {
                plan: "p2".into(),
                tally: t(92),
                device_seconds: 9.0,
                backend: Some("gpu(0: H100)".into()),
                run: Some("run-a".into())
            }
        );
        assert_eq!(c.resume(&at(1, 1, "b1", Shard { index: 0, count: 1 })).unwrap(), Resume::Fresh);
        assert!(c.resume(&at(0, 2, "other", Shard { index: 0, count: 1 })).unwrap_err().to_string().contains("written for another input"));
        assert!(c.resume(&at(0, 2, "b2", Shard { index: 1, count: 2 })).is_err());
        let selection = Selection { ranges: vec![0..12] };
        assert!(c.check_partial("p1", "p1", &[0..5, 5..7, 9..10], &selection).is_ok());
        assert!(c.check_partial("p1", "p2", &[0..5], &selection).is_err());
        assert!(c.check_partial("p1", "p1", &[0..5, 4..6], &selection).is_err());
        assert!(c.check_partial("p1", "p1", &[10..14], &selection).is_err());
    }

    #[test]
    fn several_shards_of_a_case_are_kept_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let (c, _) = Checkpoint::open(&path, &[]).unwrap();
        let shard = |index| Shard { index, count: 4 };
        let t = Tally { solutions: 5, nodes: 50 };
        c.unit(&at(0, 1, "b", shard(1)), "p1", &unit(&[0..3]), t, 1.0).unwrap();
        c.case(&at(0, 1, "b", shard(2)), "s", t, 2.0, (None, "run-a")).unwrap();
        drop(c);
        let (c, _) = Checkpoint::open(&path, &[]).unwrap();
        assert_eq!(
            c.resume(&at(0, 1, "b", shard(1))).unwrap(),
            Resume::Partial { plan: "p1".into(), ranges: vec![0..3], tally: t, device_seconds: 1.0 }
        );
        assert_eq!(
            c.resume(&at(0, 1, "b", shard(2))).unwrap(),
            Resume::Done { plan: "s".into(), tally: t, device_seconds: 2.0, backend: None, run: Some("run-a".into()) }
        );
        assert_eq!(c.resume(&at(0, 1, "b", shard(0))).unwrap(), Resume::Fresh);
        assert!(c.resume(&at(0, 1, "b", Shard { index: 1, count: 5 })).unwrap_err().to_string().contains("shard 1/4, not 1/5"));
    }

    #[test]
    fn a_torn_last_line_is_dropped_with_a_warning_and_the_file_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let (c, _) = Checkpoint::open(&path, &[]).unwrap();
        c.unit(&at(0, 1, "b", Shard { index: 0, count: 1 }), "p", &unit(&[0..5]), Tally { solutions: 1, nodes: 1 }, 0.0).unwrap();
        drop(c);
        let whole = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{whole}{{\"record\":\"unit\",\"inp")).unwrap();
        let (c, warning) = Checkpoint::open(&path, &[]).unwrap();
        assert!(warning.unwrap().contains("torn last line 3"));
        c.case(&at(0, 1, "b", Shard { index: 0, count: 1 }), "p", Tally { solutions: 2, nodes: 2 }, 0.0, (None, "run-a")).unwrap();
        drop(c);
        let (c, warning) = Checkpoint::open(&path, &[]).unwrap();
        assert!(warning.is_none());
        assert_eq!(
            c.resume(&at(0, 1, "b", Shard { index: 0, count: 1 })).unwrap(),
            Resume::Done {
                plan: "p".into(),
                tally: Tally { solutions: 2, nodes: 2 },
                device_seconds: 0.0,
                backend: None,
                run: Some("run-a".into())
            }
        );
    }

    #[test]
    fn case_lines_that_name_a_method_still_read() {
        // Builds with the table join (up to commit e5ec949) wrote the method beside the backend.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("join.ckpt");
        let header = format!("{{\"record\":\"header\",\"format\":1,\"nqueen\":\"{}\"}}\n", version());
        let case = r#"{"record":"case","input":0,"case":1,"board":"b","shard":0,"shards":1,"plan":"p","solutions":92,"nodes":9,"device_seconds":1.5,"backend":"cpu(2 threads)","method":"join(k=9)"}"#;
        std::fs::write(&path, format!("{header}{case}\n")).unwrap();
        let (c, _) = Checkpoint::open(&path, &[]).unwrap();
        let done = Resume::Done {
            plan: "p".into(),
            tally: Tally { solutions: 92, nodes: 9 },
            device_seconds: 1.5,
            backend: Some("cpu(2 threads)".into()),
            run: None,
        };
        assert_eq!(c.resume(&at(0, 1, "b", Shard { index: 0, count: 1 })).unwrap(), done);
        c.case(&at(0, 2, "b", Shard { index: 0, count: 1 }), "p", Tally { solutions: 1, nodes: 1 }, 0.0, (Some("cpu"), "run-a")).unwrap();
        assert!(!std::fs::read_to_string(&path).unwrap().lines().last().unwrap().contains("method"));
    }

    #[test]
    fn another_version_or_a_broken_line_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.ckpt");
        std::fs::write(&path, "{\"record\":\"header\",\"format\":1,\"nqueen\":\"0.0.1\"}\n").unwrap();
        assert!(Checkpoint::open(&path, &[]).err().unwrap().to_string().contains("written by nqueen 0.0.1"));
        std::fs::write(&path, format!("{{\"record\":\"header\",\"format\":1,\"nqueen\":\"{}\"}}\nnot json\n{{}}\n", version())).unwrap();
        assert!(Checkpoint::open(&path, &[]).err().unwrap().to_string().contains("line 2: not a checkpoint line"));
    }

    #[test]
    fn the_header_is_the_one_files_know_checkpoints_by() {
        let header = HeaderLine { record: Kind::Header, format: FORMAT, nqueen: version(), digest: IgnoredAny };
        assert_eq!(Line::Header(header).to_text(), crate::files::kind::checkpoint_header());
    }

    #[test]
    fn a_file_nqueen_did_not_write_is_refused_and_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let part = r#"{"record":"case","format":2,"nqueen":"0.1.0","input":0,"file":"a.in","case":1}"#;
        let foreign: [(&str, Vec<u8>, &str); 6] = [
            ("notes.txt", b"my notes".to_vec(), "holds text that nqueen did not write"),
            ("b.in", b"4 .*.. .... .... ....".to_vec(), "holds judge input"),
            ("part.jsonl", format!("{part}\n").into_bytes(), "holds a part record of a --shard run"),
            ("other.json", b"{\"name\":\"notes\"}\n".to_vec(), "holds JSON that nqueen did not write"),
            ("zeros", vec![0u8; 1 << 20], "holds binary data"),
            ("half", br#"{"record":"hea"#.iter().chain(b"\nmore").copied().collect(), "holds JSON that nqueen did not write"),
        ];
        for (name, bytes, why) in foreign {
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            let said = Checkpoint::open(&path, &[]).err().unwrap().to_string();
            assert_eq!(said, format!("checkpoint {}: {why}, not a checkpoint, so it was left as it is: give the name of a new file, or of an earlier run's checkpoint", path.display()));
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name} changed");
        }
        let said = Checkpoint::open(dir.path(), &[]).err().unwrap().to_string();
        assert!(said.ends_with("is a directory, not a regular file, so it was left as it is"), "{said}");
        // One of the run's inputs, even one that is a checkpoint, under another name.
        let input = dir.path().join("input.ckpt");
        drop(Checkpoint::open(&input, &[]).unwrap());
        let link = dir.path().join("link.ckpt");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let said = Checkpoint::open(&link, &[input.as_path()]).err().unwrap().to_string();
        assert!(said.ends_with(&format!("is the input {}, so it was left as it is", input.display())), "{said}");
    }

    #[test]
    fn a_checkpoint_is_held_by_one_run_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("two.ckpt");
        let (first, _) = Checkpoint::open(&path, &[]).unwrap();
        let before = std::fs::read(&path).unwrap();
        let said = Checkpoint::open(&path, &[]).err().unwrap();
        assert!(!said.is_io());
        assert!(said.to_string().ends_with("is in use by another run, so it was left as it is: give each run a checkpoint of its own"));
        assert_eq!(std::fs::read(&path).unwrap(), before);
        drop(first);
        assert!(Checkpoint::open(&path, &[]).is_ok());
    }

    #[test]
    fn a_header_cut_short_or_an_empty_file_starts_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let header = crate::files::kind::checkpoint_header();
        for (name, start) in [("torn", &header[..12]), ("empty", "")] {
            let path = dir.path().join(name);
            std::fs::write(&path, start).unwrap();
            let (c, warning) = Checkpoint::open(&path, &[]).unwrap();
            assert_eq!(warning.is_some(), !start.is_empty());
            drop(c);
            assert_eq!(std::fs::read_to_string(&path).unwrap(), header);
        }
    }

    #[test]
    fn a_line_longer_than_any_checkpoint_line_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.ckpt");
        let long = format!("{}{}\n{{}}\n", crate::files::kind::checkpoint_header(), "x".repeat(crate::files::MAX_LINE + 1));
        std::fs::write(&path, &long).unwrap();
        let said = Checkpoint::open(&path, &[]).err().unwrap().to_string();
        assert!(said.ends_with("line 2: longer than 65536 bytes, more than any checkpoint line"), "{said}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), long);
    }

    #[test]
    fn an_edited_line_is_refused_by_its_digest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let (c, _) = Checkpoint::open(&path, &[]).unwrap();
        let at = at(0, 1, "b", Shard { index: 0, count: 1 });
        c.unit(&at, "p", &unit(&[0..5]), Tally { solutions: 292, nodes: 9 }, 1.0).unwrap();
        c.case(&at, "p", Tally { solutions: 292, nodes: 9 }, 1.0, (None, "run-a")).unwrap();
        drop(c);
        let whole = std::fs::read_to_string(&path).unwrap();
        assert!(whole.lines().all(|l| l.contains(",\"digest\":\"")), "{whole}");
        std::fs::write(&path, whole.replacen("\"solutions\":292", "\"solutions\":7", 1)).unwrap();
        let said = Checkpoint::open(&path, &[]).err().unwrap().to_string();
        assert!(
            said.ends_with(
                "line 2: not a checkpoint line: its digest does not match its content: the line was edited or damaged after it was written"
            ),
            "{said}"
        );
        // A line without its digest, or with one that is not 64 lowercase hex digits, is no
        // line of this checkpoint's build.
        let edited = whole.replacen("\"solutions\":292", "\"solutions\":7", 1);
        let second = edited.lines().nth(1).unwrap();
        let body = &second[..second.rfind(",\"digest\":\"").unwrap()];
        for damaged in [format!("{body}}}"), format!("{body},\"digest\":\"\"}}"), format!("{body},\"digest\":\"{}\"}}", "Z".repeat(64))] {
            std::fs::write(&path, edited.replacen(second, &damaged, 1)).unwrap();
            let said = Checkpoint::open(&path, &[]).err().unwrap().to_string();
            assert!(said.contains("line 2: not a checkpoint line: it lacks the digest"), "{damaged}: {said}");
        }
        // The header's digest removed too: the sealed line before it still tells.
        let third = edited.lines().nth(2).unwrap();
        let body = &third[..third.rfind(",\"digest\":\"").unwrap()];
        let header = edited.lines().next().unwrap();
        let unsealed = &header[..header.rfind(",\"digest\":\"").unwrap()];
        let stripped = whole.replacen(header, &format!("{unsealed}}}"), 1).replacen(third, &format!("{body}}}"), 1);
        std::fs::write(&path, stripped).unwrap();
        let said = Checkpoint::open(&path, &[]).err().unwrap().to_string();
        assert!(said.contains("line 3: not a checkpoint line: it lacks the digest"), "{said}");
    }
}
