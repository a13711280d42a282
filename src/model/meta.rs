//! Object identity and the metadata garrison reads from every document.

use super::selector::Labels;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// Karmada's claim of a template by a PropagationPolicy (name and
/// namespace) or a ClusterPropagationPolicy, on the template, on every
/// object made from it, and on its binding.
pub const PP_NAME_ANNOTATION: &str = "propagationpolicy.karmada.io/name";
pub const PP_NAMESPACE_ANNOTATION: &str = "propagationpolicy.karmada.io/namespace";
pub const CPP_NAME_ANNOTATION: &str = "clusterpropagationpolicy.karmada.io/name";
/// The other half of Karmada's claim, on the template: the claiming
/// policy's permanent id (random; garrison never writes one). Karmada's
/// detector honours the claim annotations only beside this label.
pub const PP_PERMANENT_ID_LABEL: &str = "propagationpolicy.karmada.io/permanent-id";
pub const CPP_PERMANENT_ID_LABEL: &str = "clusterpropagationpolicy.karmada.io/permanent-id";
/// The fort cluster (SPEC §3): on a template it pins the fort; on the
/// objects made from it and on its binding it records where the fort is.
pub const FORT_CLUSTER_ANNOTATION: &str = "garrison.dev/fort-cluster";

/// `metadata` of a typed input: every field of Kubernetes' ObjectMeta, so
/// that YAML exported from a cluster (uid, resourceVersion, managedFields, …)
/// loads, and a misspelt field does not. Only name, namespace, labels and
/// annotations mean anything to garrison.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: Labels,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    #[serde(default, skip_serializing)]
    pub generate_name: Option<Value>,
    #[serde(default, skip_serializing)]
    pub self_link: Option<Value>,
    #[serde(default, skip_serializing)]
    pub uid: Option<Value>,
    #[serde(default, skip_serializing)]
    pub resource_version: Option<Value>,
    #[serde(default, skip_serializing)]
    pub generation: Option<Value>,
    #[serde(default, skip_serializing)]
    pub creation_timestamp: Option<Value>,
    #[serde(default, skip_serializing)]
    pub deletion_timestamp: Option<Value>,
    #[serde(default, skip_serializing)]
    pub deletion_grace_period_seconds: Option<Value>,
    #[serde(default, skip_serializing)]
    pub owner_references: Option<Value>,
    #[serde(default, skip_serializing)]
    pub finalizers: Option<Value>,
    #[serde(default, skip_serializing)]
    pub managed_fields: Option<Value>,
}

/// An object's identity: apiVersion, kind, namespace and name (kio's `ResId`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

impl ObjectKey {
    /// The API group (`""` for the core group).
    pub fn group(&self) -> &str {
        group_of(&self.api_version)
    }
}

/// The group part of an apiVersion (`apps/v1` → `apps`, `v1` → ``).
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

impl fmt::Display for ObjectKey {
    /// `Kind/namespace/name`, or `Kind/name` when cluster-scoped: the form `explain` takes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{}/{}/{}", self.kind, ns, self.name),
            None => write!(f, "{}/{}", self.kind, self.name),
        }
    }
}

/// Kubernetes' DNS-1123 subdomain rule (most object names): at most 253
/// characters of `[a-z0-9.-]`, starting and ending alphanumeric.
pub fn dns_subdomain_fault(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("must not be empty".into());
    }
    if name.len() > 253 {
        return Some(format!(
            "is {} characters long; at most 253 are allowed",
            name.len()
        ));
    }
    for label in name.split('.') {
        if let Some(fault) = label_fault(
            label,
            253,
            "only lower-case letters, digits, `-` and `.` are allowed",
        ) {
            return Some(fault);
        }
    }
    None
}

