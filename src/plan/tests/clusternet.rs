//! Clusternet applications planned (clusternet-semantics §2–§6): the
//! binding a Subscription makes, what a Dividing one keeps between renders
//! (Clusternet's `admit`), pauses, forts, and what Localizations reach.

use super::{decide, inputs, replicas as shares, web};
use crate::model::inputs::Inputs;
use crate::model::previous::PreviousRender;
use crate::plan::materialise::Materialiser;
use crate::plan::Plan;
use crate::schedule::Decision;
use proptest::prelude::*;

fn managed(name: &str, namespace: &str, labels: &str, extra: &str) -> String {
    format!(
        "apiVersion: clusters.clusternet.io/v1beta1
kind: ManagedCluster
metadata: {{name: {name}, namespace: {namespace}, labels: {{{labels}}}}}
spec: {{clusterId: 00000000-0000-4000-8000-000000000000, syncMode: Pull{extra}}}"
    )
}

fn deployment(replicas: u64) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: shop}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec: {{containers: [{{name: web, image: nginx}}]}}"
    )
}

/// A Subscription of `web`: `strategy` Dividing (static) or Replication,
/// subscribers `env=prod` weight 1 and `tier=big` weight 2.
fn subscription(strategy: &str, annotations: &str) -> String {
    let dividing = if strategy == "Dividing" {
        "\n  dividingScheduling: {type: Static}"
    } else {
        ""
    };
    format!(
        "apiVersion: apps.clusternet.io/v1alpha1
kind: Subscription
metadata: {{name: web, namespace: shop, annotations: {{{annotations}}}}}
spec:
  schedulingStrategy: {strategy}{dividing}
  subscribers:
  - clusterAffinity: {{matchLabels: {{env: prod}}}}
    weight: 1
  - clusterAffinity: {{matchLabels: {{tier: big}}}}
    weight: 2
  feeds:
  - {{apiVersion: apps/v1, kind: Deployment, namespace: shop, name: web}}"
    )
}

fn fleet(extra_for_c: &str) -> Vec<String> {
    vec![
        managed("a", "ns-a", "env: prod", ""),
        managed("b", "ns-b", "env: prod, tier: big", ""),
        managed("c", "ns-c", "env: prod", extra_for_c),
    ]
}

fn plan(docs: &[String], previous: &PreviousRender) -> (Inputs, Plan) {
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let inputs = inputs(&refs);
    let plan = decide(&inputs, previous);
    (inputs, plan)
}

fn remembered(plan: &Plan) -> PreviousRender {
    let app = web(plan);
    PreviousRender {
        bindings: [(app.key.clone(), app.record(None))].into(),
        ..PreviousRender::default()
    }
}

#[test]
fn a_dividing_subscription_divides_by_summed_weights() {
    let mut docs = fleet("");
    docs.extend([deployment(10), subscription("Dividing", "")]);
    let (_, plan) = plan(&docs, &PreviousRender::default());
    // Weights a 1, b 1 + 2, c 1: 10 divides exactly into 2, 6, 2.
    assert_eq!(
        shares(web(&plan)),
        [("a", 2, false), ("b", 6, false), ("c", 2, false)]
    );
    assert!(web(&plan).binding.revise);
}

#[test]
fn replication_sends_the_whole_feed_and_writes_no_replicas() {
    let mut docs = fleet("");
    docs.extend([deployment(10), subscription("Replication", "")]);
    let (_, plan) = plan(&docs, &PreviousRender::default());
    assert_eq!(
        shares(web(&plan)),
        [("a", 10, false), ("b", 10, false), ("c", 10, false)]
    );
    assert!(!web(&plan).binding.revise);
}

