//! The vanish guard (SPEC §10) through the real binary, on the bundled
//! example fleet: a one-character mistake in a policy's selector that makes
//! the storefront reach no cluster is refused in a directory, on a branch
//! and when merging shards, leaving the previous render exactly as it was;
//! `diff` and `check` warn; `--allow-vanish` or `allowVanish` lets it
//! through; deleting the template or its policy is a removal, and a paused
//! cluster keeps what it has.

use crate::support::{
    commit_all, copy_dir, git, read, read_tree, render_to, run, stderr, temp, testdata, write,
};
use std::path::{Path, PathBuf};

/// The example fleet, copied, rendered into `out` beside it.
fn rendered_fleet(dir: &Path) -> (PathBuf, PathBuf) {
    let repo = dir.join("repo");
    copy_dir(&testdata().join("fleet/repo"), &repo);
    let out = dir.join("out");
    let first = render_to(&repo, &out, &["-q"]);
    assert!(first.status.success(), "{}", stderr(&first));
    (repo, out)
}

/// The storefront policy's Deployment selector misspelt by one letter.
fn misspell_the_selector(repo: &Path) {
    let path = repo.join("policies/propagation.yaml");
    let text = read(&path);
    let misspelt = text.replacen(
        "    kind: Deployment\n    name: storefront\n",
        "    kind: Deployment\n    name: storefrnt\n",
        1,
    );
    assert_ne!(misspelt, text, "the selector is where the test expects it");
    write(&path, &misspelt);
}

fn normalized(text: &str, repo: &Path) -> String {
    text.replace(&repo.to_string_lossy().into_owned(), "[REPO]")
}

