//! The decide phase on small fleets: which policy claims a template, which
//! clusters are held, where the fort goes, and what makes a Divided
//! schedule change. Each test reads one YAML stream, plans it without
//! rendering a cluster, and checks one decision.

use super::{plan_with, App, Options, Plan, Scope, Source};
use crate::diag::{Diagnostics, FileId, Sources};
use crate::fort::FortReason;
use crate::load::classify::classify;
use crate::load::yaml::parse_stream;
use crate::model::inputs::Inputs;
use crate::model::previous::PreviousRender;
use crate::schedule::Decision;
use std::collections::BTreeSet;

const CLUSTERS: &str = "
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: c, labels: {env: prod}}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: a, labels: {env: prod}}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: b, labels: {env: test}}
";

const WEB: &str = "
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
";

/// A PropagationPolicy for `web` dividing its replicas by static weights
/// a:1, b:1, c:1, with `extra` appended to its YAML (annotations etc.).
fn divided(name: &str, metadata_extra: &str, spec_extra: &str) -> String {
    format!(
        "
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: {name}, namespace: shop{metadata_extra}}}
spec:
  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]
  placement:
    clusterAffinity: {{clusterNames: [a, b, c]}}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
        - {{targetCluster: {{clusterNames: [a]}}, weight: 1}}
        - {{targetCluster: {{clusterNames: [b]}}, weight: 1}}
        - {{targetCluster: {{clusterNames: [c]}}, weight: 1}}
{spec_extra}"
    )
}

fn inputs(documents: &[&str]) -> Inputs {
    let text = documents.join("\n---\n");
    let nodes = match parse_stream(&text, &Default::default()) {
        Ok(nodes) => nodes,
        Err(e) => panic!("the test's YAML does not parse: {e:?}"),
    };
    let mut sources = Sources::default();
    sources.add("fleet.yaml".into(), text.clone());
    let mut diagnostics = Diagnostics::default();
    let mut inputs = classify(
        nodes.into_iter().map(|n| (FileId(0), n)).collect(),
        &sources,
        &mut diagnostics,
    );
    assert!(!diagnostics.has_errors(), "{diagnostics:?}");
    inputs.templates.sort_by(|a, b| a.key.cmp(&b.key));
    inputs.sources = sources;
    inputs
}

fn decide(inputs: &Inputs, previous: &PreviousRender) -> Plan {
    let options = Options {
        scope: Scope::ScheduleOnly,
        ..Options::default()
    };
    match plan_with(inputs, previous, &options) {
        Ok(plan) => plan,
        Err(diagnostics) => panic!("planning failed: {diagnostics:?}"),
    }
}

fn web(plan: &Plan) -> &App {
    match plan.apps.iter().find(|a| a.key.name == "web") {
        Some(app) => app,
        None => panic!("`web` is not an application: {:?}", plan.unclaimed),
    }
}

fn policy_name(app: &App) -> &str {
    match &app.source {
        Source::Policy { policy, .. } => &policy.name,
        other => panic!("not claimed by a policy: {other:?}"),
    }
}

fn replicas(app: &App) -> Vec<(&str, u64, bool)> {
    app.binding
        .clusters
        .iter()
        .map(|a| (a.cluster.as_str(), a.replicas, a.held))
        .collect()
}

/// The previous render as `plan` would have written it for `web`.
fn remembered(plan: &Plan) -> PreviousRender {
    let app = web(plan);
    let binding = app.record(None);
    PreviousRender {
        bindings: [(app.key.clone(), binding)].into(),
        ..PreviousRender::default()
    }
}

// Policy choice: Karmada's precedence (explicit priority, then how
// specifically a selector names the template, then name order; a
// namespaced policy before any cluster-wide one).

#[test]
fn higher_explicit_priority_wins_over_a_more_specific_selector() {
    let by_name = divided("by-name", "", "");
    let by_label = "
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: by-label, namespace: shop}
spec:
  priority: 5
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {app: web}}}]
  placement: {clusterAffinity: {clusterNames: [b]}}
";
    let plan = decide(
        &inputs(&[CLUSTERS, WEB, &by_name, by_label]),
        &PreviousRender::default(),
    );
    assert_eq!(policy_name(web(&plan)), "by-label");
    assert_eq!(replicas(web(&plan)), vec![("b", 6, false)]);
}

