//! The mass-prune guard (SPEC §10) through the real binary: a render that
//! would remove every object of the previous render, or more than
//! `massPrune.maxShare` of them, is refused in a directory, on a branch and
//! when merging shards, leaving the previous render exactly as it was;
//! `--allow-mass-prune` lets it through and `diff` warns about it.

use crate::fleet::{clusters, deployment, Fleet, EVERY_DEPLOYMENT};
use crate::support::{commit_all, git, read_tree, render_to, run, stderr, stdout};
use std::path::Path;

/// A fleet of clusters `a` and `b` and `count` Deployments (`web01`, ...)
/// on both: two objects per Deployment, plus the namespace on each cluster.
fn fleet(count: usize) -> Fleet {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a", "b"]));
    fleet.write("policy.yaml", EVERY_DEPLOYMENT);
    for i in 1..=count {
        let name = format!("web{i:02}");
        fleet.write(&format!("apps/{name}.yaml"), &deployment(&name, 1, "v1"));
    }
    fleet
}

fn normalized(text: &str, fleet: &Fleet) -> String {
    text.replace(&fleet.repo.to_string_lossy().into_owned(), "[REPO]")
}

#[test]
fn removing_more_than_half_of_a_directory_render_is_refused_and_listed() {
    let fleet = fleet(12);
    fleet.render();
    let before = read_tree(fleet.out());
    // 22 of 26 objects (the namespace stays for `web12`).
    for i in 1..=11 {
        fleet.remove(&format!("apps/web{i:02}.yaml"));
    }
    let refused = crate::support::render_to(&fleet.repo, fleet.out(), &["--color", "never"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert_eq!(read_tree(fleet.out()), before, "nothing is written");
    insta::assert_snapshot!(stderr(&refused));

    // What diff shows a reviewer: the removals, and the same finding as a warning.
    let diff = run(&[
        "diff",
        "--repo",
        &fleet.repo.to_string_lossy(),
        "--out",
        &fleet.out().to_string_lossy(),
        "--diagnostics",
        "concise",
    ]);
    assert_eq!(diff.status.code(), Some(0), "{}", stderr(&diff));
    assert!(
        stderr(&diff).starts_with(
            "warning[G0603]: the render would remove 22 of the previous render's 26 objects, more than `massPrune.maxShare` (0.5) allows: a: Deployment/apps/web01, a: Deployment/apps/web02,"
        ),
        "{}",
        stderr(&diff)
    );
    assert!(
        stdout(&diff).contains("-  name: web01"),
        "{}",
        stdout(&diff)
    );

    let allowed = fleet.render_with(&["--allow-mass-prune"]);
    assert_eq!(
        allowed
            .tree
            .keys()
            .filter(|p| p.contains("deployment"))
            .count(),
        3,
        "web12 on both clusters, and its binding"
    );
}

#[test]
fn the_share_and_the_minimum_come_from_garrison_yaml() {
    let fleet = fleet(3);
    fleet.render();
    let before = read_tree(fleet.out());
    // 2 of 8 objects: allowed by default (fewer than 20 objects, not all).
    fleet.remove("apps/web01.yaml");
    fleet.write(
        "garrison.yaml",
        "massPrune:\n  maxShare: 0.2\n  minObjects: 5\n",
    );
    let refused = fleet.try_render(&[]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).starts_with("error[G0603]: the render would remove 2 of the previous render's 8 objects, more than `massPrune.maxShare` (0.2) allows: a: Deployment/apps/web01, b: Deployment/apps/web01 (help: "),
        "{}",
        stderr(&refused)
    );
    assert_eq!(read_tree(fleet.out()), before);
    fleet.write(
        "garrison.yaml",
        "massPrune:\n  maxShare: 0.25\n  minObjects: 5\n",
    );
    let render = fleet.render();
    assert!(!render.tree.keys().any(|p| p.contains("web01")));
}

#[test]
fn an_invalid_share_is_an_error_at_its_line() {
    let fleet = fleet(1);
    fleet.write(
        "garrison.yaml",
        "massPrune:\n  maxShare: 1.5\n  minObjects: 10\n",
    );
    let output = run(&[
        "validate",
        "--repo",
        &fleet.repo.to_string_lossy(),
        "--color",
        "never",
    ]);
    assert_eq!(output.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&output), @r"
    error[G0005]: `garrison.yaml` is not valid: `massPrune.maxShare` is 1.5; it must be a share from 0 to 1
     --> garrison.yaml:2:13
      |
    2 |   maxShare: 1.5
      |             ^^^
      |
    help: write the largest share of the previous render's objects one render may remove, such as `0.5` for half

    garrison: 1 error(s), 0 warning(s); nothing was written
    ");
    fleet.write("garrison.yaml", "massPrune:\n  minObjects: -1\n");
    let output = fleet.try_render(&[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .starts_with("garrison.yaml:2:15: error[G0005]: `garrison.yaml` is not valid: "),
        "{}",
        stderr(&output)
    );
}

/// A git repository of the fleet, rendered to the branch `rendered`.
fn rendered_branch(fleet: &Fleet) -> String {
    git(&fleet.repo, &["init", "-q", "-b", "main"]);
    commit_all(&fleet.repo, "fleet");
    let first = render_branch(&fleet.repo, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    git(&fleet.repo, &["rev-parse", "rendered"])
}

fn render_branch(repo: &Path, extra: &[&str]) -> std::process::Output {
    let repo = repo.to_string_lossy();
    let mut args = vec!["render", "--repo", &repo, "--branch", "rendered"];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn removing_every_object_from_a_branch_is_refused_until_allowed() {
    let fleet = fleet(1);
    let tip = rendered_branch(&fleet);
    fleet.remove("apps/web01.yaml");
    fleet.write("apps/README.md", "moved to another repository\n");
    commit_all(&fleet.repo, "drop web01");
    let refused = render_branch(&fleet.repo, &["--diagnostics", "concise"]);
    assert_eq!(refused.status.code(), Some(2));
    insta::assert_snapshot!(normalized(&stderr(&refused), &fleet), @r"
    error[G0603]: the render would remove every object of the previous render (4 of 4): clusters/a/_cluster/namespace_apps.yaml, a: Deployment/apps/web01, clusters/b/_cluster/namespace_apps.yaml, b: Deployment/apps/web01 (help: if the removal is deliberate, render with `--allow-mass-prune` (or raise `massPrune.maxShare` / `massPrune.minObjects` in garrison.yaml); otherwise check `--repo`, the `include`/`exclude` globs of garrison.yaml and the clusters, policies and templates the objects came from)
    policy.yaml:7:5: warning[G0201]: ClusterPropagationPolicy/all matches no template (help: check apiVersion, kind, namespace, name and labels of its resource selectors)
    garrison: 1 error(s), 1 warning(s); nothing was written
    ");
    assert_eq!(git(&fleet.repo, &["rev-parse", "rendered"]), tip);

    let allowed = render_branch(&fleet.repo, &["--allow-mass-prune"]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert_eq!(git(&fleet.repo, &["rev-parse", "rendered^"]), tip);
    let files = git(&fleet.repo, &["ls-tree", "-r", "--name-only", "rendered"]);
    assert!(!files.contains("web01"), "{files}");
}

#[test]
fn merging_shards_that_remove_every_object_is_refused_until_allowed() {
    let fleet = fleet(1);
    fleet.render();
    let before = read_tree(fleet.out());
    fleet.remove("apps/web01.yaml");
    let mut shards = Vec::new();
    for k in 1..=2 {
        let shard = fleet.out().with_file_name(format!("shard-{k}"));
        let output = render_to(
            &fleet.repo,
            fleet.out(),
            &[
                "--shard",
                &format!("{k}/2"),
                "--shard-dir",
                &shard.to_string_lossy(),
                "-q",
            ],
        );
        assert!(output.status.success(), "{}", stderr(&output));
        shards.push(shard.to_string_lossy().into_owned());
    }
    let merge = |extra: &[&str]| {
        let mut args = vec!["--diagnostics", "concise", "--merge-shards"];
        args.extend(shards.iter().map(String::as_str));
        args.extend_from_slice(extra);
        render_to(&fleet.repo, fleet.out(), &args)
    };
    let refused = merge(&[]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).lines().any(|line| line.starts_with(
            "error[G0603]: the render would remove every object of the previous render (4 of 4): clusters/a/_cluster/namespace_apps.yaml, a: Deployment/apps/web01,"
        )),
        "{}",
        stderr(&refused)
    );
    assert_eq!(read_tree(fleet.out()), before, "nothing is written");
    let allowed = merge(&["--allow-mass-prune"]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert!(!read_tree(fleet.out()).keys().any(|p| p.contains("web01")));
}
