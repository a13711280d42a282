//! Where everything of a render lives (SPEC §6), in one place: every module
//! that writes, reads, prunes, reports or commits a rendered file asks here
//! for its path.
//!
//! ```text
//! .garrison.json                         marker: this directory holds a render
//! .gitattributes                         (rendered branches) generated files
//! hydrator.metadata                      (rendered branches) the source commit, for promotion tools
//! clusters/<cluster>/kustomization.yaml  lists the cluster's files
//! clusters/<cluster>/<object file>       one per object (or its Work)
//! bindings/<object file>                 one per application: its schedule
//! ```
//!
//! An object file is `<namespace or _cluster>/<kind>[.<group>]_<name>.yaml`
//! ([`path`]); with `--format work` it is the file of the object's Karmada
//! `Work` in the cluster's execution namespace ([`work`]).

pub mod path;
pub mod work;

use super::meta::ObjectKey;
use std::collections::BTreeMap;

/// Output files by path relative to the output root, sorted by construction.
pub type Tree = BTreeMap<String, Vec<u8>>;

/// A tree of text files, for tests.
#[cfg(test)]
pub fn text_tree(files: &[(&str, &str)]) -> Tree {
    files
        .iter()
        .map(|(p, text)| (p.to_string(), text.as_bytes().to_vec()))
        .collect()
}

/// The marker that says a directory holds a garrison render.
pub const MARKER_FILE: &str = ".garrison.json";
/// Marks a rendered branch as generated for code review tools.
pub const GITATTRIBUTES: &str = ".gitattributes";
/// (Rendered branches) the source commit, as Argo CD's Source Hydrator
/// records it for promotion tools.
pub const HYDRATOR_METADATA: &str = "hydrator.metadata";
/// Files at the root of a render that record where it came from; they
/// never decide whether a render changed (SPEC §9).
pub const PROVENANCE_FILES: &[&str] = &[MARKER_FILE, GITATTRIBUTES, HYDRATOR_METADATA];
/// The file of a cluster directory that lists its objects.
pub const KUSTOMIZATION: &str = "kustomization.yaml";

const CLUSTERS: &str = "clusters/";
const BINDINGS: &str = "bindings/";

/// What each cluster's object files hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Plain manifests, one file per object.
    #[default]
    Manifests,
    /// Karmada `Work` objects.
    Work,
}

impl Format {
    /// The name the marker file records.
    pub fn name(self) -> &'static str {
        match self {
            Format::Manifests => "manifests",
            Format::Work => "work",
        }
    }

    /// The format a render's marker file records (`files` holds the
    /// render's root), read here alone; `None` without a marker. A marker
    /// without `format` (written before there was a choice), or one that
    /// is not JSON, is of a manifests render.
    pub fn recorded(files: &Tree) -> Option<Format> {
        let marker = files.get(MARKER_FILE)?;
        let marker: serde_json::Value = serde_json::from_slice(marker).unwrap_or_default();
        Some(
            match marker.get("format").and_then(serde_json::Value::as_str) {
                Some("work") => Format::Work,
                _ => Format::Manifests,
            },
        )
    }
}

/// The paths of one render, whose object files depend on its [`Format`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    pub format: Format,
}

impl Layout {
    pub fn new(format: Format) -> Layout {
        Layout { format }
    }

    /// The file of the object `key` relative to `cluster`'s directory.
    pub fn object(self, key: &ObjectKey, cluster: &str) -> String {
        match self.format {
            Format::Manifests => path::object_path(key),
            Format::Work => path::object_path(&ObjectKey {
                api_version: "work.karmada.io/v1alpha1".into(),
                kind: "Work".into(),
                namespace: Some(work::execution_namespace(cluster)),
                name: work::work_name(key),
            }),
        }
    }

    /// The file of the object `key` in `cluster`'s directory, from the root.
    pub fn cluster_object(self, key: &ObjectKey, cluster: &str) -> String {
        in_cluster(cluster, &self.object(key, cluster))
    }
}

