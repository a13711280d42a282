//! The rendered binding: what a render records of each application's
//! schedule under `bindings/` (a Karmada ResourceBinding or
//! ClusterResourceBinding), and what the next render reads back as its
//! memory (SPEC §1). [`encode`] and [`decode`] are the only writer and
//! reader, and own every annotation the record carries; decoding what was
//! encoded gives the record back (a property test holds them to it).

use super::binding::{binding_name, BindingDoc};
use super::meta::{ObjectKey, CPP_NAME_ANNOTATION, FORT_CLUSTER_ANNOTATION};
use super::meta::{PP_NAMESPACE_ANNOTATION, PP_NAME_ANNOTATION};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

/// The held clusters in the binding (frozen with what they had).
pub const HELD_ANNOTATION: &str = "garrison.dev/held-clusters";
/// The held clusters the application would be on without their holds,
/// which have none of it. Present, even empty, on every binding whose
/// schedule the next render may keep, so that lifting such a hold
/// reschedules the application (SPEC §9).
pub const WITHHELD_ANNOTATION: &str = "garrison.dev/withheld-clusters";
/// The clusters in the binding only because workloads that depend on the
/// application are there (`propagateDeps`), beside its own schedule:
/// Karmada keeps them apart (`spec.requiredBy`), and the next render does
/// not take them for clusters the application was scheduled on.
pub const REQUIRED_ANNOTATION: &str = "garrison.dev/required-clusters";
/// The placement the schedule was made for (Karmada's own key).
pub const APPLIED_PLACEMENT_ANNOTATION: &str = "policy.karmada.io/applied-placement";
/// The render digest the application's files were made with.
pub const DIGEST_ANNOTATION: &str = "garrison.dev/render-digest";
/// A ResourceBinding of the source pinned the schedule.
pub const PINNED_ANNOTATION: &str = "garrison.dev/pinned";
/// The Clusternet Subscriptions that feed the application (`ns/name`, comma-separated).
pub const SUBSCRIPTIONS_ANNOTATION: &str = "garrison.dev/subscriptions";
/// What a Subscription-fed schedule was made for: a digest of the
/// Subscriptions' specs.
pub const SUBSCRIPTION_SPEC_ANNOTATION: &str = "garrison.dev/subscription-spec-hash";

/// Which policy propagated an application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyRef {
    pub name: String,
    /// `None` for a ClusterPropagationPolicy.
    pub namespace: Option<String>,
}

/// What a render decided for one application.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BindingRecord {
    /// The claiming policy, also when a pinned binding names it.
    pub policy: Option<PolicyRef>,
    pub pinned: bool,
    /// The template has replicas: the desired count and each cluster's
    /// share are recorded. Without, the desired count is zero and only a
    /// held cluster may keep replicas (those its frozen file has).
    pub workload: bool,
    /// Clusters in binding order, with their replicas.
    pub clusters: Vec<(String, u64)>,
    /// The desired replicas the schedule was made for.
    pub replicas: u64,
    /// The placement it was made for (Karmada's applied-placement JSON).
    pub placement: Option<String>,
    /// `status.schedulerObservingAffinityName`.
    pub affinity_name: Option<String>,
    pub fort: Option<String>,
    /// Clusters that were held (paused or suspended) for this application
    /// and are in its binding, frozen. Always a subset of `clusters`.
    pub held: BTreeSet<String>,
    /// Clusters in the binding only because workloads that depend on the
    /// application are there, not by its own schedule. Always a subset of
    /// `clusters`.
    pub required: BTreeSet<String>,
    /// Held clusters the application would have been on without their
    /// holds, which got none of it. `None`: the binding does not say (an
    /// older garrison wrote it, or its schedule is not remembered).
    pub withheld: Option<BTreeSet<String>>,
    /// The render digest its files were made with ([`crate::reuse`]).
    pub digest: Option<String>,
    /// The Clusternet Subscriptions that feed it (`Subscription/ns/name`);
    /// `placement` then holds a digest of their specs.
    pub subscriptions: Vec<String>,
}

