//! ResourceBinding and ClusterResourceBinding (work.karmada.io/v1alpha2).
//!
//! A binding in the source pins an application's schedule; a binding in the
//! previous render is the scheduler's memory (SPEC §1, §2). Both are read
//! into the same type. Only `spec.resource`, `spec.clusters`, `spec.replicas`
//! and a few annotations are read; other fields are carried without effect.

use super::meta::ObjectMeta;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BindingDoc {
    pub metadata: ObjectMeta,
    pub spec: BindingSpec,
    #[serde(default)]
    pub status: Option<BindingStatus>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BindingSpec {
    pub resource: ObjectReference,
    #[serde(default)]
    pub clusters: Vec<TargetCluster>,
    #[serde(default)]
    pub replicas: Option<i32>,
    #[serde(default)]
    pub placement: Option<Value>,
    #[serde(default)]
    pub propagate_deps: Option<bool>,
    #[serde(default)]
    pub replica_requirements: Option<Value>,
    #[serde(default)]
    pub components: Option<Value>,
    #[serde(default)]
    pub graceful_eviction_tasks: Option<Value>,
    #[serde(default)]
    pub required_by: Option<Value>,
    #[serde(default)]
    pub scheduler_name: Option<Value>,
    #[serde(default)]
    pub failover: Option<Value>,
    #[serde(default)]
    pub conflict_resolution: Option<Value>,
    #[serde(default)]
    pub reschedule_triggered_at: Option<Value>,
    #[serde(default)]
    pub suspension: Option<Value>,
    #[serde(default)]
    pub preserve_resources_on_deletion: Option<Value>,
    #[serde(default)]
    pub schedule_priority: Option<Value>,
    #[serde(default)]
    pub workload_affinity_groups: Option<Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectReference {
    pub api_version: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetCluster {
    pub name: String,
    /// Karmada's int32; a negative count is refused when the binding is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// Per-component replicas (Karmada's multiple-pod-template scheduling,
    /// off by default): carried without effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BindingStatus {
    #[serde(default)]
    pub scheduler_observing_affinity_name: Option<String>,
    #[serde(default)]
    pub last_scheduled_time: Option<Value>,
    #[serde(default)]
    pub conditions: Option<Value>,
    #[serde(default)]
    pub aggregated_status: Option<Value>,
    #[serde(default)]
    pub scheduler_observed_generation: Option<Value>,
}

/// Karmada's binding name: `lower(name with ':' → '.') + "-" + lower(kind)`.
pub fn binding_name(name: &str, kind: &str) -> String {
    format!(
        "{}-{}",
        name.replace(':', ".").to_lowercase(),
        kind.to_lowercase()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_names_follow_karmada() {
        assert_eq!(binding_name("nginx", "Deployment"), "nginx-deployment");
        assert_eq!(
            binding_name("system:Admin", "ClusterRole"),
            "system.admin-clusterrole"
        );
    }
}
