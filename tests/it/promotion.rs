//! `hydrator.metadata` on a rendered branch, and the promotion flow of
//! `docs/delivery.md` (render to `<env>-next`, promote to `<env>`), run
//! line by line with the git CLI against a local bare `origin`.

use crate::fleet::{clusters, deployment, policy, DUPLICATED};
use crate::support::{garrison, git, root, stderr, stdout, temp, write};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;

/// The promotion commands of docs/delivery.md: the first ```sh block
/// after its "Promotion" heading.
fn documented_promotion() -> Vec<String> {
    let path = root().join("docs/delivery.md");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let Some(start) = text.find("\n## Promotion") else {
        panic!("docs/delivery.md has no Promotion section");
    };
    let section = &text[start..];
    let Some(open) = section.find("```sh\n") else {
        panic!("the Promotion section of docs/delivery.md has no ```sh block");
    };
    let body = &section[open + 6..];
    let body = &body[..body.find("```").unwrap_or(body.len())];
    let lines: Vec<String> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    assert!(
        lines.iter().any(|l| l.starts_with("garrison render"))
            && lines.iter().any(|l| l.contains("hydrator.metadata")),
        "the promotion block renders and shows hydrator.metadata: {lines:?}"
    );
    lines
}

/// A source repository with `fleets/staging/`, pushed to a bare `origin`.
struct Source {
    dir: tempfile::TempDir,
    work: PathBuf,
    origin: PathBuf,
    bin: PathBuf,
}

const MESSAGE: &str = "Scale web to 3

For the sale.

Signed-off-by: Dev <dev@example.com>
Argocd-reference-commit-sha: 89abcdef01
Argocd-reference-commit-author: Carol Code <carol@example.com>
Argocd-reference-commit-date: 2025-06-09T13:40:00-04:00
Argocd-reference-commit-subject: Build web v2
Argocd-reference-commit-repourl: https://git.example.com/web.git
";

impl Source {
    fn new() -> Source {
        let dir = temp();
        let origin = dir.path().join("origin.git");
        let work = dir.path().join("work");
        let _ = std::fs::create_dir_all(&work);
        git(
            dir.path(),
            &["init", "-q", "--bare", "-b", "main", "origin.git"],
        );
        git(&work, &["init", "-q", "-b", "main"]);
        let fleet = work.join("fleets/staging");
        write(&fleet.join("clusters.yaml"), &clusters(&["a", "b"]));
        write(&fleet.join("app.yaml"), &deployment("web", 3, "v1"));
        write(
            &fleet.join("policy.yaml"),
            &policy("web", DUPLICATED, &[], ""),
        );
        write(&dir.path().join("message"), MESSAGE);
        git(&work, &["add", "-A"]);
        git(&work, &["commit", "-q", "-F", "../message"]);
        git(
            &work,
            &["remote", "add", "origin", &origin.display().to_string()],
        );
        git(&work, &["push", "-q", "origin", "main"]);
        let bin = dir.path().join("bin");
        let _ = std::fs::create_dir_all(&bin);
        #[cfg(unix)]
        if let Err(e) =
            std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_garrison"), bin.join("garrison"))
        {
            panic!("cannot link the binary: {e}");
        }
        Source {
            dir,
            work,
            origin,
            bin,
        }
    }

