//! PropagationPolicy and ClusterPropagationPolicy (policy.karmada.io/v1alpha1),
//! typed as users write them (karmada-semantics §a).
//!
//! Fields that need a live control plane (failover, preemption, scheduler
//! name, activation preference, schedule priority) are accepted and carried;
//! the loader warns that they have no effect offline.

use super::affinity::ClusterAffinity;
use super::cluster::Toleration;
use super::meta::ObjectMeta;
use super::resource_selector::ResourceSelector;
use serde::{Deserialize, Serialize};

/// The annotation that opts a propagation policy into fort placement (SPEC §3).
pub const FORT_ANNOTATION: &str = "garrison.dev/fort";

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PropagationPolicyDoc {
    pub metadata: ObjectMeta,
    pub spec: PropagationSpec,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PropagationSpec {
    pub resource_selectors: Vec<ResourceSelector>,
    #[serde(default)]
    pub priority: Option<i32>,
    #[serde(default)]
    pub propagate_deps: bool,
    /// Deprecated alias of `propagateDeps`.
    #[serde(default)]
    pub association: bool,
    #[serde(default)]
    pub placement: Placement,
    #[serde(default)]
    pub dependent_overrides: Vec<String>,
    #[serde(default)]
    pub conflict_resolution: Option<ConflictResolution>,
    #[serde(default)]
    pub suspension: Option<Suspension>,
    #[serde(default)]
    pub preserve_resources_on_deletion: Option<bool>,
    #[serde(default)]
    pub preemption: Option<Preemption>,
    #[serde(default)]
    pub scheduler_name: Option<String>,
    #[serde(default)]
    pub failover: Option<Failover>,
    #[serde(default)]
    pub activation_preference: Option<ActivationPreference>,
    #[serde(default)]
    pub schedule_priority: Option<SchedulePriority>,
}

impl PropagationSpec {
    /// Karmada's mutating webhook (`helper.ContainsServiceImport`): a
    /// policy that selects ServiceImports (`multicluster.x-k8s.io/v1alpha1`)
    /// propagates dependencies, whatever it says, so that the derived
    /// Service and its EndpointSlices follow the import.
    pub fn default_propagate_deps(&mut self) {
        if self
            .resource_selectors
            .iter()
            .any(|s| s.kind == "ServiceImport" && s.api_version == "multicluster.x-k8s.io/v1alpha1")
        {
            self.propagate_deps = true;
        }
    }
}

/// `spec.failover`: how Karmada migrates applications off failing clusters.
/// garrison does not see cluster health, so it only reads it strictly.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Failover {
    #[serde(default)]
    pub application: Option<ApplicationFailover>,
    #[serde(default)]
    pub cluster: Option<ClusterFailover>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplicationFailover {
    pub decision_conditions: DecisionConditions,
    #[serde(default)]
    pub purge_mode: Option<ApplicationPurgeMode>,
    #[serde(default)]
    pub grace_period_seconds: Option<i32>,
    #[serde(default)]
    pub state_preservation: Option<StatePreservation>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionConditions {
    #[serde(default)]
    pub toleration_seconds: Option<i32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApplicationPurgeMode {
    Directly,
    Gracefully,
    Never,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterFailover {
    #[serde(default)]
    pub purge_mode: Option<ClusterPurgeMode>,
    #[serde(default)]
    pub state_preservation: Option<StatePreservation>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClusterPurgeMode {
    Directly,
    Gracefully,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatePreservation {
    pub rules: Vec<StatePreservationRule>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatePreservationRule {
    pub alias_label_name: String,
    pub json_path: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ActivationPreference {
    Lazy,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedulePriority {
    pub priority_class_name: String,
    pub priority_class_source: PriorityClassSource,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PriorityClassSource {
    #[default]
    KubePriorityClass,
}

impl PropagationSpec {
    /// The spec fields that only a live control plane acts on, by JSON name.
    pub fn runtime_only_fields(&self) -> Vec<&'static str> {
        let mut fields = Vec::new();
        if self.preemption.is_some_and(|p| p == Preemption::Always) {
            fields.push("preemption");
        }
        if self.failover.is_some() {
            fields.push("failover");
        }
        if self.activation_preference.is_some() {
            fields.push("activationPreference");
        }
        if self
            .scheduler_name
            .as_deref()
            .is_some_and(|s| s != "default-scheduler")
        {
            fields.push("schedulerName");
        }
        fields
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConflictResolution {
    Abort,
    Overwrite,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Preemption {
    Always,
    Never,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Suspension {
    #[serde(default)]
    pub dispatching: Option<bool>,
    #[serde(default)]
    pub dispatching_on_clusters: Option<SuspendClusters>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuspendClusters {
    #[serde(default)]
    pub cluster_names: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Placement {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_affinity: Option<ClusterAffinity>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_affinities: Vec<ClusterAffinityTerm>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_tolerations: Vec<Toleration>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spread_constraints: Vec<SpreadConstraint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_scheduling: Option<ReplicaSchedulingStrategy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_affinity: Option<WorkloadAffinity>,
}

/// `placement.workloadAffinity` (Karmada's alpha WorkloadAffinity gate).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadAffinity {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<WorkloadAffinityTerm>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anti_affinity: Option<WorkloadAffinityTerm>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadAffinityTerm {
    pub group_by_label_key: String,
}

/// One entry of `clusterAffinities`: a named affinity group tried in order.
/// (Written out rather than flattened so unknown fields are still reported.)
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterAffinityTerm {
    pub affinity_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<super::selector::LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_selector: Option<super::affinity::FieldSelector>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_names: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overflow_affinities: Option<Vec<OverflowAffinity>>,
}

/// One entry of `clusterAffinities[].overflowAffinities`: a further group
/// of clusters Karmada fills, in order, when the main group lacks capacity.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OverflowAffinity {
    pub affinity_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<super::selector::LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_selector: Option<super::affinity::FieldSelector>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_names: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

/// A named group's inline cluster affinity: a group (or overflow group)
/// carries the affinity's fields beside its name, as Karmada's API inlines
/// them.
macro_rules! inline_affinity {
    ($group:ty) => {
        impl $group {
            pub fn affinity(&self) -> ClusterAffinity {
                ClusterAffinity {
                    label_selector: self.label_selector.clone(),
                    field_selector: self.field_selector.clone(),
                    cluster_names: self.cluster_names.clone(),
                    exclude: self.exclude.clone(),
                }
            }
        }
    };
}

inline_affinity!(ClusterAffinityTerm);
inline_affinity!(OverflowAffinity);

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpreadConstraint {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread_by_field: Option<SpreadField>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread_by_label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_groups: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_groups: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpreadField {
    Cluster,
    Region,
    Zone,
    Provider,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSchedulingStrategy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_scheduling_type: Option<ReplicaSchedulingType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_division_preference: Option<ReplicaDivisionPreference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_preference: Option<ClusterPreferences>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReplicaSchedulingType {
    Duplicated,
    Divided,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReplicaDivisionPreference {
    Aggregated,
    Weighted,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterPreferences {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub static_weight_list: Vec<StaticClusterWeight>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic_weight: Option<DynamicWeightFactor>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StaticClusterWeight {
    pub target_cluster: ClusterAffinity,
    pub weight: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DynamicWeightFactor {
    AvailableReplicas,
}

/// How replicas are assigned, after Karmada's defaulting: an absent
/// `replicaScheduling` is Duplicated, while `replicaScheduling: {}` is
/// Divided/Weighted with equal weights (CRD default plus webhook default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Division {
    Duplicated,
    StaticWeighted(Vec<StaticClusterWeight>),
    DynamicWeighted,
    Aggregated,
}

impl Placement {
    pub fn division(&self) -> Division {
        let Some(strategy) = &self.replica_scheduling else {
            return Division::Duplicated;
        };
        match strategy
            .replica_scheduling_type
            .unwrap_or(ReplicaSchedulingType::Divided)
        {
            ReplicaSchedulingType::Duplicated => Division::Duplicated,
            ReplicaSchedulingType::Divided => {
                match strategy
                    .replica_division_preference
                    .unwrap_or(ReplicaDivisionPreference::Weighted)
                {
                    ReplicaDivisionPreference::Aggregated => Division::Aggregated,
                    ReplicaDivisionPreference::Weighted => match &strategy.weight_preference {
                        Some(p) if p.dynamic_weight.is_some() => Division::DynamicWeighted,
                        Some(p) => Division::StaticWeighted(p.static_weight_list.clone()),
                        None => Division::StaticWeighted(Vec::new()),
                    },
                }
            }
        }
    }

    /// Karmada's mutating webhook (`SetDefaultSpreadConstraints`): a spread
    /// constraint that names neither a field nor a label spreads by cluster.
    pub fn default_spread_constraints(&mut self) {
        for constraint in &mut self.spread_constraints {
            if constraint.spread_by_label.as_deref() == Some("") {
                constraint.spread_by_label = None;
            }
            if constraint.spread_by_field.is_none() && constraint.spread_by_label.is_none() {
                constraint.spread_by_field = Some(SpreadField::Cluster);
            }
        }
    }

    /// The affinity groups tried in order: `clusterAffinities`, or the single
    /// `clusterAffinity` (an absent one matches every cluster).
    pub fn affinity_terms(&self) -> Vec<AffinityTerm> {
        if self.cluster_affinities.is_empty() {
            vec![AffinityTerm {
                name: None,
                affinity: self.cluster_affinity.clone().unwrap_or_default(),
                overflow: None,
            }]
        } else {
            self.cluster_affinities
                .iter()
                .map(|term| AffinityTerm {
                    name: Some(term.affinity_name.clone()),
                    affinity: term.affinity(),
                    overflow: term
                        .overflow_affinities
                        .as_ref()
                        .map(|groups| groups.iter().map(OverflowAffinity::affinity).collect()),
                })
                .collect()
        }
    }
}

/// One affinity group as the scheduler tries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffinityTerm {
    /// `affinityName`; `None` for the single `clusterAffinity`.
    pub name: Option<String>,
    pub affinity: ClusterAffinity,
    /// The overflow groups, in order, when `overflowAffinities` is set (even
    /// empty: Karmada tiers the division whenever the list is present).
    pub overflow: Option<Vec<ClusterAffinity>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement(yaml_json: serde_json::Value) -> Placement {
        match serde_json::from_value(yaml_json) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn absent_replica_scheduling_is_duplicated() {
        assert_eq!(
            placement(serde_json::json!({})).division(),
            Division::Duplicated
        );
    }

    #[test]
    fn empty_replica_scheduling_is_divided_with_equal_weights_like_karmada_defaulting() {
        assert_eq!(
            placement(serde_json::json!({"replicaScheduling": {}})).division(),
            Division::StaticWeighted(vec![])
        );
    }

    #[test]
    fn dynamic_weight_ignores_the_static_list() {
        let p = placement(serde_json::json!({"replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "weightPreference": {"dynamicWeight": "AvailableReplicas",
              "staticWeightList": [{"targetCluster": {"clusterNames": ["a"]}, "weight": 1}]}}}));
        assert_eq!(p.division(), Division::DynamicWeighted);
    }

    /// Karmada's webhook turns on `propagateDeps` for a policy that selects
    /// ServiceImports of `multicluster.x-k8s.io/v1alpha1`, and only those.
    #[test]
    fn selecting_service_imports_propagates_dependencies() {
        let spec = |selectors: serde_json::Value| -> PropagationSpec {
            match serde_json::from_value(serde_json::json!({"resourceSelectors": selectors})) {
                Ok(spec) => spec,
                Err(e) => panic!("{e}"),
            }
        };
        let table = [
            (
                serde_json::json!([{"apiVersion": "multicluster.x-k8s.io/v1alpha1", "kind": "ServiceImport"}]),
                true,
            ),
            (
                serde_json::json!([{"apiVersion": "apps/v1", "kind": "Deployment"},
                {"apiVersion": "multicluster.x-k8s.io/v1alpha1", "kind": "ServiceImport", "name": "web"}]),
                true,
            ),
            (
                serde_json::json!([{"apiVersion": "multicluster.x-k8s.io/v1beta1", "kind": "ServiceImport"}]),
                false,
            ),
            (
                serde_json::json!([{"apiVersion": "v1", "kind": "Service"}]),
                false,
            ),
        ];
        for (selectors, propagates) in table {
            let mut defaulted = spec(selectors.clone());
            defaulted.default_propagate_deps();
            assert_eq!(defaulted.propagate_deps, propagates, "{selectors}");
        }
    }
}
