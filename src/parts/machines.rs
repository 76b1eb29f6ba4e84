//! `nqueen status`: what each machine did of a run, and each device on it (its CPU, and
//! each GPU card): records, device-hours, recounts and disagreements, the time of its last
//! record, and each device's rate in estimated search nodes a second against the median
//! of the others of its kind (CPUs against CPUs, cards against cards of the same model). A
//! device is flagged `slow` under half that median; a machine `disagrees` where any record of it is
//! in a shard whose counts disagree, and `silent` while shards are missing and its last
//! record is older than a set time before the run's newest. A finished run has no silent
//! machine: one with no more work is not silent.
//!
//! A machine is its id (see [`super::provenance`]); records of builds that wrote none are
//! grouped by host name. Device time is each record's device-seconds (a count on two cards
//! takes both cards' time; a resumed shard, all its runs'), else its seconds.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, SystemTime};

use serde::Serialize;

mod view;

use super::ledger::{DevicePart, Ledger, MachinePart};
use super::PartsError;

/// Half the median of its kind: a device slower than this is flagged.
const SLOW: f64 = 0.5;

/// One machine's part of the run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Machine {
    /// Its id: the machine id, or `host:NAME` for records without one.
    pub id: String,
    /// The host names its records give.
    pub hosts: BTreeSet<String>,
    pub records: usize,
    /// Records that count a shard another record counted first, and records whose shard's
    /// counts disagree.
    pub recounts: usize,
    pub disagreements: usize,
    pub device_hours: f64,
    /// Its last record's end (RFC 3339, UTC), and the hours from it to the run's newest.
    pub last: Option<String>,
    pub silent_hours: Option<f64>,
    /// "disagrees", "silent".
    pub flags: Vec<&'static str>,
    /// Its CPU and its cards.
    pub devices: Vec<Device>,
    #[serde(skip)]
    last_time: Option<SystemTime>,
}

/// One device of a machine: its CPU, or one GPU card.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Device {
    /// "cpu", a card's UUID, or "gpu" for GPU counts whose records name no card.
    pub id: String,
    /// What it is compared with: "cpu", or the card's model ("gpu" where records do not say).
    pub kind: String,
    pub records: usize,
    pub device_hours: f64,
    #[serde(flatten)]
    pub pace: Pace,
    /// "slow".
    pub flags: Vec<&'static str>,
    /// The estimated nodes and the device-seconds of its timed records.
    #[serde(skip)]
    timed: (f64, f64),
}

/// A device's pace: estimated search nodes a second over its timed records, the median of
/// the same over the other devices of its kind (itself, where it is the only one), and
/// the one over the other.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Pace {
    pub nodes_per_second: Option<f64>,
    pub median: Option<f64>,
    pub against_median: Option<f64>,
}

/// Every machine's part, with the run's newest record.
#[derive(Serialize)]
pub struct Machines {
    /// Always "machines", for the JSON line.
    pub record: &'static str,
    /// Whether every shard is in: then no machine is silent.
    pub complete: bool,
    pub machines: Vec<Machine>,
    /// Each kind's median rate, and how many devices of it are rated.
    pub kinds: BTreeMap<String, Kind>,
    pub newest: Option<String>,
    pub silent_after_hours: f64,
}

/// The devices of one kind.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Kind {
    pub median: f64,
    pub devices: usize,
}

impl Machine {
    /// Whether it or any of its devices is flagged.
    pub fn flagged(&self) -> bool {
        !self.flags.is_empty() || self.devices.iter().any(|c| !c.flags.is_empty())
    }
}

