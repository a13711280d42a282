//! `--format work`: each object wrapped in a Karmada `Work`, named and
//! placed exactly as Karmada's binding controller does (karmada-semantics §e;
//! the names are [`crate::model::layout::work`]'s). Random ids
//! (permanent-id labels, UIDs) are left out: the output must be
//! reproducible.

use crate::model::layout::work::{execution_namespace, work_name};
use crate::model::meta::ObjectKey;
use serde_json::{Map, Value};

/// Annotation keys Karmada records on the Work, not the manifest.
const WORK_ONLY_ANNOTATIONS: &[&str] = &[
    "policy.karmada.io/applied-overrides",
    "policy.karmada.io/applied-cluster-overrides",
];

fn string_map(pairs: Vec<(&str, String)>) -> Value {
    Value::Object(
        pairs
            .into_iter()
            .map(|(k, v)| (k.to_string(), Value::String(v)))
            .collect(),
    )
}

/// Wrap one rendered object in the Work Karmada would create for `cluster`.
pub fn wrap(
    key: &ObjectKey,
    mut manifest: Value,
    cluster: &str,
    binding_name: &str,
    conflict: &str,
) -> Value {
    let name = work_name(key);
    let namespace = execution_namespace(cluster);
    let mut work_annotations: Vec<(&str, String)> = Vec::new();
    match &key.namespace {
        Some(ns) => {
            work_annotations.push(("resourcebinding.karmada.io/name", binding_name.to_string()));
            work_annotations.push(("resourcebinding.karmada.io/namespace", ns.clone()));
        }
        None => work_annotations.push((
            "clusterresourcebinding.karmada.io/name",
            binding_name.to_string(),
        )),
    }
    if let Some(meta) = manifest.get_mut("metadata").and_then(Value::as_object_mut) {
        let annotations = meta
            .entry("annotations")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(map) = annotations.as_object_mut() {
            for key in WORK_ONLY_ANNOTATIONS {
                if let Some(Value::String(v)) = map.shift_remove(*key) {
                    work_annotations.push((key, v));
                }
            }
            for (k, v) in &work_annotations[..if key.namespace.is_some() { 2 } else { 1 }] {
                map.insert(k.to_string(), Value::String(v.clone()));
            }
            map.insert("work.karmada.io/name".into(), Value::String(name.clone()));
            map.insert(
                "work.karmada.io/namespace".into(),
                Value::String(namespace.clone()),
            );
            map.insert(
                "work.karmada.io/conflict-resolution".into(),
                Value::String(conflict.to_string()),
            );
        }
        let labels = meta
            .entry("labels")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(map) = labels.as_object_mut() {
            map.insert("karmada.io/managed".into(), Value::String("true".into()));
        }
        let managed = |field: &str, meta: &Map<String, Value>| -> String {
            let mut keys: Vec<String> = meta
                .get(field)
                .and_then(Value::as_object)
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            if field == "annotations" {
                keys.push("resourcetemplate.karmada.io/managed-annotations".into());
                keys.push("resourcetemplate.karmada.io/managed-labels".into());
            }
            keys.sort();
            keys.dedup();
            keys.join(",")
        };
        let managed_labels = managed("labels", meta);
        let managed_annotations = managed("annotations", meta);
        if let Some(map) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
            map.insert(
                "resourcetemplate.karmada.io/managed-annotations".into(),
                Value::String(managed_annotations),
            );
            map.insert(
                "resourcetemplate.karmada.io/managed-labels".into(),
                Value::String(managed_labels),
            );
        }
    }
    work_annotations.push(("work.karmada.io/conflict-resolution", conflict.to_string()));
    serde_json::json!({
        "apiVersion": "work.karmada.io/v1alpha1",
        "kind": "Work",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "annotations": string_map(work_annotations),
            "finalizers": ["karmada.io/execution-controller"],
        },
        "spec": {
            "workload": {"manifests": [manifest]},
            "suspendDispatching": false,
            "preserveResourcesOnDeletion": false,
        },
    })
}
