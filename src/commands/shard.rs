//! Rendering past one machine: `render --shard K/N --shard-dir DIR` renders
//! shard K's clusters (every N-th cluster in name order) against the stored
//! render; `render --merge-shards DIR...` reads the shards back through
//! [`combine`], which checks that they come from the same stored render and
//! cover 1..N once each. Scheduling is global, so every shard computes the
//! same bindings; they must agree byte for byte.

use super::pipeline::{self, Purpose, Request};
use super::printer::Printer;
use super::settings::{Guards, Location, RenderSettings, Verbosity};
use super::{ExitStatus, Stop};
use crate::model::layout::{Tree, MARKER_FILE};
use crate::plan::Scope;
use crate::report;
use crate::store;
use crate::store::directory;
use anyhow::{bail, Context};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The marker of a shard directory: which shard of how many, rendered
/// against which stored render, and what the holds of its clusters keep
/// back (which the merge reports, having rendered no cluster itself).
fn shard_marker(
    index: usize,
    count: usize,
    base: Option<&str>,
    format: crate::model::layout::Format,
    held_back: &BTreeMap<String, report::Counts>,
) -> Vec<u8> {
    let format = match format {
        crate::model::layout::Format::Manifests => "manifests",
        crate::model::layout::Format::Work => "work",
    };
    let value = serde_json::json!({
        "generator": "garrison",
        "layout": 1,
        "format": format,
        "shard": { "index": index, "count": count, "base": base, "held_back": held_back },
    });
    let mut bytes = serde_json::to_vec(&value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Render shard `index` of `count` into `dir`, against the render stored
/// at `base`. The shard records the base's tip, so that the merge can
/// refuse shards of different bases.
pub fn render(
    settings: &RenderSettings,
    (index, count): (usize, usize),
    dir: &Path,
    base: &Location,
    printer: &Printer,
) -> Result<ExitStatus, Stop> {
    let _lock = store::lock(dir)?;
    // The previous render is read as `diff` reads it: under the shared
    // lock, never half of an update (`merge` holds the exclusive one).
    let previous = match base {
        Location::Dir(out) if out.exists() => Some(store::lock_shared(out)?),
        _ => None,
    };
    let store::Base { tip, tree } = store::read_base(base, &settings.repo.root)?;
    drop(previous);
    let mut skip = base.skip();
    skip.push(dir.to_path_buf());
    let outcome = pipeline::run(
        Request {
            repo: &settings.repo,
            skip,
            previous: tree.into(),
            format: Some(settings.format),
            scope: Scope::Shard { index, count },
            // The merge judges what is removed, once, from every shard.
            purpose: Purpose::Render {
                reuse: settings.reuse,
                guards: Guards::ALLOW,
            },
        },
        printer,
    )?;
    let summary = report::Summary::new(
        &outcome.plan,
        &outcome.previous,
        &outcome.tree,
        &outcome.kept,
        &outcome.shadow,
        outcome.format,
    );
    let mut tree = outcome.tree;
    tree.insert(
        MARKER_FILE.to_string(),
        shard_marker(
            index,
            count,
            tip.as_deref(),
            outcome.format,
            &summary.held_back,
        ),
    );
    directory::write_tree(dir, &tree, &Tree::new())
        .with_context(|| format!("cannot write shard {index}/{count} to `{}`", dir.display()))?;
    printer.summary(&summary, settings.verbosity == Verbosity::Quiet)?;
    Ok(ExitStatus::Success)
}

/// What a shard directory says about itself.
struct ShardInfo {
    index: usize,
    count: usize,
    base: Option<String>,
    held_back: BTreeMap<String, report::Counts>,
}

fn shard_info(dir: &Path, tree: &Tree) -> anyhow::Result<ShardInfo> {
    let marker = tree
        .get(MARKER_FILE)
        .with_context(|| format!("`{}` is not a shard written by --shard", dir.display()))?;
    let value: serde_json::Value = serde_json::from_slice(marker)
        .with_context(|| format!("`{}` has an unreadable marker", dir.display()))?;
    let shard = value
        .get("shard")
        .with_context(|| format!("`{}` is a whole render, not a shard", dir.display()))?;
    let number = |key: &str| {
        shard
            .get(key)
            .and_then(serde_json::Value::as_u64)
            .map(|n| n as usize)
    };
    match (number("index"), number("count")) {
        (Some(index), Some(count)) => Ok(ShardInfo {
            index,
            count,
            base: shard
                .get("base")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string),
            held_back: shard
                .get("held_back")
                .and_then(|held| serde_json::from_value(held.clone()).ok())
                .unwrap_or_default(),
        }),
        _ => bail!(
            "`{}` has a marker without a shard index and count",
            dir.display()
        ),
    }
}

/// The shards of a render, combined.
pub struct Combined {
    /// Every file of every shard, but the shards' markers.
    pub tree: Tree,
    /// What the holds keep back, per held cluster of any shard.
    pub held_back: BTreeMap<String, report::Counts>,
}

/// The files of the shard directories `shards`, combined. Refused unless
/// they are cut from one fleet into the same number of parts, were
/// rendered against `tip` (the stored render's), cover every part once
/// and agree on every file they share (the bindings).
pub fn combine(shards: &[PathBuf], tip: Option<&str>) -> anyhow::Result<Combined> {
    let mut merged = Tree::new();
    let mut held_back = BTreeMap::new();
    let mut seen: Vec<usize> = Vec::new();
    let mut count = None;
    for dir in shards {
        let tree = directory::read_tree(dir)
            .with_context(|| format!("cannot read shard `{}`", dir.display()))?;
        let info = shard_info(dir, &tree)?;
        if *count.get_or_insert(info.count) != info.count {
            bail!(
                "`{}` is shard {}/{}, but other shards were cut into {} parts",
                dir.display(),
                info.index,
                info.count,
                count.unwrap_or(0)
            );
        }
        if info.base.as_deref() != tip {
            bail!(
                "`{}` was rendered against {}, but the stored render is now at {}; render the shards again",
                dir.display(),
                info.base.as_deref().unwrap_or("no previous render"),
                tip.unwrap_or("no previous render")
            );
        }
        if seen.contains(&info.index) {
            bail!("shard {}/{} is given twice", info.index, info.count);
        }
        seen.push(info.index);
        held_back.extend(info.held_back);
        for (path, bytes) in tree.into_iter().filter(|(p, _)| p != MARKER_FILE) {
            if let Some(other) = merged.get(&path) {
                if other != &bytes {
                    bail!("shards disagree on `{path}`; render every shard from the same source and stored render");
                }
            }
            merged.insert(path, bytes);
        }
    }
    let count = count.unwrap_or(0);
    let missing: Vec<String> = (1..=count)
        .filter(|i| !seen.contains(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        bail!(
            "shards {} are missing; pass every shard directory",
            missing.join(", ")
        );
    }
    Ok(Combined {
        tree: merged,
        held_back,
    })
}
