//! What a valid Kubernetes object looks like, and checking templates against
//! it as the API server does under `kubectl apply`'s strict field validation
//! (SPEC §10).
//!
//! A [`Catalog`] knows the kinds of one Kubernetes version's built-in API
//! (Kubernetes' published OpenAPI v3 documents, trimmed and embedded: see
//! [`builtin`]) plus the kinds of every CustomResourceDefinition in the
//! repository (their `openAPIV3Schema`: see [`crd`]). Both are read into one
//! arena of [`Schema`] nodes, the subset of OpenAPI that validation needs;
//! [`validate`] walks a positioned YAML tree against a kind's root schema and
//! returns every [`Fault`] with its line and column.
//!
//! What is checked: unknown fields (unless `x-kubernetes-preserve-unknown-fields`),
//! types (`x-kubernetes-int-or-string`, quantities as strings or numbers),
//! int32/int64 ranges, base64 (`format: byte`) and RFC 3339 times
//! (`format: date-time`), required fields, enums, bounds, lengths, patterns,
//! `allOf`/`anyOf`/`oneOf`/`not`, list uniqueness (`x-kubernetes-list-type`),
//! embedded resources. What is not: CEL rules (`x-kubernetes-validations`),
//! other string formats, and the checks built-in kinds make in Go code
//! beyond a few garrison depends on ([`builtin::NON_NEGATIVE`]).
//! `null` is accepted everywhere: Kubernetes decodes it as the zero value of
//! a built-in field and prunes it from a custom resource.

pub mod builtin;
pub mod crd;
pub mod decode;
mod openapi;
mod validate;

pub use validate::{resolve, validate, validate_object, Fault, FaultKind, PathFault};

use crate::diag::Origin;
use regex::Regex;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// An index into a [`Catalog`]'s schemas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SchemaId(u32);

/// The JSON types a schema allows, as bits; empty allows any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Types(u8);

impl Types {
    pub const OBJECT: Types = Types(1);
    pub const ARRAY: Types = Types(2);
    pub const STRING: Types = Types(4);
    pub const INTEGER: Types = Types(8);
    pub const NUMBER: Types = Types(16);
    pub const BOOLEAN: Types = Types(32);

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn contains(self, other: Types) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn with(self, other: Types) -> Types {
        Types(self.0 | other.0)
    }

    fn from_name(name: &str) -> Option<Types> {
        Some(match name {
            "object" => Types::OBJECT,
            "array" => Types::ARRAY,
            "string" => Types::STRING,
            "integer" => Types::INTEGER,
            "number" => Types::NUMBER,
            "boolean" => Types::BOOLEAN,
            _ => return None,
        })
    }

    /// "a string or a number", for messages.
    pub fn describe(self) -> String {
        let names: Vec<&str> = [
            (Types::OBJECT, "a mapping"),
            (Types::ARRAY, "a list"),
            (Types::STRING, "a string"),
            (Types::INTEGER, "an integer"),
            (Types::NUMBER, "a number"),
            (Types::BOOLEAN, "a boolean"),
        ]
        .into_iter()
        .filter(|(t, _)| self.contains(*t))
        .map(|(_, name)| name)
        .collect();
        match names.split_last() {
            None => "any value".into(),
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        }
    }
}

/// The string and number formats garrison checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Int32,
    Int64,
    /// Base64 (a Secret's `data`).
    Byte,
    /// RFC 3339 (`metav1.Time`).
    DateTime,
}

/// What a mapping may hold besides its declared properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Additional {
    /// Nothing else (`additionalProperties: false`, or properties declared).
    Closed,
    /// Anything.
    Any,
    /// Any key, each value of this schema (a map such as `labels`).
    Schema(SchemaId),
}

/// `x-kubernetes-list-type`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ListType {
    #[default]
    Atomic,
    /// Items are unique.
    Set,
    /// Items are unique by these keys.
    Map(Vec<String>),
}

/// Numeric, length and count bounds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bounds {
    /// (bound, exclusive)
    pub minimum: Option<(f64, bool)>,
    pub maximum: Option<(f64, bool)>,
    pub multiple_of: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
}

/// One schema node: the part of OpenAPI v3 validation reads.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    pub types: Types,
    pub format: Option<Format>,
    /// Sorted by name.
    pub properties: Vec<(String, SchemaId)>,
    /// `None`: not given (closed when properties are declared, open otherwise).
    pub additional: Option<Additional>,
    pub items: Option<SchemaId>,
    pub required: Vec<String>,
    pub enumeration: Vec<Value>,
    /// A CustomResourceDefinition's `default`, which the API server fills in
    /// before it validates (built-in defaults live in Go code and are not here).
    pub default: Option<Value>,
    pub int_or_string: bool,
    pub preserve_unknown: bool,
    pub embedded_resource: bool,
    pub bounds: Bounds,
    pub pattern: Option<Regex>,
    pub all_of: Vec<SchemaId>,
    pub any_of: Vec<SchemaId>,
    pub one_of: Vec<SchemaId>,
    pub not: Option<SchemaId>,
    pub list: ListType,
}

