//! `nqueen --generate KIND`: the man page as groff renders it, the shells' completions as
//! bash loads them, and what a bad kind or a full disk makes of them.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{have, skip_missing_tool};

const BIN: &str = env!("CARGO_BIN_EXE_nqueen");
const COMMANDS: [&str; 5] = ["count", "merge", "status", "recheck", "table"];
const KINDS: [&str; 5] = ["man", "complete-bash", "complete-zsh", "complete-fish", "complete-powershell"];

/// What `nqueen args` prints on standard output, and its status.
fn nqueen(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// The long options `--help` lists, of the top command and of each other.
fn options_in_help() -> BTreeSet<String> {
    let helps = std::iter::once(vec!["--help"]).chain(COMMANDS.map(|c| vec![c, "--help"]));
    let mut options = BTreeSet::new();
    for args in helps {
        let (code, help, _) = nqueen(&args);
        assert_eq!(code, Some(0));
        for line in help.lines().map(str::trim_start).filter(|l| l.starts_with('-')) {
            let long = line.split([' ', ',', '<']).find(|w| w.starts_with("--"));
            options.extend(long.map(String::from));
        }
    }
    options
}

/// The environment variables of the program's own that its source reads: those of the
/// build and of CI's tests aside.
fn variables_in_source() -> BTreeSet<String> {
    fn walk(dir: &Path, found: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (at, _) in text.match_indices("NQUEEN_") {
                    let name: String = text[at..].chars().take_while(|c| c.is_ascii_uppercase() || *c == '_').collect();
                    found.insert(name);
                }
            }
        }
    }
    let mut found = BTreeSet::new();
    walk(Path::new("src"), &mut found);
    found.remove("NQUEEN_COMMIT");
    found.remove("NQUEEN_CI_CPU_LACKS");
    found
}

#[test]
fn the_man_page_renders_with_every_command_option_variable_and_status() {
    if !have("groff") {
        return skip_missing_tool("the_man_page_renders_with_every_command_option_variable_and_status", "groff");
    }
    let (code, page, _) = nqueen(&["--generate", "man"]);
    assert_eq!(code, Some(0));
    // Plain text, no bold or underline, and every warning said.
    let mut groff = Command::new("groff")
        .args(["-man", "-Tutf8", "-P-cbou", "-ww"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    groff.stdin.take().unwrap().write_all(page.as_bytes()).unwrap();
    let out = groff.wait_with_output().unwrap();
    let (text, warnings) = (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap());
    assert!(out.status.success() && warnings.is_empty(), "groff: {warnings}");
    for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "EXAMPLES"] {
        assert!(text.lines().any(|l| l == section), "no {section} section:\n{text}");
    }
    for command in COMMANDS {
        assert!(text.contains(&format!("nqueen {command}")), "nqueen {command} is missing:\n{text}");
    }
    let options = options_in_help();
    assert!(options.len() > 20 && options.contains("--checkpoint") && options.contains("--summary"), "{options:?}");
    for option in &options {
        assert!(text.contains(option.as_str()), "{option} is in --help, not in the man page");
    }
    let environment = text.split("\nENVIRONMENT\n").nth(1).and_then(|t| t.split("\nEXAMPLES\n").next()).unwrap();
    let variables = variables_in_source();
    assert!(variables.len() >= 5, "{variables:?}");
    for variable in variables {
        assert!(environment.contains(&variable), "{variable} is read by the program, not in the man page's ENVIRONMENT");
    }
    let statuses = text.split("\nEXIT STATUS\n").nth(1).unwrap();
    for status in ["0", "1", "2", "3", "4", "130, 143"] {
        let tagged = |l: &str| l.trim_start().strip_prefix(status).is_some_and(|rest| rest.is_empty() || rest.starts_with(' '));
        assert!(statuses.lines().any(tagged), "status {status}:\n{statuses}");
    }
    // Characters past ASCII reach the page as themselves.
    assert!(text.contains(" n×n "), "{text}");
}

#[test]
fn the_man_page_defines_the_apostrophe_once_at_the_top() {
    let (code, page, _) = nqueen(&["--generate", "man"]);
    assert_eq!(code, Some(0));
    let defined: Vec<usize> = page.lines().enumerate().filter(|(_, l)| l.contains(".ds Aq")).map(|(at, _)| at).collect();
    assert_eq!(defined, [0, 1], "{page}");
    assert!(page.lines().nth(2).is_some_and(|l| l.starts_with(".TH NQUEEN 1 ")), "{page}");
}

#[test]
fn the_completions_name_every_command_and_bash_loads_them() {
    for kind in &KINDS[1..] {
        let (code, script, _) = nqueen(&["--generate", kind]);
        assert_eq!(code, Some(0), "{kind}");
        for command in COMMANDS {
            assert!(script.contains(command), "{kind} does not name {command}");
        }
        assert!(script.contains("checkpoint") && script.contains("generate"), "{kind}");
    }
    if !have("bash") {
        return skip_missing_tool("the_completions_name_every_command_and_bash_loads_them", "bash");
    }
    let dir = Path::new(BIN).parent().unwrap().display().to_string();
    let path = format!("{dir}:{}", std::env::var("PATH").unwrap_or_default());
    // Loaded as a user's shell loads it, then asked for the words after `nqueen `.
    let script = "source <(nqueen --generate complete-bash) && complete -p nqueen && \
                  COMP_WORDS=(nqueen '') COMP_CWORD=1 && _nqueen nqueen '' nqueen && printf '%s\\n' \"${COMPREPLY[@]}\"";
    let out = Command::new("bash").args(["-c", script]).env("PATH", path).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.starts_with("complete ") && said.lines().next().unwrap().ends_with(" nqueen"), "{said}");
    for word in COMMANDS.iter().chain(&["--shard", "--generate"]) {
        assert!(said.lines().any(|l| l == *word), "bash does not offer {word}: {said}");
    }
}

#[test]
fn a_bad_kind_is_one_line_that_lists_the_kinds() {
    let (code, out, err) = nqueen(&["--generate", "mann"]);
    assert_eq!((code, out.as_str()), (Some(2), ""));
    let first = err.lines().next().unwrap();
    assert_eq!(
        first,
        "error: invalid value 'mann' for '--generate <KIND>': \"mann\" is not a kind: \
         man, complete-bash, complete-zsh, complete-fish or complete-powershell"
    );
    assert!(err.contains("\nUsage: nqueen [OPTIONS] [FILE]...\n"), "{err}");
    // It prints one thing and nothing else.
    for args in [&["--generate", "man", "fixtures/sample.in"][..], &["--generate", "man", "-u"], &["merge", "--generate", "man"]] {
        let (code, out, err) = nqueen(args);
        assert_eq!((code, out.as_str()), (Some(2), ""), "{args:?}: {err}");
    }
    // Only --help shows it: -h stays one screen.
    assert!(nqueen(&["--help"]).1.contains("--generate <KIND>"));
    assert!(!nqueen(&["-h"]).1.contains("--generate"));
}

#[test]
fn what_cannot_be_written_is_one_line_and_status_4() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return crate::common::not_here("what_cannot_be_written_is_one_line_and_status_4", "no /dev/full to write to");
    };
    for kind in KINDS {
        let out = Command::new(BIN).args(["--generate", kind]).stdout(full.try_clone().unwrap()).output().unwrap();
        let what = if kind == "man" { "man page" } else { "completions" };
        assert_eq!(out.status.code(), Some(4), "{kind}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), format!("nqueen: cannot write the {what}: No space left on device\n"));
    }
}