#[test]
fn at_equal_priority_a_selector_naming_the_template_beats_a_label_selector() {
    let by_name = divided("z-by-name", "", "");
    let by_label = "
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: a-by-label, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {app: web}}}]
  placement: {clusterAffinity: {clusterNames: [b]}}
";
    let plan = decide(
        &inputs(&[CLUSTERS, WEB, &by_name, by_label]),
        &PreviousRender::default(),
    );
    let app = web(&plan);
    assert_eq!(policy_name(app), "z-by-name");
    let Source::Policy { passed_over, .. } = &app.source else {
        panic!("not claimed by a policy");
    };
    assert_eq!(passed_over.len(), 1, "{passed_over:?}");
}

#[test]
fn a_namespaced_policy_beats_a_cluster_policy_of_higher_priority() {
    let namespaced = divided("shop-policy", "", "");
    let cluster_wide = "
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: everything}
spec:
  priority: 100
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement: {clusterAffinity: {clusterNames: [b]}}
";
    let plan = decide(
        &inputs(&[CLUSTERS, WEB, &namespaced, cluster_wide]),
        &PreviousRender::default(),
    );
    assert_eq!(policy_name(web(&plan)), "shop-policy");
}

#[test]
fn a_template_no_policy_selects_is_unclaimed() {
    let plan = decide(&inputs(&[CLUSTERS, WEB]), &PreviousRender::default());
    assert!(plan.apps.is_empty());
    let names: Vec<&str> = plan.unclaimed.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, vec!["web"]);
}

#[test]
fn a_namespace_goes_everywhere_whatever_selects_it() {
    let namespace = "
apiVersion: v1
kind: Namespace
metadata: {name: shop}
";
    let plan = decide(&inputs(&[CLUSTERS, namespace]), &PreviousRender::default());
    let app = &plan.apps[0];
    assert_eq!(app.source, Source::NamespaceAutoPropagation);
    let clusters: Vec<&str> = app
        .binding
        .clusters
        .iter()
        .map(|a| a.cluster.as_str())
        .collect();
    assert_eq!(clusters, vec!["a", "b", "c"]);
}

// Holds (SPEC §5): paused clusters and suspended dispatching.

#[test]
fn a_paused_cluster_is_held_and_gets_no_share_of_a_first_schedule() {
    let paused = CLUSTERS.replacen(
        "metadata: {name: c, labels: {env: prod}}",
        "metadata: {name: c, labels: {env: prod}, annotations: {garrison.dev/sync-paused: \"true\"}}",
        1,
    );
    let plan = decide(
        &inputs(&[&paused, WEB, &divided("p", "", "")]),
        &PreviousRender::default(),
    );
    let app = web(&plan);
    assert_eq!(app.held, BTreeSet::from(["c".to_string()]));
    assert_eq!(replicas(app), vec![("a", 3, false), ("b", 3, false)]);
}

#[test]
fn suspended_dispatching_holds_every_cluster_of_the_policy() {
    let policy = divided("p", "", "  suspension: {dispatching: true}\n");
    let plan = decide(
        &inputs(&[CLUSTERS, WEB, &policy]),
        &PreviousRender::default(),
    );
    let held: Vec<&str> = web(&plan).held.iter().map(String::as_str).collect();
    assert_eq!(held, vec!["a", "b", "c"]);
}

fn unschedulable_warnings(plan: &Plan) -> Vec<String> {
    plan.warnings
        .0
        .iter()
        .filter(|d| d.code == crate::diag::Code::Unschedulable)
        .map(|d| d.message.clone())
        .collect()
}

