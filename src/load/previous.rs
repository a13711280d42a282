//! Reading the previous render back: its bindings become the scheduler's
//! memory (clusters, replicas, placement, observed affinity, fort, holds).

use crate::emit::{APPLIED_PLACEMENT_ANNOTATION, HELD_ANNOTATION, WITHHELD_ANNOTATION};
use crate::fort::FORT_CLUSTER_ANNOTATION;
use crate::model::binding::BindingDoc;
use crate::model::layout::{self, Tree};
use crate::model::meta::ObjectKey;
use crate::model::previous::{PreviousBinding, PreviousRender};

/// Interpret a previous output tree. Files that do not parse are ignored:
/// the bytes are still kept for paused clusters, and the schedule of an
/// application without a readable binding is simply recomputed.
pub fn from_tree(files: Tree) -> PreviousRender {
    from_partial(
        files,
        std::collections::BTreeSet::new(),
        &super::cache::Cache::disabled(),
    )
}

/// [`from_tree`] for a render read in part: `files` must hold every binding;
/// `unread` lists the other files that exist. Bindings read before come
/// from `cache`.
pub fn from_partial(
    files: Tree,
    unread: std::collections::BTreeSet<String>,
    cache: &super::cache::Cache,
) -> PreviousRender {
    use rayon::prelude::*;
    let texts: Vec<&[u8]> = files
        .iter()
        .filter(|(p, _)| layout::is_binding(p))
        .map(|(_, bytes)| bytes.as_slice())
        .collect();
    // YAML parsing is the slow part of reading a render back: in parallel.
    let bindings = texts
        .par_iter()
        .filter_map(|bytes| cache.binding(bytes, || binding(bytes)))
        .collect();
    PreviousRender {
        files,
        unread,
        bindings,
    }
}

/// One binding file, or `None` when it does not parse.
fn binding(bytes: &[u8]) -> Option<(ObjectKey, PreviousBinding)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let doc = serde_saphyr::from_str::<BindingDoc>(text).ok()?;
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
        digest: annotations.get(crate::reuse::DIGEST_ANNOTATION).cloned(),
        held: annotations
            .get(HELD_ANNOTATION)
            .map(|h| cluster_list(h))
            .unwrap_or_default(),
        withheld: annotations
            .get(WITHHELD_ANNOTATION)
            .map(|w| cluster_list(w)),
    };
    Some((key, previous))
}

/// A comma-separated list of cluster names (empty: none).
fn cluster_list(text: &str) -> std::collections::BTreeSet<String> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}
