//! Tells the program which commit of the source it is built from, for the part records'
//! provenance: `NQUEEN_COMMIT` is the short commit, with "-dirty" where tracked files have
//! uncommitted changes, or empty where the source is not a git checkout.

use std::path::Path;
use std::process::Command;

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]);
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.trim().is_empty());
    let build = match commit {
        Some(c) if dirty => format!("{c}-dirty"),
        Some(c) => c,
        None => String::new(),
    };
    println!("cargo:rustc-env=NQUEEN_COMMIT={build}");
    // Again when HEAD moves (its log grows), the index changes, or the source does.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        for file in ["logs/HEAD", "HEAD", "index"] {
            let path = Path::new(&dir).join(file);
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
    for path in ["src", "kernels", "Cargo.toml", "Cargo.lock", "build.rs"] {
        println!("cargo:rerun-if-changed={path}");
    }
}

/// What `git args` prints, trimmed, where it runs and succeeds.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok().filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string()).filter(|s| !s.is_empty())
}
