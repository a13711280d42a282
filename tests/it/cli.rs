//! CLI transcripts: exit code, stdout and stderr of the real binary.

use crate::support::{render_to, run, stderr, stdout, testdata};

#[test]
fn help_lists_the_commands() {
    let output = run(&["--help"]);
    assert!(output.status.success());
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn a_missing_repository_is_an_error_with_exit_2() {
    let dir = crate::support::temp();
    let missing = dir.path().join("nope");
    let out = dir.path().join("out");
    let output = render_to(&missing, &out, &["--diagnostics", "concise"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(!out.exists(), "nothing may be written on error");
    let text = stderr(&output).replace(&missing.to_string_lossy().into_owned(), "[REPO]");
    insta::assert_snapshot!(text);
}

#[test]
fn validate_reports_counts() {
    let repo = testdata().join("duplicated/repo");
    let output = run(&["validate", "--repo", &repo.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn verbose_render_lists_where_every_application_goes() {
    let dir = crate::support::temp();
    let repo = testdata().join("fort-seed/repo");
    let out = dir.path().join("out");
    let output = render_to(&repo, &out, &["--verbose"]);
    assert!(output.status.success(), "{}", stderr(&output));
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn warnings_from_loading_are_counted_in_the_summary() {
    let dir = crate::support::temp();
    let repo = testdata().join("bad-input/ok-runtime-only-fields/repo");
    let out = dir.path().join("out");
    let output = render_to(&repo, &out, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains(" 2 warning(s)"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn completions_and_man_page_come_from_the_command_line_definitions() {
    let bash = run(&["completions", "bash"]);
    assert!(bash.status.success());
    let script = stdout(&bash);
    assert!(
        script.contains("_garrison()") && script.contains("--merge-shards"),
        "{script}"
    );
    let man = run(&["man"]);
    assert!(man.status.success());
    let page = stdout(&man);
    assert!(
        page.starts_with(".ie") && page.contains(".TH garrison 1"),
        "{page}"
    );
}

#[test]
fn a_missing_or_wrong_repository_fails_every_command_the_same_way() {
    let dir = crate::support::temp();
    let file = dir.path().join("file.yaml");
    if let Err(e) = std::fs::write(&file, "kind: ConfigMap\n") {
        panic!("{e}");
    }
    let mut transcript = String::new();
    for repo in [dir.path().join("nope"), file] {
        let repo = repo.to_string_lossy().into_owned();
        for args in [
            &["render", "--branch", "rendered"][..],
            &["diff", "--out", "out"],
            &["check", "--branch", "rendered"],
            &["explain", "Deployment/apps/web"],
            &["report", "--out", "out", "--html", "report.html"],
            &["validate"],
        ] {
            let mut full = args.to_vec();
            full.extend(["--repo", &repo, "--diagnostics", "concise"]);
            let output = run(&full);
            assert_eq!(output.status.code(), Some(2), "{full:?}");
            transcript.push_str(&format!(
                "$ garrison {} --repo [REPO]\n{}",
                args.join(" "),
                stderr(&output).replace(&repo, "[REPO]")
            ));
        }
    }
    assert!(!dir.path().join("out").exists());
    insta::assert_snapshot!(transcript);
}

#[test]
fn strict_refuses_a_render_with_a_warning_and_writes_nothing() {
    use crate::fleet::{clusters, deployment, policy, Fleet, DUPLICATED};
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a"]));
    fleet.write("app.yaml", &deployment("web", 1, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    fleet.render();
    let before = crate::support::read_tree(fleet.out());
    fleet.write("app.yaml", &deployment("web", 1, "v2"));
    // A policy for nothing: warning G0201.
    fleet.write("ghost.yaml", &policy("ghost", DUPLICATED, &[], ""));

    let refused = fleet.try_render(&["--strict"]);
    assert_eq!(refused.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&refused), @r"
    ghost.yaml:8:5: error[G0201]: PropagationPolicy/apps/ghost matches no template (help: check apiVersion, kind, namespace, name and labels of its resource selectors; a warning, refused because of `--strict`)
    garrison: 1 error(s), 0 warning(s); nothing was written
    ");
    assert_eq!(
        crate::support::read_tree(fleet.out()),
        before,
        "nothing is written"
    );

    // The same for every command that loads the source, and from the environment.
    let repo = fleet.repo.to_string_lossy().into_owned();
    let out = fleet.out().to_string_lossy().into_owned();
    for (args, lenient) in [
        (&["validate", "--repo", &repo][..], 0),
        (&["diff", "--repo", &repo, "--out", &out], 0),
        (&["check", "--repo", &repo, "--out", &out], 1),
        (
            &[
                "explain",
                "--repo",
                &repo,
                "--out",
                &out,
                "Deployment/apps/web",
            ],
            0,
        ),
    ] {
        assert_eq!(run(args).status.code(), Some(lenient), "{args:?}");
        let mut strict = vec!["--strict"];
        strict.extend_from_slice(args);
        let output = run(&strict);
        assert_eq!(output.status.code(), Some(2), "{strict:?}");
        assert!(
            stderr(&output).contains("error[G0201]"),
            "{}",
            stderr(&output)
        );
        let from_env = crate::support::garrison()
            .env("GARRISON_STRICT", "1")
            .args(args)
            .output();
        assert!(
            matches!(&from_env, Ok(o) if o.status.code() == Some(2)),
            "GARRISON_STRICT=1 {args:?}: {from_env:?}"
        );
    }
    assert_eq!(crate::support::read_tree(fleet.out()), before);

    let lenient = fleet.render();
    assert!(
        lenient.stdout.contains("1 warning(s)"),
        "{}",
        lenient.stdout
    );
    assert_ne!(
        lenient.tree, before,
        "without --strict the change is rendered"
    );
}

/// `explain` makes only the objects of the application it explains: a
/// fault that stops a render in another application does not hide this
/// one's decisions, and is reported when that application is explained.
#[test]
fn explain_makes_only_the_explained_application() {
    let dir = crate::support::temp();
    let repo = dir.path().join("repo");
    crate::support::copy_dir(&testdata().join("overrides/repo"), &repo);
    let broken = "---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata:
  name: drop-missing-key
  namespace: shop
spec:
  resourceSelectors:
  - apiVersion: v1
    kind: ConfigMap
    name: web-config
  overrideRules:
  - overriders:
      plaintext:
      - path: /data/missing.yaml
        operator: remove
";
    let overrides = repo.join("overrides.yaml");
    let mut text = std::fs::read_to_string(&overrides).unwrap_or_default();
    text.push_str(broken);
    std::fs::write(&overrides, text).unwrap_or_else(|e| panic!("{e}"));
    let repo = repo.to_string_lossy().into_owned();
    let args = ["--diagnostics", "concise", "--repo", &repo];

    let out = dir.path().join("out");
    let render = render_to(
        std::path::Path::new(&repo),
        &out,
        &["--diagnostics", "concise"],
    );
    assert_eq!(render.status.code(), Some(2));
    assert!(
        stderr(&render).contains("error[G0301]"),
        "{}",
        stderr(&render)
    );

    let web = run(&[&["explain"][..], &args, &["Deployment/shop/web"]].concat());
    assert_eq!(web.status.code(), Some(0), "{}", stderr(&web));
    assert!(
        stdout(&web).contains("overrides, in the order applied:"),
        "{}",
        stdout(&web)
    );
    assert_eq!(stderr(&web), "");

    let config = run(&[&["explain"][..], &args, &["ConfigMap/shop/web-config"]].concat());
    assert_eq!(config.status.code(), Some(2));
    assert_eq!(stdout(&config), "");
    insta::assert_snapshot!(stderr(&config), @r"
    overrides.yaml:150:15: error[G0301]: OverridePolicy/shop/drop-missing-key rule 0 cannot be applied to `ConfigMap/shop/web-config` for cluster `eu-1`: cannot `remove` `/data/missing.yaml`: path does not exist (help: fix the path or operator; `replace` and `remove` need an existing path, `add` an existing parent)
    overrides.yaml:150:15: error[G0301]: OverridePolicy/shop/drop-missing-key rule 0 cannot be applied to `ConfigMap/shop/web-config` for cluster `eu-2`: cannot `remove` `/data/missing.yaml`: path does not exist (help: fix the path or operator; `replace` and `remove` need an existing path, `add` an existing parent)
    overrides.yaml:150:15: error[G0301]: OverridePolicy/shop/drop-missing-key rule 0 cannot be applied to `ConfigMap/shop/web-config` for cluster `us-1`: cannot `remove` `/data/missing.yaml`: path does not exist (help: fix the path or operator; `replace` and `remove` need an existing path, `add` an existing parent)
    garrison: 3 error(s), 0 warning(s); nothing was written
    ");
}

/// `explain` says which ClusterTaintPolicy put the taint that keeps a
/// cluster out, and which clusters a workload reached through an overflow
/// group.
#[test]
fn explain_names_the_taint_policy_and_the_overflow_group() {
    let repo = testdata().join("taint-policy/repo");
    let repo = repo.to_string_lossy();
    let web = run(&["explain", "--repo", &repo, "Deployment/shop/web"]);
    assert!(web.status.success(), "{}", stderr(&web));
    assert!(
        stdout(&web).contains("down: has taint `cluster.example.io/not-ready:NoSchedule` (added by ClusterTaintPolicy `health`) that the placement does not tolerate"),
        "{}",
        stdout(&web)
    );
    let repo = testdata().join("overflow/repo");
    let repo = repo.to_string_lossy();
    let web = run(&["explain", "--repo", &repo, "Deployment/shop/web"]);
    assert!(web.status.success(), "{}", stderr(&web));
    let text = stdout(&web);
    assert!(
        text.contains("onprem-a: selected (affinity group `onprem`)\n"),
        "{text}"
    );
    assert!(
        text.contains("cloud-c: selected (affinity group `onprem`), overflow group 1"),
        "{text}"
    );
    assert!(
        text.contains("burst-e: does not match the cluster affinity (affinity group `onprem`)"),
        "{text}"
    );
}
