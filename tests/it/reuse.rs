//! A re-render keeps the files of applications whose inputs did not change
//! (`src/reuse.rs`). Keeping must never change the result: after any kind
//! of source edit, a reusing render writes exactly what `--rebuild` (every
//! object rendered again) writes from the same previous render.

use crate::fleet::{
    cluster, deployment, deployment_file, member_names, members, policy, Fleet, DIVIDED,
    DUPLICATED, EVERY_DEPLOYMENT,
};
use crate::support::{commit_all, copy_dir, git, read_tree, render_to, run, stderr, temp};
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

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

/// Inode and modification time of every file under `dir`, by relative path.
pub(crate) fn stamps(dir: &Path) -> BTreeMap<String, (u64, i64, i64)> {
    read_tree(dir)
        .into_keys()
        .map(|path| {
            let meta = std::fs::metadata(dir.join(&path)).unwrap();
            let stamp = (meta.ino(), meta.mtime(), meta.mtime_nsec());
            (path, stamp)
        })
        .collect()
}

/// 30 applications on 24 clusters (over 700 files, so that a small change
/// is applied in place); app07 then gets a new image.
#[test]
fn one_changed_template_touches_only_its_files_and_blobs() {
    let fleet = Fleet::new();
    let names = member_names(24);
    fleet.write("clusters.yaml", &members(24));
    fleet.write("policy.yaml", EVERY_DEPLOYMENT);
    for i in 0..30 {
        fleet.write(
            &format!("app{i:02}.yaml"),
            &deployment(&format!("app{i:02}"), 2, "v1"),
        );
    }
    git(&fleet.repo, &["init", "-q"]);
    commit_all(&fleet.repo, "fleet");
    fleet.render();
    let repo = fleet.repo.to_string_lossy().into_owned();
    let branch = |name: &str| {
        let output = run(&["render", "--repo", &repo, "--branch", name, "-q"]);
        assert!(output.status.success(), "{}", stderr(&output));
    };
    branch("rendered");
    let before = read_tree(fleet.out());
    let stamped = stamps(fleet.out());

    fleet.write("app07.yaml", &deployment("app07", 2, "v2"));
    commit_all(&fleet.repo, "app07 v2");
    fleet.render();
    let after = read_tree(fleet.out());
    let changed: BTreeSet<&String> = after
        .iter()
        .filter(|(path, bytes)| before.get(*path) != Some(bytes))
        .map(|(path, _)| path)
        .collect();
    let expected: BTreeSet<String> = names
        .iter()
        .map(|c| format!("clusters/{c}/{}", deployment_file("app07")))
        .chain(
            after
                .keys()
                .filter(|p| p.starts_with("bindings/") && p.contains("app07"))
                .cloned(),
        )
        .collect();
    assert_eq!(
        changed,
        expected.iter().collect(),
        "what one template changes"
    );
    assert_eq!(after.len(), before.len());
    // A directory: every other file is the very file it was, never rewritten.
    let restamped = stamps(fleet.out());
    for (path, stamp) in &stamped {
        assert_eq!(
            restamped.get(path) == Some(stamp),
            !expected.contains(path),
            "{path}: only changed files are written"
        );
    }

    // A branch: the same files change, and the commit adds only their blobs.
    branch("rendered");
    let diff = git(
        &fleet.repo,
        &["diff", "--name-only", "rendered~1", "rendered"],
    );
    // The marker and hydrator.metadata also record the source commit a
    // branch render was made from.
    let diff: BTreeSet<&str> = diff.lines().collect();
    assert_eq!(
        diff.iter()
            .filter(|p| **p != ".garrison.json" && **p != "hydrator.metadata")
            .copied()
            .collect::<BTreeSet<_>>(),
        expected.iter().map(String::as_str).collect()
    );
    let new_objects = git(
        &fleet.repo,
        &[
            "rev-list",
            "--objects",
            "--no-object-names",
            "rendered",
            "^rendered~1",
        ],
    );
    let new_blobs: BTreeSet<String> = new_objects
        .lines()
        .filter(|id| git(&fleet.repo, &["cat-file", "-t", id]).trim() == "blob")
        .map(str::to_string)
        .collect();
    let changed_blobs: BTreeSet<String> = diff
        .iter()
        .map(|p| {
            git(&fleet.repo, &["rev-parse", &format!("rendered:{p}")])
                .trim()
                .to_string()
        })
        .collect();
    assert_eq!(
        new_blobs, changed_blobs,
        "the commit's new blobs are the changed files'"
    );
}
