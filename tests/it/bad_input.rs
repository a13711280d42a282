//! The bad-input corpus (SPEC §8, §10): every case under `testdata/bad-input/`
//! is rendered over a known-good previous render. A `G….-*` case must exit 2
//! with an error of its code, print exactly the snapshotted diagnostics and
//! leave the previous output byte-identical, in a directory and on a branch;
//! an `ok-*` case must succeed with the snapshotted warnings.
//!
//! A case may hold `args`: extra `garrison render` arguments, one per line.

use crate::support::{commit_all, copy_dir, garrison, git, read_tree, render_to, stderr, testdata};
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn render(repo: &Path, out: &Path, extra: &[String]) -> std::process::Output {
    let mut args = vec!["--color", "never"];
    args.extend(extra.iter().map(String::as_str));
    render_to(repo, out, &args)
}

/// Add to the copy `repo` of `case` what git does not hold well, or what
/// must lie outside the repository (symbolic links and their targets, made
/// under `dir`).
fn add_runtime_files(case: &str, repo: &Path, dir: &Path) {
    let link = |target: &Path, link: &Path| {
        if let Err(e) = std::os::unix::fs::symlink(target, link) {
            panic!("cannot create the link {}: {e}", link.display());
        }
    };
    match case {
        "G0003-symlink-outside" => {
            let outside = dir.join("outside");
            let _ = std::fs::create_dir_all(&outside);
            let secret = outside.join("secret.yaml");
            if let Err(e) = std::fs::write(
                &secret,
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secret\n  namespace: shop\n",
            ) {
                panic!("cannot write {}: {e}", secret.display());
            }
            link(&secret, &repo.join("linked.yaml"));
            link(Path::new("../outside"), &repo.join("shared"));
        }
        "G0001-broken-symlink" => link(Path::new("missing.yaml"), &repo.join("gone.yaml")),
        _ => {}
    }
}

/// The repository to render for `case`: the fixture itself, or a copy
/// under `dir` with the run-time files added.
fn prepare(case: &str, repo: &Path, dir: &Path) -> PathBuf {
    match case {
        "G0003-symlink-outside" | "G0001-broken-symlink" => {
            let copy = dir.join("repo");
            copy_dir(repo, &copy);
            add_runtime_files(case, &copy, dir);
            copy
        }
        _ => repo.to_path_buf(),
    }
}

/// A copy of `repo` with byte-order marks and CRLF line ends removed.
fn normalized_copy(repo: &Path, to: &Path) {
    for (path, bytes) in read_tree(repo) {
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let target = to.join(&path);
        if let Some(parent) = target.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Err(e) = std::fs::write(&target, text.replace("\r\n", "\n")) {
            panic!("cannot write {}: {e}", target.display());
        }
    }
}

/// stderr with the repository and the temporary directory replaced.
fn normalized(output: &std::process::Output, repo: &Path, dir: &Path) -> String {
    stderr(output)
        .replace(&repo.to_string_lossy().into_owned(), "[REPO]")
        .replace(&dir.to_string_lossy().into_owned(), "[TMP]")
}

/// A git repository whose branch `rendered` holds a good render: each
/// refused case is committed in it in turn and rendered to that branch.
struct BranchRender {
    dir: tempfile::TempDir,
    repo: PathBuf,
    tip: String,
}

impl BranchRender {
    fn new() -> BranchRender {
        let dir = crate::support::temp();
        let repo = dir.path().join("repo");
        copy_dir(&testdata().join("duplicated/repo"), &repo);
        git(&repo, &["init", "-q", "-b", "main"]);
        commit_all(&repo, "a good fleet");
        let good = match render_branch(&repo, &[]).output() {
            Ok(output) => output,
            Err(e) => panic!("cannot run garrison: {e}"),
        };
        assert!(good.status.success(), "{}", stderr(&good));
        let tip = git(&repo, &["rev-parse", "rendered"]);
        BranchRender { dir, repo, tip }
    }

