//! Reading the previous render back: its bindings become the scheduler's
//! memory (clusters, replicas, placement, observed affinity, fort, holds).

use crate::model::binding::BindingDoc;
use crate::model::layout::{self, Format, Tree};
use crate::model::meta::ObjectKey;
use crate::model::previous::PreviousRender;
use crate::model::record::{self, BindingRecord};

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
        format: Format::recorded(&files),
        files,
        unread,
        bindings,
    }
}

/// One binding file, or `None` when it does not parse.
fn binding(bytes: &[u8]) -> Option<(ObjectKey, BindingRecord)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let doc = serde_saphyr::from_str::<BindingDoc>(text).ok()?;
    Some(record::decode(&doc))
}
