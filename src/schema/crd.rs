//! The repository's CustomResourceDefinitions (apiextensions.k8s.io/v1) as
//! kinds of the [`Catalog`].
//!
//! Each served version of a CRD is a kind whose schema is its
//! `openAPIV3Schema`, with what the API server adds implicitly: `apiVersion`
//! and `kind` are strings and `metadata` is an ObjectMeta at the root and in
//! every `x-kubernetes-embedded-resource`. A CRD whose schema garrison cannot
//! use is error G0113 at the keyword, and its kinds are left unknown.

use super::builtin::Builtin;
use super::openapi::Builder;
use super::{Catalog, Kind, KindSource, Schema, SchemaId, Schemas, Types};
use crate::diag::{Code, Diagnostic, Diagnostics, FileId, Origin};
use crate::node::Node;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The group and kind of the CRD object itself.
pub const CRD_GROUP: &str = "apiextensions.k8s.io";
pub const CRD_KIND: &str = "CustomResourceDefinition";

/// The catalog of `builtin` plus the CustomResourceDefinitions `crds`
/// (each a document of the repository). Faults in them are diagnostics.
pub fn catalog(
    builtin: &'static Builtin,
    crds: &[(FileId, &Node)],
    diagnostics: &mut Diagnostics,
) -> Catalog {
    let mut schemas = Schemas {
        base: &builtin.nodes,
        extra: Vec::new(),
    };
    let mut kinds: BTreeMap<(String, String, String), Kind> = builtin
        .kinds
        .iter()
        .map(|(group, version, kind, namespaced, root)| {
            (
                (group.clone(), version.clone(), kind.clone()),
                Kind {
                    root: *root,
                    namespaced: *namespaced,
                    source: KindSource::Builtin,
                },
            )
        })
        .collect();
    let no_definitions = HashMap::new();
    let mut broken = BTreeSet::new();
    for (file, node) in crds {
        let value = node.to_value();
        let at = |path: &[String]| {
            let refs: Vec<&str> = path.iter().map(String::as_str).collect();
            Origin {
                file: *file,
                pos: node.locate(&refs),
            }
        };
        let text = |pointer: &str| {
            value
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let (group, kind, plural, scope, name) = (
            text("/spec/group"),
            text("/spec/names/kind"),
            text("/spec/names/plural"),
            text("/spec/scope"),
            text("/metadata/name"),
        );
        let mut faults = Vec::new();
        if name != format!("{plural}.{group}") {
            faults.push((
                vec!["metadata".to_string(), "name".to_string()],
                format!("a CustomResourceDefinition must be named `<spec.names.plural>.<spec.group>`, here `{plural}.{group}`"),
            ));
        }
        let namespaced = match scope.as_str() {
            "Namespaced" => true,
            "Cluster" => false,
            other => {
                faults.push((
                    vec!["spec".to_string(), "scope".to_string()],
                    format!("`spec.scope` must be `Namespaced` or `Cluster`, not `{other}`"),
                ));
                true
            }
        };
        if kinds
            .keys()
            .any(|(g, _, k)| g == &group && k == &kind && !crds_define(&kinds, &group))
        {
            faults.push((
                vec!["spec".to_string(), "group".to_string()],
                format!(
                    "`{kind}` of `{group}` is a built-in kind of Kubernetes {}",
                    builtin.kubernetes
                ),
            ));
        }
        let versions = value
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut served = Vec::new();
        for (i, version) in versions.iter().enumerate() {
            if version.get("served") != Some(&Value::Bool(true)) {
                continue;
            }
            let version_name = version
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let mut path = vec![
                "spec".to_string(),
                "versions".to_string(),
                i.to_string(),
                "schema".to_string(),
                "openAPIV3Schema".to_string(),
            ];
            let Some(schema) = version.pointer("/schema/openAPIV3Schema") else {
                faults.push((
                    path[..3].to_vec(),
                    format!("served version `{version_name}` has no `schema.openAPIV3Schema`, which apiextensions.k8s.io/v1 requires"),
                ));
                continue;
            };
            let mut builder = Builder::new(&mut schemas, &no_definitions);
            let root = builder.build(schema, &mut path);
            faults.extend(builder.faults.into_iter().map(|f| (f.path, f.message)));
            served.push((version_name, root));
        }
        if !faults.is_empty() {
            broken.insert((group.clone(), kind.clone()));
            for (path, message) in faults {
                diagnostics.push(
                    Diagnostic::error(Code::InvalidCrd, format!("CustomResourceDefinition `{name}`: {message}"))
                        .at(at(&path))
                        .help("fix the CustomResourceDefinition: its custom resources are checked against it"),
                );
            }
            continue;
        }
        for (version, root) in served {
            add_implicit_fields(&mut schemas, root, builtin.object_meta);
            kinds.insert(
                (group.clone(), version, kind.clone()),
                Kind {
                    root,
                    namespaced,
                    source: KindSource::Crd(Origin {
                        file: *file,
                        pos: node.pos,
                    }),
                },
            );
        }
    }
    Catalog {
        kubernetes: &builtin.kubernetes,
        schemas,
        kinds,
        object_meta: builtin.object_meta,
        fingerprint: fingerprint(&builtin.kubernetes, crds),
        broken,
    }
}

/// What a catalog depends on: the built-in release and every CRD, as written.
fn fingerprint(kubernetes: &str, crds: &[(FileId, &Node)]) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(kubernetes.as_bytes());
    for (_, node) in crds {
        hasher.update(b"\0");
        hasher.update(node.to_value().to_string().as_bytes());
    }
    hasher.finalize().to_vec()
}