/// A placement whose every cluster is held is scheduled, with nothing new
/// on them, not refused as matching no cluster (G0203): on a first render
/// and on a render after one.
#[test]
fn suspended_dispatching_is_no_failure_to_schedule() {
    let policy = divided("p", "", "  suspension: {dispatching: true}\n");
    let suspended = inputs(&[CLUSTERS, WEB, &policy]);
    let first = decide(&suspended, &PreviousRender::default());
    assert_eq!(unschedulable_warnings(&first), Vec::<String>::new());
    assert!(
        matches!(web(&first).binding.decision, Decision::Scheduled(_)),
        "{:?}",
        web(&first).binding.decision
    );
    assert_eq!(replicas(web(&first)), vec![]);
    let withheld: Vec<&str> = web(&first)
        .binding
        .withheld
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(withheld, vec!["a", "b", "c"]);

    let running = decide(
        &inputs(&[CLUSTERS, WEB, &divided("p", "", "")]),
        &PreviousRender::default(),
    );
    let then = decide(&suspended, &remembered(&running));
    assert_eq!(unschedulable_warnings(&then), Vec::<String>::new());
    assert_eq!(
        replicas(web(&then)),
        vec![("a", 2, true), ("b", 2, true), ("c", 2, true)]
    );
}

/// Holds elsewhere do not hide a placement that matches no cluster.
#[test]
fn a_placement_matching_no_cluster_is_unschedulable_whatever_is_held() {
    let policy = format!(
        "{}  suspension: {{dispatchingOnClusters: {{clusterNames: [a]}}}}\n",
        divided("p", "", "").replace(
            "clusterAffinity: {clusterNames: [a, b, c]}",
            "clusterAffinity: {labelSelector: {matchLabels: {env: none}}}"
        )
    );
    let plan = decide(
        &inputs(&[CLUSTERS, WEB, &policy]),
        &PreviousRender::default(),
    );
    assert_eq!(
        unschedulable_warnings(&plan),
        vec!["`Deployment/shop/web` is not scheduled: no cluster matches the placement"]
    );
}

#[test]
fn dispatching_on_named_clusters_holds_only_those() {
    let policy = divided(
        "p",
        "",
        "  suspension: {dispatchingOnClusters: {clusterNames: [b]}}\n",
    );
    let plan = decide(
        &inputs(&[CLUSTERS, WEB, &policy]),
        &PreviousRender::default(),
    );
    let held: Vec<&str> = web(&plan).held.iter().map(String::as_str).collect();
    assert_eq!(held, vec!["b"]);
}

#[test]
fn a_cluster_paused_after_the_schedule_keeps_its_share_frozen() {
    let fleet = inputs(&[CLUSTERS, WEB, &divided("p", "", "")]);
    let first = decide(&fleet, &PreviousRender::default());
    let paused = CLUSTERS.replacen(
        "metadata: {name: b, labels: {env: test}}",
        "metadata: {name: b, labels: {env: test}, annotations: {garrison.dev/sync-paused: \"true\"}}",
        1,
    );
    let second = decide(
        &inputs(&[&paused, WEB, &divided("p", "", "")]),
        &remembered(&first),
    );
    let app = web(&second);
    assert!(
        replicas(app).contains(&("b", 2, true)),
        "{:?}",
        replicas(app)
    );
    assert!(
        matches!(&app.binding.decision, Decision::Rescheduled(why) if why.contains("`b` was paused")),
        "{:?}",
        app.binding.decision
    );
}

// Fort (SPEC §3).

#[test]
fn no_fort_without_the_policy_opting_in() {
    let plan = decide(
        &inputs(&[CLUSTERS, WEB, &divided("p", "", "")]),
        &PreviousRender::default(),
    );
    assert_eq!(web(&plan).fort, None);
}

#[test]
fn the_fort_goes_to_the_highest_weight_first_in_binding_order_on_a_tie() {
    let policy = divided("p", ", annotations: {garrison.dev/fort: enabled}", "");
    let plan = decide(
        &inputs(&[CLUSTERS, WEB, &policy]),
        &PreviousRender::default(),
    );
    let fort = web(&plan).fort.clone().map(|f| (f.cluster, f.reason));
    assert_eq!(
        fort,
        Some((
            "a".to_string(),
            FortReason::HighestWeight { weight: 1, tied: 2 }
        ))
    );
}

