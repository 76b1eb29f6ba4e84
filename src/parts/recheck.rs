//! `nqueen recheck --share SHARE`: which shards to count again, elsewhere, to check a run. A
//! seeded random share of the shards counted once, at least one shard of every machine that
//! took part, and every shard whose records disagree, as a `--shard` list. If k shards are
//! silently wrong, all of them escape a random recount of share f with probability about
//! (1 - f)^k: a small share finds a bad card that spoiled many shards almost surely, and
//! one shard per machine checks every machine at least once. Machines are told apart as
//! `nqueen status` tells them: by machine id (or `NQUEEN_MACHINE`), else by host name.

use std::collections::{BTreeMap, BTreeSet};

use super::ledger::Pages;
use super::ledger::{self, Ledger};
use super::merge::mixed;
use super::PartsError;
use crate::rng::Rng;

/// The shards chosen, and why.
#[derive(Debug, PartialEq, Eq)]
pub struct Recheck {
    /// The shard count M.
    pub of: usize,
    /// The shards to count again, sorted.
    pub shards: Vec<usize>,
    /// How many were drawn at random, added for a machine none of whose shards was drawn, and
    /// added since their records disagree.
    pub random: usize,
    pub for_machines: usize,
    pub disagreeing: usize,
    /// Machines that took part.
    pub machines: usize,
}

impl Recheck {
    /// The shards as `--shard` takes them: "3,17,40-42/64".
    pub fn shard_list(&self) -> String {
        format!("{}/{}", ledger::ranges(&self.shards).join(","), self.of)
    }
}

/// What the records say of one shard, over every case and input.
#[derive(Clone, Copy, Default)]
struct Shard {
    /// Whether it has a record.
    present: bool,
    /// Counted by more than one run already, alike.
    recounted: bool,
    /// Its records disagree, or one run counted it twice.
    disagrees: bool,
    /// The machine of its first case record (`u32::MAX` for none), and whether other
    /// machines counted it too (kept apart: see `more`).
    machine: u32,
    more: bool,
}

