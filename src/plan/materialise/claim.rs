//! Karmada's claim, where Karmada's detector writes it: on the template,
//! before the binding controller revises replicas and applies overrides
//! (`pkg/detector`: `ClaimPolicyForObject` / `ClaimClusterPolicyForObject`
//! with `AddPPClaimMetadata` / `AddCPPClaimMetadata`, and the cleanup of a
//! claim whose policy is gone). So an override sees the claim annotations,
//! and changes or removes them as in Karmada, and `add
//! /metadata/labels/<key>` works on a template written without labels:
//! Karmada's permanent-id label always makes the labels map exist.
//!
//! garrison writes no permanent id (it is random). The labels map is made
//! empty for the overrides instead, and dropped again afterwards
//! ([`settle`]) when nothing was added to it, so the object is written as
//! the user wrote it. A permanent-id label the template carries is kept
//! while its claim stands (it was exported from the control plane that
//! holds the policy) and dropped with a claim Karmada cleans up.

use super::{sops_encrypted, Made, Materialiser, Target};
use crate::diag::Diagnostic;
use crate::model::meta::{CPP_NAME_ANNOTATION, CPP_PERMANENT_ID_LABEL};
use crate::model::meta::{PP_NAMESPACE_ANNOTATION, PP_NAME_ANNOTATION, PP_PERMANENT_ID_LABEL};
use crate::plan::prior_claim::{claims, PriorClaim};
use serde_json::{Map, Value};

pub(super) fn step(
    _: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    if sops_encrypted(&made.value) {
        return Ok(());
    }
    let Some(policy) = target.app.policy() else {
        return Ok(());
    };
    let template = target.template;
    let [by_policy, by_cluster_policy] = claims(&template.labels, &template.annotations);
    let namespace = policy.namespace.as_deref();
    let stale =
        |claim: Option<PriorClaim<'_>>| claim.is_some_and(|c| !c.names(namespace, &policy.name));
    let mut removed_labels: Vec<&str> = Vec::new();
    let mut removed_annotations: Vec<&str> = Vec::new();
    let mut claim: Vec<(&str, &str)> = Vec::new();
    match namespace {
        Some(ns) => {
            // A claim naming another PropagationPolicy was cleaned up (that
            // policy is gone); a ClusterPropagationPolicy's is removed when
            // a PropagationPolicy claims (`excludeClusterPolicy`).
            if stale(by_policy) {
                removed_labels.push(PP_PERMANENT_ID_LABEL);
            }
            if template.labels.contains_key(CPP_PERMANENT_ID_LABEL) {
                removed_labels.push(CPP_PERMANENT_ID_LABEL);
                removed_annotations.push(CPP_NAME_ANNOTATION);
            }
            claim.push((PP_NAME_ANNOTATION, &policy.name));
            claim.push((PP_NAMESPACE_ANNOTATION, ns));
        }
        None => {
            // A ClusterPropagationPolicy claims a template carrying a
            // PropagationPolicy's claim only once that policy is gone and
            // its claim cleaned up.
            if by_policy.is_some() {
                removed_labels.push(PP_PERMANENT_ID_LABEL);
                removed_annotations.extend([PP_NAME_ANNOTATION, PP_NAMESPACE_ANNOTATION]);
            }
            if stale(by_cluster_policy) {
                removed_labels.push(CPP_PERMANENT_ID_LABEL);
            }
            claim.push((CPP_NAME_ANNOTATION, &policy.name));
        }
    }
    let Some(metadata) = metadata(&mut made.value) else {
        return Ok(());
    };
    if let Some(labels) = map(metadata, "labels") {
        for key in removed_labels {
            labels.shift_remove(key);
        }
    }
    if let Some(annotations) = map(metadata, "annotations") {
        for key in removed_annotations {
            annotations.shift_remove(key);
        }
        for (key, value) in claim {
            annotations.insert(key.to_string(), Value::String(value.to_string()));
        }
    }
    Ok(())
}

/// After the overrides and the hook: a labels or annotations map left
/// empty (one the claim made and nothing filled, or one whose only
/// entries were a claim Karmada cleans up) is dropped, unless the
/// template wrote it empty.
pub(super) fn settle(
    _: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    let written = target.template.written.get("metadata");
    let Some(metadata) = made
        .value
        .get_mut("metadata")
        .and_then(Value::as_object_mut)
    else {
        return Ok(());
    };
    for field in ["labels", "annotations"] {
        let written_empty = written
            .and_then(|m| m.get(field))
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty);
        let empty = metadata
            .get(field)
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty);
        if empty && !written_empty {
            metadata.shift_remove(field);
        }
    }
    Ok(())
}

/// The object's `metadata`, made when it is absent; `None` when the object
/// or its metadata is not a mapping (schema validation refuses those).
fn metadata(value: &mut Value) -> Option<&mut Map<String, Value>> {
    value
        .as_object_mut()?
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
}

/// `metadata.<field>` as a mapping, made when it is absent or null (or
/// not a mapping, which schema validation refuses).
fn map<'m>(
    metadata: &'m mut Map<String, Value>,
    field: &str,
) -> Option<&'m mut Map<String, Value>> {
    let slot = metadata.entry(field).or_insert(Value::Null);
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    slot.as_object_mut()
}
