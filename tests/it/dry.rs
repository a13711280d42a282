//! Dry sources (`src/load/dry/`): the kustomize overlay and the Helm chart of
//! `testdata/dry-sources` render to the objects `kubectl kustomize` and
//! `helm template` print when run by hand on the same inputs; the marker
//! records the tools' versions; an unchanged fleet runs no tool, and a
//! changed values file renders only its release again. The bad-input cases
//! `G0008-*`, `G0009-*` and `G0010-*` hold the refusals.

use crate::reuse::stamps;
use crate::support::{
    commit_all, copy_dir, garrison, git, make_executable, read, read_tree, stderr, stdout, temp,
    testdata, tools_dir, write, yaml, HELM_VERSION,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

fn fixture() -> std::path::PathBuf {
    testdata().join("dry-sources/repo")
}

/// `garrison render` of `repo` into `out`, with its own parse cache in `cache`.
fn render(repo: &Path, out: &Path, cache: &Path) -> Output {
    let output = garrison()
        .args(["render", "--repo"])
        .arg(repo)
        .arg("--out")
        .arg(out)
        .env("GARRISON_CACHE_DIR", cache)
        .output();
    match output {
        Ok(output) => output,
        Err(e) => panic!("cannot run garrison: {e}"),
    }
}

/// A tool run by hand in `dir`: what it printed.
fn by_hand(program: &Path, args: &[&str], dir: &Path) -> String {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("HELM_CACHE_HOME", dir.join(".no-helm-home"))
        .env("HELM_CONFIG_HOME", dir.join(".no-helm-home"))
        .env("HELM_DATA_HOME", dir.join(".no-helm-home"))
        .output();
    match output {
        Ok(output) if output.status.success() => stdout(&output),
        Ok(output) => panic!(
            "{} {args:?} failed:\n{}",
            program.display(),
            stderr(&output)
        ),
        Err(e) => panic!("cannot run {}: {e}", program.display()),
    }
}

/// Objects by `Kind/name`.
fn objects(text: &str, what: &str) -> BTreeMap<String, Value> {
    yaml(text, what)
        .into_iter()
        .filter(|v| !v.is_null())
        .map(|v| {
            let id = format!(
                "{}/{}",
                v["kind"].as_str().unwrap_or(""),
                v.pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            );
            (id, v)
        })
        .collect()
}

/// A rendered object without what garrison adds: the policy and fort
/// annotations (and the annotations map, when that leaves it empty).
fn without_garrisons_annotations(mut object: Value) -> Value {
    if let Some(annotations) = object
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        annotations
            .retain(|key, _| !key.contains("karmada.io/") && !key.starts_with("garrison.dev/"));
        if annotations.is_empty() {
            if let Some(metadata) = object["metadata"].as_object_mut() {
                metadata.remove("annotations");
            }
        }
    }
    object
}

/// The objects of cluster `cluster` of the render in `out`, by `Kind/name`.
fn rendered(out: &Path, cluster: &str, namespace: &str) -> BTreeMap<String, Value> {
    let dir = out.join("clusters").join(cluster).join(namespace);
    let mut found = BTreeMap::new();
    for (path, bytes) in read_tree(&dir) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        for (id, object) in objects(&text, &path) {
            found.insert(id, without_garrisons_annotations(object));
        }
    }
    found
}

#[test]
fn dry_sources_render_exactly_what_the_tools_print_by_hand() {
    let dir = temp();
    let out = dir.path().join("out");
    let output = render(&fixture(), &out, &dir.path().join("cache"));
    assert!(output.status.success(), "{}", stderr(&output));

    // kustomize, as kubectl runs it.
    let mut built = objects(
        &by_hand(
            Path::new("kubectl"),
            &["kustomize", "apps/shop/overlays/prod"],
            &fixture(),
        ),
        "kubectl kustomize",
    );
    // The shop is divided over eu-1 (weight 2) and eu-2 (weight 1).
    for (cluster, replicas) in [("eu-1", 4), ("eu-2", 2)] {
        if let Some(deployment) = built.get_mut("Deployment/shop") {
            deployment["spec"]["replicas"] = replicas.into();
        }
        assert_eq!(
            rendered(&out, cluster, "shop"),
            built,
            "{cluster}: the overlay's objects, the shop's share of replicas"
        );
    }

    // Helm, the pinned build, with the arguments docs/sources.md lists.
    let helm = tools_dir().join("helm");
    let mut templated = objects(
        &by_hand(
            &helm,
            &[
                "template",
                "web",
                "./charts/web",
                "--namespace",
                "web",
                "--skip-tests",
                "--include-crds",
                "--kube-version",
                "v1.33.0",
                "--values",
                "values/web-prod.yaml",
                "--set-json",
                "image.tag=\"1.27.3\"",
            ],
            &fixture(),
        ),
        "helm template",
    );
    assert!(
        !templated.contains_key("Pod/web-test"),
        "the chart's test hook is skipped"
    );
    // The chart writes no namespace: the release's is theirs.
    for object in templated.values_mut() {
        object["metadata"]["namespace"] = "web".into();
    }
    assert_eq!(
        rendered(&out, "eu-1", "web"),
        templated,
        "the release's objects"
    );
    let fort = read(&out.join("clusters/eu-2/web/deployment.apps_web.yaml"));
    assert!(
        fort.contains("garrison.dev/fort-cluster: eu-1"),
        "the release has its fort:\n{fort}"
    );
    let us = rendered(&out, "us-1", "web");
    assert_eq!(
        us["Deployment/web"].pointer("/spec/template/spec/containers/0/image"),
        Some(&Value::from("us.registry.example.com/web:1.27.3")),
        "the override policy applies to what Helm rendered"
    );
}