/// Chooses `share` (0 to 1) of the shards of the records of `ledger` to count again, by the
/// generator seeded with `seed`: the same records and seed give the same choice, in
/// whatever order the records are read.
pub fn choose(ledger: &Ledger, share: f64, seed: u64) -> Result<Recheck, PartsError> {
    if let Some(problem) = ledger.refused() {
        return Err(problem.clone());
    }
    // Records that do not belong together are no shard to count again, but a fault to mend.
    for input in ledger.inputs.values() {
        if let Some(problem) = input.cases.iter().find_map(|(&case, book)| mixed(ledger, &input.shown(), case, book)) {
            return Err(problem);
        }
    }
    let (mut shards, mut more): (Pages<Shard>, BTreeMap<usize, BTreeSet<u32>>) = (Pages::default(), BTreeMap::new());
    let origins = &ledger.shared.origins;
    for input in ledger.inputs.values() {
        for book in input.cases.values() {
            for (k, by, recounted, disagrees) in book.shards(&ledger.shared) {
                let shard = shards.slot(k);
                if !shard.present {
                    *shard = Shard { present: true, machine: u32::MAX, ..Shard::default() };
                }
                (shard.recounted, shard.disagrees) = (shard.recounted || recounted, shard.disagrees || disagrees);
                for machine in by.iter().map(|&o| origins.get(o).machine) {
                    if shard.machine == u32::MAX {
                        shard.machine = machine;
                    } else if shard.machine != machine {
                        shard.more = true;
                        more.entry(k).or_default().insert(machine);
                    }
                }
            }
        }
        for (k, recounted, disagrees) in input.ends.shards(&ledger.shared) {
            let shard = shards.slot(k);
            if !shard.present {
                *shard = Shard { present: true, machine: u32::MAX, ..Shard::default() };
            }
            (shard.recounted, shard.disagrees) = (shard.recounted || recounted, shard.disagrees || disagrees);
        }
    }
    let machines_of = |k: usize, s: &Shard| -> Vec<u32> {
        let first = (s.machine != u32::MAX).then_some(s.machine);
        first.into_iter().chain(more.get(&k).into_iter().flatten().copied()).collect()
    };
    let present = || shards.iter().filter(|(_, s)| s.present);
    let disagreeing: BTreeSet<usize> = present().filter(|(_, s)| s.disagrees).map(|(k, _)| k).collect();
    let candidate = |s: &Shard| !s.recounted && !s.disagrees;
    let mut candidates: Vec<usize> = Vec::with_capacity(present().filter(|(_, s)| candidate(s)).count());
    candidates.extend(present().filter(|(_, s)| candidate(s)).map(|(k, _)| k));
    let wanted = ((share * ledger.shards() as f64).ceil() as usize).min(candidates.len());
    let mut rng = Rng::new(seed);
    // A partial Fisher-Yates shuffle: the first `wanted` are a uniform random choice.
    for i in 0..wanted {
        let j = i + rng.below((candidates.len() - i) as u64) as usize;
        candidates.swap(i, j);
    }
    let mut chosen: BTreeSet<usize> = candidates[..wanted].iter().copied().collect();
    let rest = &mut candidates[wanted..];
    rest.sort_unstable();
    // Machines already checked: by a recount, a disagreement or a shard just drawn.
    let mut covered: BTreeSet<u32> = present()
        .filter(|(k, s)| chosen.contains(k) || disagreeing.contains(k) || s.recounted)
        .flat_map(|(k, s)| machines_of(k, s))
        .collect();
    let mut machines: Vec<(&str, u32)> =
        present().flat_map(|(k, s)| machines_of(k, s)).collect::<BTreeSet<u32>>().into_iter().map(|m| (ledger.name(m), m)).collect();
    machines.sort_unstable();
    // The shards left of each machine not yet checked, in order: it gets one of them.
    let mut own: BTreeMap<u32, Vec<usize>> = machines.iter().filter(|m| !covered.contains(&m.1)).map(|m| (m.1, Vec::new())).collect();
    for &k in rest.iter() {
        for m in shards.get(k).map(|s| machines_of(k, s)).unwrap_or_default() {
            if let Some(list) = own.get_mut(&m) {
                list.push(k);
            }
        }
    }
    let mut for_machines = 0;
    for &(_, machine) in &machines {
        if covered.contains(&machine) {
            continue;
        }
        let own = own.get(&machine).map_or(&[][..], Vec::as_slice);
        if let Some(&k) = own.get(rng.below(own.len().max(1) as u64) as usize) {
            chosen.insert(k);
            covered.extend(shards.get(k).map(|s| machines_of(k, s)).unwrap_or_default());
            for_machines += 1;
        }
    }
    let random = wanted;
    chosen.extend(&disagreeing);
    Ok(Recheck {
        of: ledger.shards(),
        shards: chosen.into_iter().collect(),
        random,
        for_machines,
        disagreeing: disagreeing.len(),
        machines: machines.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{case, ledger};
    use super::super::{CaseRecord, Record};
    use super::*;

    /// One case in `m` shards, shard k counted on host "h{k % hosts}" with count k.
    fn counted(m: usize, hosts: usize) -> Vec<Record> {
        (0..m)
            .map(|k| match case(0, 1, k, m, k as u128) {
                Record::Case(c) => {
                    Record::Case(Box::new(CaseRecord { host: Some(format!("h{}", k % hosts)), run: Some(format!("r{}", k % hosts)), ..*c }))
                }
                other => other,
            })
            .collect()
    }

    #[test]
    fn the_choice_repeats_from_its_seed_whatever_the_order_and_covers_every_host() {
        let records = counted(1000, 7);
        let a = choose(&ledger(records.clone()), 0.02, 5).unwrap();
        assert_eq!((a.random, a.machines, a.disagreeing, a.of), (20, 7, 0, 1000));
        assert_eq!(a.shards.len(), 20 + a.for_machines);
        let hosts: BTreeSet<usize> = a.shards.iter().map(|k| k % 7).collect();
        assert_eq!(hosts.len(), 7, "every host has a shard chosen");
        let reversed: Vec<Record> = records.iter().rev().cloned().collect();
        assert_eq!(choose(&ledger(reversed), 0.02, 5).unwrap(), a);
        assert_ne!(choose(&ledger(records), 0.02, 6).unwrap().shards, a.shards);
        assert!(a.shard_list().ends_with("/1000"));
    }

    #[test]
    fn machines_that_share_a_host_name_each_get_a_shard() {
        // Containers on the lent hosts all call themselves "vm": their machine ids differ.
        let records: Vec<Record> = counted(100, 1)
            .into_iter()
            .enumerate()
            .map(|(k, r)| match r {
                Record::Case(c) => {
                    Record::Case(Box::new(CaseRecord { host: Some("vm".into()), machine: Some(format!("m{}", k % 4)), ..*c }))
                }
                other => other,
            })
            .collect();
        let chosen = choose(&ledger(records), 0.0, 3).unwrap();
        assert_eq!((chosen.random, chosen.machines, chosen.for_machines), (0, 4, 4));
        let machines: BTreeSet<usize> = chosen.shards.iter().map(|k| k % 4).collect();
        assert_eq!(machines.len(), 4, "every machine has a shard chosen");
    }

    #[test]
    fn disagreeing_shards_are_always_chosen_and_recounted_ones_are_not_drawn_again() {
        let mut records = counted(10, 1);
        let again = |k: usize, count: u128| match records[k].clone() {
            Record::Case(c) => Record::Case(Box::new(CaseRecord { run: Some("other".into()), count, ..*c })),
            other => other,
        };
        let (agrees, differs) = (again(3, 3), again(7, 8));
        records.extend([agrees, differs]);
        let chosen = choose(&ledger(records), 1.0, 1).unwrap();
        assert_eq!(chosen.shards, vec![0, 1, 2, 4, 5, 6, 7, 8, 9]);
        assert_eq!((chosen.random, chosen.disagreeing, chosen.for_machines), (8, 1, 0));
        assert_eq!(chosen.shard_list(), "0-2,4-9/10");
    }
}