/// The machines of the records of `ledger`, a run `complete` or not, flagged silent after
/// `silent_after` without a record.
pub fn machines(ledger: &Ledger, complete: bool, silent_after: Duration) -> Result<Machines, PartsError> {
    if let Some(problem) = ledger.refused() {
        return Err(problem.clone());
    }
    let tally = &ledger.shared.machines;
    let newest = tally.newest;
    let mut machines: Vec<Machine> = tally.by.iter().map(|(&id, part)| machine(ledger, id, part)).collect();
    machines.sort_by(|a, b| a.id.cmp(&b.id));
    let mut rates: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for c in machines.iter_mut().flat_map(|m| &mut m.devices) {
        c.pace.nodes_per_second = (c.timed.1 > 0.0).then(|| c.timed.0 / c.timed.1);
        rates.entry(c.kind.clone()).or_default().extend(c.pace.nodes_per_second);
    }
    rates.values_mut().for_each(|r| r.sort_by(f64::total_cmp));
    let kinds: BTreeMap<String, Kind> =
        rates.iter().filter_map(|(kind, r)| Some((kind.clone(), Kind { median: median_without(r, None)?, devices: r.len() }))).collect();
    for m in &mut machines {
        for c in &mut m.devices {
            // Against the others of its kind: with few devices, its own rate would pull
            // the median towards it.
            let pace = &mut c.pace;
            pace.median = pace.nodes_per_second.zip(rates.get(&c.kind)).and_then(|(r, all)| {
                let at = all.partition_point(|&x| x < r);
                median_without(all, (all.len() > 1).then_some(at))
            });
            pace.against_median = pace.nodes_per_second.zip(pace.median).filter(|(_, m)| *m > 0.0).map(|(r, m)| r / m);
            if pace.against_median.is_some_and(|r| r < SLOW) {
                c.flags.push("slow");
            }
        }
        m.last = m.last_time.map(super::provenance::utc);
        m.silent_hours = m.last_time.zip(newest).map(|(l, n)| n.duration_since(l).unwrap_or_default().as_secs_f64() / 3600.0);
        if m.disagreements > 0 {
            m.flags.push("disagrees");
        }
        if !complete && m.silent_hours.is_some_and(|h| h * 3600.0 > silent_after.as_secs_f64()) {
            m.flags.push("silent");
        }
    }
    Ok(Machines {
        record: "machines",
        complete,
        machines,
        kinds,
        newest: newest.map(super::provenance::utc),
        silent_after_hours: silent_after.as_secs_f64() / 3600.0,
    })
}

/// Machine `id`'s part, as the ledger added it up, before its devices are rated.
fn machine(ledger: &Ledger, id: u32, part: &MachinePart) -> Machine {
    let device = |d: &DevicePart| Device {
        id: d.id.clone(),
        kind: d.kind.clone(),
        records: d.records,
        device_hours: d.device_hours,
        timed: d.timed,
        ..Device::default()
    };
    Machine {
        id: ledger.name(id).to_string(),
        hosts: part.hosts.iter().map(|&h| ledger.name(h).to_string()).collect(),
        records: part.records,
        recounts: part.recounts,
        disagreements: part.disagreements,
        device_hours: part.device_hours,
        last_time: part.last,
        devices: part.devices.iter().map(device).collect(),
        ..Machine::default()
    }
}

