//! Classification: each parsed document becomes a template, a policy, a
//! cluster or a binding, by apiVersion and kind (SPEC §1).
//!
//! Typed kinds are deserialised with the path of any fault, which the
//! document's position tree turns into a line and column; fields garrison
//! does not know are warnings (never silently dropped); names are checked
//! with Kubernetes' rules; duplicates are errors naming both places.

use super::kinds::{role, unknown_kind_help, Role};
use super::names::{check_policy_name, check_template_name};
use super::typed;
use crate::diag::{unknown_field, Code, Diagnostic, Diagnostics, FileId, Origin, Sources};
use crate::model::autoscaling::{self, FederatedHpa, FederatedHpaDoc};
use crate::model::binding::BindingDoc;
use crate::model::cluster::{Cluster, KarmadaClusterDoc, ManagedClusterDoc};
use crate::model::clusternet::{GlobalizationDoc, LocalizationDoc, SubscriptionDoc};
use crate::model::customization::{
    CustomizationDoc, CustomizationManifest, REVISE_OBJECT_ANNOTATION,
};
use crate::model::inputs::{
    Document, Globalization, Inputs, Localization, OverridePolicy, PinnedBinding,
    PropagationPolicy, Subscription, Template,
};
use crate::model::meta::{dns_label_fault, ObjectKey};
use crate::model::override_policy::OverrideSpec;
use crate::model::policy::PropagationPolicyDoc;
use crate::model::resource_model::{self, ModelFault as ResourceModelFault};
use crate::model::selector::Labels;
use crate::model::taint_policy::{self, ClusterTaintPolicy, ClusterTaintPolicyDoc};
use crate::node::{Node, NodeKind};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// The longest name Karmada's API server takes for a Cluster
/// (`ValidateClusterName`).
const KARMADA_CLUSTER_NAME_MAX: usize = 48;

/// Sort parsed documents into [`Inputs`] (sources are filled in by the caller).
pub fn classify(
    documents: Vec<(FileId, Node)>,
    sources: &Sources,
    diagnostics: &mut Diagnostics,
) -> Inputs {
    classify_documents(documents, sources, None, diagnostics).0
}

/// [`classify`], also returning each template's document (same order as
/// `templates`), which [`super::templates`] checks against its schema.
/// Templates are not yet told apart from duplicates: whether two are the
/// same object depends on their scope, which their schema decides.
/// Namespaced policies and bindings without a namespace take
/// `default_namespace` (garrison.yaml's `defaultNamespace`).
pub fn classify_documents(
    documents: Vec<(FileId, Node)>,
    sources: &Sources,
    default_namespace: Option<&str>,
    diagnostics: &mut Diagnostics,
) -> (Inputs, Vec<Document>) {
    let mut classifier = Classifier {
        inputs: Inputs::default(),
        template_documents: Vec::new(),
        seen: HashMap::new(),
        sources,
        default_namespace,
        taint_policies: Vec::new(),
    };
    for (file, node) in documents {
        for document in expand_lists(file, node, diagnostics) {
            classifier.document(document, diagnostics);
        }
    }
    let Classifier {
        mut inputs,
        template_documents,
        mut taint_policies,
        ..
    } = classifier;
    let mut paired: Vec<(Template, Document)> = std::mem::take(&mut inputs.templates)
        .into_iter()
        .zip(template_documents)
        .collect();
    paired.sort_by(|a, b| (&a.0.key, a.0.origin).cmp(&(&b.0.key, b.0.origin)));
    let (templates, template_documents) = paired.into_iter().unzip();
    inputs.templates = templates;
    inputs
        .propagation_policies
        .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    inputs
        .override_policies
        .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    inputs.bindings.sort_by(|a, b| {
        (&a.binding.metadata.namespace, &a.binding.metadata.name)
            .cmp(&(&b.binding.metadata.namespace, &b.binding.metadata.name))
    });
    inputs.clusters.sort_by(|a, b| a.name.cmp(&b.name));
    taint_policies.sort_by(|a, b| a.name.cmp(&b.name));
    for cluster in &mut inputs.clusters {
        taint_policy::apply(&taint_policies, cluster);
    }
    inputs.customizations.sort_by(|a, b| a.name.cmp(&b.name));
    inputs
        .autoscalers
        .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    inputs
        .subscriptions
        .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    inputs
        .localizations
        .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    inputs.globalizations.sort_by(|a, b| a.name.cmp(&b.name));
    let mut clusters_seen: BTreeMap<String, Origin> = BTreeMap::new();
    for cluster in &inputs.clusters {
        if let Some(first) = clusters_seen.insert(cluster.name.clone(), cluster.origin) {
            diagnostics.push(
                Diagnostic::error(
                    Code::DuplicateCluster,
                    format!("cluster `{}` is defined twice", cluster.name),
                )
                .at(cluster.origin)
                .help(format!(
                    "it is also defined in `{}` at line {}; keep one definition",
                    sources.path(first.file),
                    first.pos.line
                )),
            );
        }
    }
    (inputs, template_documents)
}

/// `kind: List` (and `*List` kinds such as `ConfigMapList`) expand to their items.
pub(crate) fn expand_lists(
    file: FileId,
    node: Node,
    diagnostics: &mut Diagnostics,
) -> Vec<Document> {
    let doc = Document { file, node };
    let origin = doc.origin();
    let NodeKind::Map(entries) = &doc.node.kind else {
        diagnostics.push(
            Diagnostic::error(
                Code::NotAnObject,
                "this document is not a mapping; every document must be a Kubernetes object",
            )
            .at(origin)
            .help("remove the document, or write it as `apiVersion: …`, `kind: …`, `metadata: …`"),
        );
        return Vec::new();
    };
    let kind = entries
        .iter()
        .find(|(k, _, _)| k == "kind")
        .and_then(|(_, _, v)| match &v.kind {
            NodeKind::String(s) => Some(s.clone()),
            _ => None,
        });
    let is_list = kind
        .as_deref()
        .is_some_and(|k| k == "List" || (k.ends_with("List") && k.len() > 4))
        && entries.iter().any(|(k, _, _)| k == "items");
    if !is_list {
        return vec![doc];
    }
    let items = entries
        .iter()
        .find(|(k, _, _)| k == "items")
        .map(|(_, _, v)| v.clone());
    match items.map(|n| n.kind) {
        Some(NodeKind::Seq(items)) => items
            .into_iter()
            .flat_map(|item| expand_lists(file, item, diagnostics))
            .collect(),
        Some(NodeKind::Null) => Vec::new(),
        _ => {
            diagnostics.push(
                Diagnostic::error(
                    Code::InvalidField,
                    "`items` of a List must be a sequence of objects",
                )
                .at(doc.at(&["items"])),
            );
            Vec::new()
        }
    }
}

fn string_at<'a>(node: &'a Node, key: &str) -> Option<&'a str> {
    match &node.kind {
        NodeKind::Map(entries) => {
            entries
                .iter()
                .find(|(k, _, _)| k == key)
                .and_then(|(_, _, v)| match &v.kind {
                    NodeKind::String(s) => Some(s.as_str()),
                    _ => None,
                })
        }
        _ => None,
    }
}

/// Sorting documents into inputs, one at a time.
struct Classifier<'a> {
    inputs: Inputs,
    /// The documents of `inputs.templates`, in the same order.
    template_documents: Vec<Document>,
    /// Typed inputs seen so far, for duplicates.
    seen: HashMap<ObjectKey, Origin>,
    sources: &'a Sources,
    default_namespace: Option<&'a str>,
    taint_policies: Vec<ClusterTaintPolicy>,
}

/// What every document says it is: apiVersion, kind, role, name and
/// namespace (a namespaced policy's or binding's default filled in).
struct Identity {
    api_version: String,
    kind: String,
    role: Role,
    name: String,
    namespace: Option<String>,
}