    /// One documented line, run by bash in the work tree.
    fn sh(&self, line: &str) -> Output {
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let home = self.dir.path().join("home");
        write(
            &home.join(".gitconfig"),
            "[user]\n\tname = Dev\n\temail = dev@example.com\n",
        );
        let output = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", line])
            .current_dir(&self.work)
            .env("PATH", path)
            .env("HOME", &home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
            .env("NO_COLOR", "1")
            .env(
                "GARRISON_CACHE_DIR",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("parse-cache"),
            )
            .env_remove("GITHUB_ACTIONS")
            .output();
        match output {
            Ok(output) => output,
            Err(e) => panic!("bash is required for this test: {e}"),
        }
    }

    /// Run the documented promotion, every line succeeding; the output of
    /// `git show <env>-next:hydrator.metadata`.
    fn promote(&self, lines: &[String]) -> Value {
        let mut metadata = None;
        for line in lines {
            let output = self.sh(line);
            assert!(
                output.status.success(),
                "`{line}` failed:\n{}{}",
                stdout(&output),
                stderr(&output)
            );
            if line.contains(":hydrator.metadata") {
                metadata = serde_json::from_str(&stdout(&output)).ok();
            }
        }
        metadata.unwrap_or_else(|| panic!("no line showed hydrator.metadata as JSON"))
    }

    fn origin(&self, args: &[&str]) -> String {
        git(&self.origin, args)
    }
}

#[test]
fn a_render_on_staging_next_records_its_source_and_is_promoted_to_staging_by_fast_forward() {
    let lines = documented_promotion();
    let source = Source::new();
    let head = git(&source.work, &["rev-parse", "HEAD"]);
    let authored = git(&source.work, &["show", "-s", "--format=%at", "HEAD"]);

    let metadata = source.promote(&lines);
    let authored: i64 = authored.parse().unwrap_or_default();
    let expected = json!({
        "repoURL": source.origin.display().to_string(),
        "drySha": head,
        "author": "Dev <dev@example.com>",
        "date": garrison_date(authored),
        "subject": "Scale web to 3",
        "body": "For the sale.\n\nSigned-off-by: Dev <dev@example.com>\n",
        "references": [{"commit": {
            "author": "\"Carol Code\" <carol@example.com>",
            "date": "2025-06-09T13:40:00-04:00",
            "subject": "Build web v2",
            "sha": "89abcdef01",
            "repoUrl": "https://git.example.com/web.git",
        }}],
    });
    assert_eq!(metadata, expected);
    // The branch's files: hydrator.metadata at the root, beside .garrison.json.
    let files = git(&source.work, &["ls-tree", "--name-only", "staging-next"]);
    assert_eq!(
        files.lines().collect::<Vec<_>>(),
        [
            ".garrison.json",
            ".gitattributes",
            "bindings",
            "clusters",
            "hydrator.metadata"
        ]
    );
    let first = source.origin(&["rev-parse", "staging-next"]);
    assert_eq!(source.origin(&["rev-parse", "staging"]), first, "promoted");

    // A new source commit: rendered onto staging-next, then staging moves
    // forward to it, keeping the commit it had.
    write(
        &source.work.join("fleets/staging/app.yaml"),
        &deployment("web", 4, "v1"),
    );
    git(&source.work, &["commit", "-qam", "Scale web to 4"]);
    let head = git(&source.work, &["rev-parse", "HEAD"]);
    let metadata = source.promote(&lines);
    assert_eq!(metadata["drySha"], head.as_str());
    assert_eq!(metadata["subject"], "Scale web to 4");
    assert!(metadata.get("references").is_none(), "{metadata}");
    assert!(metadata.get("body").is_none(), "{metadata}");
    let second = source.origin(&["rev-parse", "staging"]);
    assert_ne!(second, first);
    assert_eq!(source.origin(&["rev-parse", "staging-next"]), second);
    assert_eq!(
        source.origin(&["rev-parse", "staging^"]),
        first,
        "a fast-forward"
    );

    // staging edited by hand: the next promotion is refused, not forced.
    let other = source.dir.path().join("other");
    git(
        source.dir.path(),
        &[
            "clone",
            "-q",
            "-b",
            "staging",
            &source.origin.display().to_string(),
            "other",
        ],
    );
    write(&other.join("hotfix.txt"), "by hand\n");
    git(&other, &["add", "hotfix.txt"]);
    git(&other, &["commit", "-qm", "by hand"]);
    git(&other, &["push", "-q", "origin", "staging"]);
    let by_hand = source.origin(&["rev-parse", "staging"]);
    write(
        &source.work.join("fleets/staging/app.yaml"),
        &deployment("web", 5, "v1"),
    );
    git(&source.work, &["commit", "-qam", "Scale web to 5"]);
    let promote = lines.last().cloned().unwrap_or_default();
    assert!(promote.contains("staging-next:staging"), "{promote}");
    for line in &lines[..lines.len() - 1] {
        let output = source.sh(line);
        assert!(output.status.success(), "`{line}`: {}", stderr(&output));
    }
    let refused = source.sh(&promote);
    assert!(!refused.status.success(), "{}", stdout(&refused));
    assert!(
        stderr(&refused).contains("rejected"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(source.origin(&["rev-parse", "staging"]), by_hand);
}

/// What garrison writes for an author time: RFC 3339 in UTC, as `date -u`.
fn garrison_date(seconds: i64) -> String {
    let output = std::process::Command::new("date")
        .args(["-u", "-d", &format!("@{seconds}"), "+%Y-%m-%dT%H:%M:%SZ"])
        .output();
    match output {
        Ok(o) if o.status.success() => stdout(&o).trim().to_string(),
        other => panic!("GNU date is required for this test: {other:?}"),
    }
}

#[test]
fn hydrator_metadata_is_deterministic_names_no_credentials_and_stays_off_a_directory_render() {
    let source = Source::new();
    // A URL with a token: the token never reaches the branch.
    git(
        &source.work,
        &[
            "remote",
            "set-url",
            "origin",
            "https://ci:s3cr3t@git.example.com/fleet.git",
        ],
    );
    let render = |repo: &Path| {
        let output = match garrison()
            .current_dir(repo)
            .args([
                "render",
                "--repo",
                "fleets/staging",
                "--branch",
                "staging-next",
                "-q",
            ])
            .output()
        {
            Ok(o) => o,
            Err(e) => panic!("{e}"),
        };
        assert!(output.status.success(), "{}", stderr(&output));
        git(repo, &["rev-parse", "staging-next"])
    };
    let commit = render(&source.work);
    let metadata = git(&source.work, &["show", "staging-next:hydrator.metadata"]);
    assert!(
        !metadata.contains("s3cr3t") && !metadata.contains("ci@"),
        "{metadata}"
    );
    let value: Value = serde_json::from_str(&metadata).unwrap_or_default();
    assert_eq!(value["repoURL"], "https://git.example.com/fleet.git");

    // The same source commit in another clone with the same remote: the
    // same commit, byte for byte (no clock is read).
    let clone = source.dir.path().join("clone");
    git(
        source.dir.path(),
        &["clone", "-q", &source.work.display().to_string(), "clone"],
    );
    git(
        &clone,
        &[
            "remote",
            "set-url",
            "origin",
            "https://git.example.com/fleet.git",
        ],
    );
    assert_eq!(render(&clone), commit);

    // Without a remote: no repoURL. Rendering again with nothing changed
    // makes no commit.
    git(&clone, &["remote", "remove", "origin"]);
    assert_eq!(render(&clone), commit, "no object changed: no commit");
    git(&clone, &["branch", "-D", "staging-next"]);
    let without = render(&clone);
    let value: Value = serde_json::from_str(&git(
        &clone,
        &["show", &format!("{without}:hydrator.metadata")],
    ))
    .unwrap_or_default();
    assert!(value.get("repoURL").is_none(), "{value}");
    assert_eq!(
        value["drySha"],
        git(&clone, &["rev-parse", "HEAD"]).as_str()
    );

    // A directory render has no hydrator.metadata.
    let out = source.dir.path().join("out");
    let output = crate::support::render_to(&source.work.join("fleets/staging"), &out, &["-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(out.join(".garrison.json").is_file());
    assert!(!out.join("hydrator.metadata").exists());
}
