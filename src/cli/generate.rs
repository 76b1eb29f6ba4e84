//! `nqueen --generate KIND`: the man page and the shells' completions, made from the
//! command line's own definition, so that they say what `--help` says. Printed on standard
//! output as the help is: status 4 where they cannot be written.

use std::io::{self, Write};

use clap::builder::PossibleValue;
use clap::{Arg, Command, CommandFactory, ValueEnum};
use clap_complete::aot::Shell;
use clap_mangen::roff::{bold, italic, roman, Roff};
use clap_mangen::Man;
use nqueen::app::{EXIT_BAD_INPUT, EXIT_NO_GPU, EXIT_OK, EXIT_OUTPUT, EXIT_USAGE};

use super::values::{OneOf, Refused};
use super::Cli;
use complete::completions;

mod complete;

/// What `--generate` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    Man,
    CompleteBash,
    CompleteZsh,
    CompleteFish,
    CompletePowershell,
}

/// Reads a [`Kind`], refusing any other word in one line that lists them; the shells'
/// completions offer them.
pub const KINDS: OneOf<Kind, Refused> = OneOf { parse: kind, offered: kinds };

/// Every kind, as `--generate` takes it.
fn kinds() -> Vec<PossibleValue> {
    Kind::value_variants().iter().filter_map(ValueEnum::to_possible_value).collect()
}

/// Parses what `--generate` prints, by its name.
fn kind(text: &str) -> Result<Kind, Refused> {
    Kind::from_str(text.trim(), false).map_err(|_| {
        let names: Vec<String> = kinds().iter().map(|v| v.get_name().to_string()).collect();
        let (last, rest) = names.split_last().map_or(("", &[][..]), |(last, rest)| (last.as_str(), rest));
        Refused(format!("{text:?} is not a kind: {} or {last}", rest.join(", ")))
    })
}

impl Kind {
    /// What it is, in a message.
    fn what(self) -> &'static str {
        match self {
            Kind::Man => "man page",
            _ => "completions",
        }
    }
}

/// Prints `kind` on standard output and ends the program: status 0, or 4 with one line
/// where it cannot be written; a reader that closes the pipe ends it quietly, as it ends
/// a count.
pub fn print(kind: Kind) -> ! {
    let text = match kind {
        Kind::Man => man(),
        Kind::CompleteBash => completions(Shell::Bash),
        Kind::CompleteZsh => completions(Shell::Zsh),
        Kind::CompleteFish => completions(Shell::Fish),
        Kind::CompletePowershell => completions(Shell::PowerShell),
    };
    let mut out = io::stdout().lock();
    match out.write_all(&text).and_then(|_| out.flush()) {
        Ok(()) => std::process::exit(EXIT_OK),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(EXIT_OK),
        Err(e) => {
            eprintln!("nqueen: cannot write the {}: {}", kind.what(), nqueen::words::os_words(&e));
            std::process::exit(EXIT_OUTPUT);
        }
    }
}

