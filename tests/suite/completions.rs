//! The shells' completions run in their shells: bash through its completion function with
//! `COMP_WORDS` as bash splits a line, zsh through its completion system in a terminal of
//! its own, fish through `complete -C`; PowerShell's script, which no package installs here,
//! read for the values it offers.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::common::{have, skip_missing_tool};

const BIN: &str = env!("CARGO_BIN_EXE_nqueen");

/// The old spellings, hidden from `-h`: no completion offers them.
const HIDDEN: [&str; 9] = ["--merge", "--status", "--recheck", "--seed", "--summary", "--by", "--silent-after", "--plot", "--table"];
const KINDS: [&str; 5] = ["man", "complete-bash", "complete-zsh", "complete-fish", "complete-powershell"];

/// A line typed up to the cursor, and the words a completion must offer there: all of
/// `exactly` and nothing else where it is given, else all of `some` and none of `none`.
struct Case {
    line: &'static str,
    exactly: &'static [&'static str],
    some: &'static [&'static str],
    none: &'static [&'static str],
}

const fn exactly(line: &'static str, words: &'static [&'static str]) -> Case {
    Case { line, exactly: words, some: &[], none: &[] }
}

const CASES: [Case; 15] = [
    Case { line: "nqueen --", exactly: &[], some: &["--backend", "--schedule", "--shard", "--generate", "--version"], none: &HIDDEN },
    Case { line: "nqueen count --", exactly: &[], some: &["--backend", "--checkpoint", "--solutions-format"], none: &HIDDEN },
    Case { line: "nqueen st", exactly: &[], some: &["status"], none: &["--status"] },
    Case { line: "nqueen status --", exactly: &[], some: &["--by", "--plot", "--silent-after"], none: &["--backend", "--merge"] },
    exactly("nqueen --backend ", &["auto", "cpu", "gpu"]),
    exactly("nqueen --backend=", &["auto", "cpu", "gpu"]),
    exactly("nqueen -b c", &["cpu"]),
    exactly("nqueen count --backend=g", &["gpu"]),
    exactly("nqueen count --schedule ", &["static", "dynamic"]),
    exactly("nqueen --schedule=d", &["dynamic"]),
    exactly("nqueen in.txt --schedule ", &["static", "dynamic"]),
    exactly("nqueen count --solutions-format=", &["lines", "board"]),
    exactly("nqueen status --by ", &["case", "host"]),
    exactly("nqueen table 4..8 --backend c", &["cpu"]),
    exactly("nqueen --generate ", &KINDS),
];

/// The completions of `shell`, as `nqueen --generate` prints them, in a file of `name`.
fn script(kind: &str, dir: &Path, name: &str) -> String {
    let out = Command::new(BIN).args(["--generate", kind]).output().unwrap();
    assert!(out.status.success());
    let path = dir.join(name);
    std::fs::write(&path, &out.stdout).unwrap();
    path.display().to_string()
}

/// What a word offered comes to past its option's `=` (fish offers `--backend=cpu`).
fn value(word: &str) -> String {
    match word.split_once('=') {
        Some((option, value)) if option.starts_with('-') => value.to_string(),
        _ => word.to_string(),
    }
}

/// Checks the words a shell offered for each case.
fn check(shell: &str, offered: impl Fn(&str) -> BTreeSet<String>) {
    for case in &CASES {
        let words = offered(case.line);
        if !case.exactly.is_empty() {
            let want: BTreeSet<String> = case.exactly.iter().map(|w| w.to_string()).collect();
            assert_eq!(words, want, "{shell}, {:?}", case.line);
        }
        for word in case.some {
            assert!(words.contains(*word), "{shell}, {:?}: {word} is not offered: {words:?}", case.line);
        }
        for word in case.none {
            assert!(!words.contains(*word), "{shell}, {:?}: {word} is offered: {words:?}", case.line);
        }
    }
}

/// `line` as bash hands it to a completion function: the words (split at spaces, and at an
/// `=`, which is a word of its own), the index of the word at the cursor, and that word and
/// the one before it as bash passes them. Bash passes `--backend=` as the option with an
/// empty word after it.
fn bash_words(line: &str) -> (Vec<String>, usize, String, String) {
    let mut words: Vec<String> = Vec::new();
    for token in line.split(' ') {
        match token.split_once('=') {
            Some((option, value)) => words.extend([option.to_string(), "=".into(), value.to_string()]),
            None => words.push(token.to_string()),
        }
    }
    if line.ends_with('=') {
        words.pop();
        let at = words.len() - 1;
        let prev = words[at - 1].clone();
        return (words, at, String::new(), prev);
    }
    let at = words.len() - 1;
    (words.clone(), at, words[at].clone(), words[at - 1].clone())
}

#[test]
fn each_shell_offers_the_visible_options_and_the_values_of_each() {
    let dir = tempfile::tempdir().unwrap();
    if have("bash") {
        let script = script("complete-bash", dir.path(), "nqueen.bash");
        check("bash", |line| {
            let (words, at, cur, prev) = bash_words(line);
            let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
            let run = format!(
                "source {script} && COMP_WORDS=({}) COMP_CWORD={at} COMP_LINE='{line}' && _nqueen nqueen '{cur}' '{prev}'; \
                 printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                quoted.join(" ")
            );
            let out = Command::new("bash").args(["--norc", "-c", &run]).current_dir(dir.path()).output().unwrap();
            assert!(out.status.success(), "bash, {line:?}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).lines().filter(|w| !w.is_empty()).map(value).collect()
        });
    } else {
        skip_missing_tool("each_shell_offers_the_visible_options_and_the_values_of_each (bash)", "bash");
    }
    if have("zsh") {
        script("complete-zsh", dir.path(), "_nqueen");
        // An interactive zsh in a terminal of zsh's own (zpty) loads the completions as a user's
        // does; each word its completion system adds is printed, and the shell exits after
        // one completion.
        let rc = format!(
            r#"fpath=({dir} $fpath)
autoload -Uz compinit && compinit -u -D
compadd () {{
    if [[ ${{@[1,(i)(-|--)]}} == *-(O|A|D)\ * ]]; then
        builtin compadd "$@"
        return $?
    fi
    typeset -a __hits
    builtin compadd -A __hits "$@"
    (( $#__hits )) && print -rl -- "" "${{(@)__hits/#/offered: }}"
}}
bindkey '^I' complete-word
comppostfuncs=( exit )
"#,
            dir = dir.path().display()
        );
        std::fs::write(dir.path().join(".zshrc"), rc).unwrap();
        let drive = "zmodload zsh/zpty && zpty z ZDOTDIR=$PWD zsh -i && zpty -w z \"$1\"$'\\t' && \
                     while zpty -r z line; do print -r -- \"$line\"; done";
        check("zsh", |line| {
            let out = Command::new("zsh").args(["-f", "-c", drive, "zsh", line]).current_dir(dir.path()).output().unwrap();
            let said = String::from_utf8_lossy(&out.stdout).replace('\r', "");
            said.lines().filter_map(|l| l.strip_prefix("offered: ")).map(value).collect()
        });
    } else {
        skip_missing_tool("each_shell_offers_the_visible_options_and_the_values_of_each (zsh)", "zsh");
    }
    if have("fish") {
        let script = script("complete-fish", dir.path(), "nqueen.fish");
        check("fish", |line| {
            let run = format!("source {script}; complete -C '{line}'");
            let out = Command::new("fish").args(["--no-config", "-c", &run]).current_dir(dir.path()).output().unwrap();
            assert!(out.status.success(), "fish, {line:?}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).lines().map(|l| value(l.split('\t').next().unwrap_or_default())).collect()
        });
    } else {
        skip_missing_tool("each_shell_offers_the_visible_options_and_the_values_of_each (fish)", "fish");
    }
}

#[test]
fn powershell_offers_the_visible_options_and_the_values_of_each() {
    let out = Command::new(BIN).args(["--generate", "complete-powershell"]).output().unwrap();
    let script = String::from_utf8(out.stdout).unwrap();
    for (option, values) in [
        ("--backend", "@('auto', 'cpu', 'gpu')"),
        ("-b", "@('auto', 'cpu', 'gpu')"),
        ("--schedule", "@('static', 'dynamic')"),
        ("--solutions-format", "@('lines', 'board')"),
        ("--by", "@('case', 'host')"),
        ("--generate", "@('man', 'complete-bash', 'complete-zsh', 'complete-fish', 'complete-powershell')"),
    ] {
        assert!(script.contains(&format!("'{option}' = {values}")), "{option}: {script}");
    }
    // What `nqueen <TAB>` offers.
    let top = script.split("'nqueen' {").nth(1).and_then(|t| t.split("break").next()).unwrap();
    for option in ["--backend", "--shard", "--checkpoint", "count", "status"] {
        assert!(top.contains(&format!("[CompletionResult]::new('{option}'")), "{option}");
    }
    for option in HIDDEN {
        assert!(!top.contains(&format!("'{option}'")), "{option} is offered");
    }
}
