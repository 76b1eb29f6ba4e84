//! Whether a plan's last rows are searched or joined, on how many rows, and which boards:
//! the choice `--method` leaves to the model, and the model.
//!
//! For each board and each band of `k` rows, random dives (Knuth's estimate) give the
//! nodes the search would visit in each row, hence the nodes above the band, the partial
//! boards that reach it (the joins) and the nodes below it; dives down the band alone give
//! its placements over every set of columns. From those, and the measured cost of each step
//! on the CPU's instruction set ([`Costs`]), the time of both ways to count each board, and
//! the table's bytes. A board is joined where its join is faster; `k` is the one that makes
//! the whole count fastest within the memory bound.

use super::batch::Batch;
use super::join::{memo_entries, planes_from, Joiner};
use super::rank::binom;
use super::Table;
use crate::estimate::{self, Start};
use crate::isa::Isa;
use crate::plan::Plan;
use crate::prefix::Prefix;

/// How the CPU counts a board's last rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// Whichever the model says is faster.
    #[default]
    Auto,
    /// Searched to the end.
    Search,
    /// Joined against a table, on every board the table can take.
    Join,
}

/// The model's choice for a plan: bands of `k` rows, and which boards are joined; with
/// what the model expects of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub k: usize,
    pub joined: Vec<bool>,
    /// The estimated thread-seconds of the count with this choice, and of the search alone.
    pub seconds: f64,
    pub search_seconds: f64,
    /// Estimates for the joined boards: the search's nodes above the band, the partial
    /// boards joined, the sets made and their placements, the placements a join reads on
    /// average, the table's bytes, and the keys of its sets (at most 2^32).
    pub above: f64,
    pub joins: f64,
    pub sets: f64,
    pub entries: f64,
    pub per_join: f64,
    pub bytes: f64,
    pub keys: u64,
}

/// What each step costs one thread on an instruction set, in nanoseconds, as fitted to
/// timed counts of plain and split boards of 15 to 17 (a Xeon with AVX-512, each search
/// narrowed by `NQUEEN_CPU_SEARCH`). The search's cost is per node of Knuth's estimate.
#[derive(Clone, Copy, Debug)]
pub struct Costs {
    /// A node of the search to the end.
    pub search_node: f64,
    /// A node of the search above the band.
    pub top_node: f64,
    /// Gathering, sorting and handing out a partial board that reaches the band.
    pub request: f64,
    /// Making one placement of a set, with one row of the band searched (see
    /// [`super::build`]), and more for each further row searched.
    pub build_entry: (f64, f64),
    /// Making a set, besides its placements.
    pub build_set: f64,
    /// A join against a set of entries: fixed and per placement.
    pub entries: (f64, f64),
    /// A join against a set of planes: fixed and per word of a plane.
    pub planes: (f64, f64),
}

impl Costs {
    /// The costs on `isa` (`None`: the scalar code).
    pub fn of(isa: Option<Isa>) -> Costs {
        match isa {
            Some(Isa::Avx512) => Costs {
                search_node: 1.1,
                top_node: 5.0,
                request: 15.0,
                build_entry: (6.0, 3.0),
                build_set: 600.0,
                entries: (1.0, 0.035),
                planes: (14.0, 0.45),
            },
            Some(Isa::Avx2) => Costs {
                search_node: 2.5,
                top_node: 5.0,
                request: 15.0,
                build_entry: (7.0, 4.0),
                build_set: 700.0,
                entries: (1.0, 0.058),
                planes: (15.0, 0.8),
            },
            None => Costs {
                search_node: 6.3,
                top_node: 5.0,
                request: 15.0,
                build_entry: (9.0, 6.0),
                build_set: 800.0,
                entries: (1.0, 0.8),
                planes: (18.0, 2.5),
            },
        }
    }

    /// One join against a set of `m` placements, in the form the table keeps it in.
    fn join(&self, m: f64, planes_from: usize) -> f64 {
        if m < planes_from as f64 {
            self.entries.0 + self.entries.1 * m
        } else {
            let words = (m / 64.0).ceil();
            let words = if words <= 8.0 { words } else { (words / 8.0).ceil() * 8.0 };
            self.planes.0 + self.planes.1 * words
        }
    }
}

/// The rows a band may have on `plan` whose prefixes are at row `depth`: at least two, and
/// at least one row searched between the prefixes and the band.
pub fn rows_allowed(plan: &Plan, depth: usize) -> std::ops::RangeInclusive<usize> {
    2..=plan.n.saturating_sub(depth + 1)
}

/// Random dives per board, at most, over every board of a plan.
const DIVES: u32 = 16_384;
/// How much faster than the search the model must find the join to choose it: its
/// estimates are rough.
const MARGIN: f64 = 0.85;
/// What each thread past the first adds to a join's cost against the search's, as the
/// threads share the memory the joins stream through (fitted to judge.in and stress.in on
/// 16 threads; BENCHMARKS.md).
const CONTENTION_PER_THREAD: f64 = 0.05;

