//! Karmada's bookkeeping, where Karmada puts it: the applied overrides;
//! and garrison's fort record. (The claiming policy is written before the
//! overrides, by [`super::claim`].)

use super::{sops_encrypted, Made, Materialiser, Target};
use crate::diag::Diagnostic;
use crate::model::meta::FORT_CLUSTER_ANNOTATION;
use serde_json::{Map, Value};

pub(super) fn step(
    _: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    if sops_encrypted(&made.value) {
        return Ok(());
    }
    let app = target.app;
    let mut entries: Vec<(String, String)> = made.applied.annotations();
    if let Some(fort) = &app.fort {
        entries.push((FORT_CLUSTER_ANNOTATION.into(), fort.cluster.clone()));
    }
    if !entries.is_empty() {
        insert_annotations(&mut made.value, entries);
    }
    Ok(())
}

/// `entries` into `metadata.annotations`, made (or replaced, when it is
/// not a mapping) as needed.
fn insert_annotations(value: &mut Value, entries: Vec<(String, String)>) {
    let Some(root) = value.as_object_mut() else {
        return;
    };
    let metadata = root
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return;
    };
    let annotations = metadata
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if !annotations.is_object() {
        *annotations = Value::Object(Map::new());
    }
    if let Some(map) = annotations.as_object_mut() {
        for (k, v) in entries {
            map.insert(k, Value::String(v));
        }
    }
}