    /// Commit `case` (its fixture at `fixture`) as the source and start
    /// rendering it to the branch: the render runs while the caller renders
    /// the case into a directory (the slow cases are slow to parse).
    fn start(&self, case: &str, fixture: &Path, extra: &[String]) -> std::process::Child {
        git(&self.repo, &["rm", "-rqf", "--ignore-unmatch", "."]);
        copy_dir(fixture, &self.repo);
        add_runtime_files(case, &self.repo, self.dir.path());
        commit_all(&self.repo, case);
        match render_branch(&self.repo, extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => panic!("cannot run garrison: {e}"),
        }
    }

    /// The branch render of `case` was refused exactly as `expected` (the
    /// directory render's diagnostics) says, and left the tip alone.
    fn refused(&self, render: std::process::Child, case: &str, expected: &str) {
        let output = match render.wait_with_output() {
            Ok(output) => output,
            Err(e) => panic!("{case}: {e}"),
        };
        let text = normalized(&output, &self.repo, self.dir.path());
        assert_eq!(output.status.code(), Some(2), "{case} on a branch:\n{text}");
        assert_eq!(
            text, expected,
            "{case} on a branch says what it says in a directory"
        );
        assert_eq!(
            git(&self.repo, &["rev-parse", "rendered"]),
            self.tip,
            "{case} moved the rendered branch"
        );
    }
}

/// `garrison render --repo REPO --branch rendered EXTRA...`, to run.
fn render_branch(repo: &Path, extra: &[String]) -> std::process::Command {
    let mut command = garrison();
    command
        .args(["render", "--repo"])
        .arg(repo)
        .args(["--branch", "rendered", "--color", "never"])
        .args(extra);
    command
}

#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    // A case directory without `repo/` fails here: the glob would skip it.
    crate::support::cases(&testdata().join("bad-input"), &[]);
    let branch = BranchRender::new();
    insta::glob!("../../testdata/bad-input", "*/repo", |repo| {
        let case_dir = repo.parent().unwrap_or(Path::new("."));
        let case = case_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut extra: Vec<String> = std::fs::read_to_string(case_dir.join("args"))
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        if case.starts_with("ok-") {
            // The previous render is of another fleet, which an `ok-` case
            // replaces whole: a mass prune, allowed here (tests/it/prune.rs
            // tests the guard).
            extra.push("--allow-mass-prune".into());
        }
        let dir = crate::support::temp();
        let out = dir.path().join("out");

        // A known-good previous render.
        let good = render(&testdata().join("duplicated/repo"), &out, &[]);
        assert!(good.status.success(), "{}", stderr(&good));
        let before = read_tree(&out);
        assert!(!before.is_empty());

        let on_branch = (!case.starts_with("ok-"))
            .then(|| branch.start(&case, case_dir.join("repo").as_path(), &extra));
        let repo = prepare(&case, repo, dir.path());
        let output = render(&repo, &out, &extra);
        let text = normalized(&output, &repo, dir.path());

        if case.starts_with("ok-") {
            assert_eq!(output.status.code(), Some(0), "{case} must render:\n{text}");
            if case == "ok-crlf" || case == "ok-utf8-bom" {
                // The same output as the file written plainly.
                let plain = dir.path().join("plain");
                normalized_copy(&repo, &plain);
                let out2 = dir.path().join("out2");
                let first = render(&testdata().join("duplicated/repo"), &out2, &[]);
                assert!(first.status.success(), "{}", stderr(&first));
                let again = render(&plain, &out2, &extra);
                assert!(again.status.success(), "{}", stderr(&again));
                assert_eq!(read_tree(&out), read_tree(&out2), "{case}");
            }
        } else {
            assert_eq!(
                output.status.code(),
                Some(2),
                "{case} must be refused with exit 2:\n{text}"
            );
            let code = case.split('-').next().unwrap_or_default();
            assert!(
                text.contains(&format!("error[{code}]")),
                "{case} is refused for its own fault, an error {code}:\n{text}"
            );
            assert!(
                text.contains("help:"),
                "{case}: every error says what to do:\n{text}"
            );
            assert_eq!(
                read_tree(&out),
                before,
                "{case} changed the previous output"
            );
        }
        if let Some(render) = on_branch {
            branch.refused(render, &case, &text);
        }
        insta::assert_snapshot!(text);
    });
}
