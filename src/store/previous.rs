//! The previous render as a render reads it: every file, or only the
//! bindings and the marker with the other files read when the render
//! compares or copies them; and whether a new render holds what it held.
//! The format it records is read once, into
//! [`crate::model::previous::PreviousRender::format`].

use crate::model::layout::{self, Tree};
use std::collections::BTreeSet;

/// The previous render as a render starts from: every file read, or (for a
/// reusing render) only the bindings and the marker, the other files
/// listed in `unread` and read on demand by `fetch`.
pub struct Previous<'a> {
    pub files: Tree,
    pub unread: BTreeSet<String>,
    pub fetch: Option<&'a Fetch<'a>>,
}

/// Reads the named files of the previous render.
pub type Fetch<'a> = dyn Fn(&[String]) -> anyhow::Result<Tree> + Sync + 'a;

impl<'a> Previous<'a> {
    /// The previous render known by its `listing`, as a reusing render
    /// reads it: the bindings (the scheduler's memory) and the marker now,
    /// through `fetch`, any other file only when the render compares or
    /// copies it. With `everything`, every file now.
    pub fn listed(
        listing: impl IntoIterator<Item = String>,
        everything: bool,
        fetch: &'a Fetch<'a>,
    ) -> anyhow::Result<Previous<'a>> {
        let mut now = Vec::new();
        let mut unread = BTreeSet::new();
        for path in listing {
            if everything || layout::is_binding(&path) || path == layout::MARKER_FILE {
                now.push(path);
            } else {
                unread.insert(path);
            }
        }
        Ok(Previous {
            files: fetch(&now)?,
            unread,
            fetch: Some(fetch),
        })
    }
}

impl From<Tree> for Previous<'_> {
    fn from(files: Tree) -> Self {
        Previous {
            files,
            unread: BTreeSet::new(),
            fetch: None,
        }
    }
}

/// Whether `new` (plus the `kept` files, left as they are) renders what
/// `old` (plus the `unread` files) held, provenance files aside: every
/// written file has its previous bytes, and every previous file is written
/// again or kept.
pub fn unchanged(
    old: &Tree,
    unread: &BTreeSet<String>,
    new: &Tree,
    kept: &BTreeSet<String>,
) -> bool {
    let provenance = |p: &str| layout::PROVENANCE_FILES.contains(&p);
    new.iter()
        .filter(|(p, _)| !provenance(p))
        .all(|(p, bytes)| old.get(p) == Some(bytes))
        && old
            .keys()
            .filter(|p| !provenance(p))
            .all(|p| new.contains_key(p) || kept.contains(p))
        && unread.iter().all(|p| provenance(p) || kept.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::layout::text_tree as tree;

    fn set(paths: &[&str]) -> BTreeSet<String> {
        paths.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn unchanged_ignores_provenance_and_counts_kept_and_unread_files() {
        let old = tree(&[("a", "1"), (layout::MARKER_FILE, "m1")]);
        let none = set(&[]);
        let same = tree(&[("a", "1"), (layout::MARKER_FILE, "m2")]);
        assert!(unchanged(&old, &none, &same, &none), "provenance aside");
        assert!(
            !unchanged(&old, &none, &tree(&[("a", "2")]), &none),
            "bytes changed"
        );
        assert!(!unchanged(&old, &none, &tree(&[]), &none), "a file gone");
        assert!(
            unchanged(&old, &none, &tree(&[]), &set(&["a"])),
            "kept unread"
        );
        assert!(
            !unchanged(&old, &none, &tree(&[("a", "1"), ("b", "1")]), &none),
            "a file added"
        );
        let unread = set(&["b", layout::MARKER_FILE]);
        assert!(
            !unchanged(&old, &unread, &same, &none),
            "an unread file gone"
        );
        assert!(
            unchanged(&old, &unread, &same, &set(&["b"])),
            "an unread file kept"
        );
    }
}
