//! Build script: a fingerprint of the source and the locked dependencies,
//! so that a parse cache written by one build is never read by another
//! (`src/load/cache.rs`): the package version alone is the same for every
//! commit between releases. And the version `--version` prints, with the
//! commit it was built from.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    // Read when run, not when compiled, so that the script can be run on
    // another source tree (the version's tests do).
    let root = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let root = root.as_path();
    let mut files = Vec::new();
    collect(&root.join("src"), &mut files);
    files.push(root.join("Cargo.lock"));
    files.push(root.join("Cargo.toml"));
    files.sort();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for file in &files {
        file.strip_prefix(root).unwrap_or(file).hash(&mut hasher);
        std::fs::read(file).unwrap_or_default().hash(&mut hasher);
        println!("cargo:rerun-if-changed={}", file.display());
    }
    println!("cargo:rerun-if-changed={}", root.join("src").display());
    println!("cargo:rustc-env=GARRISON_BUILD_ID={:016x}", hasher.finish());
    let version = std::env::var("CARGO_PKG_VERSION")
        .unwrap_or_else(|_| env!("CARGO_PKG_VERSION").to_string());
    let version = match commit(root) {
        Some(commit) => format!("{version} ({commit})"),
        None => version,
    };
    println!("cargo:rustc-env=GARRISON_VERSION={version}");
}

/// The commit the source at `root` is, in 12 hexadecimal digits: HEAD of
/// the git checkout whose top `root` is, else the commit `cargo package`
/// recorded in `.cargo_vcs_info.json` (a crates.io tarball), else none
/// (the source is in no git repository, or in one that is not garrison's).
fn commit(root: &Path) -> Option<String> {
    git_head(root).or_else(|| packaged(root))
}

fn git_head(root: &Path) -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let output = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()?;
        output.status.success().then_some(())?;
        String::from_utf8(output.stdout).ok()
    };
    // One call per mode: `--symbolic-full-name` applies to every name after it.
    let places = git(&[
        "rev-parse",
        "--show-toplevel",
        "--absolute-git-dir",
        "--git-common-dir",
        "--symbolic-full-name",
        "HEAD",
    ])?;
    let [top, git_dir, common, head] = places.lines().collect::<Vec<_>>()[..] else {
        return None;
    };
    let same = |a: &Path, b: &Path| a.canonicalize().ok() == b.canonicalize().ok();
    if !same(Path::new(top), root) {
        return None;
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    // Built again when HEAD moves: a checkout, a commit, a fetch of refs.
    let common = root.join(common);
    let watched = [
        Path::new(git_dir).join("HEAD"),
        common.join(head),
        common.join("packed-refs"),
    ];
    for path in watched.iter().filter(|p| p.is_file()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    Some(commit.trim().to_string())
}

/// `{"git": {"sha1": "…"}}` of `.cargo_vcs_info.json`, shortened.
fn packaged(root: &Path) -> Option<String> {
    let path = root.join(".cargo_vcs_info.json");
    let text = std::fs::read_to_string(&path).ok()?;
    println!("cargo:rerun-if-changed={}", path.display());
    let at = text.find("\"sha1\"")?;
    let sha: String = text[at + "\"sha1\"".len()..]
        .trim_start_matches([' ', ':', '"', '\n', '\t'])
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (sha.len() >= 12).then(|| sha[..12].to_string())
}

fn collect(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}
