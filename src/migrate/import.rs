//! `garrison import`'s conversion: the objects of a control plane export
//! into the files of a garrison repository, one file per object, as the
//! API server's copies become input a person would have written. A pure
//! function of the parsed documents; the command writes the tree.
//!
//! Taken out: what the API server and Karmada's controllers set (identity,
//! bookkeeping, the marks Karmada writes on its policies and bindings,
//! every status but a Cluster's, which garrison reads), the
//! objects Karmada never propagates from its own and Kubernetes'
//! namespaces, the Works (what `verify` compares with), and the bindings
//! whose schedule follows from their policy. Kept, as pins: the bindings
//! that divide replicas, because Karmada divides anew from the division it
//! remembers, which a first render without that memory cannot know, and
//! the bindings no policy claims, which Karmada keeps delivering. Kept on
//! templates: the claim Karmada's detector wrote, which decides their
//! policy as it does in Karmada.

use super::export::{identify, Identity};
use super::member::IDENTITY_KEYS;
use crate::diag::{Code, Diagnostic, Diagnostics, Origin};
use crate::model::document::Document;
use crate::model::layout::Tree;
use crate::model::meta::{CPP_PERMANENT_ID_LABEL, PP_PERMANENT_ID_LABEL};
use crate::schedule::policy_match::namespace_is_reserved;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The file `garrison import` writes what it learnt into.
pub const CONFIG_FILE: &str = "garrison.yaml";

/// The Karmada kinds garrison reads, by group: each is imported under
/// `karmada/<kind>/`.
const KARMADA_KINDS: &[(&str, &str)] = &[
    ("cluster.karmada.io", "Cluster"),
    ("policy.karmada.io", "PropagationPolicy"),
    ("policy.karmada.io", "ClusterPropagationPolicy"),
    ("policy.karmada.io", "OverridePolicy"),
    ("policy.karmada.io", "ClusterOverridePolicy"),
    ("policy.karmada.io", "ClusterTaintPolicy"),
    ("config.karmada.io", "ResourceInterpreterCustomization"),
    ("work.karmada.io", "ResourceBinding"),
    ("work.karmada.io", "ClusterResourceBinding"),
    ("autoscaling.karmada.io", "FederatedHPA"),
];

/// Karmada's kinds that garrison never delivers and whose objects change no
/// Work a render makes: left out of the repository. What their
/// controllers do live (a CronFederatedHPA scaling, a WorkloadRebalancer
/// rescheduling once) shows in `verify` as a difference.
const LEFT_OUT_KINDS: &[(&str, &str)] = &[
    ("autoscaling.karmada.io", "CronFederatedHPA"),
    ("apps.karmada.io", "WorkloadRebalancer"),
    ("networking.karmada.io", "MultiClusterService"),
    ("networking.karmada.io", "MultiClusterIngress"),
    ("policy.karmada.io", "FederatedResourceQuota"),
    ("remedy.karmada.io", "Remedy"),
    ("search.karmada.io", "ResourceRegistry"),
];

/// Metadata the API server sets on every object it stores.
const SERVER_FIELDS: &[&str] = &[
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
];

/// The prefixes of the labels and annotations Karmada writes on its own
/// objects (`propagationpolicy.karmada.io/permanent-id` on a policy): marks
/// of the live control plane, which mean nothing in a repository.
const CLAIM_PREFIXES: &[&str] = &[
    "propagationpolicy.karmada.io/",
    "clusterpropagationpolicy.karmada.io/",
];

/// The finalizers Karmada's controllers add to the objects they manage.
const KARMADA_FINALIZER_PREFIX: &str = "karmada.io/";

/// What an import makes of an export.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Imported {
    /// The repository's files, by path from its root.
    pub tree: Tree,
    /// How many objects of each kind were written.
    pub written: BTreeMap<String, usize>,
    /// Objects of the export that are not in the repository, and why.
    pub left_out: Vec<LeftOut>,
    /// The `kubernetesVersion` written into garrison.yaml, if any.
    pub kubernetes_version: Option<String>,
}

/// An object of the export that the repository does not hold.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LeftOut {
    /// `Kind/namespace/name`.
    pub object: String,
    pub origin: Origin,
    pub why: String,
}

/// One object on its way into the repository.
struct Object<'a> {
    doc: &'a Document,
    identity: Identity,
    value: Value,
}

