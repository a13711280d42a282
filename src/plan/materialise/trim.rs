//! What Clusternet removes from a feed's object (clusternet-semantics §1,
//! §5, §6 P17): the hub's trims when it stores the feed, before any
//! override, and the localizer's built-in overrides and the agent's wipe
//! of system fields after them. The hub also labels what it stores
//! (`clusternet.io/created-by`), so overrides see that label, and the
//! object is delivered with it, as Clusternet delivers it.

use super::{Made, Materialiser, Target};
use crate::diag::Diagnostic;
use crate::model::meta::{group_of, ObjectKey};
use serde_json::{Map, Value};

pub(crate) use crate::model::clusternet::SKIP_VALIDATING;
use crate::model::clusternet::{CREATED_BY_LABEL, HUB_NAME};

/// The hub's trims (`trimResult`) of what its dry run answered: system
/// metadata and status, a Job's generated `controller-uid`, and what an API
/// server allocates for a Service (a non-headless cluster IP, node ports);
/// the dry run's defaulting of a workload's replicas to 1 comes with them.
pub(super) fn hub(
    _: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    hub_trims(&target.template.key, &mut made.value);
    Ok(())
}

/// [`hub`] on an object of `key`. The hub also labels every object it
/// stores as its own, and stores one whose dry run is skipped as written.
pub(crate) fn hub_trims(key: &ObjectKey, value: &mut Value) {
    let Some(root) = value.as_object_mut() else {
        return;
    };
    let Some(meta) = object(root, "metadata") else {
        return;
    };
    let labels = meta
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(labels) = labels.as_object_mut() {
        labels.insert(CREATED_BY_LABEL.into(), Value::from(HUB_NAME));
    }
    let skips = meta
        .get("annotations")
        .and_then(|a| a.get(SKIP_VALIDATING))
        .is_some_and(|v| v == "true");
    if skips {
        return;
    }
    if crate::schedule::clusternet::divisible(&key.api_version, &key.kind) {
        default_replicas(root);
    }
    if let Some(meta) = object(root, "metadata") {
        for key in [
            "creationTimestamp",
            "managedFields",
            "resourceVersion",
            "selfLink",
        ] {
            meta.shift_remove(key);
        }
    }
    match (group_of(&key.api_version), key.kind.as_str()) {
        ("batch", "Job") => job(root),
        ("", "Service") => service(root),
        _ => {}
    }
    root.shift_remove("status");
}

/// After the overrides: the localizer's built-ins (managedFields, uid,
/// status) and the agent's wipe of system metadata and of kubectl's
/// last-applied annotation.
pub(super) fn delivered(
    _: &Materialiser<'_>,
    _: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    let Some(root) = made.value.as_object_mut() else {
        return Ok(());
    };
    root.shift_remove("status");
    if let Some(meta) = object(root, "metadata") {
        for key in [
            "managedFields",
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "selfLink",
        ] {
            meta.shift_remove(key);
        }
        if let Some(annotations) = object(meta, "annotations") {
            annotations.shift_remove("kubectl.kubernetes.io/last-applied-configuration");
        }
    }
    Ok(())
}

fn object<'m>(map: &'m mut Map<String, Value>, key: &str) -> Option<&'m mut Map<String, Value>> {
    map.get_mut(key).and_then(Value::as_object_mut)
}

/// The hub's dry run defaults a workload's missing (or `null`)
/// `spec.replicas` to 1, so overrides and the delivered object see it.
fn default_replicas(root: &mut Map<String, Value>) {
    if let Some(spec) = object(root, "spec") {
        let replicas = spec.entry("replicas").or_insert(Value::Null);
        if replicas.is_null() {
            *replicas = Value::from(1);
        }
    }
}

fn job(root: &mut Map<String, Value>) {
    let Some(spec) = object(root, "spec") else {
        return;
    };
    if let Some(labels) = object(spec, "selector").and_then(|s| object(s, "matchLabels")) {
        labels.shift_remove("controller-uid");
    }
    if let Some(meta) = object(spec, "template").and_then(|t| object(t, "metadata")) {
        meta.shift_remove("creationTimestamp");
        if let Some(labels) = object(meta, "labels") {
            labels.shift_remove("controller-uid");
        }
    }
}

fn service(root: &mut Map<String, Value>) {
    let Some(spec) = object(root, "spec") else {
        return;
    };
    // The dry run defaults a missing `type` to ClusterIP before the trims.
    let kind = spec
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("ClusterIP")
        .to_string();
    if spec
        .get("clusterIP")
        .and_then(Value::as_str)
        .is_some_and(|ip| ip != "None")
    {
        spec.shift_remove("clusterIP");
        spec.shift_remove("clusterIPs");
    }
    if kind == "NodePort" || kind == "LoadBalancer" {
        spec.shift_remove("healthCheckNodePort");
        if let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) {
            for port in ports.iter_mut().filter_map(Value::as_object_mut) {
                port.shift_remove("nodePort");
            }
        }
    }
}
