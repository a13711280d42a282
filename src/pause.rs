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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::{KarmadaClusterDoc, ManagedClusterDoc};

    fn origin() -> crate::diag::Origin {
        crate::diag::Origin {
            file: crate::diag::FileId(0),
            pos: crate::node::Pos::default(),
        }
    }

    fn read<T: serde::de::DeserializeOwned>(yaml: &str) -> T {
        match serde_saphyr::from_str(yaml) {
            Ok(doc) => doc,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_managed_cluster_pauses_with_sync_paused() {
        let fleet = vec![
            Cluster::from_clusternet(
                read::<ManagedClusterDoc>(
                    "metadata: {name: gz-1, namespace: clusternet-dhxfs}\nspec: {syncPaused: true}",
                ),
                origin(),
            ),
            Cluster::from_clusternet(
                read::<ManagedClusterDoc>("metadata: {name: sh-1, namespace: clusternet-5l82l}"),
                origin(),
            ),
            Cluster::from_karmada(
                read::<KarmadaClusterDoc>(
                    "metadata: {name: k-1, annotations: {garrison.dev/sync-paused: 'true'}}",
                ),
                origin(),
            ),
        ];
        assert_eq!(
            paused_clusters(&fleet),
            BTreeSet::from(["gz-1".to_string(), "k-1".to_string()])
        );
        assert_eq!(held_for(None, &fleet, &paused_clusters(&fleet)).len(), 2);
    }
}
