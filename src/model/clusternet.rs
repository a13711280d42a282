//! Clusternet's propagation API (apps.clusternet.io/v1alpha1): Subscription,
//! Localization and Globalization, as Clusternet v0.18 declares them
//! (clusternet-semantics §1). Every field is declared, so strict reading
//! refuses a typo; fields that mean nothing offline are read and warned
//! about where they are acted on.

use super::cluster::Toleration;
use super::meta::ObjectMeta;
use super::selector::LabelSelector;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kinds a Subscription's feed may name that garrison cannot render:
/// a HelmChart needs its chart repository.
pub const HELM_CHART_KIND: &str = "HelmChart";

/// The label Clusternet's hub puts on every object it stores, before its
/// dry run (so the API server's defaulters see it), and its value.
pub const CREATED_BY_LABEL: &str = "clusternet.io/created-by";
pub const HUB_NAME: &str = "clusternet-hub";
/// Skips the hub's dry run: the object is stored as written.
pub const SKIP_VALIDATING: &str = "apps.clusternet.io/skip-validating";

#[derive(Clone, Debug, Deserialize)]
pub struct SubscriptionDoc {
    pub metadata: ObjectMeta,
    pub spec: SubscriptionSpec,
    /// Written by the hub; read so an exported Subscription loads.
    #[serde(default)]
    #[allow(dead_code)]
    pub status: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduling_by_sub_group: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduling_strategy: Option<SchedulingStrategy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dividing_scheduling: Option<DividingScheduling>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption_policy: Option<PreemptionPolicy>,
    pub subscribers: Vec<Subscriber>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_tolerations: Vec<Toleration>,
    pub feeds: Vec<Feed>,
}

impl SubscriptionSpec {
    /// `Replication` unless the Subscription says otherwise (CRD default).
    pub fn strategy(&self) -> SchedulingStrategy {
        self.scheduling_strategy
            .unwrap_or(SchedulingStrategy::Replication)
    }

    /// Whether the clusters are picked per subscriber (`schedulingBySubGroup`).
    pub fn by_sub_group(&self) -> bool {
        self.scheduling_by_sub_group == Some(true)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SchedulingStrategy {
    Replication,
    Dividing,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PreemptionPolicy {
    PreemptLowerPriority,
    Never,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DividingScheduling {
    /// `Static` when left out (CRD default).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<DividingType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic_dividing: Option<Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DividingType {
    Static,
    Dynamic,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscriber {
    /// `None` matches no cluster (`LabelSelectorAsSelector(nil)`); garrison
    /// refuses it, as it can only be a mistake.
    #[serde(default)]
    pub cluster_affinity: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_group_strategy: Option<SubGroupStrategy>,
}

impl Subscriber {
    /// The subscriber's weight; negative weights count as none.
    pub fn weight(&self) -> u64 {
        self.weight.map_or(0, |w| u64::try_from(w).unwrap_or(0))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubGroupStrategy {
    #[serde(default)]
    pub min_clusters: Option<i32>,
}

/// One object a Subscription delivers: `{apiVersion, kind, namespace?, name}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Feed {
    pub api_version: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
}

impl Feed {
    /// A feed of Clusternet's own HelmChart, which a render cannot make
    /// (it needs the chart's repository).
    pub fn is_helm_chart(&self) -> bool {
        self.kind == HELM_CHART_KIND && self.api_version.starts_with("apps.clusternet.io/")
    }

    /// The object the feed names, when it is written with a namespace.
    pub fn key(&self) -> super::meta::ObjectKey {
        super::meta::ObjectKey {
            api_version: self.api_version.clone(),
            kind: self.kind.clone(),
            namespace: self.namespace.clone().filter(|ns| !ns.is_empty()),
            name: self.name.clone(),
        }
    }

    /// Whether the feed names the object of `key`: same apiVersion, kind and
    /// name, and namespace when the feed gives one (Clusternet's feed label
    /// selector leaves the namespace out when the feed does).
    pub fn names(&self, key: &super::meta::ObjectKey) -> bool {
        key.api_version == self.api_version
            && key.kind == self.kind
            && key.name == self.name
            && self
                .namespace
                .as_deref()
                .filter(|ns| !ns.is_empty())
                .is_none_or(|ns| key.namespace.as_deref() == Some(ns))
    }
}

impl std::fmt::Display for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{}/{ns}/{} ({})", self.kind, self.name, self.api_version),
            None => write!(f, "{}/{} ({})", self.kind, self.name, self.api_version),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
pub struct LocalizationDoc {
    pub metadata: ObjectMeta,
    pub spec: LocalizationSpec,
}

/// A Localization's spec, and a Globalization's (which adds `clusterAffinity`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalizationSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub override_policy: Option<OverridePolicy>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<OverrideConfig>,
    /// 500 when left out (CRD default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    pub feed: Feed,
}

#[derive(Clone, Debug, Deserialize)]
pub struct GlobalizationDoc {
    pub metadata: ObjectMeta,
    pub spec: GlobalizationSpec,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GlobalizationSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub override_policy: Option<OverridePolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_affinity: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<OverrideConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    pub feed: Feed,
}

/// The CRD's default priority of a Localization or Globalization.
pub const DEFAULT_PRIORITY: i32 = 500;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OverridePolicy {
    ApplyNow,
    ApplyLater,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OverrideConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub value: String,
    #[serde(rename = "type")]
    pub kind: OverrideType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub override_chart: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_format: Option<FieldFormat>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OverrideType {
    Helm,
    JSONPatch,
    MergePatch,
    FieldJSONPatch,
    FieldMergePatch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FieldFormat {
    #[serde(rename = "YAML")]
    Yaml,
    #[serde(rename = "JSON")]
    Json,
}