impl Schema {
    /// The JSON types the field takes: an int-or-string field takes an
    /// integer or a string, whatever its declared type.
    fn allowed_types(&self) -> Types {
        if self.int_or_string {
            Types::INTEGER.with(Types::STRING)
        } else {
            self.types
        }
    }

    pub fn property(&self, name: &str) -> Option<SchemaId> {
        self.properties
            .binary_search_by(|(key, _)| key.as_str().cmp(name))
            .ok()
            .map(|i| self.properties[i].1)
    }

    /// What a mapping may hold beyond its properties.
    pub fn others(&self) -> Additional {
        if self.preserve_unknown {
            return Additional::Any;
        }
        match self.additional {
            Some(additional) => additional,
            None if self.types.is_empty() && self.properties.is_empty() => Additional::Any,
            None => Additional::Closed,
        }
    }
}

/// Schema nodes: the built-in API's (shared, read once) then the
/// repository's CustomResourceDefinitions'.
#[derive(Debug)]
pub struct Schemas {
    base: &'static [Schema],
    extra: Vec<Schema>,
}

impl Schemas {
    pub fn get(&self, id: SchemaId) -> &Schema {
        static EMPTY: std::sync::OnceLock<Schema> = std::sync::OnceLock::new();
        let index = id.0 as usize;
        match index.checked_sub(self.base.len()) {
            None => &self.base[index],
            Some(extra) => self
                .extra
                .get(extra)
                .unwrap_or_else(|| EMPTY.get_or_init(Schema::default)),
        }
    }

    fn push(&mut self, schema: Schema) -> SchemaId {
        let id = SchemaId(u32::try_from(self.base.len() + self.extra.len()).unwrap_or(u32::MAX));
        self.extra.push(schema);
        id
    }

    fn get_mut(&mut self, id: SchemaId) -> Option<&mut Schema> {
        let index = (id.0 as usize).checked_sub(self.base.len())?;
        self.extra.get_mut(index)
    }
}

/// Where a kind's schema comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KindSource {
    /// Kubernetes' built-in API.
    Builtin,
    /// A CustomResourceDefinition in the repository, written here.
    Crd(Origin),
}

/// One served kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kind {
    pub root: SchemaId,
    pub namespaced: bool,
    pub source: KindSource,
}

/// What the catalog says about an apiVersion and kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup<'a> {
    Known(&'a Kind),
    /// The group is built in and has no such kind or version, or a CRD of the
    /// repository defines the kind but does not serve this version: the API
    /// server would not serve it.
    NotServed {
        reason: String,
        help: String,
        /// The field at fault: `apiVersion` (a group or version) or `kind`.
        field: &'static str,
    },
    /// Nothing is known about the group.
    Unknown,
}

/// The kinds garrison can check, for one render.
#[derive(Debug)]
pub struct Catalog {
    /// The Kubernetes release the built-in kinds come from, such as `v1.36.3`.
    pub kubernetes: &'static str,
    schemas: Schemas,
    /// By (group, version, kind).
    kinds: BTreeMap<(String, String, String), Kind>,
    /// `metav1.ObjectMeta`, which every object's `metadata` is.
    object_meta: Option<SchemaId>,
    /// A digest of everything the catalog was made from (the built-in
    /// release and every CRD as written), for caching what was checked.
    pub fingerprint: Vec<u8>,
    /// (group, kind) of CRDs of the repository that could not be read: their
    /// fault is reported there, not again at each custom resource.
    broken: BTreeSet<(String, String)>,
}

impl Catalog {
    pub fn schemas(&self) -> &Schemas {
        &self.schemas
    }

    pub fn object_meta(&self) -> Option<SchemaId> {
        self.object_meta
    }

    /// Whether the repository's CRD for this kind could not be read.
    pub fn is_broken(&self, api_version: &str, kind: &str) -> bool {
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        self.broken.contains(&(group.to_string(), kind.to_string()))
    }

