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
    let binding = binding_annotations(key, binding_name);
    let mut work_annotations = binding.clone();
    if let Some(meta) = manifest.get_mut("metadata").and_then(Value::as_object_mut) {
        work_annotations.extend(annotate_manifest(
            meta, &binding, &name, &namespace, conflict,
        ));
    }
    // Karmada lists the keys of the stored template, defaults included (a
    // Namespace's `kubernetes.io/metadata.name`), which garrison leaves
    // out of the manifest when the member's API server sets them back.
    let mut stored = manifest.clone();
    crate::apiserver::store(&mut stored);
    let stored_meta = stored
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let copied = labels_from_pod_template(&manifest, &stored);
    if let Some(meta) = manifest.get_mut("metadata").and_then(Value::as_object_mut) {
        // A Job (or ReplicationController) without labels is stored with
        // its pod template's; a member copies them only onto one that has
        // none, and the Work's manifest gets Karmada's label below, so
        // they are written.
        if let Some(labels) = copied {
            meta.insert("labels".into(), labels);
        }
        mark_managed(meta, &stored_meta);
    }
    work_annotations.push(("work.karmada.io/conflict-resolution", conflict.to_string()));
    work_object(name, namespace, work_annotations, manifest)
}

/// The annotations naming the binding the Work comes from: a namespaced
/// object's ResourceBinding, or a cluster-scoped one's ClusterResourceBinding.
fn binding_annotations(key: &ObjectKey, binding_name: &str) -> Vec<(&'static str, String)> {
    match &key.namespace {
        Some(ns) => vec![
            ("resourcebinding.karmada.io/name", binding_name.to_string()),
            ("resourcebinding.karmada.io/namespace", ns.clone()),
        ],
        None => vec![(
            "clusterresourcebinding.karmada.io/name",
            binding_name.to_string(),
        )],
    }
}

/// Move the annotations Karmada records on the Work only off the manifest
/// (returned in [`WORK_ONLY_ANNOTATIONS`] order), and record on it the
/// binding, the Work and the conflict resolution, as Karmada does.
fn annotate_manifest(
    meta: &mut Map<String, Value>,
    binding: &[(&'static str, String)],
    name: &str,
    namespace: &str,
    conflict: &str,
) -> Vec<(&'static str, String)> {
    let annotations = meta
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(map) = annotations.as_object_mut() else {
        return Vec::new();
    };
    let mut moved = Vec::new();
    for key in WORK_ONLY_ANNOTATIONS {
        if let Some(Value::String(v)) = map.shift_remove(*key) {
            moved.push((*key, v));
        }
    }
    for (k, v) in binding {
        map.insert(k.to_string(), Value::String(v.clone()));
    }
    map.insert(
        "work.karmada.io/name".into(),
        Value::String(name.to_string()),
    );
    map.insert(
        "work.karmada.io/namespace".into(),
        Value::String(namespace.to_string()),
    );
    map.insert(
        "work.karmada.io/conflict-resolution".into(),
        Value::String(conflict.to_string()),
    );
    moved
}

/// The labels the API server gives `manifest` from its pod template
/// (`SetDefaults_Job`, `SetDefaults_ReplicationController`: an object
/// without labels takes its template's), when it has none; `stored` is
/// the manifest as stored. Labels a member sets on any object whatever it
/// is given (a Namespace's `kubernetes.io/metadata.name`) are no such copy.
fn labels_from_pod_template(manifest: &Value, stored: &Value) -> Option<Value> {
    let unlabelled = manifest
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    let copied = stored.pointer("/spec/template/metadata/labels")?;
    let copy = unlabelled
        && copied.as_object().is_some_and(|l| !l.is_empty())
        && stored.pointer("/metadata/labels") == Some(copied);
    copy.then(|| copied.clone())
}

/// Label the manifest as managed by Karmada and record which labels and
/// annotations Karmada manages on it: all it now has, and those its
/// stored form (`stored`, the manifest's metadata as stored) adds.
fn mark_managed(meta: &mut Map<String, Value>, stored: &Map<String, Value>) {
    let labels = meta
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(map) = labels.as_object_mut() {
        map.insert("karmada.io/managed".into(), Value::String("true".into()));
    }
    let managed_labels = managed_keys("labels", meta, stored);
    let managed_annotations = managed_keys("annotations", meta, stored);
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

/// The sorted, comma-separated keys of the metadata's `field`, in the
/// manifest or its stored form; the annotations' list counts the two
/// managed-keys annotations themselves.
fn managed_keys(field: &str, meta: &Map<String, Value>, stored: &Map<String, Value>) -> String {
    let mut keys: Vec<String> = [meta, stored]
        .into_iter()
        .filter_map(|m| m.get(field).and_then(Value::as_object))
        .flat_map(|m| m.keys().cloned())
        .collect();
    if field == "annotations" {
        keys.push("resourcetemplate.karmada.io/managed-annotations".into());
        keys.push("resourcetemplate.karmada.io/managed-labels".into());
    }
    keys.sort();
    keys.dedup();
    keys.join(",")
}

/// The Work around the manifest: Karmada's execution finalizer, dispatching
/// not suspended, and the member's objects not preserved on deletion.
fn work_object(
    name: String,
    namespace: String,
    annotations: Vec<(&str, String)>,
    manifest: Value,
) -> Value {
    serde_json::json!({
        "apiVersion": "work.karmada.io/v1alpha1",
        "kind": "Work",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "annotations": string_map(annotations),
            "finalizers": ["karmada.io/execution-controller"],
        },
        "spec": {
            "workload": {"manifests": [manifest]},
            "suspendDispatching": false,
            "preserveResourcesOnDeletion": false,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(kind: &str, api_version: &str) -> ObjectKey {
        ObjectKey {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: Some("batch".into()),
            name: "etl".into(),
        }
    }

    /// The Work's manifest of a Job written without labels carries its pod
    /// template's (as Karmada's stored template does) beside Karmada's own;
    /// a Job with labels, and a Namespace, keep only what they had.
    #[test]
    fn a_job_without_labels_takes_its_pod_templates_in_the_work() {
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "etl", "namespace": "batch"},
            "spec": {"template": {"metadata": {"labels": {"app": "etl"}}, "spec": {"restartPolicy": "Never", "containers": [{"name": "etl", "image": "etl:1"}]}}}});
        let labels = |manifest: Value, kind: &str, api_version: &str| {
            let work = wrap(&key(kind, api_version), manifest, "m1", "etl-job", "abort");
            work["spec"]["workload"]["manifests"][0]["metadata"]["labels"].clone()
        };
        assert_eq!(
            labels(job.clone(), "Job", "batch/v1"),
            json!({"app": "etl", "karmada.io/managed": "true"})
        );
        let mut labelled = job;
        labelled["metadata"]["labels"] = json!({"team": "a"});
        assert_eq!(
            labels(labelled, "Job", "batch/v1"),
            json!({"team": "a", "karmada.io/managed": "true"})
        );
        let namespace =
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "batch"}});
        assert_eq!(
            labels(namespace, "Namespace", "v1"),
            json!({"karmada.io/managed": "true"})
        );
    }
}
