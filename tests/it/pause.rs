//! Paused clusters and suspended dispatching across renders (SPEC §5).

use crate::fleet::{
    cluster, clusters, deployment, deployment_file, policy, weighted, Fleet, Render, DIVIDED,
    DUPLICATED,
};
use crate::support::{read_tree, render_to, stdout, testdata};

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

/// The replicas of `web` on a, b and c.
fn shares(render: &Render) -> [Option<u64>; 3] {
    let file = deployment_file("web");
    ["a", "b", "c"].map(|c| render.replicas(c, &file))
}

const SUSPEND_C: &str = "  suspension:\n    dispatchingOnClusters:\n      clusterNames: [c]\n";
const SUSPEND_ALL: &str = "  suspension:\n    dispatching: true\n";
const BINDING: &str = "bindings/apps/deployment.apps_web.yaml";

#[test]
fn a_cluster_paused_since_the_first_render_gets_its_share_when_unpaused() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(Some("c")));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    assert_eq!(shares(&fleet.render()), [Some(3), Some(3), None]);
    // A render that changes nothing must not forget why c has nothing.
    assert_eq!(shares(&fleet.render()), [Some(3), Some(3), None]);
    fleet.write("clusters.yaml", &three(None));
    insta::assert_snapshot!(fleet.explain("Deployment/apps/web"), @r"
    Deployment/apps/web (apps/v1)
    template: app.yaml:1
    policy: PropagationPolicy/apps/web
    schedule: made again — cluster `c` is no longer paused or suspended: divided again over all its clusters
      desired replicas: 6
    clusters considered:
      a: selected
      b: selected
      c: selected
    binding:
      a  replicas 2  weight 1
      b  replicas 2  weight 1
      c  replicas 2  weight 1
    ");
    assert_eq!(shares(&fleet.render()), [Some(2), Some(2), Some(2)]);
}

#[test]
fn a_cluster_paused_since_the_first_render_gets_the_edited_share_when_unpaused() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(Some("c")));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.render();
    fleet.write("app.yaml", &deployment("web", 9, "v2"));
    assert_eq!(shares(&fleet.render()), [Some(5), Some(4), None]);
    fleet.write("clusters.yaml", &three(None));
    let render = fleet.render();
    assert_eq!(shares(&render), [Some(3), Some(3), Some(3)]);
    assert!(render
        .file(&format!("clusters/c/{}", deployment_file("web")))
        .contains(":v2"));
}

#[test]
fn lifting_a_suspension_on_one_cluster_divides_again_over_it() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], SUSPEND_C));
    assert_eq!(shares(&fleet.render()), [Some(3), Some(3), None]);
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    insta::assert_snapshot!(fleet.placements(), @"Deployment/apps/web → a×2, b×2, c×2; rescheduled: cluster `c` is no longer paused or suspended: divided again over all its clusters");
    assert_eq!(shares(&fleet.render()), [Some(2), Some(2), Some(2)]);
}

#[test]
fn lifting_a_suspension_of_all_dispatching_divides_over_every_cluster() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], SUSPEND_ALL));
    assert_eq!(shares(&fleet.render()), [None, None, None]);
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    assert_eq!(shares(&fleet.render()), [Some(2), Some(2), Some(2)]);
}

#[test]
fn a_suspension_that_withholds_an_application_is_counted_as_held_back() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], SUSPEND_C));
    let render = fleet.render();
    insta::assert_snapshot!(render.stdout.lines().filter(|l| l.starts_with("held back")).collect::<Vec<_>>().join("\n"), @"held back on c: 2 to add, 0 to change, 0 to remove");
}

#[test]
fn pausing_and_unpausing_a_cluster_outside_the_placement_reschedules_nothing() {
    let only_a_and_b = format!(
        "    clusterAffinity:\n      clusterNames: [a, b]\n{}",
        DIVIDED
    );
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", &only_a_and_b, &[], ""));
    let binding = fleet.render().file(BINDING);
    for paused in [Some("c"), None] {
        fleet.write("clusters.yaml", &three(paused));
        assert_eq!(
            fleet.placements(),
            "Deployment/apps/web → a×3, b×3",
            "not rescheduled (c paused: {paused:?})"
        );
        assert_eq!(
            fleet.render().file(BINDING),
            binding,
            "c paused: {paused:?}"
        );
    }
}

