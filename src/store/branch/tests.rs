//! The branch store against the real `git` CLI.

use super::source::{unfold, without_credentials};
use super::*;
use crate::model::layout::Tree;
use git2::{Repository, Signature, Time};
use std::collections::BTreeMap;
use std::process::Command;
use std::sync::{Arc, Barrier};

/// Runs the real `git` CLI in `dir`, isolated from the user's and the
/// system's configuration. Panics (never skips) when git is missing.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=Source Author",
            "-c",
            "user.email=source@example.com",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap_or_else(|e| {
            panic!("these tests need the `git` command line tool and it could not be run: {e}")
        });
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("git output is UTF-8")
}

fn git_bytes(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("these tests need the `git` command line tool");
    assert!(out.status.success(), "git {args:?} failed");
    out.stdout
}

/// A non-bare repository with one source commit and a dirty tracked file.
fn source_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join("fleet.yaml"), "clusters: [a]\n").expect("write");
    git(dir.path(), &["add", "fleet.yaml"]);
    git(dir.path(), &["commit", "-q", "-m", "Add the fleet"]);
    std::fs::write(dir.path().join("fleet.yaml"), "clusters: [a, b]\n").expect("write");
    dir
}

use crate::model::layout::text_tree as tree;

fn request<'a>(
    branch: &'a str,
    tree: &'a Tree,
    parent: Option<&'a str>,
    message: &'a str,
) -> CommitRequest<'a> {
    CommitRequest {
        branch,
        prefix: None,
        tree,
        kept: &NONE_KEPT,
        expected_parent: parent,
        message,
        author: &TEST_IDENTITY,
        committer: &TEST_IDENTITY,
        time: Some(1_700_000_000),
    }
}

fn committed(outcome: CommitOutcome) -> (String, usize) {
    match outcome {
        CommitOutcome::Committed {
            commit,
            blobs_written,
        } => (commit, blobs_written),
        other => panic!("expected a commit, got {other:?}"),
    }
}

fn count(dir: &Path, branch: &str) -> usize {
    git(dir, &["rev-list", "--count", branch])
        .trim()
        .parse()
        .expect("a count")
}

fn fsck(dir: &Path) {
    git(dir, &["fsck", "--strict", "--no-dangling"]);
}

fn first_render() -> Tree {
    tree(&[
        (".garrison.json", "{}\n"),
        (
            "clusters/a/kustomization.yaml",
            "resources: [deploy.yaml]\n",
        ),
        ("clusters/a/deploy.yaml", "kind: Deployment\n"),
        ("clusters/b/kustomization.yaml", "resources: []\n"),
    ])
}

#[test]
fn first_commit_creates_the_branch_and_leaves_the_worktree_alone() {
    let dir = source_repo();
    let repo = dir.path();
    let status_before = git(repo, &["status", "--porcelain"]);
    let head_before = git(repo, &["rev-parse", "HEAD"]);
    let index_before = std::fs::read(repo.join(".git/index")).expect("index");
    let render = first_render();

    let (commit, blobs) = committed(
        commit_tree(repo, &request("rendered", &render, None, "Render")).expect("commit"),
    );
    assert_eq!(blobs, 4);
    assert_eq!(git(repo, &["rev-parse", "rendered"]).trim(), commit);
    let listed = git(repo, &["ls-tree", "-r", "--name-only", "rendered"]);
    let listed: Vec<&str> = listed.lines().collect();
    let expected: Vec<&str> = render.keys().map(String::as_str).collect();
    assert_eq!(listed, expected);
    for (path, bytes) in &render {
        assert_eq!(
            &git_bytes(repo, &["show", &format!("rendered:{path}")]),
            bytes
        );
    }
    assert_eq!(
        git(
            repo,
            &[
                "log",
                "-1",
                "--format=%an <%ae>|%cn <%ce>|%at|%s",
                "rendered"
            ]
        )
        .trim(),
        "garrison <garrison@example.com>|garrison <garrison@example.com>|1700000000|Render"
    );

    assert_eq!(git(repo, &["status", "--porcelain"]), status_before);
    assert_eq!(git(repo, &["rev-parse", "HEAD"]), head_before);
    assert_eq!(
        git(repo, &["symbolic-ref", "HEAD"]).trim(),
        "refs/heads/main"
    );
    assert_eq!(
        std::fs::read(repo.join(".git/index")).expect("index"),
        index_before
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("fleet.yaml")).expect("read"),
        "clusters: [a, b]\n"
    );

    let stored = read_branch(repo, "rendered")
        .expect("read")
        .expect("exists");
    assert_eq!(stored.commit, commit);
    assert_eq!(stored.tree, render);
    assert_eq!(read_branch(repo, "absent").expect("read"), None);
    fsck(repo);
}