impl BindingRecord {
    /// The schedule the application's own policy made: the record without
    /// the clusters it was only required on.
    pub fn own_schedule(&self) -> BindingRecord {
        BindingRecord {
            clusters: self
                .clusters
                .iter()
                .filter(|(c, _)| !self.required.contains(c))
                .cloned()
                .collect(),
            held: self.held.difference(&self.required).cloned().collect(),
            required: BTreeSet::new(),
            ..self.clone()
        }
    }
}

/// The binding of the application `key`, as the document written.
pub fn encode(key: &ObjectKey, record: &BindingRecord) -> Value {
    let mut metadata = Map::new();
    metadata.insert("name".into(), binding_name(&key.name, &key.kind).into());
    if let Some(ns) = &key.namespace {
        metadata.insert("namespace".into(), ns.clone().into());
    }
    let annotations = annotations(record);
    if !annotations.is_empty() {
        metadata.insert("annotations".into(), Value::Object(annotations));
    }
    let mut binding = Map::new();
    binding.insert("apiVersion".into(), "work.karmada.io/v1alpha2".into());
    let kind = match key.namespace {
        Some(_) => "ResourceBinding",
        None => "ClusterResourceBinding",
    };
    binding.insert("kind".into(), kind.into());
    binding.insert("metadata".into(), Value::Object(metadata));
    binding.insert("spec".into(), spec(key, record));
    if let Some(name) = &record.affinity_name {
        binding.insert(
            "status".into(),
            json!({ "schedulerObservingAffinityName": name }),
        );
    }
    Value::Object(binding)
}

/// The record's annotations, in the order they are written.
fn annotations(record: &BindingRecord) -> Map<String, Value> {
    let mut entries: Vec<(&str, String)> = Vec::new();
    if let Some(fort) = &record.fort {
        entries.push((FORT_CLUSTER_ANNOTATION, fort.clone()));
    }
    // In binding order, as the clusters are listed; written when any.
    for (key, set) in [
        (HELD_ANNOTATION, &record.held),
        (REQUIRED_ANNOTATION, &record.required),
    ] {
        let listed: Vec<&str> = record
            .clusters
            .iter()
            .map(|(c, _)| c.as_str())
            .filter(|c| set.contains(*c))
            .collect();
        if !listed.is_empty() {
            entries.push((key, listed.join(",")));
        }
    }
    if let Some(withheld) = &record.withheld {
        let names: Vec<&str> = withheld.iter().map(String::as_str).collect();
        entries.push((WITHHELD_ANNOTATION, names.join(",")));
    }
    if let Some(digest) = &record.digest {
        entries.push((DIGEST_ANNOTATION, digest.clone()));
    }
    if let Some(placement) = &record.placement {
        let key = if record.subscriptions.is_empty() {
            APPLIED_PLACEMENT_ANNOTATION
        } else {
            SUBSCRIPTION_SPEC_ANNOTATION
        };
        entries.push((key, placement.clone()));
    }
    if !record.subscriptions.is_empty() {
        entries.push((SUBSCRIPTIONS_ANNOTATION, record.subscriptions.join(",")));
    }
    if let Some(policy) = &record.policy {
        match &policy.namespace {
            Some(ns) => {
                entries.push((PP_NAME_ANNOTATION, policy.name.clone()));
                entries.push((PP_NAMESPACE_ANNOTATION, ns.clone()));
            }
            None => entries.push((CPP_NAME_ANNOTATION, policy.name.clone())),
        }
    }
    if record.pinned {
        entries.push((PINNED_ANNOTATION, "true".into()));
    }
    entries
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::String(v)))
        .collect()
}

