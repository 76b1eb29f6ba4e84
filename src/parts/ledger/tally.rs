//! Each machine's part of a run, added up as its records go by: its records, recounts and
//! disagreements, device-hours, last record, and each device's (its CPU, each GPU card)
//! estimated nodes over device-seconds, which `nqueen status` rates and flags (see
//! [`crate::parts::machines`]). Device time is each record's device-seconds (a count on two
//! cards takes both cards' time; a resumed shard, all its runs'), else its seconds.

use std::collections::{BTreeMap, BTreeSet};
use std::time::SystemTime;

use super::{Contribution, Origins};

/// What a device is compared with where its records do not say: a GPU card of a build
/// that wrote no card's model, or a GPU count of one that wrote no card.
pub const UNNAMED_GPU: &str = "gpu";

/// Every machine's part, by machine (its name's number: see [`super::Origin::machine`]).
#[derive(Default)]
pub struct Tally {
    pub by: BTreeMap<u32, MachinePart>,
    /// The end of the newest record.
    pub newest: Option<SystemTime>,
}

/// One machine's records.
#[derive(Clone, Debug, Default)]
pub struct MachinePart {
    /// The host names its records give, by number.
    pub hosts: BTreeSet<u32>,
    pub records: usize,
    pub recounts: usize,
    pub disagreements: usize,
    pub device_hours: f64,
    /// The end of its last record.
    pub last: Option<SystemTime>,
    pub devices: Vec<DevicePart>,
}

/// One device's records.
#[derive(Clone, Debug, Default)]
pub struct DevicePart {
    /// "cpu", a card's UUID, or [`UNNAMED_GPU`].
    pub id: String,
    /// What it is compared with: "cpu", or the card's model.
    pub kind: String,
    pub records: usize,
    pub device_hours: f64,
    /// The estimated nodes and the device-seconds of its records that took time.
    pub timed: (f64, f64),
}

impl Tally {
    /// Adds a record's part, `c`, to its machine and the device that counted it.
    pub fn add(&mut self, origins: &Origins, c: &Contribution) {
        let o = origins.get(c.origin);
        let m = self.by.entry(o.machine).or_default();
        m.hosts.extend(o.host);
        m.records += 1;
        m.last = m.last.max(c.ended);
        m.device_hours += c.device_time / 3600.0;
        add_device_time(m, origins.names.get(o.kind), c);
        self.newest = self.newest.max(c.ended);
    }

    /// Notes of a kept record by `origin` whether it recounts a shard another record
    /// counted first, and whether its shard's records disagree.
    pub fn judge(&mut self, origins: &Origins, origin: u32, recount: bool, dissent: bool) {
        let m = self.by.entry(origins.get(origin).machine).or_default();
        m.recounts += usize::from(recount);
        m.disagreements += usize::from(dissent);
    }
}

impl MachinePart {
    /// The device `id` of kind `kind`, added if new.
    fn device(&mut self, id: &str, kind: &str) -> &mut DevicePart {
        let at = match self.devices.iter().position(|c| c.id == id) {
            Some(at) => at,
            None => {
                self.devices.push(DevicePart { id: id.to_string(), kind: kind.to_string(), ..DevicePart::default() });
                self.devices.len() - 1
            }
        };
        &mut self.devices[at]
    }
}

impl DevicePart {
    /// Adds a record's `seconds` of device time over `nodes` estimated nodes.
    fn add(&mut self, seconds: f64, nodes: Option<f64>) {
        self.records += 1;
        self.device_hours += seconds / 3600.0;
        if let (Some(nodes), true) = (nodes, seconds > 0.0) {
            self.timed = (self.timed.0 + nodes, self.timed.1 + seconds);
        }
    }
}

/// Adds the device time of the record `c`, counted by a backend of kind `kind`, to the
/// device of machine `m` that counted it: its CPU, each of its cards by its share of the
/// prefixes, or its GPU where the record names no card.
fn add_device_time(m: &mut MachinePart, kind: &str, c: &Contribution) {
    let (seconds, cards) = (c.device_time, &c.cards);
    if kind != "gpu" {
        m.device("cpu", "cpu").add(seconds, c.shard_nodes);
    } else if cards.is_empty() {
        m.device(UNNAMED_GPU, UNNAMED_GPU).add(seconds, c.shard_nodes);
    }
    let prefixes: u64 = cards.iter().map(|k| k.prefixes).sum();
    for card in cards {
        let share = if prefixes > 0 { card.prefixes as f64 / prefixes as f64 } else { 0.0 };
        m.device(&card.uuid, card.model.as_deref().unwrap_or(UNNAMED_GPU)).add(card.seconds, c.shard_nodes.map(|n| n * share));
    }
}