#[test]
fn a_cluster_that_joins_the_fleet_paused_gets_its_share_when_unpaused() {
    let two = || clusters(&["a", "b"]);
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &two());
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.render();
    // Joining unpaused reshuffles nothing, as in Karmada.
    fleet.write("clusters.yaml", &three(None));
    assert_eq!(shares(&fleet.render()), [Some(3), Some(3), None]);
    // Joining paused, then unpaused: the pause kept it out, so it gets its share.
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &two());
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.render();
    fleet.write("clusters.yaml", &three(Some("c")));
    assert_eq!(shares(&fleet.render()), [Some(3), Some(3), None]);
    fleet.write("clusters.yaml", &three(None));
    assert_eq!(shares(&fleet.render()), [Some(2), Some(2), Some(2)]);
}

#[test]
fn pausing_a_cluster_of_the_binding_says_so_and_keeps_its_share() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.render();
    fleet.write("clusters.yaml", &three(Some("c")));
    insta::assert_snapshot!(fleet.placements(), @"Deployment/apps/web → a×2, b×2, c×2 (held); rescheduled: cluster `c` was paused");
    fleet.write("clusters.yaml", &three(None));
    insta::assert_snapshot!(fleet.placements(), @"Deployment/apps/web → a×2, b×2, c×2; rescheduled: cluster `c` is no longer paused or suspended: divided again over all its clusters");
    insta::assert_snapshot!(fleet.placements(), @"Deployment/apps/web → a×2, b×2, c×2");
}

#[test]
fn a_binding_written_before_withheld_clusters_were_recorded_still_gives_an_unpaused_cluster_its_share(
) {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(Some("c")));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.render();
    let older = |fleet: &Fleet| {
        let path = fleet.out().join(BINDING);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(text.contains("garrison.dev/withheld-clusters"), "{text}");
        let without: String = text
            .lines()
            .filter(|l| !l.contains("garrison.dev/withheld-clusters"))
            .map(|l| format!("{l}\n"))
            .collect();
        if let Err(e) = std::fs::write(&path, without) {
            panic!("{e}");
        }
    };
    // While c stays paused, the older binding is kept as it is.
    older(&fleet);
    insta::assert_snapshot!(fleet.placements(), @"Deployment/apps/web → a×3, b×3; held back on c×2");
    older(&fleet);
    fleet.write("clusters.yaml", &three(None));
    insta::assert_snapshot!(fleet.placements(), @"Deployment/apps/web → a×2, b×2, c×2; rescheduled: cluster `c` is selected but not in a binding written before garrison recorded withheld clusters (it may have been paused then): divided again over all its clusters");
    // A binding of that age that lacks no selected cluster is simply kept.
    older(&fleet);
    insta::assert_snapshot!(fleet.placements(), @"Deployment/apps/web → a×2, b×2, c×2");
}

