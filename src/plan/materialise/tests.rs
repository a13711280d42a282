//! Each step on its own, then the steps together, on one small fleet: a
//! Deployment divided 2:1 over clusters `a` and `b` with the fort enabled,
//! an override that changes the image on the fort cluster, and a
//! revise-object hook that records what it saw.

use super::{annotate, claim, hook, overrides, prune, replicas, revised, slim};
use super::{Made, Materialiser, Step, Target};
use crate::diag::Diagnostic;
use crate::load::{cache::Cache, load_repository, LoadOptions};
use crate::model::inputs::Inputs;
use crate::model::previous::PreviousRender;
use crate::overrides::Applied;
use crate::plan::{plan, Plan};
use serde_json::{json, Value};

const CLUSTERS: &str = "
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: a, labels: {env: prod}}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: b, labels: {env: prod}}
";

const WEB: &str = "
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.0}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {clusterIP: 10.0.0.7, ports: [{port: 80}], selector: {app: web}}
";

const POLICIES: &str = "
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: shop, annotations: {garrison.dev/fort: enabled}}
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: web}
  - {apiVersion: v1, kind: Service, name: web}
  placement:
    clusterAffinity: {clusterNames: [a, b]}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
        - {targetCluster: {clusterNames: [a]}, weight: 2}
        - {targetCluster: {clusterNames: [b]}, weight: 1}
---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: fort-image, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  overrideRules:
  - targetCluster: {labelSelector: {matchLabels: {garrison.dev/fort: 'true'}}}
    overriders:
      imageOverrider: [{component: Tag, operator: replace, value: '2.0'}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: pinned-ip, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Service, name: web}]
  overrideRules:
  - overriders:
      plaintext: [{path: /spec/clusterIP, operator: replace, value: 10.9.9.9}]
";

/// The hook writes what it saw into an annotation: the cluster, whether it
/// is the fort, the replicas, and the image after overrides.
const HOOK: &str = r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: web-hook
  annotations:
    garrison.dev/revise-object: |
      function ReviseObject(obj, cluster, replicas, fort)
        obj.metadata.annotations = obj.metadata.annotations or {}
        obj.metadata.annotations["seen"] = cluster.name .. " fort=" .. tostring(fort.isFort)
          .. " replicas=" .. tostring(replicas) .. " image=" .. obj.spec.template.spec.containers[1].image
        return obj
      end
spec:
  target: {apiVersion: apps/v1, kind: Deployment}
  customizations: {}
"#;

/// The hook of [`HOOK`], writing a field a Deployment does not have.
const BAD_HOOK: &str = r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: web-hook
  annotations:
    garrison.dev/revise-object: |
      function ReviseObject(obj, cluster, replicas, fort)
        obj.spec.replicaz = 1
        return obj
      end
spec:
  target: {apiVersion: apps/v1, kind: Deployment}
  customizations: {}
"#;

/// The fleet's inputs, loaded as a render loads them, and its plan.
fn fleet(hook: &str) -> (Inputs, Plan) {
    repository(&[
        ("clusters.yaml", CLUSTERS),
        ("web.yaml", WEB),
        ("policies.yaml", POLICIES),
        ("hook.yaml", hook),
    ])
}

/// A repository of `files`, loaded and planned.
fn repository(files: &[(&str, &str)]) -> (Inputs, Plan) {
    let dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => panic!("no temporary directory: {e}"),
    };
    for &(name, text) in files {
        if let Err(e) = std::fs::write(dir.path().join(name), text) {
            panic!("cannot write {name}: {e}");
        }
    }
    let (inputs, diagnostics) =
        load_repository(dir.path(), &LoadOptions::default(), &Cache::disabled());
    assert!(!diagnostics.has_errors(), "{diagnostics:?}");
    let plan = match plan(&inputs, &PreviousRender::default()) {
        Ok(plan) => plan,
        Err(diagnostics) => panic!("planning failed: {diagnostics:?}"),
    };
    (inputs, plan)
}

