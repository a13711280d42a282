//! Everything one render reads from the source repository, typed and positioned.

use super::binding::BindingDoc;
use super::cluster::Cluster;
use super::clusternet::{GlobalizationSpec, LocalizationSpec, SubscriptionSpec};
use super::customization::CustomizationDoc;
pub use super::document::Document;
use super::meta::ObjectKey;
use super::override_policy::OverrideSpec;
use super::policy::PropagationSpec;
use super::resource_selector::TemplateView;
use super::selector::Labels;
use crate::diag::{FileId, Origin, Sources};
use serde_json::Value;
use std::collections::BTreeMap;

/// A resource template: any object garrison propagates.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    pub key: ObjectKey,
    pub labels: Labels,
    pub annotations: BTreeMap<String, String>,
    /// The template as the control plane's API server stores it
    /// ([`crate::apiserver::store`]): what every decision and override
    /// reads.
    pub value: Value,
    /// The template as the user wrote it: what garrison writes, plus what
    /// the plan changes ([`crate::apiserver::slim`]).
    pub written: Value,
    /// The template as a Clusternet hub keeps it as a feed, made when a
    /// Subscription first reads it (`plan::fed`).
    pub fed: std::sync::OnceLock<Value>,
    pub origin: Origin,
    /// Where the fort-pin annotation is written, when there is one.
    pub fort_pin_origin: Option<Origin>,
}

impl Template {
    pub fn view(&self) -> TemplateView<'_> {
        TemplateView {
            api_version: &self.key.api_version,
            kind: &self.key.kind,
            namespace: self.key.namespace.as_deref(),
            name: &self.key.name,
            labels: &self.labels,
        }
    }
}

/// A PropagationPolicy (`namespace` set) or ClusterPropagationPolicy.
#[derive(Clone, Debug, PartialEq)]
pub struct PropagationPolicy {
    pub name: String,
    pub namespace: Option<String>,
    pub annotations: BTreeMap<String, String>,
    pub spec: PropagationSpec,
    pub doc: Document,
}

impl PropagationPolicy {
    pub fn kind(&self) -> &'static str {
        if self.namespace.is_some() {
            "PropagationPolicy"
        } else {
            "ClusterPropagationPolicy"
        }
    }
    /// `PropagationPolicy/ns/name` or `ClusterPropagationPolicy/name`.
    pub fn display(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("PropagationPolicy/{ns}/{}", self.name),
            None => format!("ClusterPropagationPolicy/{}", self.name),
        }
    }
}

/// An OverridePolicy (`namespace` set) or ClusterOverridePolicy.
#[derive(Clone, Debug, PartialEq)]
pub struct OverridePolicy {
    pub name: String,
    pub namespace: Option<String>,
    pub spec: OverrideSpec,
    pub doc: Document,
}

impl OverridePolicy {
    pub fn display(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("OverridePolicy/{ns}/{}", self.name),
            None => format!("ClusterOverridePolicy/{}", self.name),
        }
    }
}

/// A Clusternet Subscription: which feeds go to which clusters.
#[derive(Clone, Debug, PartialEq)]
pub struct Subscription {
    pub name: String,
    pub namespace: String,
    pub annotations: BTreeMap<String, String>,
    pub spec: SubscriptionSpec,
    pub doc: Document,
}

impl Subscription {
    /// `Subscription/ns/name`.
    pub fn display(&self) -> String {
        format!("Subscription/{}/{}", self.namespace, self.name)
    }
}

/// A Clusternet Localization: overrides of one feed for the cluster whose
/// dedicated namespace holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Localization {
    pub name: String,
    pub namespace: String,
    pub spec: LocalizationSpec,
    pub doc: Document,
}

/// A Clusternet Globalization: overrides of one feed for every cluster (or
/// those its `clusterAffinity` selects).
#[derive(Clone, Debug, PartialEq)]
pub struct Globalization {
    pub name: String,
    pub spec: GlobalizationSpec,
    pub doc: Document,
}

/// A ResourceBinding or ClusterResourceBinding that pins a template's clusters.
#[derive(Clone, Debug, PartialEq)]
pub struct PinnedBinding {
    pub binding: BindingDoc,
    pub doc: Document,
}

#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub sources: Sources,
    /// `garrison.yaml` (defaults when there is none).
    pub config: super::config::Config,
    /// The schemas templates were checked against (the Kubernetes API and
    /// the repository's CRDs), for checking what overrides and hooks make.
    pub catalog: Option<std::sync::Arc<crate::schema::Catalog>>,
    /// Sorted by key.
    pub templates: Vec<Template>,
    /// Sorted by (namespace, name); cluster-scoped first.
    pub propagation_policies: Vec<PropagationPolicy>,
    pub override_policies: Vec<OverridePolicy>,
    /// Sorted by name.
    pub clusters: Vec<Cluster>,
    pub bindings: Vec<PinnedBinding>,
    /// ResourceInterpreterCustomizations, sorted by name (Karmada merges them in name order).
    pub customizations: Vec<CustomizationDoc>,
    /// Karmada FederatedHPAs, sorted by (namespace, name).
    pub autoscalers: Vec<super::autoscaling::FederatedHpa>,
    /// Clusternet Subscriptions, sorted by (namespace, name).
    pub subscriptions: Vec<Subscription>,
    /// Clusternet Localizations, sorted by (namespace, name).
    pub localizations: Vec<Localization>,
    /// Clusternet Globalizations, sorted by name.
    pub globalizations: Vec<Globalization>,
    /// The texts dry sources rendered that belong to a Helm release: its
    /// namespace, for the namespaced objects its chart writes without one.
    pub release_namespaces: BTreeMap<FileId, String>,
    /// The version of each tool that rendered a dry source (`helm`,
    /// `kustomize`), for the provenance.
    pub tools: BTreeMap<String, String>,
}

impl Inputs {
    /// The template of `key` ([`Inputs::templates`] is sorted by key).
    pub fn template(&self, key: &ObjectKey) -> Option<&Template> {
        let i = self.templates.binary_search_by(|t| t.key.cmp(key)).ok()?;
        self.templates.get(i)
    }

    /// The cluster named `name` ([`Inputs::clusters`] is sorted by name).
    pub fn cluster(&self, name: &str) -> Option<&Cluster> {
        let i = self
            .clusters
            .binary_search_by(|c| c.name.as_str().cmp(name))
            .ok()?;
        self.clusters.get(i)
    }
}
