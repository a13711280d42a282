//! The API server stage (SPEC §10): what a Kubernetes API server keeps of
//! an object a user creates, before any controller reads it. A Karmada or
//! Clusternet control plane stores every template in such a server, so
//! every decision (replicas, policy matching) and every override reads the
//! stored object, not the written one; a member cluster's API server does
//! the same again to what it is given.
//!
//! [`store`] applies Kubernetes' defaulters for the built-in kinds a
//! kube-apiserver serves (Kubernetes v1.35, the release Karmada v1.18's
//! client libraries come from) and the empty structs its typed encoding
//! always writes (`resources: {}`, `securityContext: {}`), so a patch on a
//! defaulted field, or below one, applies as it does in Karmada. What only
//! a live server does (allocations, uids, timestamps, status) is not done.
//! [`slim`] turns a stored object back into what garrison writes: what the
//! user wrote plus what changed, with every default a member cluster would
//! set again left out.
//!
//! `tests/it/apiserver.rs` compares [`store`] with Kubernetes' own code
//! (`conformance/kubernetes-apiserver`) on every object of `testdata/`.

mod apps;
mod batch;
mod core;
mod other;
mod pod;
mod slim;
#[cfg(test)]
mod tests;

pub use slim::slim;

use serde_json::{Map, Value};

/// `value` as a kube-apiserver stores it, in place. `false` (and `value`
/// unchanged) when the API server serves no such built-in kind: a custom
/// resource is stored as written (its CRD's defaults are not applied).
pub fn store(value: &mut Value) -> bool {
    let Some(object) = value.as_object_mut() else {
        return false;
    };
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let (group, version) = match api_version.split_once('/') {
        Some((group, version)) => (group, version),
        None => ("", api_version.as_str()),
    };
    let known = match group {
        "" => core::store(version, &kind, object),
        "apps" => apps::store(version, &kind, object),
        "batch" => batch::store(version, &kind, object),
        _ => other::store(group, version, &kind, object),
    };
    if known {
        metadata(object);
    }
    known
}

/// What every stored object's metadata gets: nothing is defaulted there,
/// but the typed encoding always writes the map and leaves out a null or
/// empty one inside it.
fn metadata(object: &mut Map<String, Value>) {
    let metadata = object
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(metadata) = metadata.as_object_mut() {
        metadata.retain(|_, value| match value {
            Value::Null => false,
            Value::Object(map) => !map.is_empty(),
            Value::Array(items) => !items.is_empty(),
            _ => true,
        });
    }
}

/// The object at `key` of `map`, made (`{}`) when it is missing or null,
/// as Go's defaulters allocate a nil struct pointer before filling it.
/// `None` when something else than an object is there (a value of the
/// wrong type: the API server refuses it; garrison's schema check has).
pub(crate) fn object_at<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
) -> Option<&'a mut Map<String, Value>> {
    let slot = map.entry(key).or_insert_with(|| Value::Object(Map::new()));
    if slot.is_null() {
        *slot = Value::Object(Map::new());
    }
    slot.as_object_mut()
}

/// The object at `key` of `map` when there is one; nothing is made.
pub(crate) fn existing<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
) -> Option<&'a mut Map<String, Value>> {
    map.get_mut(key).and_then(Value::as_object_mut)
}

/// Sets `key` to `default` when it is missing or null: a Go defaulter's
/// `if obj.Field == nil { obj.Field = ... }` (or `== ""` for a string).
pub(crate) fn default_to(map: &mut Map<String, Value>, key: &str, default: Value) {
    match map.get(key) {
        None | Some(Value::Null) => {
            map.insert(key.to_string(), default);
        }
        Some(Value::String(s)) if s.is_empty() && default.is_string() => {
            map.insert(key.to_string(), default);
        }
        _ => {}
    }
}

/// A workload's `replicas`, 1 when missing or null, put first in its spec
/// where Go's types have it: a template written without it is rendered
/// with the plan's replicas where a reader looks for them.
pub(crate) fn default_replicas(spec: &mut Map<String, Value>) {
    if spec.get("replicas").is_none_or(Value::is_null) {
        spec.shift_insert(0, "replicas".to_string(), Value::from(1));
    }
}

/// Each object of the array at `key`, when there is one.
pub(crate) fn each<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
) -> impl Iterator<Item = &'a mut Map<String, Value>> {
    map.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}