/// Run `steps` for `kind`'s application on `cluster`, from the template.
fn run(
    inputs: &Inputs,
    plan: &Plan,
    kind: &str,
    cluster: &str,
    steps: &[Step],
) -> Result<Made, String> {
    let materialiser = Materialiser::new(inputs);
    let Some((index, app)) = plan
        .apps
        .iter()
        .enumerate()
        .find(|(_, a)| a.key.kind == kind)
    else {
        panic!("no {kind} application");
    };
    let Some(template) = inputs.templates.iter().find(|t| t.key == app.key) else {
        panic!("no {kind} template");
    };
    let Some(cluster) = inputs.clusters.iter().find(|c| c.name == cluster) else {
        panic!("no cluster {cluster}");
    };
    let replicas = app
        .binding
        .clusters
        .iter()
        .find(|a| a.cluster == cluster.name)
        .map_or(0, |a| a.replicas);
    let target = Target {
        app: &plan.apps[index],
        template,
        cluster,
        replicas,
    };
    let mut made = Made {
        value: template.value.clone(),
        applied: Applied::default(),
    };
    for step in steps {
        step(&materialiser, &target, &mut made).map_err(|d| d.message)?;
    }
    Ok(made)
}

/// [`run`], which must succeed.
/// The last step ([`Materialiser::finish`]) as one of the others.
fn slimmed(_: &Materialiser<'_>, target: &Target<'_>, made: &mut Made) -> Result<(), Diagnostic> {
    made.value = slim::finished(target, &made.value);
    Ok(())
}

fn made(inputs: &Inputs, plan: &Plan, kind: &str, cluster: &str, steps: &[Step]) -> Made {
    run(inputs, plan, kind, cluster, steps).unwrap_or_else(|e| panic!("{e}"))
}

fn at<'v>(made: &'v Made, pointer: &str) -> &'v Value {
    made.value.pointer(pointer).unwrap_or(&Value::Null)
}

#[test]
fn pruning_drops_what_the_member_cluster_assigns() {
    let (inputs, plan) = fleet(HOOK);
    let made = made(&inputs, &plan, "Service", "a", &[prune::step, slimmed]);
    assert_eq!(
        at(&made, "/spec"),
        &json!({"ports": [{"port": 80}], "selector": {"app": "web"}})
    );
}

#[test]
fn pruning_comes_after_the_overrides() {
    let (inputs, plan) = fleet(HOOK);
    let overridden = made(&inputs, &plan, "Service", "a", &[overrides::step]);
    assert_eq!(at(&overridden, "/spec/clusterIP"), &json!("10.9.9.9"));
    let materialiser = Materialiser::new(&inputs);
    let Some(service) = plan.apps.iter().position(|a| a.key.kind == "Service") else {
        panic!("no Service application");
    };
    let made = match plan.materialise(&materialiser, service, &inputs.clusters[0], 0) {
        Some(Ok(made)) => made,
        other => panic!("{other:?}"),
    };
    assert_eq!(at(&made, "/spec/clusterIP"), &Value::Null);
}

#[test]
fn each_cluster_gets_its_share_of_the_replicas() {
    let (inputs, plan) = fleet(HOOK);
    for (cluster, share) in [("a", 4), ("b", 2)] {
        let made = made(&inputs, &plan, "Deployment", cluster, &[replicas::step]);
        assert_eq!(at(&made, "/spec/replicas"), &json!(share), "{cluster}");
    }
    // A Service has no replicas to revise.
    let made = run(&inputs, &plan, "Service", "b", &[replicas::step]);
    assert_eq!(made.map(|m| m.value), Ok(inputs.templates[1].value.clone()));
}

#[test]
fn overrides_see_the_fort_label_and_are_recorded() {
    let (inputs, plan) = fleet(HOOK);
    // Static weights 2:1: the fort is `a`.
    let fort = made(&inputs, &plan, "Deployment", "a", &[overrides::step]);
    assert_eq!(
        at(&fort, "/spec/template/spec/containers/0/image"),
        &json!("nginx:2.0")
    );
    let names: Vec<(String, String)> = fort.applied.annotations();
    assert_eq!(
        names,
        vec![(
            "policy.karmada.io/applied-overrides".to_string(),
            r#"[{"policyName":"fort-image","overriders":{"imageOverrider":[{"component":"Tag","operator":"replace","value":"2.0"}]}}]"#.to_string()
        )]
    );
    let other = made(&inputs, &plan, "Deployment", "b", &[overrides::step]);
    assert_eq!(
        at(&other, "/spec/template/spec/containers/0/image"),
        &json!("nginx:1.0")
    );
    assert!(other.applied.annotations().is_empty());
}