#[test]
fn same_tree_again_is_unchanged() {
    let dir = source_repo();
    let repo = dir.path();
    let render = first_render();
    let (first, _) =
        committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
    let again = commit_tree(repo, &request("out", &render, Some(&first), "two"));
    assert_eq!(again.expect("commit"), CommitOutcome::Unchanged);
    assert_eq!(count(repo, "out"), 1);
    assert_eq!(git(repo, &["rev-parse", "out"]).trim(), first);
    fsck(repo);
}

#[test]
fn one_changed_file_writes_one_blob_on_top_of_the_parent() {
    let dir = source_repo();
    let repo = dir.path();
    let mut render = first_render();
    let (first, _) =
        committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
    render.insert(
        "clusters/a/deploy.yaml".into(),
        b"kind: Deployment\nspec: {}\n".to_vec(),
    );
    let (second, blobs) = committed(
        commit_tree(repo, &request("out", &render, Some(&first), "two")).expect("commit"),
    );
    assert_eq!(blobs, 1);
    assert_eq!(git(repo, &["rev-parse", "out^"]).trim(), first);
    assert_eq!(git(repo, &["rev-parse", "out"]).trim(), second);
    assert_eq!(count(repo, "out"), 2);
    fsck(repo);
}

static NONE_KEPT: BTreeMap<String, String> = BTreeMap::new();

static TEST_IDENTITY: std::sync::LazyLock<Identity> = std::sync::LazyLock::new(|| Identity {
    name: "garrison".into(),
    email: "garrison@example.com".into(),
});

#[test]
fn listed_files_are_committed_as_their_blobs_without_being_read() {
    let dir = source_repo();
    let repo = dir.path();
    let render = first_render();
    let (first, _) =
        committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
    let listing = list_branch(repo, "out")
        .expect("list")
        .expect("the branch exists");
    assert_eq!(listing.commit, first);
    assert_eq!(
        listing.blobs.keys().collect::<Vec<_>>(),
        render.keys().collect::<Vec<_>>()
    );
    // Keep every file of cluster `a` as its blob; write one new file.
    let kept: BTreeMap<String, String> = listing
        .blobs
        .iter()
        .filter(|(p, _)| p.starts_with("clusters/a/"))
        .map(|(p, id)| (p.clone(), id.clone()))
        .collect();
    assert!(!kept.is_empty());
    let mut written: Tree = render
        .iter()
        .filter(|(p, _)| !kept.contains_key(*p))
        .map(|(p, b)| (p.clone(), b.clone()))
        .collect();
    written.insert("clusters/b/new.yaml".into(), b"kind: ConfigMap\n".to_vec());
    let mut second_request = request("out", &written, Some(&first), "two");
    second_request.kept = &kept;
    let (_, blobs) = committed(commit_tree(repo, &second_request).expect("commit"));
    assert_eq!(blobs, 1, "only the new file is a new blob");
    let read = read_branch(repo, "out")
        .expect("read")
        .expect("exists")
        .tree;
    let mut expected = render.clone();
    expected.insert("clusters/b/new.yaml".into(), b"kind: ConfigMap\n".to_vec());
    assert_eq!(read, expected);
    let wanted: Vec<(&str, &str)> = listing
        .blobs
        .iter()
        .map(|(p, id)| (p.as_str(), id.as_str()))
        .collect();
    assert_eq!(read_blobs(repo, &wanted).expect("blobs"), render);
    fsck(repo);
}

