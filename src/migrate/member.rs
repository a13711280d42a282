//! What a member cluster runs of a manifest: the manifest without the
//! labels and annotations Karmada writes that garrison never does. The
//! conformance suite and `garrison verify` compare garrison's Works with
//! Karmada's through [`comparable`], so both take out exactly the same
//! keys, each a deliberate difference listed in
//! `conformance/karmada/README.md`.

use serde_json::{Map, Value};

/// Labels and annotations Karmada writes that garrison never does: random
/// identities (permanent ids, the template's uid) that would make a render
/// differ on every run, and the template generation the API server counts.
pub const IDENTITY_KEYS: &[&str] = &[
    "propagationpolicy.karmada.io/permanent-id",
    "clusterpropagationpolicy.karmada.io/permanent-id",
    "resourcebinding.karmada.io/permanent-id",
    "clusterresourcebinding.karmada.io/permanent-id",
    "work.karmada.io/permanent-id",
    "resourcetemplate.karmada.io/uid",
    "resourcetemplate.karmada.io/generation",
];

/// The lists of managed keys Karmada records, which name the keys above.
const MANAGED_LISTS: &[&str] = &[
    "resourcetemplate.karmada.io/managed-annotations",
    "resourcetemplate.karmada.io/managed-labels",
];

/// `manifest` without Karmada's identity labels and annotations, and with
/// the managed-key lists that name them cut accordingly.
pub fn comparable(manifest: &Value) -> Value {
    let mut value = manifest.clone();
    let Some(metadata) = value.get_mut("metadata").and_then(Value::as_object_mut) else {
        return value;
    };
    for field in ["labels", "annotations"] {
        if let Some(map) = metadata.get_mut(field).and_then(Value::as_object_mut) {
            strip(map);
        }
    }
    value
}

fn strip(map: &mut Map<String, Value>) {
    for key in IDENTITY_KEYS {
        map.shift_remove(*key);
    }
    for list in MANAGED_LISTS {
        if let Some(Value::String(names)) = map.get_mut(*list) {
            let kept: Vec<&str> = names
                .split(',')
                .filter(|n| !IDENTITY_KEYS.contains(n))
                .collect();
            *names = kept.join(",");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identities_go_and_the_managed_lists_forget_them() {
        let manifest = json!({
            "kind": "ConfigMap",
            "metadata": {
                "name": "web",
                "labels": {"app": "web", "propagationpolicy.karmada.io/permanent-id": "1f2e"},
                "annotations": {
                    "resourcetemplate.karmada.io/uid": "9a8b",
                    "resourcetemplate.karmada.io/managed-annotations": "note,resourcetemplate.karmada.io/uid",
                    "note": "kept",
                },
            },
        });
        assert_eq!(
            comparable(&manifest),
            json!({
                "kind": "ConfigMap",
                "metadata": {
                    "name": "web",
                    "labels": {"app": "web"},
                    "annotations": {
                        "resourcetemplate.karmada.io/managed-annotations": "note",
                        "note": "kept",
                    },
                },
            })
        );
    }

    #[test]
    fn a_manifest_without_metadata_is_kept_as_it_is() {
        assert_eq!(comparable(&json!([1])), json!([1]));
    }
}
