//! Reading the previous render back: its bindings become the scheduler's
//! memory (clusters, replicas, placement, observed affinity, fort, holds).

use crate::emit::{Tree, APPLIED_PLACEMENT_ANNOTATION, HELD_ANNOTATION};
use crate::fort::FORT_CLUSTER_ANNOTATION;
use crate::model::binding::BindingDoc;
use crate::model::meta::ObjectKey;
use crate::model::previous::{PreviousBinding, PreviousRender};

/// Interpret a previous output tree. Files that do not parse are ignored:
/// the bytes are still kept for paused clusters, and the schedule of an
/// application without a readable binding is simply recomputed.
pub fn from_tree(files: Tree) -> PreviousRender {
    let mut bindings = std::collections::BTreeMap::new();
    for (_, bytes) in files.iter().filter(|(p, _)| p.starts_with("bindings/")) {
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        let Ok(doc) = serde_saphyr::from_str::<BindingDoc>(text) else {
            continue;
        };
        let resource = &doc.spec.resource;
        let key = ObjectKey {
            api_version: resource.api_version.clone(),
            kind: resource.kind.clone(),
            namespace: resource.namespace.clone(),
            name: resource.name.clone(),
        };
        let annotations = &doc.metadata.annotations;
        let previous = PreviousBinding {
            clusters: doc
                .spec
                .clusters
                .iter()
                .map(|c| {
                    (
                        c.name.clone(),
                        u64::try_from(c.replicas.unwrap_or(0)).unwrap_or(0),
                    )
                })
                .collect(),
            replicas: u64::try_from(doc.spec.replicas.unwrap_or(0)).unwrap_or(0),
            placement: annotations.get(APPLIED_PLACEMENT_ANNOTATION).cloned(),
            affinity_name: doc
                .status
                .as_ref()
                .and_then(|s| s.scheduler_observing_affinity_name.clone()),
            fort: annotations.get(FORT_CLUSTER_ANNOTATION).cloned(),
            held: annotations
                .get(HELD_ANNOTATION)
                .map(|h| {
                    h.split(',')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        };
        bindings.insert(key, previous);
    }
    PreviousRender { files, bindings }
}
