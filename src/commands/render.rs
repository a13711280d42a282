//! `garrison render`: plan against the previous render, then either swap
//! the new tree into `--out` or commit it to `--branch` (compare-and-swap on
//! the branch tip; a moved branch is re-read, re-rendered and retried).

use super::stored::Stored;
use super::{pipeline, ExitStatus, Printer};
use crate::cli::RenderArgs;
use crate::emit::write;
use crate::model::layout::Tree;
use crate::report;
use anyhow::Context;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// How many times a render is retried when another process moved the branch.
const MAX_ATTEMPTS: usize = 5;

pub fn run(args: &RenderArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    if let (Some((index, count)), Some(dir)) = (args.shard, &args.shard_dir) {
        return super::shard::render_shard(args, index, count, dir, printer);
    }
    if !args.merge_shards.is_empty() {
        return super::shard::merge(args, printer);
    }
    match Stored::from_args(&args.target) {
        Stored::Dir(out) => to_directory(args, &out, printer),
        Stored::Branch(branch) => to_branch(args, &branch, printer),
    }
}

fn to_directory(args: &RenderArgs, out: &Path, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let _lock = write::lock(out)?;
    let listing = write::list_tree(out).context("cannot read the previous render")?;
    let fetch = |paths: &[String]| -> anyhow::Result<Tree> { Ok(write::read_files(out, paths)?) };
    let stored = pipeline::Previous::listed(listing, args.rebuild, &fetch)
        .context("cannot read the previous render")?;
    let outcome = match pipeline::run(
        &args.repo,
        vec![out.to_path_buf()],
        stored,
        Some(args.format.into()),
        &crate::plan::Scope::All,
        pipeline::Purpose::Render {
            reuse: !args.rebuild,
            prune: prune(args),
        },
        printer,
    ) {
        Ok(outcome) => outcome,
        Err(status) => return Ok(status),
    };
    let summary = outcome.summary();
    if summary.changed() || !out.exists() {
        write::write_partial(
            out,
            &outcome.tree,
            &outcome.kept,
            &outcome.previous.files,
            &outcome.previous.unread,
        )
        .with_context(|| format!("cannot write the render to `{}`", out.display()))?;
    }
    finish(args, printer, &summary, None, None, None)?;
    Ok(ExitStatus::Success)
}

/// Whether a render may remove most of the previous one.
pub(super) fn prune(args: &RenderArgs) -> pipeline::Prune {
    if args.allow_mass_prune {
        pipeline::Prune::Allow
    } else {
        pipeline::Prune::Refuse
    }
}

/// Report a finished render: the summary on stdout, and for CI the Markdown
/// step summary and the `key=value` outputs, appended as GitHub expects.
pub(super) fn finish(
    args: &RenderArgs,
    printer: &Printer,
    summary: &report::Summary,
    source: Option<&str>,
    commit: Option<&str>,
    branch: Option<&str>,
) -> anyhow::Result<()> {
    printer.summary(summary, args.quiet);
    if args.verbose && !printer.json {
        print!("{}", summary.placements);
    }
    let append = |path: &Path, text: &str| -> anyhow::Result<()> {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open `{}`", path.display()))?;
        file.write_all(text.as_bytes())
            .with_context(|| format!("cannot write `{}`", path.display()))
    };
    if let Some(path) = &args.step_summary {
        append(path, &summary.to_markdown(source, commit, branch))?;
    }
    if let Some(path) = &args.github_output {
        append(path, &summary.outputs(commit))?;
    }
    Ok(())
}

/// How many untracked input files a refusal names.
const UNTRACKED_LISTED: usize = 10;