/// One board's estimates: the search's nodes in each row.
struct Board {
    rows: Vec<f64>,
}

/// What a count asks of the model: a plan whose prefixes are at row `depth`, the prefixes
/// counted where they are only a part of the plan's work (a shard's, or what a checkpoint
/// left: their boards and trees are the ones estimated, not the plan's), and the machine:
/// `threads` threads on `isa` within `bound` bytes.
#[derive(Clone, Copy, Debug)]
pub struct Count<'a> {
    pub plan: &'a Plan,
    pub depth: usize,
    pub part: Option<&'a [Prefix]>,
    pub bound: usize,
    pub threads: usize,
    pub isa: Option<Isa>,
}

/// The model of one count: its boards' estimates, and the costs of its machine.
pub struct Model<'a> {
    count: Count<'a>,
    boards: Vec<Board>,
    costs: Costs,
}

impl<'a> Model<'a> {
    /// The model of `count`, from random dives down each board, or from its part's
    /// prefixes of each board.
    pub fn new(count: Count<'a>) -> Model<'a> {
        let plan = count.plan;
        // The dives go to the boards counted: a shard's prefixes may lie on a few of them.
        let counted = count.part.map_or(plan.boards.len(), |prefixes| {
            prefixes.iter().enumerate().filter(|&(i, p)| i == 0 || prefixes[i - 1].board != p.board).count()
        });
        let dives = (DIVES / counted.max(1) as u32).clamp(32, 2048);
        let per_board = |b: usize| match count.part {
            None => estimate::per_row(&plan.boards[b], &plan.due[b], dives),
            Some(prefixes) => {
                // The prefixes are grouped by board in plan order.
                let from = prefixes.partition_point(|p| (p.board as usize) < b);
                let to = prefixes.partition_point(|p| (p.board as usize) <= b);
                let starts: Vec<Start> = prefixes[from..to].iter().map(Prefix::start).collect();
                estimate::per_row_below(&plan.boards[b], &plan.due[b], count.depth, &starts, dives)
            }
        };
        let boards = (0..plan.boards.len()).map(|b| Board { rows: per_board(b) }).collect();
        Model { count, boards, costs: Costs::of(count.isa) }
    }

    /// The estimated thread-seconds of the search to the end.
    pub fn search_seconds(&self) -> f64 {
        self.boards.iter().map(|b| self.search(b)).sum::<f64>() * 1e-9
    }

    /// What `method` makes of the count: `None` to search.
    pub fn choose(&self, method: Method) -> Option<Choice> {
        let (plan, depth) = (self.count.plan, self.count.depth);
        if method == Method::Search {
            return None;
        }
        // `auto` joins only where the table fits. A forced join takes the fastest band
        // whose table fits too, and only where none does the one of fewest bytes: the
        // table then keeps within the bound by itself, and a partial board whose set it
        // could not keep is searched through the band, which the model does not cost.
        let choices: Vec<Choice> =
            rows_allowed(plan, depth).filter_map(|k| self.at(k, method)).filter(|c| c.keys <= u64::from(u32::MAX)).collect();
        let fastest = choices.iter().filter(|c| c.bytes <= self.count.bound as f64).min_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let best = match (fastest, method) {
            (Some(best), _) => best.clone(),
            (None, Method::Join) => choices.into_iter().min_by(|a, b| a.bytes.total_cmp(&b.bytes))?,
            (None, _) => return None,
        };
        let contention = 1.0 + CONTENTION_PER_THREAD * self.count.threads.saturating_sub(1) as f64;
        (method == Method::Join || best.seconds * contention < MARGIN * best.search_seconds).then_some(best)
    }

    /// The nanoseconds the search to the end takes on `board`.
    fn search(&self, board: &Board) -> f64 {
        board.rows[self.count.depth..self.count.plan.n - 2].iter().sum::<f64>() * self.costs.search_node
    }

    /// The choice with bands of `k` rows: the boards of each band (see [`Table::bands_of`])
    /// joined where that is faster for the band as a whole, every board with
    /// [`Method::Join`], whether or not the table would fit the bound; `None` where `k` is
    /// not one of [`rows_allowed`] or no board is joined.
    pub fn at(&self, k: usize, method: Method) -> Option<Choice> {
        let Count { plan, depth, bound, threads, isa, .. } = self.count;
        if !rows_allowed(plan, depth).contains(&k) {
            return None;
        }
        let costs = &self.costs;
        let n = plan.n;
        let top = n - k;
        let planes_from = planes_from(isa);
        let round = super::round(bound) as f64;
        let memo = memo_entries(bound, threads);
        let searched_rows = (k - Joiner::kept_rows(n, k, memo)) as f64;
        let build_entry = costs.build_entry.0 + costs.build_entry.1 * (searched_rows - 1.0);
        let everyone = vec![true; plan.boards.len()];
        let (bands, of_board) = Table::bands_of(plan, k, &everyone);
        let mut c = Choice {
            k,
            joined: vec![false; plan.boards.len()],
            seconds: 0.0,
            search_seconds: self.search_seconds(),
            above: 0.0,
            joins: 0.0,
            sets: 0.0,
            entries: 0.0,
            per_join: 0.0,
            bytes: (threads * Joiner::memo_bytes(n, k, memo)) as f64,
            keys: 0,
        };
        let mut used = 0;
        for (b, band) in bands.iter().enumerate() {
            let boards: Vec<usize> = (0..plan.boards.len()).filter(|&i| of_board[i] == b as u32).collect();
            let search: f64 = boards.iter().map(|&i| self.search(&self.boards[i])).sum();
            let above: f64 = boards.iter().map(|&i| self.boards[i].rows[depth..top].iter().sum::<f64>()).sum();
            let joins: f64 = boards.iter().map(|&i| self.boards[i].rows[top - 1]).sum();
            let columns = band.iter().fold(0, |m, r| m | r).count_ones() as usize;
            let sets = f64::from(binom(columns.min(32), k)).max(1.0);
            let per_set = estimate::per_row(band, &[], 64).last().copied().unwrap_or(0.0) / sets;
            let reached = sets * (1.0 - (-joins / sets).exp());
            let built = reached * per_set;
            let join = above * costs.top_node
                + joins * (costs.request + costs.join(per_set, planes_from))
                + built * build_entry
                + reached * costs.build_set;
            let take = method == Method::Join || join < search;
            if take {
                let entry_bytes = if per_set < planes_from as f64 { 8.0 } else { n as f64 / 4.0 };
                c.bytes += built * entry_bytes + sets * 8.0;
                boards.iter().for_each(|&i| c.joined[i] = true);
                (c.above, c.joins, c.sets, c.entries, c.per_join) =
                    (c.above + above, c.joins + joins, c.sets + reached, c.entries + built, c.per_join + joins * per_set);
                used += 1;
            }
            c.seconds += if take { join } else { search };
        }
        c.bytes += Batch::bytes(1) as f64 * round.min(c.joins);
        c.per_join /= c.joins.max(1.0);
        c.seconds *= 1e-9;
        c.keys = u64::from(binom(n, k)) * used;
        (used > 0).then_some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::prefix;

    fn model_of<'a>(plan: &'a Plan, depth: usize, part: Option<&'a [Prefix]>, bound: usize) -> Model<'a> {
        Model::new(Count { plan, depth, part, bound, threads: 2, isa: None })
    }

    #[test]
    fn a_forced_join_takes_a_band_whose_table_fits_where_one_does() {
        let board = Board::empty(14).unwrap();
        let plan = Plan::optimized(&board);
        let depth = prefix::expand(&plan, 1 << 12).depth;
        // A table's bytes depend on the bound (the builders' memos, the rounds' batches).
        for bound in [0, 1 << 24, 1 << 26, 1 << 28, 1 << 30] {
            let model = model_of(&plan, depth, None, bound);
            let all: Vec<Choice> = rows_allowed(&plan, depth).filter_map(|k| model.at(k, Method::Join)).collect();
            let least = all.iter().map(|c| c.bytes).fold(f64::INFINITY, f64::min);
            let chosen = model.choose(Method::Join).unwrap();
            let fitting: Vec<&Choice> = all.iter().filter(|c| c.bytes <= bound as f64).collect();
            match fitting.iter().min_by(|a, b| a.seconds.total_cmp(&b.seconds)) {
                Some(best) => assert_eq!(chosen.k, best.k, "bound {bound}"),
                None => assert_eq!(chosen.bytes, least, "bound {bound}"),
            }
        }
    }

    #[test]
    fn a_part_is_estimated_from_its_own_prefixes() {
        let board = Board::from_fn(13, |r, c| (r * 3 + c * 5) % 11 != 0).unwrap();
        let plan = Plan::optimized(&board);
        let prefixes = prefix::expand(&plan, 1 << 12);
        let first = prefixes.items[0].board;
        let part: Vec<Prefix> = prefixes.items.iter().copied().filter(|p| p.board == first).collect();
        let whole = model_of(&plan, prefixes.depth, None, 1 << 30);
        let own = model_of(&plan, prefixes.depth, Some(&part), 1 << 30);
        assert!(own.search_seconds() > 0.0 && own.search_seconds() < whole.search_seconds());
        for (b, estimate) in own.boards.iter().enumerate() {
            assert_eq!(b as u32 == first, estimate.rows.iter().any(|&r| r > 0.0), "board {b}");
        }
    }
}