impl Classifier<'_> {
    /// Sort one document into the inputs.
    fn document(&mut self, doc: Document, diagnostics: &mut Diagnostics) {
        let value = doc.node.to_value();
        let Some(identity) = self.identify(&doc, &value, diagnostics) else {
            return;
        };
        if let Some(holder) = identity.role.holder() {
            let what = match &identity.namespace {
                Some(ns) => format!("{} `{ns}/{}`", identity.kind, identity.name),
                None => format!("{} `{}`", identity.kind, identity.name),
            };
            super::domain::check(&doc, holder, &what, diagnostics);
        }
        let kind = identity.kind.clone();
        match identity.role {
            Role::Kustomize => diagnostics.push(
                Diagnostic::warning(
                    Code::UnsupportedField,
                    format!(
                        "`{kind}` is a kustomize file, not a Kubernetes object; it is not an input"
                    ),
                )
                .at(doc.at(&["kind"]))
                .help(
                    "exclude kustomize files in garrison.yaml (`exclude: [\"**/kustomization.yaml\"]`)",
                ),
            ),
            Role::Unsupported(why) => diagnostics.push(
                Diagnostic::warning(
                    Code::UnsupportedField,
                    format!("`{kind}` is not supported and has no effect: {why}"),
                )
                .at(doc.at(&["kind"])),
            ),
            Role::Karmada(own) => {
                let name = match &identity.namespace {
                    Some(namespace) => format!("{namespace}/{}", identity.name),
                    None => identity.name.clone(),
                };
                diagnostics.push(own.warning(&name, &doc));
            }
            Role::Template => self.template(doc, value, identity, diagnostics),
            Role::PropagationPolicy { cluster_scoped } | Role::OverridePolicy { cluster_scoped } => {
                self.policy(doc, identity, cluster_scoped, diagnostics);
            }
            Role::Cluster | Role::ManagedCluster => self.cluster(doc, identity, diagnostics),
            Role::Binding { .. } => self.binding(doc, identity, diagnostics),
            Role::Customization => self.customization(doc, identity, diagnostics),
            Role::TaintPolicy => self.taint_policy(doc, identity, diagnostics),
            Role::Autoscaler => self.autoscaler(doc, identity, diagnostics),
            Role::Subscription | Role::Localization | Role::Globalization => {
                self.clusternet(doc, identity, diagnostics);
            }
        }
    }

    /// The document's identity, or `None` (reported) when it has none.
    fn identify(
        &self,
        doc: &Document,
        value: &Value,
        diagnostics: &mut Diagnostics,
    ) -> Option<Identity> {
        let api_version = string_at(&doc.node, "apiVersion")
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let kind = string_at(&doc.node, "kind")
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let (Some(api_version), Some(kind)) = (api_version, kind) else {
            let missing = match (
                string_at(&doc.node, "apiVersion").is_some_and(|s| !s.is_empty()),
                string_at(&doc.node, "kind").is_some_and(|s| !s.is_empty()),
            ) {
                (false, false) => "`apiVersion` and `kind`",
                (false, true) => "`apiVersion`",
                _ => "`kind`",
            };
            diagnostics.push(
                Diagnostic::error(Code::MissingTypeMeta, format!("this document has no {missing} (or it is not a string)"))
                    .at(doc.origin())
                    .help("every document must say what it is, for example `apiVersion: apps/v1` and `kind: Deployment`"),
            );
            return None;
        };
        let Ok(role) = role(&api_version, &kind) else {
            diagnostics.push(
                Diagnostic::error(
                    Code::UnknownKind,
                    format!("`{kind}` is not a kind of `{api_version}` that garrison knows"),
                )
                .at(doc.at(&["kind"]))
                .help(unknown_kind_help(&api_version, &kind)),
            );
            return None;
        };
        for field in ["name", "namespace"] {
            if let Some(other) = value
                .pointer(&format!("/metadata/{field}"))
                .filter(|v| !v.is_string() && !v.is_null())
            {
                diagnostics.push(
                    Diagnostic::error(Code::InvalidName, format!("`metadata.{field}` must be a string, but this reads as {other}"))
                        .at(doc.at(&["metadata", field]))
                        .help("quote it: YAML 1.1 readers such as kubectl take `y`, `no`, `on`, `0777` and `1e3` for booleans and numbers"),
                );
                return None;
            }
        }
        let name = value
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let mut namespace = value
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let namespaced_input = matches!(
            role,
            Role::PropagationPolicy {
                cluster_scoped: false
            } | Role::OverridePolicy {
                cluster_scoped: false
            } | Role::Binding {
                cluster_scoped: false
            } | Role::Subscription
                | Role::Localization
                | Role::Autoscaler
        );
        if namespace.is_none() && namespaced_input {
            namespace = self.default_namespace.map(str::to_string);
        }
        Some(Identity {
            api_version,
            kind,
            role,
            name,
            namespace,
        })
    }

    /// A resource template (duplicates are found once its scope is known).
    fn template(
        &mut self,
        doc: Document,
        value: Value,
        identity: Identity,
        diagnostics: &mut Diagnostics,
    ) {
        let Identity {
            api_version,
            kind,
            name,
            namespace,
            ..
        } = identity;
        if !check_template_name(&doc, &api_version, &name, namespace.as_deref(), diagnostics) {
            return;
        }
        if value
            .pointer("/metadata/resourceVersion")
            .is_some_and(|v| v.as_str() != Some("") && !v.is_null())
        {
            diagnostics.push(
                Diagnostic::error(
                    Code::InvalidField,
                    format!("`{kind}` `{name}` sets `metadata.resourceVersion`: Karmada's API server refuses to create an object that does (\"resourceVersion should not be set on objects to be created\"), so it would never be propagated"),
                )
                .at(doc.at(&["metadata", "resourceVersion"]))
                .help("remove `resourceVersion` (and the other fields a cluster adds, such as uid and creationTimestamp, which are dropped anyway); it comes from `kubectl get -o yaml`"),
            );
            return;
        }
        let key = ObjectKey {
            api_version,
            kind,
            namespace,
            name,
        };
        // Decided on as the control plane's API server stores it (SPEC §10,
        // "The API server stage"); a SOPS document is not.
        let written = value.clone();
        let mut value = value;
        if !crate::model::meta::sops_encrypted(&value) {
            crate::apiserver::store(&mut value);
        }
        let labels: Labels = string_map(value.pointer("/metadata/labels"));
        let annotations = string_map(value.pointer("/metadata/annotations"));
        let fort_pin_origin = annotations
            .contains_key(crate::model::meta::FORT_CLUSTER_ANNOTATION)
            .then(|| {
                doc.at(&[
                    "metadata",
                    "annotations",
                    crate::model::meta::FORT_CLUSTER_ANNOTATION,
                ])
            });
        self.inputs.templates.push(Template {
            key,
            labels,
            annotations,
            value,
            written,
            fed: Default::default(),
            origin: doc.origin(),
            fort_pin_origin,
        });
        self.template_documents.push(doc);
    }

    /// A (Cluster)PropagationPolicy or (Cluster)OverridePolicy.
    fn policy(
        &mut self,
        doc: Document,
        identity: Identity,
        cluster_scoped: bool,
        diagnostics: &mut Diagnostics,
    ) {
        let Identity {
            api_version,
            kind,
            role,
            name,
            namespace,
        } = identity;
        if !check_policy_name(
            &doc,
            &kind,
            &name,
            namespace.as_deref(),
            cluster_scoped,
            diagnostics,
        ) {
            return;
        }
        let key = ObjectKey {
            api_version,
            kind: kind.clone(),
            namespace: namespace.clone(),
            name: name.clone(),
        };
        if !self.note_unique(&key, doc.at(&["metadata", "name"]), diagnostics) {
            return;
        }
        let namespace = if cluster_scoped { None } else { namespace };
        if matches!(role, Role::PropagationPolicy { .. }) {
            let Some(mut parsed) = parse_typed::<PropagationPolicyDoc>(&doc, &kind, diagnostics)
            else {
                return;
            };
            if !within_crd_bounds(&doc, &kind, &parsed.spec, diagnostics) {
                return;
            }
            parsed.spec.placement.default_spread_constraints();
            parsed.spec.default_propagate_deps();
            warn_inactive_fields(&doc, &parsed.spec, diagnostics);
            self.inputs.propagation_policies.push(PropagationPolicy {
                name,
                namespace,
                annotations: parsed.metadata.annotations,
                spec: parsed.spec,
                doc,
            });
        } else {
            #[derive(Deserialize)]
            struct OverridePolicyDoc {
                #[allow(dead_code)]
                metadata: crate::model::meta::ObjectMeta,
                spec: OverrideSpec,
            }
            let Some(parsed) = parse_typed::<OverridePolicyDoc>(&doc, &kind, diagnostics) else {
                return;
            };
            self.inputs.override_policies.push(OverridePolicy {
                name,
                namespace,
                spec: parsed.spec,
                doc,
            });
        }
    }

    /// A Karmada Cluster or a Clusternet ManagedCluster.
    fn cluster(&mut self, doc: Document, identity: Identity, diagnostics: &mut Diagnostics) {
        let Identity {
            kind, role, name, ..
        } = identity;
        if let Some(fault) = dns_label_fault(&name) {
            diagnostics.push(
                Diagnostic::error(Code::InvalidName, format!("cluster name `{name}` {fault}"))
                    .at(doc.at(&["metadata", "name"]))
                    .help("cluster names are DNS labels: lower-case letters, digits and `-`, at most 63 characters"),
            );
            return;
        }
        // Karmada names each Cluster's execution namespace
        // `karmada-es-<name>`, so its API server keeps 15 of a DNS label's
        // 63 characters for that prefix (`ValidateClusterName`).
        if role == Role::Cluster && name.len() > KARMADA_CLUSTER_NAME_MAX {
            diagnostics.push(
                Diagnostic::error(
                    Code::InvalidName,
                    format!("cluster name `{name}` has {} characters: Karmada's API server refuses a Cluster name longer than {KARMADA_CLUSTER_NAME_MAX}", name.len()),
                )
                .at(doc.at(&["metadata", "name"]))
                .help(format!("shorten the name to at most {KARMADA_CLUSTER_NAME_MAX} characters: Karmada prefixes it with `karmada-es-` for the cluster's namespace")),
            );
            return;
        }
        let cluster = if role == Role::Cluster {
            let Some(parsed) = parse_typed::<KarmadaClusterDoc>(&doc, &kind, diagnostics) else {
                return;
            };
            // Karmada's API server validates a Cluster before its
            // canonicalisation moves a lone `zone` into `zones`
            // (`pkg/registry/cluster/strategy.go`, `ValidateClusterSpec`):
            // both at once are refused, never merged.
            if parsed.spec.zone.as_deref().is_some_and(|z| !z.is_empty())
                && !parsed.spec.zones.is_empty()
            {
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidField,
                        format!("cluster `{name}` sets both `spec.zone` and `spec.zones`: Karmada's API server refuses such a Cluster (\"Zone and Zones cannot co-exist\")"),
                    )
                    .at(doc.at(&["spec", "zone"]))
                    .help("`spec.zone` is deprecated: move its value into `spec.zones` and remove `spec.zone`"),
                );
                return;
            }
            // The same validation refuses taints a Karmada Cluster cannot
            // carry (`ValidateClusterTaints`).
            let taint_faults = crate::model::cluster::karmada_taint_faults(&parsed.spec.taints);
            for (i, field, fault) in &taint_faults {
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidField,
                        format!("cluster `{name}`: {fault}: Karmada's API server refuses such a Cluster"),
                    )
                    .at(doc.at(&["spec", "taints", &i.to_string(), field]))
                    .help(match *field {
                        "effect" => "a soft taint has no Karmada form: drop it, or make it `NoSchedule` and give the placements that may use the cluster a toleration",
                        _ if fault.contains("appears twice") => "keep one taint per key and effect",
                        _ => "taint keys are label keys and values label values: letters, digits, `-`, `_` and `.`, at most 63 characters",
                    }),
                );
            }
            let spec_faults = crate::model::cluster::karmada_spec_faults(&parsed.spec);
            for (field, fault) in &spec_faults {
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidField,
                        format!("cluster `{name}`: {fault}: Karmada's API server refuses such a Cluster"),
                    )
                    .at(doc.at(&["spec", field]))
                    .help(match *field {
                        "provider" | "region" | "zone" | "zones" => "a label value: letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit, at most 63 characters",
                        _ => "fix the value, or leave the field out: it has no effect on a render, but Karmada's registry validates it",
                    }),
                );
            }
            if !taint_faults.is_empty() || !spec_faults.is_empty() {
                return;
            }
            // The same registry standardizes and validates the resource
            // models (`ValidateClusterResourceModels`).
            if let Err(fault) = resource_model::stored(parsed.spec.resource_models.as_deref()) {
                let at = match &fault {
                    ResourceModelFault::Quantity {
                        model,
                        range,
                        bound,
                        ..
                    } => doc.at(&[
                        "spec",
                        "resourceModels",
                        &model.to_string(),
                        "ranges",
                        &range.to_string(),
                        bound,
                    ]),
                    ResourceModelFault::Invalid(_) => doc.at(&["spec", "resourceModels"]),
                };
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidField,
                        format!("cluster `{name}`: {fault}: Karmada's API server refuses such a Cluster"),
                    )
                    .at(at)
                    .help("grades sorted by `grade`, each with the same resource names in the same order, each `min` the `max` of the grade below written the same way, every `max` above its `min`"),
                );
                return;
            }
            Cluster::from_karmada(parsed, doc.origin())
        } else {
            let Some(parsed) = parse_typed::<ManagedClusterDoc>(&doc, &kind, diagnostics) else {
                return;
            };
            Cluster::from_clusternet(parsed, doc.origin())
        };
        if let Some(summary) = &cluster.resource_summary {
            for (section, resource, fault) in summary.invalid_quantities() {
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidField,
                        format!("cluster `{name}`: `status.resourceSummary.{section}.{resource}`: {fault}"),
                    )
                    .at(doc.at(&["status", "resourceSummary", section, resource]))
                    .help("write a Kubernetes quantity such as `8`, `500m` or `32Gi`; the API server refuses anything else"),
                );
            }
            // Karmada's estimator holds a cluster's count in an int32, which
            // wraps past 2147483647 (`GeneralEstimator.maxAvailableReplicas`):
            // its divisions would not follow such a summary.
            let allowed = summary.allowed_pods();
            if role == Role::Cluster && allowed > crate::model::quantity::MAX_ALLOWED_PODS {
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidField,
                        format!("cluster `{name}`: `status.resourceSummary` allows {allowed} pods (allocatable − allocated − allocating), more than 2147483647: Karmada's scheduler counts a cluster's available replicas in an int32, which wraps around past that, so its division would not follow this summary"),
                    )
                    .at(doc.at(&["status", "resourceSummary", "allocatable", "pods"]))
                    .help("write the pods the cluster can really run (allocatable − allocated − allocating at most 2147483647)"),
                );
                return;
            }
        }
        self.inputs.clusters.push(cluster);
    }

    /// A cluster-scoped Karmada object read as `T`: its name checked, its
    /// fields read strictly, and its identity unique; `None` after an error.
    fn cluster_scoped<T: DeserializeOwned>(
        &mut self,
        doc: &Document,
        identity: Identity,
        diagnostics: &mut Diagnostics,
    ) -> Option<(String, T)> {
        let Identity {
            api_version,
            kind,
            name,
            ..
        } = identity;
        if !check_policy_name(doc, &kind, &name, None, true, diagnostics) {
            return None;
        }
        let parsed = parse_typed::<T>(doc, &kind, diagnostics)?;
        let key = ObjectKey {
            api_version,
            kind,
            namespace: None,
            name: name.clone(),
        };
        self.note_unique(&key, doc.at(&["metadata", "name"]), diagnostics)
            .then_some((name, parsed))
    }

    /// A ClusterTaintPolicy, refused where Karmada's webhook refuses it.
    fn taint_policy(&mut self, doc: Document, identity: Identity, diagnostics: &mut Diagnostics) {
        let Some((name, parsed)) =
            self.cluster_scoped::<ClusterTaintPolicyDoc>(&doc, identity, diagnostics)
        else {
            return;
        };
        let refusals = taint_policy::refusals(&parsed.spec);
        for (i, why) in &refusals {
            diagnostics.push(
                Diagnostic::error(Code::InvalidField, format!("invalid ClusterTaintPolicy `{name}`: {why}"))
                    .at(doc.at(&["spec", "taints", &i.to_string()]))
                    .help("as Karmada's webhook requires: one taint per key and effect, with effect `NoSchedule` or `PreferNoSchedule`"),
            );
        }
        if refusals.is_empty() {
            self.taint_policies.push(ClusterTaintPolicy {
                name,
                spec: parsed.spec,
            });
        }
    }

    /// A FederatedHPA, refused where Karmada's webhook refuses it; what it
    /// does to its target is `autoscale`'s.
    fn autoscaler(&mut self, doc: Document, identity: Identity, diagnostics: &mut Diagnostics) {
        let Identity {
            api_version,
            kind,
            name,
            namespace,
            ..
        } = identity;
        if !check_policy_name(&doc, &kind, &name, namespace.as_deref(), false, diagnostics) {
            return;
        }
        let Some(parsed) = parse_typed::<FederatedHpaDoc>(&doc, &kind, diagnostics) else {
            return;
        };
        let refusals = autoscaling::refusals(&parsed.spec);
        for (path, why) in &refusals {
            diagnostics.push(
                Diagnostic::error(Code::InvalidField, format!("invalid FederatedHPA `{name}`: {why}"))
                    .at(doc.at(path))
                    .help("as Karmada's webhook requires: `minReplicas` and `maxReplicas` of 1 or more, `maxReplicas` not below `minReplicas`, a target with a kind and a name"),
            );
        }
        let Some(namespace) = namespace.filter(|_| refusals.is_empty()) else {
            return;
        };
        let key = ObjectKey {
            api_version,
            kind,
            namespace: Some(namespace.clone()),
            name: name.clone(),
        };
        if self.note_unique(&key, doc.at(&["metadata", "name"]), diagnostics) {
            self.inputs.autoscalers.push(FederatedHpa {
                name,
                namespace,
                spec: parsed.spec,
                doc,
            });
        }
    }

    /// A (Cluster)ResourceBinding that pins a template's clusters.
    fn binding(&mut self, doc: Document, identity: Identity, diagnostics: &mut Diagnostics) {
        let Identity {
            api_version,
            kind,
            name,
            namespace,
            ..
        } = identity;
        let Some(binding) = parse_typed::<BindingDoc>(&doc, &kind, diagnostics) else {
            return;
        };
        if !replicas_are_counts(&doc, &kind, &binding, diagnostics) {
            return;
        }
        let key = ObjectKey {
            api_version,
            kind,
            namespace,
            name,
        };
        if !self.note_unique(&key, doc.at(&["metadata", "name"]), diagnostics) {
            return;
        }
        warn_components(&doc, &binding, diagnostics);
        self.inputs.bindings.push(PinnedBinding { binding, doc });
    }

    /// A ResourceInterpreterCustomization: cluster-scoped, its scripts kept as
    /// text (`interpret` compiles them). The rules that change no Work are
    /// accepted as they are (see [`crate::model::customization::Customizations`]).
    fn customization(&mut self, doc: Document, identity: Identity, diagnostics: &mut Diagnostics) {
        let Some((name, parsed)) =
            self.cluster_scoped::<CustomizationManifest>(&doc, identity, diagnostics)
        else {
            return;
        };
        let annotation = parsed
            .metadata
            .annotations
            .get(REVISE_OBJECT_ANNOTATION)
            .cloned();
        if annotation.is_some() && parsed.spec.customizations.garrison_revise_object.is_some() {
            diagnostics.push(
                Diagnostic::warning(
                    Code::IgnoredField,
                    format!("the `{REVISE_OBJECT_ANNOTATION}` annotation is ignored: `spec.customizations.garrisonReviseObject` is also set and wins"),
                )
                .at(doc.at(&["metadata", "annotations", REVISE_OBJECT_ANNOTATION]))
                .help("declare the revise-object hook once; the annotation form keeps the file valid for a real Karmada"),
            );
        }
        self.inputs.customizations.push(CustomizationDoc {
            name,
            target: parsed.spec.target,
            customizations: parsed.spec.customizations,
            revise_object_annotation: annotation,
            doc,
        });
    }

    /// A Clusternet Subscription, Localization or Globalization, read
    /// strictly and checked as Clusternet's CRDs and hub would.
    fn clusternet(&mut self, doc: Document, identity: Identity, diagnostics: &mut Diagnostics) {
        let cluster_scoped = identity.role == Role::Globalization;
        if !check_policy_name(
            &doc,
            &identity.kind,
            &identity.name,
            identity.namespace.as_deref(),
            cluster_scoped,
            diagnostics,
        ) {
            return;
        }
        let key = ObjectKey {
            api_version: identity.api_version.clone(),
            kind: identity.kind.clone(),
            namespace: (!cluster_scoped)
                .then(|| identity.namespace.clone())
                .flatten(),
            name: identity.name.clone(),
        };
        if !self.note_unique(&key, doc.at(&["metadata", "name"]), diagnostics) {
            return;
        }
        let Identity {
            kind,
            role,
            name,
            namespace,
            ..
        } = identity;
        let namespace = namespace.unwrap_or_default();
        match role {
            Role::Subscription => {
                let Some(parsed) = parse_typed::<SubscriptionDoc>(&doc, &kind, diagnostics) else {
                    return;
                };
                if super::clusternet::check_subscription(&doc, &parsed.spec, diagnostics) {
                    self.inputs.subscriptions.push(Subscription {
                        name,
                        namespace,
                        annotations: parsed.metadata.annotations,
                        spec: parsed.spec,
                        doc,
                    });
                }
            }
            Role::Localization => {
                let Some(parsed) = parse_typed::<LocalizationDoc>(&doc, &kind, diagnostics) else {
                    return;
                };
                let spec = parsed.spec;
                if super::clusternet::check_overrides(
                    &doc,
                    spec.priority,
                    &spec.overrides,
                    diagnostics,
                ) {
                    self.inputs.localizations.push(Localization {
                        name,
                        namespace,
                        spec,
                        doc,
                    });
                }
            }
            _ => {
                let Some(parsed) = parse_typed::<GlobalizationDoc>(&doc, &kind, diagnostics) else {
                    return;
                };
                if !namespace.is_empty() {
                    diagnostics.push(
                        Diagnostic::warning(
                            Code::IgnoredField,
                            format!("Globalization `{name}` is cluster-scoped; its `metadata.namespace` is ignored"),
                        )
                        .at(doc.at(&["metadata", "namespace"]))
                        .help("remove the namespace; a Globalization applies to every cluster its `clusterAffinity` selects"),
                    );
                }
                let spec = parsed.spec;
                let affinity_ok = super::clusternet::check_affinity(
                    &doc,
                    spec.cluster_affinity.as_ref(),
                    diagnostics,
                );
                let overrides_ok = super::clusternet::check_overrides(
                    &doc,
                    spec.priority,
                    &spec.overrides,
                    diagnostics,
                );
                if affinity_ok && overrides_ok {
                    self.inputs
                        .globalizations
                        .push(Globalization { name, spec, doc });
                }
            }
        }
    }

    /// Whether `key` is new; a second definition is G0107 naming the first.
    fn note_unique(
        &mut self,
        key: &ObjectKey,
        origin: Origin,
        diagnostics: &mut Diagnostics,
    ) -> bool {
        if let Some(first) = self.seen.get(key) {
            diagnostics.push(
                Diagnostic::error(
                    Code::DuplicateObject,
                    format!("`{key}` ({}) is defined twice", key.api_version),
                )
                .at(origin)
                .help(format!(
                    "it is also defined in `{}` at line {}; keep one definition",
                    self.sources.path(first.file),
                    first.pos.line
                )),
            );
            return false;
        }
        self.seen.insert(key.clone(), origin);
        true
    }
}

