//! The values options take, each read with a message that says what was expected, with an
//! example, where a value is refused: in the program's words, not the parser's.

use std::ffi::OsStr;
use std::num::IntErrorKind;
use std::time::Duration;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Arg, Command};
use nqueen::solve::Backend;
use nqueen::work::Shards;
use nqueen::MAX_THREADS;

/// Why a value on the command line is refused, in words that say what is wrong.
#[derive(Debug)]
pub struct Refused(pub(super) String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// A value that is one of a few words: read by `parse`, which refuses any other word in its
/// own words, and offered by the shells' completions as `offered` lists them.
pub struct OneOf<T, E> {
    pub parse: fn(&str) -> Result<T, E>,
    pub offered: fn() -> Vec<PossibleValue>,
}

impl<T, E> Clone for OneOf<T, E> {
    fn clone(&self) -> Self {
        OneOf { parse: self.parse, offered: self.offered }
    }
}

impl<T, E> TypedValueParser for OneOf<T, E>
where
    T: Clone + Send + Sync + 'static,
    E: Into<Box<dyn std::error::Error + Send + Sync>> + 'static,
{
    type Value = T;

    fn parse_ref(&self, cmd: &Command, arg: Option<&Arg>, value: &OsStr) -> Result<T, clap::Error> {
        self.parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.offered)().into_iter()))
    }
}

/// The backends, by the names the library reads.
pub const BACKENDS: OneOf<Backend, nqueen::Error> = OneOf { parse: |text| text.parse(), offered: backends };

/// Every backend's name.
fn backends() -> Vec<PossibleValue> {
    Backend::NAMES.iter().map(PossibleValue::new).collect()
}

/// Parses a share from 0 to 1.
pub fn share(text: &str) -> Result<f64, Refused> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|f| (0.0..=1.0).contains(f))
        .ok_or_else(|| Refused(format!("{text:?} is not a share from 0 to 1, e.g. 0.02")))
}

/// Parses how many solutions to list: a number, or "all" (as many as a count can be).
pub fn listed(text: &str) -> Result<u64, Refused> {
    match text.trim() {
        "all" => Ok(u64::MAX),
        k => k.parse().map_err(|e: std::num::ParseIntError| {
            Refused(match e.kind() {
                IntErrorKind::PosOverflow => format!("{k} solutions is too large: at most {} (or all)", u64::MAX - 1),
                _ if k.starts_with('-') => format!("{k} is below 0: list 0 or more solutions, or all"),
                _ => format!("{text:?} is not a number of solutions or \"all\", e.g. 10"),
            })
        }),
    }
}

/// A whole number of `text`, trimmed: `Err(true)` where it is digits past what a `T` holds
/// (too large, not "not a number"), `Err(false)` where it is no whole number.
fn whole<T: std::str::FromStr<Err = std::num::ParseIntError>>(text: &str) -> Result<T, bool> {
    text.trim().parse().map_err(|e: std::num::ParseIntError| *e.kind() == IntErrorKind::PosOverflow)
}

/// Parses "A..B": the board sizes A to B of the table.
pub fn table(text: &str) -> Result<(usize, usize), Refused> {
    let (a, b) = text.split_once("..").ok_or_else(|| Refused("expected A..B, board sizes A to B, e.g. 4..16".into()))?;
    let size = |s: &str| match whole::<usize>(s) {
        Ok(n) if (1..=32).contains(&n) => Ok(n),
        Ok(n) if n > 32 => Err(Refused(format!("{n} is too large for a board size: 1 to 32"))),
        Err(true) => Err(Refused(format!("{} is too large for a board size: 1 to 32", s.trim()))),
        _ => Err(Refused(format!("{s:?} is not a board size from 1 to 32"))),
    };
    let (a, b) = (size(a)?, size(b)?);
    if a > b {
        return Err(Refused(format!("{a} is more than {b}: the table runs from the smaller size to the larger")));
    }
    Ok((a, b))
}

/// Parses "K/M": shard K, from 0, of M, where K may be a comma-separated list of shards
/// and ranges A-B.
pub fn shard(text: &str) -> Result<Shards, Refused> {
    let refused = |why: String| Refused(why);
    let (list, m) = text.rsplit_once('/').ok_or_else(|| refused("expected K/M, shard K (from 0) of M, e.g. 3/64 or 0-15/64".into()))?;
    let m: usize = whole(m).map_err(|too_large| match too_large {
        true => refused(format!("{} shards is too large: at most {}", m.trim(), usize::MAX)),
        false => refused(format!("{m:?} is not a number of shards")),
    })?;
    if m == 0 {
        return Err(refused("M must be at least 1".into()));
    }
    let number = |k: &str| {
        whole::<usize>(k).map_err(|too_large| match too_large {
            true => refused(format!("shard {} is too large: shards are numbered from 0, so K must be below M ({m})", k.trim())),
            false => refused(format!("{k:?} is not a shard number")),
        })
    };
    let mut indices = Vec::new();
    for item in list.split(',') {
        let (a, b) = match item.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(item)?, number(item)?),
        };
        if a > b {
            return Err(refused(format!("{item:?}: a range runs from the lower shard to the higher")));
        }
        if b >= m {
            return Err(refused(format!("shards are numbered from 0, so K must be below M ({m})")));
        }
        indices.extend(a..=b);
    }
    let mut sorted = indices.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(refused(format!("shard {} is listed twice", w[0])));
    }
    Ok(Shards { indices, count: m })
}

