//! Counting with the table ([`crate::table`]), in rounds. Each thread searches its
//! prefixes of joined boards down to the band's top row only, gathering the partial boards
//! it finds there into its batch until the batch holds its share of the round; then every
//! thread sorts its batch by set, and the threads join the round's sets between them, a
//! range of sets at a time, each set against the partial boards of every batch. Prefixes of
//! boards the table does not join are searched to the end as before, after the rounds.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use super::pieces::Deal;
use super::{Search, CHECK_EVERY};
use crate::control::{Control, Interrupted};
use crate::plan::Plan;
use crate::prefix::Prefix;
use crate::table::{memo_entries, Batch, Joiner, Table};
use crate::tally::Tally;

/// Ranges of sets per thread in a round's joins: enough that threads end together.
const RANGES_PER_THREAD: u32 = 64;

/// Counts the prefixes `deal` hands out (at row `depth` of `plan`, at or above the band's
/// top row): those of boards `table` joins by rounds of searches above the band and joins,
/// the others by `search`.
pub(super) fn count(
    search: &Search,
    plan: &Plan,
    table: &Table,
    depth: usize,
    deal: &Deal<'_>,
    ctl: &Control,
) -> Result<Tally, Interrupted> {
    let threads = rayon::current_num_threads();
    let share = table.round() / threads;
    let workers: Vec<Mutex<Worker<'_>>> = (0..threads).map(|_| Mutex::new(Worker::new(plan, table, depth))).collect();
    let memo = memo_entries(table.bound(), threads);
    let joiners: Vec<Mutex<Joiner<'_>>> = (0..threads).map(|_| Mutex::new(Joiner::new(table, memo))).collect();
    let lock = |i: usize| workers[i].lock().unwrap_or_else(|e| e.into_inner());
    let mut total = Tally::default();
    loop {
        let filled: Vec<Result<bool, Interrupted>> = rayon::broadcast(|ctx| {
            let mut w = lock(ctx.index());
            let more = w.fill(deal, ctx.index(), share, ctl)?;
            w.batch.sort(table);
            Ok(more)
        });
        let more = filled.into_iter().try_fold(false, |a, b| b.map(|b| a || b))?;
        let guards: Vec<_> = (0..threads).map(lock).collect();
        let batches: Vec<&Batch> = guards.iter().map(|w| &w.batch).collect();
        let next = AtomicU32::new(0);
        let pieces = RANGES_PER_THREAD * threads as u32;
        let width = table.keys().div_ceil(pieces).max(1);
        let joined: Vec<Result<u128, Interrupted>> = rayon::broadcast(|ctx| {
            let mut joiner = joiners[ctx.index()].lock().unwrap_or_else(|e| e.into_inner());
            let mut sum = 0;
            loop {
                let piece = next.fetch_add(1, Ordering::Relaxed);
                let start = piece.saturating_mul(width);
                if start >= table.keys() {
                    return Ok(sum);
                }
                ctl.check()?;
                sum += joiner.join(&batches, start..table.keys().min(start + width));
            }
        });
        total.solutions += joined.into_iter().sum::<Result<u128, Interrupted>>()?;
        drop(guards);
        if !more {
            break;
        }
    }
    let searched: Vec<Result<Tally, Interrupted>> = rayon::broadcast(|ctx| {
        let mut w = lock(ctx.index());
        let above = Tally { solutions: 0, nodes: u128::from(w.nodes) };
        Ok(above + search.run(plan, depth, std::mem::take(&mut w.searched).into_iter(), ctl)?)
    });
    searched.into_iter().try_fold(total, |a, b| b.map(|b| a + b))
}

/// One thread's part of the rounds: where its search above the band stands, and what it
/// has gathered.
struct Worker<'a> {
    plan: &'a Plan,
    table: &'a Table,
    depth: usize,
    /// The band's top row.
    top: usize,
    /// The thread's chunks taken so far (for the static schedule), and the rest of the
    /// current one.
    dealt: usize,
    chunk: &'a [Prefix],
    /// From the prefix being searched down: the partial board at each row and its cells
    /// not yet tried.
    stack: Vec<(Prefix, u32)>,
    batch: Batch,
    /// Prefixes of boards the table does not join.
    searched: Vec<Prefix>,
    /// Queens placed above the band.
    nodes: u64,
}

impl<'a> Worker<'a> {
    fn new(plan: &'a Plan, table: &'a Table, depth: usize) -> Worker<'a> {
        let top = plan.n - table.k();
        Worker {
            plan,
            table,
            depth,
            top,
            dealt: 0,
            chunk: &[],
            stack: Vec::with_capacity(top + 1),
            batch: Batch::default(),
            searched: Vec::new(),
            nodes: 0,
        }
    }

    /// Searches on, gathering partial boards at the band's top row into the batch until it
    /// holds `share` of them or the prefixes run out: true while prefixes are left.
    fn fill(&mut self, deal: &Deal<'a>, thread: usize, share: usize, ctl: &Control) -> Result<bool, Interrupted> {
        self.batch.clear();
        let mut checked = self.nodes;
        while self.batch.len() < share {
            if self.stack.is_empty() && !self.next_prefix(deal, thread) {
                return Ok(false);
            }
            self.descend(share);
            if self.nodes - checked >= CHECK_EVERY {
                ctl.check()?;
                checked = self.nodes;
            }
        }
        Ok(true)
    }

    /// Starts on the next prefix of a joined board, or gathers it where it is at the band's
    /// top row already (those of other boards are set aside for the search); false once
    /// there are none.
    fn next_prefix(&mut self, deal: &Deal<'a>, thread: usize) -> bool {
        loop {
            let Some((&p, rest)) = self.chunk.split_first() else {
                match deal.take(thread, &mut self.dealt) {
                    Some(chunk) => self.chunk = chunk,
                    None => return false,
                }
                continue;
            };
            self.chunk = rest;
            if !self.table.joins(p.board) {
                self.searched.push(p);
            } else if self.depth == self.top {
                self.batch.push(self.table, p);
                return true;
            } else {
                let cells = p.avail(self.plan, self.depth);
                self.stack.push((p, cells));
                return true;
            }
        }
    }

    /// The search's next steps down from the stack, until the stack is empty or the batch
    /// holds `share`, with the search's pruning: a queen that leaves the row after next no
    /// cell goes no further.
    fn descend(&mut self, share: usize) {
        let board = self.stack.last().map_or(0, |(p, _)| p.board) as usize;
        let rows = &self.plan.boards[board];
        while let Some(&mut (p, ref mut avail)) = self.stack.last_mut() {
            if *avail == 0 {
                self.stack.pop();
                continue;
            }
            let bit = *avail & avail.wrapping_neg();
            *avail ^= bit;
            let row = self.depth + self.stack.len() - 1;
            self.nodes += 1;
            let child = p.place(bit);
            if rows[row + 2] & !(child.cols | child.ld << 1 | child.rd >> 1) == 0 {
                continue;
            }
            if row + 1 == self.top {
                self.batch.push(self.table, child);
                if self.batch.len() >= share {
                    return;
                }
            } else {
                let cells = child.avail(self.plan, row + 1);
                self.stack.push((child, cells));
            }
        }
    }
}