#[test]
fn only_directories_with_the_same_entries_keep_their_tree() {
    let dir = source_repo();
    let repo = dir.path();
    let file = |text: &str| text.as_bytes().to_vec();
    let mut render: Tree = [
        ("same/a.yaml", "a"),
        ("same/sub/b.yaml", "b"),
        ("renamed/x.yaml", "x"),
        ("edited/y.yaml", "y"),
        ("typed/z", "z"),
        ("shrunk/1.yaml", "1"),
        ("shrunk/2.yaml", "2"),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), file(t)))
    .collect();
    let (first, _) =
        committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
    let tree_of = |rev: &str| git(repo, &["rev-parse", rev]).trim().to_string();
    let before = tree_of("out:same");
    // Same number of entries, another name; same name, other bytes; a
    // file that becomes a directory; one entry fewer.
    let x = render.remove("renamed/x.yaml").unwrap();
    render.insert("renamed/w.yaml".into(), x);
    render.insert("edited/y.yaml".into(), file("y2"));
    render.remove("typed/z");
    render.insert("typed/z/inner".into(), file("z"));
    render.remove("shrunk/2.yaml");
    committed(commit_tree(repo, &request("out", &render, Some(&first), "two")).expect("commit"));
    assert_eq!(tree_of("out:same"), before);
    let stored = read_branch(repo, "out").expect("read").expect("exists");
    assert_eq!(stored.tree, render);
    fsck(repo);
}

#[test]
fn a_directory_whose_mode_was_changed_by_hand_is_built_again() {
    let dir = source_repo();
    let repo = dir.path();
    let render: Tree = [("same/a.yaml".to_string(), b"a".to_vec())]
        .into_iter()
        .collect();
    let (first, _) =
        committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
    // The branch's file made executable by hand, in a commit of its own.
    let handle = Repository::open(repo).expect("open");
    let tip = handle
        .find_commit(Oid::from_str(&first).expect("id"))
        .expect("tip");
    let same_id = tip
        .tree()
        .expect("tree")
        .get_name("same")
        .expect("same")
        .id();
    let blob = handle
        .find_tree(same_id)
        .expect("same")
        .get_name("a.yaml")
        .expect("a")
        .id();
    let mut sub = handle.treebuilder(None).expect("builder");
    sub.insert("a.yaml", blob, 0o100755).expect("insert");
    let mut root = handle.treebuilder(None).expect("builder");
    root.insert("same", sub.write().expect("write"), 0o040000)
        .expect("insert");
    let tree = handle
        .find_tree(root.write().expect("write"))
        .expect("tree");
    let signature = Signature::new("hand", "hand@example.com", &Time::new(1, 0)).expect("sig");
    let edited = handle
        .commit(
            Some("refs/heads/out"),
            &signature,
            &signature,
            "chmod",
            &tree,
            &[&tip],
        )
        .expect("commit")
        .to_string();
    committed(commit_tree(repo, &request("out", &render, Some(&edited), "two")).expect("commit"));
    let listed = git(repo, &["ls-tree", "-r", "out"]);
    assert!(listed.starts_with("100644 blob"), "{listed}");
}

#[test]
fn deleted_paths_go_and_nested_paths_come() {
    let dir = source_repo();
    let repo = dir.path();
    let mut render = first_render();
    let (first, _) =
        committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
    render.remove("clusters/a/deploy.yaml");
    render.insert(
        "clusters/c/ns/deep/cm.yaml".into(),
        b"kind: ConfigMap\n".to_vec(),
    );
    // A directory becoming a file of the same name.
    render.remove("clusters/b/kustomization.yaml");
    render.insert("clusters/b".into(), b"now a file\n".to_vec());
    committed(commit_tree(repo, &request("out", &render, Some(&first), "two")).expect("commit"));
    let listed = git(repo, &["ls-tree", "-r", "--name-only", "out"]);
    let listed: Vec<&str> = listed.lines().collect();
    let expected: Vec<&str> = render.keys().map(String::as_str).collect();
    assert_eq!(listed, expected);
    assert!(!listed.contains(&"clusters/a/deploy.yaml"));
    assert!(listed.contains(&"clusters/c/ns/deep/cm.yaml"));
    let stored = read_branch(repo, "out").expect("read").expect("exists");
    assert_eq!(stored.tree, render);
    fsck(repo);
}

