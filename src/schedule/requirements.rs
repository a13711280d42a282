//! The per-replica requirements of a pod template, as Karmada's
//! `helper.GenerateReplicaRequirements` makes them: what the estimators
//! ([`super::estimate`], [`super::models`]) divide a cluster's capacity by.
//! Quantities are [`crate::model::quantity`]'s.

use crate::model::quantity::{quantity_of, Quantity};
use std::collections::BTreeMap;

/// What one replica asks of a cluster: `ReplicaRequirements.resourceRequest`.
/// CPU is held exactly in milli-units, everything else in whole units, as
/// Karmada's `util.Resource` rounds them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplicaRequirements {
    pub resource_request: BTreeMap<String, Quantity>,
}

/// Per-replica requirements of a pod spec, or `None` when Karmada's
/// `GenerateReplicaRequirements` returns nil: no positive resource request and
/// no node claim (`nodeSelector`, tolerations, or required node affinity).
///
/// Effective requests as Karmada computes them (`AddPodTemplateRequest`): a
/// container's limit stands in for a missing request; regular containers are
/// summed, each init container raises a resource to at least its own request
/// (max, not sum; sidecar init containers get no special treatment), and
/// `overhead` is added. CPU counts in milli-units and the rest in whole units,
/// each value rounded up. Only cpu, memory, ephemeral-storage, pods and
/// scalar resources (extended `vendor/name`, `hugepages-*`,
/// `attachable-volumes-*`, `*kubernetes.io/*`) count; other names and values
/// that are not valid quantities are ignored.
pub fn requirements_from_pod_spec(pod_spec: &serde_json::Value) -> Option<ReplicaRequirements> {
    let mut totals: BTreeMap<String, i128> = BTreeMap::new();
    for container in list(pod_spec, "containers") {
        for (name, amount) in container_requests(container) {
            *totals.entry(name).or_default() += amount;
        }
    }
    for container in list(pod_spec, "initContainers") {
        for (name, amount) in container_requests(container) {
            let total = totals.entry(name).or_default();
            *total = (*total).max(amount);
        }
    }
    if let Some(overhead) = pod_spec.get("overhead").and_then(|o| o.as_object()) {
        for (name, value) in overhead {
            if let Some(amount) = resource_amount(name, value) {
                *totals.entry(name.clone()).or_default() += amount;
            }
        }
    }
    let resource_request: BTreeMap<String, Quantity> = totals
        .into_iter()
        .filter(|(_, amount)| *amount > 0)
        .map(|(name, amount)| {
            let amount = i64::try_from(amount).unwrap_or(i64::MAX);
            let quantity = if name == "cpu" {
                Quantity::from_millis(amount)
            } else {
                Quantity::from_units(amount)
            };
            (name, quantity)
        })
        .collect();

    let has_node_selector = pod_spec.get("nodeSelector").is_some_and(|v| !v.is_null());
    let has_tolerations = !list(pod_spec, "tolerations").is_empty();
    let has_required_affinity = pod_spec
        .pointer("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution")
        .is_some_and(|v| !v.is_null());
    if resource_request.is_empty()
        && !has_node_selector
        && !has_tolerations
        && !has_required_affinity
    {
        return None;
    }
    Some(ReplicaRequirements { resource_request })
}

fn list<'a>(value: &'a serde_json::Value, key: &str) -> &'a [serde_json::Value] {
    value
        .get(key)
        .and_then(|v| v.as_array())
        .map_or(&[], Vec::as_slice)
}

/// A container's effective requests (limits fill in missing requests), as
/// Karmada-rounded amounts.
fn container_requests(container: &serde_json::Value) -> Vec<(String, i128)> {
    let resources = container.get("resources");
    let section = |key: &str| {
        resources
            .and_then(|r| r.get(key))
            .and_then(|v| v.as_object())
    };
    let mut effective: BTreeMap<&String, &serde_json::Value> = BTreeMap::new();
    if let Some(limits) = section("limits") {
        effective.extend(limits);
    }
    if let Some(requests) = section("requests") {
        effective.extend(requests);
    }
    effective
        .into_iter()
        .filter_map(|(name, value)| {
            resource_amount(name, value).map(|amount| (name.clone(), amount))
        })
        .collect()
}

/// Karmada's `util.Resource.Add` for one entry: milli-CPU, whole units for the
/// rest, `None` for names it drops or values that do not parse.
fn resource_amount(name: &str, value: &serde_json::Value) -> Option<i128> {
    let quantity = quantity_of(value).ok()?;
    match name {
        "cpu" => Some(quantity.milli_value()),
        "memory" | "ephemeral-storage" | "pods" => Some(quantity.value()),
        _ if is_scalar_resource(name) => Some(quantity.value()),
        _ => None,
    }
}

/// Kubernetes' `IsScalarResourceName`.
pub(super) fn is_scalar_resource(name: &str) -> bool {
    is_extended_resource(name)
        || name.starts_with("hugepages-")
        || name.contains("kubernetes.io/")
        || name.starts_with("attachable-volumes-")
}

/// `IsExtendedResourceName`: outside the kubernetes.io namespace, not
/// `requests.*`, and `requests.<name>` is a qualified name.
fn is_extended_resource(name: &str) -> bool {
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    if native || name.starts_with("requests.") {
        return false;
    }
    let quota_name = format!("requests.{name}");
    let (prefix, local) = match quota_name.split_once('/') {
        Some((prefix, local)) => (Some(prefix), local),
        None => (None, quota_name.as_str()),
    };
    let local_ok = !local.is_empty()
        && local.len() <= 63
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && local
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && local
            .bytes()
            .last()
            .is_some_and(|b| b.is_ascii_alphanumeric());
    let prefix_ok = prefix.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                    && !label.starts_with('-')
                    && !label.ends_with('-')
            })
    });
    local_ok && prefix_ok
}
