//! nqueen: counts the ways to place n non-attacking queens on an n×n board with obstacles.
//!
//! Data flows one way: text is parsed into [`board::Board`]s ([`parse`]); each board gets
//! a [`plan::Plan`] (orientation and symmetry, [`symmetry`] over [`square`], judged by
//! [`estimate`]); the plan's first rows are expanded into [`prefix::Prefix`]es, which
//! [`split`] and [`work`] divide into shards, blocks and units; a backend ([`cpu`] or [`gpu`]) counts them into a
//! [`tally::Tally`]; and [`solve`] ties it together into one [`solve::Report`] per board.
//! [`app`] runs the whole job, with [`parts`] (shards' records and their merge) and
//! [`checkpoint`] (resuming after a kill); [`unique`] counts solutions up to symmetry.
//!
//! ```
//! use nqueen::board::Board;
//! use nqueen::control::Control;
//! use nqueen::parse::Parser;
//! use nqueen::solve::{BackendChoice, Options, Solver};
//!
//! let input = "4\n.*..\n....\n....\n....\n0\n";
//! let board: Board = Parser::new(input.as_bytes()).next().unwrap().unwrap();
//! let mut solver = Solver::new(Options { backend: BackendChoice::Cpu, ..Options::default() });
//! let report = solver.solve(&board, &Control::default()).unwrap();
//! assert_eq!(report.count, 1);
//! ```

pub mod app;
pub mod board;
pub mod checkpoint;
pub mod control;
pub mod cpu;
pub mod estimate;
pub mod gpu;
pub mod parse;
pub mod parts;
pub mod plan;
pub mod prefix;
pub mod progress;
pub mod rng;
pub mod solve;
pub mod split;
pub mod square;
pub mod symmetry;
pub mod tally;
pub mod unique;
pub mod work;
