//! The names many records share (runs, hosts, machines, builds, backends, files), each
//! kept once and known by a number, and who wrote a record as a tuple of such numbers: a
//! ledger keeps a few bytes a record, not its strings.

use std::collections::HashMap;
use std::sync::Arc;

use super::super::Record;

/// Strings kept once each, by number.
#[derive(Default)]
pub struct Names {
    ids: HashMap<Arc<str>, u32>,
    names: Vec<Arc<str>>,
}

impl Names {
    /// The number of `name`, made if new.
    pub fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        let name: Arc<str> = Arc::from(name);
        self.names.push(Arc::clone(&name));
        self.ids.insert(name, id);
        id
    }

    /// The name numbered `id`.
    pub fn get(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", |n| n)
    }
}

/// Who wrote a record, as a message or a status says it: its run (none for the first
/// format), host, machine, build and backend (its full text, and its kind: "cpu", "gpu").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    pub run: Option<u32>,
    /// The host its record names, if any ("unknown" is said where none is).
    pub host: Option<u32>,
    /// As `nqueen status` tells machines apart (see [`Record::machine`]).
    pub machine: u32,
    pub build: u32,
    pub backend: u32,
    pub kind: u32,
}

/// The origins of a ledger's records, each kept once.
#[derive(Default)]
pub struct Origins {
    pub names: Names,
    ids: HashMap<Origin, u32>,
    all: Vec<Origin>,
}

impl Origins {
    /// The number of `record`'s origin, made if new.
    pub fn of(&mut self, record: &Record) -> u32 {
        let names = &mut self.names;
        let (backend, kind) = match record {
            Record::Case(c) => (names.id(&c.backend), names.id(c.backend_kind())),
            Record::End(_) => (names.id("end of input"), names.id("end of input")),
        };
        let host = match record {
            Record::Case(c) => c.host.as_deref(),
            Record::End(e) => e.host.as_deref(),
        };
        let origin = Origin {
            run: record.run().map(|r| names.id(r)),
            host: host.map(|h| names.id(h)),
            machine: names.id(&record.machine()),
            build: names.id(record.build()),
            backend,
            kind,
        };
        if let Some(&id) = self.ids.get(&origin) {
            return id;
        }
        let id = u32::try_from(self.all.len()).unwrap_or(u32::MAX);
        self.all.push(origin);
        self.ids.insert(origin, id);
        id
    }

    /// The origin numbered `id`.
    pub fn get(&self, id: u32) -> Origin {
        self.all[id as usize]
    }

    /// The host of origin `id`, or "unknown".
    pub fn host(&self, id: u32) -> &str {
        self.get(id).host.map_or("unknown", |h| self.names.get(h))
    }
}