/// The source commit, refusing a dirty working tree unless allowed. The
/// working tree is what is rendered, so an untracked file garrison reads
/// as input is an uncommitted change like a modified tracked file; other
/// untracked files (notes, a render directory, the parse cache) are not.
fn source(args: &RenderArgs) -> anyhow::Result<Result<Option<crate::git::Source>, ExitStatus>> {
    let repo = &args.repo.repo;
    let Some(mut source) =
        crate::git::source_info(repo).context("cannot read the source repository")?
    else {
        return Ok(Ok(None));
    };
    let untracked: Vec<String> = if source.untracked.is_empty() {
        Vec::new()
    } else {
        let inputs: BTreeSet<String> = crate::load::input_paths(repo).into_iter().collect();
        source
            .untracked
            .iter()
            .filter(|path| inputs.contains(*path))
            .cloned()
            .collect()
    };
    if (source.dirty || !untracked.is_empty()) && !args.allow_dirty {
        let mut listed: Vec<String> = untracked
            .iter()
            .take(UNTRACKED_LISTED)
            .map(|path| format!("`{path}`"))
            .collect();
        if untracked.len() > UNTRACKED_LISTED {
            listed.push(format!("and {} more", untracked.len() - UNTRACKED_LISTED));
        }
        let repo = repo.display();
        let listed = listed.join(", ");
        let what = match (source.dirty, untracked.is_empty()) {
            (true, true) => {
                format!("tracked files in `{repo}` have uncommitted changes; commit them")
            }
            (true, false) => format!(
                "tracked files in `{repo}` have uncommitted changes, and input files are untracked: {listed}; commit them"
            ),
            (false, _) => format!(
                "input files in `{repo}` are untracked: {listed}; commit them or list them in .gitignore"
            ),
        };
        eprintln!(
            "garrison: error: {what}, or pass --allow-dirty to render the working tree anyway"
        );
        return Ok(Err(ExitStatus::Error));
    }
    // Recorded in the marker and the commit message as any uncommitted change.
    source.dirty |= !untracked.is_empty();
    Ok(Ok(Some(source)))
}

fn to_branch(args: &RenderArgs, branch: &str, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let repo = &args.repo.repo;
    let source = match source(args)? {
        Ok(source) => source,
        Err(status) => return Ok(status),
    };
    for _ in 0..MAX_ATTEMPTS {
        let listing = crate::git::list_branch(repo, branch)
            .with_context(|| format!("cannot read branch `{branch}`"))?;
        let (parent, blobs) = match listing {
            Some(listing) => (Some(listing.commit), listing.blobs),
            None => (None, BTreeMap::new()),
        };
        let fetch = |paths: &[String]| -> anyhow::Result<Tree> {
            let wanted: Vec<(&str, &str)> = paths
                .iter()
                .filter_map(|p| blobs.get(p).map(|id| (p.as_str(), id.as_str())))
                .collect();
            Ok(crate::git::read_blobs(repo, &wanted)?)
        };
        let stored = pipeline::Previous::listed(blobs.keys().cloned(), args.rebuild, &fetch)
            .with_context(|| format!("cannot read branch `{branch}`"))?;
        if let Some(newer) = newer_source_rendered(repo, &stored.files, source.as_ref())? {
            eprintln!(
                "garrison: branch `{branch}` already holds the render of {newer}, which is newer than the source commit {}; nothing to do",
                source.as_ref().map_or("", |s| s.commit.as_str())
            );
            return Ok(ExitStatus::Success);
        }
        let scope = crate::plan::Scope::All;
        let outcome = match pipeline::run(
            &args.repo,
            Vec::new(),
            stored,
            Some(args.format.into()),
            &scope,
            pipeline::Purpose::Render {
                reuse: !args.rebuild,
                prune: prune(args),
            },
            printer,
        ) {
            Ok(outcome) => outcome,
            Err(status) => return Ok(status),
        };
        let summary = outcome.summary();
        // Kept files are committed as the blobs they already are.
        let kept: BTreeMap<String, String> = outcome
            .kept
            .iter()
            .filter_map(|p| blobs.get(p).map(|id| (p.clone(), id.clone())))
            .collect();
        let attempt = Attempt {
            branch,
            parent,
            unchanged: outcome.unchanged(),
            kept: &kept,
            summary: &summary,
            source: source.as_ref(),
            format: outcome.format,
        };
        if let Some(status) = commit(args, attempt, outcome.tree, printer)? {
            return Ok(status);
        }
    }
    anyhow::bail!("branch `{branch}` kept moving; gave up after {MAX_ATTEMPTS} attempts without overwriting it")
}

