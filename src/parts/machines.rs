//! `--merge --status --by host`: what each machine, and each GPU card on it, did of a run:
//! its records, device-hours, rate in estimated search nodes a second against the median
//! of its kind, recounts and disagreements, and the time of its last record; flagged
//! where it is slow (under half its kind's median rate), where any record of it disagrees
//! with another count of its shard, and where it has been silent for longer than a set
//! time before the run's newest record.
//!
//! A machine is its id (see [`super::provenance`]); records of builds that wrote none are
//! grouped by host name. Device time is each record's device-seconds (a count on two cards
//! takes both cards' time; a resumed shard, all its runs'), else its seconds.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::ledger::{self, Ledger};
use super::Located;

/// One machine's or card's part of the run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Part {
    /// Its id: the machine id, `host:NAME` for records without one, or a card's UUID.
    pub id: String,
    /// The host names its records give (for a machine), and its kinds of counter.
    pub hosts: BTreeSet<String>,
    pub kinds: BTreeSet<String>,
    pub records: usize,
    /// Records that count a shard another record counted first, and records whose shard's
    /// counts disagree.
    pub recounts: usize,
    pub disagreements: usize,
    pub device_hours: f64,
    /// Estimated search nodes a second over its timed records, and that over the median
    /// of the same over every machine (or card) of its kind.
    pub rate: Option<f64>,
    pub against_median: Option<f64>,
    /// Its last record's end (RFC 3339, UTC), and the hours from it to the run's newest.
    pub last: Option<String>,
    pub silent_hours: Option<f64>,
    /// "slow", "disagrees", "silent".
    pub flags: Vec<&'static str>,
    /// The cards of a machine.
    pub cards: Vec<Part>,
    #[serde(skip)]
    nodes: f64,
    #[serde(skip)]
    timed: f64,
    #[serde(skip)]
    last_time: Option<SystemTime>,
}

/// Every machine's part, with the run's newest record.
#[derive(Serialize)]
pub struct Machines {
    /// Always "machines", for the JSON line.
    pub record: &'static str,
    pub machines: Vec<Part>,
    pub newest: Option<String>,
    pub silent_after_hours: f64,
}

/// The machines of `records`, flagged silent after `silent_after` without a record.
pub fn machines(records: &[Located], silent_after: Duration) -> Result<Machines, String> {
    let ledger = Ledger::new(records)?;
    let mut by: BTreeMap<String, Part> = BTreeMap::new();
    let mut newest: Option<SystemTime> = None;
    for input in ledger.inputs.values() {
        for by_shard in input.cases.values() {
            for group in by_shard.groups() {
                let dissent = ledger::dissent_in(group).is_some();
                for (i, located) in group.iter().enumerate() {
                    let Some(c) = ledger::case(located) else { continue };
                    let id = c.machine.clone().unwrap_or_else(|| format!("host:{}", c.host.as_deref().unwrap_or("unknown")));
                    let seconds = c.device_seconds.unwrap_or(c.seconds);
                    let ended = c.ended.as_deref().and_then(|t| humantime::parse_rfc3339(t).ok());
                    newest = newest.max(ended);
                    let m = by.entry(id.clone()).or_insert_with(|| Part { id, ..Part::default() });
                    m.hosts.extend(c.host.clone());
                    m.kinds.insert(c.backend_kind().to_string());
                    add(m, i > 0, dissent, seconds, c.shard_nodes, ended);
                    let prefixes: u64 = c.cards.iter().flatten().map(|k| k.prefixes).sum();
                    for card in c.cards.iter().flatten() {
                        // Each card's share of the work, by the prefixes it counted.
                        let share = if prefixes > 0 { card.prefixes as f64 / prefixes as f64 } else { 0.0 };
                        let slot = match m.cards.iter().position(|k| k.id == card.uuid) {
                            Some(at) => at,
                            None => {
                                m.cards.push(Part { id: card.uuid.clone(), ..Part::default() });
                                m.cards.len() - 1
                            }
                        };
                        let k = &mut m.cards[slot];
                        k.kinds.insert("gpu".into());
                        add(k, i > 0, dissent, card.seconds, c.shard_nodes.map(|n| n * share), ended);
                    }
                }
            }
        }
    }
    let mut machines: Vec<Part> = by.into_values().collect();
    for m in &mut machines {
        m.rate = (m.timed > 0.0).then(|| m.nodes / m.timed);
        for c in &mut m.cards {
            c.rate = (c.timed > 0.0).then(|| c.nodes / c.timed);
        }
    }
    // Each machine against the others of its kinds, each card against every card.
    let kind = |p: &Part| p.kinds.iter().next().cloned().unwrap_or_default();
    let medians: BTreeMap<String, f64> = machines
        .iter()
        .map(kind)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter_map(|k| Some((k.clone(), median(machines.iter().filter(|m| kind(m) == k).filter_map(|m| m.rate))?)))
        .collect();
    let card_median = median(machines.iter().flat_map(|m| &m.cards).filter_map(|c| c.rate));
    for m in &mut machines {
        let med = medians.get(&kind(m)).copied();
        flag(m, med, newest, silent_after);
        for c in &mut m.cards {
            flag(c, card_median, newest, silent_after);
        }
    }
    Ok(Machines {
        record: "machines",
        machines,
        newest: newest.map(super::provenance::utc),
        silent_after_hours: silent_after.as_secs_f64() / 3600.0,
    })
}

