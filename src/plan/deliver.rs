//! What each cluster in scope receives: the objects of its applications,
//! the applications frozen on it by a hold, what the held ones would
//! receive without their holds (only counted: SPEC §5), and the namespaces
//! all of them need.

use super::{App, ClusterPlan, Delivery, Options, RESERVED_NAMESPACES};
use crate::diag::{Code, Diagnostic};
use crate::model::inputs::Inputs;
use crate::model::layout::Layout;
use crate::model::meta::ObjectKey;
use crate::model::previous::PreviousRender;
use std::collections::{BTreeMap, BTreeSet};

/// What delivering reads besides the applications.
pub(super) struct Delivering<'a> {
    pub inputs: &'a Inputs,
    pub previous: &'a PreviousRender,
    pub options: &'a Options,
    pub paused: &'a BTreeSet<String>,
}

impl Delivering<'_> {
    /// Every cluster in scope, by name, with what it receives. Scheduling
    /// saw the whole fleet; a shard delivers only to its own clusters.
    pub(super) fn clusters(&self, apps: &[App]) -> Vec<ClusterPlan> {
        let mut clusters: BTreeMap<&str, ClusterPlan> = self
            .inputs
            .clusters
            .iter()
            .enumerate()
            .filter(|(position, _)| self.options.scope.contains_at(*position))
            .map(|(_, c)| (c.name.as_str(), self.empty(&c.name)))
            .collect();
        for (index, app) in apps.iter().enumerate() {
            for a in &app.binding.clusters {
                let Some(cluster) = clusters.get_mut(a.cluster.as_str()) else {
                    continue;
                };
                if a.held {
                    cluster.frozen.push(app.key.clone());
                } else {
                    cluster.objects.push(Delivery {
                        app: index,
                        replicas: a.replicas,
                    });
                }
            }
            for a in app.binding.would_be.iter().flatten() {
                if let Some(cluster) = clusters.get_mut(a.cluster.as_str()) {
                    cluster.shadow.push(Delivery {
                        app: index,
                        replicas: a.replicas,
                    });
                }
            }
        }
        clusters
            .into_values()
            .map(|mut cluster| {
                let frozen = self.frozen_namespaces(&cluster);
                cluster.namespaces = namespaces(apps, &cluster.objects, &frozen);
                cluster.shadow_namespaces = namespaces(apps, &cluster.shadow, &BTreeSet::new());
                cluster
            })
            .collect()
    }

    /// A hold keeps an application's files as they are; on a cluster whose
    /// directory is written again, a render in another format than the
    /// previous one's would find them under other paths and drop them, and
    /// the GitOps agent would delete what the hold keeps running. Such a
    /// render is refused. A paused cluster's directory is kept whole, in
    /// the format it was written in, and is no reason to refuse.
    pub(super) fn format_change_holds(&self, clusters: &[ClusterPlan]) -> Vec<Diagnostic> {
        let Some(before) = self.previous.format else {
            return Vec::new();
        };
        let now = self.options.format;
        if before == now {
            return Vec::new();
        }
        let layout = Layout::new(before);
        clusters
            .iter()
            .filter(|c| {
                let kept_whole = self.previous.has_cluster(&c.name)
                    || self.previous.unread_in(&c.name).next().is_some();
                !(c.paused && kept_whole)
            })
            .filter_map(|cluster| {
                let held: Vec<String> = cluster
                    .frozen
                    .iter()
                    .filter(|key| {
                        let path = layout.cluster_object(key, &cluster.name);
                        self.previous.files.contains_key(&path) || self.previous.unread.contains(&path)
                    })
                    .map(|key| format!("`{key}`"))
                    .collect();
                (!held.is_empty()).then(|| {
                    Diagnostic::error(
                        Code::HeldFormatChange,
                        format!(
                            "this render writes `{}` files, the previous one `{}`, but a hold keeps the files of {} on cluster `{}` as they are: written again in the new format they would be dropped, and the GitOps agent would delete what the hold keeps running",
                            now.name(),
                            before.name(),
                            held.join(", "),
                            cluster.name
                        ),
                    )
                    .help(format!(
                        "render with `--format {}` until the hold is lifted (the cluster unpaused, or the policy's `suspension` ended), then change the format",
                        before.name()
                    ))
                })
            })
            .collect()
    }

    fn empty(&self, name: &str) -> ClusterPlan {
        ClusterPlan {
            name: name.to_string(),
            paused: self.paused.contains(name),
            objects: Vec::new(),
            namespaces: Vec::new(),
            frozen: Vec::new(),
            shadow: Vec::new(),
            shadow_namespaces: Vec::new(),
        }
    }

    /// The namespaces of the frozen objects the cluster still has: pruning
    /// their Namespace would delete what the hold keeps running.
    fn frozen_namespaces<'c>(&self, cluster: &'c ClusterPlan) -> BTreeSet<&'c str> {
        let layout = Layout::new(self.options.format);
        let previous = self.previous;
        cluster
            .frozen
            .iter()
            .filter(|key| {
                let path = layout.cluster_object(key, &cluster.name);
                previous.files.contains_key(&path) || previous.unread.contains(&path)
            })
            .filter_map(|key| key.namespace.as_deref())
            .collect()
    }
}

/// Every namespace the delivered objects (and `frozen` ones) live in,
/// unless an object is that Namespace or Kubernetes provides it.
fn namespaces(apps: &[App], objects: &[Delivery], frozen: &BTreeSet<&str>) -> Vec<String> {
    let keys: Vec<&ObjectKey> = objects.iter().map(|d| &apps[d.app].key).collect();
    let present: BTreeSet<&str> = keys
        .iter()
        .filter(|k| k.kind == "Namespace" && k.api_version == "v1")
        .map(|k| k.name.as_str())
        .collect();
    let needed: BTreeSet<&str> = keys
        .iter()
        .filter_map(|k| k.namespace.as_deref())
        .chain(frozen.iter().copied())
        .filter(|ns| !present.contains(ns) && !RESERVED_NAMESPACES.contains(ns))
        .collect();
    needed.into_iter().map(str::to_string).collect()
}