/// `cluster`'s directory, from the root, with a trailing `/`.
pub fn cluster_dir(cluster: &str) -> String {
    format!("{CLUSTERS}{cluster}/")
}

/// The file `relative` of `cluster`'s directory, from the root.
pub fn in_cluster(cluster: &str, relative: &str) -> String {
    format!("{CLUSTERS}{cluster}/{relative}")
}

/// `cluster`'s kustomization, from the root.
pub fn kustomization(cluster: &str) -> String {
    in_cluster(cluster, KUSTOMIZATION)
}

/// The rendered binding of the application `key`.
pub fn binding(key: &ObjectKey) -> String {
    format!("{BINDINGS}{}", path::object_path(key))
}

pub fn is_binding(path: &str) -> bool {
    path.starts_with(BINDINGS)
}

/// The cluster a file belongs to and its path in the cluster's directory,
/// for a file under `clusters/`.
pub fn split_cluster(path: &str) -> Option<(&str, &str)> {
    path.strip_prefix(CLUSTERS)?.split_once('/')
}

/// The cluster of an object file; `None` for anything else (bindings, the
/// marker, a cluster's kustomization).
pub fn object_cluster(path: &str) -> Option<&str> {
    split_cluster(path).and_then(|(cluster, file)| (file != KUSTOMIZATION).then_some(cluster))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment() -> ObjectKey {
        ObjectKey {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: Some("shop".into()),
            name: "web".into(),
        }
    }

    #[test]
    fn the_format_is_what_the_marker_records() {
        let with = |marker: &str| -> Tree {
            [(MARKER_FILE.to_string(), marker.as_bytes().to_vec())].into()
        };
        let work = r#"{"generator":"garrison","layout":1,"format":"work"}"#;
        assert_eq!(Format::recorded(&with(work)), Some(Format::Work));
        let manifests = r#"{"generator":"garrison","layout":1,"format":"manifests"}"#;
        assert_eq!(Format::recorded(&with(manifests)), Some(Format::Manifests));
        assert_eq!(
            Format::recorded(&with(r#"{"generator":"garrison"}"#)),
            Some(Format::Manifests)
        );
        // The text alone says nothing: only the field does.
        let elsewhere = r#"{"note":"\"format\":\"work\"","format":"manifests"}"#;
        assert_eq!(Format::recorded(&with(elsewhere)), Some(Format::Manifests));
        assert_eq!(Format::recorded(&Tree::new()), None);
    }

    #[test]
    fn every_path_of_a_render() {
        let key = deployment();
        let manifests = Layout::new(Format::Manifests);
        let work = Layout::new(Format::Work);
        assert_eq!(
            manifests.cluster_object(&key, "eu-1"),
            "clusters/eu-1/shop/deployment.apps_web.yaml"
        );
        assert_eq!(
            work.cluster_object(&key, "eu-1"),
            "clusters/eu-1/karmada-es-eu-1/work.work.karmada.io_web-56d6c779bb.yaml"
        );
        assert_eq!(kustomization("eu-1"), "clusters/eu-1/kustomization.yaml");
        assert_eq!(binding(&key), "bindings/shop/deployment.apps_web.yaml");
        assert!(is_binding(&binding(&key)));
        assert_eq!(cluster_dir("eu-1"), "clusters/eu-1/");
    }

    #[test]
    fn a_cluster_file_splits_back_into_cluster_and_file() {
        let path = Layout::default().cluster_object(&deployment(), "eu-1");
        assert_eq!(
            split_cluster(&path),
            Some(("eu-1", "shop/deployment.apps_web.yaml"))
        );
        assert_eq!(split_cluster("bindings/shop/x.yaml"), None);
        assert_eq!(split_cluster(MARKER_FILE), None);
        assert_eq!(object_cluster(&path), Some("eu-1"));
        assert_eq!(object_cluster(&kustomization("eu-1")), None);
    }
}
