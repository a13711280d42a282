//! Paused clusters and suspended dispatching across renders (SPEC §5).

use crate::fleet::{
    cluster, clusters, deployment, deployment_file, policy, weighted, Fleet, DIVIDED, DUPLICATED,
};

fn three(paused: Option<&str>) -> String {
    ["a", "b", "c"]
        .iter()
        .map(|n| cluster(n, &[], Some(*n) == paused))
        .collect::<Vec<_>>()
        .join("---\n")
}

#[test]
fn a_paused_cluster_keeps_its_bytes_through_source_edits() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 3, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    let before = fleet.render().cluster("c");
    fleet.write("clusters.yaml", &three(Some("c")));
    fleet.write("app.yaml", &deployment("web", 5, "v2"));
    fleet.write("other.yaml", &deployment("api", 1, "v1"));
    fleet.write("other-policy.yaml", &policy("api", DUPLICATED, &[], ""));
    let render = fleet.render();
    assert_eq!(
        render.cluster("c"),
        before,
        "nothing added, changed or removed on the paused cluster"
    );
    assert!(render
        .file(&format!("clusters/a/{}", deployment_file("web")))
        .contains(":v2"));
    insta::assert_snapshot!(render.stdout.lines().filter(|l| l.starts_with("held back")).collect::<Vec<_>>().join("\n"), @"held back on c: 1 to add, 1 to change, 0 to remove");
}

#[test]
fn a_template_deleted_while_paused_stays_on_the_paused_cluster() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 3, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    let before = fleet.render().cluster("c");
    fleet.write("clusters.yaml", &three(Some("c")));
    fleet.remove("app.yaml");
    // Every object of the active clusters goes: a mass prune, allowed here.
    let render = fleet.render_with(&["--allow-mass-prune"]);
    assert_eq!(render.cluster("c"), before);
    assert!(
        render
            .cluster("a")
            .keys()
            .all(|p| !p.contains("deployment")),
        "pruned on active clusters"
    );
}

#[test]
fn divided_replicas_keep_the_paused_share_and_divide_the_rest() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.render();
    fleet.write("clusters.yaml", &three(Some("c")));
    fleet.write("app.yaml", &deployment("web", 9, "v1"));
    let render = fleet.render();
    let file = deployment_file("web");
    // c keeps 2; the other 7 are divided 4/3 between a and b.
    assert_eq!(
        [
            render.replicas("a", &file),
            render.replicas("b", &file),
            render.replicas("c", &file)
        ],
        [Some(4), Some(3), Some(2)]
    );
    // Scaling below the paused share leaves the active clusters at zero, never below.
    fleet.write("app.yaml", &deployment("web", 1, "v1"));
    let render = fleet.render();
    assert_eq!(
        [
            render.replicas("a", &file),
            render.replicas("b", &file),
            render.replicas("c", &file)
        ],
        [Some(0), Some(0), Some(2)]
    );
}

#[test]
fn unpausing_brings_the_cluster_to_the_desired_state() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.render();
    fleet.write("clusters.yaml", &three(Some("c")));
    fleet.write("app.yaml", &deployment("web", 9, "v2"));
    fleet.render();
    fleet.write("clusters.yaml", &three(None));
    let render = fleet.render();
    let file = deployment_file("web");
    assert_eq!(
        [
            render.replicas("a", &file),
            render.replicas("b", &file),
            render.replicas("c", &file)
        ],
        [Some(3), Some(3), Some(3)]
    );
    assert!(render.file(&format!("clusters/c/{file}")).contains(":v2"));
}

