//! The machines of a run as text: for hundreds of machines, the flagged ones with why and
//! a line for the rest; or every machine and device in a table.

use std::collections::BTreeMap;

use super::{Machine, Machines};
use crate::words::{plural, quoted};

impl Machines {
    /// For hundreds of machines: each flagged machine and device with why, then one line
    /// for the rest.
    pub fn summary(&self) -> Vec<String> {
        let flagged: Vec<&Machine> = self.machines.iter().filter(|m| m.flagged()).collect();
        let mut lines = vec![self.count_line(flagged.len())];
        for m in &flagged {
            lines.extend(self.why(m));
        }
        let rest: Vec<&Machine> = self.machines.iter().filter(|m| !m.flagged()).collect();
        if !rest.is_empty() {
            let mut spread: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
            for r in rest.iter().flat_map(|m| &m.devices).filter_map(|c| Some((c.kind.as_str(), c.pace.against_median?))) {
                let s = spread.entry(r.0).or_insert((r.1, r.1));
                *s = (s.0.min(r.1), s.1.max(r.1));
            }
            let kinds: Vec<String> = spread
                .iter()
                .map(|(kind, (lo, hi))| format!("{kind} {lo:.2}x to {hi:.2}x of its median ({:.2e} nodes/s)", self.kinds[*kind].median))
                .collect();
            let others = match (flagged.is_empty(), rest.len()) {
                (true, 1) => "the one machine".to_string(),
                (true, n) => format!("all {n} machines"),
                (false, 1) => "the other machine".to_string(),
                (false, n) => format!("the other {n} machines"),
            };
            lines.push(format!("  {others}: {}", if kinds.is_empty() { "not timed".into() } else { kinds.join("; ") }));
        }
        lines
    }

    /// Why `m` is flagged: a line for the machine, and one for each flagged device.
    fn why(&self, m: &Machine) -> Vec<String> {
        let name = machine_name(m);
        let mut lines = Vec::new();
        for flag in &m.flags {
            lines.push(match *flag {
                "silent" => format!("  {name}: silent: no record for {:.2} h before the newest", m.silent_hours.unwrap_or_default()),
                _ => format!("  {name}: disagrees: {} of its records are in shards whose counts disagree", m.disagreements),
            });
        }
        for c in m.devices.iter().filter(|c| !c.flags.is_empty()) {
            let others = self.kinds.get(&c.kind).map_or(0, |k| k.devices - 1);
            let of = format!(" of the other {others} {} devices ({:.2e} nodes/s)", c.kind, c.pace.median.unwrap_or_default());
            let card = if c.id == c.kind { String::new() } else { format!(" {}", c.id) };
            lines.push(format!("  {name}{card}: slow: {:.2}x the median{of}", c.pace.against_median.unwrap_or_default()));
        }
        lines
    }

    /// Every machine as a table, a row per machine and one per device under it, flagged
    /// machines first.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "{:<44} {:<24} {:>7} {:>9} {:>8} {:>12} {:>9} {:>9} {:<20} {}",
            "machine (host) / device",
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
        let mut order: Vec<&Machine> = self.machines.iter().collect();
        order.sort_by_key(|m| (!m.flagged(), m.id.clone()));
        for m in order {
            lines.push(format!(
                "{:<44} {:<24} {:>7} {:>9} {:>8} {:>12.4} {:>9} {:>9} {:<20} {}",
                machine_name(m),
                "",
                m.records,
                m.recounts,
                m.disagreements,
                m.device_hours,
                "",
                "",
                m.last.as_deref().unwrap_or("-"),
                m.flags.join(",")
            ));
            for c in &m.devices {
                let rate = c.pace.nodes_per_second.map_or("-".into(), |r| format!("{r:.2e}"));
                let against = c.pace.against_median.map_or("-".into(), |r| format!("{r:.2}"));
                lines.push(format!(
                    "  {:<42} {:<24} {:>7} {:>9} {:>8} {:>12.4} {rate:>9} {against:>9} {:<20} {}",
                    c.id,
                    c.kind,
                    c.records,
                    "",
                    "",
                    c.device_hours,
                    "",
                    c.flags.join(",")
                ));
            }
        }
        lines.push(self.count_line(self.machines.iter().filter(|m| m.flagged()).count()));
        lines
    }

    /// "N machines, F flagged", and what `silent` means in this run.
    fn count_line(&self, flagged: usize) -> String {
        let plural = plural(self.machines.len());
        format!("{} machine{plural}, {flagged} flagged{}", self.machines.len(), self.silent_note())
    }

    /// What `silent` means in this run.
    fn silent_note(&self) -> String {
        match (self.complete, self.newest.as_deref()) {
            (true, _) => "; every shard is in, so none is silent".into(),
            (false, Some(newest)) => format!("; silent means no record for {:.2} h before the newest ({newest})", self.silent_after_hours),
            (false, None) => String::new(),
        }
    }
}

/// A machine as the tables name it: its id and host names.
fn machine_name(m: &Machine) -> String {
    format!("{} ({})", quoted(&m.id), m.hosts.iter().map(|h| quoted(h)).collect::<Vec<_>>().join(","))
}
