//! Running the real binary and reading what it wrote.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary, with one parse cache shared by every test (so that
/// renders of `testdata/` leave nothing in it, and every render runs against
/// a cache other tests keep rewriting); `tests/it/cache.rs` tests the default.
pub fn garrison() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_garrison"));
    command
        .env("PATH", path_with_tools())
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .env(
            "GARRISON_CACHE_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("parse-cache"),
        );
    command
}

/// The Helm release `conformance/helm` pins (`helm template` renders the
/// Helm sources of `testdata/`): built once per test run into
/// `target/tools/`, a directory holding nothing else.
pub const HELM_VERSION: &str = "v3.22.0";

/// `target/tools/`, with the pinned `helm` built into it.
pub fn tools_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let stamp = format!("-X helm.sh/helm/v3/internal/version.version={HELM_VERSION}");
        let helm = crate::go_program::build_package(
            "helm",
            "helm.sh/helm/v3/cmd/helm",
            &["-ldflags", &stamp],
            "tools/helm",
            "Helm",
            "Go 1.26 or newer is required",
        );
        helm.parent().map(Path::to_path_buf).unwrap_or_default()
    })
}

/// The PATH with [`tools_dir`] first, so every test renders with the pinned Helm.
pub fn path_with_tools() -> std::ffi::OsString {
    let mut dirs = vec![tools_dir().to_path_buf()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

pub fn run(args: &[&str]) -> Output {
    match garrison().args(args).output() {
        Ok(output) => output,
        Err(e) => panic!("cannot run garrison: {e}"),
    }
}

/// `garrison render --repo REPO --out OUT EXTRA...`.
pub fn render_to(repo: &Path, out: &Path, extra: &[&str]) -> Output {
    let (repo, out) = (repo.to_string_lossy(), out.to_string_lossy());
    let mut args = vec!["render", "--repo", &repo, "--out", &out];
    args.extend_from_slice(extra);
    run(&args)
}

pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

/// The fixture cases under `root`, by name, sorted: every directory but
/// those named in `others` (which other tests read), each holding `repo/`
/// and a `README.md`. A directory that lacks either fails the test,
/// named: a glob over the cases would pass over it without a word.
pub fn cases(root: &Path, others: &[&str]) -> Vec<String> {
    match check_cases(root, others) {
        Ok(cases) => cases,
        Err(fault) => panic!("{fault}"),
    }
}

/// [`cases`], or what is wrong with the directories under `root`.
pub fn check_cases(root: &Path, others: &[&str]) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut faults = Vec::new();
    for other in others {
        if !names.iter().any(|name| name == other) {
            faults.push(format!(
                "`{other}` is listed as read by another test, but is gone"
            ));
        }
    }
    let mut cases = Vec::new();
    for name in names.into_iter().filter(|n| !others.contains(&n.as_str())) {
        let case = root.join(&name);
        let missing: Vec<&str> = [
            ("repo/", case.join("repo").is_dir()),
            ("README.md", case.join("README.md").is_file()),
        ]
        .into_iter()
        .filter(|(_, present)| !present)
        .map(|(what, _)| what)
        .collect();
        if missing.is_empty() {
            cases.push(name);
        } else {
            faults.push(format!("`{name}` has no {}", missing.join(" and no ")));
        }
    }
    if faults.is_empty() {
        Ok(cases)
    } else {
        Err(format!(
            "fixture directories under `{}` that are not cases: {}; every case needs `repo/` and a `README.md`",
            root.display(),
            faults.join("; ")
        ))
    }
}

/// Every file under `dir`, by relative path.
pub fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if let Ok(bytes) = std::fs::read(&path) {
                let relative = path
                    .strip_prefix(root)
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.insert(relative, bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// A tree as one text: a header line per file, then its content.
pub fn tree_text(tree: &BTreeMap<String, Vec<u8>>) -> String {
    let mut text = String::new();
    for (path, bytes) in tree {
        text.push_str(&format!("=== {path}\n"));
        text.push_str(&String::from_utf8_lossy(bytes));
        if !bytes.ends_with(b"\n") {
            text.push('\n');
        }
    }
    text
}

/// Copy a directory tree.
pub fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::create_dir_all(to);
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else if let Err(e) = std::fs::copy(entry.path(), &target) {
            panic!("cannot copy {}: {e}", entry.path().display());
        }
    }
}

/// Run `command` (with no input) to completion; a program that cannot be
/// started fails the test, naming `what`.
pub fn run_program(command: &mut std::process::Command, what: &str) -> Output {
    match command.stdin(std::process::Stdio::null()).output() {
        Ok(output) => output,
        Err(e) => panic!("cannot run {what}: {e}"),
    }
}

/// A command's exit code and both streams, for a failure message.
pub fn transcript(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        stdout(output),
        stderr(output)
    )
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `kubectl kustomize DIR`; fails the test with a message when kubectl is missing.
pub fn kustomize(dir: &Path) -> String {
    let output = match Command::new("kubectl").arg("kustomize").arg(dir).output() {
        Ok(output) => output,
        Err(e) => panic!("kubectl is required for these tests (install kubectl): {e}"),
    };
    assert!(
        output.status.success(),
        "kubectl kustomize {} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A fresh temporary directory; the test fails with the reason if none can be made.
pub fn temp() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => panic!("cannot create a temporary directory: {e}"),
    }
}

/// `git -C dir ARGS` with a fixed identity and no user or system config;
/// its stdout without the trailing newline. A missing `git` fails the test.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = match Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Dev", "-c", "user.email=dev@example.com"])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("the git CLI is required for these tests: {e}"),
    };
    assert!(
        output.status.success(),
        "git {args:?} in {} failed: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .trim_end()
        .to_string()
}

/// Stage everything in `repo` and commit it.
pub fn commit_all(repo: &Path, message: &str) {
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", message]);
}

/// The repository's own root, where `testdata/`, `docs/` and the README are.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A text file's contents, or a failure naming the file.
pub fn read(path: &Path) -> String {
    match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    }
}

/// Writes a text file, creating its directory.
pub fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(path, text) {
        panic!("cannot write {}: {e}", path.display());
    }
}

#[cfg(unix)]
pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    if let Err(e) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)) {
        panic!("cannot chmod {}: {e}", path.display());
    }
}

/// Every document of a YAML stream, read with garrison's own reader.
pub fn yaml(text: &str, what: &str) -> Vec<serde_json::Value> {
    use garrison::load::yaml::{parse_stream, Limits};
    match parse_stream(text, &Limits::default()) {
        Ok(nodes) => nodes.iter().map(|n| n.to_value()).collect(),
        Err(e) => panic!("{what} is not valid YAML at {:?}: {}", e.pos, e.message),
    }
}

/// The string at a JSON pointer, or "" when there is none.
pub fn str_at<'a>(value: &'a serde_json::Value, pointer: &str) -> &'a str {
    value
        .pointer(pointer)
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
}

/// The Markdown pages of the docs: the README, then every `docs/*.md` in
/// name order.
pub fn doc_pages() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut pages = vec![root().join("README.md")];
    pages.extend(docs);
    pages
}