#[test]
fn a_pinned_fort_wins_and_a_previous_fort_stays() {
    let policy = divided("p", ", annotations: {garrison.dev/fort: enabled}", "");
    let pinned = WEB.replacen(
        "labels: {app: web}}",
        "labels: {app: web}, annotations: {garrison.dev/fort-cluster: c}}",
        1,
    );
    let plan = decide(
        &inputs(&[CLUSTERS, &pinned, &policy]),
        &PreviousRender::default(),
    );
    let fort = web(&plan).fort.clone().map(|f| (f.cluster, f.reason));
    assert_eq!(fort, Some(("c".to_string(), FortReason::Pinned)));

    // The pin is gone; the fort the previous render placed stays.
    let unpinned = decide(&inputs(&[CLUSTERS, WEB, &policy]), &remembered(&plan));
    let fort = web(&unpinned).fort.clone().map(|f| (f.cluster, f.reason));
    assert_eq!(fort, Some(("c".to_string(), FortReason::Kept)));
}

// What makes a Divided schedule change (Karmada reschedules on a changed
// placement, changed replicas or a cluster that left; nothing else).

#[test]
fn an_unchanged_schedule_is_kept() {
    let fleet = inputs(&[CLUSTERS, WEB, &divided("p", "", "")]);
    let first = decide(&fleet, &PreviousRender::default());
    assert!(matches!(
        web(&first).binding.decision,
        Decision::Scheduled(_)
    ));
    let second = decide(&fleet, &remembered(&first));
    assert_eq!(web(&second).binding.decision, Decision::Kept);
    assert_eq!(replicas(web(&second)), replicas(web(&first)));
}

#[test]
fn a_kept_schedule_survives_a_label_change_karmada_does_not_watch() {
    let fleet = inputs(&[CLUSTERS, WEB, &divided("p", "", "")]);
    let first = decide(&fleet, &PreviousRender::default());
    let relabelled = CLUSTERS.replace("env: prod", "env: staging");
    let second = decide(
        &inputs(&[&relabelled, WEB, &divided("p", "", "")]),
        &remembered(&first),
    );
    assert_eq!(web(&second).binding.decision, Decision::Kept);
}

#[test]
fn changed_replicas_placement_or_fleet_reschedule() {
    let policy = divided("p", "", "");
    let first = decide(
        &inputs(&[CLUSTERS, WEB, &policy]),
        &PreviousRender::default(),
    );
    let previous = remembered(&first);

    let scaled = WEB.replace("replicas: 6", "replicas: 9");
    let plan = decide(&inputs(&[CLUSTERS, &scaled, &policy]), &previous);
    assert_eq!(
        web(&plan).binding.decision,
        Decision::Rescheduled("replicas changed from 6 to 9".into())
    );

    let narrowed = policy.replace("clusterNames: [a, b, c]", "clusterNames: [a, b]");
    let plan = decide(&inputs(&[CLUSTERS, WEB, &narrowed]), &previous);
    assert_eq!(
        web(&plan).binding.decision,
        Decision::Rescheduled("the placement changed".into())
    );

    // Selected by label, so the fleet may shrink under it.
    let by_label = policy
        .replace(
            "clusterNames: [a, b, c]",
            "labelSelector: {matchExpressions: [{key: env, operator: Exists}]}",
        )
        .replace(
            "clusterNames: [a]",
            "labelSelector: {matchLabels: {env: prod}}",
        )
        .replace(
            "clusterNames: [b]",
            "labelSelector: {matchLabels: {env: test}}",
        )
        .replace(
            "        - {targetCluster: {clusterNames: [c]}, weight: 1}\n",
            "",
        );
    let first = decide(
        &inputs(&[CLUSTERS, WEB, &by_label]),
        &PreviousRender::default(),
    );
    let fewer = CLUSTERS
        .replacen(
            "metadata: {name: b, labels: {env: test}}",
            "metadata: {name: b, labels: {}}",
            1,
        )
        .replacen(
            "kind: Cluster\nmetadata: {name: b",
            "kind: Cluster\nmetadata: {name: d",
            1,
        );
    assert!(
        !fewer.contains("name: b"),
        "the test's fleet edit did not apply"
    );
    let plan = decide(&inputs(&[&fewer, WEB, &by_label]), &remembered(&first));
    assert!(
        matches!(&web(&plan).binding.decision, Decision::Rescheduled(why) if why.contains("`b`") && why.contains("left the fleet")),
        "{:?}",
        web(&plan).binding.decision
    );
}

