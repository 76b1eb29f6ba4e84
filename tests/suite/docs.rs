//! The documents: every relative link and anchor in the Markdown files resolves, the guide
//! shows `-h` as nqueen prints it, and the README's test command is the one CI runs.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The Markdown files of the repository, outside build output and hidden directories.
fn markdown_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            markdown_files(&path, found);
        } else if name.ends_with(".md") {
            found.push(path);
        }
    }
}

/// `text` without fenced code blocks and inline code, where brackets are not links.
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut kept = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            let unquoted: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
            kept.push_str(&unquoted);
            kept.push('\n');
        }
    }
    kept
}

/// The targets of the inline links `[text](target)` and reference definitions `[x]: target`.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose(text).lines() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            targets.push(rest[..end].split_whitespace().next().unwrap_or_default().to_string());
        }
        if let Some((label, target)) = line.trim_start().split_once("]: ") {
            if label.starts_with('[') && !label.contains(' ') {
                targets.push(target.trim().to_string());
            }
        }
    }
    targets
}

/// The anchors GitHub makes for the headings of `text`: lower case, punctuation but `-` and
/// `_` dropped, spaces as `-`, and `-1`, `-2`... after repeats; and explicit `id`s.
fn anchors(text: &str) -> HashSet<String> {
    let mut found = HashSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            continue;
        }
        if let Some(heading) = line.strip_prefix('#').map(|h| h.trim_start_matches('#')).filter(|h| h.starts_with(' ')) {
            let slug: String = heading
                .trim()
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
                .map(|c| if c == ' ' { '-' } else { c })
                .collect();
            let mut unique = slug.clone();
            let mut k = 0;
            while found.contains(&unique) {
                k += 1;
                unique = format!("{slug}-{k}");
            }
            found.insert(unique);
        }
        for id in line.split("id=\"").skip(1).filter_map(|s| s.split('"').next()) {
            found.insert(id.to_string());
        }
    }
    found
}

#[test]
fn every_relative_link_and_anchor_in_the_markdown_resolves() {
    let mut files = Vec::new();
    markdown_files(Path::new("."), &mut files);
    assert!(files.len() >= 6, "{files:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for target in link_targets(&text) {
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let linked = if path.is_empty() { file.clone() } else { file.parent().unwrap().join(path) };
            if !linked.exists() {
                broken.push(format!("{}: {target}: no such file", file.display()));
            } else if !anchor.is_empty() {
                let ok =
                    linked.extension().is_some_and(|e| e == "md") && anchors(&std::fs::read_to_string(&linked).unwrap()).contains(anchor);
                if !ok {
                    broken.push(format!("{}: {target}: no such heading", file.display()));
                }
            }
        }
    }
    assert!(checked >= 20, "only {checked} relative links: is the parser right?");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_checker_sees_links_and_headings_as_github_does() {
    let text = "# Counting past one machine\n## Exit status\n## Exit status\n```\n# not a heading\n[no](x)\n```\n\
                See [the guide](GUIDE.md#seeing-the-solutions) and `[code](y)`.\n[ref]: docs/a.md\n";
    assert_eq!(link_targets(text), ["GUIDE.md#seeing-the-solutions", "docs/a.md"]);
    let found = anchors(text);
    assert_eq!(found, HashSet::from(["counting-past-one-machine", "exit-status", "exit-status-1"].map(String::from)));
}

#[test]
fn the_guide_shows_the_options_as_dash_h_prints_them() {
    let guide = std::fs::read_to_string("GUIDE.md").unwrap();
    let after = guide.split("The output of `nqueen -h`").nth(1).expect("the guide's option list");
    let block = after.split("```text\n").nth(1).and_then(|b| b.split("\n```").next()).expect("a text block");
    let help = Command::cargo_bin("nqueen").unwrap().arg("-h").env("COLUMNS", "80").output().unwrap();
    assert_eq!(block, String::from_utf8_lossy(&help.stdout).trim_end(), "GUIDE.md's option list differs from `nqueen -h`");
}

#[test]
fn the_readme_gives_the_test_command_ci_runs_and_stays_short() {
    let ci = std::fs::read_to_string(".ci/run").unwrap();
    let last = ci.lines().rev().find(|l| !l.trim().is_empty() && !l.starts_with('#')).unwrap().trim();
    let readme = std::fs::read_to_string("README.md").unwrap();
    assert!(readme.contains(&format!("`{last}`")), "README.md does not give CI's test command `{last}`");
    assert!(readme.len() <= 12 * 1024, "README.md is {} bytes; the rest belongs in GUIDE.md", readme.len());
}

#[test]
fn the_tuning_figures_architecture_quotes_are_those_of_the_code() {
    use nqueen::tuning::*;
    let text = std::fs::read_to_string("ARCHITECTURE.md").unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    let quoted = [
        format!("its own cost of a board (about {} ms on an H100 host)", GPU_BOARD_SECONDS * 1e3),
        format!("the GPU's own cost of a board (about {} ms)", GPU_BOARD_SECONDS * 1e3),
        format!("cache directory by `src/gpu/cache.rs`; {} s before the first", GPU_START_SECONDS),
        format!("when the CPU would take longer than {} s plus what is left of the opening", OPENING_LINE_SECONDS),
        format!("one estimated under {}M nodes is searched as it is", PLANNING_PAYS_NODES / 1e6),
        format!("about one per {}K to {}K nodes", NODES_PER_PREFIX_LARGE / 1e3, NODES_PER_PREFIX_SMALL / 1e3),
        format!("never more than {:e} nodes each", MAX_NODES_PER_PREFIX),
    ];
    for figure in quoted {
        assert!(text.contains(&figure), "ARCHITECTURE.md does not say {figure:?}: the code's figure changed, or the text did");
    }
}

#[test]
fn the_helps_exit_statuses_name_the_files_that_readme_and_guide_list() {
    let help = Command::cargo_bin("nqueen").unwrap().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    let statuses = help.split("Exit status: ").nth(1).and_then(|s| s.split(". When several").next()).expect("the help's exit statuses");
    let said = |status: &str| statuses.split("; ").find(|s| s.starts_with(&format!("{status} "))).unwrap_or_default().to_string();
    let rows = |file: &str, status: &str| {
        let text = std::fs::read_to_string(file).unwrap();
        text.lines().find(|l| l.starts_with(&format!("| {status} |"))).unwrap_or_default().to_string()
    };
    for (status, files) in [("1", &["checkpoint", "part"][..]), ("4", &["checkpoint", "summary", "plot"])] {
        for file in files {
            for (source, text) in
                [("--help", said(status)), ("README.md", rows("README.md", status)), ("GUIDE.md", rows("GUIDE.md", status))]
            {
                assert!(text.contains(file), "{source} does not name the {file} under exit status {status}: {text:?}");
            }
        }
    }
}