fn spec(key: &ObjectKey, record: &BindingRecord) -> Value {
    let mut resource = Map::new();
    resource.insert("apiVersion".into(), key.api_version.clone().into());
    resource.insert("kind".into(), key.kind.clone().into());
    if let Some(ns) = &key.namespace {
        resource.insert("namespace".into(), ns.clone().into());
    }
    resource.insert("name".into(), key.name.clone().into());
    let mut spec = Map::new();
    spec.insert("resource".into(), Value::Object(resource));
    if record.workload {
        spec.insert("replicas".into(), record.replicas.into());
    }
    let clusters = record
        .clusters
        .iter()
        .map(|(name, replicas)| {
            let mut entry = Map::new();
            entry.insert("name".into(), name.clone().into());
            if record.workload || *replicas > 0 {
                entry.insert("replicas".into(), (*replicas).into());
            }
            Value::Object(entry)
        })
        .collect();
    spec.insert("clusters".into(), Value::Array(clusters));
    Value::Object(spec)
}

/// The application and record of a binding document.
pub fn decode(doc: &BindingDoc) -> (ObjectKey, BindingRecord) {
    let resource = &doc.spec.resource;
    let key = ObjectKey {
        api_version: resource.api_version.clone(),
        kind: resource.kind.clone(),
        namespace: resource.namespace.clone(),
        name: resource.name.clone(),
    };
    let annotations = &doc.metadata.annotations;
    let count = |n: Option<i32>| u64::try_from(n.unwrap_or(0)).unwrap_or(0);
    let policy = match (
        annotations.get(PP_NAME_ANNOTATION),
        annotations.get(PP_NAMESPACE_ANNOTATION),
        annotations.get(CPP_NAME_ANNOTATION),
    ) {
        (Some(name), Some(ns), _) => Some(PolicyRef {
            name: name.clone(),
            namespace: Some(ns.clone()),
        }),
        (_, _, Some(name)) => Some(PolicyRef {
            name: name.clone(),
            namespace: None,
        }),
        _ => None,
    };
    let record = BindingRecord {
        policy,
        pinned: annotations
            .get(PINNED_ANNOTATION)
            .is_some_and(|v| v == "true"),
        workload: doc.spec.replicas.is_some(),
        clusters: doc
            .spec
            .clusters
            .iter()
            .map(|c| (c.name.clone(), count(c.replicas)))
            .collect(),
        replicas: count(doc.spec.replicas),
        placement: annotations
            .get(APPLIED_PLACEMENT_ANNOTATION)
            .or_else(|| annotations.get(SUBSCRIPTION_SPEC_ANNOTATION))
            .cloned(),
        affinity_name: doc
            .status
            .as_ref()
            .and_then(|s| s.scheduler_observing_affinity_name.clone()),
        fort: annotations.get(FORT_CLUSTER_ANNOTATION).cloned(),
        held: annotations
            .get(HELD_ANNOTATION)
            .map(|h| cluster_list(h))
            .unwrap_or_default(),
        required: annotations
            .get(REQUIRED_ANNOTATION)
            .map(|r| cluster_list(r))
            .unwrap_or_default(),
        withheld: annotations
            .get(WITHHELD_ANNOTATION)
            .map(|w| cluster_list(w)),
        digest: annotations.get(DIGEST_ANNOTATION).cloned(),
        subscriptions: annotations
            .get(SUBSCRIPTIONS_ANNOTATION)
            .map(|s| {
                s.split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    };
    (key, record)
}

/// A comma-separated list of cluster names (empty: none).
fn cluster_list(text: &str) -> BTreeSet<String> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn name() -> impl Strategy<Value = String> {
        "[a-z][a-z0-9-]{0,12}"
    }

    fn key() -> impl Strategy<Value = ObjectKey> {
        (
            prop::sample::select(vec!["apps/v1", "v1", "batch/v1", "example.com/v1beta1"]),
            prop::sample::select(vec!["Deployment", "ConfigMap", "Job", "Widget"]),
            prop::option::of(name()),
            "[a-z][a-z0-9.:-]{0,20}",
        )
            .prop_map(|(api_version, kind, namespace, name)| ObjectKey {
                api_version: api_version.into(),
                kind: kind.into(),
                namespace,
                name,
            })
    }

    /// Any record a render can write: held and required clusters are
    /// clusters of the binding, and the desired count is zero unless the template is a
    /// workload.
    fn record() -> impl Strategy<Value = BindingRecord> {
        let clusters = prop::collection::btree_map(name(), 0u64..1000, 0..5);
        (
            clusters,
            any::<bool>(),
            0u64..5000,
            prop::option::of(prop::option::of(name()).prop_flat_map(|ns| {
                name().prop_map(move |name| PolicyRef {
                    name,
                    namespace: ns.clone(),
                })
            })),
            any::<bool>(),
            prop::option::of("\\PC{0,40}"),
            prop::option::of(name()),
            prop::option::of(prop::collection::btree_set(name(), 0..3)),
            prop::option::of("[0-9a-f]{16}"),
            (
                any::<u64>(),
                prop::collection::vec("[a-z]{1,5}/[a-z]{1,5}", 0..3),
            ),
        )
            .prop_map(
                |(
                    clusters,
                    workload,
                    replicas,
                    policy,
                    pinned,
                    placement,
                    affinity,
                    withheld,
                    digest,
                    (pick, subscriptions),
                )| {
                    let clusters: Vec<(String, u64)> = clusters.into_iter().collect();
                    let held = clusters
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| pick >> (i % 64) & 1 == 1)
                        .map(|(_, (c, _))| c.clone())
                        .collect();
                    let required = clusters
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| pick >> ((i + 7) % 64) & 1 == 1)
                        .map(|(_, (c, _))| c.clone())
                        .collect();
                    let fort = clusters
                        .first()
                        .map(|(c, _)| c.clone())
                        .filter(|_| pick % 3 == 0);
                    BindingRecord {
                        policy,
                        pinned,
                        workload,
                        clusters,
                        replicas: if workload { replicas } else { 0 },
                        placement,
                        affinity_name: affinity,
                        fort,
                        held,
                        required,
                        withheld,
                        digest,
                        subscriptions,
                    }
                },
            )
    }

    proptest! {
        #[test]
        fn decoding_a_written_binding_gives_the_record_back(key in key(), record in record()) {
            let yaml = match crate::emit::yaml::to_yaml(&encode(&key, &record)) {
                Ok(yaml) => yaml,
                Err(e) => panic!("the binding does not serialise: {e}"),
            };
            let doc: BindingDoc = match serde_saphyr::from_str(&yaml) {
                Ok(doc) => doc,
                Err(e) => panic!("the written binding does not read back: {e}\n{yaml}"),
            };
            prop_assert_eq!(decode(&doc), (key, record));
        }
    }

    #[test]
    fn a_namespaced_workload_binding_as_written() {
        let key = ObjectKey {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: Some("shop".into()),
            name: "web".into(),
        };
        let record = BindingRecord {
            policy: Some(PolicyRef {
                name: "web".into(),
                namespace: Some("shop".into()),
            }),
            workload: true,
            clusters: vec![("b".into(), 2), ("a".into(), 1)],
            replicas: 3,
            fort: Some("b".into()),
            held: BTreeSet::from(["a".to_string(), "b".to_string()]),
            withheld: Some(BTreeSet::new()),
            ..BindingRecord::default()
        };
        let written = encode(&key, &record);
        assert_eq!(
            written,
            json!({
                "apiVersion": "work.karmada.io/v1alpha2",
                "kind": "ResourceBinding",
                "metadata": {
                    "name": "web-deployment",
                    "namespace": "shop",
                    "annotations": {
                        "garrison.dev/fort-cluster": "b",
                        "garrison.dev/held-clusters": "b,a",
                        "garrison.dev/withheld-clusters": "",
                        "propagationpolicy.karmada.io/name": "web",
                        "propagationpolicy.karmada.io/namespace": "shop",
                    },
                },
                "spec": {
                    "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web"},
                    "replicas": 3,
                    "clusters": [{"name": "b", "replicas": 2}, {"name": "a", "replicas": 1}],
                },
            })
        );
    }
}