/// The bounds Karmada's CRD sets on a propagation policy, which its API
/// server enforces: at least one resource selector, static weights of 1 or
/// more.
fn within_crd_bounds(
    doc: &Document,
    kind: &str,
    spec: &crate::model::policy::PropagationSpec,
    diagnostics: &mut Diagnostics,
) -> bool {
    let mut faults: Vec<(Vec<String>, String)> = Vec::new();
    if spec.resource_selectors.is_empty() {
        faults.push((
            vec!["spec".into(), "resourceSelectors".into()],
            "`spec.resourceSelectors` needs at least one selector".into(),
        ));
    }
    let weights = spec
        .placement
        .replica_scheduling
        .as_ref()
        .and_then(|r| r.weight_preference.as_ref())
        .map(|w| w.static_weight_list.as_slice())
        .unwrap_or_default();
    for (i, rule) in weights.iter().enumerate().filter(|(_, r)| r.weight < 1) {
        faults.push((
            [
                "spec",
                "placement",
                "replicaScheduling",
                "weightPreference",
                "staticWeightList",
                &i.to_string(),
                "weight",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            format!("a static weight is at least 1, not {}", rule.weight),
        ));
    }
    for (path, message) in &faults {
        let at: Vec<&str> = path.iter().map(String::as_str).collect();
        diagnostics.push(
            Diagnostic::error(Code::InvalidField, format!("invalid {kind}: {message}"))
                .at(doc.at(&at))
                .help("Karmada's API server refuses it as it is; leave a cluster out of the weight list rather than giving it weight 0"),
        );
    }
    faults.is_empty()
}

/// Fields of a propagation policy that Karmada acts on and garrison does
/// not (G0208, with what garrison does instead).
fn warn_inactive_fields(
    doc: &Document,
    spec: &crate::model::policy::PropagationSpec,
    diagnostics: &mut Diagnostics,
) {
    for field in spec.runtime_only_fields() {
        diagnostics.push(
            Diagnostic::warning(
                Code::IgnoredField,
                format!("`spec.{field}` needs a live control plane; it has no effect in a render"),
            )
            .at(doc.at(&std::iter::once("spec")
                .chain(field.split('.'))
                .collect::<Vec<_>>()))
            .help("keep it for Karmada, or remove it; garrison renders as if it were not set"),
        );
    }
    if spec.placement.workload_affinity.is_some() {
        diagnostics.push(
            Diagnostic::warning(Code::IgnoredField, "`spec.placement.workloadAffinity` is acted on by Karmada only with its WorkloadAffinity feature gate (alpha, off by default); garrison schedules as Karmada does by default, as if it were not set")
                .at(doc.at(&["spec", "placement", "workloadAffinity"]))
                .help("remove it, or keep it for a Karmada that enables the gate; garrison does not co-locate or separate workloads"),
        );
    }
}

/// Per-component replicas of a pinned binding: Karmada schedules by
/// component only behind its MultiplePodTemplatesScheduling gate (alpha, off
/// by default), and delivers by `replicas` otherwise, as garrison does.
fn warn_components(doc: &Document, binding: &BindingDoc, diagnostics: &mut Diagnostics) {
    let mut paths: Vec<Vec<String>> = Vec::new();
    if binding.spec.components.is_some() {
        paths.push(vec!["spec".into(), "components".into()]);
    }
    for (i, target) in binding.spec.clusters.iter().enumerate() {
        if target.components.is_some() {
            paths.push(vec![
                "spec".into(),
                "clusters".into(),
                i.to_string(),
                "components".into(),
            ]);
        }
    }
    for path in paths {
        let refs: Vec<&str> = path.iter().map(String::as_str).collect();
        diagnostics.push(
            Diagnostic::warning(
                Code::IgnoredField,
                format!(
                    "`{}` is acted on by Karmada only with its MultiplePodTemplatesScheduling feature gate (alpha, off by default); garrison delivers by `replicas`, as Karmada does by default",
                    crate::node::display_path(&path)
                ),
            )
            .at(doc.at(&refs))
            .help("remove it, or keep it for a Karmada that enables the gate"),
        );
    }
}

/// A pinned binding's replica counts are never negative (Karmada's webhook
/// refuses them; garrison would otherwise read them as zero).
fn replicas_are_counts(
    doc: &Document,
    kind: &str,
    binding: &BindingDoc,
    diagnostics: &mut Diagnostics,
) -> bool {
    let mut negative: Vec<(Vec<String>, i32)> = Vec::new();
    if let Some(replicas) = binding.spec.replicas.filter(|r| *r < 0) {
        negative.push((vec!["spec".into(), "replicas".into()], replicas));
    }
    for (i, target) in binding.spec.clusters.iter().enumerate() {
        if let Some(replicas) = target.replicas.filter(|r| *r < 0) {
            negative.push((
                vec![
                    "spec".into(),
                    "clusters".into(),
                    i.to_string(),
                    "replicas".into(),
                ],
                replicas,
            ));
        }
    }
    for (path, replicas) in &negative {
        let refs: Vec<&str> = path.iter().map(String::as_str).collect();
        diagnostics.push(
            Diagnostic::error(
                Code::InvalidField,
                format!(
                    "invalid {kind}: `{}`: {replicas} replicas is negative",
                    crate::node::display_path(path)
                ),
            )
            .at(doc.at(&refs))
            .help("a replica count is 0 or more"),
        );
    }
    negative.is_empty()
}

fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_string),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Read a typed kind strictly (SPEC §10): a field the type does not declare
/// and a value of the wrong type are errors at their line and column.
pub fn parse_typed<T: DeserializeOwned>(
    doc: &Document,
    kind: &str,
    diagnostics: &mut Diagnostics,
) -> Option<T> {
    match typed::from_node::<T>(&doc.node, typed::Fields::Strict) {
        Ok((parsed, faults)) if faults.is_empty() => Some(parsed),
        Ok((_, faults)) | Err(faults) => {
            for fault in faults {
                diagnostics.push(typed_diagnostic(doc.file, kind, fault));
            }
            None
        }
    }
}

