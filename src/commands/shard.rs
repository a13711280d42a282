//! Rendering past one machine: `render --shard K/N --shard-dir DIR` renders
//! shard K's clusters (every N-th cluster in name order) against the stored
//! render; `render --merge-shards DIR...` checks that the shards come from
//! the same stored render and cover 1..N once each, combines them, and
//! writes or commits the result like any render. Scheduling is global, so
//! every shard computes the same bindings; they must agree byte for byte.

use super::stored::Stored;
use super::{pipeline, ExitStatus, Printer};
use crate::cli::RenderArgs;
use crate::diag::{Diagnostics, Severity, Sources};
use crate::emit::write;
use crate::model::layout::{Tree, MARKER_FILE};
use crate::plan::Scope;
use crate::report;
use anyhow::{bail, Context};
use std::path::Path;

/// The stored render a shard or merge works against: its tree and (for a branch) its tip.
fn stored(args: &RenderArgs) -> anyhow::Result<(Stored, Option<String>, Tree)> {
    let stored = Stored::from_args(&args.target);
    match &stored {
        Stored::Branch(branch) => {
            let found = crate::git::read_branch(&args.repo.repo, branch)
                .with_context(|| format!("cannot read branch `{branch}`"))?;
            let (tip, tree) = found.map(|s| (Some(s.commit), s.tree)).unwrap_or_default();
            Ok((stored, tip, tree))
        }
        Stored::Dir(dir) => {
            let tree = write::read_tree(dir).context("cannot read the previous render")?;
            Ok((stored, None, tree))
        }
    }
}

fn shard_marker(
    index: usize,
    count: usize,
    base: Option<&str>,
    format: crate::model::layout::Format,
) -> Vec<u8> {
    let format = match format {
        crate::model::layout::Format::Manifests => "manifests",
        crate::model::layout::Format::Work => "work",
    };
    let value = serde_json::json!({
        "generator": "garrison",
        "layout": 1,
        "format": format,
        "shard": { "index": index, "count": count, "base": base },
    });
    let mut bytes = serde_json::to_vec(&value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

pub fn render_shard(
    args: &RenderArgs,
    index: usize,
    count: usize,
    dir: &Path,
    printer: &Printer,
) -> anyhow::Result<ExitStatus> {
    let _lock = write::lock(dir)?;
    // The previous render is read as `diff` reads it: under the shared
    // lock, never half of an update (`merge` holds the exclusive one).
    let previous = match &args.target.out {
        Some(out) if out.exists() => Some(write::lock_shared(out)?),
        _ => None,
    };
    let (stored, base, old_tree) = stored(args)?;
    drop(previous);
    let mut skip = stored.skip();
    skip.push(dir.to_path_buf());
    let scope = Scope::Shard { index, count };
    let outcome = match pipeline::run(
        &args.repo,
        skip,
        old_tree.into(),
        Some(args.format.into()),
        &scope,
        // The merge judges what is removed, once, from every shard.
        pipeline::Purpose::Render {
            reuse: !args.rebuild,
            prune: pipeline::Prune::Allow,
        },
        printer,
    ) {
        Ok(outcome) => outcome,
        Err(status) => return Ok(status),
    };
    let mut tree = outcome.tree;
    tree.insert(
        MARKER_FILE.to_string(),
        shard_marker(index, count, base.as_deref(), outcome.format),
    );
    write::write_tree(dir, &tree, &Tree::new())
        .with_context(|| format!("cannot write shard {index}/{count} to `{}`", dir.display()))?;
    let summary = report::Summary::new(
        &outcome.plan,
        &outcome.previous,
        &tree,
        &outcome.kept,
        &outcome.shadow,
        outcome.format,
    );
    printer.summary(&summary, args.quiet);
    Ok(ExitStatus::Success)
}

/// What a shard directory says about itself.
struct ShardInfo {
    index: usize,
    count: usize,
    base: Option<String>,
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
        }),
        _ => bail!(
            "`{}` has a marker without a shard index and count",
            dir.display()
        ),
    }
}

pub fn merge(args: &RenderArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let _lock = match &args.target.out {
        Some(out) => Some(write::lock(out)?),
        None => None,
    };
    let (stored, tip, old_tree) = stored(args)?;
    let mut merged = Tree::new();
    let mut seen: Vec<usize> = Vec::new();
    let mut count = None;
    for dir in &args.merge_shards {
        let tree = write::read_tree(dir)
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
        if info.base != tip {
            bail!(
                "`{}` was rendered against {}, but the stored render is now at {}; render the shards again",
                dir.display(),
                info.base.as_deref().unwrap_or("no previous render"),
                tip.as_deref().unwrap_or("no previous render")
            );
        }
        if seen.contains(&info.index) {
            bail!("shard {}/{} is given twice", info.index, info.count);
        }
        seen.push(info.index);
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
    // The summary needs the plan's view of pauses and forts, not its objects.
    let outcome = match pipeline::run(
        &args.repo,
        stored.skip(),
        old_tree.into(),
        Some(args.format.into()),
        &Scope::ScheduleOnly,
        pipeline::Purpose::Compare {
            prune: pipeline::Prune::Allow,
        },
        printer,
    ) {
        Ok(outcome) => outcome,
        Err(status) => return Ok(status),
    };
    if super::render::prune(args) == pipeline::Prune::Refuse {
        let none = Default::default();
        if let Some(refusal) = pipeline::mass_prune(
            &outcome.plan,
            &outcome.previous,
            (&merged, &none),
            &outcome.mass_prune,
            Severity::Error,
        ) {
            printer.diagnostics(&Diagnostics(vec![refusal]), &Sources::default());
            return Ok(ExitStatus::Error);
        }
    }
    merged.insert(
        MARKER_FILE.to_string(),
        outcome.tree.get(MARKER_FILE).cloned().unwrap_or_default(),
    );
    let summary = report::Summary::new(
        &outcome.plan,
        &outcome.previous,
        &merged,
        &outcome.kept,
        &Tree::new(),
        outcome.format,
    );
    match stored {
        Stored::Dir(out) => {
            if summary.changed() || !out.exists() {
                write::write_tree(&out, &merged, &outcome.previous.files)
                    .with_context(|| format!("cannot write the render to `{}`", out.display()))?;
            }
            super::render::finish(args, printer, &summary, None, None, None)?;
            Ok(ExitStatus::Success)
        }
        Stored::Branch(branch) => super::render::commit_merged(
            args,
            &branch,
            (tip, &outcome.previous.files),
            merged,
            &summary,
            outcome.format,
            printer,
        ),
    }
}
