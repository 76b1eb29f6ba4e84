//! A summary or plot is replaced only where the whole file is one nqueen wrote: a file that
//! starts as one but holds a person's words (after it, within it, or in place of it) is
//! refused and kept; an earlier build's summary or plot, whole, and an empty file, are
//! replaced.

use std::fs;

use super::{earlier, nqueen, seen, text};

/// Runs `command` with `option` naming `name` (which holds `bytes`) over the sample's
/// records; returns the status, what was said, and the file's bytes after.
fn write_over(command: &str, option: &str, bytes: &[u8]) -> (Option<i32>, String, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let part = nqueen().args(["--shard", "0/1", "fixtures/bench/empty_14.in"]).output().unwrap();
    fs::write(dir.path().join("part.jsonl"), &part.stdout).unwrap();
    let path = dir.path().join("target");
    fs::write(&path, bytes).unwrap();
    let before = seen(&path);
    let (code, stdout, err) = text(&nqueen().current_dir(dir.path()).args([command, option, "target", "part.jsonl"]).output().unwrap());
    assert!(!stdout.is_empty(), "{command} {option}: no answers");
    if code != Some(0) {
        assert_eq!(seen(&path), before, "{command} {option}: a refused file changed");
    }
    (code, err, fs::read(&path).unwrap())
}

#[test]
fn a_summary_or_plot_with_a_persons_words_in_it_is_kept() {
    let summary = String::from_utf8(earlier("merge", "--summary")).unwrap();
    let plot = String::from_utf8(earlier("status", "--plot")).unwrap();
    let plot_top: String = plot.lines().take(2).map(|l| format!("{l}\n")).collect();
    let notes = "a note of mine\n".repeat(2000);
    let cases: [(&str, &str, &str, String); 9] = [
        ("merge", "--summary", "summary", "{\"record\":\"summary\"} and my thesis".into()),
        ("merge", "--summary", "summary", "{\"record\":\"summary\",\"mine\":\"data\"}".into()),
        ("merge", "--summary", "summary", format!("{{\n  \"record\": \"summary\",\n{notes}")),
        ("merge", "--summary", "summary", format!("{summary}// checked by alice\n")),
        ("merge", "--summary", "summary", summary.replacen("\"records\":", "\"mine\": 1,\n  \"records\":", 1)),
        ("status", "--plot", "plot", format!("{plot_top}MY DRAWING\n")),
        ("status", "--plot", "plot", format!("{plot}<!-- annotated by bob -->\n")),
        ("status", "--plot", "plot", plot.replacen("</text>", "</text>\n<text x=\"1\" y=\"1\">mine</text>", 1)),
        ("status", "--plot", "plot", format!("{}\n<!-- nqueen status plot -->\nMY DRAWING</svg>\n", plot.lines().next().unwrap())),
    ];
    for (command, option, role, bytes) in cases {
        let (code, err, after) = write_over(command, option, bytes.as_bytes());
        let kind = if role == "summary" { "a summary of nqueen merge" } else { "a plot of nqueen status" };
        let said = format!(
            "nqueen: {role} target: starts as {kind} but is not one as nqueen wrote it (edited, or with more in it), so it was left as it is: remove it, or give another name\n"
        );
        assert_eq!((code, err), (Some(4), said), "{role} over {:?}", &bytes[bytes.len().saturating_sub(60)..]);
        assert_eq!(after, bytes.as_bytes());
    }
}

#[test]
fn an_earlier_summary_or_plot_whole_or_an_empty_file_is_replaced() {
    let plot = String::from_utf8(earlier("status", "--plot")).unwrap();
    let mark = plot.lines().nth(1).unwrap();
    assert!(mark.starts_with("<!-- nqueen status plot sha256=") && mark.ends_with(" -->"), "{mark}");
    let cases: [(&str, &str, Vec<u8>); 6] = [
        ("merge", "--summary", fs::read("fixtures/parts/empty_22.recounted.summary.json").unwrap()),
        ("merge", "--summary", earlier("merge", "--summary")),
        ("merge", "--summary", Vec::new()),
        ("status", "--plot", plot.replacen(mark, "<!-- nqueen status --plot -->", 1).into_bytes()),
        ("status", "--plot", plot.replacen(mark, "<!-- nqueen status plot -->", 1).into_bytes()),
        ("status", "--plot", Vec::new()),
    ];
    for (command, option, bytes) in cases {
        let (code, err, after) = write_over(command, option, &bytes);
        assert_eq!((code, err.as_str()), (Some(0), ""), "{option} over {:?}", String::from_utf8_lossy(&bytes[..bytes.len().min(60)]));
        assert_ne!(after, bytes, "{option}: not replaced");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_directory_this_user_may_not_write_in_is_named_as_the_reason() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    let part = nqueen().args(["--shard", "0/1", "fixtures/sample.in"]).output().unwrap();
    fs::write(at.join("part.jsonl"), &part.stdout).unwrap();
    fs::create_dir(at.join("shut")).unwrap();
    assert!(nqueen().current_dir(at).args(["merge", "--summary", "shut/s.json", "part.jsonl"]).output().unwrap().status.success());
    // The summary may be written; its directory may not be.
    fs::set_permissions(at.join("shut/s.json"), fs::Permissions::from_mode(0o666)).unwrap();
    fs::set_permissions(at.join("shut"), fs::Permissions::from_mode(0o555)).unwrap();
    fs::set_permissions(at, fs::Permissions::from_mode(0o755)).unwrap();
    let before = seen(&at.join("shut/s.json"));
    // A copy that any user may run, wherever the build lies.
    fs::copy(env!("CARGO_BIN_EXE_nqueen"), at.join("nqueen")).unwrap();
    let bin = at.join("nqueen");
    let args = [bin.to_str().unwrap(), "merge", "--summary", "shut/s.json", "part.jsonl"];
    // Root may write anywhere: it runs as nobody.
    // SAFETY: geteuid only reads the process's user id.
    let mut command = if unsafe { libc::geteuid() } == 0 {
        let mut as_nobody = std::process::Command::new("setpriv");
        as_nobody.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]).args(args);
        as_nobody
    } else {
        let mut plain = std::process::Command::new(args[0]);
        plain.args(&args[1..]);
        plain
    };
    let Ok(out) = command.current_dir(at).output() else {
        return crate::common::not_here("a_directory_this_user_may_not_write_in_is_named_as_the_reason", "no setpriv to run as nobody");
    };
    let (code, stdout, err) = text(&out);
    assert_eq!(
        (code, stdout.as_str(), err.as_str()),
        (Some(4), "Case 1: 92\nCase 2: 1\n", "nqueen: summary shut/s.json: its directory shut does not let this user make files in it\n")
    );
    assert_eq!(seen(&at.join("shut/s.json")), before);
    fs::set_permissions(at.join("shut"), fs::Permissions::from_mode(0o755)).unwrap();
}
