//! `garrison report --html`: a picture of the plan in one HTML file, with
//! its styles, script and data inside (no network, no font to fetch), so it
//! opens from a CI artifact as it does from disk.
//!
//! The file holds the data ([`Report`], JSON) and a page that draws it: a
//! matrix of clusters × applications, where each cell is what the cluster
//! gets of the application (its replicas, or a mark for an object without
//! replicas), the fort, the holds, the changes held back, and what changed
//! since the stored render, file by file, as `diff` compares them
//! ([`super::changes`], [`super::held_back`]). Only the rows and columns on
//! screen are drawn, so 200 clusters × 2,000 applications open as fast as
//! ten. Each application links to its explanation, the text `explain`
//! prints, stored once per line ([`encode`]). The same inputs give the same
//! bytes: nothing in the file depends on the time or the machine.

pub mod encode;
pub mod verified;

use super::explain::Explained;
use super::{changes, cluster_of, held_back, Change};
use crate::model::layout::{self, Format, Layout, Tree};
use crate::model::meta::ObjectKey;
use crate::model::previous::PreviousRender;
use crate::plan::{Plan, Source};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");

/// What a report is made from: the plan of this render, the stored render
/// it is compared with, and the trees built from the plan.
pub struct Sources<'a> {
    pub plan: &'a Plan,
    pub previous: &'a PreviousRender,
    /// The new render's files with bytes, and the stored files it keeps unread.
    pub new: &'a Tree,
    pub kept: &'a BTreeSet<String>,
    /// What held clusters would get without their holds.
    pub shadow: &'a Tree,
    pub format: Format,
    /// Each application's explanation, and what its objects hold, in the
    /// order of [`Plan::apps`].
    pub explanations: &'a [Explained],
    /// The stored render as the command line named it (`out`, `branch rendered`).
    pub against: String,
    /// The render compared with a Karmada control plane's Works (`--works`).
    pub verified: Option<&'a verified::Verification>,
}

/// The data of the page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The version of garrison that wrote it.
    pub garrison: &'static str,
    pub against: String,
    pub format: &'static str,
    pub clusters: Vec<Column>,
    /// Namespaces of the rows, sorted; `""` for cluster-scoped objects.
    pub namespaces: Vec<String>,
    pub kinds: Vec<String>,
    pub totals: Totals,
    pub rows: Vec<Row>,
    /// The explanations' line table ([`encode`]).
    pub lines: Vec<String>,
    /// What a Karmada control plane's Works deliver, compared ([`verified`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify: Option<verified::Verification>,
}

/// One cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Column {
    pub name: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
}

/// Object files over every cluster, as the summary counts them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
    /// Files whose change a hold keeps back.
    pub held_back: usize,
    pub applications: usize,
    pub fort_moves: usize,
}

/// One application (or another object a cluster directory holds).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// `Kind/namespace/name` (`Kind/name` when cluster-scoped), as `explain`
    /// takes it; `@apiVersion` follows when two rows would share it.
    pub key: String,
    /// Indices into [`Report::kinds`] and [`Report::namespaces`].
    pub kind: usize,
    pub ns: usize,
    pub name: String,
    pub api_version: String,
    /// The policy or Subscriptions that propagate it, or what else it is.
    pub source: String,
    /// `karmada`, `clusternet`, or `""` for a row that is no application.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub dialect: &'static str,
    /// `new` (not in the stored render) or `removed` (gone from the plan).
    #[serde(skip_serializing_if = "str::is_empty")]
    pub state: &'static str,
    /// The cluster the fort moved from, when it moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fort_from: Option<String>,
    /// One token per cluster, comma-separated ([`Cell::token`]).
    pub cells: String,
    /// Some file of the row changed since the stored render.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub changed: bool,
    /// A hold keeps a change of the row back.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub held_back: bool,
    /// The encoded explanation ([`encode`]), for an application.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Vec<u64>>,
    /// What the row is, for a row with no explanation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What one cluster has of one row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Cell {
    /// The new render has the file (written or kept).
    present: bool,
    /// The replicas of a workload's share.
    replicas: Option<u64>,
    /// The replicas its object holds, when an override made them other
    /// than the share.
    made: Option<u64>,
    fort: bool,
    /// Frozen: the cluster is paused or the application suspended there.
    held: bool,
    change: Option<Change>,
    held_back: Option<Change>,
    /// The replicas the stored render recorded, when they differ.
    previous: Option<u64>,
    /// The replicas a held cluster would get without its holds, when they differ.
    would_be: Option<u64>,
}