/// The repository for the objects of an export, or every reason it
/// cannot be made faithfully. Warnings are returned with the result.
pub fn import(documents: &[Document]) -> Result<(Imported, Diagnostics), Diagnostics> {
    let mut diagnostics = Diagnostics::default();
    let mut objects = Vec::new();
    for doc in documents {
        let value = doc.node.to_value();
        match identify(doc, &value) {
            Ok(identity) => objects.push(Object {
                doc,
                identity,
                value,
            }),
            Err(fault) => diagnostics.push(fault),
        }
    }
    let mut imported = Imported::default();
    let mut placed: BTreeMap<String, (Origin, Vec<u8>)> = BTreeMap::new();
    for object in &objects {
        let Some(path) = place(object, &objects, &mut imported, &mut diagnostics) else {
            continue;
        };
        let value = cleaned(&object.identity, object.value.clone());
        let text = match crate::emit::yaml::to_yaml(&value) {
            Ok(text) => text.into_bytes(),
            Err(error) => {
                diagnostics.push(
                    Diagnostic::error(Code::Emit, format!("cannot write it as YAML: {error}"))
                        .at(object.doc.origin()),
                );
                continue;
            }
        };
        match placed.get(&path) {
            // The same object exported twice, by two overlapping `kubectl get`s.
            Some((_, bytes)) if *bytes == text => {}
            Some((first, _)) => diagnostics.push(duplicate(object, *first)),
            None => {
                *imported
                    .written
                    .entry(object.identity.kind.clone())
                    .or_default() += 1;
                placed.insert(path, (object.doc.origin(), text));
            }
        }
    }
    if !objects.iter().any(|o| is_cluster(&o.identity)) && !diagnostics.has_errors() {
        diagnostics.push(
            Diagnostic::error(Code::NoClusters, "the export holds no Cluster")
                .at_opt(documents.first().map(|d| Origin {
                    file: d.file,
                    pos: crate::node::Pos { line: 1, column: 1 },
                }))
                .help("add what `kubectl get clusters.cluster.karmada.io -o yaml` prints: garrison renders for the clusters of the repository"),
        );
    }
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    imported.tree = placed.into_iter().map(|(p, (_, b))| (p, b)).collect();
    let clusters: Vec<&Object> = objects.iter().filter(|o| is_cluster(&o.identity)).collect();
    let (version, config) = garrison_yaml(&clusters);
    imported.kubernetes_version = version;
    imported
        .tree
        .insert(CONFIG_FILE.to_string(), config.into_bytes());
    imported.left_out.sort();
    imported.left_out.dedup();
    Ok((imported, diagnostics))
}

fn is_cluster(identity: &Identity) -> bool {
    identity.group() == "cluster.karmada.io" && identity.kind == "Cluster"
}

