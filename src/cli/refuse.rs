//! What the program says when its command line is wrong, and how it prints its help: one
//! `error:` line in its own words, under the usage of the command that was given (as the
//! command's own `-h` shows it), status 2; the help and the version (and what `--generate`
//! makes) on standard output, status 4 where they cannot be written, 0 where its reader has
//! closed the pipe.

use std::io::Write;
use std::path::Path;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, Parser};
use nqueen::app::{EXIT_OUTPUT, EXIT_USAGE};

use super::Cli;

/// The commands, as a first argument names them.
const COMMANDS: [&str; 5] = ["count", "merge", "status", "recheck", "table"];

/// The command line, parsed; or the program ends here, as the module's doc says.
pub fn parse() -> Cli {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match Cli::try_parse_from(&args) {
        Ok(Cli { generate: Some(kind), .. }) => super::generate::print(kind),
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let shown = e.print().and_then(|_| std::io::stdout().flush());
            // A reader that closes the pipe (`--help | head -1`) ends it quietly.
            if let Err(why) = shown.or_else(|why| if why.kind() == std::io::ErrorKind::BrokenPipe { Ok(()) } else { Err(why) }) {
                let what = if e.kind() == ErrorKind::DisplayHelp { "help" } else { "version" };
                eprintln!("nqueen: cannot write the {what}: {}", nqueen::words::os_words(&why));
                std::process::exit(EXIT_OUTPUT);
            }
            std::process::exit(0);
        }
        Err(mut e) => {
            let command = args.iter().skip(1).find_map(|a| COMMANDS.into_iter().find(|c| a == c));
            e.insert(ContextKind::Usage, ContextValue::StyledStr(usage(command)));
            let _ = e.print();
            std::process::exit(EXIT_USAGE);
        }
    }
}

/// Exits as [`parse`] does for a bad command line, with `why`, under the usage of the
/// command `name` (the top one when `None`).
pub fn refuse(name: Option<&str>, kind: ErrorKind, why: String) -> ! {
    // A count that was not named `count` shows the usage the user typed: the top one's.
    let name = name.filter(|&n| n != "count" || std::env::args_os().skip(1).any(|a| a == "count"));
    let mut top = Cli::command();
    let mut e = match name.and_then(|n| top.find_subcommand_mut(n)) {
        Some(sub) => sub.clone().bin_name(format!("nqueen {}", name.unwrap_or_default())).error(kind, why),
        None => top.error(kind, why),
    };
    e.insert(ContextKind::Usage, ContextValue::StyledStr(usage(name)));
    let _ = e.print();
    std::process::exit(EXIT_USAGE);
}

/// The usage of the command `name` (the top one when `None`), as its `-h` shows it.
fn usage(name: Option<&str>) -> clap::builder::StyledStr {
    let mut top = Cli::command();
    top.build();
    match name.and_then(|n| top.find_subcommand_mut(n)) {
        Some(sub) => sub.clone().bin_name(format!("nqueen {}", name.unwrap_or_default())).render_usage(),
        None => top.render_usage(),
    }
}

/// Refuses a first argument that names no file but is a slip for a command's name:
/// "no such file or command 'merg'; did you mean `nqueen merge`?".
pub fn refuse_a_slip(first: &Path) {
    if first.as_os_str() == "-" || first.exists() {
        return;
    }
    let Some(given) = first.to_str() else { return };
    if let Some(command) = COMMANDS.into_iter().find(|c| edits(given, c) <= 2) {
        let why = format!("no such file or command '{given}'; did you mean `nqueen {command}`?");
        refuse(None, ErrorKind::InvalidSubcommand, why);
    }
}

/// The edit distance between `a` and `b`: insertions, deletions and substitutions.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slips_are_within_two_edits_of_a_command() {
        assert_eq!(edits("merg", "merge"), 1);
        assert_eq!(edits("stauts", "status"), 2);
        assert_eq!(edits("tabel", "table"), 2);
        assert_eq!(edits("sample.in", "table"), 6);
        assert_eq!(edits("", "count"), 5);
    }
}