/// Kubernetes' label key rule (`IsQualifiedName`): an optional DNS
/// subdomain prefix and `/`, then a name of at most 63 characters of
/// `[A-Za-z0-9_.-]`, starting and ending alphanumeric.
pub fn label_key_fault(key: &str) -> Option<String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(fault) = prefix.and_then(dns_subdomain_fault) {
        return Some(format!("has a prefix that {fault}"));
    }
    if name.is_empty() {
        return Some("must not be empty".into());
    }
    if name.len() > 63 {
        return Some(format!(
            "is {} characters long; at most 63 are allowed",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Some(format!(
            "contains {}; only letters, digits, `-`, `_` and `.` are allowed",
            describe_char(c)
        ));
    }
    let alphanumeric = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if !alphanumeric(name.chars().next()) || !alphanumeric(name.chars().last()) {
        return Some("must start and end with a letter or digit".into());
    }
    None
}

/// Kubernetes' label value rule (`IsValidLabelValue`): empty, or at most 63
/// characters of `[A-Za-z0-9_.-]`, starting and ending alphanumeric.
pub fn label_value_fault(value: &str) -> Option<String> {
    if value.is_empty() {
        return None;
    }
    label_key_fault(value)
        .filter(|_| !value.contains('/'))
        .or_else(|| {
            value.contains('/').then(|| {
                "contains `/`; only letters, digits, `-`, `_` and `.` are allowed".to_string()
            })
        })
}

/// Kubernetes' DNS-1123 label rule (namespaces, cluster names): at most 63
/// characters of `[a-z0-9-]`, starting and ending alphanumeric.
pub fn dns_label_fault(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("must not be empty".into());
    }
    label_fault(
        name,
        63,
        "only lower-case letters, digits and `-` are allowed",
    )
}

fn label_fault(label: &str, max: usize, allowed: &str) -> Option<String> {
    if label.len() > max {
        return Some(format!(
            "is {} characters long; at most {max} are allowed",
            label.len()
        ));
    }
    if let Some(c) = label
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Some(format!("contains {}; {allowed}", describe_char(c)));
    }
    if label.is_empty() || label.starts_with('-') || label.ends_with('-') {
        return Some("must start and end with a lower-case letter or digit".into());
    }
    None
}

/// The looser rule for names of kinds like ClusterRole (`system:aggregate-to-view`):
/// any characters but `/` and `%`, and not `.` or `..`.
pub fn path_segment_fault(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("must not be empty".into());
    }
    if name == "." || name == ".." {
        return Some(format!("`{name}` is not allowed"));
    }
    if name.len() > 253 {
        return Some(format!(
            "is {} characters long; at most 253 are allowed",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| matches!(c, '/' | '%') || c.is_control())
    {
        return Some(format!(
            "contains {}, which a name may not contain",
            describe_char(c)
        ));
    }
    None
}

fn describe_char(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        format!("the character U+{:04X}", c as u32)
    } else {
        format!("`{c}`")
    }
}

/// A SOPS-encrypted document: a top-level `sops` mapping. SOPS's MAC
/// covers every value, so such a document is neither checked, stored with
/// defaults nor changed (no API server could decode its ciphertext).
pub fn sops_encrypted(value: &Value) -> bool {
    value.get("sops").is_some_and(Value::is_object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_keys() {
        for good in ["group0", "Spill_1.a", "example.com/group"] {
            assert_eq!(label_key_fault(good), None, "{good}");
        }
        for bad in ["", "-a", "a b", "a/b/c", "Example.com/x", "x/"] {
            assert!(label_key_fault(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn subdomain_names() {
        assert_eq!(dns_subdomain_fault("nginx.v1-2"), None);
        assert!(dns_subdomain_fault("Nginx").is_some());
        assert!(dns_subdomain_fault("..").is_some());
        assert!(dns_subdomain_fault("a/b").is_some());
        assert!(dns_subdomain_fault("-a").is_some());
        assert!(dns_subdomain_fault(&"a".repeat(254)).is_some());
        assert!(dns_subdomain_fault("a\0b").is_some());
    }

    #[test]
    fn labels_have_no_dots() {
        assert_eq!(dns_label_fault("kube-system"), None);
        assert!(dns_label_fault("a.b").is_some());
        assert!(dns_label_fault(&"a".repeat(64)).is_some());
    }

    #[test]
    fn path_segment_names_allow_colons() {
        assert_eq!(path_segment_fault("system:aggregate-to-view"), None);
        assert!(path_segment_fault("..").is_some());
        assert!(path_segment_fault("a/b").is_some());
    }

    #[test]
    fn group_of_core_and_named_groups() {
        assert_eq!(group_of("v1"), "");
        assert_eq!(group_of("apps/v1"), "apps");
        assert_eq!(
            group_of("rbac.authorization.k8s.io/v1"),
            "rbac.authorization.k8s.io"
        );
    }
}