impl Cell {
    /// `[replicas or "."][flags][~share][<previous][>would-be]`, empty
    /// when the cluster has nothing of the row and nothing changed there.
    /// The replicas are the object's; `~` follows with the binding's share
    /// when an override changed them. Flags: `f` fort, `h` held, `a`/`c`/`r`
    /// added, changed or removed since the stored render, `A`/`C`/`R` what
    /// a hold keeps back. `<` and `>` are shares too: the stored render's,
    /// and what a held cluster would get without its holds.
    fn token(&self) -> String {
        let mut token = String::new();
        if self.present {
            match self.made.or(self.replicas) {
                Some(r) => token.push_str(&r.to_string()),
                None => token.push('.'),
            }
        }
        if self.fort && self.present {
            token.push('f');
        }
        if self.held && self.present {
            token.push('h');
        }
        token.push_str(match self.change {
            Some(Change::Added) => "a",
            Some(Change::Changed) => "c",
            Some(Change::Removed) => "r",
            _ => "",
        });
        token.push_str(match self.held_back {
            Some(Change::Added) => "A",
            Some(Change::Changed) => "C",
            Some(Change::Removed) => "R",
            _ => "",
        });
        if token.is_empty() {
            return token;
        }
        if let (Some(share), true) = (self.replicas, self.present && self.made.is_some()) {
            token.push_str(&format!("~{share}"));
        }
        if let Some(previous) = self.previous.filter(|p| Some(*p) != self.replicas) {
            token.push_str(&format!("<{previous}"));
        }
        if let Some(would_be) = self.would_be.filter(|w| Some(*w) != self.replicas) {
            token.push_str(&format!(">{would_be}"));
        }
        token
    }
}

/// What a row stands for while the report is built.
enum What {
    /// The application at this index of [`Plan::apps`].
    App(usize),
    /// An application of the stored render that the plan no longer has.
    Removed,
    /// A Namespace garrison creates for the objects in it.
    Namespace,
    /// A file of a cluster directory no application accounts for.
    File,
}

struct Building {
    key: ObjectKey,
    what: What,
    cells: BTreeMap<usize, Cell>,
}

/// Where rows are found by file: each row's file name in a cluster
/// directory ([`identity`]), and each application's row by key.
struct Index {
    rows: Vec<Building>,
    by_file: HashMap<String, usize>,
    by_key: HashMap<ObjectKey, usize>,
    layout: Layout,
    /// A cluster's name, for [`Layout::object`] (a Work's directory).
    some_cluster: String,
}

/// A file's path in its cluster directory without what depends on the
/// cluster: a Work's directory is the cluster's execution namespace, and
/// its file name is the object's alone.
fn identity(format: Format, relative: &str) -> &str {
    match format {
        Format::Manifests => relative,
        Format::Work => relative.split_once('/').map_or(relative, |(_, file)| file),
    }
}

impl Index {
    fn add(&mut self, key: ObjectKey, what: What) -> usize {
        if let Some(&row) = self.by_key.get(&key) {
            return row;
        }
        let row = self.rows.len();
        let file = self.layout.object(&key, &self.some_cluster);
        self.by_file
            .entry(identity(self.layout.format, &file).to_string())
            .or_insert(row);
        self.by_key.insert(key.clone(), row);
        self.rows.push(Building {
            key,
            what,
            cells: BTreeMap::new(),
        });
        row
    }

    /// The row of the object file `relative` of a cluster directory,
    /// added when no application accounts for it.
    fn row_of_file(&mut self, relative: &str) -> usize {
        let identity = identity(self.layout.format, relative);
        if let Some(&row) = self.by_file.get(identity) {
            return row;
        }
        let (key, what) = match namespace_of_file(self.layout.format, relative) {
            Some(key) => (key, What::Namespace),
            None => (
                ObjectKey {
                    api_version: String::new(),
                    kind: "file".into(),
                    namespace: None,
                    name: identity.to_string(),
                },
                What::File,
            ),
        };
        let row = self.add(key, what);
        self.by_file.insert(identity.to_string(), row);
        row
    }
}