#[test]
fn a_dividing_schedule_is_kept_until_its_subscription_or_replicas_change() {
    let mut docs = fleet("");
    docs.extend([deployment(10), subscription("Dividing", "")]);
    let (_, first) = plan(&docs, &PreviousRender::default());
    let previous = remembered(&first);
    // A cluster joins: Clusternet does not reschedule a Dividing Subscription.
    docs.push(managed("d", "ns-d", "env: prod", ""));
    let (_, joined) = plan(&docs, &previous);
    assert_eq!(web(&joined).binding.decision, Decision::Kept);
    assert_eq!(shares(web(&joined)), shares(web(&first)));
    // The desired count changes: scheduled again, the new cluster included.
    docs[3] = deployment(12);
    let (_, scaled) = plan(&docs, &previous);
    assert!(
        matches!(web(&scaled).binding.decision, Decision::Rescheduled(ref why) if why.contains("replicas"))
    );
    assert_eq!(web(&scaled).binding.clusters.len(), 4);
    // A cluster of the binding is gone: scheduled again (garrison's rule).
    let mut gone = fleet("");
    gone.remove(2);
    gone.extend([deployment(10), subscription("Dividing", "")]);
    let (_, left) = plan(&gone, &previous);
    assert!(
        matches!(web(&left).binding.decision, Decision::Rescheduled(ref why) if why.contains("left the fleet"))
    );
    // Floors 2 and 7; the one left goes to the heaviest, b.
    assert_eq!(shares(web(&left)), [("a", 2, false), ("b", 8, false)]);
}

#[test]
fn replication_is_worked_out_again_on_every_render() {
    let mut docs = fleet("");
    docs.extend([deployment(4), subscription("Replication", "")]);
    let (_, first) = plan(&docs, &PreviousRender::default());
    docs.push(managed("d", "ns-d", "env: prod", ""));
    let (_, again) = plan(&docs, &remembered(&first));
    assert_eq!(web(&again).binding.clusters.len(), 4);
}

#[test]
fn a_paused_cluster_keeps_its_share_and_the_rest_is_divided_among_the_others() {
    let mut docs = fleet("");
    docs.extend([deployment(10), subscription("Dividing", "")]);
    let (_, first) = plan(&docs, &PreviousRender::default());
    let mut paused = fleet(", syncPaused: true");
    paused.extend([deployment(20), subscription("Dividing", "")]);
    let (_, held) = plan(&paused, &remembered(&first));
    // c keeps 2; the other 18 go over a (1) and b (3): 4 and 13, one left to b.
    assert_eq!(
        shares(web(&held)),
        [("a", 4, false), ("b", 14, false), ("c", 2, true)]
    );
    // A first render gives a paused cluster nothing.
    let (_, fresh) = plan(&paused, &PreviousRender::default());
    assert_eq!(shares(web(&fresh)), [("a", 5, false), ("b", 15, false)]);
    assert_eq!(
        web(&fresh).binding.withheld,
        ["c".to_string()].into_iter().collect()
    );
}

#[test]
fn a_paused_cluster_the_subscription_no_longer_selects_keeps_its_share() {
    let mut docs = fleet("");
    docs.extend([deployment(10), subscription("Dividing", "")]);
    let (_, first) = plan(&docs, &PreviousRender::default());
    // c is paused and relabelled: nothing on it is evicted, and its 2
    // replicas still count against the 10.
    let mut moved = fleet("");
    moved[2] = managed("c", "ns-c", "env: lab", ", syncPaused: true");
    moved.extend([deployment(10), subscription("Dividing", "")]);
    let (_, held) = plan(&moved, &remembered(&first));
    assert_eq!(
        shares(web(&held)),
        [("a", 2, false), ("b", 6, false), ("c", 2, true)]
    );
}

#[test]
fn the_fort_goes_to_the_heaviest_cluster_when_the_subscription_opts_in() {
    let mut docs = fleet("");
    docs.extend([
        deployment(3),
        subscription("Replication", "garrison.dev/fort: enabled"),
    ]);
    let (_, plan) = plan(&docs, &PreviousRender::default());
    let fort = web(&plan).fort.as_ref().map(|f| f.cluster.as_str());
    assert_eq!(fort, Some("b"));
    let mut off = fleet("");
    off.extend([deployment(3), subscription("Replication", "")]);
    let (_, plan) = self::plan(&off, &PreviousRender::default());
    assert!(web(&plan).fort.is_none());
}