#[test]
fn stale_parent_is_reported_as_moved_and_never_overwrites() {
    let dir = source_repo();
    let repo = dir.path();
    let render = first_render();
    let (first, _) =
        committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
    let mut theirs = render.clone();
    theirs.insert("theirs.yaml".into(), b"x\n".to_vec());
    let (other, _) = committed(
        commit_tree(repo, &request("out", &theirs, Some(&first), "someone else")).expect("commit"),
    );
    let mut mine = render.clone();
    mine.insert("mine.yaml".into(), b"y\n".to_vec());
    let outcome = commit_tree(repo, &request("out", &mine, Some(&first), "stale")).expect("commit");
    assert_eq!(
        outcome,
        CommitOutcome::Moved {
            tip: Some(other.clone())
        }
    );
    assert_eq!(git(repo, &["rev-parse", "out"]).trim(), other);
    // Creating a branch that already exists is a move too.
    let outcome = commit_tree(repo, &request("out", &mine, None, "create")).expect("commit");
    assert_eq!(outcome, CommitOutcome::Moved { tip: Some(other) });
    // Expecting a branch that does not exist.
    let outcome = commit_tree(repo, &request("gone", &mine, Some(&first), "x")).expect("commit");
    assert_eq!(outcome, CommitOutcome::Moved { tip: None });
    fsck(repo);
}

#[test]
fn racing_writers_lose_no_commit() {
    let dir = source_repo();
    let repo = dir.path().to_path_buf();
    const ROUNDS: usize = 5;
    let barrier = Arc::new(Barrier::new(2));
    let writers: Vec<_> = ["alpha", "beta"]
        .into_iter()
        .map(|name| {
            let repo = repo.clone();
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                let mut retries = 0;
                for round in 0..ROUNDS {
                    let message = format!("{name} {round}");
                    let mut done = false;
                    for _ in 0..10 {
                        let stored = read_branch(&repo, "out").expect("read");
                        let (parent, mut render) = match stored {
                            Some(s) => (Some(s.commit), s.tree),
                            None => (None, Tree::new()),
                        };
                        render.insert(format!("{name}/{round}.yaml"), message.clone().into());
                        let req = request("out", &render, parent.as_deref(), &message);
                        match commit_tree(&repo, &req).expect("commit") {
                            CommitOutcome::Committed { .. } => {
                                done = true;
                                break;
                            }
                            CommitOutcome::Moved { tip } => {
                                eprintln!("{message}: moved from {parent:?} to {tip:?}");
                                retries += 1
                            }
                            CommitOutcome::Unchanged => panic!("a new file is a change"),
                        }
                    }
                    assert!(done, "{message} was not committed within 10 tries");
                }
                retries
            })
        })
        .collect();
    let retries: usize = writers
        .into_iter()
        .map(|w| w.join().expect("writer thread"))
        .sum();
    eprintln!("racing writers retried {retries} times");
    let subjects = git(&repo, &["log", "--format=%s", "out"]);
    for name in ["alpha", "beta"] {
        for round in 0..ROUNDS {
            let message = format!("{name} {round}");
            assert!(
                subjects.lines().any(|s| s == message),
                "{message} lost from {subjects}"
            );
        }
    }
    assert_eq!(count(&repo, "out"), 2 * ROUNDS);
    let stored = read_branch(&repo, "out").expect("read").expect("exists");
    assert_eq!(stored.tree.len(), 2 * ROUNDS);
    fsck(&repo);
}

