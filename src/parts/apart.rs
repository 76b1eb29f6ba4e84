//! What sets two case records of one case apart, where they may not be added up together
//! however they count: another board, another option, another split. Records of one case
//! that are not apart may still disagree on a shard's count: a recount that says otherwise
//! (see [`super::ledger::Entry::agrees`]). Each is named for what it is, in a merge, a status and a
//! recheck alike.

use super::CaseRecord;

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

/// What every record of a case must share to be added up with the others: its board, the
/// options that change what is counted, and the split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub n: usize,
    /// SHA-256 of the board's text.
    pub board: String,
    /// The split's fingerprint, and its number of shards.
    pub plan: String,
    pub shards: usize,
    /// With `--unique`: the size of the board's group of symmetries.
    pub unique: Option<usize>,
    pub no_symmetry: bool,
}

impl Header {
    /// What `c` says of its case.
    pub fn of(c: &CaseRecord) -> Header {
        Header {
            n: c.n,
            board: c.board.clone(),
            plan: c.plan.clone(),
            shards: c.shards,
            unique: c.unique.map(|u| u.group),
            no_symmetry: c.no_symmetry,
        }
    }

    /// How a record of the case, `c`, stands apart from this, if it does: the first of
    /// board, options and split that differs.
    pub fn apart(&self, c: &CaseRecord) -> Option<Apart> {
        if self.board != c.board || self.n != c.n {
            Some(Apart::Board)
        } else if self.unique != c.unique.map(|u| u.group) {
            Some(Apart::Unique)
        } else if self.no_symmetry != c.no_symmetry {
            Some(Apart::NoSymmetry)
        } else if self.plan != c.plan || self.shards != c.shards {
            Some(Apart::Split)
        } else {
            None
        }
    }
}

/// One of two records apart: where it was read, what it says of its case, and its build.
pub struct Side<'a> {
    pub place: String,
    pub header: &'a Header,
    pub build: &'a str,
}

/// Why `b` may not be added up with `a`, records of case `case` of the input `file`, which
/// stand apart as `why` says: each named by its place, and by what sets it apart.
pub fn message(file: &str, case: usize, why: Apart, a: &Side<'_>, b: &Side<'_>) -> String {
    let (at, bt, ha, hb) = (&a.place, &b.place, a.header, b.header);
    let said = match why {
        Apart::Board => format!(
            "{bt} is a record of another board than {at}: board sha256 {}... ({n}x{n}) against {}... ({m}x{m}); part files of \
             two inputs (of one name, say) do not merge",
            short(&hb.board),
            short(&ha.board),
            n = hb.n,
            m = ha.n
        ),
        Apart::Unique => match (ha.unique, hb.unique) {
            (Some(u), Some(v)) => format!(
                "{at} and {bt} disagree on the board's symmetries for --unique (a group of {u} against {v}): they count two \
                 boards"
            ),
            _ => {
                let (with, without) = if ha.unique.is_some() { (at, bt) } else { (bt, at) };
                format!(
                    "{with} was counted with --unique and {without} without: records of runs with other options do not \
                     merge; count the shard again as the others were"
                )
            }
        },
        Apart::NoSymmetry => {
            let (with, without) = if ha.no_symmetry { (at, bt) } else { (bt, at) };
            format!(
                "{with} was counted with --no-symmetry and {without} without, from another plan: records of runs with \
                 other options do not merge; count the shard again as the others were"
            )
        }
        Apart::Split if ha.shards != hb.shards => {
            format!("{bt} is one of {} shards, but {at} one of {}: parts of one split only merge", hb.shards, ha.shards)
        }
        Apart::Split => {
            let builds = if a.build == b.build {
                format!("both by build {}", a.build)
            } else {
                format!("by another build: {} against {}", b.build, a.build)
            };
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
    use super::super::tests::case;
    use super::super::{Record, UniquePart};
    use super::*;

    fn record(edit: impl FnOnce(&mut CaseRecord)) -> CaseRecord {
        let Record::Case(mut c) = case(0, 1, 0, 2, 5) else { unreachable!() };
        edit(&mut c);
        *c
    }

    #[test]
    fn records_apart_are_named_by_what_sets_them_apart() {
        let said = |edit: fn(&mut CaseRecord)| {
            let (a, b) = (record(|_| {}), record(edit));
            let first = Header::of(&a);
            let why = first.apart(&b)?;
            let (one, two) = (Header::of(&b), "parts, line 2 (shard 0)".to_string());
            let side = |place: &str, header, build| Side { place: place.into(), header, build };
            let (build_a, build_b) = (a.build.as_deref().unwrap_or_default(), b.build.as_deref().unwrap_or_default());
            Some(message("in", 1, why, &side("parts, line 1 (shard 0)", &first, build_a), &side(&two, &one, build_b)))
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
