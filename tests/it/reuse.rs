//! A re-render keeps the files of applications whose inputs did not change
//! (`src/reuse.rs`). Keeping must never change the result: after any kind
//! of source edit, a reusing render writes exactly what `--rebuild` (every
//! object rendered again) writes from the same previous render.

use crate::fleet::{cluster, deployment, deployment_file, policy, Fleet, DIVIDED, DUPLICATED};
use crate::support::{copy_dir, read_tree, render_to, run, stderr, temp};

const REGION_OVERRIDE: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterOverridePolicy\nmetadata:\n  name: by-region\nspec:\n  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n  overrideRules:\n  - targetCluster:\n      labelSelector:\n        matchLabels:\n          region: eu\n    overriders:\n      labelsOverrider:\n      - operator: add\n        value:\n          served-from: eu\n";

fn three_clusters(eu_label_on_c: bool) -> String {
    [
        cluster("a", &[("region", "eu")], false),
        cluster("b", &[("region", "us")], false),
        cluster(
            "c",
            &[("region", if eu_label_on_c { "eu" } else { "us" })],
            false,
        ),
    ]
    .join("---\n")
}

fn fleet() -> Fleet {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three_clusters(false));
    fleet.write("web.yaml", &deployment("web", 6, "v1"));
    fleet.write("api.yaml", &deployment("api", 2, "v1"));
    fleet.write("web-policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.write(
        "api-policy.yaml",
        &policy("api", DUPLICATED, &[("garrison.dev/fort", "enabled")], ""),
    );
    fleet.write("override.yaml", REGION_OVERRIDE);
    fleet
}

/// Render `fleet` twice from the same previous render: with `--rebuild`
/// into a copy of its output, and reusing into the output itself; the two
/// trees must be identical.
fn assert_reuse_matches_rebuild(fleet: &Fleet, step: &str) {
    let scratch = temp();
    let rebuilt = scratch.path().join("rebuilt");
    copy_dir(fleet.out(), &rebuilt);
    let output = render_to(&fleet.repo, &rebuilt, &["--rebuild", "-q"]);
    assert!(output.status.success(), "{step}: {}", stderr(&output));
    let reused = fleet.render();
    assert_eq!(
        reused.tree,
        read_tree(&rebuilt),
        "{step}: a reusing render differs from a full one"
    );
}

/// One edit of the source.
type Edit = dyn Fn(&Fleet);

#[test]
fn a_reusing_render_writes_what_a_full_render_writes_after_every_kind_of_edit() {
    let fleet = fleet();
    fleet.render();
    let steps: Vec<(&str, Box<Edit>)> = vec![
        ("nothing changed", Box::new(|_| {})),
        (
            "a template changed",
            Box::new(|f| {
                f.write("web.yaml", &deployment("web", 6, "v2"));
            }),
        ),
        (
            "replicas changed",
            Box::new(|f| {
                f.write("web.yaml", &deployment("web", 9, "v2"));
            }),
        ),
        (
            "an override policy changed",
            Box::new(|f| {
                f.write(
                    "override.yaml",
                    &REGION_OVERRIDE.replace("served-from: eu", "served-from: europe"),
                );
            }),
        ),
        (
            "a cluster label an override selects on changed",
            Box::new(|f| {
                f.write("clusters.yaml", &three_clusters(true));
            }),
        ),
        (
            "a cluster joined",
            Box::new(|f| {
                f.write(
                    "clusters.yaml",
                    &format!("{}---\n{}", three_clusters(true), cluster("d", &[], false)),
                );
            }),
        ),
        (
            "a cluster paused",
            Box::new(|f| {
                f.write(
                    "clusters.yaml",
                    &format!("{}---\n{}", three_clusters(true), cluster("d", &[], true)),
                );
                f.write("api.yaml", &deployment("api", 2, "v2"));
            }),
        ),
        (
            "the cluster unpaused",
            Box::new(|f| {
                f.write(
                    "clusters.yaml",
                    &format!("{}---\n{}", three_clusters(true), cluster("d", &[], false)),
                );
            }),
        ),
        (
            "a placement changed",
            Box::new(|f| {
                f.write(
                    "api-policy.yaml",
                    &policy(
                        "api",
                        "    clusterAffinity:\n      clusterNames: [a, b]\n",
                        &[("garrison.dev/fort", "enabled")],
                        "",
                    ),
                );
            }),
        ),
        (
            "an application was removed",
            Box::new(|f| {
                f.remove("web.yaml");
            }),
        ),
    ];
    for (step, edit) in steps {
        edit(&fleet);
        assert_reuse_matches_rebuild(&fleet, step);
    }
}

#[test]
fn unchanged_applications_keep_their_files_and_rebuild_repairs_hand_edits() {
    let fleet = fleet();
    fleet.render();
    let api = format!("clusters/a/{}", deployment_file("api"));
    let web = format!("clusters/a/{}", deployment_file("web"));
    let api_path = fleet.out().join(&api);
    let edited = "# edited by hand\n";
    if let Err(e) = std::fs::write(&api_path, edited) {
        panic!("{e}");
    }
    fleet.write("web.yaml", &deployment("web", 6, "v2"));
    let render = fleet.render();
    assert!(
        render.file(&web).contains("example.com/web:v2"),
        "the changed application is rendered again"
    );
    assert_eq!(
        render.file(&api),
        edited,
        "an application whose inputs did not change keeps its file, unread"
    );

    let repo = fleet.repo.to_string_lossy().into_owned();
    let out = fleet.out().to_string_lossy().into_owned();
    let check = run(&["check", "--repo", &repo, "--out", &out]);
    assert_eq!(
        check.status.code(),
        Some(1),
        "check compares every byte and finds the edit"
    );
    let rebuild = fleet.try_render(&["--rebuild"]);
    assert!(rebuild.status.success(), "{}", stderr(&rebuild));
    let repaired = read_tree(fleet.out());
    let text = String::from_utf8_lossy(repaired.get(&api).map_or(&[][..], Vec::as_slice));
    assert!(
        text.contains("kind: Deployment"),
        "--rebuild renders every object again:\n{text}"
    );
    let check = run(&["check", "--repo", &repo, "--out", &out]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
}