/// The exit statuses and what each means.
fn statuses() -> [(String, &'static str); 6] {
    [
        (EXIT_OK.to_string(), "Every case answered."),
        (EXIT_BAD_INPUT.to_string(), "Bad or unreadable input, or a checkpoint or part file that does not fit (earlier cases were answered); for nqueen status, a run not yet complete."),
        (EXIT_USAGE.to_string(), "Bad command line: nothing was run."),
        (EXIT_NO_GPU.to_string(), "--backend gpu and no usable GPU (no driver, no device, no NVRTC), or the GPU failed."),
        (EXIT_OUTPUT.to_string(), "The answers, a checkpoint's record, a summary or a plot could not be written (a full disk, say), or a summary or plot would replace a file that is not nqueen's."),
        (format!("{}, {}", 128 + 2, 128 + 15), "Stopped by SIGINT (Ctrl-C) or SIGTERM."),
    ]
}

/// The environment variables nqueen reads, and what each does.
const ENVIRONMENT: [(&str, &str); 7] = [
    ("NQUEEN_CACHE_DIR", "Where compiled GPU kernels, and how long opening a GPU took on each host, are kept (else $XDG_CACHE_HOME/nqueen, else ~/.cache/nqueen)."),
    ("NQUEEN_KERNEL_SOURCE", "A file to compile instead of the built-in GPU kernel (kernel work)."),
    ("NQUEEN_CPU_SEARCH", "avx2 or scalar: narrows the CPU's search on a machine that has a wider one, to test or time each."),
    ("NQUEEN_SIEVE", "off: searches every board, none by the sieve of the empty board's solutions, to test or time the search on files of many boards of one size."),
    ("NQUEEN_MACHINE", "The machine's name in part records (and so in nqueen status), in place of the id made from the kernel's boot id and /etc/machine-id: for containers that share a kernel, or clouds whose machines change ids."),
    ("NQUEEN_PROGRESS_AFTER_MS", "Draw the progress bar after this many milliseconds instead of a second."),
    ("CUDA_DEVICE_MAX_CONNECTIONS", "nqueen sets 1 unless it is set: fewer hardware queues open faster."),
];

/// Command lines, and what each does.
const EXAMPLES: [(&str, &str); 9] = [
    ("nqueen fixtures/sample.in", "Counts each case of the file and prints \"Case k: count\" for it."),
    (
        "nqueen -u --solutions 3 board.in",
        "Also counts the solutions distinct under symmetry, and lists the first three solutions of each case.",
    ),
    (
        "nqueen --shard 0-15/64 big.in > part-0.jsonl",
        "Counts shards 0 to 15 of 64 of every case, a part record each; other machines count the other shards.",
    ),
    ("nqueen merge part-*.jsonl", "Adds up the part records of every shard into the answers a plain run prints."),
    ("nqueen status --by host part-*.jsonl", "How far the sharded run is, with every machine and its rate."),
    ("nqueen recheck --share 0.02 part-*.jsonl", "Two percent of the shards, as a --shard list to count again on other machines."),
    ("nqueen table 4..16", "The counts of the empty boards 4 to 16, with their unique counts and times."),
    ("nqueen --generate man > ~/.local/share/man/man1/nqueen.1", "Installs this page for man nqueen."),
    (
        "nqueen --generate complete-bash > ~/.local/share/bash-completion/completions/nqueen",
        "Installs bash's completions of nqueen's commands and options.",
    ),
];

/// The lines that start each of roff's renders: the string an apostrophe is written as.
const APOSTROPHE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";

/// The man page: the command, its options by heading, each other command with its own,
/// the exit statuses, the environment and examples.
fn man() -> Vec<u8> {
    let mut top = Cli::command();
    top.build();
    // The title by hand: clap_mangen drops an empty date, and the fields after it shift.
    let mut text = Roff::default().render();
    text += &format!(".TH NQUEEN 1 \"\" \"nqueen {}\" \"User Commands\"\n", env!("CARGO_PKG_VERSION"));
    // No hyphens of the typesetter's own: an option's name is never broken.
    text += ".nh\n";
    let mut roff = Roff::default();
    roff.control("SH", ["NAME"]).text([roman(format!("nqueen - {}", env!("CARGO_PKG_DESCRIPTION")))]);
    synopsis(&mut roff, &top);
    roff.control("SH", ["DESCRIPTION"]);
    // The statuses have a section of their own.
    let about = top.get_long_about().map(ToString::to_string).unwrap_or_default();
    paragraphs(&mut roff, about.split("\n\n").filter(|p| !p.starts_with("Exit status")));
    text += &roff.render();
    text += &options(&top, rendered(|w| Man::new(top.clone()).render_options_section(w)));
    text += &commands(&top);
    let mut roff = Roff::default();
    roff.control("SH", ["EXIT STATUS"]);
    for (status, meaning) in statuses() {
        roff.control("TP", []).text([bold(status)]).text([roman(meaning)]);
    }
    roff.control("PP", []).text([roman("When several things fail, the status is the first of 130/143, 4, 3, 1 that happened.")]);
    roff.control("SH", ["ENVIRONMENT"]);
    for (variable, effect) in ENVIRONMENT {
        roff.control("TP", []).text([bold(variable)]).text([roman(effect)]);
    }
    roff.control("SH", ["EXAMPLES"]);
    for (line, what) in EXAMPLES {
        roff.control("TP", []).text([bold(line)]).text([roman(what)]);
    }
    roff.control("SH", ["SEE ALSO"]);
    roff.text([
        bold("nqueen"),
        italic(" COMMAND "),
        bold("--help"),
        roman(" for one command's options; README.md and GUIDE.md in the source."),
    ]);
    text += &roff.render();
    // Each render starts with roff's definition of the apostrophe: once, at the top.
    let text = APOSTROPHE.to_string() + &text.replace(APOSTROPHE, "");
    // Characters past ASCII by their names: groff reads its input as Latin-1 unless told.
    let named = text.chars().map(|c| if c.is_ascii() { c.to_string() } else { format!("\\[u{:04X}]", u32::from(c)) });
    named.collect::<String>().into_bytes()
}

/// The top command's `options`, as clap_mangen renders them, their headings made
/// subsections of one section.
fn options(top: &Command, options: String) -> String {
    let headings: Vec<&str> = top.get_arguments().filter_map(Arg::get_help_heading).collect();
    let subsection = |line: &str| {
        let heading = line.strip_prefix(".SH ")?.trim_matches('"');
        let heading = headings.iter().find(|h| h.to_uppercase() == heading)?;
        Some(format!(".SS \"{heading}\""))
    };
    options.lines().map(|line| subsection(line).unwrap_or_else(|| line.to_string()) + "\n").collect()
}

/// What `render` writes, as text.
fn rendered(render: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
    let mut out = Vec::new();
    // Writing into memory does not fail, and roff is UTF-8.
    let _ = render(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// How each command is called: its words in bold, what it takes in roman.
fn synopsis(roff: &mut Roff, top: &Command) {
    roff.control("SH", ["SYNOPSIS"]);
    let mut forms = vec![("nqueen".to_string(), usage(top))];
    for sub in shown(top) {
        let words = format!("nqueen {}", sub.get_name());
        forms.push((words.clone(), usage(&sub.clone().bin_name(words))));
    }
    forms.push(("nqueen".to_string(), "nqueen --generate KIND".to_string()));
    for (i, (words, form)) in forms.into_iter().enumerate() {
        if i > 0 {
            roff.control("br", []);
        }
        let takes = form.strip_prefix(&words).unwrap_or_default().to_string();
        roff.text([bold(words), roman(takes)]);
    }
}

/// The first line of `cmd`'s usage, as `-h` shows it.
fn usage(cmd: &Command) -> String {
    let mut cmd = cmd.clone();
    let usage = cmd.render_usage().to_string();
    usage.lines().next().unwrap_or_default().trim_start_matches("Usage:").trim().to_string()
}

/// The commands `cmd` has, but the help.
fn shown(cmd: &Command) -> impl Iterator<Item = &Command> {
    cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

/// Each command, with its description and its options, but those it shares with the top
/// command, which are named.
fn commands(top: &Command) -> String {
    let mut roff = Roff::default();
    roff.control("SH", ["COMMANDS"]);
    let mut text = roff.render();
    let top_ids: Vec<&str> = top.get_arguments().filter(|a| !a.is_hide_set()).map(|a| a.get_id().as_str()).collect();
    for sub in shown(top) {
        let mut roff = Roff::default();
        roff.control("SS", [format!("nqueen {}", sub.get_name()).as_str()]);
        let about = sub.get_long_about().or(sub.get_about()).map(ToString::to_string).unwrap_or_default();
        paragraphs(&mut roff, about.split("\n\n"));
        let visible: Vec<&Arg> = sub.get_arguments().filter(|a| !a.is_hide_set() && a.get_long() != Some("help")).collect();
        let shared: Vec<String> = visible
            .iter()
            .filter(|a| top_ids.contains(&a.get_id().as_str()))
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        if visible.iter().all(|a| top_ids.contains(&a.get_id().as_str())) {
            roff.control("PP", []).text([roman("It takes the files and options above.")]);
        } else if !shared.is_empty() {
            roff.control("PP", []).text([roman(format!("It takes {}, as a count does.", list(&shared)))]);
        }
        text += &roff.render();
        let own = sub.clone().disable_help_flag(true).mut_args(|a| if top_ids.contains(&a.get_id().as_str()) { a.hide(true) } else { a });
        // Its options sit under the command's heading, not a section of the page.
        let options = rendered(|w| Man::new(own).render_options_section(w));
        text.extend(options.lines().filter(|l| !l.starts_with(".SH")).map(|l| format!("{l}\n")));
    }
    text
}

/// `items` as a sentence's list: "a, b and c".
fn list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// `texts` as paragraphs, their lines filled.
fn paragraphs<'a>(roff: &mut Roff, texts: impl Iterator<Item = &'a str>) {
    for (i, text) in texts.enumerate() {
        if i > 0 {
            roff.control("PP", []);
        }
        roff.text([roman(text.split_whitespace().collect::<Vec<_>>().join(" "))]);
    }
}
