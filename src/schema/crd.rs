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
    let mut broken = BTreeSet::new();
    for (file, node) in crds {
        let crd = Crd::read(node);
        let builtin_kind = kinds
            .keys()
            .any(|(g, _, k)| g == &crd.group && k == &crd.kind && !crds_define(&kinds, &crd.group));
        let mut faults = crd.faults(builtin_kind.then_some(builtin.kubernetes.as_str()));
        let (served, schema_faults) = crd.served(&mut schemas);
        faults.extend(schema_faults);
        if !faults.is_empty() {
            broken.insert((crd.group.clone(), crd.kind.clone()));
            for (path, message) in faults {
                let refs: Vec<&str> = path.iter().map(String::as_str).collect();
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidCrd,
                        format!("CustomResourceDefinition `{}`: {message}", crd.name),
                    )
                    .at(Origin {
                        file: *file,
                        pos: node.locate(&refs),
                    })
                    .help("fix the CustomResourceDefinition: its custom resources are checked against it"),
                );
            }
            continue;
        }
        for (version, root) in served {
            add_implicit_fields(&mut schemas, root, builtin.object_meta);
            let source = KindSource::Crd(Origin {
                file: *file,
                pos: node.pos,
            });
            kinds.insert(
                (crd.group.clone(), version, crd.kind.clone()),
                Kind {
                    root,
                    namespaced: crd.scope == "Namespaced",
                    source,
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

/// A schema fault: the path of keys that leads to it, and what is wrong.
type Fault = (Vec<String>, String);

/// What a CustomResourceDefinition says, as written.
struct Crd {
    value: Value,
    name: String,
    group: String,
    kind: String,
    plural: String,
    scope: String,
}

impl Crd {
    fn read(node: &Node) -> Crd {
        let value = node.to_value();
        let text = |pointer: &str| {
            value
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        Crd {
            name: text("/metadata/name"),
            group: text("/spec/group"),
            kind: text("/spec/names/kind"),
            plural: text("/spec/names/plural"),
            scope: text("/spec/scope"),
            value,
        }
    }

    /// What the API server would refuse in the CRD's names and scope; a
    /// kind Kubernetes already has (`builtin`: its release) cannot be defined.
    fn faults(&self, builtin: Option<&str>) -> Vec<Fault> {
        let at = |a: &str, b: &str| vec![a.to_string(), b.to_string()];
        let (group, kind, plural) = (&self.group, &self.kind, &self.plural);
        let mut faults = Vec::new();
        if self.name != format!("{plural}.{group}") {
            faults.push((
                at("metadata", "name"),
                format!("a CustomResourceDefinition must be named `<spec.names.plural>.<spec.group>`, here `{plural}.{group}`"),
            ));
        }
        if self.scope != "Namespaced" && self.scope != "Cluster" {
            faults.push((
                at("spec", "scope"),
                format!(
                    "`spec.scope` must be `Namespaced` or `Cluster`, not `{}`",
                    self.scope
                ),
            ));
        }
        if let Some(release) = builtin {
            faults.push((
                at("spec", "group"),
                format!("`{kind}` of `{group}` is a built-in kind of Kubernetes {release}"),
            ));
        }
        faults
    }

    /// The schema of every served version, read into `schemas`, and the
    /// faults found in them.
    fn served(&self, schemas: &mut Schemas) -> (Vec<(String, SchemaId)>, Vec<Fault>) {
        let no_definitions = HashMap::new();
        let versions = self
            .value
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let (mut served, mut faults) = (Vec::new(), Vec::new());
        for (i, version) in versions.iter().enumerate() {
            if version.get("served") != Some(&Value::Bool(true)) {
                continue;
            }
            let name = version
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let mut path: Vec<String> = [
                "spec",
                "versions",
                &i.to_string(),
                "schema",
                "openAPIV3Schema",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            let Some(schema) = version.pointer("/schema/openAPIV3Schema") else {
                faults.push((
                    path[..3].to_vec(),
                    format!("served version `{name}` has no `schema.openAPIV3Schema`, which apiextensions.k8s.io/v1 requires"),
                ));
                continue;
            };
            let mut builder = Builder::new(schemas, &no_definitions);
            let root = builder.build(schema, &mut path);
            faults.extend(builder.faults.into_iter().map(|f| (f.path, f.message)));
            served.push((name, root));
        }
        (served, faults)
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
