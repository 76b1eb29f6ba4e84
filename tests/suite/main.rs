//! nqueen's integration tests, in one binary so that the test build links once: the solver
//! against an independent oracle and OEIS, the real binary on fixtures and bad input, the
//! GPU kernel's source run on the CPU, and the scripts beside the program.

mod common;

mod cli;
mod commands;
mod compare;
mod completions;
mod docs;
mod drill;
#[cfg(target_os = "linux")]
mod exit;
mod generate;
mod kernel_on_cpu;
mod messages;
mod oracle;
mod parse;
mod plots;
mod recounts;
mod robust;
mod shards;
mod slurm;
mod solutions;
#[cfg(unix)]
mod stops;
mod symmetry;
mod unique;
#[cfg(unix)]
mod writes;