#[test]
fn a_first_render_gives_a_paused_cluster_nothing() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(Some("c")));
    fleet.write("app.yaml", &deployment("web", 4, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    let render = fleet.render();
    assert_eq!(
        render.cluster("c").keys().cloned().collect::<Vec<_>>(),
        ["clusters/c/kustomization.yaml"]
    );
    assert_eq!(render.replicas("a", &deployment_file("web")), Some(2));
}

#[test]
fn a_managed_cluster_pauses_with_sync_paused() {
    let managed = |paused: bool| {
        format!("apiVersion: clusters.clusternet.io/v1beta1\nkind: ManagedCluster\nmetadata:\n  name: edge\nspec:\n  clusterId: 5f9da921-a437-4a8e-a6fe-1a4b5b6e5ed6\n  syncMode: Pull\n  syncPaused: {paused}\n")
    };
    let fleet = Fleet::new();
    fleet.write(
        "clusters.yaml",
        &(clusters(&["a"]) + "---\n" + &managed(false)),
    );
    fleet.write("app.yaml", &deployment("web", 1, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    let before = fleet.render().cluster("edge");
    fleet.write(
        "clusters.yaml",
        &(clusters(&["a"]) + "---\n" + &managed(true)),
    );
    fleet.write("app.yaml", &deployment("web", 1, "v2"));
    let render = fleet.render();
    assert_eq!(render.cluster("edge"), before);
    assert!(render
        .file(&format!("clusters/a/{}", deployment_file("web")))
        .contains(":v2"));
}

#[test]
fn suspended_dispatching_freezes_only_that_policys_files() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 3, "v1"));
    fleet.write("api.yaml", &deployment("api", 1, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    fleet.write("api-policy.yaml", &policy("api", DUPLICATED, &[], ""));
    let first = fleet.render();
    let suspension = "  suspension:\n    dispatchingOnClusters:\n      clusterNames: [b]\n";
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], suspension));
    fleet.write("app.yaml", &deployment("web", 3, "v2"));
    fleet.write("api.yaml", &deployment("api", 1, "v2"));
    let render = fleet.render();
    let web = format!("clusters/b/{}", deployment_file("web"));
    assert_eq!(
        render.tree.get(&web),
        first.tree.get(&web),
        "web is frozen on b"
    );
    assert!(
        render
            .file(&format!("clusters/b/{}", deployment_file("api")))
            .contains(":v2"),
        "api still updates on b"
    );
    assert!(
        render
            .file(&format!("clusters/a/{}", deployment_file("web")))
            .contains(":v2"),
        "web still updates on a"
    );
    assert!(render
        .file("clusters/b/kustomization.yaml")
        .contains("deployment.apps_web.yaml"));
}

#[test]
fn suspended_dispatching_everywhere_freezes_every_cluster_for_that_policy() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 3, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    let first = fleet.render();
    fleet.write(
        "policy.yaml",
        &policy(
            "web",
            DUPLICATED,
            &[],
            "  suspension:\n    dispatching: true\n",
        ),
    );
    fleet.write("app.yaml", &deployment("web", 3, "v2"));
    let render = fleet.render();
    for c in ["a", "b", "c"] {
        let path = format!("clusters/{c}/{}", deployment_file("web"));
        assert_eq!(render.tree.get(&path), first.tree.get(&path), "{c}");
    }
    assert!(
        render
            .stdout
            .contains("held back on a: 0 to add, 1 to change, 0 to remove"),
        "{}",
        render.stdout
    );
}

#[test]
fn a_fort_on_a_paused_cluster_stays_and_no_new_fort_goes_to_a_paused_cluster() {
    let fort = &[("garrison.dev/fort", "enabled")];
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write(
        "policy.yaml",
        &policy("web", &weighted(&[("a", 1), ("b", 1), ("c", 3)]), fort, ""),
    );
    assert_eq!(
        fleet
            .render()
            .fort("apps/deployment.apps_web.yaml")
            .as_deref(),
        Some("c")
    );
    fleet.write("clusters.yaml", &three(Some("c")));
    assert_eq!(
        fleet
            .render()
            .fort("apps/deployment.apps_web.yaml")
            .as_deref(),
        Some("c"),
        "frozen there"
    );

    let fresh = Fleet::new();
    fresh.write("clusters.yaml", &three(Some("c")));
    fresh.write("app.yaml", &deployment("web", 6, "v1"));
    fresh.write(
        "policy.yaml",
        &policy("web", &weighted(&[("a", 1), ("b", 2), ("c", 3)]), fort, ""),
    );
    assert_eq!(
        fresh
            .render()
            .fort("apps/deployment.apps_web.yaml")
            .as_deref(),
        Some("b")
    );
}