/// The source commit recorded on the branch, when it descends from the one
/// being rendered: a late CI run must not put an older source over a newer render.
fn newer_source_rendered(
    repo: &Path,
    stored: &Tree,
    source: Option<&crate::git::Source>,
) -> anyhow::Result<Option<String>> {
    let Some(source) = source else {
        return Ok(None);
    };
    let recorded = stored
        .get(crate::model::layout::MARKER_FILE)
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(bytes).ok())
        .and_then(|marker| {
            marker
                .pointer("/source/commit")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        });
    let Some(recorded) = recorded else {
        return Ok(None);
    };
    let newer = crate::git::is_strict_descendant(repo, &recorded, &source.commit)
        .context("cannot compare source commits")?;
    Ok(newer.then_some(recorded))
}

/// Commit combined shards; their base must still be the branch tip.
pub(super) fn commit_merged(
    args: &RenderArgs,
    branch: &str,
    (parent, old): (Option<String>, &Tree),
    tree: Tree,
    summary: &report::Summary,
    format: crate::model::layout::Format,
    printer: &Printer,
) -> anyhow::Result<ExitStatus> {
    let source = match source(args)? {
        Ok(source) => source,
        Err(status) => return Ok(status),
    };
    let none = BTreeSet::new();
    let unchanged = pipeline::unchanged(old, &none, &tree, &none);
    let attempt = Attempt {
        branch,
        parent,
        unchanged,
        kept: &BTreeMap::new(),
        summary,
        source: source.as_ref(),
        format,
    };
    match commit(args, attempt, tree, printer)? {
        Some(status) => Ok(status),
        None => anyhow::bail!(
            "branch `{branch}` moved while the shards were merged; render the shards again"
        ),
    }
}

/// One try at committing a rendered tree on top of `parent`.
struct Attempt<'a> {
    branch: &'a str,
    parent: Option<String>,
    /// The render equals the branch's, provenance aside.
    unchanged: bool,
    /// Files committed as their existing blobs (path → blob id).
    kept: &'a BTreeMap<String, String>,
    summary: &'a report::Summary,
    source: Option<&'a crate::git::Source>,
    format: crate::model::layout::Format,
}

/// Commit `tree` (adding provenance) unless nothing changed. `None` when the
/// branch moved: the caller renders again on the new tip.
fn commit(
    args: &RenderArgs,
    attempt: Attempt<'_>,
    mut tree: Tree,
    printer: &Printer,
) -> anyhow::Result<Option<ExitStatus>> {
    let Attempt {
        branch,
        parent,
        unchanged,
        kept,
        summary,
        source,
        format,
    } = attempt;
    let source_commit = source.map(|s| s.commit.as_str());
    if parent.is_some() && unchanged {
        finish(args, printer, summary, source_commit, None, Some(branch))?;
        if !args.quiet && !printer.json {
            println!("branch `{branch}` is current; no commit");
        }
        return Ok(Some(ExitStatus::Success));
    }
    let provenance = super::provenance::Provenance::new(source.cloned(), args.allow_dirty);
    tree.insert(
        crate::model::layout::MARKER_FILE.to_string(),
        provenance.marker(format),
    );
    tree.insert(
        crate::model::layout::GITATTRIBUTES.to_string(),
        b"* linguist-generated=true\n".to_vec(),
    );
    let message = provenance.commit_message(summary);
    let request = crate::git::CommitRequest {
        branch,
        prefix: None,
        tree: &tree,
        kept,
        expected_parent: parent.as_deref(),
        message: &message,
        author_name: "garrison",
        author_email: "garrison@localhost",
        time: provenance.time,
    };
    match crate::git::commit_tree(&args.repo.repo, &request).context("cannot commit the render")? {
        crate::git::CommitOutcome::Committed { commit, .. } => {
            finish(
                args,
                printer,
                summary,
                source_commit,
                Some(&commit),
                Some(branch),
            )?;
            if !args.quiet && !printer.json {
                println!("committed {commit} to `{branch}`");
            }
            Ok(Some(ExitStatus::Success))
        }
        crate::git::CommitOutcome::Unchanged => {
            finish(args, printer, summary, source_commit, None, Some(branch))?;
            Ok(Some(ExitStatus::Success))
        }
        crate::git::CommitOutcome::Moved { tip } => {
            let tip = tip.unwrap_or_else(|| "a deleted ref".into());
            eprintln!("garrison: branch `{branch}` moved to {tip} while rendering; rendering again on the new tip");
            Ok(None)
        }
    }
}
