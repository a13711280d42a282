//! Kubernetes' built-in API, per supported minor version.
//!
//! `kubernetes/v1.NN.json` are Kubernetes' published OpenAPI v3 documents
//! (`api/openapi-spec/v3` of the release), trimmed to what validation reads
//! by `conformance/kubernetes-schemas` (its doc says exactly how). Each is
//! parsed once per process, on first use.
//!
//! The default version is the one Karmada v1.19 is built against
//! (k8s.io/api v0.36): garrison gives Karmada v1.19's answers, and a template
//! its API server accepts must be accepted here. `kubernetesVersion` in
//! garrison.yaml chooses another.

use super::openapi::Builder;
use super::{Schema, SchemaId, Schemas, Types};
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The minor version used when garrison.yaml names none.
pub const DEFAULT_VERSION: &str = "1.36";

/// Supported minor versions and their trimmed documents.
const VERSIONS: &[(&str, &str)] = &[
    ("1.33", include_str!("kubernetes/v1.33.json")),
    ("1.34", include_str!("kubernetes/v1.34.json")),
    ("1.35", include_str!("kubernetes/v1.35.json")),
    ("1.36", include_str!("kubernetes/v1.36.json")),
    ("1.37", include_str!("kubernetes/v1.37.json")),
];

/// The replica counts garrison reads and divides. Kubernetes refuses a
/// negative one in Go code (`ValidateNonnegativeField`), not in its OpenAPI,
/// so the minimum is added here: `(definition, property)`.
pub const NON_NEGATIVE: &[(&str, &str)] = &[
    ("io.k8s.api.apps.v1.DeploymentSpec", "replicas"),
    ("io.k8s.api.apps.v1.ReplicaSetSpec", "replicas"),
    ("io.k8s.api.apps.v1.StatefulSetSpec", "replicas"),
    ("io.k8s.api.core.v1.ReplicationControllerSpec", "replicas"),
    ("io.k8s.api.batch.v1.JobSpec", "parallelism"),
    ("io.k8s.api.batch.v1.JobSpec", "completions"),
];

/// The minor versions garrison can check templates against.
pub fn versions() -> impl Iterator<Item = &'static str> {
    VERSIONS.iter().map(|(v, _)| *v)
}

/// The built-in API of `version`, falling back to the default version, then
/// to none at all (only CRDs are then known). The embedded documents always
/// read: `every_supported_version_reads_cleanly` checks it.
pub fn load_or_default(version: Option<&str>) -> &'static Builtin {
    static NONE: Builtin = Builtin {
        kubernetes: String::new(),
        nodes: Vec::new(),
        kinds: Vec::new(),
        object_meta: None,
    };
    version
        .and_then(load)
        .or_else(|| load(DEFAULT_VERSION))
        .unwrap_or(&NONE)
}

/// One version's built-in API, read.
#[derive(Debug)]
pub struct Builtin {
    /// The release, such as `v1.36.3`.
    pub kubernetes: String,
    pub nodes: Vec<Schema>,
    /// (group, version, kind, namespaced, root).
    pub kinds: Vec<(String, String, String, bool, SchemaId)>,
    pub object_meta: Option<SchemaId>,
}

#[derive(Deserialize)]
struct Document {
    kubernetes: String,
    kinds: Vec<KindEntry>,
    definitions: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct KindEntry {
    group: String,
    version: String,
    kind: String,
    namespaced: bool,
    schema: String,
}

/// The built-in API of minor version `version`, or `None` when it is not
/// one garrison has.
pub fn load(version: &str) -> Option<&'static Builtin> {
    static LOADED: [OnceLock<Option<Builtin>>; VERSIONS.len()] =
        [const { OnceLock::new() }; VERSIONS.len()];
    let index = VERSIONS.iter().position(|(v, _)| *v == version)?;
    LOADED[index]
        .get_or_init(|| read(VERSIONS[index].1))
        .as_ref()
}

/// Read one embedded document. It is garrison's own data, checked by
/// `every_supported_version_reads_cleanly`; a fault in it means no schema.
fn read(text: &str) -> Option<Builtin> {
    let document: Document = serde_json::from_str(text).ok()?;
    let mut schemas = Schemas {
        base: &[],
        extra: Vec::new(),
    };
    let mut names: Vec<&String> = document.definitions.keys().collect();
    names.sort();
    let definitions: HashMap<String, SchemaId> = names
        .iter()
        .map(|name| ((*name).clone(), schemas.push(Schema::default())))
        .collect();
    let mut builder = Builder::new(&mut schemas, &definitions);
    for name in &names {
        let mut path = vec![(*name).clone()];
        builder.build_into(definitions[*name], &document.definitions[*name], &mut path);
    }
    if !builder.faults.is_empty() {
        return None;
    }
    for (definition, property) in NON_NEGATIVE {
        let field = definitions
            .get(*definition)
            .and_then(|id| schemas.get(*id).property(property));
        if let Some(schema) = field.and_then(|id| schemas.get_mut(id)) {
            if schema.types.contains(Types::INTEGER) {
                schema.bounds.minimum = Some((0.0, false));
            }
        }
    }
    let kinds = document
        .kinds
        .iter()
        .filter_map(|k| {
            definitions.get(&k.schema).map(|id| {
                (
                    k.group.clone(),
                    k.version.clone(),
                    k.kind.clone(),
                    k.namespaced,
                    *id,
                )
            })
        })
        .collect();
    Some(Builtin {
        kubernetes: document.kubernetes,
        nodes: schemas.extra,
        kinds,
        object_meta: definitions
            .get("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
            .copied(),
    })
}
