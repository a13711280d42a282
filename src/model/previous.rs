//! The previous render: the only state garrison has (SPEC §1).
//!
//! It is the last output tree (the files read, byte for byte, and the rest
//! listed), plus the bindings read back from it. Bindings make forts sticky
//! and Divided schedules stable, and their render digests let unchanged
//! applications keep their files; the bytes are what a paused cluster keeps.

use super::layout::Format;
use super::meta::ObjectKey;
use super::record::BindingRecord;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreviousRender {
    /// The files of the previous output that were read, by path relative
    /// to its root: all of them, unless the render reads lazily.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Files that exist but were not read: a reusing render reads only
    /// what it compares or copies, and keeps the rest in place.
    pub unread: BTreeSet<String>,
    pub bindings: BTreeMap<ObjectKey, BindingRecord>,
    /// The output format its marker records; `None` where there is no
    /// render (or no marker) yet.
    pub format: Option<Format>,
}

impl PreviousRender {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.unread.is_empty()
    }

    /// The files under `clusters/<cluster>/`, by full path.
    pub fn cluster_files<'a>(
        &'a self,
        cluster: &str,
    ) -> impl Iterator<Item = (&'a String, &'a Vec<u8>)> + 'a {
        let prefix = super::layout::cluster_dir(cluster);
        self.files
            .range(prefix.clone()..)
            .take_while(move |(path, _)| path.starts_with(&prefix))
    }

    /// The unread files under `clusters/<cluster>/`, by full path.
    pub fn unread_in<'a>(&'a self, cluster: &str) -> impl Iterator<Item = &'a String> + 'a {
        let prefix = super::layout::cluster_dir(cluster);
        self.unread
            .range(prefix.clone()..)
            .take_while(move |path| path.starts_with(&prefix))
    }

    pub fn has_cluster(&self, cluster: &str) -> bool {
        self.cluster_files(cluster).next().is_some()
    }
}