/// Where `object` goes in the repository, or `None` when it stays out
/// (noted in `imported.left_out`) or cannot be imported (a fault in
/// `diagnostics`).
fn place(
    object: &Object<'_>,
    objects: &[Object<'_>],
    imported: &mut Imported,
    diagnostics: &mut Diagnostics,
) -> Option<String> {
    let identity = &object.identity;
    let mut leave = |why: String| {
        imported.left_out.push(LeftOut {
            object: identity.display(),
            origin: object.doc.origin(),
            why,
        });
        None
    };
    let group = identity.group();
    if group == "work.karmada.io" && identity.kind == "Work" {
        return leave("a Work: what `garrison verify --works` compares the render with".into());
    }
    let reserved = match (&identity.namespace, identity.kind.as_str()) {
        (Some(namespace), _) => Some(namespace),
        (None, "Namespace") if identity.group().is_empty() => Some(&identity.name),
        _ => None,
    };
    if let Some(namespace) = reserved.filter(|n| namespace_is_reserved(n)) {
        return leave(format!(
            "Karmada never propagates from the namespace `{namespace}`"
        ));
    }
    if LEFT_OUT_KINDS
        .iter()
        .any(|(g, k)| *g == group && *k == identity.kind)
    {
        return leave(format!(
            "garrison never delivers a {}, and what Karmada does with it is not in a render",
            identity.kind
        ));
    }
    let karmada = karmada_kind(identity);
    if !karmada && (group == "karmada.io" || group.ends_with(".karmada.io")) {
        diagnostics.push(
            Diagnostic::error(
                Code::CannotImport,
                format!(
                    "`{}` ({}) cannot be imported: garrison does not do what Karmada does with a {}, so a render would not deliver what Karmada delivers",
                    identity.display(),
                    identity.api_version,
                    identity.kind
                ),
            )
            .at(object.doc.at(&["kind"]))
            .help("leave the kind out of the export, and know that what it changes on the members will not be verified; garrison imports Clusters, policies, ResourceInterpreterCustomizations, ClusterTaintPolicies, FederatedHPAs, bindings and resource templates"),
        );
        return None;
    }
    if let Err(fault) = safe_names(object) {
        diagnostics.push(fault);
        return None;
    }
    let binding = group == "work.karmada.io";
    if binding {
        if !divides(&object.value["spec"]) && !kept_unclaimed(&object.value) {
            return leave(
                "its schedule follows from its policy, which garrison schedules again".into(),
            );
        }
        if let Err(fault) = template_exported(object, objects) {
            diagnostics.push(fault);
            return None;
        }
    }
    let kind = identity.kind.to_lowercase();
    let name = format!("{}.yaml", identity.name);
    Some(match (karmada, &identity.namespace) {
        (true, Some(namespace)) => format!("karmada/{kind}/{namespace}/{name}"),
        (true, None) => format!("karmada/{kind}/{name}"),
        (false, namespace) => {
            let kind = match group {
                "" => kind,
                group => format!("{kind}.{group}"),
            };
            let namespace = namespace
                .as_deref()
                .unwrap_or(crate::model::layout::path::CLUSTER_SCOPED_DIR);
            format!("templates/{namespace}/{kind}/{name}")
        }
    })
}

/// A name or namespace that cannot be a file name in the repository: empty,
/// hidden (the walk skips hidden files), or a path.
fn safe_names(object: &Object<'_>) -> Result<(), Diagnostic> {
    let identity = &object.identity;
    let fields = [
        ("name", Some(&identity.name)),
        ("namespace", identity.namespace.as_ref()),
    ];
    for (field, value) in fields {
        let Some(value) = value else { continue };
        if value.starts_with('.') || value.contains(['/', '\\', '\0']) {
            return Err(Diagnostic::error(
                Code::InvalidName,
                format!(
                    "the {field} `{value}` of `{}` cannot name a file",
                    identity.display()
                ),
            )
            .at(object.doc.at(&["metadata", field]))
            .help("the API server does not store such a name: export the objects with `kubectl get -o yaml` again"));
        }
    }
    Ok(())
}

/// Whether Karmada keeps a binding no policy claims: when a policy is
/// deleted, or stops selecting a template no other policy takes, Karmada's
/// detector removes the policy's claim from the template and its binding
/// and leaves the binding, so its Works stay. Only a pin renders that. An
/// attached binding (`requiredBy`: a dependency other workloads take along)
/// follows those workloads, which garrison schedules again.
fn kept_unclaimed(binding: &Value) -> bool {
    let labels = &binding["metadata"]["labels"];
    let claimed = [PP_PERMANENT_ID_LABEL, CPP_PERMANENT_ID_LABEL]
        .iter()
        .any(|label| labels.get(*label).is_some());
    let attached = binding["spec"]["requiredBy"]
        .as_array()
        .is_some_and(|r| !r.is_empty());
    !claimed && !attached
}

/// Whether a binding's `spec` divides replicas: some, and its placement says
/// `Divided`, or, without a placement, its clusters share them out. (No
/// replicas divide into nothing, which needs no memory.)
fn divides(spec: &Value) -> bool {
    let total = spec["replicas"].as_i64().unwrap_or(0);
    if total <= 0 {
        return false;
    }
    // Karmada's `Placement.ReplicaSchedulingType`: no `replicaScheduling`
    // duplicates; one without a type divides (the defaulting trap of
    // `replicaScheduling: {}`).
    if let Some(placement) = spec.get("placement").filter(|p| p.is_object()) {
        return match placement.get("replicaScheduling").filter(|r| r.is_object()) {
            None => false,
            Some(scheduling) => scheduling
                .get("replicaSchedulingType")
                .and_then(Value::as_str)
                .is_none_or(|kind| kind == "Divided"),
        };
    }
    let clusters = spec["clusters"].as_array().into_iter().flatten();
    clusters
        .map(|c| c["replicas"].as_i64().unwrap_or(0))
        .any(|r| r != total)
}

/// A binding kept as a pin names a template of the export (garrison
/// refuses a pin without one, G0207).
fn template_exported(binding: &Object<'_>, objects: &[Object<'_>]) -> Result<(), Diagnostic> {
    let resource = &binding.value["spec"]["resource"];
    let text = |key: &str| resource[key].as_str().filter(|s| !s.is_empty());
    let found = objects.iter().any(|o| {
        Some(o.identity.api_version.as_str()) == text("apiVersion")
            && Some(o.identity.kind.as_str()) == text("kind")
            && o.identity.namespace.as_deref() == text("namespace")
            && Some(o.identity.name.as_str()) == text("name")
    });
    if found {
        return Ok(());
    }
    let named = match text("namespace") {
        Some(ns) => format!(
            "{}/{ns}/{}",
            text("kind").unwrap_or("?"),
            text("name").unwrap_or("?")
        ),
        None => format!(
            "{}/{}",
            text("kind").unwrap_or("?"),
            text("name").unwrap_or("?")
        ),
    };
    Err(Diagnostic::error(
        Code::CannotImport,
        format!(
            "`{}` divides the replicas of `{named}`, which is not in the export",
            binding.identity.display()
        ),
    )
    .at(binding.doc.at(&["spec", "resource"]))
    .help("export the template too (`kubectl get` its kind in its namespace): the binding is kept to pin its division, and a pin needs its template"))
}