    /// The kind `kind` of `api_version`.
    pub fn lookup(&self, api_version: &str, kind: &str) -> Lookup<'_> {
        let (group, version) = match api_version.rsplit_once('/') {
            Some((group, version)) => (group, version),
            None => ("", api_version),
        };
        if let Some(found) =
            self.kinds
                .get(&(group.to_string(), version.to_string(), kind.to_string()))
        {
            return Lookup::Known(found);
        }
        let in_group: Vec<(&String, &String, &Kind)> = self
            .kinds
            .iter()
            .filter(|((g, _, _), _)| g == group)
            .map(|((_, v, k), entry)| (v, k, entry))
            .collect();
        let Some((_, _, any)) = in_group.first() else {
            if group == "extensions" {
                return Lookup::NotServed {
                    reason: "the `extensions` API group is no longer served (Kubernetes removed its last kinds in 1.22)".into(),
                    help: "use `apps/v1` for Deployments, DaemonSets and ReplicaSets, `networking.k8s.io/v1` for Ingresses and NetworkPolicies".into(),
                    field: "apiVersion",
                };
            }
            return self.near_group(group, version, kind);
        };
        let defined_by = match &any.source {
            KindSource::Builtin => format!("Kubernetes {}", self.kubernetes),
            KindSource::Crd(_) => "the CustomResourceDefinition in the repository".to_string(),
        };
        let group_name = if group.is_empty() { "core" } else { group };
        let versions_of_kind: Vec<&str> = in_group
            .iter()
            .filter(|(_, k, _)| k.as_str() == kind)
            .map(|(v, _, _)| v.as_str())
            .collect();
        if !versions_of_kind.is_empty() {
            return Lookup::NotServed {
                reason: format!("`{kind}` is not served as `{api_version}` by {defined_by}"),
                help: format!(
                    "use {}",
                    versions_of_kind
                        .iter()
                        .map(|v| format!(
                            "`apiVersion: {}`",
                            if group.is_empty() {
                                v.to_string()
                            } else {
                                format!("{group}/{v}")
                            }
                        ))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
                field: "apiVersion",
            };
        }
        // A group of CRDs is open: the repository may hold the CRDs of some
        // of its kinds and not of others.
        if matches!(any.source, KindSource::Crd(_)) {
            return Lookup::Unknown;
        }
        let kinds: Vec<&str> = in_group.iter().map(|(_, k, _)| k.as_str()).collect();
        let help = match crate::diag::closest(kind, kinds.iter().copied()) {
            Some(near) => format!("did you mean `{near}`?"),
            None => format!("check the kind; the {group_name} API group has no `{kind}`"),
        };
        Lookup::NotServed {
            reason: format!("the {group_name} API group of {defined_by} has no kind `{kind}`"),
            help,
            field: "kind",
        }
    }
}

impl Catalog {
    /// An unknown `group` one edit away from a served group that has
    /// `kind` (`app` for `apps`, `rollout.kruise.io` for the repository's
    /// `rollouts.kruise.io`) is a misspelling: read as a kind without a
    /// schema, the template would be rendered unchecked and left by every
    /// policy that selects the group it meant. Anything else is unknown.
    fn near_group(&self, group: &str, version: &str, kind: &str) -> Lookup<'_> {
        let mut near: BTreeMap<&str, (Vec<&str>, &KindSource)> = BTreeMap::new();
        for ((g, v, k), entry) in &self.kinds {
            if k == kind && crate::diag::edit_distance(g, group) == 1 {
                let (versions, _) = near.entry(g).or_insert((Vec::new(), &entry.source));
                versions.push(v);
            }
        }
        let Some((served, (versions, source))) = near.into_iter().next() else {
            return Lookup::Unknown;
        };
        let api_version = |v: &str| {
            if served.is_empty() {
                v.to_string()
            } else {
                format!("{served}/{v}")
            }
        };
        let suggested = if versions.contains(&version) {
            format!("`apiVersion: {}`", api_version(version))
        } else {
            versions
                .iter()
                .map(|v| format!("`apiVersion: {}`", api_version(v)))
                .collect::<Vec<_>>()
                .join(" or ")
        };
        let served_by = match source {
            KindSource::Builtin => format!("Kubernetes {}", self.kubernetes),
            KindSource::Crd(_) => "the CustomResourceDefinition in the repository".to_string(),
        };
        let shown = |g: &str| {
            if g.is_empty() {
                "core".to_string()
            } else {
                format!("`{g}`")
            }
        };
        Lookup::NotServed {
            reason: format!(
                "no API group `{group}` is served, by Kubernetes {} or by a CustomResourceDefinition of the repository; the {} group of {served_by} one letter away has `{kind}`",
                self.kubernetes,
                shown(served)
            ),
            help: format!("did you mean {suggested}?"),
            field: "apiVersion",
        }
    }
}

#[cfg(test)]
mod tests;
