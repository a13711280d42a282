//! `render --branch`, `diff`, `check` and `explain` on real git repositories,
//! checked with the `git` CLI.

use crate::fleet::{clusters, deployment, policy, Fleet, DUPLICATED};
use crate::support::{commit_all, garrison, git, read_tree, stderr, stdout};
use std::path::Path;
use std::process::Output;

/// A git repository holding a small fleet, committed.
fn repo() -> Fleet {
    let fleet = Fleet::new();
    git(&fleet.repo, &["init", "-q", "-b", "main"]);
    fleet.write("clusters.yaml", &clusters(&["a", "b"]));
    fleet.write("app.yaml", &deployment("web", 2, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    commit_all(&fleet.repo, "fleet");
    fleet
}

fn garrison_in(repo: &Path, args: &[&str]) -> Output {
    match garrison().current_dir(repo).args(args).output() {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn first_noop_and_incremental_renders_on_a_branch() {
    let fleet = repo();
    let repo = fleet.repo.as_path();
    let first = garrison_in(repo, &["render", "--branch", "rendered"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let source = git(repo, &["rev-parse", "HEAD"]);
    assert_eq!(git(repo, &["rev-list", "--count", "rendered"]), "1");
    let files = git(repo, &["ls-tree", "-r", "--name-only", "rendered"]);
    insta::assert_snapshot!(files, @r"
    .garrison.json
    .gitattributes
    bindings/apps/deployment.apps_web.yaml
    clusters/a/_cluster/namespace_apps.yaml
    clusters/a/apps/deployment.apps_web.yaml
    clusters/a/kustomization.yaml
    clusters/b/_cluster/namespace_apps.yaml
    clusters/b/apps/deployment.apps_web.yaml
    clusters/b/kustomization.yaml
    hydrator.metadata
    ");
    let message = git(repo, &["log", "-1", "--format=%B", "rendered"]);
    assert!(
        message.contains(&format!("Source-Commit: {source}")),
        "{message}"
    );
    assert!(git(repo, &["show", "rendered:.garrison.json"]).contains(&source));
    assert_eq!(
        git(repo, &["status", "--porcelain"]),
        "",
        "the working tree is untouched"
    );
    assert_eq!(git(repo, &["rev-parse", "--abbrev-ref", "HEAD"]), "main");

    // Same source: no commit.
    let again = garrison_in(repo, &["render", "--branch", "rendered"]);
    assert!(again.status.success());
    assert!(stdout(&again).contains("no commit"), "{}", stdout(&again));
    assert_eq!(git(repo, &["rev-list", "--count", "rendered"]), "1");

    // A commit that changes no rendered object makes no render commit either.
    fleet.write("README.md", "notes\n");
    commit_all(repo, "docs only");
    garrison_in(repo, &["render", "--branch", "rendered"]);
    assert_eq!(git(repo, &["rev-list", "--count", "rendered"]), "1");
    let check = garrison_in(repo, &["check", "--branch", "rendered"]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));

    // One template changed: one commit whose parent is the previous render.
    fleet.write("app.yaml", &deployment("web", 2, "v2"));
    commit_all(repo, "web v2");
    let stale = garrison_in(repo, &["check", "--branch", "rendered"]);
    assert_eq!(stale.status.code(), Some(1));
    let before = git(repo, &["rev-parse", "rendered"]);
    let third = garrison_in(repo, &["render", "--branch", "rendered"]);
    assert!(third.status.success(), "{}", stderr(&third));
    assert_eq!(git(repo, &["rev-parse", "rendered^"]), before);
    let changed = git(repo, &["diff", "--name-only", "rendered^", "rendered"]);
    // The binding records the application's new render digest.
    insta::assert_snapshot!(changed, @r"
    .garrison.json
    bindings/apps/deployment.apps_web.yaml
    clusters/a/apps/deployment.apps_web.yaml
    clusters/b/apps/deployment.apps_web.yaml
    hydrator.metadata
    ");
    assert!(git(
        repo,
        &["show", "rendered:clusters/a/apps/deployment.apps_web.yaml"]
    )
    .contains("example.com/web:v2"));
    git(repo, &["fsck", "--strict"]);
}

#[test]
fn a_branch_outside_a_git_repository_says_what_to_do() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a"]));
    fleet.write("app.yaml", &deployment("web", 1, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    let before = read_tree(&fleet.repo);
    let mut transcript = String::new();
    for args in [
        &["render", "--branch", "rendered"][..],
        &["diff", "--branch", "rendered"],
    ] {
        let output = garrison_in(&fleet.repo, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        transcript.push_str(&format!(
            "$ garrison {}\n{}",
            args.join(" "),
            stderr(&output)
        ));
    }
    insta::assert_snapshot!(transcript, @r"
    $ garrison render --branch rendered
    garrison: error: cannot read branch `rendered`: `.` is not in a git repository, and --branch keeps the render on a branch of one: run `git init` there and commit the inputs, or use --out DIR for a render kept in a directory
    $ garrison diff --branch rendered
    garrison: error: cannot read branch `rendered`: `.` is not in a git repository, and --branch keeps the render on a branch of one: run `git init` there and commit the inputs, or use --out DIR for a render kept in a directory
    ");
    assert!(!transcript.contains("class="), "no libgit2 internals");
    assert_eq!(read_tree(&fleet.repo), before, "nothing is written");
}

#[test]
fn render_commits_are_by_whom_git_would_name() {
    let fleet = repo();
    let repo = fleet.repo.as_path();
    let home = crate::support::temp();
    let identity = |extra: &[(&str, &str)], version: &str| -> String {
        fleet.write("app.yaml", &deployment("web", 2, version));
        commit_all(repo, version);
        let mut command = garrison();
        command
            .current_dir(repo)
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path())
            .env_remove("EMAIL");
        for role in ["AUTHOR", "COMMITTER"] {
            command
                .env_remove(format!("GIT_{role}_NAME"))
                .env_remove(format!("GIT_{role}_EMAIL"));
        }
        command.envs(extra.iter().copied());
        let output = match command.args(["render", "--branch", "rendered"]).output() {
            Ok(o) => o,
            Err(e) => panic!("{e}"),
        };
        assert!(output.status.success(), "{}", stderr(&output));
        git(
            repo,
            &["log", "-1", "--format=%an <%ae> %cn <%ce>", "rendered"],
        )
    };
    let mut transcript = vec![format!("no configuration: {}", identity(&[], "v2"))];
    crate::support::write(
        &home.path().join(".gitconfig"),
        "[user]\n\tname = Global\n\temail = global@example.com\n",
    );
    transcript.push(format!("global: {}", identity(&[], "v3")));
    git(repo, &["config", "user.name", "Local"]);
    transcript.push(format!("repository over global: {}", identity(&[], "v4")));
    let variables = [
        ("GIT_AUTHOR_NAME", "Env Author"),
        ("GIT_AUTHOR_EMAIL", "author@example.com"),
        ("GIT_COMMITTER_NAME", "Env Committer"),
        ("GIT_COMMITTER_EMAIL", "committer@example.com"),
    ];
    transcript.push(format!("environment: {}", identity(&variables, "v5")));
    insta::assert_snapshot!(transcript.join("\n"), @r"
    no configuration: garrison <garrison@localhost> garrison <garrison@localhost>
    global: Global <global@example.com> Global <global@example.com>
    repository over global: Local <global@example.com> Local <global@example.com>
    environment: Env Author <author@example.com> Env Committer <committer@example.com>
    ");
}

#[test]
fn a_dirty_working_tree_is_refused_and_left_exactly_as_it_was() {
    let fleet = repo();
    let repo = fleet.repo.as_path();
    fleet.write("app.yaml", &deployment("web", 3, "dirty"));
    let status = git(repo, &["status", "--porcelain"]);
    let refused = garrison_in(repo, &["render", "--branch", "rendered"]);
    assert_eq!(refused.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&refused).replace(&repo.display().to_string(), "[REPO]"), @"garrison: error: tracked files in `.` have uncommitted changes: `app.yaml`; commit them, or pass --allow-dirty to render the working tree anyway");
    let allowed = garrison_in(repo, &["render", "--branch", "rendered", "--allow-dirty"]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert!(git(repo, &["log", "-1", "--format=%B", "rendered"]).contains("--allow-dirty"));
    assert_eq!(
        git(repo, &["status", "--porcelain"]),
        status,
        "the working tree is exactly as it was"
    );
    assert!(std::fs::read_to_string(repo.join("app.yaml"))
        .unwrap_or_default()
        .contains("dirty"));
}

#[test]
fn two_renders_racing_on_one_branch_lose_no_commit() {
    let fleet = repo();
    let repo = fleet.repo.clone();
    // A second source commit, so the two renders produce different trees.
    let spawn = |allow_dirty: bool| {
        let mut command = garrison();
        command
            .current_dir(&repo)
            .args(["render", "--branch", "rendered", "-q"]);
        if allow_dirty {
            command.arg("--allow-dirty");
        }
        match command.spawn() {
            Ok(child) => child,
            Err(e) => panic!("{e}"),
        }
    };
    let mut children: Vec<_> = (0..2).map(|_| spawn(false)).collect();
    for child in &mut children {
        let status = child.wait().map(|s| s.success()).unwrap_or(false);
        assert!(status, "a racing render failed");
    }
    // Both saw the same source: exactly one commit, the other found the branch current or retried.
    assert_eq!(git(&repo, &["rev-list", "--count", "rendered"]), "1");
    fleet.write("app.yaml", &deployment("web", 2, "v2"));
    commit_all(&repo, "web v2");
    let mut children: Vec<_> = (0..3).map(|_| spawn(false)).collect();
    for child in &mut children {
        assert!(child.wait().map(|s| s.success()).unwrap_or(false));
    }
    let log = git(&repo, &["log", "--format=%s", "rendered"]);
    assert_eq!(
        log.lines().count(),
        2,
        "one commit per distinct render, none lost:\n{log}"
    );
    git(&repo, &["fsck", "--strict"]);
}

#[test]
fn diff_check_and_explain_on_a_directory() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a", "b"]));
    fleet.write("app.yaml", &deployment("web", 2, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    fleet.write(
        "secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: apps\ndata:\n  password: aHVudGVyMg==\n",
    );
    fleet.write(
        "secret-policy.yaml",
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: db\n  namespace: apps\nspec:\n  resourceSelectors:\n  - apiVersion: v1\n    kind: Secret\n    name: db\n  placement:\n    clusterAffinity:\n      clusterNames: [a]\n",
    );
    fleet.render();
    fleet.write("app.yaml", &deployment("web", 2, "v2"));
    fleet.write("secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: apps\ndata:\n  password: czNjcjN0\n");
    let repo = fleet.repo.to_string_lossy().into_owned();
    let out = fleet.out().to_string_lossy().into_owned();

    let check = crate::support::run(&["check", "--repo", &repo, "--out", &out]);
    assert_eq!(check.status.code(), Some(1));
    insta::assert_snapshot!("check_stale", stdout(&check));

    let diff = crate::support::run(&["diff", "--repo", &repo, "--out", &out, "--exit-code"]);
    assert_eq!(diff.status.code(), Some(1));
    let text = stdout(&diff);
    assert!(
        !text.contains("czNjcjN0") && !text.contains("aHVudGVyMg"),
        "Secret values never appear in a diff"
    );
    insta::assert_snapshot!("diff_text", text);

    let json = crate::support::run(&["diff", "--repo", &repo, "--out", &out, "--json"]);
    assert_eq!(
        json.status.code(),
        Some(0),
        "without --exit-code diff exits 0"
    );
    let value: serde_json::Value = match serde_json::from_str(&stdout(&json)) {
        Ok(v) => v,
        Err(e) => panic!("diff --json is not JSON: {e}"),
    };
    insta::assert_snapshot!(
        "diff_json_summary",
        serde_json::to_string_pretty(&value["summary"]).unwrap_or_default()
    );

    let explain = crate::support::run(&[
        "explain",
        "--repo",
        &repo,
        "--out",
        &out,
        "Deployment/apps/web",
    ]);
    assert!(explain.status.success(), "{}", stderr(&explain));
    insta::assert_snapshot!("explain_text", stdout(&explain));
    let explain_json = crate::support::run(&[
        "explain",
        "--repo",
        &repo,
        "--out",
        &out,
        "--json",
        "Deployment/apps/web",
    ]);
    insta::assert_snapshot!("explain_json", stdout(&explain_json));

    let missing = crate::support::run(&[
        "explain",
        "--repo",
        &repo,
        "--out",
        &out,
        "Deployment/apps/nope",
    ]);
    assert_eq!(missing.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&missing), @"garrison: error: no application `Deployment/apps/nope`; write KIND/NAMESPACE/NAME, KIND/NAME with --namespace, or KIND/NAME for a cluster-scoped one");
}

#[test]
fn a_late_render_of_an_older_source_never_replaces_a_newer_render() {
    let fleet = repo();
    let repo = fleet.repo.as_path();
    let older = git(repo, &["rev-parse", "HEAD"]);
    fleet.write("app.yaml", &deployment("web", 2, "v2"));
    commit_all(repo, "web v2");
    assert!(garrison_in(repo, &["render", "--branch", "rendered"])
        .status
        .success());
    let tip = git(repo, &["rev-parse", "rendered"]);
    git(repo, &["checkout", "-q", &older]);
    let late = garrison_in(repo, &["render", "--branch", "rendered"]);
    assert!(late.status.success(), "{}", stderr(&late));
    assert!(
        stderr(&late).contains("which is newer than the source commit"),
        "{}",
        stderr(&late)
    );
    assert_eq!(
        git(repo, &["rev-parse", "rendered"]),
        tip,
        "the newer render stays"
    );
}

#[test]
fn a_reusing_render_on_a_branch_commits_what_a_full_render_commits() {
    let fleet = repo();
    let repo = fleet.repo.as_path();
    fleet.write("api.yaml", &deployment("api", 3, "v1"));
    fleet.write("api-policy.yaml", &policy("api", DUPLICATED, &[], ""));
    commit_all(repo, "api");
    let first = garrison_in(repo, &["render", "--branch", "rendered"]);
    assert!(first.status.success(), "{}", stderr(&first));
    git(repo, &["branch", "full", "rendered"]);
    fleet.write("app.yaml", &deployment("web", 2, "v2"));
    commit_all(repo, "web v2");
    for args in [
        &["render", "--branch", "rendered"][..],
        &["render", "--branch", "full", "--rebuild"][..],
    ] {
        let output = garrison_in(repo, args);
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    }
    // Same blobs for every file, the unchanged `api` files included.
    let listing = |branch: &str| git(repo, &["ls-tree", "-r", branch]);
    assert_eq!(listing("rendered"), listing("full"));
    let changed = git(repo, &["diff", "--name-only", "rendered^", "rendered"]);
    assert!(
        !changed.contains("api"),
        "the unchanged application is not touched:\n{changed}"
    );
    git(repo, &["fsck", "--strict"]);
}

#[test]
fn diff_check_and_explain_against_a_missing_render_are_errors_not_stale() {
    let fleet = repo();
    let repo = fleet.repo.as_path();
    let empty = repo.join("empty");
    if let Err(e) = std::fs::create_dir(&empty) {
        panic!("{e}");
    }
    let mut transcript = String::new();
    for args in [
        &["check", "--branch", "rendred"][..],
        &["diff", "--branch", "rendred"],
        &["explain", "--branch", "rendred", "Deployment/apps/web"],
        &["check", "--out", "missing"],
        &["diff", "--out", "missing"],
        &["explain", "--out", "missing", "Deployment/apps/web"],
        &["check", "--out", "empty"],
    ] {
        let output = garrison_in(repo, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&output), "", "{args:?}");
        transcript.push_str(&format!(
            "$ garrison {}\n{}",
            args.join(" "),
            stderr(&output).replace(&repo.display().to_string(), "[REPO]")
        ));
    }
    insta::assert_snapshot!(transcript);
    assert!(!repo.join("missing").exists(), "nothing is created");
    assert_eq!(
        std::fs::read_dir(&empty).map(Iterator::count).ok(),
        Some(0),
        "nothing is written"
    );

    // Rendering is what creates them; then they compare.
    for (render, check) in [
        (
            ["render", "--branch", "rendred"],
            ["check", "--branch", "rendred"],
        ),
        (
            ["render", "--out", "missing"],
            ["check", "--out", "missing"],
        ),
    ] {
        let first = garrison_in(repo, &render);
        assert!(first.status.success(), "{}", stderr(&first));
        let current = garrison_in(repo, &check);
        assert_eq!(current.status.code(), Some(0), "{}", stderr(&current));
    }
}

#[test]
fn a_misspelt_branch_is_met_with_the_branch_meant() {
    let fleet = repo();
    let repo = fleet.repo.as_path();
    let first = garrison_in(repo, &["render", "--branch", "rendered"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let refs = git(repo, &["show-ref"]);
    let mut transcript = String::new();
    for args in [
        &["diff", "--branch", "rendred"][..],
        &["check", "--branch", "Rendered"],
        &["explain", "--branch", "rendred", "Deployment/apps/web"],
        &["report", "--branch", "rendred", "--html", "report.html"],
    ] {
        let output = garrison_in(repo, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        transcript.push_str(&format!(
            "$ garrison {}\n{}",
            args.join(" "),
            stderr(&output)
        ));
    }
    insta::assert_snapshot!(transcript, @r"
    $ garrison diff --branch rendred
    garrison: error: branch `rendred` does not exist in `.`; did you mean `rendered`?
    $ garrison check --branch Rendered
    garrison: error: branch `Rendered` does not exist in `.`; did you mean `rendered`?
    $ garrison explain --branch rendred Deployment/apps/web
    garrison: error: branch `rendred` does not exist in `.`; did you mean `rendered`?
    $ garrison report --branch rendred --html report.html
    garrison: error: branch `rendred` does not exist in `.`; did you mean `rendered`?
    ");
    assert_eq!(git(repo, &["show-ref"]), refs, "no branch is made");
    assert!(!repo.join("report.html").exists(), "nothing is written");
}

#[test]
fn untracked_input_files_make_the_working_tree_dirty() {
    let fleet = repo();
    let repo = fleet.repo.as_path();
    // Not inputs: notes, an ignored file, the parse cache, a render made
    // in the working tree.
    fleet.write("NOTES.md", "not an input\n");
    fleet.write(".gitignore", "scratch/\n");
    commit_all(repo, "ignore scratch");
    fleet.write("scratch/draft.yaml", &deployment("draft", 1, "v1"));
    fleet.write("NOTES.md", "not an input\n");
    fleet.write("TODO.txt", "neither\n");
    let local = garrison()
        .current_dir(repo)
        .env_remove("GARRISON_CACHE_DIR")
        .args(["render", "--out", "out"])
        .output();
    assert!(matches!(&local, Ok(o) if o.status.success()), "{local:?}");
    assert!(repo.join(".garrison-cache").is_dir());
    let first = garrison_in(repo, &["render", "--branch", "rendered"]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(
        git(repo, &["show", "rendered:.garrison.json"]).contains("\"dirty\": false"),
        "files garrison does not read leave the render clean"
    );
    let tip = git(repo, &["rev-parse", "rendered"]);

    // An untracked input is an uncommitted change.
    fleet.write("api.yaml", &deployment("api", 1, "v1"));
    fleet.write("api-policy.yaml", &policy("api", DUPLICATED, &[], ""));
    let refused = garrison_in(repo, &["render", "--branch", "rendered"]);
    assert_eq!(refused.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&refused), @"garrison: error: input files in `.` are untracked: `api-policy.yaml`, `api.yaml`; commit them or list them in .gitignore, or pass --allow-dirty to render the working tree anyway");
    assert_eq!(git(repo, &["rev-parse", "rendered"]), tip);

    let allowed = garrison_in(repo, &["render", "--branch", "rendered", "--allow-dirty"]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert!(git(repo, &["show", "rendered:.garrison.json"]).contains("\"dirty\": true"));
    assert!(git(repo, &["log", "-1", "--format=%B", "rendered"])
        .contains("Rendered from a working tree with uncommitted changes (--allow-dirty)."));
    assert!(
        git(repo, &["ls-tree", "-r", "--name-only", "rendered"]).contains("deployment.apps_api")
    );
    assert_eq!(
        git(repo, &["status", "--porcelain"]),
        "?? TODO.txt\n?? api-policy.yaml\n?? api.yaml\n?? out/",
        "the working tree is left as it was"
    );
}
