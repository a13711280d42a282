//! The fleet: Karmada `Cluster` and Clusternet `ManagedCluster` documents, and
//! the one [`Cluster`] shape garrison schedules onto.
//!
//! Fields that only matter to a live control plane (API endpoint, secrets,
//! proxy settings, sync mode) are accepted without effect; they are listed
//! here so they load without warnings (karmada-semantics §g).

use super::affinity::ClusterView;
use super::meta::ObjectMeta;
use super::quantity::ResourceSummary;
use super::resource_model::{self, ModelGrade};
pub use super::resource_model::{ResourceModel, ResourceModelRange};
use super::selector::Labels;
use crate::diag::Origin;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The annotation that pauses a Karmada `Cluster` (SPEC §5).
pub const SYNC_PAUSED_ANNOTATION: &str = "garrison.dev/sync-paused";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Taint {
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    pub effect: TaintEffect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_added: Option<String>,
}

/// What else Karmada's API server refuses in a Cluster's spec
/// (`ValidateClusterSpec`): each fault with the field it is at. Provider,
/// region and zones are label values (field selectors match them); the
/// API endpoint is a URL Go's `url.Parse` takes, with a host and no user,
/// query or fragment; the proxy is such a URL too, of the scheme `http`,
/// `https` or `socks5`; a secret reference names
/// both its namespace and name. A missing `syncMode`, which it requires
/// too, is accepted: how a control plane reaches the cluster means
/// nothing offline (docs/reference.md).
pub fn karmada_spec_faults(spec: &KarmadaClusterSpec) -> Vec<(&'static str, String)> {
    let mut faults = Vec::new();
    let labelled = [
        ("provider", spec.provider.as_deref()),
        ("region", spec.region.as_deref()),
        ("zone", spec.zone.as_deref()),
    ];
    let zones = spec.zones.iter().map(|z| ("zones", Some(z.as_str())));
    for (field, value) in labelled.into_iter().chain(zones) {
        if let Some(fault) = value.and_then(super::meta::label_value_fault) {
            let value = value.unwrap_or_default();
            faults.push((field, format!("`{field}` `{value}` {fault}")));
        }
    }
    if let Some(endpoint) = spec.api_endpoint.as_deref().filter(|e| !e.is_empty()) {
        if let Some(fault) = endpoint_fault(endpoint) {
            faults.push(("apiEndpoint", format!("`apiEndpoint` `{endpoint}` {fault}")));
        }
    }
    if let Some(proxy) = spec.proxy_url.as_deref().filter(|p| !p.is_empty()) {
        if let Some(fault) = proxy_fault(proxy) {
            faults.push(("proxyURL", format!("`proxyURL` `{proxy}` {fault}")));
        }
    }
    for (field, reference) in [
        ("secretRef", &spec.secret_ref),
        ("impersonatorSecretRef", &spec.impersonator_secret_ref),
    ] {
        if let Some(reference) = reference {
            for (part, value) in [
                ("namespace", &reference.namespace),
                ("name", &reference.name),
            ] {
                if value.is_empty() {
                    faults.push((field, format!("`{field}.{part}` is empty")));
                }
            }
        }
    }
    faults
}

/// Why an API endpoint is no URL Karmada's API server takes
/// (`ValidateClusterAPIEndpoint`): one Go's `url.Parse` refuses, or one
/// without a host (a bare `host:port` reads as a scheme and no host), with
/// user information, a query or a fragment.
fn endpoint_fault(endpoint: &str) -> Option<String> {
    let url = match super::go_url::parse(endpoint) {
        Ok(url) => url,
        Err(why) => return Some(format!("is no URL ({why})")),
    };
    let fault = if url.host.is_empty() {
        "has no host: write it as a URL, `https://<host>:<port>`"
    } else if url.user {
        "has user information, which is not permitted"
    } else if !url.fragment.is_empty() {
        "has a fragment, which is not permitted"
    } else if !url.raw_query.is_empty() {
        "has query parameters, which are not permitted"
    } else {
        return None;
    };
    Some(fault.to_string())
}