#[test]
fn lifting_a_hold_divides_again_over_every_cluster() {
    let suspended = divided(
        "p",
        "",
        "  suspension: {dispatchingOnClusters: {clusterNames: [c]}}\n",
    );
    let first = decide(
        &inputs(&[CLUSTERS, WEB, &suspended]),
        &PreviousRender::default(),
    );
    assert_eq!(
        replicas(web(&first)),
        vec![("a", 3, false), ("b", 3, false)]
    );
    let mut previous = remembered(&first);
    for binding in previous.bindings.values_mut() {
        binding.withheld = Some(BTreeSet::from(["c".to_string()]));
        binding.held.clear();
    }
    let lifted = decide(&inputs(&[CLUSTERS, WEB, &divided("p", "", "")]), &previous);
    let app = web(&lifted);
    assert_eq!(
        replicas(app),
        vec![("a", 2, false), ("b", 2, false), ("c", 2, false)]
    );
}

#[test]
fn a_held_cluster_keeps_its_replicas_through_a_scale_to_zero_and_back() {
    let policy = divided("p", "", "");
    let first = decide(
        &inputs(&[CLUSTERS, WEB, &policy]),
        &PreviousRender::default(),
    );
    let paused = CLUSTERS.replacen(
        "metadata: {name: b, labels: {env: test}}",
        "metadata: {name: b, labels: {env: test}, annotations: {garrison.dev/sync-paused: \"true\"}}",
        1,
    );
    // Scaled to zero while `b` is paused: `b` keeps its 2, frozen, and the
    // binding remembers them although there is nothing to divide.
    let zero = WEB.replace("replicas: 6", "replicas: 0");
    let scaled_down = decide(&inputs(&[&paused, &zero, &policy]), &remembered(&first));
    assert!(replicas(web(&scaled_down)).contains(&("b", 2, true)));
    assert!(remembered(&scaled_down)
        .bindings
        .values()
        .all(|b| b.clusters.contains(&("b".to_string(), 2))));
    // Scaled to one: `b` still runs 2, so the others get none (SPEC §5.3).
    let one = WEB.replace("replicas: 6", "replicas: 1");
    let scaled_up = decide(
        &inputs(&[&paused, &one, &policy]),
        &remembered(&scaled_down),
    );
    assert_eq!(
        replicas(web(&scaled_up)),
        vec![("a", 0, false), ("b", 2, true), ("c", 0, false)]
    );
}

// Karmada's SpreadConstraint filter and overflow affinities.

#[test]
fn a_cluster_without_the_field_a_spread_constraint_names_is_never_chosen() {
    let clusters = "
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: a}
spec: {zones: [eu-1a], provider: aws}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: b}
spec: {provider: aws}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: c}
spec: {zones: [eu-1b]}
";
    // Static weights ignore the constraints for selection, but not for the
    // filter: b has no zones, c no provider.
    let by_zone = divided(
        "spread",
        "",
        "    spreadConstraints:\n    - {spreadByField: cluster, maxGroups: 3}\n    - {spreadByField: zone, maxGroups: 1}",
    );
    let plan = decide(
        &inputs(&[clusters, WEB, &by_zone]),
        &PreviousRender::default(),
    );
    let chosen: Vec<&str> = replicas(web(&plan)).iter().map(|(c, ..)| *c).collect();
    assert_eq!(chosen, ["a", "c"]);
    let by_provider = by_zone.replace("spreadByField: zone", "spreadByField: provider");
    let plan = decide(
        &inputs(&[clusters, WEB, &by_provider]),
        &PreviousRender::default(),
    );
    let chosen: Vec<&str> = replicas(web(&plan)).iter().map(|(c, ..)| *c).collect();
    assert_eq!(chosen, ["a", "b"]);
}

/// Two clusters of one CPU each in pool `own`, one of ten in `extra`.
const POOLS: &str = "
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: a, labels: {pool: own}}
status: {resourceSummary: {allocatable: {cpu: '1', memory: 8Gi, pods: '110'}}}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: b, labels: {pool: own}}
status: {resourceSummary: {allocatable: {cpu: '1', memory: 8Gi, pods: '110'}}}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: x, labels: {pool: extra}}
status: {resourceSummary: {allocatable: {cpu: '10', memory: 8Gi, pods: '110'}}}
";