#[test]
fn source_info_reads_head_and_dirtiness() {
    let dir = source_repo();
    let repo = dir.path();
    let head = git(repo, &["rev-parse", "HEAD"]);
    let sub = repo.join("sub");
    std::fs::create_dir(&sub).expect("mkdir");
    let info = source_info(&sub).expect("info").expect("a repository");
    assert_eq!(info.commit, head.trim());
    assert_eq!(info.subject, "Add the fleet");
    assert_eq!(info.author, "Source Author <source@example.com>");
    assert!(info.dirty, "a modified tracked file is dirty");
    assert_eq!(
        info.changed,
        ["../fleet.yaml"],
        "named from the source directory"
    );
    let info = source_info(repo).expect("info").expect("a repository");
    assert_eq!(info.changed, ["fleet.yaml"]);

    git(repo, &["checkout", "-q", "--", "fleet.yaml"]);
    std::fs::write(repo.join(".gitignore"), "ignored.yaml\n").expect("write");
    git(repo, &["add", ".gitignore"]);
    git(repo, &["commit", "-q", "-m", "ignore"]);
    std::fs::write(repo.join("untracked.yaml"), "x").expect("write");
    std::fs::create_dir_all(sub.join("deep")).expect("mkdir");
    std::fs::write(sub.join("deep/new.yaml"), "x").expect("write");
    std::fs::write(repo.join("ignored.yaml"), "x").expect("write");
    let info = source_info(repo).expect("info").expect("a repository");
    assert!(!info.dirty, "untracked files are not tracked changes");
    assert_eq!(
        info.untracked,
        ["sub/deep/new.yaml", "untracked.yaml"],
        "untracked, not ignored, files are listed"
    );
    let info = source_info(&sub).expect("info").expect("a repository");
    assert_eq!(
        info.untracked,
        ["deep/new.yaml"],
        "relative to the source directory"
    );
    std::fs::remove_dir_all(&sub).expect("rm");

    git(repo, &["add", "untracked.yaml"]);
    let info = source_info(repo).expect("info").expect("a repository");
    assert!(info.dirty, "a staged file is dirty");

    let plain = tempfile::tempdir().expect("temp dir");
    assert_eq!(source_info(plain.path()).expect("info"), None);
    let unborn = tempfile::tempdir().expect("temp dir");
    git(unborn.path(), &["init", "-q"]);
    assert_eq!(source_info(unborn.path()).expect("info"), None);
}

#[test]
fn source_info_reads_the_message_its_trailers_the_author_date_and_origin() {
    let dir = source_repo();
    let repo = dir.path();
    git(repo, &["checkout", "-q", "--", "fleet.yaml"]);
    let message = "Bump web\n\nBody line.\n\nSigned-off-by: A <a@example.com>\nArgocd-reference-commit-body: \"two\n  words\"\n";
    std::fs::write(repo.join("message"), message).expect("write");
    std::fs::write(repo.join("fleet.yaml"), "clusters: [c]\n").expect("write");
    git(repo, &["add", "fleet.yaml"]);
    git(
        repo,
        &[
            "commit",
            "-q",
            "--cleanup=verbatim",
            "-F",
            "message",
            "--date=@1700000000 +0200",
        ],
    );
    std::fs::remove_file(repo.join("message")).expect("rm");
    let info = source_info(repo).expect("info").expect("a repository");
    assert_eq!(info.message, message);
    assert_eq!(info.authored, 1_700_000_000);
    assert_eq!(
        info.trailers,
        [
            ("Signed-off-by".to_string(), "A <a@example.com>".to_string()),
            (
                "Argocd-reference-commit-body".to_string(),
                "\"two words\"".to_string()
            ),
        ]
    );
    assert_eq!(info.origin_url, None);
    git(
        repo,
        &[
            "remote",
            "add",
            "origin",
            "https://ci:token@git.example.com/fleet.git",
        ],
    );
    let info = source_info(repo).expect("info").expect("a repository");
    assert_eq!(
        info.origin_url.as_deref(),
        Some("https://git.example.com/fleet.git")
    );
}

#[test]
fn credentials_are_taken_out_of_remote_urls() {
    for (given, expected) in [
        (
            "https://user:pass@host/org/repo.git",
            "https://host/org/repo.git",
        ),
        ("https://token@host:8443/r", "https://host:8443/r"),
        ("https://host/path@v1", "https://host/path@v1"),
        ("ssh://git@host/org/repo", "ssh://git@host/org/repo"),
        ("ssh://git:pw@host/org/repo", "ssh://git@host/org/repo"),
        ("git@github.com:org/repo.git", "git@github.com:org/repo.git"),
        ("/srv/git/fleet.git", "/srv/git/fleet.git"),
    ] {
        assert_eq!(without_credentials(given), expected, "{given}");
    }
    assert_eq!(unfold("a\n  b\n\tc  d \n"), "a b c  d");
}

