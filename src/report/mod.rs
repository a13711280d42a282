//! What a render changed, for people and machines: per-cluster counts,
//! paused clusters and what they hold back, fort moves. Reads the plan and
//! the two trees; never influences output bytes.

use crate::model::layout::{self, Layout, Tree};
use crate::model::previous::PreviousRender;
use crate::plan::Plan;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

mod diff;
pub mod explain;
pub mod html;
pub mod query;

pub use diff::{unified_diff, MASK};

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// Whether a summary tells what a render did or what one would do: `diff`
/// and `check` write nothing, so they must not say "rendered".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tense {
    /// `render`: the objects were added, changed and removed.
    Done,
    /// `diff`, `check`: the objects a render would add, change and remove.
    Preview,
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
    /// Templates no policy or binding claims (`Kind/namespace/name`), all of them.
    pub unclaimed: Vec<String>,
    /// Where every application goes, one line each (`render --verbose`).
    #[serde(skip)]
    pub placements: String,
}

/// Which cluster a path belongs to, and whether it is an object file.
pub fn cluster_of(path: &str) -> Option<(&str, bool)> {
    let (cluster, file) = layout::split_cluster(path)?;
    Some((cluster, file != layout::KUSTOMIZATION))
}

/// How one file of a render compares with the same path of another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Added,
    Changed,
    Removed,
    Unchanged,
}

impl Change {
    fn of(old: Option<&Vec<u8>>, new: Option<&Vec<u8>>) -> Change {
        match (old, new) {
            (None, Some(_)) => Change::Added,
            (Some(_), None) => Change::Removed,
            (Some(a), Some(b)) if a != b => Change::Changed,
            _ => Change::Unchanged,
        }
    }
}

impl Counts {
    fn count(&mut self, change: Change) {
        match change {
            Change::Added => self.added += 1,
            Change::Changed => self.changed += 1,
            Change::Removed => self.removed += 1,
            Change::Unchanged => self.unchanged += 1,
        }
    }
}

/// Every file of the stored render (`previous`) and of the new one (`new`
/// with bytes, `kept` unread), once each in path order, with how it
/// changed: what `diff` shows and the summary counts.
pub fn changes<'a>(
    previous: &'a PreviousRender,
    new: &'a Tree,
    kept: &'a BTreeSet<String>,
) -> impl Iterator<Item = (&'a String, Change)> + 'a {
    let old = &previous.files;
    union(vec![
        Box::new(old.keys()),
        Box::new(new.keys()),
        Box::new(previous.unread.iter()),
    ])
    .map(move |path| {
        let change = match (old.get(path), new.get(path)) {
            // Not read: kept as it is, or gone from the new render.
            (None, None) if kept.contains(path) => Change::Unchanged,
            (None, None) => Change::Removed,
            (o, n) => Change::of(o, n),
        };
        (path, change)
    })
}

/// What the holds of one cluster keep back: each object file a hold
/// concerns, and how the file the cluster would get without its holds
/// differs from the one it gets from this render.
pub struct HeldBack<'a> {
    pub cluster: &'a str,
    pub files: Vec<(&'a String, Change)>,
}

/// What a hold keeps back is the difference between what its cluster
/// gets from this render and what it would get without the hold:
/// measured against this render's output (not the previous one), so the
/// same inputs count the same on every render. One entry per held cluster
/// (paused, holding frozen objects, or withheld from some), in plan order.
pub fn held_back<'a>(
    plan: &'a Plan,
    new: &'a Tree,
    shadow: &'a Tree,
    format: layout::Format,
) -> Vec<HeldBack<'a>> {
    let mut held = Vec::new();
    for cluster in &plan.clusters {
        let root = layout::cluster_dir(&cluster.name);
        let mut scope: BTreeSet<&String> = shadow.keys().filter(|p| p.starts_with(&root)).collect();
        // A cluster suspended for an application it never had holds back
        // only what the shadow shows.
        let withholds = !scope.is_empty();
        if cluster.paused {
            scope.extend(
                new.keys().filter(|p| {
                    cluster_of(p).is_some_and(|(c, object)| object && c == cluster.name)
                }),
            );
        }
        let frozen: Vec<String> = cluster
            .frozen
            .iter()
            .map(|key| Layout::new(format).cluster_object(key, &cluster.name))
            .collect();
        scope.extend(new.keys().filter(|p| frozen.contains(p)));
        if cluster.paused || !cluster.frozen.is_empty() || withholds {
            held.push(HeldBack {
                cluster: &cluster.name,
                files: scope
                    .into_iter()
                    .map(|path| (path, Change::of(new.get(path), shadow.get(path))))
                    .collect(),
            });
        }
    }
    held
}

