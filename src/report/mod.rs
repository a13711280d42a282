//! What a render changed, for people and machines: per-cluster counts,
//! paused clusters and what they hold back, fort moves. Reads the plan and
//! the two trees; never influences output bytes.

use crate::emit::Tree;
use crate::plan::Plan;
use std::collections::BTreeMap;
use std::fmt::Write as _;

mod diff;
pub mod explain;

pub use diff::{unified_diff, MASK};

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
    pub unchanged: usize,
}

impl Counts {
    pub fn any(&self) -> bool {
        self.added + self.changed + self.removed > 0
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FortMove {
    pub app: String,
    pub from: String,
    pub to: String,
    pub reason: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Per cluster, counts of object files (kustomization.yaml excluded).
    pub clusters: BTreeMap<String, Counts>,
    pub paused: Vec<String>,
    /// Per held cluster (paused, or suspended for some applications), the
    /// changes the hold keeps back: what would be added, changed, removed.
    pub held_back: BTreeMap<String, Counts>,
    /// Bindings and the marker.
    pub other: Counts,
    pub fort_moves: Vec<FortMove>,
    pub warnings: usize,
    pub unclaimed: usize,
}

/// Which cluster a path belongs to, and whether it is an object file.
fn cluster_of(path: &str) -> Option<(&str, bool)> {
    let rest = path.strip_prefix("clusters/")?;
    let (cluster, file) = rest.split_once('/')?;
    Some((cluster, file != crate::emit::KUSTOMIZATION))
}

fn count(counts: &mut Counts, old: Option<&Vec<u8>>, new: Option<&Vec<u8>>) {
    match (old, new) {
        (None, Some(_)) => counts.added += 1,
        (Some(_), None) => counts.removed += 1,
        (Some(a), Some(b)) if a != b => counts.changed += 1,
        _ => counts.unchanged += 1,
    }
}

impl Summary {
    /// `shadow` is what held clusters would receive without their holds
    /// (`emit::shadow_tree`).
    pub fn new(
        plan: &Plan,
        old: &Tree,
        new: &Tree,
        shadow: &Tree,
        format: crate::emit::Format,
    ) -> Summary {
        let mut summary = Summary {
            paused: plan
                .clusters
                .iter()
                .filter(|c| c.paused)
                .map(|c| c.name.clone())
                .collect(),
            warnings: plan.warnings.warnings(),
            unclaimed: plan.unclaimed.len(),
            ..Summary::default()
        };
        for cluster in &plan.clusters {
            summary
                .clusters
                .insert(cluster.name.clone(), Counts::default());
        }
        let paths: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        for path in paths {
            let (o, n) = (old.get(path), new.get(path));
            match cluster_of(path) {
                Some((_, false)) => {}
                Some((cluster, true)) => count(
                    summary.clusters.entry(cluster.to_string()).or_default(),
                    o,
                    n,
                ),
                None if crate::emit::PROVENANCE_FILES.contains(&path.as_str()) => {}
                None => count(&mut summary.other, o, n),
            }
        }
        for cluster in &plan.clusters {
            let root = format!("clusters/{}/", cluster.name);
            let mut scope: std::collections::BTreeSet<&String> =
                shadow.keys().filter(|p| p.starts_with(&root)).collect();
            if cluster.paused {
                scope.extend(old.keys().filter(|p| {
                    cluster_of(p).is_some_and(|(c, object)| object && c == cluster.name)
                }));
            }
            let frozen: Vec<String> = cluster
                .frozen
                .iter()
                .map(|key| format!("{root}{}", crate::emit::file_of(key, &cluster.name, format)))
                .collect();
            scope.extend(old.keys().filter(|p| frozen.contains(p)));
            if cluster.paused || !cluster.frozen.is_empty() {
                let mut counts = Counts::default();
                for path in scope {
                    count(&mut counts, old.get(path), shadow.get(path));
                }
                summary.held_back.insert(cluster.name.clone(), counts);
            }
        }
        for app in &plan.apps {
            if let Some(fort) = &app.fort {
                if let Some(from) = &fort.moved_from {
                    summary.fort_moves.push(FortMove {
                        app: app.key.to_string(),
                        from: from.clone(),
                        to: fort.cluster.clone(),
                        reason: fort.describe(),
                    });
                }
            }
        }
        summary
    }

    /// Whether the render changes anything on disk.
    pub fn changed(&self) -> bool {
        self.other.any() || self.clusters.values().any(Counts::any)
    }

    /// The table printed after a render.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let width = self
            .clusters
            .keys()
            .map(String::len)
            .max()
            .unwrap_or(7)
            .max(7);
        let _ = writeln!(
            out,
            "{:<width$}  {:>5}  {:>7}  {:>7}  {:>9}",
            "cluster", "added", "changed", "removed", "unchanged"
        );
        for (name, c) in &self.clusters {
            let mark = if self.paused.contains(name) {
                "  (paused)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "{name:<width$}  {:>5}  {:>7}  {:>7}  {:>9}{mark}",
                c.added, c.changed, c.removed, c.unchanged
            );
        }
        for (name, c) in self.held_back.iter().filter(|(_, c)| c.any()) {
            let _ = writeln!(
                out,
                "held back on {name}: {} to add, {} to change, {} to remove",
                c.added, c.changed, c.removed
            );
        }
        for m in &self.fort_moves {
            let _ = writeln!(
                out,
                "fort of {} moved from `{}` to {}",
                m.app, m.from, m.reason
            );
        }
        let verdict = if self.changed() {
            "rendered"
        } else {
            "no changes"
        };
        let _ = writeln!(
            out,
            "{verdict}: {} clusters, {} objects changed, {} warning(s), {} template(s) claimed by no policy",
            self.clusters.len(),
            self.clusters.values().map(|c| c.added + c.changed + c.removed).sum::<usize>(),
            self.warnings,
            self.unclaimed
        );
        out
    }
}