fn duplicate(object: &Object<'_>, first: Origin) -> Diagnostic {
    Diagnostic::error(
        Code::DuplicateObject,
        format!(
            "`{}` ({}) is in the export twice, with different contents",
            object.identity.display(),
            object.identity.api_version
        ),
    )
    .at(object.doc.origin())
    .help(format!(
        "it is also at line {} of the export; export each object once, from one control plane",
        first.pos.line
    ))
}

/// `value` as a person would have written it: the API server's and
/// Karmada's bookkeeping taken out.
fn cleaned(identity: &Identity, mut value: Value) -> Value {
    let Some(object) = value.as_object_mut() else {
        return value;
    };
    // A Cluster's status is input: its API enablements, resources and
    // conditions decide where Karmada schedules.
    if !is_cluster(identity) {
        object.shift_remove("status");
    }
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        let binding = identity.group() == "work.karmada.io";
        clean_metadata(metadata, karmada_kind(identity), binding);
    }
    if identity.group() == "work.karmada.io" {
        if let Some(spec) = object.get_mut("spec") {
            if let Some(resource) = spec.get_mut("resource").and_then(Value::as_object_mut) {
                resource.shift_remove("uid");
                resource.shift_remove("resourceVersion");
            }
            // Karmada leaves a zero share out (`replicas,omitempty`), where a
            // pin without replicas gives the cluster the template's: the pin
            // of a division says 0.
            for cluster in spec
                .get_mut("clusters")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
                .filter_map(Value::as_object_mut)
            {
                cluster.entry("replicas").or_insert(Value::from(0));
            }
        }
    }
    value
}

fn karmada_kind(identity: &Identity) -> bool {
    KARMADA_KINDS
        .iter()
        .any(|(g, k)| *g == identity.group() && *k == identity.kind)
}

/// `metadata` without the API server's fields, and without Karmada's
/// claim marks on Karmada's own objects (`karmada`). A template keeps the
/// claim the detector wrote on it: garrison honours it as Karmada does,
/// the claiming policy keeping the template whatever policy matches it
/// better.
fn clean_metadata(metadata: &mut Map<String, Value>, karmada: bool, binding: bool) {
    for field in SERVER_FIELDS {
        metadata.shift_remove(*field);
    }
    // A binding is owned by its template, by the uid the export's API
    // server gave it.
    if binding {
        metadata.shift_remove("ownerReferences");
    }
    for field in ["labels", "annotations"] {
        // Every label and annotation of a binding is Karmada's: its
        // identity, its policy's, the placement it last applied.
        if binding {
            metadata.shift_remove(field);
            continue;
        }
        let emptied = metadata
            .get_mut(field)
            .and_then(Value::as_object_mut)
            .filter(|_| karmada)
            .map(|map| {
                map.retain(|key, _| {
                    !CLAIM_PREFIXES.iter().any(|p| key.starts_with(p))
                        && !IDENTITY_KEYS.contains(&key.as_str())
                });
                map.is_empty()
            });
        if emptied == Some(true) {
            metadata.shift_remove(field);
        }
    }
    let emptied = metadata
        .get_mut("finalizers")
        .and_then(Value::as_array_mut)
        .map(|list| {
            list.retain(|f| {
                !f.as_str()
                    .is_some_and(|f| f.starts_with(KARMADA_FINALIZER_PREFIX))
            });
            list.is_empty()
        });
    if emptied == Some(true) {
        metadata.shift_remove("finalizers");
    }
}