/// Adds a record to `p`: a recount where it is not its shard's first, a disagreement where
/// its shard's counts disagree; `seconds` of device time over `nodes` estimated nodes.
fn add(p: &mut Part, recount: bool, dissent: bool, seconds: f64, nodes: Option<f64>, ended: Option<SystemTime>) {
    p.records += 1;
    p.recounts += usize::from(recount);
    p.disagreements += usize::from(dissent);
    p.device_hours += seconds / 3600.0;
    if let (Some(nodes), true) = (nodes, seconds > 0.0) {
        p.nodes += nodes;
        p.timed += seconds;
    }
    p.last_time = p.last_time.max(ended);
}

/// Sets `p`'s rate, its rate against `median`, its silence and its flags.
fn flag(p: &mut Part, median: Option<f64>, newest: Option<SystemTime>, silent_after: Duration) {
    p.against_median = p.rate.zip(median).filter(|(_, m)| *m > 0.0).map(|(r, m)| r / m);
    p.last = p.last_time.map(super::provenance::utc);
    p.silent_hours = p.last_time.zip(newest).map(|(l, n)| n.duration_since(l).unwrap_or_default().as_secs_f64() / 3600.0);
    if p.against_median.is_some_and(|r| r < 0.5) {
        p.flags.push("slow");
    }
    if p.disagreements > 0 {
        p.flags.push("disagrees");
    }
    if p.silent_hours.is_some_and(|h| h * 3600.0 > silent_after.as_secs_f64()) {
        p.flags.push("silent");
    }
}

/// The median of `values`, if any.
fn median(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| if v.len() % 2 == 1 { v[v.len() / 2] } else { (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0 })
}

impl Machines {
    /// The machines as a table, a row per machine and one per card under it, flagged ones
    /// first.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "{:<44} {:<6} {:>7} {:>9} {:>8} {:>12} {:>9} {:>9} {:<20} {}",
            "machine (host) / card",
            "kind",
            "records",
            "recounts",
            "disagree",
            "device-hours",
            "nodes/s",
            "x median",
            "last record",
            "flags"
        )];
        let mut order: Vec<&Part> = self.machines.iter().collect();
        order.sort_by_key(|m| (m.flags.is_empty() && m.cards.iter().all(|c| c.flags.is_empty()), m.id.clone()));
        for m in order {
            let name = format!("{} ({})", m.id, m.hosts.iter().cloned().collect::<Vec<_>>().join(","));
            lines.push(row(&name, m));
            for c in &m.cards {
                lines.push(row(&format!("  {}", c.id), c));
            }
        }
        lines.push(format!(
            "{} machines, {} flagged; silent means no record for {:.2} h before the newest ({})",
            self.machines.len(),
            self.machines.iter().filter(|m| !m.flags.is_empty() || m.cards.iter().any(|c| !c.flags.is_empty())).count(),
            self.silent_after_hours,
            self.newest.as_deref().unwrap_or("none")
        ));
        lines
    }
}

