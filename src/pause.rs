//! Paused clusters and suspended dispatching (SPEC §5): which clusters are
//! held for an application.
//!
//! A cluster is paused for every application by the `garrison.dev/sync-paused`
//! annotation (Karmada `Cluster`) or `spec.syncPaused` (Clusternet
//! `ManagedCluster`). A PropagationPolicy's `spec.suspension.dispatching`
//! holds every cluster for its applications, `dispatchingOnClusters` only
//! the named ones. A held cluster keeps what it had and gets nothing new;
//! its files are copied from the previous render by `emit`.

use crate::model::cluster::Cluster;
use crate::model::policy::PropagationSpec;
use std::collections::BTreeSet;

/// Clusters paused for the whole fleet.
pub fn paused_clusters(fleet: &[Cluster]) -> BTreeSet<String> {
    fleet
        .iter()
        .filter(|c| c.paused)
        .map(|c| c.name.clone())
        .collect()
}

/// Clusters held for the applications of a policy: the paused ones plus
/// those its suspension names.
pub fn held_for(
    spec: Option<&PropagationSpec>,
    fleet: &[Cluster],
    paused: &BTreeSet<String>,
) -> BTreeSet<String> {
    let mut held = paused.clone();
    if let Some(suspension) = spec.and_then(|s| s.suspension.as_ref()) {
        if suspension.dispatching == Some(true) {
            held.extend(fleet.iter().map(|c| c.name.clone()));
        }
        if let Some(on) = &suspension.dispatching_on_clusters {
            held.extend(
                on.cluster_names
                    .iter()
                    .filter(|n| fleet.iter().any(|c| &c.name == *n))
                    .cloned(),
            );
        }
    }
    held
}