#[test]
fn the_hook_sees_the_cluster_its_fort_and_its_replicas() {
    let (inputs, plan) = fleet(HOOK);
    let made = made(&inputs, &plan, "Deployment", "b", &[hook::step]);
    assert_eq!(
        at(&made, "/metadata/annotations/seen"),
        &json!("b fort=false replicas=2 image=nginx:1.0")
    );
}

#[test]
fn what_a_hook_returns_is_checked_against_the_schema() {
    let (inputs, plan) = fleet(BAD_HOOK);
    // The hook alone writes the field; checking what it returned refuses it.
    let made = made(&inputs, &plan, "Deployment", "a", &[hook::step]);
    assert_eq!(at(&made, "/spec/replicaz"), &json!(1));
    let checked = run(
        &inputs,
        &plan,
        "Deployment",
        "a",
        &[hook::step, revised::step],
    );
    let error = checked.err().unwrap_or_default();
    assert!(
        error.contains("unknown field `replicaz` in `spec`"),
        "{error}"
    );
}

#[test]
fn annotations_name_the_policy_and_the_fort() {
    let (inputs, plan) = fleet(HOOK);
    let made = made(
        &inputs,
        &plan,
        "Service",
        "b",
        &[claim::step, annotate::step],
    );
    assert_eq!(
        at(&made, "/metadata/annotations"),
        &json!({
            "propagationpolicy.karmada.io/name": "web",
            "propagationpolicy.karmada.io/namespace": "shop",
            "garrison.dev/fort-cluster": "a",
        })
    );
}

#[test]
fn a_sops_document_gets_no_annotation() {
    let (inputs, plan) = fleet(HOOK);
    let materialiser = Materialiser::new(&inputs);
    let Some(app) = plan.apps.iter().find(|a| a.key.kind == "Service") else {
        panic!("no Service application");
    };
    let mut made = Made {
        value: json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "sops": {"mac": "x"}}),
        applied: Applied::default(),
    };
    let before = made.value.clone();
    let target = Target {
        app,
        template: &inputs.templates[1],
        cluster: &inputs.clusters[0],
        replicas: 0,
    };
    for step in [claim::step, annotate::step] {
        assert!(step(&materialiser, &target, &mut made).is_ok());
    }
    assert_eq!(made.value, before);
}

#[test]
fn the_steps_run_in_karmadas_order() {
    let (inputs, plan) = fleet(HOOK);
    let materialiser = Materialiser::new(&inputs);
    let Some(cluster) = inputs.clusters.iter().find(|c| c.name == "a") else {
        panic!("no cluster a");
    };
    let made = plan.materialise(&materialiser, 0, cluster, 4);
    let made = match made {
        Some(Ok(made)) => made,
        other => panic!("{other:?}"),
    };
    // The hook ran after the replicas were revised and the image overridden,
    // and the bookkeeping came last.
    assert_eq!(
        at(&made, "/metadata/annotations/seen"),
        &json!("a fort=true replicas=4 image=nginx:2.0")
    );
    assert_eq!(at(&made, "/spec/replicas"), &json!(4));
    assert_eq!(
        at(&made, "/metadata/annotations/garrison.dev~1fort-cluster"),
        &json!("a")
    );
}

/// ConfigMaps claimed as Karmada's detector claims them, with overrides of
/// the metadata the claim makes (`claim.rs`).
const CLAIMS: &str = r#"
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: p, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]
  placement: {clusterAffinity: {clusterNames: [a]}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: c}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: ops}]
  placement: {clusterAffinity: {clusterNames: [a]}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: plain, namespace: shop}
data: {k: v}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: unclaimed-annotation, namespace: shop}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: exported
  namespace: shop
  labels: {clusterpropagationpolicy.karmada.io/permanent-id: 1d2c, app: shop}
  annotations: {clusterpropagationpolicy.karmada.io/name: gone}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: moved
  namespace: ops
  labels: {propagationpolicy.karmada.io/permanent-id: 9f7e}
  annotations: {propagationpolicy.karmada.io/name: gone, propagationpolicy.karmada.io/namespace: ops}
