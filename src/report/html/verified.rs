//! The report's section on a Karmada control plane (`report --works`):
//! the render compared with the manifests of its Works, as `garrison
//! verify` compares them, each difference tied to the matrix row of its
//! object so the page marks the cell.

use super::Row;
use crate::model::meta::group_of;
use serde::Serialize;
use std::collections::HashMap;

/// What `verify` found, per cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verification {
    /// The Works files, as the command line named them.
    pub works: Vec<String>,
    /// Every difference explained.
    pub agrees: bool,
    pub clusters: Vec<VerifiedCluster>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifiedCluster {
    pub name: String,
    /// How many objects both deliver alike.
    pub matching: usize,
    pub differences: Vec<VerifiedDifference>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifiedDifference {
    /// The object as `verify` names it (`Kind.group/namespace/name`).
    pub object: String,
    /// `differs`, `only-karmada` or `only-garrison`.
    pub kind: &'static str,
    /// The unified diff from Karmada's manifest to garrison's.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub explained: bool,
    /// The index of the object's row in [`super::Report::rows`], when the
    /// matrix has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<usize>,
    /// The object's group, kind, namespace and name, to find its row.
    #[serde(skip)]
    pub target: Option<Target>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub group: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

/// `verification` with each difference's row found among `rows`.
pub fn resolve(
    verification: &Verification,
    rows: &[Row],
    kinds: &[String],
    namespaces: &[String],
) -> Verification {
    let by_target: HashMap<Target, usize> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let namespace = namespaces.get(row.ns).filter(|n| !n.is_empty()).cloned();
            let target = Target {
                group: group_of(&row.api_version).to_string(),
                kind: kinds.get(row.kind).cloned().unwrap_or_default(),
                namespace,
                name: row.name.clone(),
            };
            (target, i)
        })
        .collect();
    let mut resolved = verification.clone();
    for difference in resolved
        .clusters
        .iter_mut()
        .flat_map(|c| &mut c.differences)
    {
        difference.row = difference
            .target
            .as_ref()
            .and_then(|t| by_target.get(t))
            .copied();
    }
    resolved
}