/// Whether the kinds of `group` come from CRDs (not built in).
fn crds_define(kinds: &BTreeMap<(String, String, String), Kind>, group: &str) -> bool {
    kinds
        .iter()
        .any(|((g, _, _), k)| g == group && matches!(k.source, KindSource::Crd(_)))
}

/// `apiVersion`, `kind` and `metadata` at the root of a custom resource and
/// of every embedded resource below it, as the API server adds them.
fn add_implicit_fields(schemas: &mut Schemas, root: SchemaId, object_meta: Option<SchemaId>) {
    let mut embedded = vec![root];
    collect_embedded(schemas, root, &mut embedded, &mut Vec::new());
    for id in embedded {
        let string = schemas.push(Schema {
            types: Types::STRING,
            ..Schema::default()
        });
        let Some(schema) = schemas.get_mut(id) else {
            continue;
        };
        for (name, field) in [
            ("apiVersion", Some(string)),
            ("kind", Some(string)),
            ("metadata", object_meta),
        ] {
            let Some(field) = field else { continue };
            match schema
                .properties
                .binary_search_by(|(key, _)| key.as_str().cmp(name))
            {
                Ok(i) if name == "metadata" => schema.properties[i].1 = field,
                Ok(_) => {}
                Err(i) => schema.properties.insert(i, (name.to_string(), field)),
            }
        }
    }
}

/// Every `x-kubernetes-embedded-resource` node reachable from `id`.
fn collect_embedded(
    schemas: &Schemas,
    id: SchemaId,
    found: &mut Vec<SchemaId>,
    seen: &mut Vec<SchemaId>,
) {
    if seen.contains(&id) {
        return;
    }
    seen.push(id);
    let schema = schemas.get(id);
    if schema.embedded_resource && !found.contains(&id) {
        found.push(id);
    }
    let children = schema
        .properties
        .iter()
        .map(|(_, c)| *c)
        .chain(schema.items)
        .chain(match schema.additional {
            Some(super::Additional::Schema(c)) => Some(c),
            _ => None,
        })
        .chain(
            schema
                .all_of
                .iter()
                .chain(&schema.any_of)
                .chain(&schema.one_of)
                .copied(),
        )
        .collect::<Vec<_>>();
    for child in children {
        collect_embedded(schemas, child, found, seen);
    }
}