/// The object `web` gets on each cluster of its binding.
fn objects(inputs: &Inputs, plan: &Plan) -> Vec<(String, serde_json::Value)> {
    let materialiser = Materialiser::new(inputs);
    let index = plan
        .apps
        .iter()
        .position(|a| a.key.name == "web")
        .unwrap_or(0);
    plan.apps[index]
        .binding
        .clusters
        .iter()
        .map(|a| {
            let cluster = inputs.clusters.iter().find(|c| c.name == a.cluster);
            let made = cluster
                .and_then(|c| plan.materialise(&materialiser, index, c, a.replicas))
                .map(|m| m.map(|m| m.value));
            match made {
                Some(Ok(value)) => (a.cluster.clone(), value),
                other => panic!("{}: {other:?}", a.cluster),
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Static division hands out exactly the desired replicas whenever
    /// some bound cluster has weight.
    #[test]
    fn divided_replicas_sum_to_the_desired_count(
        replicas in 0u64..500,
        weights in prop::collection::vec(0i32..6, 1..6),
    ) {
        let mut docs: Vec<String> = (0..weights.len())
            .map(|i| managed(&format!("m{i}"), &format!("ns-{i}"), &format!("i: '{i}'"), ""))
            .collect();
        let subscribers: String = weights
            .iter()
            .enumerate()
            .map(|(i, w)| format!("\n  - clusterAffinity: {{matchLabels: {{i: '{i}'}}}}\n    weight: {w}"))
            .collect();
        docs.push(deployment(replicas));
        docs.push(format!(
            "apiVersion: apps.clusternet.io/v1alpha1
kind: Subscription
metadata: {{name: web, namespace: shop}}
spec:
  schedulingStrategy: Dividing
  dividingScheduling: {{type: Static}}
  subscribers:{subscribers}
  feeds:
  - {{apiVersion: apps/v1, kind: Deployment, namespace: shop, name: web}}"
        ));
        let (_, plan) = plan(&docs, &PreviousRender::default());
        let app = web(&plan);
        let total: u64 = app.binding.clusters.iter().map(|a| a.replicas).sum();
        if weights.iter().any(|&w| w > 0) {
            prop_assert_eq!(total, replicas);
        } else {
            prop_assert!(app.binding.clusters.iter().all(|a| a.replicas == replicas));
        }
        prop_assert_eq!(app.binding.clusters.len(), weights.len());
    }

    /// A Localization changes its own cluster's object and no other.
    #[test]
    fn a_localization_never_changes_another_clusters_output(
        target in 0usize..3,
        label in "[a-z]{1,8}",
        replicas in 1u64..20,
    ) {
        let mut docs = fleet("");
        docs.extend([deployment(replicas), subscription("Dividing", "")]);
        let (inputs_before, before) = plan(&docs, &PreviousRender::default());
        let namespace = ["ns-a", "ns-b", "ns-c"][target];
        docs.push(format!(
            "apiVersion: apps.clusternet.io/v1alpha1
kind: Localization
metadata: {{name: tag, namespace: {namespace}}}
spec:
  feed: {{apiVersion: apps/v1, kind: Deployment, namespace: shop, name: web}}
  overrides:
  - type: MergePatch
    value: '{{\"metadata\": {{\"labels\": {{\"tag\": \"{label}\"}}}}, \"spec\": {{\"replicas\": 99}}}}'"
        ));
        let (inputs_after, after) = plan(&docs, &PreviousRender::default());
        let old = objects(&inputs_before, &before);
        let new = objects(&inputs_after, &after);
        let cluster = ["a", "b", "c"][target];
        for ((name, a), (_, b)) in old.iter().zip(&new) {
            if name == cluster {
                prop_assert_eq!(b.pointer("/metadata/labels/tag").and_then(|v| v.as_str()), Some(label.as_str()));
                // The division is written last: the override's replicas lose.
                prop_assert_eq!(b.pointer("/spec/replicas"), a.pointer("/spec/replicas"));
            } else {
                prop_assert_eq!(a, b);
            }
        }
    }
}

#[test]
fn where_nothing_is_divided_the_users_replicas_stand_and_absent_ones_default_to_one() {
    let mut docs = fleet("");
    let weightless = subscription("Dividing", "")
        .replace("weight: 1", "weight: 0")
        .replace("weight: 2", "weight: 0");
    docs.extend([deployment(4), weightless]);
    docs.push(
        "apiVersion: apps.clusternet.io/v1alpha1
kind: Localization
metadata: {name: two, namespace: ns-a}
spec:
  feed: {apiVersion: apps/v1, kind: Deployment, namespace: shop, name: web}
  overrides:
  - type: JSONPatch
    value: '[{\"op\": \"replace\", \"path\": \"/spec/replicas\", \"value\": 2}]'"
            .to_string(),
    );
    let (inputs, planned) = plan(&docs, &PreviousRender::default());
    let replicas: Vec<(String, Option<u64>)> = objects(&inputs, &planned)
        .into_iter()
        .map(|(c, v)| (c, v.pointer("/spec/replicas").and_then(|r| r.as_u64())))
        .collect();
    let expected = [("a", 2), ("b", 4), ("c", 4)].map(|(c, r)| (c.to_string(), Some(r)));
    assert_eq!(replicas, expected);
    // A Deployment written without replicas is delivered with the hub's default.
    let mut docs = fleet("");
    let without = deployment(1).replace("  replicas: 1\n", "");
    docs.extend([without, subscription("Replication", "")]);
    let (inputs, planned) = plan(&docs, &PreviousRender::default());
    for (cluster, object) in objects(&inputs, &planned) {
        assert_eq!(
            object.pointer("/spec/replicas"),
            Some(&serde_json::json!(1)),
            "{cluster}"
        );
    }
}

#[test]
fn a_feed_without_a_namespace_delivers_every_template_of_the_name_and_says_so() {
    let mut docs = fleet("");
    let other = deployment(2).replace("namespace: shop", "namespace: blog");
    docs.extend([
        deployment(2),
        other,
        subscription("Replication", "").replace("namespace: shop, name: web}", "name: web}"),
    ]);
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let planned = decide(&inputs(&refs), &PreviousRender::default());
    let fed: Vec<String> = planned.apps.iter().map(|a| a.key.to_string()).collect();
    assert_eq!(fed, ["Deployment/blog/web", "Deployment/shop/web"]);
    assert!(
        planned.warnings.0.iter().any(|d| d
            .message
            .contains("without a namespace, which names 2 templates")),
        "{:?}",
        planned.warnings
    );
}

/// Overrides of a HelmChart a Subscription feeds are skipped with the
/// chart (G0105), not reported as reaching nothing (G0201), which stays for
/// one whose HelmChart no Subscription feeds.
#[test]
fn overrides_of_a_fed_helm_chart_are_skipped_with_it() {
    let feeds = "apiVersion: apps.clusternet.io/v1alpha1
kind: Subscription
metadata: {name: charts, namespace: shop}
spec:
  subscribers:
  - clusterAffinity: {}
  feeds:
  - {apiVersion: apps.clusternet.io/v1alpha1, kind: HelmChart, namespace: shop, name: mysql}";
    let localization = |name: &str, chart: &str| {
        format!(
            "apiVersion: apps.clusternet.io/v1alpha1
kind: Localization
metadata: {{name: {name}, namespace: ns-a}}
spec:
  feed: {{apiVersion: apps.clusternet.io/v1alpha1, kind: HelmChart, namespace: shop, name: {chart}}}
  overrides:
  - {{name: values, type: Helm, value: 'auth: {{rootPassword: x}}'}}"
        )
    };
    let globalization = "apiVersion: apps.clusternet.io/v1alpha1
kind: Globalization
metadata: {name: mysql-everywhere}
spec:
  feed: {apiVersion: apps.clusternet.io/v1alpha1, kind: HelmChart, namespace: shop, name: mysql}
  overrides:
  - {name: values, type: Helm, value: 'auth: {rootPassword: x}'}";
    let mut docs = fleet("");
    docs.extend([
        feeds.to_string(),
        localization("mysql-a", "mysql"),
        localization("redis-a", "redis"),
        globalization.to_string(),
    ]);
    let (_, plan) = plan(&docs, &PreviousRender::default());
    let about_overrides: Vec<String> = plan
        .warnings
        .0
        .iter()
        .filter(|d| d.message.contains("Localization") || d.message.contains("Globalization"))
        .map(|d| format!("{}: {}", d.code.code(), d.message))
        .collect();
    assert_eq!(
        about_overrides,
        [
            "G0105: Localization `ns-a/mysql-a` is skipped with the HelmChart feed it changes, `HelmChart/shop/mysql (apps.clusternet.io/v1alpha1)`: an offline render cannot fetch or render charts",
            "G0201: Localization `ns-a/redis-a` changes nothing: no Subscription delivers `HelmChart/shop/redis (apps.clusternet.io/v1alpha1)`",
            "G0105: Globalization `mysql-everywhere` is skipped with the HelmChart feed it changes, `HelmChart/shop/mysql (apps.clusternet.io/v1alpha1)`: an offline render cannot fetch or render charts",
        ]
    );
}

/// The messages of the errors planning `docs` ends in.
fn refusals(docs: &[String]) -> Vec<String> {
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let inputs = inputs(&refs);
    let options = crate::plan::Options {
        scope: crate::plan::Scope::ScheduleOnly,
        ..crate::plan::Options::default()
    };
    match crate::plan::plan_with(&inputs, &PreviousRender::default(), &options) {
        Ok(_) => Vec::new(),
        Err(diagnostics) => diagnostics
            .0
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.message.clone())
            .collect(),
    }
}

/// The two-cluster fleet: Clusternet v0.18.0 lists each
/// subscriber's clusters in turn (`findClustersThatFitSubscription`,
/// `generic.go`), so `b`, which the first subscriber (west) matches, takes
/// the one replica's remainder (`staticDivideReplicas`).
#[test]
fn a_tie_for_the_remainder_goes_to_the_cluster_of_the_first_subscriber() {
    let docs = vec![
        managed("a", "ns-a", "region: east", ""),
        managed("b", "ns-b", "region: west", ""),
        deployment(1),
        "apiVersion: apps.clusternet.io/v1alpha1
kind: Subscription
metadata: {name: web, namespace: shop}
spec:
  schedulingStrategy: Dividing
  dividingScheduling: {type: Static}
  subscribers:
  - {clusterAffinity: {matchLabels: {region: west}}, weight: 1}
  - {clusterAffinity: {matchLabels: {region: east}}, weight: 1}
  feeds:
  - {apiVersion: apps/v1, kind: Deployment, namespace: shop, name: web}"
            .to_string(),
    ];
    let (_, plan) = plan(&docs, &PreviousRender::default());
    assert_eq!(shares(web(&plan)), [("a", 0, false), ("b", 1, false)]);
}

/// Clusternet's `subgroupClusters` picking nothing makes `selectClusters`
/// fail ("empty clusterScoreList"): never scheduled, so refused.
#[test]
fn sub_groups_that_pick_no_cluster_are_refused() {
    let mut docs = fleet("");
    docs.push(deployment(3));
    docs.push(
        "apiVersion: apps.clusternet.io/v1alpha1
kind: Subscription
metadata: {name: web, namespace: shop}
spec:
  schedulingBySubGroup: true
  subscribers:
  - {clusterAffinity: {matchLabels: {env: prod}}, subGroupStrategy: {minClusters: 0}}
  feeds:
  - {apiVersion: apps/v1, kind: Deployment, namespace: shop, name: web}"
            .to_string(),
    );
    let refused = refusals(&docs);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("Subscription/shop/web picks no cluster"));
    let picked = docs
        .pop()
        .map(|d| d.replace("minClusters: 0", "minClusters: 2"));
    docs.extend(picked);
    let (_, plan) = plan(&docs, &PreviousRender::default());
    assert_eq!(
        shares(web(&plan))
            .iter()
            .map(|(c, _, _)| *c)
            .collect::<Vec<_>>(),
        ["a", "b"]
    );
}

/// A Job a Subscription feeds: a v0.18 hub's dry run generates its
/// selector from its own uid and trims only `controller-uid`
/// (`trimBatchJob`), so members refuse it, unless the Job picks its
/// selector by hand or skips the dry run without an exported uid.
#[test]
fn a_job_the_hub_cannot_deliver_is_refused() {
    let job = |spec: &str, annotations: &str| {
        format!(
            "apiVersion: batch/v1
kind: Job
metadata: {{name: web, namespace: shop, annotations: {{{annotations}}}}}
spec:
  {spec}template:
    metadata: {{labels: {{app: web}}}}
    spec: {{restartPolicy: Never, containers: [{{name: main, image: busybox}}]}}"
        )
    };
    let feeding = |template: String| {
        let mut docs = fleet("");
        docs.push(template);
        docs.push(subscription("Replication", "").replace(
            "{apiVersion: apps/v1, kind: Deployment,",
            "{apiVersion: batch/v1, kind: Job,",
        ));
        refusals(&docs)
    };
    let refused = feeding(job("", ""));
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("which a Clusternet hub cannot deliver"));
    let skip = "apps.clusternet.io/skip-validating: 'true'";
    assert!(feeding(job("", skip)).is_empty());
    assert!(feeding(job(
        "manualSelector: true\n  selector: {matchLabels: {app: web}}\n  ",
        ""
    ))
    .is_empty());
    let exported = feeding(job(
        "selector: {matchLabels: {batch.kubernetes.io/controller-uid: 6e1e2c7a}}\n  ",
        skip,
    ));
    assert_eq!(exported.len(), 1, "{exported:?}");
    assert!(exported[0].contains("carry a controller uid"));
}

