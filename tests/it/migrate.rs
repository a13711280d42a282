//! `garrison import` and `garrison verify`, run as a user runs them: a
//! hand-written control plane export imported into a repository, which
//! then renders exactly what Karmada's Works deliver; one Work changed
//! and verify names exactly that difference.

use crate::support::{read, read_tree, run, stderr, stdout, temp, testdata, tree_text, write};
use std::path::Path;

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// `garrison [global] verify --repo FLEET --works WORKS --no-cache`.
fn verify(global: &[&str], fleet: &Path, works: &Path) -> std::process::Output {
    let (fleet, works) = (path(fleet), path(works));
    let args = ["verify", "--repo", &fleet, "--works", &works, "--no-cache"];
    let all: Vec<&str> = global.iter().copied().chain(args).collect();
    run(&all)
}

/// `testdata/migrate/export.yaml` imported into `dir/fleet`.
pub(crate) fn imported(dir: &Path) -> std::path::PathBuf {
    let fleet = dir.join("fleet");
    let export = testdata().join("migrate/export.yaml");
    let output = run(&["import", "--repo", &path(&fleet), &path(&export)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    fleet
}

#[test]
fn an_export_imports_into_one_file_per_object_and_the_repository_is_valid() {
    let dir = temp();
    let fleet = dir.path().join("fleet");
    let export = testdata().join("migrate/export.yaml");
    let output = run(&["import", "--repo", &path(&fleet), &path(&export)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let shown = stdout(&output)
        .replace(&path(&fleet), "[FLEET]")
        .replace(&path(&export), "[EXPORT]");
    insta::assert_snapshot!("import_stdout", shown);
    insta::assert_snapshot!("import_tree", tree_text(&read_tree(&fleet)));
    let output = run(&[
        "--strict",
        "validate",
        "--repo",
        &path(&fleet),
        "--no-cache",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn the_imported_repository_renders_what_karmadas_works_deliver() {
    let dir = temp();
    let fleet = imported(dir.path());
    let works = testdata().join("migrate/works.yaml");
    let output = verify(&[], &fleet, &works);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    insta::assert_snapshot!(stdout(&output), @r#"
        member1: 3 match
        member2: 3 match
        every cluster gets what Karmada delivers: 6 object(s) on 2 cluster(s)
    "#);
}

/// `testdata/migrate/works.yaml` with member2's share of the Deployment
/// changed, as if Karmada had divided 3 as 2 + 2, written into `dir`.
pub(crate) fn changed_works(dir: &Path) -> std::path::PathBuf {
    let works = read(&testdata().join("migrate/works.yaml"));
    let marker = "namespace: karmada-es-member2\n";
    let at = works
        .match_indices(marker)
        .map(|(i, _)| i)
        .find(|i| {
            works[*i..]
                .split("- apiVersion: work")
                .next()
                .is_some_and(|w| w.contains("kind: Deployment"))
        })
        .unwrap_or_else(|| panic!("no Deployment Work of member2 in works.yaml"));
    let (head, tail) = works.split_at(at);
    let changed = format!(
        "{head}{}",
        tail.replacen("replicas: 1\n", "replicas: 2\n", 1)
    );
    assert_ne!(changed, works);
    let changed_path = dir.join("works.yaml");
    write(&changed_path, &changed);
    changed_path
}

#[test]
fn one_work_changed_is_exactly_the_difference_verify_names() {
    let dir = temp();
    let fleet = imported(dir.path());
    let changed_path = changed_works(dir.path());
    let output = verify(&["--json"], &fleet, &changed_path);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let verdict: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap_or_default();
    assert_eq!(verdict["agrees"], false);
    let differences: Vec<String> = verdict["clusters"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| {
            c["differences"]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |d| {
                    format!(
                        "{} {} {}",
                        c["name"].as_str().unwrap_or(""),
                        d["kind"].as_str().unwrap_or(""),
                        d["object"].as_str().unwrap_or("")
                    )
                })
        })
        .collect();
    assert_eq!(differences, ["member2 differs Deployment.apps/shop/web"]);
    let output = verify(&[], &fleet, &changed_path);
    insta::assert_snapshot!(stdout(&output), @r#"
        member1: 3 match
        member2: 2 match, 1 differ
          differs (not explained): Deployment.apps/shop/web
            --- karmada/member2/Deployment.apps/shop/web.yaml
            +++ garrison/member2/Deployment.apps/shop/web.yaml
            @@ -17,7 +17,7 @@
               name: web
               namespace: shop
             spec:
            -  replicas: 2
            +  replicas: 1
               selector:
                 matchLabels:
                   app: web
        1 of 1 difference(s) not explained: the clusters would not get what Karmada delivers
    "#);
}

#[test]
fn an_export_that_cannot_be_imported_writes_nothing() {
    let dir = temp();
    let fleet = dir.path().join("fleet");
    let export = dir.path().join("export.yaml");
    let mut text = read(&testdata().join("migrate/export.yaml"));
    text.push_str("- apiVersion: config.karmada.io/v1alpha1\n  kind: ResourceInterpreterWebhookConfiguration\n  metadata: {name: hooks}\n");
    write(&export, &text);
    let output = run(&[
        "--diagnostics",
        "concise",
        "import",
        "--repo",
        &path(&fleet),
        &path(&export),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(!fleet.exists(), "nothing may be written on error");
    insta::assert_snapshot!(stderr(&output).replace(&path(&export), "[EXPORT]"), @r#"
        [EXPORT]:164:9: error[G0801]: `ResourceInterpreterWebhookConfiguration/hooks` (config.karmada.io/v1alpha1) cannot be imported: garrison does not do what Karmada does with a ResourceInterpreterWebhookConfiguration, so a render would not deliver what Karmada delivers (help: leave the kind out of the export, and know that what it changes on the members will not be verified; garrison imports Clusters, policies, ResourceInterpreterCustomizations, ClusterTaintPolicies, FederatedHPAs, bindings and resource templates)
        garrison: 1 error(s), 0 warning(s); nothing was written
    "#);
}

#[test]
fn import_never_writes_into_a_directory_that_holds_files() {
    let dir = temp();
    let fleet = dir.path().join("fleet");
    write(&fleet.join("mine.yaml"), "kept: true\n");
    let export = testdata().join("migrate/export.yaml");
    let output = run(&["import", "--repo", &path(&fleet), &path(&export)]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(read(&fleet.join("mine.yaml")), "kept: true\n");
    assert!(
        stderr(&output).contains("is not empty"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn works_that_are_not_works_are_refused_at_their_line() {
    let dir = temp();
    let fleet = imported(dir.path());
    let export = testdata().join("migrate/export.yaml");
    let output = verify(&["--diagnostics", "concise"], &fleet, &export);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output).replace(&path(&export), "[EXPORT]");
    assert!(text.contains("[EXPORT]:4:3: error[G0802]"), "{text}");
}
