//! The `nqueen` command: parses the command line and hands the run to the library.

mod cli;

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nqueen::app::{self, EXIT_USAGE};
use nqueen::control::Control;
use nqueen::solve::Solver;

/// How long the work has to stop by itself after a signal before the process exits anyway
/// (a GPU batch in flight, say). A run at rest (waiting for input, say) exits at once.
const SIGNAL_GRACE: Duration = Duration::from_secs(2);
/// How often, in the grace, the run is looked at for rest.
const SIGNAL_LOOK_EVERY: Duration = Duration::from_millis(5);

fn main() {
    // Before any thread starts: it sets an environment variable.
    nqueen::gpu::ask_for_few_queues();
    let [stdin_closed, stdout_closed, stderr_closed] = closed_at_start();
    if let Err(why) = app::stdout_writable(stdout_closed) {
        no_answers(why);
    }
    let cli = cli::parse();
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
    let config = app::Config { stdin_closed, ..cli.config(std::io::stderr().is_terminal()) };
    if let Err(why) = app::stdout_apart(&config) {
        no_answers(why);
    }
    if let Err(why) = app::stderr_apart(&config) {
        // On standard error the line would go into the file itself.
        no_stderr(format_args!("cannot write the messages: {why}"));
    }
    if let Err(why) = app::stderr_writable(&config, stderr_closed) {
        no_stderr(format_args!("{why}"));
    }
    let mut solver = Solver::new(config.solve.clone());
    // Buffered: the run flushes the answers whenever it may stop writing for a while.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let status = app::run(&config, &mut solver, &ctl, &mut out, &mut std::io::stderr());
    let driver_loaded = solver.driver_loaded();
    // Not dropped: a GPU's contexts are left to the driver's teardown at exit, which the
    // solver has handed to a child process (`quick_exit`), so the process ends at once.
    std::mem::forget(solver);
    app::exit(status, driver_loaded);
}

/// Ends the run before it starts: standard output cannot take the answers, for `why`.
fn no_answers(why: impl std::fmt::Display) -> ! {
    eprintln!("nqueen: cannot write the answers: {why}");
    std::process::exit(app::EXIT_OUTPUT)
}

/// Ends the run before it starts, with `line` where standard error cannot take it: on
/// standard output where that is a terminal, else nowhere (standard output holds a file).
fn no_stderr(line: std::fmt::Arguments<'_>) -> ! {
    if std::io::stdout().is_terminal() {
        println!("nqueen: {line}");
    }
    std::process::exit(app::EXIT_OUTPUT)
}

/// Whether standard input, output and error were closed when the process started, as
/// found before `main`, where the standard library puts /dev/null in their place.
fn closed_at_start() -> [bool; 3] {
    #[cfg(target_os = "linux")]
    {
        use std::sync::atomic::{AtomicBool, Ordering};
        static CLOSED: [AtomicBool; 3] = [AtomicBool::new(false), AtomicBool::new(false), AtomicBool::new(false)];
        extern "C" fn look() {
            for (fd, closed) in CLOSED.iter().enumerate() {
                // SAFETY: F_GETFD only reads the descriptor's flags.
                if unsafe { libc::fcntl(fd as libc::c_int, libc::F_GETFD) } == -1 {
                    closed.store(true, Ordering::Relaxed);
                }
            }
        }
        // Run by the loader before the standard library's start-up, which opens /dev/null
        // on a closed standard descriptor.
        #[used]
        #[link_section = ".init_array"]
        static LOOK: extern "C" fn() = look;
        CLOSED.each_ref().map(|closed| closed.load(Ordering::Relaxed))
    }
    #[cfg(not(target_os = "linux"))]
    [false; 3]
}

/// On SIGINT or SIGTERM (Ctrl-C on Windows), asks the work to stop, and exits with 128 +
/// signal: at once where the run is at rest (see [`Control::at_rest`]), else once the work
/// has had [`SIGNAL_GRACE`] to stop by itself.
fn watch_signals(ctl: &Arc<Control>) -> std::io::Result<()> {
    let ctl = Arc::clone(ctl);
    let stop = move |signal: i32| {
        ctl.cancel_by_signal(signal);
        let deadline = Instant::now() + SIGNAL_GRACE;
        while Instant::now() < deadline && !ctl.is_at_rest() {
            std::thread::sleep(SIGNAL_LOOK_EVERY);
        }
        // The count may be inside the CUDA driver.
        app::exit(128 + signal, true);
    };
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                stop(signal);
            }
        });
    }
    #[cfg(windows)]
    {
        // Ctrl-C stands for SIGINT (2): status 130, as in a Unix shell.
        ctrlc::set_handler(move || stop(2)).map_err(std::io::Error::other)?;
    }
    Ok(())
}