impl Summary {
    /// `new` and `kept` are the built output (`emit::Built`): files with
    /// bytes, and previous files kept unread. `shadow` is what held clusters
    /// would receive without their holds (`emit::shadow_tree`).
    pub fn new(
        plan: &Plan,
        previous: &PreviousRender,
        new: &Tree,
        kept: &BTreeSet<String>,
        shadow: &Tree,
        format: layout::Format,
    ) -> Summary {
        let mut summary = Summary {
            paused: plan
                .clusters
                .iter()
                .filter(|c| c.paused)
                .map(|c| c.name.clone())
                .collect(),
            warnings: plan.warnings.warnings(),
            unclaimed: plan.unclaimed.iter().map(ToString::to_string).collect(),
            placements: placements(plan),
            ..Summary::default()
        };
        for cluster in &plan.clusters {
            summary
                .clusters
                .insert(cluster.name.clone(), Counts::default());
        }
        summary.count_changes(previous, new, kept);
        summary.count_held_back(plan, new, shadow, format);
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

    /// Every file added, changed, removed or left as it was, per cluster
    /// (object files only) and for the rest of the tree (bindings).
    fn count_changes(&mut self, previous: &PreviousRender, new: &Tree, kept: &BTreeSet<String>) {
        for (path, change) in changes(previous, new, kept) {
            match cluster_of(path) {
                Some((_, false)) => {}
                Some((cluster, true)) => self
                    .clusters
                    .entry(cluster.to_string())
                    .or_default()
                    .count(change),
                None if layout::PROVENANCE_FILES.contains(&path.as_str()) => {}
                None => self.other.count(change),
            }
        }
    }

    /// The changes each hold keeps back ([`held_back`]), counted.
    fn count_held_back(&mut self, plan: &Plan, new: &Tree, shadow: &Tree, format: layout::Format) {
        for held in held_back(plan, new, shadow, format) {
            let mut counts = Counts::default();
            for (_, change) in held.files {
                counts.count(change);
            }
            self.held_back.insert(held.cluster.to_string(), counts);
        }
    }

    /// Every cluster of `fleet` (name, paused) as a row, and `held_back`:
    /// for a plan that rendered no cluster (merged shards), whose rows
    /// would otherwise be only the clusters with files, without their
    /// pauses and what those hold back.
    pub fn include_fleet<'a>(
        &mut self,
        fleet: impl IntoIterator<Item = (&'a str, bool)>,
        held_back: BTreeMap<String, Counts>,
    ) {
        for (name, paused) in fleet {
            self.clusters.entry(name.to_string()).or_default();
            if paused && !self.paused.iter().any(|p| p == name) {
                self.paused.push(name.to_string());
            }
        }
        self.paused.sort();
        self.held_back.extend(held_back);
    }

    /// Whether the render changes anything on disk.
    pub fn changed(&self) -> bool {
        self.other.any() || self.clusters.values().any(Counts::any)
    }

    /// Objects added, changed and removed over all clusters.
    pub fn totals(&self) -> Counts {
        let mut total = Counts::default();
        for c in self.clusters.values() {
            total.added += c.added;
            total.changed += c.changed;
            total.removed += c.removed;
            total.unchanged += c.unchanged;
        }
        total
    }

    /// `key=value` lines for a CI system (GitHub's `$GITHUB_OUTPUT`).
    pub fn outputs(&self, commit: Option<&str>) -> String {
        let total = self.totals();
        let held: usize = self
            .held_back
            .values()
            .map(|c| c.added + c.changed + c.removed)
            .sum();
        let changed_clusters = self.clusters.values().filter(|c| c.any()).count();
        format!(
            "changed={}\ncommit={}\nclusters-changed={changed_clusters}\nobjects-added={}\nobjects-changed={}\nobjects-removed={}\nheld-back={held}\nfort-moves={}\n",
            self.changed(),
            commit.unwrap_or(""),
            total.added,
            total.changed,
            total.removed,
            self.fort_moves.len()
        )
    }

    /// A Markdown report for a CI job summary.
    pub fn to_markdown(
        &self,
        source: Option<&str>,
        commit: Option<&str>,
        branch: Option<&str>,
    ) -> String {
        let mut out = String::from("### garrison render\n\n");
        if let Some(source) = source {
            let _ = writeln!(out, "Source commit `{source}`.\n");
        }
        let total = self.totals();
        let verdict = match (self.changed(), commit, branch) {
            (false, _, _) => "No changes.".to_string(),
            (true, Some(commit), Some(branch)) => format!("Committed `{commit}` to `{branch}`."),
            (true, _, _) => "Rendered.".to_string(),
        };
        let _ = writeln!(
            out,
            "{verdict} {} object(s) added, {} changed, {} removed; {} warning(s).\n",
            total.added, total.changed, total.removed, self.warnings
        );
        out.push_str("| cluster | added | changed | removed | unchanged |\n| --- | ---: | ---: | ---: | ---: |\n");
        for (name, c) in &self.clusters {
            let mark = if self.paused.contains(name) {
                " (paused)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "| `{name}`{mark} | {} | {} | {} | {} |",
                c.added, c.changed, c.removed, c.unchanged
            );
        }
        if !self.held_back.is_empty() {
            out.push_str("\n**Held back** (paused or suspended; applied when the hold ends)\n\n| cluster | to add | to change | to remove |\n| --- | ---: | ---: | ---: |\n");
            for (name, c) in &self.held_back {
                let _ = writeln!(
                    out,
                    "| `{name}` | {} | {} | {} |",
                    c.added, c.changed, c.removed
                );
            }
        }
        if !self.fort_moves.is_empty() {
            out.push_str("\n**Fort moves**\n\n");
            for m in &self.fort_moves {
                let _ = writeln!(out, "- `{}`: `{}` → {}", m.app, m.from, m.reason);
            }
        }
        out
    }

    /// The table printed after a render (`Done`), or by `diff` and `check`
    /// (`Preview`). The last line counts the objects by what happened to
    /// them, as the table does.
    pub fn to_text(&self, tense: Tense) -> String {
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
        let total = self.totals();
        let verdict = match (self.changed(), tense) {
            (false, _) => "no changes",
            (true, Tense::Done) => "rendered",
            (true, Tense::Preview) => "would change",
        };
        let counts = match tense {
            Tense::Done => ("added", "changed", "removed"),
            Tense::Preview => ("to add", "to change", "to remove"),
        };
        let _ = writeln!(
            out,
            "{verdict}: {} clusters, {} objects {}, {} {}, {} {}, {} warning(s), {} template(s) claimed by no policy",
            self.clusters.len(),
            total.added,
            counts.0,
            total.changed,
            counts.1,
            total.removed,
            counts.2,
            self.warnings,
            self.unclaimed.len()
        );
        if let Some((shown, more)) = listed(&self.unclaimed, UNCLAIMED_SHOWN) {
            let _ = writeln!(out, "claimed by no policy: {shown}{more}");
        }
        out
    }
}

/// How many unclaimed templates the text summary names (`--json` has all).
const UNCLAIMED_SHOWN: usize = 10;

/// The first `limit` names in backticks, and "and N more" for the rest;
/// `None` when there are none.
fn listed(names: &[String], limit: usize) -> Option<(String, String)> {
    if names.is_empty() {
        return None;
    }
    let shown = names
        .iter()
        .take(limit)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let more = match names.len().saturating_sub(limit) {
        0 => String::new(),
        n => format!(" and {n} more (`--json` lists all)"),
    };
    Some((shown, more))
}

/// One line per application: where it goes and with how many replicas,
/// its fort, its holds, and why it was rescheduled if it was (`render
/// --verbose`). A held cluster the application is on keeps it frozen,
/// marked `(held)`; one a hold keeps it from is listed as held back, with
/// what it gets once the hold ends.
pub fn placements(plan: &Plan) -> String {
    let mut out = String::new();
    for app in &plan.apps {
        let at = |a: &crate::schedule::Assignment| {
            let replicas = if app.binding.workload {
                format!("×{}", a.replicas)
            } else {
                String::new()
            };
            format!("{}{replicas}", a.cluster)
        };
        let clusters: Vec<String> = app
            .binding
            .clusters
            .iter()
            .map(|a| format!("{}{}", at(a), if a.held { " (held)" } else { "" }))
            .collect();
        let fort = app
            .fort
            .as_ref()
            .map(|f| format!("; fort {}", f.cluster))
            .unwrap_or_default();
        let targets = if clusters.is_empty() {
            "no cluster".to_string()
        } else {
            clusters.join(", ")
        };
        let withheld: Vec<String> = app
            .binding
            .would_be
            .iter()
            .flatten()
            .filter(|w| !app.binding.clusters.iter().any(|a| a.cluster == w.cluster))
            .map(at)
            .collect();
        let withheld = if withheld.is_empty() {
            String::new()
        } else {
            format!("; held back on {}", withheld.join(", "))
        };
        let rescheduled = match &app.binding.decision {
            crate::schedule::Decision::Rescheduled(why) => format!("; rescheduled: {why}"),
            _ => String::new(),
        };
        let _ = writeln!(out, "{} → {targets}{fort}{withheld}{rescheduled}", app.key);
    }
    out
}

/// Every path of three sorted lists, once each and in order: a merge, not a
/// set built anew (tens of thousands of long, similar paths).
fn union<'a>(
    lists: Vec<Box<dyn Iterator<Item = &'a String> + 'a>>,
) -> impl Iterator<Item = &'a String> {
    let mut lists: Vec<_> = lists.into_iter().map(Iterator::peekable).collect();
    std::iter::from_fn(move || {
        let next = lists.iter_mut().filter_map(|l| l.peek().copied()).min()?;
        for list in &mut lists {
            if list.peek() == Some(&next) {
                list.next();
            }
        }
        Some(next)
    })
}

#[cfg(test)]
mod tests {
    use super::union;

    #[test]
    fn union_merges_sorted_lists_once_each() {
        let owned = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (a, b, c) = (
            owned(&["a", "c"]),
            owned(&["b", "c", "e"]),
            owned(&["a", "d"]),
        );
        let merged: Vec<&String> = union(vec![
            Box::new(a.iter()),
            Box::new(b.iter()),
            Box::new(c.iter()),
        ])
        .collect();
        assert_eq!(merged, ["a", "b", "c", "d", "e"]);
        assert_eq!(
            union(vec![
                Box::new(a.iter()),
                Box::new([].iter()),
                Box::new([].iter())
            ])
            .count(),
            2
        );
    }
}