#[test]
fn held_back_counts_are_the_same_on_every_render_of_the_same_inputs() {
    let held_back = |output: &std::process::Output| {
        assert!(output.status.success());
        stdout(output)
            .lines()
            .filter(|l| l.starts_with("held back"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    // The bundled fleet: the paused us-west-2 holds back a Divided share,
    // Duplicated applications and the dependencies that follow them.
    let dir = crate::support::temp();
    let repo = testdata().join("fleet/repo");
    let out = dir.path().join("out");
    let first = held_back(&render_to(&repo, &out, &[]));
    insta::assert_snapshot!(first, @"held back on us-west-2: 10 to add, 0 to change, 0 to remove");
    let rendered = read_tree(&out);
    assert_eq!(held_back(&render_to(&repo, &out, &[])), first);
    assert_eq!(
        read_tree(&out),
        rendered,
        "the second render changes nothing"
    );

    // A cluster paused after it was scheduled, with a change held back.
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 6, "v1"));
    fleet.write("policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet.render();
    fleet.write("clusters.yaml", &three(Some("c")));
    fleet.write("app.yaml", &deployment("web", 9, "v2"));
    let first = held_back(&fleet.try_render(&[]));
    insta::assert_snapshot!(first, @"held back on c: 0 to add, 1 to change, 0 to remove");
    assert_eq!(held_back(&fleet.try_render(&[])), first);
}

#[test]
fn held_back_counts_of_a_cluster_unpaused_while_still_suspended_stay_the_same() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(Some("c")));
    fleet.write("app.yaml", &deployment("web", 3, "v1"));
    fleet.write("api.yaml", &deployment("api", 3, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], SUSPEND_C));
    fleet.write("api-policy.yaml", &policy("api", DUPLICATED, &[], ""));
    fleet.render();
    // c now gets `api` and the namespace; `web` and nothing else stays held back.
    fleet.write("clusters.yaml", &three(None));
    let held_back = |render: Render| {
        render
            .stdout
            .lines()
            .filter(|l| l.starts_with("held back"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let first = held_back(fleet.render());
    insta::assert_snapshot!(first, @"held back on c: 1 to add, 0 to change, 0 to remove");
    assert_eq!(held_back(fleet.render()), first);
}

#[test]
fn an_application_scaled_to_zero_while_frozen_renders_the_same_twice() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 1, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    fleet.render();
    fleet.write("clusters.yaml", &three(Some("c")));
    fleet.render();
    fleet.write("app.yaml", &deployment("web", 0, "v1"));
    let scaled = fleet.render();
    assert_eq!(
        fleet.render().tree,
        scaled.tree,
        "the binding read back is the binding written"
    );
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
fn a_suspended_application_keeps_its_namespace_when_nothing_else_uses_it() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 3, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    let before = fleet.render().cluster("a");
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], SUSPEND_ALL));
    assert_eq!(
        fleet.render().cluster("a"),
        before,
        "the Namespace of the frozen Deployment stays, and so does its kustomization entry"
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

/// `diff` shows apart what holds keep back, laid over the previous render:
/// every change on a paused cluster (`b`), and on `c` the change of the
/// one application whose dispatching is suspended there; in both output
/// formats, whose files are named differently.
#[test]
fn diff_shows_apart_what_a_pause_and_a_suspension_hold_back() {
    for format in ["manifests", "work"] {
        let fleet = Fleet::new();
        fleet.write("clusters.yaml", &three(None));
        for app in ["web", "api"] {
            fleet.write(&format!("{app}.yaml"), &deployment(app, 2, "v1"));
            fleet.write(
                &format!("{app}-policy.yaml"),
                &policy(app, DUPLICATED, &[], ""),
            );
        }
        fleet.render_with(&["--format", format]);
        fleet.write("clusters.yaml", &three(Some("b")));
        fleet.write(
            "web-policy.yaml",
            &policy("web", DUPLICATED, &[], SUSPEND_C),
        );
        fleet.write("web.yaml", &deployment("web", 2, "v2"));
        fleet.write("api.yaml", &deployment("api", 2, "v2"));
        let (repo, out) = (fleet.repo.to_string_lossy(), fleet.out().to_string_lossy());
        let diff = crate::support::run(&["diff", "--repo", &repo, "--out", &out]);
        assert_eq!(
            diff.status.code(),
            Some(0),
            "{}",
            crate::support::stderr(&diff)
        );
        insta::assert_snapshot!(format!("diff_held_back_{format}"), stdout(&diff));
    }
}

/// A hold keeps an application's files as they are: a render in another
/// format would drop them from a cluster whose directory it writes again
/// (and the GitOps agent would delete the application there), so it is
/// refused and nothing is written. A paused cluster, kept whole in the old
/// format, is no reason to refuse.
#[test]
fn a_format_change_is_refused_while_a_hold_keeps_an_applications_files() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &three(None));
    fleet.write("app.yaml", &deployment("web", 3, "v1"));
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    fleet.render();
    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], SUSPEND_C));
    let before = read_tree(fleet.out());
    let refused = fleet.try_render(&["--format", "work", "--allow-mass-prune"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stdout(&refused));
    assert_eq!(read_tree(fleet.out()), before, "nothing written");
    insta::assert_snapshot!(crate::support::stderr(&refused).lines().next().unwrap_or_default(), @"error[G0605]: this render writes `work` files, the previous one `manifests`, but a hold keeps the files of `Deployment/apps/web` on cluster `c` as they are: written again in the new format they would be dropped, and the GitOps agent would delete what the hold keeps running (help: render with `--format manifests` until the hold is lifted (the cluster unpaused, or the policy's `suspension` ended), then change the format)");

    fleet.write("policy.yaml", &policy("web", DUPLICATED, &[], ""));
    fleet.write("clusters.yaml", &three(Some("c")));
    let render = fleet.render_with(&["--format", "work", "--allow-mass-prune"]);
    let c: std::collections::BTreeMap<String, Vec<u8>> = before
        .into_iter()
        .filter(|(p, _)| p.starts_with("clusters/c/"))
        .collect();
    assert_eq!(
        render.cluster("c"),
        c,
        "the paused cluster keeps its manifests"
    );
    assert!(
        render
            .cluster("a")
            .keys()
            .any(|p| p.contains("work.work.karmada.io")),
        "the others are written as Works"
    );
}