#[test]
fn works_in_a_bare_repository_and_is_deterministic() {
    let a = tempfile::tempdir().expect("temp dir");
    let b = tempfile::tempdir().expect("temp dir");
    git(a.path(), &["init", "-q", "--bare"]);
    git(b.path(), &["init", "-q", "--bare"]);
    let render = first_render();
    let (ca, _) =
        committed(commit_tree(a.path(), &request("out", &render, None, "one")).expect("commit"));
    let (cb, _) =
        committed(commit_tree(b.path(), &request("out", &render, None, "one")).expect("commit"));
    assert_eq!(ca, cb);
    assert_eq!(source_info(a.path()).expect("info"), None);
    fsck(a.path());
}

#[test]
fn a_prefix_keeps_the_rest_of_the_branch() {
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = dir.path();
    git(repo, &["init", "-q", "--bare"]);
    let other = tree(&[("README.md", "hello\n"), ("deploy/keep.txt", "k\n")]);
    let (base, _) =
        committed(commit_tree(repo, &request("out", &other, None, "base")).expect("commit"));
    let render = first_render();
    let mut req = request("out", &render, Some(&base), "render");
    req.prefix = Some("deploy/fleet");
    let (next, _) = committed(commit_tree(repo, &req).expect("commit"));
    let stored = read_branch_dir(repo, "out", Some("deploy/fleet"))
        .expect("read")
        .expect("exists");
    assert_eq!(stored.tree, render);
    let whole = read_branch(repo, "out").expect("read").expect("exists");
    assert_eq!(whole.tree.len(), other.len() + render.len());
    assert_eq!(whole.tree["deploy/keep.txt"], b"k\n");
    let mut req = request("out", &render, Some(&next), "again");
    req.prefix = Some("deploy/fleet/");
    assert_eq!(
        commit_tree(repo, &req).expect("commit"),
        CommitOutcome::Unchanged
    );
    let empty = read_branch_dir(repo, "out", Some("nowhere"))
        .expect("read")
        .expect("exists");
    assert!(empty.tree.is_empty());
    assert!(matches!(
        read_branch_dir(repo, "out", Some("README.md")),
        Err(Error::NotADirectory { .. })
    ));
    fsck(repo);
}

#[test]
fn a_lock_left_behind_is_an_error_not_a_move() {
    let dir = source_repo();
    let repo = dir.path();
    let render = first_render();
    let (first, _) =
        committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
    let lock = repo.join(".git/refs/heads/out.lock");
    std::fs::write(&lock, "").expect("lock");
    let mut next = render.clone();
    next.insert("new.yaml".into(), b"n\n".to_vec());
    let outcome = commit_tree(repo, &request("out", &next, Some(&first), "two"));
    assert!(matches!(outcome, Err(Error::Write { .. })), "{outcome:?}");
    std::fs::remove_file(&lock).expect("unlock");
    committed(commit_tree(repo, &request("out", &next, Some(&first), "two")).expect("commit"));
    fsck(repo);
}

#[test]
fn bad_input_is_refused() {
    let dir = source_repo();
    let repo = dir.path();
    for bad in ["/abs", "a//b", "a/../b", ".git/config", "a/", ""] {
        let render = tree(&[(bad, "x")]);
        assert!(
            matches!(
                commit_tree(repo, &request("out", &render, None, "m")),
                Err(Error::InvalidPath { .. })
            ),
            "{bad:?} accepted"
        );
    }
    let clash = tree(&[("a", "x"), ("a/b", "y")]);
    assert!(matches!(
        commit_tree(repo, &request("out", &clash, None, "m")),
        Err(Error::InvalidPath { .. })
    ));
    let render = first_render();
    assert!(matches!(
        commit_tree(repo, &request("bad..name", &render, None, "m")),
        Err(Error::InvalidBranch { .. })
    ));
    assert!(matches!(
        commit_tree(repo, &request("out", &render, Some("abc"), "m")),
        Err(Error::InvalidCommitId { .. })
    ));
    assert!(matches!(
        commit_tree(
            repo,
            &request(
                "main",
                &render,
                Some(git(repo, &["rev-parse", "HEAD"]).trim()),
                "m"
            )
        ),
        Err(Error::CheckedOut { .. })
    ));
    assert_eq!(git(repo, &["rev-list", "--all", "--count"]).trim(), "1");
}
