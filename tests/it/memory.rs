//! The previous render as the scheduler's memory (SPEC §2): Divided
//! workloads are rescheduled only when Karmada would reschedule them.

use crate::fleet::{clusters, deployment, deployment_file, policy, Fleet, DIVIDED, DUPLICATED};

#[test]
fn a_joining_cluster_does_not_reshuffle_a_divided_workload() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a", "b", "c"]));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    let first = fleet.render();
    assert_eq!(
        [
            first.replicas("a", &deployment_file("web")),
            first.replicas("b", &deployment_file("web")),
            first.replicas("c", &deployment_file("web"))
        ],
        [Some(2), Some(2), Some(2)]
    );

    fleet.write("clusters.yaml", &clusters(&["a", "b", "c", "d"]));
    let second = fleet.render();
    assert_eq!(
        second.replicas("d", &deployment_file("web")),
        None,
        "Karmada does not reschedule Divided workloads when a cluster joins"
    );
    assert_eq!(second.replicas("a", &deployment_file("web")), Some(2));
}

#[test]
fn changed_replicas_reschedule_over_the_current_fleet() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a", "b", "c"]));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.render();
    fleet.write("clusters.yaml", &clusters(&["a", "b", "c", "d"]));
    fleet.write("app.yaml", &deployment("web", 9, "v1"));
    let render = fleet.render();
    let got: Vec<Option<u64>> = ["a", "b", "c", "d"]
        .iter()
        .map(|c| render.replicas(c, &deployment_file("web")))
        .collect();
    // 9 over four equal weights: Webster gives the extra seat to the smallest name.
    assert_eq!(got, [Some(3), Some(2), Some(2), Some(2)]);
}

#[test]
fn a_removed_cluster_triggers_a_reschedule() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a", "b", "c"]));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.render();
    fleet.write("clusters.yaml", &clusters(&["a", "b"]));
    let render = fleet.render();
    assert_eq!(render.replicas("a", &deployment_file("web")), Some(3));
    assert_eq!(render.replicas("b", &deployment_file("web")), Some(3));
    assert!(
        render.cluster("c").is_empty(),
        "a cluster that left the fleet has no directory"
    );
}

#[test]
fn a_changed_placement_triggers_a_reschedule() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a", "b", "c"]));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.render();
    let placement = "    clusterAffinity:\n      clusterNames: [a, b]\n".to_string() + DIVIDED;
    fleet.write("policy.yaml", &policy("web", &placement, &[], ""));
    let render = fleet.render();
    assert_eq!(render.replicas("a", &deployment_file("web")), Some(3));
    assert_eq!(render.replicas("c", &deployment_file("web")), None);
}

#[test]
fn duplicated_workloads_follow_a_joining_cluster() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a", "b"]));
    fleet.write("app.yaml", &deployment("web", 2, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    fleet.render();
    fleet.write("clusters.yaml", &clusters(&["a", "b", "c"]));
    let render = fleet.render();
    assert_eq!(render.replicas("c", &deployment_file("web")), Some(2));
}

#[test]
fn a_template_removed_from_the_source_is_pruned() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a"]));
    fleet.write("app.yaml", &deployment("web", 1, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    let first = fleet.render();
    assert!(first
        .tree
        .contains_key(&format!("clusters/a/{}", deployment_file("web"))));
    fleet.remove("app.yaml");
    // The fleet's only object: removing it is a mass prune, allowed here.
    let second = fleet.render_with(&["--allow-mass-prune"]);
    assert!(!second
        .tree
        .contains_key(&format!("clusters/a/{}", deployment_file("web"))));
    assert!(
        !second.tree.keys().any(|p| p.starts_with("bindings/apps/")),
        "its binding is pruned too"
    );
    assert!(second
        .file("clusters/a/kustomization.yaml")
        .contains("resources: []"));
}