#[test]
fn the_marker_records_the_version_of_each_tool() {
    let dir = temp();
    let out = dir.path().join("out");
    let output = render(&fixture(), &out, &dir.path().join("cache"));
    assert!(output.status.success(), "{}", stderr(&output));
    let marker: Value = match serde_json::from_str(&read(&out.join(".garrison.json"))) {
        Ok(marker) => marker,
        Err(e) => panic!("the marker is not JSON: {e}"),
    };
    assert_eq!(marker["tools"]["helm"], format!("helm {HELM_VERSION}"));
    let kustomize = marker["tools"]["kustomize"].as_str().unwrap_or("");
    assert!(
        kustomize.starts_with("kubectl v") && kustomize.contains("(kustomize v"),
        "{kustomize}"
    );
}

/// A program that logs its arguments to `log`, then runs `real`.
fn shim(path: &Path, real: &Path, log: &Path) {
    write(
        path,
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.display()
        ),
    );
    make_executable(path);
}

fn which(tool: &str) -> std::path::PathBuf {
    let path = crate::support::path_with_tools();
    match std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
    {
        Some(found) => found,
        None => panic!("`{tool}` is required for this test and is not on the PATH"),
    }
}

/// The log's lines that ran a tool's render (not a version question).
fn renders_logged(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.starts_with("version"))
        .map(str::to_string)
        .collect()
}

#[test]
fn an_unchanged_fleet_runs_no_tool_and_a_changed_values_file_renders_only_its_release() {
    let dir = temp();
    let repo = dir.path().join("repo");
    copy_dir(&fixture(), &repo);
    let log = dir.path().join("tools.log");
    shim(&repo.join("bin/helm"), &which("helm"), &log);
    shim(&repo.join("bin/kubectl"), &which("kubectl"), &log);
    let settings = read(&repo.join("garrison.yaml"));
    write(
        &repo.join("garrison.yaml"),
        &format!("{settings}tools:\n  helm: bin/helm\n  kustomize: bin/kubectl\n"),
    );
    git(&repo, &["init", "-q", "-b", "main"]);
    commit_all(&repo, "a dry fleet");
    let out = dir.path().join("out");
    let cache = dir.path().join("cache");

    let first = render(&repo, &out, &cache);
    assert!(first.status.success(), "{}", stderr(&first));
    let ran = renders_logged(&log);
    assert_eq!(
        ran.len(),
        4,
        "each source rendered twice (its output must be the same both times): {ran:?}"
    );
    let before = read_tree(&out);
    let stamped = stamps(&out);

    let again = render(&repo, &out, &cache);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stdout(&again).contains("no changes"), "{}", stdout(&again));
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(
        logged.lines().count(),
        ran.len() + 2,
        "an unchanged fleet runs no tool (two version questions, before):\n{logged}"
    );

    write(
        &repo.join("values/web-prod.yaml"),
        "replicaCount: 5\nmetrics:\n  enabled: true\n",
    );
    commit_all(&repo, "five web replicas");
    let third = render(&repo, &out, &cache);
    assert!(third.status.success(), "{}", stderr(&third));
    let ran_now = renders_logged(&log);
    let helm = ran
        .iter()
        .find(|line| line.starts_with("template "))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        &ran_now[ran.len()..],
        [helm.clone(), helm],
        "only the release whose values changed is rendered again (twice)"
    );
    let after = read_tree(&out);
    let changed: BTreeSet<&str> = after
        .iter()
        .filter(|(path, bytes)| before.get(*path) != Some(*bytes))
        .map(|(path, _)| path.as_str())
        .collect();
    let expected: BTreeSet<&str> = [
        "bindings/web/deployment.apps_web.yaml",
        "clusters/eu-1/web/deployment.apps_web.yaml",
        "clusters/eu-2/web/deployment.apps_web.yaml",
        "clusters/us-1/web/deployment.apps_web.yaml",
    ]
    .into();
    assert_eq!(changed, expected, "what one values file changes");
    let restamped = stamps(&out);
    for (path, stamp) in &stamped {
        assert_eq!(
            restamped.get(path) == Some(stamp),
            !expected.contains(path.as_str()),
            "{path}: only changed files are written"
        );
    }

    // On a branch, the commit holds only those files' new blobs.
    let repo_arg = repo.to_string_lossy().into_owned();
    let on_branch = |label: &str| {
        let output = garrison()
            .args(["render", "--repo", &repo_arg, "--branch", "rendered", "-q"])
            .env("GARRISON_CACHE_DIR", &cache)
            .output();
        match output {
            Ok(output) => assert!(output.status.success(), "{label}: {}", stderr(&output)),
            Err(e) => panic!("cannot run garrison: {e}"),
        }
    };
    write(
        &repo.join("values/web-prod.yaml"),
        "replicaCount: 3\nmetrics:\n  enabled: true\n",
    );
    commit_all(&repo, "three web replicas");
    on_branch("first branch render");
    write(
        &repo.join("values/web-prod.yaml"),
        "replicaCount: 5\nmetrics:\n  enabled: true\n",
    );
    commit_all(&repo, "five web replicas again");
    on_branch("second branch render");
    let diff = git(&repo, &["diff", "--name-only", "rendered~1", "rendered"]);
    let diff: BTreeSet<&str> = diff
        .lines()
        .filter(|p| *p != ".garrison.json" && *p != "hydrator.metadata")
        .collect();
    assert_eq!(
        diff, expected,
        "the commit changes the release's files only"
    );
}

