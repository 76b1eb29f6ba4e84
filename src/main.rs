//! The `nqueen` command: parses the command line and hands the run to the library.

mod cli;

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use nqueen::app::{self, EXIT_USAGE};
use nqueen::control::Control;
use nqueen::solve::Solver;
use signal_hook::consts::{SIGINT, SIGTERM};

/// How long the work has to stop by itself after a signal before the process exits anyway
/// (it may be blocked reading a terminal).
const SIGNAL_GRACE: Duration = Duration::from_secs(2);

fn main() {
    // Before any thread starts: it sets an environment variable.
    nqueen::gpu::ask_for_few_queues();
    let cli = cli::Cli::parse();
    if let Some(threads) = cli.threads() {
        if let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(threads).build_global() {
            eprintln!("nqueen: cannot start {threads} threads: {e}");
            std::process::exit(EXIT_USAGE);
        }
    }
    let ctl = Arc::new(Control::default());
    if let Err(e) = watch_signals(&ctl) {
        eprintln!("nqueen: warning: cannot catch Ctrl-C ({e}); it will stop the program at once");
    }
    let config = cli.config(std::io::stderr().is_terminal());
    let mut solver = Solver::new(config.solve.clone());
    // Buffered: the run flushes the answers whenever it may stop writing for a while.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let status = app::run(&config, &mut solver, &ctl, &mut out, &mut std::io::stderr());
    // Not dropped: a GPU's contexts are left to the driver's teardown at exit, which the
    // solver has handed to a child process (`quick_exit`), so the process ends at once.
    std::mem::forget(solver);
    std::process::exit(status);
}

/// On SIGINT or SIGTERM, asks the work to stop, and exits with 128 + signal if it has not
/// finished within [`SIGNAL_GRACE`].
fn watch_signals(ctl: &Arc<Control>) -> std::io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    let ctl = Arc::clone(ctl);
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            ctl.cancel_by_signal(signal);
            std::thread::sleep(SIGNAL_GRACE);
            std::process::exit(128 + signal);
        }
    });
    Ok(())
}