/// The Namespace a manifest file `_cluster/namespace_<name>.yaml` holds.
fn namespace_of_file(format: Format, relative: &str) -> Option<ObjectKey> {
    if format != Format::Manifests {
        return None;
    }
    let escaped = relative
        .strip_prefix(layout::path::CLUSTER_SCOPED_DIR)?
        .strip_prefix("/namespace_")?
        .strip_suffix(".yaml")?;
    let name = unescape(escaped)?;
    let key = namespace_key(&name);
    (layout::path::object_path(&key) == relative).then_some(key)
}

/// Undo [`layout::path::escape`].
fn unescape(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(first);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

fn namespace_key(name: &str) -> ObjectKey {
    ObjectKey {
        api_version: "v1".into(),
        kind: "Namespace".into(),
        namespace: None,
        name: name.to_string(),
    }
}

/// Build the report's data.
pub fn report(sources: &Sources<'_>) -> Report {
    let Sources {
        plan,
        previous,
        new,
        kept,
        shadow,
        format,
        ..
    } = sources;
    let column: HashMap<&str, usize> = plan
        .clusters
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    let mut index = Index {
        rows: Vec::new(),
        by_file: HashMap::new(),
        by_key: HashMap::new(),
        layout: Layout::new(*format),
        some_cluster: plan
            .clusters
            .first()
            .map(|c| c.name.clone())
            .unwrap_or_default(),
    };
    for (i, app) in plan.apps.iter().enumerate() {
        index.add(app.key.clone(), What::App(i));
    }
    for key in previous.bindings.keys() {
        index.add(key.clone(), What::Removed);
    }
    for cluster in &plan.clusters {
        for namespace in cluster.namespaces.iter().chain(&cluster.shadow_namespaces) {
            index.add(namespace_key(namespace), What::Namespace);
        }
    }

    let mut totals = Totals::default();
    // Files, as `diff` compares them.
    for (path, change) in changes(previous, new, kept) {
        let Some((cluster, true)) = cluster_of(path) else {
            continue;
        };
        let (Some(&col), Some((_, relative))) = (column.get(cluster), layout::split_cluster(path))
        else {
            continue;
        };
        let row = index.row_of_file(relative);
        let cell = index.rows[row].cells.entry(col).or_default();
        cell.present = change != Change::Removed;
        match change {
            Change::Added => totals.added += 1,
            Change::Changed => totals.changed += 1,
            Change::Removed => totals.removed += 1,
            Change::Unchanged => {}
        }
        cell.change = (change != Change::Unchanged).then_some(change);
    }
    for held in held_back(plan, new, shadow, *format) {
        let Some(&col) = column.get(held.cluster) else {
            continue;
        };
        for (path, change) in held.files {
            let Some((_, relative)) = layout::split_cluster(path) else {
                continue;
            };
            let row = index.row_of_file(relative);
            let cell = index.rows[row].cells.entry(col).or_default();
            if change != Change::Unchanged {
                cell.held_back = Some(change);
                totals.held_back += 1;
            }
        }
    }
    annotate(&mut index, (plan, sources.explanations), previous, &column);

    let clusters: Vec<Column> = plan
        .clusters
        .iter()
        .map(|c| Column {
            name: c.name.clone(),
            paused: c.paused,
        })
        .collect();
    totals.applications = plan.apps.len();
    totals.fort_moves = plan
        .apps
        .iter()
        .filter(|a| a.fort.as_ref().is_some_and(|f| f.moved_from.is_some()))
        .count();
    finish(sources, index, clusters, totals)
}

/// Replicas, forts and holds from the plan; previous replicas from the
/// stored bindings.
fn annotate(
    index: &mut Index,
    (plan, explained): (&Plan, &[Explained]),
    previous: &PreviousRender,
    column: &HashMap<&str, usize>,
) {
    for row in &mut index.rows {
        // A file kept from the stored render has the replicas recorded
        // there, unless the plan says otherwise below.
        let recorded = previous.bindings.get(&row.key);
        if let Some(record) = recorded.filter(|r| r.workload) {
            for (cluster, replicas) in &record.clusters {
                if let Some(cell) = column
                    .get(cluster.as_str())
                    .and_then(|c| row.cells.get_mut(c))
                {
                    cell.previous = Some(*replicas);
                    if cell.present {
                        cell.replicas = Some(*replicas);
                    }
                }
            }
        }
        let What::App(i) = row.what else {
            continue;
        };
        let app = &plan.apps[i];
        for assignment in &app.binding.clusters {
            let Some(cell) = column
                .get(assignment.cluster.as_str())
                .and_then(|c| row.cells.get_mut(c))
            else {
                continue;
            };
            if app.binding.workload && cell.present {
                cell.replicas = Some(assignment.replicas);
                cell.made = explained
                    .get(i)
                    .and_then(|e| e.replicas.get(&assignment.cluster))
                    .copied()
                    .filter(|made| *made != assignment.replicas);
            }
            cell.held |= assignment.held && cell.present;
        }
        if let Some(cell) = app
            .fort
            .as_ref()
            .and_then(|f| column.get(f.cluster.as_str()))
            .and_then(|c| row.cells.get_mut(c))
        {
            cell.fort = true;
        }
    }
    for (col, cluster) in plan.clusters.iter().enumerate() {
        for delivery in &cluster.shadow {
            let app = &plan.apps[delivery.app];
            let Some(&row) = index.by_key.get(&app.key) else {
                continue;
            };
            if let Some(cell) = index.rows[row].cells.get_mut(&col) {
                if app.binding.workload {
                    cell.would_be = Some(delivery.replicas);
                }
            }
        }
        for key in &cluster.frozen {
            let Some(&row) = index.by_key.get(key) else {
                continue;
            };
            if let Some(cell) = index.rows[row].cells.get_mut(&col) {
                cell.held |= cell.present;
            }
        }
        if cluster.paused {
            for row in &mut index.rows {
                if let Some(cell) = row.cells.get_mut(&col) {
                    cell.held |= cell.present;
                }
            }
        }
    }
}

/// Order the rows, name what they are, store the explanations.
fn finish(sources: &Sources<'_>, index: Index, clusters: Vec<Column>, totals: Totals) -> Report {
    let plan = sources.plan;
    let mut rows = index.rows;
    rows.sort_by(|a, b| {
        let order = |r: &Building| {
            (
                r.key.namespace.clone().unwrap_or_default(),
                r.key.name.clone(),
                r.key.kind.clone(),
                r.key.api_version.clone(),
            )
        };
        order(a).cmp(&order(b))
    });
    let namespaces: Vec<String> = rows
        .iter()
        .map(|r| r.key.namespace.clone().unwrap_or_default())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let kinds: Vec<String> = rows
        .iter()
        .map(|r| r.key.kind.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut shared: HashMap<String, usize> = HashMap::new();
    for row in &rows {
        *shared.entry(row.key.to_string()).or_default() += 1;
    }
    let names: Vec<String> = clusters.iter().map(|c| c.name.clone()).collect();
    let column: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let explained: Vec<Option<Vec<super::explain::Line<'_>>>> = rows
        .iter()
        .map(|row| match row.what {
            What::App(i) => sources.explanations.get(i).map(|e| e.explanation.lines()),
            _ => None,
        })
        .collect();
    let lines: Vec<Option<Vec<encode::Line<'_>>>> = explained
        .iter()
        .map(|lines| {
            lines.as_ref().map(|lines| {
                lines
                    .iter()
                    .map(|line| encode::Line {
                        cluster: line.cluster.and_then(|c| column.get(c).copied()),
                        text: &line.text,
                    })
                    .collect()
            })
        })
        .collect();
    let encoded = encode::encode(&lines, &names);
    let rows = rows
        .into_iter()
        .zip(encoded.explanations)
        .map(|(row, explanation)| {
            let mut key = row.key.to_string();
            if shared.get(&key).is_some_and(|n| *n > 1) {
                key = format!("{key}@{}", row.key.api_version);
            }
            let (source, dialect, note) = describe(plan, &row);
            let namespace = row.key.namespace.clone().unwrap_or_default();
            let fort_from = match row.what {
                What::App(i) => plan.apps[i]
                    .fort
                    .as_ref()
                    .and_then(|f| f.moved_from.clone()),
                _ => None,
            };
            let tokens: Vec<String> = (0..names.len())
                .map(|c| row.cells.get(&c).map(Cell::token).unwrap_or_default())
                .collect();
            let cells = row.cells.values();
            let changed = cells.clone().any(|c| c.change.is_some());
            let held_back = cells.clone().any(|c| c.held_back.is_some());
            let new = matches!(row.what, What::App(_))
                && !sources.previous.bindings.contains_key(&row.key);
            Row {
                key,
                kind: kinds.binary_search(&row.key.kind).unwrap_or_default(),
                ns: namespaces.binary_search(&namespace).unwrap_or_default(),
                name: row.key.name.clone(),
                api_version: row.key.api_version.clone(),
                source,
                dialect,
                state: match row.what {
                    What::Removed => "removed",
                    What::App(_) if new && changed => "new",
                    _ => "",
                },
                fort_from,
                cells: tokens.join(","),
                changed,
                held_back,
                explanation,
                note,
            }
        })
        .collect::<Vec<Row>>();
    let verify = sources
        .verified
        .map(|v| verified::resolve(v, &rows, &kinds, &namespaces));
    Report {
        garrison: env!("CARGO_PKG_VERSION"),
        against: sources.against.clone(),
        format: sources.format.name(),
        clusters,
        namespaces,
        kinds,
        totals,
        rows,
        lines: encoded.lines,
        verify,
    }
}

/// What propagates the row, its dialect, and a note for a row with no
/// explanation.
fn describe(plan: &Plan, row: &Building) -> (String, &'static str, Option<String>) {
    match row.what {
        What::App(i) => {
            let app = &plan.apps[i];
            let source = match &app.source {
                Source::Policy { policy, .. }
                | Source::Pinned {
                    policy: Some(policy),
                } => match &policy.namespace {
                    Some(ns) => format!("PropagationPolicy/{ns}/{}", policy.name),
                    None => format!("ClusterPropagationPolicy/{}", policy.name),
                },
                Source::Pinned { policy: None } => "a ResourceBinding in the source".into(),
                Source::Dependency { of } => format!(
                    "dependency of {}",
                    of.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Source::NamespaceAutoPropagation => "namespace auto-propagation".into(),
                Source::Subscription { subscriptions } => subscriptions.join(", "),
            };
            let dialect = if app.clusternet() {
                "clusternet"
            } else {
                "karmada"
            };
            (source, dialect, None)
        }
        What::Removed => (
            "removed from the source".into(),
            "",
            Some(format!(
                "{} is in the stored render but no policy, binding or Subscription propagates it now: the render removes it (a paused cluster keeps it until it is unpaused).",
                row.key
            )),
        ),
        What::Namespace => (
            "created by garrison".into(),
            "",
            Some(format!(
                "Namespace {} is created by garrison on every cluster that receives an object in it; no template of the source is this Namespace.",
                row.key.name
            )),
        ),
        What::File => (
            "a file of the stored render".into(),
            "",
            Some(format!(
                "`{}` is a file of the stored render that no application of the plan accounts for.",
                row.key.name
            )),
        ),
    }
}

/// The page: the data as JSON in a script element that only the page's
/// script reads, and the styles and script inline.
pub fn page(report: &Report) -> String {
    // `<` only occurs inside JSON strings, where `\u003c` means the same:
    // nothing in the data can close the script element.
    let data = serde_json::to_string(report)
        .unwrap_or_default()
        .replace('<', "\\u003c");
    let mut out = String::with_capacity(data.len() + STYLE.len() + SCRIPT.len() + 4096);
    out.push_str(concat!(
        "<!DOCTYPE html>\n",
        "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        "<meta name=\"generator\" content=\"garrison ",
        env!("CARGO_PKG_VERSION"),
        "\">\n<title>garrison report</title>\n<style>\n"
    ));
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");
    out.push_str(BODY);
    out.push_str("<script type=\"application/json\" id=\"garrison-data\">");
    out.push_str(&data);
    out.push_str("</script>\n<script>\n");
    out.push_str(SCRIPT);
    out.push_str("</script>\n</body>\n</html>\n");
    out
}

/// The page's fixed markup; the script fills it in.
const BODY: &str = r#"<header>
<h1>garrison report</h1>
<p id="meta"></p>
<p id="totals"></p>
<p id="verify" hidden></p>
<form id="filters" autocomplete="off">
<label>namespace <select id="f-ns"><option value="">all</option></select></label>
<label>kind <select id="f-kind"><option value="">all</option></select></label>
<label>cluster <input id="f-cluster" type="search" placeholder="eu-, us-east" size="14"></label>
<label>application <input id="f-app" type="search" placeholder="name or policy" size="14"></label>
<label><input id="f-changed" type="checkbox"> changed</label>
<label><input id="f-held" type="checkbox"> held back</label>
<span id="shown"></span>
</form>
<p class="legend"><span class="cell sample">3</span> replicas <span class="cell sample">&#9679;</span> object without replicas <span class="cell sample fort">3</span> fort <span class="cell sample held">3</span> held (frozen) <span class="cell sample added">3</span> added <span class="cell sample changed">3</span> changed <span class="cell sample removed">3</span> removed <span class="cell sample heldback">3</span> change held back <span class="pausedmark">&#10074;&#10074;</span> paused cluster</p>
</header>
<noscript><p class="noscript">The matrix is drawn by the page's script: allow JavaScript for this file.</p></noscript>
<main id="grid" tabindex="0"><div id="sizer"><div id="head"></div><div id="body"></div></div></main>
<aside id="explain" hidden>
<p class="close"><a href="" id="explain-close" title="close">&#10005;</a></p>
<h2 id="explain-title"></h2>
<p id="explain-command"></p>
<pre id="explain-text"></pre>
</aside>
<aside id="works" hidden>
<p class="close"><a href="" id="works-close" title="close">&#10005;</a></p>
<h2>Compared with Karmada's Works</h2>
<div id="works-text"></div>
</aside>
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_token_says_what_the_cluster_has() {
        let token = |cell: Cell| cell.token();
        assert_eq!(token(Cell::default()), "");
        let present = Cell {
            present: true,
            ..Cell::default()
        };
        assert_eq!(token(present.clone()), ".");
        let share = Cell {
            replicas: Some(3),
            ..present.clone()
        };
        assert_eq!(token(share.clone()), "3");
        assert_eq!(
            token(Cell {
                fort: true,
                held: true,
                change: Some(Change::Changed),
                previous: Some(2),
                ..share.clone()
            }),
            "3fhc<2"
        );
        assert_eq!(
            token(Cell {
                made: Some(5),
                held_back: Some(Change::Changed),
                would_be: Some(4),
                ..share.clone()
            }),
            "5C~3>4"
        );
        // Gone, with the share it had; held back, with the share it would get.
        assert_eq!(
            token(Cell {
                change: Some(Change::Removed),
                previous: Some(2),
                ..Cell::default()
            }),
            "r<2"
        );
        assert_eq!(
            token(Cell {
                held_back: Some(Change::Added),
                would_be: Some(2),
                ..Cell::default()
            }),
            "A>2"
        );
    }

    #[test]
    fn a_created_namespace_is_known_by_its_file() {
        for name in ["shop", "kube-x", "a.b"] {
            let key = namespace_key(name);
            let file = layout::path::object_path(&key);
            assert_eq!(namespace_of_file(Format::Manifests, &file), Some(key));
        }
        assert_eq!(
            namespace_of_file(
                Format::Manifests,
                "_cluster/clusterrole.rbac.authorization.k8s.io_x.yaml"
            ),
            None
        );
        assert_eq!(
            namespace_of_file(Format::Work, "_cluster/namespace_shop.yaml"),
            None
        );
        assert_eq!(unescape("a%2Fb"), Some("a/b".to_string()));
        assert_eq!(unescape("a%2"), None);
    }

    #[test]
    fn a_work_file_is_known_whatever_its_cluster() {
        let key = namespace_key("shop");
        let layout = Layout::new(Format::Work);
        let (a, b) = (layout.object(&key, "a"), layout.object(&key, "b"));
        assert_ne!(a, b);
        assert_eq!(identity(Format::Work, &a), identity(Format::Work, &b));
        assert_eq!(identity(Format::Manifests, "shop/x.yaml"), "shop/x.yaml");
    }
}