#[test]
fn a_misspelt_selector_that_makes_an_application_vanish_is_refused_until_allowed() {
    let dir = temp();
    let (repo, out) = rendered_fleet(dir.path());
    let before = read_tree(&out);
    misspell_the_selector(&repo);

    let refused = render_to(&repo, &out, &["--color", "never"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert_eq!(read_tree(&out), before, "the previous render is untouched");
    insta::assert_snapshot!(normalized(&stderr(&refused), &repo));

    let (repo_arg, out_arg) = (repo.to_string_lossy(), out.to_string_lossy());
    let warned = |command: &str| {
        let output = run(&[
            command,
            "--repo",
            &repo_arg,
            "--out",
            &out_arg,
            "--diagnostics",
            "concise",
        ]);
        let warning = stderr(&output)
            .lines()
            .find(|l| l.contains("[G0604]"))
            .map(str::to_string)
            .unwrap_or_default();
        (output.status.code(), warning)
    };
    let (diff, warning) = warned("diff");
    assert_eq!(diff, Some(0));
    assert!(
        warning.starts_with("apps/storefront.yaml:6:1: warning[G0604]: `Deployment/shop/storefront` would vanish: the previous render delivered it to 8 cluster(s) ("),
        "{warning}"
    );
    let (check, warning) = warned("check");
    assert_eq!(check, Some(1), "stale");
    assert!(warning.contains("warning[G0604]"), "{warning}");
    assert_eq!(read_tree(&out), before, "diff and check write nothing");

    write(
        &repo.join("garrison.yaml"),
        "allowVanish: [Deployment/shop/storefront]\n",
    );
    let listed = render_to(&repo, &dir.path().join("listed"), &["-q"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let listed = render_to(&repo, &out, &["-q"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let tree = read_tree(&out);
    assert!(
        !tree
            .keys()
            .any(|p| p.contains("deployment.apps_storefront")),
        "the storefront is gone"
    );
    assert!(
        tree.keys().any(|p| p.contains("service_storefront")),
        "its Service, still selected, stays"
    );
}

#[test]
fn allow_vanish_lets_one_render_through() {
    let dir = temp();
    let (repo, out) = rendered_fleet(dir.path());
    misspell_the_selector(&repo);
    let allowed = render_to(&repo, &out, &["-q", "--allow-vanish"]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert!(!read_tree(&out)
        .keys()
        .any(|p| p.contains("deployment.apps_storefront")));
}

#[test]
fn deleting_the_template_or_its_policy_is_a_removal() {
    let dir = temp();
    let (repo, out) = rendered_fleet(dir.path());
    let policies = repo.join("policies/propagation.yaml");
    let text = read(&policies);
    let (storefront, others) = text
        .split_once("---\n")
        .unwrap_or_else(|| panic!("the storefront policy comes first"));
    assert!(storefront.contains("name: storefront"), "{storefront}");
    write(&policies, others);
    let output = render_to(&repo, &out, &["-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!read_tree(&out).keys().any(|p| p.contains("storefront")));

    let dir = temp();
    let (repo, out) = rendered_fleet(dir.path());
    let apps = repo.join("apps/storefront.yaml");
    let text = read(&apps);
    let without: Vec<&str> = text
        .split("---\n")
        .filter(|doc| !doc.contains("kind: Deployment"))
        .collect();
    write(&apps, &without.join("---\n"));
    let output = render_to(&repo, &out, &["-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!read_tree(&out)
        .keys()
        .any(|p| p.contains("deployment.apps_storefront")));
}

#[test]
fn a_paused_cluster_keeps_the_application_so_it_does_not_vanish() {
    let dir = temp();
    let (repo, out) = rendered_fleet(dir.path());
    let cluster = repo.join("clusters/eu-west-1a.yaml");
    let text = read(&cluster);
    let paused = text.replacen(
        "metadata:\n",
        "metadata:\n  annotations:\n    garrison.dev/sync-paused: \"true\"\n",
        1,
    );
    assert_ne!(paused, text);
    write(&cluster, &paused);
    misspell_the_selector(&repo);
    let output = render_to(&repo, &out, &["-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let tree = read_tree(&out);
    let kept: Vec<&String> = tree
        .keys()
        .filter(|p| p.contains("deployment.apps_storefront"))
        .collect();
    assert_eq!(
        kept,
        ["clusters/eu-west-1a/shop/deployment.apps_storefront.yaml"],
        "frozen on the paused cluster, pruned from the others"
    );
}

#[test]
fn a_vanishing_application_is_refused_on_a_branch_and_when_merging_shards() {
    let dir = temp();
    let repo = dir.path().join("repo");
    copy_dir(&testdata().join("fleet/repo"), &repo);
    git(&repo, &["init", "-q", "-b", "main"]);
    commit_all(&repo, "fleet");
    let repo_arg = repo.to_string_lossy().into_owned();
    let branch = |extra: &[&str]| {
        let mut args = vec!["render", "--repo", &repo_arg, "--branch", "rendered", "-q"];
        args.extend_from_slice(extra);
        run(&args)
    };
    let first = branch(&[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let tip = git(&repo, &["rev-parse", "rendered"]);
    let out = dir.path().join("out");
    let base = render_to(&repo, &out, &["-q"]);
    assert!(base.status.success(), "{}", stderr(&base));
    let before = read_tree(&out);
    misspell_the_selector(&repo);
    commit_all(&repo, "misspell the storefront selector");
    let refused = branch(&["--diagnostics", "concise"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("error[G0604]"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(git(&repo, &["rev-parse", "rendered"]), tip, "no commit");

    // Shards each render their clusters; the merge judges the whole.
    let mut shards = Vec::new();
    for k in 1..=2 {
        let shard = dir.path().join(format!("shard-{k}"));
        let output = render_to(
            &repo,
            &out,
            &[
                "-q",
                "--shard",
                &format!("{k}/2"),
                "--shard-dir",
                &shard.to_string_lossy(),
            ],
        );
        assert!(output.status.success(), "{}", stderr(&output));
        shards.push(shard.to_string_lossy().into_owned());
    }
    let merge = |extra: &[&str]| {
        let mut args = vec!["--diagnostics", "concise", "--merge-shards"];
        args.extend(shards.iter().map(String::as_str));
        args.extend_from_slice(extra);
        render_to(&repo, &out, &args)
    };
    let refused = merge(&[]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("error[G0604]"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(read_tree(&out), before, "nothing is written");
    let allowed = merge(&["--allow-vanish"]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
}

#[test]
fn a_misspelt_group_let_through_by_relax_still_cannot_make_the_storefront_vanish() {
    let dir = temp();
    let (repo, out) = rendered_fleet(dir.path());
    let before = read_tree(&out);
    let path = repo.join("apps/storefront.yaml");
    let text = read(&path);
    write(
        &path,
        &text.replacen("apiVersion: apps/v1\n", "apiVersion: app/v1\n", 1),
    );

    // The misspelt group alone is G0112, with the group meant.
    let refused = render_to(&repo, &out, &["--diagnostics", "concise"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).starts_with("apps/storefront.yaml:6:13: error[G0112]: `Deployment/shop/storefront`: no API group `app` is served"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(read_tree(&out), before);

    // Relaxed, it is rendered as a kind without a schema that no policy
    // claims: the same application, under another apiVersion, vanishing.
    write(
        &repo.join("garrison.yaml"),
        "relax:\n- check: unknown-kind\n  paths: [apps/storefront.yaml]\n",
    );
    let refused = render_to(&repo, &out, &["--diagnostics", "concise"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    let vanishing = stderr(&refused)
        .lines()
        .find(|l| l.contains("error[G0604]"))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(
        vanishing.contains("nothing claims it now, though PropagationPolicy/shop/storefront is still there (it was `apps/v1`, it is `app/v1` now)"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(read_tree(&out), before, "the previous render is untouched");
}