---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: team, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: plain}]
  overrideRules:
  - overriders:
      plaintext:
      - {path: /metadata/labels/team, operator: add, value: blue}
      - {path: /metadata/annotations/owner, operator: add, value: ops}
---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: unclaim, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: unclaimed-annotation}]
  overrideRules:
  - overriders:
      plaintext:
      - {path: /metadata/annotations/propagationpolicy.karmada.io~1name, operator: remove}
      - {path: /metadata/annotations/propagationpolicy.karmada.io~1namespace, operator: replace, value: elsewhere}
"#;

/// The claim's metadata, then the overrides, then what the claim made and
/// nothing filled dropped, for the ConfigMap `name`.
fn claimed(inputs: &Inputs, plan: &Plan, name: &str) -> Made {
    let materialiser = Materialiser::new(inputs);
    let Some(index) = plan.apps.iter().position(|a| a.key.name == name) else {
        panic!("no application {name}");
    };
    match plan.materialise(&materialiser, index, &inputs.clusters[0], 0) {
        Some(Ok(made)) => made,
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn overrides_add_to_the_labels_and_annotations_the_claim_makes() {
    let (inputs, plan) = repository(&[("clusters.yaml", CLUSTERS), ("claims.yaml", CLAIMS)]);
    let made = claimed(&inputs, &plan, "plain");
    assert_eq!(at(&made, "/metadata/labels"), &json!({"team": "blue"}));
    assert_eq!(
        at(&made, "/metadata/annotations/owner"),
        &json!("ops"),
        "{}",
        made.value
    );
    assert_eq!(
        at(
            &made,
            "/metadata/annotations/propagationpolicy.karmada.io~1name"
        ),
        &json!("p")
    );
}

#[test]
fn a_labels_map_the_claim_made_and_nothing_filled_is_not_written() {
    let (inputs, plan) = repository(&[("clusters.yaml", CLUSTERS), ("claims.yaml", CLAIMS)]);
    let made = claimed(&inputs, &plan, "unclaimed-annotation");
    let metadata = at(&made, "/metadata");
    assert!(metadata.get("labels").is_none(), "{metadata}");
}

#[test]
fn an_override_changes_or_removes_the_claim_annotations_as_in_karmada() {
    let (inputs, plan) = repository(&[("clusters.yaml", CLUSTERS), ("claims.yaml", CLAIMS)]);
    let made = claimed(&inputs, &plan, "unclaimed-annotation");
    let annotations = at(&made, "/metadata/annotations");
    assert_eq!(annotations.get("propagationpolicy.karmada.io/name"), None);
    assert_eq!(
        annotations.get("propagationpolicy.karmada.io/namespace"),
        Some(&json!("elsewhere"))
    );
}

#[test]
fn a_claim_karmada_cleans_up_is_not_written() {
    let (inputs, plan) = repository(&[("clusters.yaml", CLUSTERS), ("claims.yaml", CLAIMS)]);
    // A ClusterPropagationPolicy's claim whose policy is gone: cleaned up,
    // and a PropagationPolicy claims the template (excludeClusterPolicy).
    let exported = claimed(&inputs, &plan, "exported");
    assert_eq!(at(&exported, "/metadata/labels"), &json!({"app": "shop"}));
    assert_eq!(
        at(&exported, "/metadata/annotations"),
        &json!({
            "propagationpolicy.karmada.io/name": "p",
            "propagationpolicy.karmada.io/namespace": "shop",
        })
    );
    // A PropagationPolicy's claim whose policy is gone: cleaned up, and a
    // ClusterPropagationPolicy claims the template.
    let moved = claimed(&inputs, &plan, "moved");
    assert!(
        at(&moved, "/metadata").get("labels").is_none(),
        "{}",
        moved.value
    );
    assert_eq!(
        at(&moved, "/metadata/annotations"),
        &json!({"clusterpropagationpolicy.karmada.io/name": "c"})
    );
}