/// The median of `sorted`, without its value at `left_out` where given; none if nothing is
/// left.
fn median_without(sorted: &[f64], left_out: Option<usize>) -> Option<f64> {
    let n = sorted.len() - usize::from(left_out.is_some());
    let nth = |k: usize| match left_out {
        Some(i) if k >= i => sorted[k + 1],
        _ => sorted[k],
    };
    (n > 0).then(|| if n % 2 == 1 { nth(n / 2) } else { (nth(n / 2 - 1) + nth(n / 2)) / 2.0 })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{case, ledger};
    use super::super::{Card, CaseRecord, Record};
    use super::*;

    /// A record of shard `shard` of 8 by `machine`, its `nodes` estimated nodes in
    /// `seconds` of device time, ended `at` seconds into the run, on `cards` (UUID, model,
    /// prefixes), with `count`.
    fn record(shard: usize, machine: &str, nodes: f64, seconds: f64, at: u64, cards: &[(&str, &str, f64)], count: u128) -> Record {
        let Record::Case(c) = case(0, 1, shard, 8, count) else { unreachable!() };
        let ended = super::super::provenance::utc(SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000 + at));
        let cards: Option<Vec<Card>> = (!cards.is_empty()).then(|| {
            cards
                .iter()
                .map(|&(uuid, model, prefixes)| Card {
                    uuid: uuid.into(),
                    model: Some(model.into()),
                    seconds: seconds / 2.0,
                    prefixes: prefixes as u64,
                })
                .collect()
        });
        Record::Case(Box::new(CaseRecord {
            machine: Some(machine.into()),
            run: Some(format!("{machine}-run")),
            host: Some("vm".into()),
            shard_nodes: Some(nodes),
            device_seconds: Some(seconds),
            ended: Some(ended),
            backend: if cards.is_some() { "gpu(0: H100)".into() } else { c.backend.clone() },
            cards,
            ..*c
        }))
    }

    const H100: &str = "NVIDIA H100";

    #[test]
    fn counters_are_rated_against_their_own_kind_and_slow_ones_flagged() {
        let records = vec![
            // Two GPU machines of two cards, each busy the whole count; card b2 counts a
            // fifth of what the others do in the same time.
            record(0, "gpu-a", 100.0, 2.0, 3600, &[("a1", H100, 50.0), ("a2", H100, 50.0)], 5),
            record(1, "gpu-a", 100.0, 2.0, 7200, &[("a1", H100, 50.0), ("a2", H100, 50.0)], 5),
            record(2, "gpu-b", 60.0, 2.0, 7200, &[("b1", H100, 50.0), ("b2", H100, 10.0)], 5),
            // gpu-a's CPU recounts shard 2, alike, far slower than its cards: no card is
            // slow for it, and it is rated against CPUs.
            record(2, "gpu-a", 60.0, 30.0, 7300, &[], 5),
            // Two CPU machines, one at a fifth of the other's rate.
            record(3, "cpu-c", 10.0, 4.0, 60, &[], 5),
            record(4, "cpu-d", 10.0, 20.0, 7000, &[], 5),
        ];
        let found = machines(&ledger(records), false, Duration::from_secs(3600)).unwrap();
        let by = |id: &str| found.machines.iter().find(|m| m.id == id).unwrap();
        let device = |m: &str, c: &str| by(m).devices.iter().find(|k| k.id == c).unwrap().clone();
        assert!((by("gpu-a").device_hours - 34.0 / 3600.0).abs() < 1e-12);
        assert_eq!(by("gpu-a").devices.len(), 3);
        assert!(device("gpu-b", "b2").flags.contains(&"slow"), "{:?}", device("gpu-b", "b2"));
        assert!(["a1", "a2", "b1"].iter().all(|&c| device(if c == "b1" { "gpu-b" } else { "gpu-a" }, c).flags.is_empty()));
        assert_eq!((device("gpu-a", "cpu").kind.as_str(), device("gpu-a", "cpu").flags.is_empty()), ("cpu", true));
        assert_eq!(device("cpu-d", "cpu").flags, vec!["slow"]);
        assert_eq!(found.kinds[H100].devices, 4);
        // cpu-c has been silent for two hours, with shards still missing.
        assert_eq!(by("cpu-c").flags, vec!["silent"]);
        let summary = found.summary();
        assert!(summary[0].starts_with("4 machines, 3 flagged"), "{summary:?}");
        assert!(summary.iter().any(|l| l.contains("cpu-c (vm): silent: no record for 2.01 h")), "{summary:?}");
        assert!(
            summary.iter().any(|l| l.contains("gpu-b (vm) b2: slow: 0.20x the median of the other 3 NVIDIA H100 devices")),
            "{summary:?}"
        );
    }

    #[test]
    fn a_finished_run_has_no_silent_machine_and_disagreements_are_flagged() {
        let records = vec![
            record(0, "early", 10.0, 1.0, 60, &[], 5),
            record(1, "late", 10.0, 1.0, 86_400, &[], 5),
            record(1, "early", 10.0, 1.0, 120, &[], 6),
        ];
        let found = machines(&ledger(records.clone()), true, Duration::from_secs(3600)).unwrap();
        assert!(found.machines.iter().all(|m| !m.flags.contains(&"silent")));
        assert!(found.machines.iter().all(|m| m.flags == vec!["disagrees"]), "{:?}", found.machines);
        assert!(found.summary()[0].ends_with("every shard is in, so none is silent"));
        let running = machines(&ledger(records), false, Duration::from_secs(3600)).unwrap();
        assert!(running.machines.iter().find(|m| m.id == "early").unwrap().flags.contains(&"silent"));
    }

    #[test]
    fn the_median_leaves_a_counter_out() {
        let sorted = [1.0, 2.0, 4.0, 8.0];
        assert_eq!(median_without(&sorted, None), Some(3.0));
        assert_eq!(median_without(&sorted, Some(0)), Some(4.0));
        assert_eq!(median_without(&sorted, Some(3)), Some(2.0));
        assert_eq!(median_without(&[5.0], Some(0)), None);
        // Two machines: the slower is flagged where it is under half the faster.
        let records = vec![record(0, "fast", 30.0, 1.0, 60, &[], 5), record(1, "slow", 10.0, 1.0, 60, &[], 5)];
        let found = machines(&ledger(records), true, Duration::from_secs(3600)).unwrap();
        let flags: Vec<_> = found.machines.iter().map(|m| (m.id.as_str(), m.devices[0].flags.clone())).collect();
        assert_eq!(flags, vec![("fast", vec![]), ("slow", vec!["slow"])]);
    }

    #[test]
    fn hundreds_of_machines_are_summed_up_in_a_line_beside_the_flagged() {
        let records: Vec<Record> =
            (0..8).map(|k| record(k, &format!("m{k}"), 10.0, if k == 0 { 5.0 } else { 1.0 + k as f64 / 100.0 }, 60, &[], 5)).collect();
        let found = machines(&ledger(records), true, Duration::from_secs(3600)).unwrap();
        let summary = found.summary();
        assert_eq!(summary.len(), 3, "{summary:?}");
        assert!(summary[1].starts_with("  m0 (vm): slow: 0.21x the median of the other 7 cpu devices"), "{summary:?}");
        assert!(summary[2].starts_with("  the other 7 machines: cpu 0.97x to 1.04x of its median"), "{summary:?}");
        assert_eq!(found.lines().len(), 1 + 8 * 2 + 1);
    }
}