fn row(name: &str, p: &Part) -> String {
    let kind = p.kinds.iter().cloned().collect::<Vec<_>>().join(",");
    let rate = p.rate.map_or("-".into(), |r| format!("{r:.2e}"));
    let against = p.against_median.map_or("-".into(), |r| format!("{r:.2}"));
    format!(
        "{name:<44} {kind:<6} {:>7} {:>9} {:>8} {:>12.4} {rate:>9} {against:>9} {:<20} {}",
        p.records,
        p.recounts,
        p.disagreements,
        p.device_hours,
        p.last.as_deref().unwrap_or("-"),
        p.flags.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::super::tests::{case, located};
    use super::super::{Card, Record};
    use super::*;

    /// A record of shard `shard` of 8 by `machine`, its `nodes` estimated nodes in
    /// `seconds` of device time, ended `at` seconds into the run, on `cards`.
    fn record(shard: usize, machine: &str, nodes: f64, seconds: f64, at: u64, cards: &[(&str, f64)], count: u128) -> Record {
        let Record::Case(c) = case(0, 1, shard, 8, count) else { unreachable!() };
        let ended = super::super::provenance::utc(SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000 + at));
        let cards = (!cards.is_empty()).then(|| {
            cards.iter().map(|&(uuid, prefixes)| Card { uuid: uuid.into(), seconds: seconds / 2.0, prefixes: prefixes as u64 }).collect()
        });
        Record::Case(Box::new(super::super::CaseRecord {
            machine: Some(machine.into()),
            run: Some(format!("{machine}-run")),
            host: Some("vm".into()),
            shard_nodes: Some(nodes),
            device_seconds: Some(seconds),
            ended: Some(ended),
            cards,
            backend: if c.cards.is_some() { "gpu".into() } else { c.backend.clone() },
            ..*c
        }))
    }

    #[test]
    fn slow_silent_and_disagreeing_machines_and_cards_are_flagged() {
        let mut records = vec![
            // Two GPU machines of two cards, each busy the whole count; card b2 counts a
            // fifth of what the others do in the same time.
            record(0, "gpu-a", 100.0, 2.0, 3600, &[("a1", 50.0), ("a2", 50.0)], 5),
            record(1, "gpu-a", 100.0, 2.0, 7200, &[("a1", 50.0), ("a2", 50.0)], 5),
            record(2, "gpu-b", 60.0, 2.0, 7200, &[("b1", 50.0), ("b2", 10.0)], 5),
            // A CPU machine that stopped sending records early.
            record(3, "cpu-c", 10.0, 1.0, 60, &[], 5),
            // A second CPU machine, whose recount of shard 0 disagrees.
            record(4, "cpu-d", 10.0, 1.0, 7000, &[], 5),
            record(0, "cpu-d", 100.0, 10.0, 7100, &[], 6),
        ];
        records.iter_mut().for_each(|r| {
            if let Record::Case(c) = r {
                if c.cards.is_some() {
                    c.backend = "gpu(0: H100)".into()
                }
            }
        });
        let found = machines(&located(records), Duration::from_secs(3600)).unwrap();
        let by = |id: &str| found.machines.iter().find(|m| m.id == id).unwrap();
        assert!((by("gpu-a").device_hours - 4.0 / 3600.0).abs() < 1e-12);
        assert_eq!(by("gpu-a").cards.len(), 2);
        let b2 = by("gpu-b").cards.iter().find(|c| c.id == "b2").unwrap();
        assert!(b2.flags.contains(&"slow"), "{:?}", b2);
        // gpu-a counted shard 0 first, which cpu-d's recount contradicts: both are flagged.
        assert_eq!(by("gpu-a").flags, vec!["disagrees"]);
        assert!(by("gpu-a").cards.iter().all(|c| !c.flags.contains(&"slow")));
        assert_eq!(by("cpu-c").flags, vec!["silent"]);
        assert!(by("cpu-d").flags.contains(&"disagrees") && by("cpu-d").recounts == 1);
        let lines = found.lines();
        assert!(lines[1].starts_with("cpu-c") || lines[1].starts_with("cpu-d") || lines[1].starts_with("gpu-b"), "{lines:?}");
    }
}