/// The plan of `overflowing(replicas)`, on top of `previous`.
fn overflow_plan(replicas: u64, previous: &PreviousRender) -> Plan {
    let docs = overflowing(replicas);
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    decide(&inputs(&refs), previous)
}

fn overflowing(replicas: u64) -> Vec<String> {
    let web = WEB
        .replace("replicas: 6", &format!("replicas: {replicas}"))
        .replace(
            "image: nginx}",
            "image: nginx, resources: {requests: {cpu: '1'}}}",
        );
    let policy = "
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement:
    clusterAffinities:
    - affinityName: own
      labelSelector: {matchLabels: {pool: own}}
      overflowAffinities:
      - affinityName: extra
        labelSelector: {matchLabels: {pool: extra}}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Aggregated
";
    vec![POOLS.to_string(), web, policy.to_string()]
}

#[test]
fn overflow_fills_the_own_group_first_then_the_overflow_group() {
    let plan = overflow_plan(5, &PreviousRender::default());
    assert_eq!(
        replicas(web(&plan)),
        [("a", 1, false), ("b", 1, false), ("x", 3, false)]
    );
}

/// A tier's room is its clusters' available replicas plus the replicas they
/// already run, as Karmada counts it (its scheduler test of an overflow
/// whose available replicas exceed the allocatable ones because of earlier
/// assignments): on scaling 5 to 8, a and b (room 1 + 1 each) take 4, and x
/// (room 10 + 3) the other 4.
#[test]
fn overflow_counts_the_replicas_a_tier_already_runs() {
    let previous = remembered(&overflow_plan(5, &PreviousRender::default()));
    let plan = overflow_plan(8, &previous);
    assert_eq!(
        replicas(web(&plan)),
        [("a", 2, false), ("b", 2, false), ("x", 4, false)]
    );
}

#[test]
fn overflow_beyond_every_tier_is_unschedulable() {
    let plan = overflow_plan(13, &PreviousRender::default());
    assert!(
        matches!(web(&plan).binding.decision, Decision::Unschedulable(_)),
        "{:?}",
        web(&plan).binding
    );
}

// Karmada's dependencies distributor: a shared dependency's Work options.

#[test]
fn a_shared_dependency_overwrites_and_is_preserved_when_any_workload_says_so() {
    let workload = |name: &str| {
        format!(
            "
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: shop}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers: [{{name: c, image: nginx, envFrom: [{{configMapRef: {{name: shared}}}}]}}]
"
        )
    };
    let policy = |name: &str, extra: &str| {
        format!(
            "
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: {name}, namespace: shop}}
spec:
  propagateDeps: true
  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: {name}}}]
  placement: {{clusterAffinity: {{clusterNames: [a]}}}}
{extra}"
        )
    };
    let shared = "
apiVersion: v1
kind: ConfigMap
metadata: {name: shared, namespace: shop}
data: {k: v}
";
    let (api, web) = (workload("api"), workload("web"));
    let plain = policy("api", "");
    let bold = policy(
        "web",
        "  conflictResolution: Overwrite\n  preserveResourcesOnDeletion: true\n",
    );
    let plan = decide(
        &inputs(&[CLUSTERS, &api, &web, shared, &plain, &bold]),
        &PreviousRender::default(),
    );
    let work = |name: &str| match plan.apps.iter().find(|a| a.key.name == name) {
        Some(app) => (app.work.overwrite, app.work.preserve_on_deletion),
        None => panic!("no application `{name}`"),
    };
    assert_eq!(work("api"), (false, false));
    assert_eq!(work("web"), (true, true));
    assert_eq!(work("shared"), (true, true));
    let only_plain = decide(
        &inputs(&[CLUSTERS, &api, shared, &plain]),
        &PreviousRender::default(),
    );
    let shared_app = only_plain.apps.iter().find(|a| a.key.name == "shared");
    assert_eq!(
        shared_app.map(|a| (a.work.overwrite, a.work.preserve_on_deletion)),
        Some((false, false))
    );
}

// Karmada's rules for a schedule that has a previous one (`doScheduleBinding`,
// `placementChanged`, the FitError rule of the affinity-group loop).