/// A file a dry source reads is an input: left untracked, it is an
/// uncommitted change, and a branch render refuses it as it refuses an
/// untracked manifest (the commit would not hold what was rendered).
#[test]
fn an_untracked_file_of_a_dry_source_is_an_uncommitted_change() {
    let dir = temp();
    let repo = dir.path().join("repo");
    copy_dir(&fixture(), &repo);
    git(&repo, &["init", "-q", "-b", "main"]);
    commit_all(&repo, "a dry fleet");
    // A chart file, a file of a base the overlay reaches, one of a component.
    for untracked in [
        "charts/web/templates/extra.yaml",
        "apps/shop/base/notes.txt",
        "apps/shop/components/probes/more.yaml",
    ] {
        write(&repo.join(untracked), "# new\n");
        let output = garrison()
            .args(["render", "--repo"])
            .arg(&repo)
            .args(["--branch", "rendered", "--color", "never"])
            .output();
        let output = match output {
            Ok(output) => output,
            Err(e) => panic!("cannot run garrison: {e}"),
        };
        assert_eq!(
            output.status.code(),
            Some(2),
            "{untracked}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(&format!("`{untracked}`")),
            "{untracked} is named: {}",
            stderr(&output)
        );
        let _ = std::fs::remove_file(repo.join(untracked));
    }
}

/// The Work format wraps what the tools rendered like any template.
#[test]
fn the_work_format_carries_what_the_tools_rendered() {
    let dir = temp();
    let out = dir.path().join("out");
    let output = garrison()
        .args(["render", "--format", "work", "--repo"])
        .arg(fixture())
        .arg("--out")
        .arg(&out)
        .env("GARRISON_CACHE_DIR", dir.path().join("cache"))
        .output();
    let output = match output {
        Ok(output) => output,
        Err(e) => panic!("cannot run garrison: {e}"),
    };
    assert!(output.status.success(), "{}", stderr(&output));
    let works: Vec<Value> = read_tree(&out.join("clusters/us-1"))
        .into_iter()
        .filter(|(path, _)| path != "kustomization.yaml")
        .flat_map(|(path, bytes)| yaml(&String::from_utf8_lossy(&bytes), &path))
        .collect();
    let image = works
        .iter()
        .flat_map(|work| {
            work.pointer("/spec/workload/manifests")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .find(|manifest| manifest["kind"] == "Deployment")
        .and_then(|deployment| {
            deployment
                .pointer("/spec/template/spec/containers/0/image")
                .cloned()
        });
    assert_eq!(
        image,
        Some(Value::from("us.registry.example.com/web:1.27.3")),
        "the release's Deployment, overridden, in its Work"
    );
}

/// The report names the chart file each object came from, as `explain` does.
#[test]
fn the_report_names_the_file_each_object_came_from() {
    let dir = temp();
    let out = dir.path().join("out");
    let cache = dir.path().join("cache");
    let output = render(&fixture(), &out, &cache);
    assert!(output.status.success(), "{}", stderr(&output));
    let page = dir.path().join("report.html");
    let report = garrison()
        .args(["report", "--repo"])
        .arg(fixture())
        .arg("--out")
        .arg(&out)
        .arg("--html")
        .arg(&page)
        .env("GARRISON_CACHE_DIR", &cache)
        .output();
    match report {
        Ok(report) => assert!(report.status.success(), "{}", stderr(&report)),
        Err(e) => panic!("cannot run garrison: {e}"),
    }
    let page = read(&page);
    for origin in [
        "template: charts/web/templates/deployment.yaml (helm template web):3",
        "template: apps/shop/overlays/prod (kustomize build):",
    ] {
        assert!(page.contains(origin), "the report says `{origin}`");
    }
}
