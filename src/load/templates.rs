//! Templates as the API server would take them (SPEC §10).
//!
//! After classification every template is looked up in the [`Catalog`]: the
//! built-in API of the configured Kubernetes version plus the repository's
//! CustomResourceDefinitions.
//!
//! - A kind the API server would not serve (a misspelt kind of a built-in
//!   group, a removed version, a version its CRD does not serve) is G0112.
//! - A known kind is checked against its schema: unknown fields are G0109,
//!   wrong values G0104. A kind with no known schema gets one G0111 warning
//!   and only its `metadata` is checked, since every object's metadata is an
//!   ObjectMeta.
//! - Its scope comes from the schema. A namespaced object without a
//!   namespace takes `defaultNamespace`, written into the object, or is
//!   G0110; a cluster-scoped object's namespace is dropped with a warning,
//!   as the API server drops it. Kinds without a schema keep what they say;
//!   one without a namespace is taken as cluster-scoped (Karmada's API
//!   server would refuse it without one if its CRD said `Namespaced`), and
//!   each such object gets a G0111 warning, since no PropagationPolicy can
//!   select it and a mistake there would be silent.
//! - Two templates that are one object for kubectl (same group, kind,
//!   namespace and name, whatever the version) are G0107.
//!
//! A SOPS-encrypted document (a top-level `sops` mapping) is not checked:
//! until the GitOps agent decrypts it, its values are ciphertext.
//!
//! A file whose templates are all valid is remembered in the parse cache
//! (keyed by the catalog), so a re-render does not check it again.