/// A PropagationPolicy `web` for the Deployment `web`, with `placement`
/// (indented four spaces) as its placement.
fn web_policy(placement: &str) -> String {
    format!(
        "
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: web, namespace: shop}}
spec:
  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]
  placement:
{placement}"
    )
}

#[test]
fn a_reschedule_no_cluster_fits_clears_the_schedule_and_capacity_failures_keep_it() {
    let policy = |affinity: &str, division: &str| {
        web_policy(&format!(
            "    clusterAffinity: {affinity}\n    replicaScheduling: {{replicaSchedulingType: Divided{division}}}\n"
        ))
    };
    let first = decide(
        &inputs(&[CLUSTERS, WEB, &policy("{clusterNames: [a]}", "")]),
        &PreviousRender::default(),
    );
    assert_eq!(replicas(web(&first)), [("a", 6, false)]);
    let previous = remembered(&first);
    // No cluster passes the new affinity: Karmada writes an empty schedule.
    let none_fits = policy("{labelSelector: {matchLabels: {env: nowhere}}}", "");
    let plan = decide(&inputs(&[CLUSTERS, WEB, &none_fits]), &previous);
    assert!(replicas(web(&plan)).is_empty(), "{:?}", web(&plan).binding);
    assert!(matches!(
        web(&plan).binding.decision,
        Decision::Unschedulable(_)
    ));
    // b passes but declares no capacity for an Aggregated division: the
    // schedule stands.
    let no_room = policy(
        "{clusterNames: [b]}",
        ", replicaDivisionPreference: Aggregated",
    );
    let plan = decide(&inputs(&[CLUSTERS, WEB, &no_room]), &previous);
    assert!(
        matches!(web(&plan).binding.decision, Decision::KeptAfterFailure(_)),
        "{:?}",
        web(&plan).binding.decision
    );
    assert_eq!(replicas(web(&plan)), [("a", 6, false)]);
}

#[test]
fn an_edit_to_an_affinity_group_the_schedule_did_not_observe_reschedules_nothing() {
    let policy = |spare: &str| {
        web_policy(&format!(
            "    clusterAffinities:\n    - {{affinityName: main, clusterNames: [a, b]}}\n    - {{affinityName: spare, clusterNames: [{spare}]}}\n    replicaScheduling: {{replicaSchedulingType: Divided}}\n"
        ))
    };
    let first = decide(
        &inputs(&[CLUSTERS, WEB, &policy("c")]),
        &PreviousRender::default(),
    );
    let previous = remembered(&first);
    let plan = decide(&inputs(&[CLUSTERS, WEB, &policy("b, c")]), &previous);
    assert_eq!(web(&plan).binding.decision, Decision::Kept);
    let edited_main = policy("c").replace("clusterNames: [a, b]", "clusterNames: [a, c]");
    let plan = decide(&inputs(&[CLUSTERS, WEB, &edited_main]), &previous);
    assert!(matches!(
        web(&plan).binding.decision,
        Decision::Rescheduled(_)
    ));
}

mod clusternet;

/// Karmada's webhook (`ValidatePropagationSpec`, `ValidateFailover`)
/// refuses an application failover without `propagateDeps` and a grace
/// period on a purge that is not graceful; garrison refuses both, each at
/// its field.
/// The messages of the errors planning the web Deployment under `policy`
/// gives.
fn plan_errors(policy: &str) -> Vec<String> {
    errors_planning(&[CLUSTERS, WEB, policy])
}

/// The messages of the errors planning `documents` gives.
fn errors_planning(documents: &[&str]) -> Vec<String> {
    match plan_with(
        &inputs(documents),
        &PreviousRender::default(),
        &Options::default(),
    ) {
        Ok(_) => Vec::new(),
        Err(d) => {
            d.0.iter()
                .filter(|d| d.is_error())
                .map(|d| d.message.clone())
                .collect()
        }
    }
}