/// Clusternet's CRD gives `minClusters` a minimum of 0: a negative one is
/// refused where it is written, not read as 0.
#[test]
fn a_negative_min_clusters_is_refused() {
    let text = "apiVersion: apps.clusternet.io/v1alpha1
kind: Subscription
metadata: {name: web, namespace: shop}
spec:
  schedulingBySubGroup: true
  subscribers:
  - {clusterAffinity: {}, subGroupStrategy: {minClusters: -1}}
  feeds:
  - {apiVersion: apps/v1, kind: Deployment, namespace: shop, name: web}";
    let nodes = match crate::load::yaml::parse_stream(text, &Default::default()) {
        Ok(nodes) => nodes,
        Err(e) => panic!("{e:?}"),
    };
    let mut sources = crate::diag::Sources::default();
    sources.add("fleet.yaml".into(), text.to_string());
    let mut diagnostics = crate::diag::Diagnostics::default();
    crate::load::classify::classify(
        nodes
            .into_iter()
            .map(|n| (crate::diag::FileId(0), n))
            .collect(),
        &sources,
        &mut diagnostics,
    );
    let errors: Vec<&str> = diagnostics
        .0
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        errors,
        ["`spec.subscribers[0].subGroupStrategy.minClusters` is -1; Clusternet's CRD allows 0 or more"]
    );
}
