//! What sets two case records of one case apart, where they may not be added up together
//! however they count: another board, another option, another split. Records of one case
//! that are not apart may still disagree on a shard's count: a recount that says otherwise
//! (see [`super::ledger::agree`]). Each is named for what it is, in a merge, a status and a
//! recheck alike.

use super::{CaseRecord, Located};

/// Why two records of one case may not be added up together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apart {
    /// Of two boards: their hashes differ (two inputs of one name, say).
    Board,
    /// One counted with `--unique` and one without, or for boards of other symmetries.
    Unique,
    /// One counted with `--no-symmetry` and one without.
    NoSymmetry,
    /// Of two splits of the board: another number of shards, or another build's split.
    Split,
}

/// How `b` stands apart from `a`, two case records of one case, if it does: the first of
/// board, options and split that differs.
pub fn apart(a: &CaseRecord, b: &CaseRecord) -> Option<Apart> {
    if a.board != b.board || a.n != b.n {
        Some(Apart::Board)
    } else if a.unique.map(|u| u.group) != b.unique.map(|u| u.group) {
        Some(Apart::Unique)
    } else if a.no_symmetry != b.no_symmetry {
        Some(Apart::NoSymmetry)
    } else if a.plan != b.plan || a.shards != b.shards {
        Some(Apart::Split)
    } else {
        None
    }
}

/// Why `b` may not be added up with `a`, records of case `case` of the input `file`, which
/// stand apart as `why` says: each named by its place, and by what sets it apart.
pub fn message(file: &str, case: usize, why: Apart, (a, ca): (&Located, &CaseRecord), (b, cb): (&Located, &CaseRecord)) -> String {
    let (at, bt) = (a.place(), b.place());
    let said = match why {
        Apart::Board => format!(
            "{bt} is a record of another board than {at}: board sha256 {}... ({n}x{n}) against {}... ({m}x{m}); part files of \
             two inputs (of one name, say) do not merge",
            short(&cb.board),
            short(&ca.board),
            n = cb.n,
            m = ca.n
        ),
        Apart::Unique => {
            let (with, without) = if ca.unique.is_some() { (&at, &bt) } else { (&bt, &at) };
            match (ca.unique, cb.unique) {
                (Some(u), Some(v)) => format!(
                    "{at} and {bt} disagree on the board's symmetries for --unique (a group of {} against {}): \
                     they count two boards",
                    u.group, v.group
                ),
                _ => format!(
                    "{with} was counted with --unique and {without} without: records of runs with other options do not \
                     merge; count the shard again as the others were"
                ),
            }
        }
        Apart::NoSymmetry => {
            let (with, without) = if ca.no_symmetry { (&at, &bt) } else { (&bt, &at) };
            format!(
                "{with} was counted with --no-symmetry and {without} without, from another plan: records of runs with \
                 other options do not merge; count the shard again as the others were"
            )
        }
        Apart::Split if ca.shards != cb.shards => {
            format!("{bt} is one of {} shards, but {at} one of {}: parts of one split only merge", cb.shards, ca.shards)
        }
        Apart::Split => {
            let (ba, bb) = (a.record.build(), b.record.build());
            let builds = if ba == bb { format!("both by build {ba}") } else { format!("by another build: {bb} against {ba}") };
            format!("{bt} was counted from another plan or split than {at} ({builds}): parts of one split only merge")
        }
    };
    format!("{file}: case {case}: {said}")
}

/// A digest's first 16 hex digits, enough to tell boards apart in a message.
fn short(digest: &str) -> &str {
    digest.get(..16).unwrap_or(digest)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{case, located};
    use super::super::{Record, UniquePart};
    use super::*;

    fn record(edit: impl FnOnce(&mut CaseRecord)) -> Record {
        let Record::Case(mut c) = case(0, 1, 0, 2, 5) else { unreachable!() };
        edit(&mut c);
        Record::Case(c)
    }

    #[test]
    fn records_apart_are_named_by_what_sets_them_apart() {
        let said = |edit: fn(&mut CaseRecord)| {
            let read = located(vec![record(|_| {}), record(edit)]);
            let (Record::Case(a), Record::Case(b)) = (&read[0].record, &read[1].record) else { unreachable!() };
            apart(a, b).map(|why| message("in", 1, why, (&read[0], a), (&read[1], b)))
        };
        assert_eq!(said(|c| c.count = 6), None, "another count is a disagreement, not records apart");
        assert_eq!(
            said(|c| (c.board, c.n) = ("f52e168bf1113287c5f3".into(), 6)).unwrap(),
            "in: case 1: parts, line 2 (shard 0) is a record of another board than parts, line 1 (shard 0): board sha256 \
             f52e168bf1113287... (6x6) against b... (8x8); part files of two inputs (of one name, say) do not merge"
        );
        assert_eq!(
            said(|c| c.unique = Some(UniquePart { group: 8, fixed: 0 })).unwrap(),
            "in: case 1: parts, line 2 (shard 0) was counted with --unique and parts, line 1 (shard 0) without: records of \
             runs with other options do not merge; count the shard again as the others were"
        );
        assert!(said(|c| c.no_symmetry = true).unwrap().contains("parts, line 2 (shard 0) was counted with --no-symmetry and"));
        assert_eq!(
            said(|c| (c.plan, c.build) = ("q".into(), Some("0.2.0+def".into()))).unwrap(),
            "in: case 1: parts, line 2 (shard 0) was counted from another plan or split than parts, line 1 (shard 0) (by \
             another build: 0.2.0+def against 0.1.0+abc): parts of one split only merge"
        );
        assert!(said(|c| c.plan = "q".into()).unwrap().contains("(both by build 0.1.0+abc)"));
    }
}