/// Parses a number of worker threads, 1 to [`MAX_THREADS`].
pub fn threads(text: &str) -> Result<u16, Refused> {
    let most = MAX_THREADS;
    if text.trim().starts_with('-') {
        return Err(Refused(format!("{} threads: give 1 to {most}, or leave -j out for all cores", text.trim())));
    }
    match text.trim().parse::<u64>() {
        Ok(k) if (1..=most as u64).contains(&k) => Ok(k as u16),
        Ok(k) => Err(Refused(format!("{k} threads: give 1 to {most}, or leave -j out for all cores"))),
        // Digits past u64: a number all the same, too large.
        Err(_) if !text.trim().is_empty() && text.trim().bytes().all(|b| b.is_ascii_digit()) => {
            Err(Refused(format!("{} threads: give 1 to {most}, or leave -j out for all cores", text.trim())))
        }
        Err(_) => Err(Refused(format!("{text:?} is not a number of threads: give 1 to {most}, e.g. -j 8"))),
    }
}

/// Parses one GPU's number in a list (`--devices 0,1`).
pub fn device(text: &str) -> Result<usize, Refused> {
    whole(text).map_err(|too_large| match too_large {
        true => Refused(format!("GPU {} is too large: GPUs are numbered from 0, e.g. --devices 0,1", text.trim())),
        false => Refused(format!("{text:?} is not a GPU's number: GPUs are numbered from 0, e.g. --devices 0,1")),
    })
}

/// Parses a number of prefixes to aim for on the GPU, 1 to 2^30.
pub fn prefixes(text: &str) -> Result<u64, Refused> {
    const MOST: u64 = 1 << 30;
    match whole::<u64>(text) {
        Ok(k) if (1..=MOST).contains(&k) => Ok(k),
        Ok(k) if k > MOST => Err(Refused(format!("{k} prefixes is too large: give 1 to {MOST}, e.g. 4000000"))),
        Err(true) => Err(Refused(format!("{} prefixes is too large: give 1 to {MOST}, e.g. 4000000", text.trim()))),
        _ => Err(Refused(format!("{text:?} is not a number of prefixes from 1 to {MOST}, e.g. 4000000"))),
    }
}

/// Parses a seed: any whole number from 0.
pub fn seed(text: &str) -> Result<u64, Refused> {
    whole(text).map_err(|too_large| match too_large {
        true => Refused(format!("seed {} is too large: at most {}", text.trim(), u64::MAX)),
        false => Refused(format!("{text:?} is not a seed: a whole number from 0, e.g. 7")),
    })
}

/// Parses a duration: a number and a unit, as "30m", "2h" or "1d 12h".
pub fn duration(text: &str) -> Result<Duration, Refused> {
    humantime::parse_duration(text.trim())
        .map_err(|_| Refused(format!("{text:?} is not a duration: a number and a unit, e.g. 30m, 2h, 1d")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said<T: std::fmt::Debug>(r: Result<T, Refused>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn refused_values_say_what_was_expected_with_an_example() {
        assert_eq!(said(threads("0")), "0 threads: give 1 to 1024, or leave -j out for all cores");
        assert_eq!(said(threads("x")), "\"x\" is not a number of threads: give 1 to 1024, e.g. -j 8");
        assert_eq!(said(threads("99999999999999999999")), "99999999999999999999 threads: give 1 to 1024, or leave -j out for all cores");
        assert_eq!(threads("16").unwrap(), 16);
        assert_eq!(said(device("abc")), "\"abc\" is not a GPU's number: GPUs are numbered from 0, e.g. --devices 0,1");
        assert_eq!(said(duration("bogus")), "\"bogus\" is not a duration: a number and a unit, e.g. 30m, 2h, 1d");
        assert_eq!(duration("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(said(seed("-1")), "\"-1\" is not a seed: a whole number from 0, e.g. 7");
        assert_eq!(said(prefixes("0")), "\"0\" is not a number of prefixes from 1 to 1073741824, e.g. 4000000");
        assert_eq!(said(shard("3")), "expected K/M, shard K (from 0) of M, e.g. 3/64 or 0-15/64");
        assert_eq!(said(shard("4/4")), "shards are numbered from 0, so K must be below M (4)");
        assert_eq!(said(share("2")), "\"2\" is not a share from 0 to 1, e.g. 0.02");
        assert_eq!(said(table("4-16")), "expected A..B, board sizes A to B, e.g. 4..16");
        assert_eq!(said(listed("-1")), "-1 is below 0: list 0 or more solutions, or all");
    }

    #[test]
    fn a_number_too_large_is_too_large_not_no_number() {
        let past = "18446744073709551616";
        assert_eq!(said(shard(&format!("0/{past}"))), format!("{past} shards is too large: at most {}", usize::MAX));
        assert_eq!(
            said(shard(&format!("{past}/4"))),
            format!("shard {past} is too large: shards are numbered from 0, so K must be below M (4)")
        );
        assert_eq!(said(device(past)), format!("GPU {past} is too large: GPUs are numbered from 0, e.g. --devices 0,1"));
        assert_eq!(said(seed(past)), format!("seed {past} is too large: at most {}", u64::MAX));
        assert_eq!(said(prefixes(past)), format!("{past} prefixes is too large: give 1 to 1073741824, e.g. 4000000"));
        assert_eq!(said(prefixes("2000000000")), "2000000000 prefixes is too large: give 1 to 1073741824, e.g. 4000000");
        assert_eq!(said(table("4..40")), "40 is too large for a board size: 1 to 32");
        assert_eq!(said(table(&format!("4..{past}"))), format!("{past} is too large for a board size: 1 to 32"));
        assert_eq!(said(listed(past)), format!("{past} solutions is too large: at most {} (or all)", u64::MAX - 1));
        for refused in [said(shard("x/4")), said(shard("0/x")), said(device("x")), said(seed("x")), said(table("4..x"))] {
            assert!(refused.contains("is not a"), "{refused}");
        }
    }
}