/// The `kubernetesVersion` learnt from the clusters, and garrison.yaml's
/// text. Templates are checked against the lowest minor version a member
/// runs (what every member accepts), or the nearest one garrison knows.
fn garrison_yaml(clusters: &[&Object<'_>]) -> (Option<String>, String) {
    let mut text = String::from("# What `garrison import` learnt from the control plane export.\n");
    let lowest = clusters
        .iter()
        .filter_map(|c| {
            let reported = c.value.pointer("/status/kubernetesVersion")?.as_str()?;
            Some((minor_version(reported)?, reported, &c.identity.name))
        })
        .min();
    let Some(((major, minor), reported, cluster)) = lowest else {
        text.push_str("# No Cluster reports `status.kubernetesVersion`: templates are checked\n# against the default Kubernetes version.\n");
        return (None, text);
    };
    let known: Vec<(u32, u32)> = crate::schema::builtin::versions()
        .filter_map(minor_version)
        .collect();
    let chosen = if known.contains(&(major, minor)) {
        text.push_str(&format!(
            "# The lowest Kubernetes version of the members: {reported} (`{cluster}`).\n"
        ));
        (major, minor)
    } else {
        let nearest = known
            .iter()
            .copied()
            .min_by_key(|(ma, mi)| (ma.abs_diff(major), mi.abs_diff(minor)))
            .unwrap_or((major, minor));
        text.push_str(&format!(
            "# The lowest Kubernetes version of the members is {reported} (`{cluster}`);\n# garrison checks templates against {}.{} at the nearest.\n",
            nearest.0, nearest.1
        ));
        nearest
    };
    let version = format!("{}.{}", chosen.0, chosen.1);
    text.push_str(&format!("kubernetesVersion: \"{version}\"\n"));
    (Some(version), text)
}

/// `v1.31.2`, `1.31`, `v1.31.2-eks-1` as (major, minor).
fn minor_version(text: &str) -> Option<(u32, u32)> {
    let text = text.strip_prefix('v').unwrap_or(text);
    let mut parts = text.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor: String = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((major, minor.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::migrate::export;

    const CLUSTER: &str = "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: member1\n  uid: 0d1c\n  resourceVersion: \"1042\"\n  finalizers: [karmada.io/cluster-controller]\nspec:\n  apiEndpoint: https://member1.example:6443\nstatus:\n  kubernetesVersion: v1.35.1\n  apiEnablements:\n  - groupVersion: apps/v1\n    resources: [{name: deployments, kind: Deployment}]\n";

    /// The import of `text` (one export file, `export.yaml`), or its faults
    /// as `file:line:column: code message` lines.
    fn imported(text: &str) -> Result<Imported, Vec<String>> {
        let export = export::parse(vec![("export.yaml".into(), text.into())]);
        let faults = |d: &Diagnostics| {
            d.0.iter()
                .map(|d| {
                    let at = d
                        .origin
                        .map(|o| export.sources.locate(&o))
                        .unwrap_or_default();
                    format!("{at}: {} {}", d.code.code(), d.message)
                })
                .collect::<Vec<_>>()
        };
        assert!(
            !export.diagnostics.has_errors(),
            "{:?}",
            faults(&export.diagnostics)
        );
        import(&export.documents)
            .map(|(imported, _)| imported)
            .map_err(|d| faults(&d))
    }

    fn files(imported: &Imported) -> String {
        imported
            .tree
            .iter()
            .map(|(path, bytes)| format!("--- {path}\n{}", String::from_utf8_lossy(bytes)))
            .collect()
    }

    #[test]
    fn server_fields_are_taken_out_and_a_templates_claim_and_a_clusters_status_are_kept() {
        let text = format!(
            "{CLUSTER}---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  uid: 3b1e\n  generation: 2\n  creationTimestamp: \"2026-11-02T10:00:00Z\"\n  managedFields: [{{manager: kubectl}}]\n  labels:\n    app: web\n    propagationpolicy.karmada.io/permanent-id: 5e0c\n    resourcetemplate.karmada.io/claimed-by: argo\n  annotations:\n    propagationpolicy.karmada.io/name: web\nspec:\n  replicas: 3\nstatus:\n  replicas: 3\n"
        );
        let imported = imported(&text).unwrap_or_else(|f| panic!("{f:?}"));
        insta::assert_snapshot!(files(&imported), @r#"
            --- garrison.yaml
            # What `garrison import` learnt from the control plane export.
            # The lowest Kubernetes version of the members: v1.35.1 (`member1`).
            kubernetesVersion: "1.35"
            --- karmada/cluster/member1.yaml
            apiVersion: cluster.karmada.io/v1alpha1
            kind: Cluster
            metadata:
              name: member1
            spec:
              apiEndpoint: https://member1.example:6443
            status:
              kubernetesVersion: v1.35.1
              apiEnablements:
              - groupVersion: apps/v1
                resources:
                - name: deployments
                  kind: Deployment
            --- templates/shop/deployment.apps/web.yaml
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: web
              namespace: shop
              labels:
                app: web
                propagationpolicy.karmada.io/permanent-id: 5e0c
                resourcetemplate.karmada.io/claimed-by: argo
              annotations:
                propagationpolicy.karmada.io/name: web
            spec:
              replicas: 3
        "#);
    }

    #[test]
    fn what_karmada_never_propagates_and_the_works_are_left_out_with_the_reason() {
        let text = format!(
            "{CLUSTER}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cluster-info, namespace: kube-public}}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: karmada-es-member1}}\n---\napiVersion: work.karmada.io/v1alpha1\nkind: Work\nmetadata: {{name: web-56d6c779bb, namespace: karmada-es-member1}}\n"
        );
        let imported = imported(&text).unwrap_or_else(|f| panic!("{f:?}"));
        let left: Vec<String> = imported
            .left_out
            .iter()
            .map(|l| format!("{} (line {}): {}", l.object, l.origin.pos.line, l.why))
            .collect();
        insta::assert_snapshot!(left.join("\n"), @r#"
            ConfigMap/kube-public/cluster-info (line 16): Karmada never propagates from the namespace `kube-public`
            Namespace/karmada-es-member1 (line 20): Karmada never propagates from the namespace `karmada-es-member1`
            Work/karmada-es-member1/web-56d6c779bb (line 24): a Work: what `garrison verify --works` compares the render with
        "#);
        assert_eq!(
            imported.tree.keys().collect::<Vec<_>>(),
            ["garrison.yaml", "karmada/cluster/member1.yaml"]
        );
    }

    #[test]
    fn a_binding_that_divides_replicas_is_kept_as_a_pin_and_one_that_duplicates_is_not() {
        let text = format!(
            "{CLUSTER}---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: shop}}\nspec: {{replicas: 3}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: conf, namespace: shop}}\n---\napiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\nmetadata:\n  name: web-deployment\n  namespace: shop\n  ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: web, uid: 3b1e}}]\n  labels: {{resourcebinding.karmada.io/permanent-id: 1d2c}}\nspec:\n  resource: {{apiVersion: apps/v1, kind: Deployment, namespace: shop, name: web, uid: 3b1e, resourceVersion: \"3001\"}}\n  replicas: 3\n  clusters: [{{name: member1, replicas: 2}}, {{name: member2, replicas: 1}}]\nstatus: {{schedulerObservedGeneration: 2}}\n---\napiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\nmetadata:\n  name: conf-configmap\n  namespace: shop\n  labels: {{propagationpolicy.karmada.io/permanent-id: 5e0c}}\nspec:\n  resource: {{apiVersion: v1, kind: ConfigMap, namespace: shop, name: conf}}\n  placement: {{replicaScheduling: {{replicaSchedulingType: Duplicated}}}}\n  clusters: [{{name: member1}}]\n"
        );
        let imported = imported(&text).unwrap_or_else(|f| panic!("{f:?}"));
        let binding = imported
            .tree
            .get("karmada/resourcebinding/shop/web-deployment.yaml")
            .map(|b| String::from_utf8_lossy(b).into_owned());
        insta::assert_snapshot!(binding.unwrap_or_default(), @r#"
            apiVersion: work.karmada.io/v1alpha2
            kind: ResourceBinding
            metadata:
              name: web-deployment
              namespace: shop
            spec:
              resource:
                apiVersion: apps/v1
                kind: Deployment
                namespace: shop
                name: web
              replicas: 3
              clusters:
              - name: member1
                replicas: 2
              - name: member2
                replicas: 1
        "#);
        assert!(!imported
            .tree
            .contains_key("karmada/resourcebinding/shop/conf-configmap.yaml"));
        assert_eq!(imported.left_out.len(), 1, "{:?}", imported.left_out);
    }

    /// Karmada's detector leaves the binding of a template that lost its
    /// policy, without the claim, and keeps delivering it: a pin.
    #[test]
    fn a_binding_no_policy_claims_is_kept_as_a_pin_and_an_attached_one_is_not() {
        let binding = |name: &str, extra: &str| {
            format!("---\napiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\nmetadata: {{name: {name}-configmap, namespace: shop}}\nspec:\n  resource: {{apiVersion: v1, kind: ConfigMap, namespace: shop, name: {name}}}\n  clusters: [{{name: member1}}]\n{extra}")
        };
        let text = format!(
            "{CLUSTER}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: kept, namespace: shop}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: taken, namespace: shop}}\n{}{}",
            binding("kept", ""),
            binding("taken", "  requiredBy: [{name: web-deployment, namespace: shop, clusters: [{name: member1}]}]\n"),
        );
        let imported = imported(&text).unwrap_or_else(|f| panic!("{f:?}"));
        let pins: Vec<&String> = imported
            .tree
            .keys()
            .filter(|p| p.starts_with("karmada/resourcebinding/"))
            .collect();
        assert_eq!(pins, ["karmada/resourcebinding/shop/kept-configmap.yaml"]);
    }

    #[test]
    fn what_cannot_be_imported_faithfully_is_refused_at_its_line() {
        let text = format!(
            "{CLUSTER}---\napiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterWebhookConfiguration\nmetadata: {{name: hooks}}\n---\napiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\nmetadata: {{name: gone-deployment, namespace: shop}}\nspec:\n  resource: {{apiVersion: apps/v1, kind: Deployment, namespace: shop, name: gone}}\n  replicas: 4\n  clusters: [{{name: member1, replicas: 4}}, {{name: member2, replicas: 0}}]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: web, namespace: shop}}\ndata: {{a: \"1\"}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: web, namespace: shop}}\ndata: {{a: \"2\"}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: ..., namespace: shop}}\n"
        );
        let faults = imported(&text).err().unwrap_or_default();
        insta::assert_snapshot!(faults.join("\n"), @r#"
            export.yaml:17:7: G0801 `ResourceInterpreterWebhookConfiguration/hooks` (config.karmada.io/v1alpha1) cannot be imported: garrison does not do what Karmada does with a ResourceInterpreterWebhookConfiguration, so a render would not deliver what Karmada delivers
            export.yaml:24:13: G0801 `ResourceBinding/shop/gone-deployment` divides the replicas of `Deployment/shop/gone`, which is not in the export
            export.yaml:33:1: G0107 `ConfigMap/shop/web` (v1) is in the export twice, with different contents
            export.yaml:40:18: G0106 the name `...` of `ConfigMap/shop/...` cannot name a file
        "#);
    }

    #[test]
    fn an_export_without_clusters_is_refused() {
        let faults =
            imported("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\n")
                .err()
                .unwrap_or_default();
        assert_eq!(
            faults,
            ["export.yaml:1:1: G0007 the export holds no Cluster"]
        );
    }

    #[test]
    fn the_same_object_exported_twice_alike_is_written_once() {
        let text = format!("{CLUSTER}---\n{CLUSTER}");
        let imported = imported(&text).unwrap_or_else(|f| panic!("{f:?}"));
        assert_eq!(imported.written.get("Cluster"), Some(&1));
    }

    #[test]
    fn the_kubernetes_version_is_the_members_lowest_or_the_nearest_garrison_knows() {
        let with = |versions: &[&str]| {
            let text: Vec<String> = versions
                .iter()
                .enumerate()
                .map(|(i, v)| format!("apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {{name: m{i}}}\nstatus: {{kubernetesVersion: {v}}}\n"))
                .collect();
            imported(&text.join("---\n"))
                .unwrap_or_else(|f| panic!("{f:?}"))
                .kubernetes_version
        };
        assert_eq!(with(&["v1.36.0", "v1.34.2-eks-1"]), Some("1.34".into()));
        assert_eq!(with(&["v1.29.4"]), Some("1.33".into()));
        assert_eq!(with(&["v1.99.0"]), Some("1.37".into()));
        assert_eq!(with(&["unknown"]), None);
    }
}