use super::cache::Cache;
use crate::diag::unknown_field;
use crate::diag::{Code, Diagnostic, Diagnostics, FileId, Origin, Sources};
use crate::model::config::Config;
use crate::model::config::TEMPLATE_CHECKS;
use crate::model::inputs::{Document, Inputs, Template};
use crate::node::display_path;
use crate::node::{Node, NodeKind};
use crate::schema::{self, builtin, crd, Catalog, FaultKind, KindSource, Lookup};
use rayon::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Check, scope and deduplicate `inputs.templates` (`documents` are their
/// documents, in the same order) against the built-in API of the configured
/// Kubernetes version and the CRDs among them.
pub fn check(
    inputs: &mut Inputs,
    documents: Vec<Document>,
    cache: &Cache,
    diagnostics: &mut Diagnostics,
) {
    let catalog = catalog(&inputs.config, &inputs.templates, &documents, diagnostics);
    check_with(&catalog, inputs, documents, cache, diagnostics);
    inputs.catalog = Some(std::sync::Arc::new(catalog));
}

/// The catalog of the configured Kubernetes version plus the CRDs among
/// `templates`; faults in the CRDs are diagnostics.
pub fn catalog(
    config: &Config,
    templates: &[Template],
    documents: &[Document],
    diagnostics: &mut Diagnostics,
) -> Catalog {
    let builtin = builtin::load_or_default(config.kubernetes_version.as_deref());
    let crds: Vec<(FileId, &Node)> = templates
        .iter()
        .zip(documents)
        .filter(|(t, _)| {
            t.key.group() == crd::CRD_GROUP
                && t.key.kind == crd::CRD_KIND
                && t.key.api_version.ends_with("/v1")
        })
        .map(|(_, d)| (d.file, &d.node))
        .collect();
    crd::catalog(builtin, &crds, diagnostics)
}

/// [`check`] against a catalog made beforehand.
pub fn check_with(
    catalog: &Catalog,
    inputs: &mut Inputs,
    documents: Vec<Document>,
    cache: &Cache,
    diagnostics: &mut Diagnostics,
) {
    let mut found = Diagnostics::default();
    // Validation, per file, in parallel; a valid file is remembered.
    let mut by_file: BTreeMap<FileId, Vec<usize>> = BTreeMap::new();
    for (index, document) in documents.iter().enumerate() {
        by_file.entry(document.file).or_default().push(index);
    }
    let sources = &inputs.sources;
    let templates = &inputs.templates;
    let per_file: Vec<Diagnostics> = by_file
        .par_iter()
        .map(|(file, indices)| {
            let mut faults = Diagnostics::default();
            cache.validated(&catalog.fingerprint, sources.text(*file), || {
                for index in indices {
                    faults.extend(validate(catalog, &templates[*index], &documents[*index]));
                }
                faults.0.is_empty()
            });
            faults
        })
        .collect();
    for faults in per_file {
        found.extend(faults);
    }
    found.extend(unschematic_kinds(catalog, &inputs.templates, &documents));
    found.extend(unscoped_objects(catalog, &inputs.templates, &documents));
    inputs.config.relax(&mut found, TEMPLATE_CHECKS, |file| {
        inputs.sources.path(file)
    });
    diagnostics.extend(found);
    let mut keep = scope(
        catalog,
        &inputs.config,
        &inputs.release_namespaces,
        &mut inputs.templates,
        &documents,
        diagnostics,
    );
    deduplicate(
        &inputs.templates,
        &documents,
        &mut keep,
        &inputs.sources,
        diagnostics,
    );
    let mut keep = keep.into_iter();
    inputs.templates.retain(|_| keep.next().unwrap_or(true));
    // A namespace given or taken away changes a key: keep them sorted.
    inputs.templates.sort_by(|a, b| a.key.cmp(&b.key));
}

/// `Deployment (apps/v1)`, for messages.
fn kind_of(template: &Template) -> String {
    format!("{} ({})", template.key.kind, template.key.api_version)
}

/// The faults of one template against its schema.
fn validate(catalog: &Catalog, template: &Template, document: &Document) -> Diagnostics {
    let mut diagnostics = Diagnostics::default();
    // A SOPS-encrypted document is not an object until the GitOps agent
    // (Flux, or Argo CD with a plugin) decrypts it: its values are
    // ciphertext and `sops` is SOPS's own. It passes through as written.
    if crate::model::meta::sops_encrypted(&template.value) {
        return diagnostics;
    }
    let (root, node, prefix) = match catalog.lookup(&template.key.api_version, &template.key.kind) {
        Lookup::Known(kind) => (kind.root, &document.node, Vec::new()),
        Lookup::NotServed {
            reason,
            help,
            field,
        } => {
            diagnostics.push(
                Diagnostic::error(
                    Code::UnknownApiKind,
                    format!("`{}`: {reason}", template.key),
                )
                .at(document.at(&[field]))
                .help(format!("{help} (kubectl would refuse this object too)")),
            );
            return diagnostics;
        }
        Lookup::Unknown => {
            let Some(meta) = catalog.object_meta() else {
                return diagnostics;
            };
            let metadata = match &document.node.kind {
                NodeKind::Map(entries) => entries
                    .iter()
                    .find(|(k, _, _)| k == "metadata")
                    .map(|(_, _, v)| v),
                _ => None,
            };
            let Some(metadata) = metadata else {
                return diagnostics;
            };
            (meta, metadata, vec!["metadata".to_string()])
        }
    };
    let source = match catalog.lookup(&template.key.api_version, &template.key.kind) {
        Lookup::Known(kind) => match &kind.source {
            KindSource::Builtin => format!("Kubernetes {}", catalog.kubernetes),
            KindSource::Crd(_) => "its CustomResourceDefinition".to_string(),
        },
        _ => "ObjectMeta".to_string(),
    };
    for fault in schema::validate_object(catalog.schemas(), root, node) {
        let path: Vec<String> = prefix.iter().cloned().chain(fault.path).collect();
        let origin = Origin {
            file: document.file,
            pos: fault.pos,
        };
        let diagnostic = match fault.kind {
            FaultKind::UnknownField { field, known } => {
                let known: Vec<&str> = known.iter().map(String::as_str).collect();
                unknown_field(&kind_of(template), &path, &field, &known)
            }
            FaultKind::Invalid(message) => {
                let place = if path.is_empty() {
                    String::new()
                } else {
                    format!("`{}`: ", display_path(&path))
                };
                Diagnostic::error(
                    Code::InvalidField,
                    format!("invalid {}: {place}{message}", kind_of(template)),
                )
                .help(format!(
                    "fix the value; the API server would refuse it (checked against {source})"
                ))
            }
        };
        diagnostics.push(diagnostic.at(origin));
    }
    diagnostics
}

/// One G0111 warning per kind the catalog knows nothing about, at its first template.
fn unschematic_kinds(
    catalog: &Catalog,
    templates: &[Template],
    documents: &[Document],
) -> Diagnostics {
    let mut warned = BTreeSet::new();
    let mut diagnostics = Diagnostics::default();
    for (template, document) in templates.iter().zip(documents) {
        let key = (
            template.key.api_version.as_str(),
            template.key.kind.as_str(),
        );
        if catalog.lookup(key.0, key.1) != Lookup::Unknown
            || catalog.is_broken(key.0, key.1)
            || !warned.insert(key)
        {
            continue;
        }
        diagnostics.push(
            Diagnostic::warning(
                Code::NoSchema,
                format!(
                    "garrison knows no schema for `{}` (`{}`): its objects are rendered as written, only their `metadata` checked",
                    key.1, key.0
                ),
            )
            .at(document.at(&["kind"]))
            .help("add its CustomResourceDefinition to the repository (it is rendered only if a policy selects it), or relax `no-schema` for these files in garrison.yaml"),
        );
    }
    diagnostics
}

/// A G0111 warning for each template of a kind the catalog knows nothing
/// about that has no namespace: its scope is unknown, and taking it as
/// cluster-scoped (what the API server accepts without a namespace) hides
/// it from every PropagationPolicy.
fn unscoped_objects(
    catalog: &Catalog,
    templates: &[Template],
    documents: &[Document],
) -> Diagnostics {
    let mut diagnostics = Diagnostics::default();
    for (template, document) in templates.iter().zip(documents) {
        let key = &template.key;
        if key.namespace.is_some()
            || catalog.lookup(&key.api_version, &key.kind) != Lookup::Unknown
            || catalog.is_broken(&key.api_version, &key.kind)
        {
            continue;
        }
        diagnostics.push(
            Diagnostic::warning(
                Code::NoSchema,
                format!(
                    "`{key}` has no `metadata.namespace`, and without a schema for `{}` (`{}`) garrison cannot tell whether it is namespaced: it is taken as cluster-scoped, so no PropagationPolicy can select it, and a ClusterPropagationPolicy delivers it without a namespace",
                    key.kind, key.api_version
                ),
            )
            .at(Origin {
                file: document.file,
                pos: document.node.locate_key(&["metadata"]),
            })
            .help("if the kind is namespaced, set `metadata.namespace` (`defaultNamespace` does not apply to a kind of unknown scope); add its CustomResourceDefinition to the repository to have its scope checked, or relax `no-schema` for these files"),
        );
    }
    diagnostics
}

/// Give namespaced templates their namespace and take it from cluster-scoped
/// ones; which templates are kept (not refused).
fn scope(
    catalog: &Catalog,
    config: &Config,
    releases: &std::collections::BTreeMap<crate::diag::FileId, String>,
    templates: &mut [Template],
    documents: &[Document],
    diagnostics: &mut Diagnostics,
) -> Vec<bool> {
    let mut keep = vec![true; templates.len()];
    for ((template, document), keep) in templates.iter_mut().zip(documents).zip(keep.iter_mut()) {
        let Lookup::Known(kind) = catalog.lookup(&template.key.api_version, &template.key.kind)
        else {
            continue;
        };
        match (kind.namespaced, template.key.namespace.clone()) {
            (true, None) => match releases
                .get(&document.file)
                .or(config.default_namespace.as_ref())
            {
                Some(namespace) => set_namespace(template, Some(namespace)),
                None => {
                    *keep = false;
                    diagnostics.push(
                        Diagnostic::error(
                            Code::MissingNamespace,
                            format!("`{}` is namespaced but has no `metadata.namespace`", template.key),
                        )
                        .at(Origin {
                            file: document.file,
                            pos: document.node.locate_key(&["metadata"]),
                        })
                        .help("set `metadata.namespace`, or `defaultNamespace` in garrison.yaml for every template without one"),
                    );
                }
            },
            (false, Some(namespace)) => {
                diagnostics.push(
                    Diagnostic::warning(
                        Code::IgnoredField,
                        format!(
                            "`{}` is cluster-scoped: the API server ignores its `metadata.namespace: {namespace}`, and so does garrison",
                            template.key
                        ),
                    )
                    .at(document.at(&["metadata", "namespace"]))
                    .help("remove `metadata.namespace`"),
                );
                set_namespace(template, None);
            }
            _ => {}
        }
    }
    keep
}

/// Write `namespace` into the template's key and object (after `name`), or remove it.
fn set_namespace(template: &mut Template, namespace: Option<&str>) {
    template.key.namespace = namespace.map(str::to_string);
    let Some(metadata) = template
        .value
        .get_mut("metadata")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    match namespace {
        Some(namespace) => {
            let at = metadata
                .keys()
                .position(|k| k == "name")
                .map_or(0, |i| i + 1);
            metadata.shift_insert(at, "namespace".into(), Value::String(namespace.into()));
        }
        None => {
            metadata.shift_remove("namespace");
        }
    }
}

/// Keep the first (in file order) of templates that are one object for kubectl.
fn deduplicate(
    templates: &[Template],
    documents: &[Document],
    keep: &mut [bool],
    sources: &Sources,
    diagnostics: &mut Diagnostics,
) {
    let mut seen: BTreeMap<(String, String, Option<String>, String), Origin> = BTreeMap::new();
    let mut order: Vec<usize> = (0..templates.len()).filter(|i| keep[*i]).collect();
    order.sort_by_key(|i| templates[*i].origin);
    for i in order {
        let key = &templates[i].key;
        let identity = (
            key.group().to_string(),
            key.kind.clone(),
            key.namespace.clone(),
            key.name.clone(),
        );
        let name = documents[i].at(&["metadata", "name"]);
        match seen.get(&identity) {
            Some(first) => {
                keep[i] = false;
                diagnostics.push(
                    Diagnostic::error(Code::DuplicateObject, format!("`{key}` ({}) is defined twice", key.api_version))
                        .at(name)
                        .help(format!(
                            "it is also defined in `{}` at line {}; keep one definition (kubectl sees one object: the same group, kind, namespace and name)",
                            sources.path(first.file),
                            first.pos.line
                        )),
                );
            }
            None => {
                seen.insert(identity, name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::classify::classify_documents;
    use crate::load::yaml::{parse_stream, Limits};

    /// Templates of `text` (file 0) after checking, and the diagnostics concisely.
    fn checked(text: &str, default_namespace: Option<&str>) -> (Vec<Template>, Vec<String>) {
        let mut sources = Sources::default();
        let file = sources.add("t.yaml".into(), text.into());
        let nodes = match parse_stream(text, &Limits::default()) {
            Ok(nodes) => nodes,
            Err(e) => panic!("{e:?}"),
        };
        let mut diagnostics = Diagnostics::default();
        let (mut inputs, documents) = classify_documents(
            nodes.into_iter().map(|n| (file, n)).collect(),
            &sources,
            default_namespace,
            &mut diagnostics,
        );
        inputs.sources = sources;
        inputs.config.default_namespace = default_namespace.map(str::to_string);
        check(&mut inputs, documents, &Cache::disabled(), &mut diagnostics);
        let shown = crate::diag::render(&diagnostics, &inputs.sources, crate::diag::Style::Concise);
        (
            inputs.templates,
            shown.lines().map(str::to_string).collect(),
        )
    }

    const TWO: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {k: w}\ndata: {k: v}\n";

    #[test]
    fn the_default_namespace_is_written_after_the_name_and_keys_stay_sorted() {
        let (templates, shown) = checked(TWO, Some("z"));
        assert_eq!(shown, Vec::<String>::new());
        let keys: Vec<String> = templates.iter().map(|t| t.key.to_string()).collect();
        assert_eq!(keys, ["ConfigMap/a/b", "ConfigMap/z/a"]);
        assert_eq!(
            serde_json::to_string(&templates[1].value["metadata"]).unwrap_or_default(),
            r#"{"name":"a","namespace":"z","labels":{"k":"w"}}"#
        );
    }

    #[test]
    fn without_a_default_a_namespaced_template_needs_its_namespace() {
        let (templates, shown) = checked(TWO, None);
        assert_eq!(templates.len(), 1);
        assert_eq!(
            shown,
            ["t.yaml:7:1: error[G0110]: `ConfigMap/a` is namespaced but has no `metadata.namespace` (help: set `metadata.namespace`, or `defaultNamespace` in garrison.yaml for every template without one)"]
        );
    }

    #[test]
    fn a_cluster_scoped_template_loses_its_namespace_and_is_one_object_with_its_twin() {
        let text = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r, namespace: kube-system}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n";
        let (templates, shown) = checked(text, None);
        assert_eq!(templates.len(), 1);
        assert_eq!(templates[0].key.namespace, None);
        assert!(templates[0].value["metadata"].get("namespace").is_none());
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(shown[0].contains("warning[G0208]"), "{shown:?}");
        assert!(shown[1].starts_with("t.yaml:7:18: error[G0107]: `ClusterRole/r` (rbac.authorization.k8s.io/v1) is defined twice"), "{shown:?}");
    }

    #[test]
    fn two_served_versions_of_one_custom_resource_are_one_object() {
        let text = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.io}\nspec:\n  group: example.io\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}\n  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}\n---\napiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\n---\napiVersion: example.io/v2\nkind: Widget\nmetadata: {name: w, namespace: ns}\n";
        let (templates, shown) = checked(text, None);
        assert_eq!(templates.len(), 2, "the CRD and one Widget");
        assert_eq!(shown.len(), 1, "{shown:?}");
        assert!(
            shown[0].contains("error[G0107]: `Widget/ns/w` (example.io/v2) is defined twice"),
            "{shown:?}"
        );
    }

    /// A custom resource without a CRD and without a namespace: one G0111
    /// for the kind, and one naming each object whose scope is unknown;
    /// with a namespace, only the kind's.
    #[test]
    fn an_object_of_unknown_scope_without_a_namespace_is_named() {
        let text = "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: a}\n---\napiVersion: example.io/v1\nkind: Widget\nmetadata: {name: b, namespace: shop}\n";
        let (templates, shown) = checked(text, Some("default"));
        let keys: Vec<String> = templates.iter().map(|t| t.key.to_string()).collect();
        assert_eq!(keys, ["Widget/a", "Widget/shop/b"]);
        assert_eq!(
            shown,
            [
                "t.yaml:2:7: warning[G0111]: garrison knows no schema for `Widget` (`example.io/v1`): its objects are rendered as written, only their `metadata` checked (help: add its CustomResourceDefinition to the repository (it is rendered only if a policy selects it), or relax `no-schema` for these files in garrison.yaml)",
                "t.yaml:3:1: warning[G0111]: `Widget/a` has no `metadata.namespace`, and without a schema for `Widget` (`example.io/v1`) garrison cannot tell whether it is namespaced: it is taken as cluster-scoped, so no PropagationPolicy can select it, and a ClusterPropagationPolicy delivers it without a namespace (help: if the kind is namespaced, set `metadata.namespace` (`defaultNamespace` does not apply to a kind of unknown scope); add its CustomResourceDefinition to the repository to have its scope checked, or relax `no-schema` for these files)",
            ]
        );
    }
}