/// A typed-input fault in the user's words.
fn typed_diagnostic(file: FileId, kind: &str, fault: typed::Fault) -> Diagnostic {
    match fault {
        typed::Fault::UnknownField {
            path,
            field,
            pos,
            known,
        } => unknown_field(kind, &path, &field, &known).at(Origin { file, pos }),
        typed::Fault::Invalid { path, message, pos } => {
            let place = if path.is_empty() {
                String::new()
            } else {
                format!("`{}`: ", crate::node::display_path(&path))
            };
            Diagnostic::error(
                Code::InvalidField,
                format!("invalid {kind}: {place}{message}"),
            )
            .at(Origin { file, pos })
            .help(format!(
                "fix the value at this position; see {}'s API reference for the field",
                if [
                    "Subscription",
                    "Localization",
                    "Globalization",
                    "ManagedCluster"
                ]
                .contains(&kind)
                {
                    "Clusternet"
                } else {
                    "Karmada"
                }
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::karmada_kind;
    use crate::load::yaml::{parse_stream, Limits};

    /// Classify one YAML text as file 0; its diagnostics rendered concisely.
    fn classify_text(path: &str, text: &str) -> (Inputs, Vec<String>) {
        classify_text_in(path, text, None)
    }

    /// [`classify_text`] with garrison.yaml's `defaultNamespace`.
    fn classify_text_in(
        path: &str,
        text: &str,
        default_namespace: Option<&str>,
    ) -> (Inputs, Vec<String>) {
        let mut sources = Sources::default();
        let file = sources.add(path.into(), text.into());
        let documents = match parse_stream(text, &Limits::default()) {
            Ok(nodes) => nodes.into_iter().map(|n| (file, n)).collect(),
            Err(e) => panic!("{path}: {e:?}"),
        };
        let mut diagnostics = Diagnostics::default();
        let (inputs, _) =
            classify_documents(documents, &sources, default_namespace, &mut diagnostics);
        let shown = crate::diag::render(&diagnostics, &sources, crate::diag::Style::Concise);
        (inputs, shown.lines().map(str::to_string).collect())
    }

    /// What was classified, one line per input, in the order of [`Inputs`]'
    /// lists: templates, propagation policies, override policies, clusters,
    /// bindings, customizations.
    fn classified(inputs: &Inputs) -> Vec<String> {
        let scoped = |namespace: &Option<String>, name: &str| match namespace {
            Some(ns) => format!("{ns}/{name}"),
            None => name.to_string(),
        };
        let mut out = Vec::new();
        out.extend(
            inputs
                .templates
                .iter()
                .map(|t| format!("template {}", t.key)),
        );
        out.extend(
            inputs
                .propagation_policies
                .iter()
                .map(|p| format!("propagation policy {}", scoped(&p.namespace, &p.name))),
        );
        out.extend(
            inputs
                .override_policies
                .iter()
                .map(|p| format!("override policy {}", scoped(&p.namespace, &p.name))),
        );
        out.extend(
            inputs
                .clusters
                .iter()
                .map(|c| format!("cluster {}", c.name)),
        );
        out.extend(inputs.bindings.iter().map(|b| {
            let meta = &b.binding.metadata;
            format!("binding {}", scoped(&meta.namespace, &meta.name))
        }));
        out.extend(
            inputs
                .customizations
                .iter()
                .map(|c| format!("customization {}", c.name)),
        );
        out
    }

    /// One YAML stream: what it classifies into, and its diagnostics.
    struct Case {
        name: &'static str,
        text: &'static str,
        classified: &'static [&'static str],
        diagnostics: &'static [&'static str],
    }

    fn check(cases: &[Case], default_namespace: Option<&str>) {
        for case in cases {
            let (inputs, shown) = classify_text_in("in.yaml", case.text, default_namespace);
            assert_eq!(classified(&inputs), case.classified, "{}", case.name);
            assert_eq!(shown, case.diagnostics, "{}", case.name);
        }
    }

    #[test]
    fn roles_follow_the_group_and_kind() {
        let karmada = |group, kind| match karmada_kind::find(group, kind) {
            Some(own) => Ok(Role::Karmada(own)),
            None => panic!("{group} {kind} is not one of Karmada's own kinds"),
        };
        let cases = [
            (
                "policy.karmada.io/v1alpha1",
                "PropagationPolicy",
                Ok(Role::PropagationPolicy {
                    cluster_scoped: false,
                }),
            ),
            (
                "policy.karmada.io/v1alpha1",
                "ClusterPropagationPolicy",
                Ok(Role::PropagationPolicy {
                    cluster_scoped: true,
                }),
            ),
            (
                "policy.karmada.io/v1alpha1",
                "OverridePolicy",
                Ok(Role::OverridePolicy {
                    cluster_scoped: false,
                }),
            ),
            (
                "policy.karmada.io/v1alpha1",
                "ClusterOverridePolicy",
                Ok(Role::OverridePolicy {
                    cluster_scoped: true,
                }),
            ),
            (
                "policy.karmada.io/v1alpha1",
                "FederatedResourceQuota",
                karmada("policy.karmada.io", "FederatedResourceQuota"),
            ),
            ("cluster.karmada.io/v1alpha1", "Cluster", Ok(Role::Cluster)),
            (
                "clusters.clusternet.io/v1beta1",
                "ManagedCluster",
                Ok(Role::ManagedCluster),
            ),
            (
                "work.karmada.io/v1alpha2",
                "ResourceBinding",
                Ok(Role::Binding {
                    cluster_scoped: false,
                }),
            ),
            (
                "work.karmada.io/v1alpha2",
                "ClusterResourceBinding",
                Ok(Role::Binding {
                    cluster_scoped: true,
                }),
            ),
            (
                "work.karmada.io/v1alpha1",
                "Work",
                karmada("work.karmada.io", "Work"),
            ),
            (
                "config.karmada.io/v1alpha1",
                "ResourceInterpreterCustomization",
                Ok(Role::Customization),
            ),
            (
                "config.karmada.io/v1alpha1",
                "ResourceInterpreterWebhookConfiguration",
                karmada(
                    "config.karmada.io",
                    "ResourceInterpreterWebhookConfiguration",
                ),
            ),
            (
                "autoscaling.karmada.io/v1alpha1",
                "FederatedHPA",
                Ok(Role::Autoscaler),
            ),
            ("networking.karmada.io/v1alpha1", "MultiClusterSvc", Err(())),
            // The version is not consulted, only the group.
            (
                "policy.karmada.io/v1",
                "PropagationPolicy",
                Ok(Role::PropagationPolicy {
                    cluster_scoped: false,
                }),
            ),
            ("policy.karmada.io/v1alpha1", "Propagationpolicy", Err(())),
            ("work.karmada.io/v1alpha2", "Binding", Err(())),
            ("config.karmada.io/v1alpha1", "Customization", Err(())),
            ("cluster.karmada.io/v1alpha1", "ManagedCluster", Err(())),
            ("clusters.clusternet.io/v1beta1", "Cluster", Err(())),
            (
                "kustomize.config.k8s.io/v1beta1",
                "Kustomization",
                Ok(Role::Kustomize),
            ),
            (
                "kustomize.config.k8s.io/v1alpha1",
                "Component",
                Ok(Role::Kustomize),
            ),
            ("apps/v1", "Deployment", Ok(Role::Template)),
            ("v1", "ConfigMap", Ok(Role::Template)),
            ("example.io/v1", "PropagationPolicy", Ok(Role::Template)),
        ];
        for (api_version, kind, expected) in cases {
            assert_eq!(role(api_version, kind), expected, "{api_version} {kind}");
        }
    }

    /// Every kind Karmada v1.18.2 stores in its API groups (the types of
    /// `pkg/apis/*/*/zz_generated.register.go` that are objects, not lists
    /// or request types) is read or recognised: none is a template, as
    /// Karmada's detector never propagates them.
    #[test]
    fn no_kind_of_karmada_is_a_template() {
        let stored = [
            ("apps.karmada.io/v1alpha1", "WorkloadRebalancer"),
            ("autoscaling.karmada.io/v1alpha1", "CronFederatedHPA"),
            ("autoscaling.karmada.io/v1alpha1", "FederatedHPA"),
            ("cluster.karmada.io/v1alpha1", "Cluster"),
            (
                "config.karmada.io/v1alpha1",
                "ResourceInterpreterCustomization",
            ),
            (
                "config.karmada.io/v1alpha1",
                "ResourceInterpreterWebhookConfiguration",
            ),
            ("networking.karmada.io/v1alpha1", "MultiClusterIngress"),
            ("networking.karmada.io/v1alpha1", "MultiClusterService"),
            ("policy.karmada.io/v1alpha1", "ClusterOverridePolicy"),
            ("policy.karmada.io/v1alpha1", "ClusterPropagationPolicy"),
            ("policy.karmada.io/v1alpha1", "ClusterTaintPolicy"),
            ("policy.karmada.io/v1alpha1", "FederatedResourceQuota"),
            ("policy.karmada.io/v1alpha1", "OverridePolicy"),
            ("policy.karmada.io/v1alpha1", "PropagationPolicy"),
            ("remedy.karmada.io/v1alpha1", "Remedy"),
            ("search.karmada.io/v1alpha1", "ResourceRegistry"),
            ("work.karmada.io/v1alpha1", "Work"),
            ("work.karmada.io/v1alpha2", "ClusterResourceBinding"),
            ("work.karmada.io/v1alpha2", "ResourceBinding"),
        ];
        for (api_version, kind) in stored {
            let read = role(api_version, kind);
            assert!(
                matches!(read, Ok(role) if role != Role::Template),
                "{api_version} {kind}: {read:?}"
            );
        }
    }

    #[test]
    fn karmada_kinds_are_warned_about_with_their_own_message() {
        check(
            &[Case {
                name: "a MultiClusterService",
                text: "apiVersion: networking.karmada.io/v1alpha1\n\
                       kind: MultiClusterService\n\
                       metadata: {name: web, namespace: shop}\n\
                       spec: {types: [CrossCluster]}\n",
                classified: &[],
                diagnostics: &[
                    "in.yaml:2:7: warning[G0105]: MultiClusterService `shop/web` is not delivered: Karmada's multi-cluster service controllers copy EndpointSlices between its provider and consumer clusters from their live endpoints and, for `CrossCluster`, take the Service of the same name from its propagation policy and send it to those clusters; the render does neither: the Service goes where its propagation policy sends it (help: Karmada's detector never propagates its own kinds; to render under `--strict`, list the file in garrison.yaml's `exclude`)",
                ],
            }],
            None,
        );
    }

    #[test]
    fn documents_land_in_the_list_of_their_role() {
        check(
            &[Case {
                name: "one of each",
                text: "apiVersion: v1\n\
                       kind: ConfigMap\n\
                       metadata: {name: cfg, namespace: shop}\n\
                       ---\n\
                       apiVersion: policy.karmada.io/v1alpha1\n\
                       kind: ClusterPropagationPolicy\n\
                       metadata: {name: everywhere}\n\
                       spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n\
                       ---\n\
                       apiVersion: policy.karmada.io/v1alpha1\n\
                       kind: PropagationPolicy\n\
                       metadata: {name: p, namespace: shop}\n\
                       spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n\
                       ---\n\
                       apiVersion: policy.karmada.io/v1alpha1\n\
                       kind: ClusterOverridePolicy\n\
                       metadata: {name: cop}\n\
                       spec: {}\n\
                       ---\n\
                       apiVersion: policy.karmada.io/v1alpha1\n\
                       kind: OverridePolicy\n\
                       metadata: {name: op, namespace: shop}\n\
                       spec: {}\n\
                       ---\n\
                       apiVersion: cluster.karmada.io/v1alpha1\n\
                       kind: Cluster\n\
                       metadata: {name: eu-1}\n\
                       ---\n\
                       apiVersion: clusters.clusternet.io/v1beta1\n\
                       kind: ManagedCluster\n\
                       metadata: {name: us-1}\n\
                       ---\n\
                       apiVersion: work.karmada.io/v1alpha2\n\
                       kind: ResourceBinding\n\
                       metadata: {name: cfg-configmap, namespace: shop}\n\
                       spec: {resource: {apiVersion: v1, kind: ConfigMap, namespace: shop, name: cfg}}\n\
                       ---\n\
                       apiVersion: config.karmada.io/v1alpha1\n\
                       kind: ResourceInterpreterCustomization\n\
                       metadata: {name: widgets}\n\
                       spec: {target: {apiVersion: example.io/v1, kind: Widget}}\n",
                classified: &[
                    "template ConfigMap/shop/cfg",
                    "propagation policy everywhere",
                    "propagation policy shop/p",
                    "override policy cop",
                    "override policy shop/op",
                    "cluster eu-1",
                    "cluster us-1",
                    "binding shop/cfg-configmap",
                    "customization widgets",
                ],
                diagnostics: &[],
            }],
            None,
        );
    }

    /// Unknown kinds of Karmada's groups (G0108), kustomize files and kinds
    /// with no offline meaning (G0105 warnings), and documents that do not
    /// say what they are (G0103) are not classified.
    #[test]
    fn kinds_that_are_not_inputs_are_reported() {
        check(
            &[
                Case {
                    name: "an unknown kind of policy.karmada.io",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: PropagationPolicyy\n\
                           metadata: {name: p}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:2:7: error[G0108]: `PropagationPolicyy` is not a kind of `policy.karmada.io/v1alpha1` that garrison knows (help: did you mean `PropagationPolicy`?)"],
                },
                Case {
                    name: "an unknown kind of work.karmada.io",
                    text: "apiVersion: work.karmada.io/v1alpha2\n\
                           kind: Binding\n\
                           metadata: {name: b}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:2:7: error[G0108]: `Binding` is not a kind of `work.karmada.io/v1alpha2` that garrison knows (help: the kinds of `work.karmada.io` are `ResourceBinding`, `ClusterResourceBinding`, `Work`)"],
                },
                Case {
                    name: "an unknown kind of config.karmada.io",
                    text: "apiVersion: config.karmada.io/v1alpha1\n\
                           kind: Customization\n\
                           metadata: {name: c}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:2:7: error[G0108]: `Customization` is not a kind of `config.karmada.io/v1alpha1` that garrison knows (help: the kinds of `config.karmada.io` are `ResourceInterpreterCustomization`, `ResourceInterpreterWebhookConfiguration`)"],
                },
                Case {
                    name: "an unknown kind of cluster.karmada.io",
                    text: "apiVersion: cluster.karmada.io/v1alpha1\n\
                           kind: Clusters\n\
                           metadata: {name: c}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:2:7: error[G0108]: `Clusters` is not a kind of `cluster.karmada.io/v1alpha1` that garrison knows (help: did you mean `Cluster`?)"],
                },
                Case {
                    name: "an unknown kind of clusters.clusternet.io",
                    text: "apiVersion: clusters.clusternet.io/v1beta1\n\
                           kind: Cluster\n\
                           metadata: {name: c}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:2:7: error[G0108]: `Cluster` is not a kind of `clusters.clusternet.io/v1beta1` that garrison knows (help: the kinds of `clusters.clusternet.io` are `ManagedCluster`)"],
                },
                Case {
                    name: "a kustomize file",
                    text: "apiVersion: kustomize.config.k8s.io/v1beta1\n\
                           kind: Kustomization\n\
                           resources: [a.yaml]\n",
                    classified: &[],
                    diagnostics: &[r#"in.yaml:2:7: warning[G0105]: `Kustomization` is a kustomize file, not a Kubernetes object; it is not an input (help: exclude kustomize files in garrison.yaml (`exclude: ["**/kustomization.yaml"]`))"#],
                },
                Case {
                    name: "a Work",
                    text: "apiVersion: work.karmada.io/v1alpha1\n\
                           kind: Work\n\
                           metadata: {name: w, namespace: karmada-es-eu-1}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:2:7: warning[G0105]: Work `karmada-es-eu-1/w` is not delivered: a Work is what Karmada's binding controller writes for one cluster and its execution controller applies there; garrison writes Works with `--format work`; it does not read them (help: Karmada's detector never propagates its own kinds; to render under `--strict`, list the file in garrison.yaml's `exclude`)"],
                },
                Case {
                    name: "a FederatedResourceQuota",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: FederatedResourceQuota\n\
                           metadata: {name: q, namespace: shop}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:2:7: warning[G0105]: FederatedResourceQuota `shop/q` is not delivered: Karmada creates a ResourceQuota of its namespace and name, with the `hard` limits of each of its `staticAssignments`, in the cluster the assignment names, and tracks `overall` on the control plane; the render delivers no ResourceQuota: write the ResourceQuota as a template, with a PropagationPolicy to those clusters and an OverridePolicy for each cluster's limits (help: Karmada's detector never propagates its own kinds; to render under `--strict`, list the file in garrison.yaml's `exclude`)"],
                },
                Case {
                    name: "an interpreter webhook",
                    text: "apiVersion: config.karmada.io/v1alpha1\n\
                           kind: ResourceInterpreterWebhookConfiguration\n\
                           metadata: {name: hook}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:2:7: warning[G0105]: ResourceInterpreterWebhookConfiguration `hook` is not delivered: Karmada calls the webhook it names to interpret the kinds it lists; a webhook needs a running server: the render interprets those kinds without it; declare a ResourceInterpreterCustomization instead (help: Karmada's detector never propagates its own kinds; to render under `--strict`, list the file in garrison.yaml's `exclude`)"],
                },
                Case {
                    name: "no apiVersion",
                    text: "kind: ConfigMap\n\
                           metadata: {name: cfg}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:1:1: error[G0103]: this document has no `apiVersion` (or it is not a string) (help: every document must say what it is, for example `apiVersion: apps/v1` and `kind: Deployment`)"],
                },
                Case {
                    name: "no kind",
                    text: "apiVersion: v1\n\
                           metadata: {name: cfg}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:1:1: error[G0103]: this document has no `kind` (or it is not a string) (help: every document must say what it is, for example `apiVersion: apps/v1` and `kind: Deployment`)"],
                },
                Case {
                    name: "a kind that is not a string",
                    text: "apiVersion: v1\n\
                           kind: [ConfigMap]\n\
                           metadata: {name: cfg}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:1:1: error[G0103]: this document has no `kind` (or it is not a string) (help: every document must say what it is, for example `apiVersion: apps/v1` and `kind: Deployment`)"],
                },
            ],
            None,
        );
    }

    /// `kind: List` and `*List` kinds are replaced by their items, nested
    /// lists too; `items: null` is an empty list.
    #[test]
    fn lists_expand_to_their_items() {
        check(
            &[
                Case {
                    name: "a List",
                    text: "apiVersion: v1\n\
                           kind: List\n\
                           items:\n\
                           - {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: shop}}\n\
                           - {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop}}\n",
                    classified: &["template Deployment/shop/web", "template ConfigMap/shop/a"],
                    diagnostics: &[],
                },
                Case {
                    name: "a List inside a List",
                    text: "apiVersion: v1\n\
                           kind: List\n\
                           items:\n\
                           - {apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: shop}}]}\n\
                           - {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: shop}}\n",
                    classified: &["template ConfigMap/shop/a", "template ConfigMap/shop/b"],
                    diagnostics: &[],
                },
                Case {
                    name: "a ConfigMapList",
                    text: "apiVersion: v1\n\
                           kind: ConfigMapList\n\
                           items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: shop}}]\n",
                    classified: &["template ConfigMap/shop/a"],
                    diagnostics: &[],
                },
                Case {
                    name: "null items",
                    text: "apiVersion: v1\n\
                           kind: List\n\
                           items: null\n",
                    classified: &[],
                    diagnostics: &[],
                },
                Case {
                    name: "items that are not a list",
                    text: "apiVersion: v1\n\
                           kind: List\n\
                           items: {apiVersion: v1}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:8: error[G0104]: `items` of a List must be a sequence of objects"],
                },
                Case {
                    name: "an item that is not a mapping",
                    text: "apiVersion: v1\n\
                           kind: List\n\
                           items: [just text]\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:9: error[G0102]: this document is not a mapping; every document must be a Kubernetes object (help: remove the document, or write it as `apiVersion: …`, `kind: …`, `metadata: …`)"],
                },
                Case {
                    name: "a kind ending in List without items is an object",
                    text: "apiVersion: example.io/v1\n\
                           kind: WatchList\n\
                           metadata: {name: w, namespace: shop}\n",
                    classified: &["template WatchList/shop/w"],
                    diagnostics: &[],
                },
                Case {
                    name: "a document that is a sequence",
                    text: "- a\n\
                           - b\n",
                    classified: &[],
                    diagnostics: &["in.yaml:1:1: error[G0102]: this document is not a mapping; every document must be a Kubernetes object (help: remove the document, or write it as `apiVersion: …`, `kind: …`, `metadata: …`)"],
                },
                Case {
                    name: "a document that is a string",
                    text: "just text\n",
                    classified: &[],
                    diagnostics: &["in.yaml:1:1: error[G0102]: this document is not a mapping; every document must be a Kubernetes object (help: remove the document, or write it as `apiVersion: …`, `kind: …`, `metadata: …`)"],
                },
            ],
            None,
        );
    }

    /// Policy and customization names are DNS subdomains, cluster names and
    /// namespaces DNS labels; template names follow their group's rule.
    #[test]
    fn names_follow_kubernetes_rules() {
        check(
            &[
                Case {
                    name: "an invalid policy name",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: PropagationPolicy\n\
                           metadata: {name: Web_Policy, namespace: shop}\n\
                           spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:18: error[G0106]: PropagationPolicy name `Web_Policy` contains `W`; only lower-case letters, digits, `-` and `.` are allowed (help: Kubernetes names are lower-case letters, digits, `-` and `.`, at most 253 characters)"],
                },
                Case {
                    name: "an invalid policy namespace",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: OverridePolicy\n\
                           metadata: {name: op, namespace: shop.eu}\n\
                           spec: {}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:33: error[G0106]: namespace `shop.eu` contains `.`; only lower-case letters, digits and `-` are allowed (help: namespaces are DNS labels: lower-case letters, digits and `-`, at most 63 characters)"],
                },
                Case {
                    name: "a namespaced policy without a namespace",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: OverridePolicy\n\
                           metadata: {name: op}\n\
                           spec: {}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:1: error[G0110]: OverridePolicy `op` is namespaced but has no `metadata.namespace` (help: give it the namespace of the templates it selects, or set `defaultNamespace` in garrison.yaml)"],
                },
                Case {
                    name: "a cluster-scoped policy needs no namespace",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: ClusterOverridePolicy\n\
                           metadata: {name: cop}\n\
                           spec: {}\n",
                    classified: &["override policy cop"],
                    diagnostics: &[],
                },
                Case {
                    name: "a cluster name that is not a DNS label",
                    text: "apiVersion: cluster.karmada.io/v1alpha1\n\
                           kind: Cluster\n\
                           metadata: {name: eu.west}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:18: error[G0106]: cluster name `eu.west` contains `.`; only lower-case letters, digits and `-` are allowed (help: cluster names are DNS labels: lower-case letters, digits and `-`, at most 63 characters)"],
                },
                Case {
                    name: "a Karmada Cluster name longer than its registry takes",
                    text: "apiVersion: cluster.karmada.io/v1alpha1\n\
                           kind: Cluster\n\
                           metadata: {name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:18: error[G0106]: cluster name `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa` has 49 characters: Karmada's API server refuses a Cluster name longer than 48 (help: shorten the name to at most 48 characters: Karmada prefixes it with `karmada-es-` for the cluster's namespace)"],
                },
                Case {
                    name: "a Karmada Cluster name of 48 characters",
                    text: "apiVersion: cluster.karmada.io/v1alpha1\n\
                           kind: Cluster\n\
                           metadata: {name: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb}\n",
                    classified: &["cluster bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"],
                    diagnostics: &[],
                },
                Case {
                    name: "a ManagedCluster name may be a whole DNS label",
                    text: "apiVersion: clusters.clusternet.io/v1beta1\n\
                           kind: ManagedCluster\n\
                           metadata: {name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}\n",
                    classified: &["cluster aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
                    diagnostics: &[],
                },
                Case {
                    name: "a ManagedCluster name that is not a DNS label",
                    text: "apiVersion: clusters.clusternet.io/v1beta1\n\
                           kind: ManagedCluster\n\
                           metadata: {name: -us}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:18: error[G0106]: cluster name `-us` must start and end with a lower-case letter or digit (help: cluster names are DNS labels: lower-case letters, digits and `-`, at most 63 characters)"],
                },
                Case {
                    name: "an invalid customization name",
                    text: "apiVersion: config.karmada.io/v1alpha1\n\
                           kind: ResourceInterpreterCustomization\n\
                           metadata: {name: Widgets}\n\
                           spec: {target: {apiVersion: example.io/v1, kind: Widget}}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:18: error[G0106]: ResourceInterpreterCustomization name `Widgets` contains `W`; only lower-case letters, digits, `-` and `.` are allowed (help: Kubernetes names are lower-case letters, digits, `-` and `.`, at most 253 characters)"],
                },
                Case {
                    name: "a built-in group's names are DNS subdomains",
                    text: "apiVersion: apps/v1\n\
                           kind: Deployment\n\
                           metadata: {name: 'system:web', namespace: shop}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:18: error[G0106]: object name `system:web` contains `:`; only lower-case letters, digits, `-` and `.` are allowed (help: Kubernetes names are lower-case letters, digits, `-` and `.`, at most 253 characters)"],
                },
                Case {
                    name: "RBAC names are path segments",
                    text: "apiVersion: rbac.authorization.k8s.io/v1\n\
                           kind: ClusterRole\n\
                           metadata: {name: 'system:viewer'}\n",
                    classified: &["template ClusterRole/system:viewer"],
                    diagnostics: &[],
                },
                Case {
                    name: "custom kinds' names are path segments",
                    text: "apiVersion: example.io/v1\n\
                           kind: Widget\n\
                           metadata: {name: 'a:b', namespace: shop}\n",
                    classified: &["template Widget/shop/a:b"],
                    diagnostics: &[],
                },
                Case {
                    name: "a path segment may not hold a slash",
                    text: "apiVersion: example.io/v1\n\
                           kind: Widget\n\
                           metadata: {name: a/b, namespace: shop}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:18: error[G0106]: object name `a/b` contains `/`, which a name may not contain (help: Kubernetes names are lower-case letters, digits, `-` and `.`, at most 253 characters)"],
                },
                Case {
                    name: "a template namespace that is not a DNS label",
                    text: "apiVersion: v1\n\
                           kind: ConfigMap\n\
                           metadata: {name: cfg, namespace: Shop}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:34: error[G0106]: namespace `Shop` contains `S`; only lower-case letters, digits and `-` are allowed (help: namespaces are DNS labels: lower-case letters, digits and `-`, at most 63 characters)"],
                },
                Case {
                    name: "a name that reads as a number",
                    text: "apiVersion: v1\n\
                           kind: ConfigMap\n\
                           metadata: {name: 0777, namespace: shop}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:18: error[G0106]: `metadata.name` must be a string, but this reads as 511 (help: quote it: YAML 1.1 readers such as kubectl take `y`, `no`, `on`, `0777` and `1e3` for booleans and numbers)"],
                },
                Case {
                    name: "a namespace that reads as a boolean",
                    text: "apiVersion: v1\n\
                           kind: ConfigMap\n\
                           metadata: {name: cfg, namespace: true}\n",
                    classified: &[],
                    diagnostics: &["in.yaml:3:34: error[G0106]: `metadata.namespace` must be a string, but this reads as true (help: quote it: YAML 1.1 readers such as kubectl take `y`, `no`, `on`, `0777` and `1e3` for booleans and numbers)"],
                },
            ],
            None,
        );
    }

    /// Two policies, bindings, customizations or clusters with one identity:
    /// the second is refused. Templates are told apart later, by scope.
    #[test]
    fn duplicates_are_errors_that_name_the_first_definition() {
        check(
            &[
                Case {
                    name: "two propagation policies",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: PropagationPolicy\n\
                           metadata: {name: p, namespace: shop}\n\
                           spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n\
                           ---\n\
                           apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: PropagationPolicy\n\
                           metadata: {name: p, namespace: shop}\n\
                           spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n",
                    classified: &["propagation policy shop/p"],
                    diagnostics: &["in.yaml:8:18: error[G0107]: `PropagationPolicy/shop/p` (policy.karmada.io/v1alpha1) is defined twice (help: it is also defined in `in.yaml` at line 3; keep one definition)"],
                },
                Case {
                    name: "the same name in two namespaces",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: PropagationPolicy\n\
                           metadata: {name: p, namespace: shop}\n\
                           spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n\
                           ---\n\
                           apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: PropagationPolicy\n\
                           metadata: {name: p, namespace: blog}\n\
                           spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n",
                    classified: &["propagation policy blog/p", "propagation policy shop/p"],
                    diagnostics: &[],
                },
                Case {
                    name: "a propagation and an override policy of one name",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: PropagationPolicy\n\
                           metadata: {name: p, namespace: shop}\n\
                           spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n\
                           ---\n\
                           apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: OverridePolicy\n\
                           metadata: {name: p, namespace: shop}\n\
                           spec: {}\n",
                    classified: &["propagation policy shop/p", "override policy shop/p"],
                    diagnostics: &[],
                },
                Case {
                    name: "two bindings",
                    text: "apiVersion: work.karmada.io/v1alpha2\n\
                           kind: ResourceBinding\n\
                           metadata: {name: b, namespace: shop}\n\
                           spec: {resource: {apiVersion: v1, kind: ConfigMap, namespace: shop, name: cfg}}\n\
                           ---\n\
                           apiVersion: work.karmada.io/v1alpha2\n\
                           kind: ResourceBinding\n\
                           metadata: {name: b, namespace: shop}\n\
                           spec: {resource: {apiVersion: v1, kind: ConfigMap, namespace: shop, name: cfg}}\n",
                    classified: &["binding shop/b"],
                    diagnostics: &["in.yaml:8:18: error[G0107]: `ResourceBinding/shop/b` (work.karmada.io/v1alpha2) is defined twice (help: it is also defined in `in.yaml` at line 3; keep one definition)"],
                },
                Case {
                    name: "two customizations",
                    text: "apiVersion: config.karmada.io/v1alpha1\n\
                           kind: ResourceInterpreterCustomization\n\
                           metadata: {name: widgets}\n\
                           spec: {target: {apiVersion: example.io/v1, kind: Widget}}\n\
                           ---\n\
                           apiVersion: config.karmada.io/v1alpha1\n\
                           kind: ResourceInterpreterCustomization\n\
                           metadata: {name: widgets}\n\
                           spec: {target: {apiVersion: example.io/v1, kind: Widget}}\n",
                    classified: &["customization widgets"],
                    diagnostics: &["in.yaml:8:18: error[G0107]: `ResourceInterpreterCustomization/widgets` (config.karmada.io/v1alpha1) is defined twice (help: it is also defined in `in.yaml` at line 3; keep one definition)"],
                },
                Case {
                    name: "two clusters",
                    text: "apiVersion: cluster.karmada.io/v1alpha1\n\
                           kind: Cluster\n\
                           metadata: {name: eu-1}\n\
                           ---\n\
                           apiVersion: cluster.karmada.io/v1alpha1\n\
                           kind: Cluster\n\
                           metadata: {name: eu-1}\n",
                    classified: &["cluster eu-1", "cluster eu-1"],
                    diagnostics: &["in.yaml:5:1: error[G0205]: cluster `eu-1` is defined twice (help: it is also defined in `in.yaml` at line 1; keep one definition)"],
                },
                Case {
                    name: "two templates are not told apart here",
                    text: "apiVersion: v1\n\
                           kind: ConfigMap\n\
                           metadata: {name: cfg, namespace: shop}\n\
                           ---\n\
                           apiVersion: v1\n\
                           kind: ConfigMap\n\
                           metadata: {name: cfg, namespace: shop}\n",
                    classified: &["template ConfigMap/shop/cfg", "template ConfigMap/shop/cfg"],
                    diagnostics: &[],
                },
            ],
            None,
        );
    }

    /// garrison.yaml's `defaultNamespace` fills in the namespace of
    /// namespaced policies and bindings that have none; cluster-scoped kinds
    /// and templates are left as they are.
    #[test]
    fn namespaced_policies_and_bindings_take_the_default_namespace() {
        check(
            &[
                Case {
                    name: "a propagation policy",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: PropagationPolicy\n\
                           metadata: {name: p}\n\
                           spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n",
                    classified: &["propagation policy shop/p"],
                    diagnostics: &[],
                },
                Case {
                    name: "an override policy",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: OverridePolicy\n\
                           metadata: {name: op}\n\
                           spec: {}\n",
                    classified: &["override policy shop/op"],
                    diagnostics: &[],
                },
                Case {
                    name: "a written namespace wins",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: OverridePolicy\n\
                           metadata: {name: op, namespace: blog}\n\
                           spec: {}\n",
                    classified: &["override policy blog/op"],
                    diagnostics: &[],
                },
                Case {
                    name: "a cluster-scoped policy",
                    text: "apiVersion: policy.karmada.io/v1alpha1\n\
                           kind: ClusterOverridePolicy\n\
                           metadata: {name: cop}\n\
                           spec: {}\n",
                    classified: &["override policy cop"],
                    diagnostics: &[],
                },
                Case {
                    name: "a binding without a namespace is one with the default namespace",
                    text: "apiVersion: work.karmada.io/v1alpha2\n\
                           kind: ResourceBinding\n\
                           metadata: {name: b}\n\
                           spec: {resource: {apiVersion: v1, kind: ConfigMap, namespace: shop, name: cfg}}\n\
                           ---\n\
                           apiVersion: work.karmada.io/v1alpha2\n\
                           kind: ResourceBinding\n\
                           metadata: {name: b, namespace: shop}\n\
                           spec: {resource: {apiVersion: v1, kind: ConfigMap, namespace: shop, name: cfg}}\n",
                    classified: &["binding b"],
                    diagnostics: &["in.yaml:8:18: error[G0107]: `ResourceBinding/shop/b` (work.karmada.io/v1alpha2) is defined twice (help: it is also defined in `in.yaml` at line 3; keep one definition)"],
                },
                Case {
                    name: "a template",
                    text: "apiVersion: v1\n\
                           kind: Namespace\n\
                           metadata: {name: shop}\n",
                    classified: &["template Namespace/shop"],
                    diagnostics: &[],
                },
            ],
            Some("shop"),
        );
    }

    /// Fields garrison carries without acting on them are read as strictly
    /// as the rest: a typo deep inside one is still an error at its key.
    #[test]
    fn typos_inside_carried_fields_are_refused_too() {
        let text = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  failover:\n    aplication:\n      decisionConditions: {tolerationSeconds: 30}\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: c}\nspec:\n  secretRef: {namespace: karmada-cluster, nmae: c}\n";
        let (inputs, shown) = classify_text("typos.yaml", text);
        assert!(inputs.propagation_policies.is_empty() && inputs.clusters.is_empty());
        assert_eq!(
            shown,
            vec![
                "typos.yaml:7:5: error[G0109]: unknown field `aplication` in `spec.failover` of PropagationPolicy (help: did you mean `application`?)".to_string(),
                "typos.yaml:14:43: error[G0109]: unknown field `nmae` in `spec.secretRef` of Cluster (help: did you mean `name`?)".to_string(),
                "typos.yaml:14:14: error[G0104]: invalid Cluster: `spec.secretRef`: missing field `name` (help: fix the value at this position; see Karmada's API reference for the field)".to_string(),
            ]
        );
    }

    /// Karmada's API server refuses a Cluster with both `zone` and `zones`
    /// (validation runs before the canonicalisation that moves a lone
    /// `zone` into `zones`) and keeps a lone `zone` as `zones: [zone]`.
    #[test]
    fn a_cluster_zone_moves_into_zones_only_alone_as_karmadas_api_server_does() {
        let text = "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: both\nspec:\n  zone: a\n  zones: [b]\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: alone\nspec:\n  zone: a\n";
        let (inputs, shown) = classify_text("clusters.yaml", text);
        assert_eq!(
            shown,
            vec!["clusters.yaml:6:9: error[G0104]: cluster `both` sets both `spec.zone` and `spec.zones`: Karmada's API server refuses such a Cluster (\"Zone and Zones cannot co-exist\") (help: `spec.zone` is deprecated: move its value into `spec.zones` and remove `spec.zone`)".to_string()]
        );
        let names: Vec<(&str, &[String])> = inputs
            .clusters
            .iter()
            .map(|c| (c.name.as_str(), c.zones.as_slice()))
            .collect();
        assert_eq!(names, vec![("alone", &["a".to_string()][..])]);
    }

    /// Karmada's general estimator returns a cluster's count as an int32
    /// (`GeneralEstimator.maxAvailableReplicas`), which wraps past
    /// 2147483647: a Karmada Cluster allowing more pods is refused, one
    /// allowing exactly that many is read (Karmada's scheduler then weighs
    /// it as the template's replicas).
    #[test]
    fn a_cluster_allowing_more_pods_than_karmadas_int32_holds_is_refused() {
        let cluster = |name: &str, pods: &str| {
            format!("apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: {name}\nstatus:\n  resourceSummary:\n    allocatable: {{pods: \"{pods}\"}}\n    allocated: {{pods: \"1\"}}\n")
        };
        let text = [
            cluster("wraps", "2147483649"),
            cluster("fits", "2147483648"),
        ]
        .join("---\n");
        let (inputs, shown) = classify_text("clusters.yaml", &text);
        assert_eq!(shown.len(), 1, "{shown:?}");
        assert!(
            shown[0].starts_with("clusters.yaml:7:25: error[G0104]: cluster `wraps`: `status.resourceSummary` allows 2147483648 pods"),
            "{shown:?}"
        );
        let names: Vec<&str> = inputs.clusters.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["fits"]);
    }

    /// Karmada v1.19's API, every field set (testdata/karmada-api, generated
    /// from Karmada's CRDs): strict reading must refuse none of them.
    #[test]
    fn every_field_of_karmadas_api_is_declared() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/karmada-api");
        let mut files: Vec<_> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries.filter_map(Result::ok).map(|e| e.path()).collect(),
            Err(e) => panic!("{}: {e}", dir.display()),
        };
        files.sort();
        assert!(files.len() >= 8, "{files:?}");
        let mut faults = Vec::new();
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (_, shown) = classify_text(&name, &text);
            faults.extend(
                shown
                    .into_iter()
                    .filter(|line| line.contains("[G0109]") || line.contains("[G0104]")),
            );
        }
        assert_eq!(faults, Vec::<String>::new());
    }

    /// Clusternet v0.18's API, every field set (testdata/clusternet-api,
    /// written from Clusternet's CRDs): strict reading must refuse none of
    /// them.
    #[test]
    fn every_field_of_clusternets_api_is_declared() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/clusternet-api");
        let mut faults = Vec::new();
        let mut read = 0;
        for name in ["subscription.yaml", "overrides.yaml", "managedcluster.yaml"] {
            let text = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
            let (inputs, shown) = classify_text(name, &text);
            read += inputs.subscriptions.len()
                + inputs.localizations.len()
                + inputs.globalizations.len()
                + inputs.clusters.len();
            faults.extend(
                shown
                    .into_iter()
                    .filter(|line| line.contains("[G0109]") || line.contains("[G0104]")),
            );
        }
        assert_eq!(faults, Vec::<String>::new());
        assert_eq!(read, 4);
    }

    /// A Globalization whose `clusterAffinity` Kubernetes refuses (`In`
    /// without values) is refused: Clusternet's localizer fails on it, and
    /// reading it as matching nothing would deliver the feed unchanged.
    #[test]
    fn a_globalization_with_an_invalid_cluster_affinity_is_refused() {
        let text = "apiVersion: apps.clusternet.io/v1alpha1\nkind: Globalization\nmetadata: {name: g}\nspec:\n  clusterAffinity:\n    matchExpressions: [{key: env, operator: In}]\n  feed: {apiVersion: v1, kind: ConfigMap, namespace: a, name: b}\n";
        let (inputs, shown) = classify_text("g.yaml", text);
        assert!(inputs.globalizations.is_empty());
        assert_eq!(
            shown,
            ["g.yaml:6:5: error[G0302]: `spec.clusterAffinity`: requirement on `env` with operator `In` needs at least one value (help: fix the selector; Kubernetes refuses it, and Clusternet fails every cluster's overrides of the feed)"]
        );
    }
}
