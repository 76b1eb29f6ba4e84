//! The shells' completions, made by clap_complete from the options `-h` shows, each
//! option's fixed values offered after it, as the next word or after its `=`.

use clap::{Arg, Command, CommandFactory};
use clap_complete::aot::{generate, Shell};

use crate::cli::Cli;

/// The completions of `shell`.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut offered = offered(shell);
    let mut script = Vec::new();
    generate(shell, &mut offered, "nqueen", &mut script);
    let script = String::from_utf8_lossy(&script).into_owned();
    match shell {
        Shell::Bash => after_line(&script, "    prev=\"$3\"\n", BASH_EQUALS),
        Shell::PowerShell => after_line(&script, "    $commandElements = $commandAst.CommandElements\n", &powershell_values(&offered)),
        Shell::Fish => {
            let script = after_line(&script, "    argparse -s (__fish_nqueen_global_optspecs) -- $cmd 2>/dev/null\n", FISH_VALUE_LAST);
            after_line(&script, "    if set -q argv[1]\n", &fish_first_word(&offered))
        }
        Shell::Zsh => {
            let script = after_line(&script, "    _describe -t commands 'nqueen commands' commands \"$@\"\n", ZSH_FILES);
            after_line(&script, "    (nqueen)\n", &zsh_first_word(&offered))
        }
        _ => script,
    }
    .into_bytes()
}

/// The command line as `-h` shows it: the old spellings, hidden from the help, are not
/// offered either. For zsh, without the input files, which clap_complete would take for
/// the first word, before a command (see [`zsh_first_word`]).
fn offered(shell: Shell) -> Command {
    let cli = Cli::command();
    let left_out = |a: &Arg| a.is_hide_set() || (shell == Shell::Zsh && a.is_positional());
    let mut offered = Command::new("nqueen")
        .version(env!("CARGO_PKG_VERSION"))
        .args(cli.get_arguments().filter(|a| !left_out(a)).cloned())
        .subcommands(cli.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    offered.build();
    offered
}

/// Bash splits `--backend=c` into three words, `--backend`, `=` and `c`: the option is then
/// the word before the `=`. (`--backend=` alone, with nothing after it, comes as the option.)
const BASH_EQUALS: &str = r#"    if [[ "${prev}" == "=" && ${COMP_CWORD} -ge 2 ]]; then
        prev="${COMP_WORDS[COMP_CWORD-2]}"
    fi
"#;

/// The first word may be an input file as well as a command.
const ZSH_FILES: &str = "    # Or the first input file of a count.\n    _files\n";

/// The first word of a count may be an input file as well as a command: clap_complete's
/// zsh script takes it for a command, and these lines take any other word for the first
/// input file of a count (`nqueen in.txt --schedule <TAB>`).
fn zsh_first_word(cmd: &Command) -> String {
    let commands = command_names(cmd).join("|");
    format!(
        "        # A first word that is no command is an input file of a count.\n        [[ $line[1] == ({commands}) ]] || line[1]=count\n"
    )
}

/// The same for fish, whose script asks which command the line has.
fn fish_first_word(cmd: &Command) -> String {
    let commands = command_names(cmd).join(" ");
    format!("        # A first word that is no command is an input file of a count.\n        contains -- $argv[1] {commands}; or set argv[1] count\n")
}

/// Fish's script finds the command by reading the line's options, which fails where the
/// last is an option whose value is being completed (`nqueen --backend <TAB>`): then it
/// reads them without that one.
const FISH_VALUE_LAST: &str = "    or argparse -s (__fish_nqueen_global_optspecs) -- $cmd[1..-2] 2>/dev/null\n";

/// The names of `cmd`'s commands.
fn command_names(cmd: &Command) -> Vec<&str> {
    cmd.get_subcommands().map(Command::get_name).collect()
}

/// PowerShell's completions as clap_complete makes them offer options and commands alone:
/// these lines offer each option's fixed values, after it or after its `=`.
fn powershell_values(cmd: &Command) -> String {
    let mut table = String::new();
    for (option, words) in fixed_values(cmd) {
        let words: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
        table += &format!("        '{option}' = @({})\n", words.join(", "));
    }
    format!(
        r#"
    # An option's fixed values, as the next word or after its = in the same word.
    $values = @{{
{table}    }}
    $word = $wordToComplete
    $lead = ''
    $option = ''
    if ($word -match '^(-[^=]+)=(.*)$') {{
        $option = $Matches[1]
        $word = $Matches[2]
        $lead = "$option="
    }} else {{
        $before = @($commandElements | Where-Object {{ $_.Extent.EndOffset -lt $cursorPosition - $wordToComplete.Length }})
        if ($before.Count -gt 0) {{
            $option = $before[-1].Extent.Text
        }}
    }}
    if ($values.ContainsKey($option)) {{
        return $values[$option] | Where-Object {{ $_ -like "$word*" }} |
            ForEach-Object {{ [CompletionResult]::new("$lead$_", $_, [CompletionResultType]::ParameterValue, $_) }}
    }}
"#
    )
}

/// Every option of `cmd` and its commands that takes one of a few words, by each of its
/// spellings (`--backend`, `-b`), with those words; an option of several commands once.
pub fn fixed_values(cmd: &Command) -> Vec<(String, Vec<String>)> {
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let commands = std::iter::once(cmd).chain(cmd.get_subcommands());
    for arg in commands.flat_map(Command::get_opts) {
        let Some(values) = arg.get_value_parser().possible_values() else { continue };
        let words: Vec<String> = values.filter(|v| !v.is_hide_set()).map(|v| v.get_name().to_string()).collect();
        let longs = arg.get_long_and_visible_aliases().unwrap_or_default().into_iter().map(|l| format!("--{l}"));
        let shorts = arg.get_short_and_visible_aliases().unwrap_or_default().into_iter().map(|s| format!("-{s}"));
        for spelling in longs.chain(shorts) {
            if !found.iter().any(|(known, _)| *known == spelling) {
                found.push((spelling, words.clone()));
            }
        }
    }
    found
}

/// `script` with `lines` after its line `anchor`, which the clap_complete this is built with
/// writes (its tests run each script in its shell).
fn after_line(script: &str, anchor: &str, lines: &str) -> String {
    let at = script.find(anchor).map(|at| at + anchor.len()).expect("clap_complete writes the line");
    format!("{}{lines}{}", &script[..at], &script[at..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_option_of_several_commands_offers_the_same_words_in_each() {
        let cmd = offered(Shell::Bash);
        let commands: Vec<&Command> = std::iter::once(&cmd).chain(cmd.get_subcommands()).collect();
        for (option, words) in fixed_values(&cmd) {
            for arg in commands.iter().flat_map(|c| c.get_opts()) {
                if arg.get_long().map(|l| format!("--{l}")) == Some(option.clone()) {
                    let here: Vec<String> = arg.get_value_parser().possible_values().unwrap().map(|v| v.get_name().to_string()).collect();
                    assert_eq!(here, words, "{option}");
                }
            }
        }
        let backend = fixed_values(&cmd).into_iter().find(|(o, _)| o == "-b").map(|(_, w)| w);
        assert_eq!(backend, Some(vec!["auto".to_string(), "cpu".into(), "gpu".into()]));
    }
}
