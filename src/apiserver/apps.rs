//! The `apps/v1` kinds as a kube-apiserver stores them: Kubernetes'
//! defaulters of `pkg/apis/apps/v1` (`SetDefaults_Deployment`,
//! `SetDefaults_StatefulSet`, `SetDefaults_DaemonSet`,
//! `SetDefaults_ReplicaSet`), what the conversion to the internal version
//! and back adds (`pkg/apis/apps/v1/conversion.go`), and what the typed
//! encoding always writes. `apps/v1beta1` and `apps/v1beta2` are in
//! Kubernetes' scheme but no v1.35 API server serves them
//! (`stableAPIGroupVersionsEnabledByDefault`, pkg/controlplane/instance.go),
//! so an object of theirs is stored nowhere and is not known here.

use super::other::{omitted, written};
use super::{core, default_to, each, existing, object_at, pod};
use serde_json::{json, Map, Value};

/// The annotation `Convert_apps_DaemonSet_To_v1_DaemonSet` writes a
/// DaemonSet's template generation into (always, `"0"` for a new one).
const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

/// The annotation a Deployment's conversion turns into the internal
/// `rollbackTo` and back: an empty one does not come back.
const ROLLBACK_TO: &str = "deprecated.deployment.rollback.to";

/// Defaults `object` when `apps/<version>` serves `kind`; `false` otherwise.
pub(crate) fn store(version: &str, kind: &str, object: &mut Map<String, Value>) -> bool {
    if version != "v1" {
        return false;
    }
    match kind {
        "Deployment" => deployment(object),
        "StatefulSet" => stateful_set(object),
        "DaemonSet" => daemon_set(object),
        "ReplicaSet" => replica_set(object),
        "ControllerRevision" => written(object, &[("data", Value::Null), ("revision", json!(0))]),
        _ => return false,
    }
    true
}

/// What every workload's spec has: a selector (written `null` when unset)
/// and a pod template, defaulted as a pod's.
fn workload(spec: &mut Map<String, Value>) {
    written(spec, &[("selector", Value::Null)]);
    omitted(spec, &["minReadySeconds"]);
    if let Some(template) = object_at(spec, "template") {
        pod::template(template);
    }
}

/// `SetDefaults_Deployment`.
fn deployment(object: &mut Map<String, Value>) {
    if let Some(annotations) = object
        .get_mut("metadata")
        .and_then(Value::as_object_mut)
        .and_then(|metadata| existing(metadata, "annotations"))
    {
        if annotations.get(ROLLBACK_TO).and_then(Value::as_str) == Some("") {
            annotations.remove(ROLLBACK_TO);
        }
    }
    let Some(spec) = object_at(object, "spec") else {
        return;
    };
    super::default_replicas(spec);
    if let Some(strategy) = object_at(spec, "strategy") {
        default_to(strategy, "type", json!("RollingUpdate"));
        rolling_update(strategy, json!("25%"), json!("25%"));
    }
    default_to(spec, "revisionHistoryLimit", json!(10));
    default_to(spec, "progressDeadlineSeconds", json!(600));
    omitted(spec, &["paused"]);
    workload(spec);
}

/// A Deployment's or DaemonSet's `rollingUpdate`: made and filled with the
/// defaults when the strategy is `RollingUpdate`; under another strategy
/// a written one keeps only what the internal version holds, where both
/// fields are plain values (0 when unset).
fn rolling_update(strategy: &mut Map<String, Value>, unavailable: Value, surge: Value) {
    let rolling = strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate");
    let (unavailable, surge) = if rolling {
        (unavailable, surge)
    } else {
        (json!(0), json!(0))
    };
    let update = if rolling {
        object_at(strategy, "rollingUpdate")
    } else {
        existing(strategy, "rollingUpdate")
    };
    if let Some(update) = update {
        default_to(update, "maxUnavailable", unavailable);
        default_to(update, "maxSurge", surge);
    }
}

/// `SetDefaults_StatefulSet` (with the `MaxUnavailableStatefulSet` gate
/// off, its v1.35 default) and the claim templates' conversion.
fn stateful_set(object: &mut Map<String, Value>) {
    let Some(spec) = object_at(object, "spec") else {
        return;
    };
    default_to(spec, "podManagementPolicy", json!("OrderedReady"));
    if let Some(strategy) = object_at(spec, "updateStrategy") {
        let untyped = strategy
            .get("type")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty);
        if untyped {
            strategy.insert("type".into(), json!("RollingUpdate"));
            object_at(strategy, "rollingUpdate");
        }
        if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
            if let Some(update) = existing(strategy, "rollingUpdate") {
                default_to(update, "partition", json!(0));
            }
        }
    }
    if let Some(retention) = object_at(spec, "persistentVolumeClaimRetentionPolicy") {
        default_to(retention, "whenDeleted", json!("Retain"));
        default_to(retention, "whenScaled", json!("Retain"));
    }
    super::default_replicas(spec);
    default_to(spec, "revisionHistoryLimit", json!(10));
    written(spec, &[("serviceName", json!(""))]);
    if let Some(ordinals) = existing(spec, "ordinals") {
        written(ordinals, &[("start", json!(0))]);
    }
    omitted(spec, &["volumeClaimTemplates"]);
    for claim in each(spec, "volumeClaimTemplates") {
        claim_template(claim);
    }
    workload(spec);
}

/// A StatefulSet's claim template: `Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec`
/// names its kind, and `SetDefaults_PersistentVolumeClaim` its phase.
fn claim_template(claim: &mut Map<String, Value>) {
    claim.insert("apiVersion".into(), json!("v1"));
    claim.insert("kind".into(), json!("PersistentVolumeClaim"));
    object_at(claim, "metadata");
    if let Some(spec) = object_at(claim, "spec") {
        core::claim_spec(spec);
    }
    if let Some(status) = object_at(claim, "status") {
        default_to(status, "phase", json!("Pending"));
    }
}

/// `SetDefaults_DaemonSet`, and the template generation its conversion
/// keeps in an annotation.
fn daemon_set(object: &mut Map<String, Value>) {
    if let Some(metadata) = object_at(object, "metadata") {
        if let Some(annotations) = object_at(metadata, "annotations") {
            let generation = match annotations.get(TEMPLATE_GENERATION) {
                Some(Value::String(text)) => {
                    text.parse::<i64>().map_or(text.clone(), |n| n.to_string())
                }
                _ => "0".to_string(),
            };
            annotations.insert(TEMPLATE_GENERATION.into(), Value::String(generation));
        }
    }
    let Some(spec) = object_at(object, "spec") else {
        return;
    };
    if let Some(strategy) = object_at(spec, "updateStrategy") {
        default_to(strategy, "type", json!("RollingUpdate"));
        rolling_update(strategy, json!(1), json!(0));
    }
    default_to(spec, "revisionHistoryLimit", json!(10));
    workload(spec);
}

/// `SetDefaults_ReplicaSet`.
fn replica_set(object: &mut Map<String, Value>) {
    let Some(spec) = object_at(object, "spec") else {
        return;
    };
    super::default_replicas(spec);
    workload(spec);
}
