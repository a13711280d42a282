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
fn validate_counts_clusternet_inputs_when_there_are_any() {
    let mut lines = Vec::new();
    for case in ["duplicated", "clusternet", "clusternet-mixed"] {
        let repo = testdata().join(case).join("repo");
        let output = run(&["validate", "--repo", &repo.to_string_lossy()]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        lines.push(format!("{case}: {}", stdout(&output)));
        let json = run(&["validate", "--json", "--repo", &repo.to_string_lossy()]);
        let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap_or_default();
        let counts: Vec<String> = ["subscriptions", "localizations", "globalizations"]
            .iter()
            .map(|key| format!("{key}={}", report[key]))
            .collect();
        lines.push(format!("{case} --json: {}\n", counts.join(" ")));
    }
    insta::assert_snapshot!(lines.concat(), @"
    duplicated: 3 templates, 1 propagation policies, 0 override policies, 3 clusters: valid (0 warning(s))
    duplicated --json: subscriptions=0 localizations=0 globalizations=0
    clusternet: 6 templates, 0 propagation policies, 0 override policies, 2 subscriptions, 1 localizations, 3 globalizations, 4 clusters: valid (0 warning(s))
    clusternet --json: subscriptions=2 localizations=1 globalizations=3
    clusternet-mixed: 3 templates, 1 propagation policies, 1 override policies, 1 subscriptions, 1 localizations, 0 globalizations, 4 clusters: valid (0 warning(s))
    clusternet-mixed --json: subscriptions=1 localizations=1 globalizations=0
    ");
}

/// A directory of many fleets has hundreds of errors of a few codes: ten
/// of each are shown, the rest counted, and the fleets side by side named.
#[test]
fn validate_shows_ten_diagnostics_per_code_and_names_the_fleets_it_holds() {
    let dir = crate::support::temp();
    let root = dir.path();
    for fleet in ["eu", "us"] {
        let fleet = root.join(fleet);
        crate::support::write(
            &fleet.join("garrison.yaml"),
            "kubernetesVersion: \"1.36\"\n",
        );
        crate::support::write(
            &fleet.join("clusters.yaml"),
            &crate::fleet::clusters(&["a"]),
        );
        let apps: Vec<String> = (0..8)
            .map(|n| {
                format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-{n}\ndata: {{}}\n")
            })
            .collect();
        crate::support::write(&fleet.join("apps.yaml"), &apps.join("---\n"));
    }
    let output = run(&[
        "validate",
        "--diagnostics",
        "concise",
        "--no-cache",
        "--repo",
        &root.to_string_lossy(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output).replace(&root.display().to_string(), "[DIR]");
    assert_eq!(text.matches("error[G0110]").count(), 10, "{text}");
    let tail: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("garrison:"))
        .collect();
    insta::assert_snapshot!(tail.join("\n"), @"
    garrison: and 6 more G0110 (missing-namespace), not shown; --json or --diagnostics github lists every one
    garrison: 19 error(s), 0 warning(s); nothing was written
    garrison: hint: `[DIR]` holds 2 garrison.yaml files; if it holds several fleets, validate each with its own --repo (--repo [DIR]/eu, --repo [DIR]/us)
    ");
    let json = run(&[
        "validate",
        "--json",
        "--no-cache",
        "--repo",
        &root.to_string_lossy(),
    ]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap_or_default();
    assert_eq!(
        report["errors"],
        16 + 2 + 1,
        "--json lists every one: {report}"
    );
}

/// `completions` and `man` print a fixed text: their help, man page and
/// completions list no global flag, which would do nothing there, while
/// still accepting one.
#[test]
fn completions_and_man_list_only_flags_that_act_there() {
    for command in ["completions", "man"] {
        let help = stdout(&run(&[command, "--help"]));
        let page = stdout(&run(&["man", command]));
        for flag in [
            "--color",
            "--diagnostics",
            "--json",
            "--progress",
            "--strict",
        ] {
            assert!(
                !help.contains(flag),
                "{command} --help lists {flag}:\n{help}"
            );
            assert!(
                !page.contains(&flag.replace('-', "\\-")),
                "garrison-{command}(1) lists {flag}"
            );
        }
        assert!(help.contains("--help"), "{help}");
    }
    let render = stdout(&run(&["render", "--help"]));
    assert!(
        render.contains("--json") && render.contains("--strict"),
        "{render}"
    );
    let script = run(&["completions", "bash", "--color", "never"]);
    assert!(script.status.success(), "{}", stderr(&script));
    let script = stdout(&script);
    assert!(
        script.contains("--allow-dirty"),
        "render's flags are completed"
    );
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

/// A multi-line value is written as a literal block, so changing one line of
/// a large dashboard changes one line of the rendered file: `diff` shows a
/// hunk with one `-` and one `+` line and its context, for each cluster.
#[test]
fn diff_of_a_one_line_change_in_a_multi_line_value_is_one_line() {
    use crate::fleet::{clusters, Fleet};
    let dashboard = |title: &str| -> String {
        let mut text = String::from("{\n");
        for i in 0..200 {
            if i == 100 {
                text.push_str(&format!("  \"title\": \"{title}\",\n"));
            }
            text.push_str(&format!(
                "  \"panel{i}\": {{\"type\": \"graph\", \"span\": 4}},\n"
            ));
        }
        text.push_str("  \"version\": 1\n}\n");
        text
    };
    let config_map = |title: &str| -> String {
        let body: String = dashboard(title)
            .lines()
            .map(|line| format!("    {line}\n"))
            .collect();
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dashboards\n  namespace: apps\ndata:\n  fleet.json: |\n{body}")
    };
    let policy = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: dashboards\n  namespace: apps\nspec:\n  resourceSelectors:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: dashboards\n  placement:\n    replicaScheduling:\n      replicaSchedulingType: Duplicated\n";
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a", "b"]));
    fleet.write("policy.yaml", policy);
    fleet.write("dashboards.yaml", &config_map("Fleet"));
    let render = fleet.render();
    let file = "clusters/a/apps/configmap_dashboards.yaml";
    let written = render.file(file);
    assert!(
        written.contains("  fleet.json: |\n    {\n      \"panel0\":"),
        "{file}:\n{written}"
    );

    fleet.write("dashboards.yaml", &config_map("Fleet overview"));
    let (repo, out) = (fleet.repo.to_string_lossy(), fleet.out().to_string_lossy());
    let diff = run(&["diff", "--repo", &repo, "--out", &out]);
    assert_eq!(diff.status.code(), Some(0), "{}", stderr(&diff));
    let text = stdout(&diff);
    for cluster in ["a", "b"] {
        let header = format!("+++ b/clusters/{cluster}/apps/configmap_dashboards.yaml\n");
        let Some(start) = text.find(&header) else {
            panic!("no diff of {cluster}'s ConfigMap:\n{text}");
        };
        let hunk: Vec<&str> = text[start + header.len()..]
            .lines()
            .take_while(|line| !line.starts_with("--- "))
            .collect();
        let changed: Vec<&str> = hunk
            .iter()
            .copied()
            .filter(|line| line.starts_with(['-', '+']))
            .collect();
        assert_eq!(
            changed,
            [
                "-      \"title\": \"Fleet\",",
                "+      \"title\": \"Fleet overview\","
            ],
            "{cluster}:\n{}",
            hunk.join("\n")
        );
        // One hunk: its header, three lines of context, the change, three more.
        assert_eq!(
            hunk.iter().filter(|line| line.starts_with("@@")).count(),
            1,
            "{}",
            hunk.join("\n")
        );
        assert_eq!(hunk.len(), 9, "{}", hunk.join("\n"));
    }
}

/// The last line of a summary counts the objects by what happened to them,
/// as the table does; `diff` and `check` write nothing, so they say what a
/// render would do, never "rendered".
#[test]
fn summaries_count_objects_by_what_happened_and_previews_say_would() {
    let dir = crate::support::temp();
    let repo = dir.path().join("repo");
    crate::support::copy_dir(&testdata().join("fleet/repo"), &repo);
    let out = dir.path().join("out");
    let (repo_arg, out_arg) = (
        repo.to_string_lossy().into_owned(),
        out.to_string_lossy().into_owned(),
    );
    let mut transcript = String::new();
    let mut step = |args: &[&str], code: i32| {
        let output = run(&[args, &["--repo", &repo_arg, "--out", &out_arg]].concat());
        assert_eq!(
            output.status.code(),
            Some(code),
            "{args:?}: {}",
            stderr(&output)
        );
        let text = stdout(&output);
        if args[0] != "render" {
            assert!(
                !text.contains("rendered"),
                "{args:?} writes nothing:\n{text}"
            );
        }
        let last = text
            .lines()
            .filter(|l| l.contains(" clusters, "))
            .collect::<Vec<_>>()
            .join("\n");
        transcript.push_str(&format!("$ garrison {}\n{last}\n", args.join(" ")));
    };
    step(&["render"], 0);
    let storefront = repo.join("apps/storefront.yaml");
    let text = std::fs::read_to_string(&storefront).unwrap_or_default();
    let text = text.replace("storefront:3.4.1", "storefront:3.5.0");
    std::fs::write(&storefront, text).unwrap_or_else(|e| panic!("{e}"));
    step(&["diff"], 0);
    step(&["check"], 1);
    step(&["render"], 0);
    step(&["diff"], 0);
    step(&["render"], 0);
    insta::assert_snapshot!(transcript, @r"
    $ garrison render
    rendered: 12 clusters, 80 objects added, 0 changed, 0 removed, 0 warning(s), 0 template(s) claimed by no policy
    $ garrison diff
    would change: 12 clusters, 0 objects to add, 8 to change, 0 to remove, 0 warning(s), 0 template(s) claimed by no policy
    $ garrison check
    would change: 12 clusters, 0 objects to add, 8 to change, 0 to remove, 0 warning(s), 0 template(s) claimed by no policy
    $ garrison render
    rendered: 12 clusters, 0 objects added, 8 changed, 0 removed, 0 warning(s), 0 template(s) claimed by no policy
    $ garrison diff
    no changes: 12 clusters, 0 objects to add, 0 to change, 0 to remove, 0 warning(s), 0 template(s) claimed by no policy
    $ garrison render
    no changes: 12 clusters, 0 objects added, 0 changed, 0 removed, 0 warning(s), 0 template(s) claimed by no policy
    ");
}

/// `render --verbose` shows the holds: which held cluster keeps an
/// application frozen (`(held)`, `pause.rs` tests that), and which one a
/// hold keeps an application from, with what it would get: every object
/// the summary counts as held back.
#[test]
fn verbose_render_shows_what_the_holds_keep_back() {
    let dir = crate::support::temp();
    let repo = testdata().join("fleet/repo");
    let output = render_to(&repo, &dir.path().join("out"), &["--verbose"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("held back on us-west-2: 10 to add, 0 to change, 0 to remove\n"),
        "{text}"
    );
    let held: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" → ") && l.contains("; held back on us-west-2"))
        .collect();
    assert_eq!(held.len(), 10, "{text}");
    assert!(
        held.iter()
            .any(|l| l.starts_with("Deployment/shop/storefront → ")
                && l.ends_with("; held back on us-west-2×2")),
        "{text}"
    );
}

/// `explain` takes the forms kubectl users type, and when nothing matches
/// names the applications most likely meant, with exit code 2.
#[test]
fn explain_takes_the_forms_kubectl_users_type() {
    let repo = testdata().join("fleet/repo");
    let repo = repo.to_string_lossy();
    let explain = |args: &[&str]| run(&[&["explain", "--repo", &repo][..], args].concat());
    for (args, first) in [
        (
            &["Deployment/shop/storefront"][..],
            "Deployment/shop/storefront (apps/v1)",
        ),
        (
            &["deploy/storefront", "-n", "shop"],
            "Deployment/shop/storefront (apps/v1)",
        ),
        (
            &["Deployment.apps/shop/storefront"],
            "Deployment/shop/storefront (apps/v1)",
        ),
        (
            &["deployment/storefront", "--namespace", "shop"],
            "Deployment/shop/storefront (apps/v1)",
        ),
        (
            &["deployments.v1.apps", "storefront", "-n", "shop"],
            "Deployment/shop/storefront (apps/v1)",
        ),
        (
            &["svc/storefront", "-n", "shop"],
            "Service/shop/storefront (v1)",
        ),
        (
            &["cm/storefront-config", "-n", "shop"],
            "ConfigMap/shop/storefront-config (v1)",
        ),
        (
            &["sa/storefront", "-n", "shop"],
            "ServiceAccount/shop/storefront (v1)",
        ),
        (
            &["ds/node-exporter", "-n", "monitoring"],
            "DaemonSet/monitoring/node-exporter (apps/v1)",
        ),
        (&["ns/shop"], "Namespace/shop (v1)"),
        (
            &["clusterrole/fleet:node-reader"],
            "ClusterRole/fleet:node-reader (rbac.authorization.k8s.io/v1)",
        ),
        (
            &["crd/rollouts.rollouts.kruise.io"],
            "CustomResourceDefinition/rollouts.rollouts.kruise.io (apiextensions.k8s.io/v1)",
        ),
    ] {
        let output = explain(args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output).lines().next(), Some(first), "{args:?}");
    }
    let mut transcript = String::new();
    for args in [
        &["deploy/storefront"][..],
        &["deploy/storefrnt", "-n", "shop"],
        &["sts/storefront", "-n", "shop"],
        &["Deployment/shop/checkout"],
        &["deploy/shop/storefront", "-n", "monitoring"],
        &["storefront"],
    ] {
        let output = explain(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&output), "", "{args:?}");
        transcript.push_str(&format!(
            "$ garrison explain {}\n{}",
            args.join(" "),
            stderr(&output)
        ));
    }
    insta::assert_snapshot!(transcript, @r"
    $ garrison explain deploy/storefront
    garrison: error: no application `deploy/storefront` (cluster-scoped, or in namespace `default`); did you mean `Deployment/shop/storefront`?
    $ garrison explain deploy/storefrnt -n shop
    garrison: error: no application `deploy/storefrnt` in namespace `shop`; did you mean `Deployment/shop/storefront`?
    $ garrison explain sts/storefront -n shop
    garrison: error: no application `sts/storefront` in namespace `shop`; did you mean one of `Deployment/shop/storefront`, `Service/shop/storefront`, `ServiceAccount/shop/storefront`?
    $ garrison explain Deployment/shop/checkout
    garrison: error: no application `Deployment/shop/checkout`; write KIND/NAMESPACE/NAME, KIND/NAME with --namespace, or KIND/NAME for a cluster-scoped one
    $ garrison explain deploy/shop/storefront -n monitoring
    garrison: error: `deploy/shop/storefront` names namespace `shop`, but --namespace says `monitoring`
    $ garrison explain storefront
    garrison: error: `storefront` names no application; write KIND/NAMESPACE/NAME, KIND/NAME with --namespace, or KIND/NAME for a cluster-scoped one
    ");
}

/// The `schedule:` line of `explain` says how the schedule came about
/// without repeating itself ("schedule: scheduled: …").
#[test]
fn explain_says_how_the_schedule_came_about_once() {
    let dir = crate::support::temp();
    let repo = testdata().join("fleet/repo");
    let out = dir.path().join("out");
    let (repo_arg, out_arg) = (repo.to_string_lossy(), out.to_string_lossy());
    let mut lines = Vec::new();
    for stored in [false, true] {
        if stored {
            let output = render_to(&repo, &out, &["-q"]);
            assert!(output.status.success(), "{}", stderr(&output));
        }
        for app in [
            "Deployment/shop/storefront",
            "DaemonSet/monitoring/node-exporter",
            "ConfigMap/shop/storefront-config",
            "Namespace/shop",
        ] {
            let mut args = vec!["explain", "--repo", &repo_arg, app];
            if stored {
                args.extend(["--out", &out_arg]);
            }
            let output = run(&args);
            assert!(output.status.success(), "{}", stderr(&output));
            let text = stdout(&output);
            let line = text.lines().find(|l| l.starts_with("schedule: "));
            lines.push(format!("{app}: {}", line.unwrap_or("(none)")));
        }
    }
    insta::assert_snapshot!(lines.join("\n"), @r"
    Deployment/shop/storefront: schedule: made now — first schedule
    DaemonSet/monitoring/node-exporter: schedule: made now — first schedule
    ConfigMap/shop/storefront-config: schedule: made now — follows the workloads that reference it (propagateDeps)
    Namespace/shop: schedule: made now — Namespaces go to every cluster
    Deployment/shop/storefront: schedule: kept from the previous render
    DaemonSet/monitoring/node-exporter: schedule: made now — Duplicated: re-evaluated on every render
    ConfigMap/shop/storefront-config: schedule: made now — follows the workloads that reference it (propagateDeps)
    Namespace/shop: schedule: made now — Namespaces go to every cluster
    ");
}

/// Every page `garrison man` lists can be printed with `garrison man
/// COMMAND`, and every page says what its exit codes mean.
#[test]
fn man_pages_list_only_pages_garrison_prints_and_give_the_exit_status() {
    let main = run(&["man"]);
    assert!(main.status.success(), "{}", stderr(&main));
    let page = stdout(&main);
    let listed: Vec<&str> = page
        .lines()
        .filter_map(|l| l.strip_prefix("garrison\\-")?.strip_suffix("(1)"))
        .collect();
    assert_eq!(
        listed,
        [
            "render",
            "diff",
            "check",
            "explain",
            "report",
            "manifests",
            "import",
            "verify",
            "validate",
            "completions",
            "man"
        ],
        "{page}"
    );
    for page in std::iter::once(page.clone()).chain(listed.iter().map(|command| {
        let output = run(&["man", command]);
        assert!(output.status.success(), "{command}: {}", stderr(&output));
        let text = stdout(&output);
        assert!(
            text.contains(&format!(".TH garrison-{command} 1 ")),
            "{command}:\n{text}"
        );
        text
    })) {
        let status = page
            .split(".SH \"EXIT STATUS\"\n")
            .nth(1)
            .unwrap_or_else(|| panic!("no EXIT STATUS section:\n{page}"));
        assert!(status.starts_with(".TP\n0\n"), "{status}");
        assert!(
            status.contains("Invalid command\\-line arguments also exit 2."),
            "{status}"
        );
    }
    let check = stdout(&run(&["man", "check"]));
    assert!(
        check.contains(".TP\n1\nThe stored render is stale.\n"),
        "{check}"
    );
    let missing = run(&["man", "nope"]);
    assert_eq!(missing.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&missing), @"garrison: error: no command `nope`; name one of render, diff, check, explain, report, manifests, import, verify, validate, completions, man");
}

/// The help of every command speaks of paths an installed binary can
/// have, not of the source tree's `testdata/`.
#[test]
fn help_names_no_path_of_the_source_tree() {
    let commands = [
        "render",
        "diff",
        "check",
        "explain",
        "report",
        "import",
        "verify",
        "validate",
        "completions",
        "man",
    ];
    for args in std::iter::once(vec!["--help"]).chain(commands.iter().map(|c| vec![*c, "--help"])) {
        let output = run(&args);
        assert!(output.status.success(), "{args:?}");
        assert!(
            !stdout(&output).contains("testdata"),
            "{args:?}:\n{}",
            stdout(&output)
        );
    }
    let man = stdout(&run(&["man"]));
    assert!(!man.contains("testdata"), "{man}");
}

/// `--version` names the commit garrison was built from, when it was built
/// from a git checkout of its own (as the test suite is).
#[test]
fn the_version_names_the_commit_it_was_built_from() {
    let root = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let top = git(&["rev-parse", "--show-toplevel"]).map(std::path::PathBuf::from);
    let ours =
        top.and_then(|t| t.canonicalize().ok()) == std::path::Path::new(root).canonicalize().ok();
    let version = stdout(&run(&["--version"]));
    let expected = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(commit) if ours => format!("garrison {} ({commit})\n", env!("CARGO_PKG_VERSION")),
        _ => format!("garrison {}\n", env!("CARGO_PKG_VERSION")),
    };
    assert_eq!(version, expected);
}

/// Out of a git checkout, the build script takes the commit `cargo
/// package` recorded (a crates.io tarball), or names none: it is run as
/// cargo runs it, on a copy of the package's manifests.
#[test]
fn the_version_falls_back_to_the_packaged_commit_or_to_none() {
    let target = std::path::Path::new(env!("CARGO_BIN_EXE_garrison"))
        .parent()
        .map(|d| d.join("build"))
        .unwrap_or_default();
    let script = std::fs::read_dir(&target)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("garrison-"))
        .map(|e| e.path().join("build-script-build"))
        .filter(|p| p.is_file())
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok());
    let Some(script) = script else {
        panic!("no build script under {}", target.display());
    };
    let dir = crate::support::temp();
    let package = dir.path().join("garrison-0.1.0");
    std::fs::create_dir_all(package.join("src")).unwrap_or_else(|e| panic!("{e}"));
    for file in ["Cargo.toml", "Cargo.lock"] {
        let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        std::fs::copy(from, package.join(file)).unwrap_or_else(|e| panic!("{e}"));
    }
    let version = || {
        let output = std::process::Command::new(&script)
            .env("CARGO_MANIFEST_DIR", &package)
            .env("CARGO_PKG_VERSION", "0.1.0")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
            .lines()
            .find_map(|l| l.strip_prefix("cargo:rustc-env=GARRISON_VERSION="))
            .map(str::to_string)
    };
    assert_eq!(version().as_deref(), Some("0.1.0"), "no git, no record");
    let vcs = "{\n  \"git\": {\n    \"sha1\": \"0123456789abcdef0123456789abcdef01234567\"\n  },\n  \"path_in_vcs\": \"\"\n}\n";
    std::fs::write(package.join(".cargo_vcs_info.json"), vcs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        version().as_deref(),
        Some("0.1.0 (0123456789ab)"),
        "a crates.io tarball"
    );
    // Unpacked inside another project's git repository: not garrison's commit.
    crate::support::git(dir.path(), &["init", "-q"]);
    assert_eq!(
        version().as_deref(),
        Some("0.1.0 (0123456789ab)"),
        "another repository"
    );
    std::fs::remove_file(package.join(".cargo_vcs_info.json")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        version().as_deref(),
        Some("0.1.0"),
        "another repository, no record"
    );
}

/// GitHub places an annotation by its file's path from the root of the
/// checkout: with `--repo` a folder of a git work tree (a monorepo), the
/// path starts at the work tree's root, wherever garrison runs from; out
/// of git, at the current directory.
#[test]
fn github_annotations_name_files_from_the_root_of_the_checkout() {
    use crate::fleet::{clusters, policy, DUPLICATED};
    let dir = crate::support::temp();
    let write = |repo: &std::path::Path| {
        std::fs::create_dir_all(repo).unwrap_or_else(|e| panic!("{e}"));
        for (name, text) in [
            ("clusters.yaml", clusters(&["a"])),
            // A policy for nothing: warning G0201, at ghost.yaml:8:5.
            ("ghost.yaml", policy("ghost", DUPLICATED, &[], "")),
        ] {
            std::fs::write(repo.join(name), text).unwrap_or_else(|e| panic!("{e}"));
        }
    };
    let mono = dir.path().join("mono");
    write(&mono.join("deploy/fleet"));
    crate::support::git(&mono, &["init", "-q"]);
    let plain = dir.path().join("plain");
    write(&plain.join("sub/fleet"));
    let annotated = |cwd: &std::path::Path, repo: &str| {
        let output = crate::support::garrison()
            .current_dir(cwd)
            .args(["validate", "--diagnostics", "github", "--repo", repo])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stderr(&output);
        text.split(',')
            .find_map(|p| p.strip_prefix("::warning file="))
            .unwrap_or_else(|| panic!("no annotation: {text}"))
            .to_string()
    };
    let absolute = mono.join("deploy/fleet").to_string_lossy().into_owned();
    assert_eq!(
        annotated(dir.path(), "mono/deploy/fleet"),
        "deploy/fleet/ghost.yaml"
    );
    assert_eq!(
        annotated(&mono.join("deploy"), "fleet"),
        "deploy/fleet/ghost.yaml"
    );
    assert_eq!(annotated(dir.path(), &absolute), "deploy/fleet/ghost.yaml");
    assert_eq!(annotated(&mono, "."), "deploy/fleet/ghost.yaml");
    // Out of git (unless the temporary directory itself is in a work tree).
    if garrison::store::branch::path_in_work_tree(&plain).is_some() {
        return;
    }
    assert_eq!(annotated(&plain, "sub/fleet"), "sub/fleet/ghost.yaml");
    assert_eq!(annotated(&plain.join("sub/fleet"), "."), "ghost.yaml");
}

/// `validate --json` prints JSON: what it read, and every diagnostic as an
/// object; with an error, the same report with `ok: false`, exit 2.
#[test]
fn validate_json_reports_every_diagnostic_as_json() {
    use crate::fleet::{clusters, policy, DUPLICATED};
    let dir = crate::support::temp();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap_or_else(|e| panic!("{e}"));
    let write = |name: &str, text: &str| {
        std::fs::write(repo.join(name), text).unwrap_or_else(|e| panic!("{e}"))
    };
    write("clusters.yaml", &clusters(&["a"]));
    write("ghost.yaml", &policy("ghost", DUPLICATED, &[], ""));
    let repo_arg = repo.to_string_lossy().into_owned();
    let validate = || run(&["validate", "--json", "--repo", &repo_arg]);
    let json = |output: &std::process::Output| -> serde_json::Value {
        serde_json::from_str(&stdout(output))
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", stdout(output)))
    };
    let valid = validate();
    assert_eq!(valid.status.code(), Some(0), "{}", stderr(&valid));
    insta::assert_snapshot!(serde_json::to_string_pretty(&json(&valid)).unwrap_or_default(), @r#"
    {
      "ok": true,
      "errors": 0,
      "warnings": 1,
      "diagnostics": [
        {
          "code": "G0201",
          "name": "policy-matches-nothing",
          "severity": "warning",
          "message": "PropagationPolicy/apps/ghost matches no template",
          "file": "ghost.yaml",
          "line": 8,
          "column": 5,
          "help": "check apiVersion, kind, namespace, name and labels of its resource selectors"
        }
      ],
      "failure": null,
      "templates": 0,
      "propagation_policies": 1,
      "override_policies": 0,
      "clusters": 1,
      "subscriptions": 0,
      "localizations": 0,
      "globalizations": 0
    }
    "#);
    write("broken.yaml", "kind: [\n");
    let refused = validate();
    assert_eq!(refused.status.code(), Some(2));
    let report = json(&refused);
    assert_eq!(report["ok"], false);
    assert_eq!(
        (report["errors"].as_u64(), report["warnings"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(report["diagnostics"][0]["code"], "G0101");
    assert_eq!(report["diagnostics"][0]["file"], "broken.yaml");
}

/// `render --json` that fails prints the JSON report `validate --json`
/// prints (diagnostics, or the failure that ended it), and exits 2.
#[test]
fn render_json_prints_a_report_when_it_fails() {
    let dir = crate::support::temp();
    let repo = dir.path().join("repo");
    crate::support::copy_dir(&testdata().join("fleet/repo"), &repo);
    std::fs::write(repo.join("broken.yaml"), "kind: [\n").unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out");
    let output = render_to(&repo, &out, &["--json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(!out.exists());
    let report: serde_json::Value = serde_json::from_str(&stdout(&output))
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", stdout(&output)));
    insta::assert_snapshot!(serde_json::to_string_pretty(&report).unwrap_or_default(), @r#"
    {
      "ok": false,
      "errors": 1,
      "warnings": 0,
      "diagnostics": [
        {
          "code": "G0101",
          "name": "yaml-syntax",
          "severity": "error",
          "message": "unclosed bracket '['",
          "file": "broken.yaml",
          "line": 1,
          "column": 7,
          "help": "fix the YAML at this position"
        }
      ],
      "failure": null
    }
    "#);
    // A failure that is no diagnostic: the stored render to compare with is missing.
    let repo_arg = repo.to_string_lossy().into_owned();
    std::fs::remove_file(repo.join("broken.yaml")).unwrap_or_else(|e| panic!("{e}"));
    let missing = run(&["diff", "--json", "--repo", &repo_arg, "--out", "nowhere"]);
    assert_eq!(missing.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_str(&stdout(&missing))
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", stdout(&missing)));
    assert_eq!(report["ok"], false);
    assert_eq!(
        report["failure"],
        "`nowhere` does not exist; render it first with `garrison render --out nowhere`, or check the path"
    );
}

/// The object files of `dir` (a rendered cluster directory), as the YAML
/// stream `manifests` prints: each after a `---` line, in path order.
fn stream_of(dir: &std::path::Path) -> String {
    crate::support::read_tree(dir)
        .into_iter()
        .filter(|(path, _)| path != "kustomization.yaml")
        .map(|(_, bytes)| format!("---\n{}", String::from_utf8_lossy(&bytes)))
        .collect()
}

#[test]
fn manifests_prints_the_files_render_writes_for_one_cluster() {
    let dir = crate::support::temp();
    let repo = testdata().join("fleet/repo");
    let out = dir.path().join("out");
    assert!(render_to(&repo, &out, &["-q"]).status.success());
    let (repo, out_arg) = (repo.to_string_lossy(), out.to_string_lossy());
    for stored in [&["--out", &out_arg][..], &[]] {
        let mut args = vec!["manifests", "--repo", &repo];
        args.extend_from_slice(stored);
        args.push("eu-central-1");
        let output = run(&args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(stderr(&output), "");
        assert_eq!(
            stdout(&output),
            stream_of(&out.join("clusters/eu-central-1"))
        );
    }
    let json = run(&["manifests", "--json", "--repo", &repo, "edge-lab"]);
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap_or_default();
    assert_eq!(value["cluster"], "edge-lab");
    let files = value["files"].as_object().cloned().unwrap_or_default();
    let expected = crate::support::read_tree(&out.join("clusters/edge-lab"));
    assert_eq!(files.len() + 1, expected.len(), "{files:?}");
    for (path, text) in &files {
        assert_eq!(
            text.as_str().map(str::as_bytes),
            expected.get(path).map(Vec::as_slice),
            "{path}"
        );
    }
}

/// A paused cluster prints what the stored render froze, not what the
/// source would give it now; with no stored render it is refused, since
/// a first render gives it nothing.
#[test]
fn manifests_of_a_paused_cluster_are_the_stored_ones() {
    let dir = crate::support::temp();
    let repo = dir.path().join("repo");
    crate::support::copy_dir(&testdata().join("fleet/repo"), &repo);
    let cluster = repo.join("clusters/us-west-2.yaml");
    let paused = crate::support::read(&cluster);
    crate::support::write(
        &cluster,
        &paused.replace(
            "garrison.dev/sync-paused: \"true\"",
            "garrison.dev/sync-paused: \"false\"",
        ),
    );
    let out = dir.path().join("out");
    assert!(render_to(&repo, &out, &["-q"]).status.success());
    crate::support::write(&cluster, &paused);
    let storefront = repo.join("apps/storefront.yaml");
    let text = crate::support::read(&storefront);
    crate::support::write(&storefront, &text.replace("replicas: 24", "replicas: 30"));
    let (repo_arg, out_arg) = (repo.to_string_lossy(), out.to_string_lossy());
    let frozen = run(&[
        "manifests",
        "--repo",
        &repo_arg,
        "--out",
        &out_arg,
        "us-west-2",
    ]);
    assert_eq!(frozen.status.code(), Some(0), "{}", stderr(&frozen));
    let stored = stream_of(&out.join("clusters/us-west-2"));
    assert!(stored.contains("kind: Deployment"), "{stored}");
    assert_eq!(stdout(&frozen), stored);

    let refused = run(&["manifests", "--repo", &repo_arg, "us-west-2"]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(stdout(&refused), "");
    insta::assert_snapshot!(stderr(&refused), @"garrison: error: cluster `us-west-2` is paused: it keeps what the stored render gave it, and no stored render is named; name it with --branch or --out");
}

#[test]
fn manifests_of_an_unknown_cluster_or_a_bad_repository_exit_2_with_nothing_on_stdout() {
    let repo = testdata().join("fleet/repo");
    let repo = repo.to_string_lossy();
    let unknown = run(&["manifests", "--repo", &repo, "eu-centrl-1"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(stdout(&unknown), "");
    insta::assert_snapshot!(stderr(&unknown), @"garrison: error: the fleet has no cluster `eu-centrl-1`; did you mean `eu-central-1`?");
    let far = run(&["manifests", "--repo", &repo, "mars"]);
    insta::assert_snapshot!(stderr(&far), @"garrison: error: the fleet has no cluster `mars`; its clusters are `ap-northeast-1`, `ap-south-1`, `ap-southeast-2`, `edge-lab`, `eu-central-1`, `eu-north-1`, `eu-west-1a`, `eu-west-1b`, `us-central-1`, `us-east-1a`, and 2 more");
    let bad = testdata().join("bad-input/G0101-bad-indentation/repo");
    let failed = run(&[
        "manifests",
        "--diagnostics",
        "concise",
        "--repo",
        &bad.to_string_lossy(),
        "eu-1",
    ]);
    assert_eq!(failed.status.code(), Some(2));
    assert_eq!(stdout(&failed), "");
    assert!(stderr(&failed).contains("G0101"), "{}", stderr(&failed));
    let missing = run(&[
        "manifests",
        "--repo",
        &repo,
        "--out",
        "/nonexistent/out",
        "eu-1",
    ]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(stdout(&missing), "");
}