/// Why a proxy URL is none Karmada's API server takes
/// (`ValidateClusterProxyURL`): one Go's `url.Parse` refuses, or one whose
/// scheme (in any case) is not `http`, `https` or `socks5`.
fn proxy_fault(proxy: &str) -> Option<String> {
    match super::go_url::parse(proxy) {
        Err(why) => Some(format!("is no URL ({why})")),
        Ok(url) if matches!(url.scheme.as_str(), "http" | "https" | "socks5") => None,
        Ok(url) => Some(format!(
            "has the scheme `{}`: it must be http, https or socks5",
            url.scheme
        )),
    }
}

/// What Karmada's API server refuses in a Cluster's taints
/// (`ValidateClusterTaints`, lifted from Kubernetes' node taint rules and
/// narrowed): each fault with the index of its taint and the field. A
/// Cluster's taint takes `NoSchedule` or `NoExecute` only, so a soft
/// `PreferNoSchedule` taint, valid on a node or a Clusternet
/// ManagedCluster, refuses the whole Cluster; keys are label keys, values
/// label values, and each key and effect pair appears once.
pub fn karmada_taint_faults(taints: &[Taint]) -> Vec<(usize, &'static str, String)> {
    let mut faults = Vec::new();
    let mut seen: Vec<(&str, TaintEffect)> = Vec::new();
    for (i, taint) in taints.iter().enumerate() {
        if let Some(fault) = super::meta::label_key_fault(&taint.key) {
            faults.push((i, "key", format!("taint key `{}` {fault}", taint.key)));
        }
        let value = taint.value.as_deref().unwrap_or("");
        if let Some(fault) = super::meta::label_value_fault(value) {
            faults.push((i, "value", format!("taint value `{value}` {fault}")));
        }
        if taint.effect == TaintEffect::PreferNoSchedule {
            faults.push((
                i,
                "effect",
                "taint effect `PreferNoSchedule` is not supported on a Cluster: Karmada accepts `NoSchedule` and `NoExecute`".to_string(),
            ));
        }
        if seen.contains(&(taint.key.as_str(), taint.effect)) {
            faults.push((
                i,
                "key",
                format!("taint `{}` with effect {:?} appears twice: taints must be unique by key and effect", taint.key, taint.effect),
            ));
        }
        seen.push((taint.key.as_str(), taint.effect));
    }
    faults
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Toleration {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(
        default,
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub operator: Option<TolerationOperator>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(
        default,
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub effect: Option<TaintEffect>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

/// An enum field of a toleration where Kubernetes reads `""` as absent (an
/// empty effect tolerates every effect, an empty operator is `Equal`), as
/// tools that write every field of `corev1.Toleration` write them.
fn empty_as_none<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let text: Option<String> = Option::deserialize(deserializer)?;
    match text.as_deref() {
        None | Some("") => Ok(None),
        Some(text) => {
            T::deserialize(serde::de::value::StrDeserializer::<D::Error>::new(text)).map(Some)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TolerationOperator {
    Exists,
    Equal,
}

impl Toleration {
    /// Kubernetes' `Toleration.ToleratesTaint`: an empty effect matches every
    /// effect, an empty key with `Exists` matches every key, `Equal` (the
    /// default) compares values.
    pub fn tolerates(&self, taint: &Taint) -> bool {
        if self.effect.is_some_and(|effect| effect != taint.effect) {
            return false;
        }
        let key = self.key.as_deref().unwrap_or("");
        if !key.is_empty() && key != taint.key {
            return false;
        }
        match self.operator.unwrap_or(TolerationOperator::Equal) {
            TolerationOperator::Exists => true,
            TolerationOperator::Equal => {
                self.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or("")
            }
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KarmadaClusterDoc {
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: KarmadaClusterSpec,
    #[serde(default)]
    pub status: Option<ClusterStatus>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KarmadaClusterSpec {
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub region: Option<String>,
    #[serde(default)]
    pub zone: Option<String>,
    #[serde(default)]
    pub zones: Vec<String>,
    #[serde(default)]
    pub taints: Vec<Taint>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub sync_mode: Option<SyncMode>,
    #[serde(default)]
    pub api_endpoint: Option<String>,
    #[serde(default)]
    pub secret_ref: Option<SecretReference>,
    #[serde(default)]
    pub impersonator_secret_ref: Option<SecretReference>,
    #[serde(default, rename = "insecureSkipTLSVerification")]
    pub insecure_skip_tls_verification: Option<bool>,
    #[serde(default, rename = "proxyURL")]
    pub proxy_url: Option<String>,
    #[serde(default)]
    pub proxy_header: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub resource_models: Option<Vec<ResourceModel>>,
}

/// A Secret a control plane uses to reach the cluster: carried without effect.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretReference {
    pub namespace: String,
    pub name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SyncMode {
    Push,
    Pull,
    Dual,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterStatus {
    #[serde(default)]
    pub api_enablements: Option<Vec<ApiEnablement>>,
    #[serde(default)]
    pub resource_summary: Option<ResourceSummary>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub conditions: Option<Vec<Condition>>,
    #[serde(default)]
    pub node_summary: Option<NodeSummary>,
    #[serde(default)]
    pub remedy_actions: Option<Vec<String>>,
}

/// `metav1.Condition`, as a cluster's status reports it: ClusterTaintPolicies
/// match them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub kind: String,
    pub status: String,
    #[serde(default)]
    pub observed_generation: Option<i64>,
    #[serde(default)]
    pub last_transition_time: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSummary {
    #[serde(default)]
    pub total_num: Option<i32>,
    #[serde(default)]
    pub ready_num: Option<i32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiEnablement {
    pub group_version: String,
    #[serde(default)]
    pub resources: Vec<ApiResource>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiResource {
    #[serde(default)]
    pub name: String,
    pub kind: String,
}

/// Clusternet's `ManagedCluster` (clusters.clusternet.io/v1beta1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterDoc {
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ManagedClusterSpec,
    #[serde(default)]
    pub status: Option<Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterSpec {
    #[serde(default)]
    pub sync_paused: bool,
    #[serde(default)]
    pub taints: Vec<Taint>,
    #[serde(default)]
    pub cluster_id: Option<Value>,
    #[serde(default)]
    pub cluster_type: Option<Value>,
    #[serde(default)]
    pub cluster_init_base_name: Option<Value>,
    #[serde(default)]
    pub sync_mode: Option<SyncMode>,
}

/// One member cluster, whichever API declared it.
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    pub name: String,
    /// A ManagedCluster's namespace: its dedicated namespace, where its
    /// Localizations live (Clusternet). `None` for a Karmada Cluster.
    pub namespace: Option<String>,
    /// Declared by a Clusternet ManagedCluster: Subscriptions may select it.
    pub managed: bool,
    pub labels: Labels,
    pub provider: Option<String>,
    pub region: Option<String>,
    pub zones: Vec<String>,
    /// The declared taints, then those ClusterTaintPolicies add.
    pub taints: Vec<Taint>,
    /// Taints (key, effect) a ClusterTaintPolicy added, and its name.
    pub tainted_by: Vec<(String, TaintEffect, String)>,
    /// `status.conditions`, which ClusterTaintPolicies match.
    pub conditions: Vec<Condition>,
    /// Delivery is frozen (SPEC §5): annotation or `spec.syncPaused`.
    pub paused: bool,
    /// `None` when the document has no `status.apiEnablements`: every kind is accepted.
    pub api_enablements: Option<Vec<ApiEnablement>>,
    pub resource_summary: Option<ResourceSummary>,
    /// `spec.resourceModels` as Karmada's API server stores them (defaults
    /// when none are given); empty for a Clusternet cluster.
    pub resource_models: Vec<ModelGrade>,
    pub origin: Origin,
}

impl Cluster {
    pub fn from_karmada(doc: KarmadaClusterDoc, origin: Origin) -> Cluster {
        let paused = doc
            .metadata
            .annotations
            .get(SYNC_PAUSED_ANNOTATION)
            .is_some_and(|v| v == "true");
        let mut zones = doc.spec.zones;
        // Karmada's API server canonicalises a Cluster that sets only the
        // deprecated `zone` into one with `zones: [zone]`
        // (`pkg/apis/cluster/mutation`, `migrateZoneToZones`); loading
        // refuses one with both.
        if let Some(zone) = doc.spec.zone.filter(|z| !z.is_empty()) {
            if zones.is_empty() {
                zones.push(zone);
            }
        }
        let status = doc.status.unwrap_or_default();
        Cluster {
            name: doc.metadata.name,
            namespace: None,
            managed: false,
            labels: doc.metadata.labels,
            provider: doc.spec.provider.filter(|s| !s.is_empty()),
            region: doc.spec.region.filter(|s| !s.is_empty()),
            zones,
            taints: doc.spec.taints,
            tainted_by: Vec::new(),
            conditions: status.conditions.unwrap_or_default(),
            paused,
            api_enablements: status.api_enablements,
            resource_summary: status.resource_summary,
            // Loading refuses a Cluster whose models the API server refuses.
            resource_models: resource_model::stored(doc.spec.resource_models.as_deref())
                .unwrap_or_default(),
            origin,
        }
    }

    pub fn from_clusternet(doc: ManagedClusterDoc, origin: Origin) -> Cluster {
        Cluster {
            name: doc.metadata.name,
            namespace: doc.metadata.namespace.filter(|ns| !ns.is_empty()),
            managed: true,
            labels: doc.metadata.labels,
            provider: None,
            region: None,
            zones: Vec::new(),
            taints: doc.spec.taints,
            tainted_by: Vec::new(),
            conditions: Vec::new(),
            paused: doc.spec.sync_paused,
            api_enablements: None,
            resource_summary: None,
            resource_models: Vec::new(),
            origin,
        }
    }

    /// The cluster as affinity matching sees it, with `labels` standing in
    /// for the cluster's own labels (so per-application facts can be added).
    pub fn view<'a>(&'a self, labels: &'a Labels) -> ClusterView<'a> {
        ClusterView {
            name: &self.name,
            labels,
            provider: self.provider.as_deref(),
            region: self.region.as_deref(),
            zones: &self.zones,
        }
    }

    /// Whether the cluster serves `kind` of `api_version`; a cluster that
    /// declares no API enablements serves everything (SPEC §2).
    pub fn serves(&self, api_version: &str, kind: &str) -> bool {
        match &self.api_enablements {
            None => true,
            Some(enablements) => enablements.iter().any(|e| {
                e.group_version == api_version && e.resources.iter().any(|r| r.kind == kind)
            }),
        }
    }

    /// `namespace/name`, the key Clusternet orders and records clusters by.
    pub fn namespaced_name(&self) -> String {
        format!("{}/{}", self.namespace.as_deref().unwrap_or(""), self.name)
    }

    /// Taints a new placement must tolerate (NoSchedule and NoExecute).
    pub fn scheduling_taints(&self) -> impl Iterator<Item = &Taint> {
        self.taints
            .iter()
            .filter(|t| t.effect != TaintEffect::PreferNoSchedule)
    }
}

#[cfg(test)]
mod tests {
    /// Karmada's `ValidateClusterSpec`: label values, a URL endpoint with a
    /// host and nothing else, a proxy's scheme, complete secret references.
    #[test]
    fn a_karmada_cluster_refuses_what_its_registry_refuses() {
        let spec = KarmadaClusterSpec {
            provider: Some("aws cloud".into()),
            region: Some("eu-west-1".into()),
            zones: vec!["eu/a".into()],
            api_endpoint: Some("https://admin@a.example:6443".into()),
            proxy_url: Some("ftp://proxy.example".into()),
            secret_ref: Some(SecretReference {
                namespace: String::new(),
                name: "a".into(),
            }),
            ..KarmadaClusterSpec::default()
        };
        let fields: Vec<&str> = karmada_spec_faults(&spec)
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        assert_eq!(
            fields,
            ["provider", "zones", "apiEndpoint", "proxyURL", "secretRef"]
        );
        for (endpoint, fault) in [
            ("https://a.example:6443", None),
            ("https://10.0.0.1:6443/path", None),
            (
                "a.example:6443",
                Some("has no host: write it as a URL, `https://<host>:<port>`"),
            ),
            (
                "https://a.example?x=1",
                Some("has query parameters, which are not permitted"),
            ),
            (
                "https://a.example#top",
                Some("has a fragment, which is not permitted"),
            ),
            // What Go's `url.Parse` itself refuses.
            ("https://[::1", Some("is no URL (missing ']' in host)")),
            (
                "https://a.example:api",
                Some("is no URL (invalid port \":api\" after host)"),
            ),
            // A trailing `#` or `?` leaves no fragment or query.
            ("https://a.example#", None),
            ("https://a.example?", None),
            ("//a.example:6443", None),
        ] {
            assert_eq!(endpoint_fault(endpoint).as_deref(), fault, "{endpoint}");
        }
        for (proxy, fault) in [
            ("http://proxy.example:3128", None),
            ("SOCKS5://proxy.example:1080", None),
            ("http:proxy.example", None),
            (
                "ftp://proxy.example",
                Some("has the scheme `ftp`: it must be http, https or socks5"),
            ),
            (
                "http://proxy:port:x",
                Some("is no URL (invalid port \":x\" after host)"),
            ),
        ] {
            assert_eq!(proxy_fault(proxy).as_deref(), fault, "{proxy}");
        }
    }

    /// Karmada's `ValidateClusterTaints`: only NoSchedule and NoExecute,
    /// label keys and values, one taint per key and effect.
    #[test]
    fn a_karmada_cluster_refuses_soft_repeated_and_malformed_taints() {
        let taints = [
            taint("spot", Some("true"), TaintEffect::PreferNoSchedule),
            taint("dedicated", Some("batch"), TaintEffect::NoSchedule),
            taint("dedicated", Some("gpu"), TaintEffect::NoSchedule),
            taint("dedicated", Some("gpu"), TaintEffect::NoExecute),
            taint("bad key!", Some("a/b"), TaintEffect::NoExecute),
        ];
        let faults: Vec<(usize, &str)> = karmada_taint_faults(&taints)
            .into_iter()
            .map(|(i, field, _)| (i, field))
            .collect();
        assert_eq!(
            faults,
            [(0, "effect"), (2, "key"), (4, "key"), (4, "value")]
        );
        assert!(karmada_taint_faults(&taints[1..2]).is_empty());
    }

    use super::*;

    fn taint(key: &str, value: Option<&str>, effect: TaintEffect) -> Taint {
        Taint {
            key: key.into(),
            value: value.map(String::from),
            effect,
            time_added: None,
        }
    }

    #[test]
    fn an_empty_effect_or_operator_reads_as_absent() {
        let read = |yaml: &str| -> Result<Toleration, String> {
            serde_saphyr::from_str(yaml).map_err(|e| e.to_string())
        };
        let empty = read("{key: gpu, operator: '', effect: ''}");
        assert_eq!(empty.map(|t| (t.operator, t.effect)), Ok((None, None)));
        assert!(read("{key: gpu, effect: Sometimes}").is_err());
        let t = taint("gpu", Some("true"), TaintEffect::NoSchedule);
        assert!(read("{key: gpu, operator: Exists, effect: ''}").is_ok_and(|tol| tol.tolerates(&t)));
    }

    #[test]
    fn toleration_rules_follow_kubernetes() {
        let t = taint("dedicated", Some("gpu"), TaintEffect::NoSchedule);
        let exists_all = Toleration {
            key: None,
            operator: Some(TolerationOperator::Exists),
            value: None,
            effect: None,
            toleration_seconds: None,
        };
        assert!(exists_all.tolerates(&t));
        let equal = Toleration {
            key: Some("dedicated".into()),
            operator: None,
            value: Some("gpu".into()),
            effect: Some(TaintEffect::NoSchedule),
            toleration_seconds: None,
        };
        assert!(equal.tolerates(&t));
        let wrong_value = Toleration {
            value: Some("cpu".into()),
            ..equal.clone()
        };
        assert!(!wrong_value.tolerates(&t));
        let wrong_effect = Toleration {
            effect: Some(TaintEffect::NoExecute),
            ..equal
        };
        assert!(!wrong_effect.tolerates(&t));
    }
}