/// Karmada's webhook checks a workload affinity's label keys with its gate
/// off (`ValidateWorkloadAffinity`); the render ignores the field.
#[test]
fn a_workload_affinity_karmada_refuses_is_refused() {
    let errors = |affinity: &str| {
        plan_errors(&divided(
            "web",
            "",
            &format!("    workloadAffinity: {affinity}\n"),
        ))
    };
    assert!(
        errors("{affinity: {groupByLabelKey: app}, antiAffinity: {groupByLabelKey: team}}")
            .is_empty()
    );
    assert_eq!(
        errors("{antiAffinity: {groupByLabelKey: '-bad'}}"),
        ["PropagationPolicy/shop/web: the workload antiAffinity groups by `-bad`, which is no label key: it must start and end with a letter or digit; Karmada's webhook refuses the policy"]
    );
    assert_eq!(
        errors("{affinity: {groupByLabelKey: app}, antiAffinity: {groupByLabelKey: app}}"),
        ["PropagationPolicy/shop/web: the workload affinity and anti-affinity both group by `app`; Karmada's webhook refuses the policy"]
    );
}

#[test]
fn an_application_failover_karmada_refuses_is_refused() {
    let failover = |extra: &str| {
        divided(
            "web",
            "",
            &format!("  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: 60}}\n{extra}"),
        )
    };
    let errors = |policy: String| plan_errors(&policy);
    assert_eq!(
        errors(failover("")),
        ["PropagationPolicy/shop/web: an application failover needs `propagateDeps: true`; Karmada's webhook refuses the policy without it"]
    );
    assert_eq!(
        errors(failover("      purgeMode: Directly\n      gracePeriodSeconds: 30\n  propagateDeps: true\n")),
        ["PropagationPolicy/shop/web: `gracePeriodSeconds` only applies to `purgeMode: Gracefully`"]
    );
    assert!(errors(failover(
        "      gracePeriodSeconds: 30\n  propagateDeps: true\n"
    ))
    .is_empty());
}

/// Karmada names a binding after the template's name (`:` read as `.`, in
/// lower case) and kind, whatever the group: two templates it would give
/// one binding are refused, since its detector binds the first it sees and
/// never the other; templates no policy claims collide with nothing.
#[test]
fn templates_karmada_would_give_one_binding_are_refused() {
    let role = |name: &str| {
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: '{name}'}}\nrules: []\n")
    };
    let policy = "
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: roles}
spec:
  resourceSelectors: [{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole}]
  placement: {clusterAffinity: {clusterNames: [c]}}
";
    let errors = errors_planning;
    let (upper, lower, colon, dot) = (role("Viewer"), role("viewer"), role("a:b"), role("a.b"));
    assert_eq!(
        errors(&[CLUSTERS, &upper, &lower, policy]),
        ["`ClusterRole/Viewer` (rbac.authorization.k8s.io/v1) and `ClusterRole/viewer` (rbac.authorization.k8s.io/v1) are one binding for Karmada (`viewer-clusterrole`): its detector binds the one it sees first and never delivers the other"]
    );
    assert_eq!(errors(&[CLUSTERS, &colon, &dot, policy]).len(), 1);
    assert!(errors(&[CLUSTERS, &colon, &upper, policy]).is_empty());
    assert!(errors(&[CLUSTERS, &colon, &dot]).is_empty());
}

/// Karmada's override webhook gives a selector without a namespace the
/// policy's, and refuses one naming another namespace
/// (`validateResourceSelectors`); a ClusterOverridePolicy may name any.
#[test]
fn an_override_selecting_another_namespace_is_refused() {
    let policy = divided("web", "", "");
    let errors = |kind: &str, namespace: &str, selector_namespace: &str| {
        let override_policy = format!(
            "
apiVersion: policy.karmada.io/v1alpha1
kind: {kind}
metadata: {{name: o{namespace}}}
spec:
  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment{selector_namespace}}}]
  overrideRules:
  - overriders:
      labelsOverrider: [{{operator: add, value: {{tier: web}}}}]
"
        );
        plan_errors(&format!("{policy}\n---\n{override_policy}"))
    };
    assert!(errors("OverridePolicy", ", namespace: shop", "").is_empty());
    assert!(errors("OverridePolicy", ", namespace: shop", ", namespace: shop").is_empty());
    assert_eq!(
        errors("OverridePolicy", ", namespace: shop", ", namespace: other"),
        ["an OverridePolicy in `shop` cannot select templates in another namespace"]
    );
    assert!(errors("ClusterOverridePolicy", "", ", namespace: other").is_empty());
}
