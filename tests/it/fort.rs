//! Fort placement across renders (SPEC §3, issue: fort placement).

use crate::fleet::{clusters, deployment, policy, weighted, Fleet};

const FORT: &[(&str, &str)] = &[("garrison.dev/fort", "enabled")];
const BINDING: &str = "apps/deployment.apps_web.yaml";

fn fort_fleet(weights: &[(&str, u64)], replicas: u64) -> Fleet {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["x", "v", "z"]));
    fleet.write("app.yaml", &deployment("web", replicas, "v1"));
    fleet.write("policy.yaml", &policy("web", &weighted(weights), FORT, ""));
    fleet
}

#[test]
fn the_highest_static_weight_gets_the_fort_and_every_copy_records_it() {
    let fleet = fort_fleet(&[("x", 1), ("v", 3), ("z", 1)], 5);
    let render = fleet.render();
    assert_eq!(render.fort(BINDING).as_deref(), Some("v"));
    for cluster in ["x", "v", "z"] {
        assert!(
            render
                .file(&format!("clusters/{cluster}/apps/deployment.apps_web.yaml"))
                .contains("garrison.dev/fort-cluster: v"),
            "the copy on {cluster} records the fort"
        );
    }
}

#[test]
fn the_fort_is_sticky_when_weights_change() {
    let fleet = fort_fleet(&[("x", 1), ("v", 3), ("z", 1)], 5);
    fleet.render();
    fleet.write(
        "policy.yaml",
        &policy("web", &weighted(&[("x", 5), ("v", 1), ("z", 1)]), FORT, ""),
    );
    let render = fleet.render();
    assert_eq!(render.fort(BINDING).as_deref(), Some("v"));
    assert!(
        !render.stdout.contains("fort of"),
        "no move is reported:\n{}",
        render.stdout
    );
}

#[test]
fn the_fort_moves_when_its_cluster_leaves_the_binding_and_the_move_is_reported() {
    let fleet = fort_fleet(&[("x", 1), ("v", 3), ("z", 2)], 6);
    fleet.render();
    // Out of the weight list, `v` would stay in the binding with 0 replicas
    // (SPEC §2), and the fort with it: the affinity takes it out.
    let placement = format!(
        "    clusterAffinity:\n      exclude: [v]\n{}",
        weighted(&[("x", 1), ("z", 2)])
    );
    fleet.write("policy.yaml", &policy("web", &placement, FORT, ""));
    let render = fleet.render();
    assert_eq!(render.fort(BINDING).as_deref(), Some("z"));
    insta::assert_snapshot!(render.stdout.lines().filter(|l| l.starts_with("fort of")).collect::<Vec<_>>().join("\n"), @"fort of Deployment/apps/web moved from `v` to `z` (moved from `v`: highest weight (2))");
}

#[test]
fn equal_weights_give_the_fort_to_the_first_cluster_by_name() {
    let fleet = fort_fleet(&[("x", 1), ("v", 1), ("z", 1)], 3);
    assert_eq!(fleet.render().fort(BINDING).as_deref(), Some("v"));
}

#[test]
fn zero_replicas_still_place_a_fort_and_render_every_cluster() {
    let fleet = fort_fleet(&[("x", 1), ("v", 2), ("z", 1)], 0);
    let render = fleet.render();
    assert_eq!(render.fort(BINDING).as_deref(), Some("v"));
    for cluster in ["x", "v", "z"] {
        assert_eq!(
            render.replicas(cluster, "apps/deployment.apps_web.yaml"),
            Some(0),
            "{cluster}"
        );
    }
}

#[test]
fn a_pin_wins_over_stickiness_and_a_bad_pin_is_an_error() {
    let fleet = fort_fleet(&[("x", 1), ("v", 3), ("z", 1)], 5);
    fleet.render();
    let pinned = deployment("web", 5, "v1").replace(
        "  namespace: apps\n",
        "  namespace: apps\n  annotations:\n    garrison.dev/fort-cluster: z\n",
    );
    fleet.write("app.yaml", &pinned);
    let render = fleet.render();
    assert_eq!(render.fort(BINDING).as_deref(), Some("z"));
    assert!(
        render
            .stdout
            .contains("fort of Deployment/apps/web moved from `v`"),
        "{}",
        render.stdout
    );

    let before = crate::support::read_tree(fleet.out());
    fleet.write(
        "app.yaml",
        &pinned.replace("fort-cluster: z", "fort-cluster: nowhere"),
    );
    let output = fleet.try_render(&[]);
    assert_eq!(output.status.code(), Some(2));
    let text = crate::support::stderr(&output);
    insta::assert_snapshot!(text.lines().next().unwrap_or(""), @"app.yaml:7:32: error[G0401]: `Deployment/apps/web` pins its fort to cluster `nowhere`, which is not a candidate (help: pin one of the binding's unpaused clusters: `v`, `x`, `z`)");
    assert_eq!(
        crate::support::read_tree(fleet.out()),
        before,
        "a failed render leaves the output untouched"
    );
}

#[test]
fn a_pinned_binding_order_breaks_fort_ties() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["x", "v", "z"]));
    fleet.write("app.yaml", &deployment("web", 4, "v1"));
    fleet.write(
        "policy.yaml",
        &policy("web", &weighted(&[("x", 1), ("v", 1), ("z", 1)]), FORT, ""),
    );
    fleet.write(
        "binding.yaml",
        "apiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\nmetadata:\n  name: web-deployment\n  namespace: apps\nspec:\n  resource:\n    apiVersion: apps/v1\n    kind: Deployment\n    namespace: apps\n    name: web\n  clusters:\n  - name: z\n    replicas: 2\n  - name: x\n    replicas: 2\n",
    );
    let render = fleet.render();
    assert_eq!(
        render.fort(BINDING).as_deref(),
        Some("z"),
        "tied replicas: the binding's own order decides"
    );
    assert_eq!(render.replicas("v", "apps/deployment.apps_web.yaml"), None);
}

#[test]
fn the_fort_label_drives_an_ordinary_override_policy() {
    let fleet = fort_fleet(&[("x", 2), ("v", 1), ("z", 1)], 4);
    fleet.write(
        "override.yaml",
        "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata:\n  name: fort\n  namespace: apps\nspec:\n  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  overrideRules:\n  - targetCluster:\n      labelSelector:\n        matchLabels:\n          garrison.dev/fort: \"true\"\n    overriders:\n      labelsOverrider:\n      - operator: add\n        value:\n          role: fort\n",
    );
    let render = fleet.render();
    assert!(render
        .file("clusters/x/apps/deployment.apps_web.yaml")
        .contains("role: fort"));
    assert!(!render
        .file("clusters/v/apps/deployment.apps_web.yaml")
        .contains("role: fort"));
}
