//! The stored render: reading it for a command to compare or render
//! against, and storing a new render in its place. A directory is read
//! and written under its lock, the new tree swapped in whole or applied
//! from a journal ([`crate::emit::write`]); a branch is committed with
//! compare-and-swap on its tip, and when another process moved the branch
//! meanwhile, the new tip is read and the render made again. Every commit
//! records where it came from ([`super::provenance`]).

use super::pipeline::{self, Outcome, Previous};
use super::printer::Printer;
use super::provenance::Provenance;
use super::settings::Stored;
use super::{ExitStatus, Stop};
use crate::emit::write;
use crate::git::Source;
use crate::model::layout::{self, Format, Tree};
use crate::report::Summary;
use anyhow::{anyhow, Context};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// How many times a render is tried when another process moved the branch.
const MAX_ATTEMPTS: usize = 5;

/// How many changed files, and how many untracked input files, a refusal
/// names.
const FILES_LISTED: usize = 10;

/// The stored tree, for a command that compares with it (`diff`, `check`,
/// `explain`). Nothing stored there is an error, not an empty render: a
/// mistyped `--out` or `--branch` would otherwise make every object look
/// new (SPEC §10). Only `render` starts from nothing.
pub fn read(stored: &Stored, repo: &Path) -> anyhow::Result<Tree> {
    match stored {
        // Checked before the lock, which would create the directory.
        Stored::Dir(dir) if !dir.is_dir() => anyhow::bail!(
            "`{}` does not exist; render it first with `garrison render --out {}`, or check the path",
            dir.display(),
            dir.display()
        ),
        Stored::Dir(dir) => {
            // A small render is applied in place: the lock finishes one a
            // crash interrupted and refuses while one runs, so the tree
            // read is one render, not a mix of two. Readers share it.
            let _lock = write::lock_shared(dir)?;
            let tree = write::read_tree(dir).context("cannot read the stored render")?;
            if !tree.contains_key(layout::MARKER_FILE) {
                anyhow::bail!(
                    "`{}` holds no garrison render (it has no `{}`); render it first with `garrison render --out {}`, or check the path",
                    dir.display(),
                    layout::MARKER_FILE,
                    dir.display()
                );
            }
            Ok(tree)
        }
        Stored::Branch(branch) => match crate::git::read_branch(repo, branch)
            .with_context(|| format!("cannot read branch `{branch}`"))?
        {
            Some(stored) => Ok(stored.tree),
            None => Err(missing_branch(repo, branch)),
        },
    }
}

/// Why `branch` holds nothing to compare with: a name a few edits from a
/// branch that exists is most likely that branch misspelt, and rendering
/// it, as the message says otherwise, would start a second render beside
/// the first.
fn missing_branch(repo: &Path, branch: &str) -> anyhow::Error {
    let names = crate::git::branch_names(repo).unwrap_or_default();
    let repo = repo.display();
    match crate::diag::closest(branch, names.iter().map(String::as_str)) {
        Some(meant) => anyhow!(
            "branch `{branch}` does not exist in `{repo}`; did you mean `{meant}`?"
        ),
        None => anyhow!(
            "branch `{branch}` does not exist in `{repo}`; render it first with `garrison render --branch {branch}`, or check the name"
        ),
    }
}

/// A stored render to render shards against: nothing stored yet is an
/// empty render.
pub struct Base {
    /// A branch's tip, which the shards record and the merge commits on.
    pub tip: Option<String>,
    pub tree: Tree,
}

/// The render stored at `stored`, whole; the caller holds the directory's
/// lock.
pub fn read_base(stored: &Stored, repo: &Path) -> anyhow::Result<Base> {
    match stored {
        Stored::Branch(branch) => {
            let found = crate::git::read_branch(repo, branch)
                .with_context(|| format!("cannot read branch `{branch}`"))?;
            let (tip, tree) = found.map(|s| (Some(s.commit), s.tree)).unwrap_or_default();
            Ok(Base { tip, tree })
        }
        Stored::Dir(dir) => {
            let tree = write::read_tree(dir).context("cannot read the previous render")?;
            Ok(Base { tip: None, tree })
        }
    }
}

/// The lock on `dir` for a command about to write it: held from reading
/// the previous render to the last write, it keeps other garrison commands
/// out and finishes what an interrupted render left ([`write::lock`]).
pub fn lock(dir: &Path) -> anyhow::Result<write::Lock> {
    Ok(write::lock(dir)?)
}

/// The lock on `dir` for a command that only reads it ([`write::lock_shared`]).
pub fn lock_shared(dir: &Path) -> anyhow::Result<write::Lock> {
    Ok(write::lock_shared(dir)?)
}

/// Render into the directory `out` under its lock: `render` plans against
/// the render `out` holds (the files it needs read on demand; all of them
/// up front with `everything`), and the new tree is swapped in when it
/// differs, or when `out` does not exist yet.
pub fn render_into_directory(
    out: &Path,
    everything: bool,
    render: impl FnOnce(Previous<'_>) -> Result<Outcome, Stop>,
) -> Result<Summary, Stop> {
    let _lock = lock(out)?;
    let listing = write::list_tree(out).context("cannot read the previous render")?;
    let fetch = |paths: &[String]| -> anyhow::Result<Tree> { Ok(write::read_files(out, paths)?) };
    let previous =
        Previous::listed(listing, everything, &fetch).context("cannot read the previous render")?;
    let outcome = render(previous)?;
    let summary = outcome.summary();
    if summary.changed() || !out.exists() {
        write::write_partial(
            out,
            &outcome.tree,
            &outcome.kept,
            &outcome.previous.files,
            &outcome.previous.unread,
        )
        .with_context(|| write_context(out))?;
    }
    Ok(summary)
}

/// Swap `tree` into the directory `dir`, which holds `previous`; the
/// caller holds the lock.
pub fn write_directory(dir: &Path, tree: &Tree, previous: &Tree) -> anyhow::Result<()> {
    write::write_tree(dir, tree, previous).with_context(|| write_context(dir))
}

fn write_context(dir: &Path) -> String {
    format!("cannot write the render to `{}`", dir.display())
}

/// What storing a render on a branch did.
pub enum Saved {
    /// The branch holds this render already, provenance aside: no commit.
    Current,
    /// The commit made.
    Committed(String),
    /// The new tree is the tip's own: no commit.
    Unchanged,
}

/// A branch a render is committed to, and what its commits record.
pub struct Branch<'a> {
    /// The source repository, which holds the branch.
    pub repo: &'a Path,
    pub name: &'a str,
    /// The source commit rendered, if the source is a git repository.
    pub source: Option<&'a Source>,
    /// The source's uncommitted changes were allowed (`--allow-dirty`).
    pub allow_dirty: bool,
}

/// The source commit, refusing a dirty working tree unless `allow_dirty`.
/// The working tree is what is rendered, so an untracked file garrison
/// reads as input is an uncommitted change like a modified tracked file;
/// other untracked files (notes, a render directory, the parse cache) are
/// not.
pub fn source(repo: &Path, allow_dirty: bool, printer: &Printer) -> Result<Option<Source>, Stop> {
    let Some(mut source) =
        crate::git::source_info(repo).context("cannot read the source repository")?
    else {
        return Ok(None);
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
    if (source.dirty || !untracked.is_empty()) && !allow_dirty {
        let repo = repo.display();
        let (changed, new) = (listed(&source.changed), listed(&untracked));
        let what = match (source.dirty, untracked.is_empty()) {
            (true, true) => {
                format!("tracked files in `{repo}` have uncommitted changes: {changed}; commit them")
            }
            (true, false) => format!(
                "tracked files in `{repo}` have uncommitted changes: {changed}, and input files are untracked: {new}; commit them"
            ),
            (false, _) => format!(
                "input files in `{repo}` are untracked: {new}; commit them or list them in .gitignore"
            ),
        };
        printer.error(format_args!(
            "{what}, or pass --allow-dirty to render the working tree anyway"
        ));
        return Err(Stop::Exit(ExitStatus::Error));
    }
    // Recorded in the marker and the commit message as any uncommitted change.
    source.dirty |= !untracked.is_empty();
    Ok(Some(source))
}

/// The first [`FILES_LISTED`] of `paths`, quoted, and how many more.
fn listed(paths: &[String]) -> String {
    let mut listed: Vec<String> = paths
        .iter()
        .take(FILES_LISTED)
        .map(|path| format!("`{path}`"))
        .collect();
    if paths.len() > FILES_LISTED {
        listed.push(format!("and {} more", paths.len() - FILES_LISTED));
    }
    listed.join(", ")
}

/// Render onto `branch` and commit: `render` plans against the branch's tip
/// (the files it needs read on demand; all of them up front with
/// `everything`), and the new tree is committed with that tip as the
/// expected parent. When another process moved the branch meanwhile, the
/// new tip is read and rendered again, up to [`MAX_ATTEMPTS`] times; the
/// branch is never overwritten. A tip rendered from a newer source commit
/// ends the command with nothing done: a late CI run must not put an older
/// source over a newer render.
pub fn render_onto_branch(
    branch: &Branch<'_>,
    everything: bool,
    printer: &Printer,
    mut render: impl FnMut(Previous<'_>) -> Result<Outcome, Stop>,
) -> Result<(Summary, Saved), Stop> {
    let (repo, name) = (branch.repo, branch.name);
    for _ in 0..MAX_ATTEMPTS {
        let listing = crate::git::list_branch(repo, name)
            .with_context(|| format!("cannot read branch `{name}`"))?;
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
        let previous = Previous::listed(blobs.keys().cloned(), everything, &fetch)
            .with_context(|| format!("cannot read branch `{name}`"))?;
        if let Some(newer) = newer_source_rendered(repo, &previous.files, branch.source)? {
            printer.notice(format_args!(
                "branch `{name}` already holds the render of {newer}, which is newer than the source commit {}; nothing to do",
                branch.source.map_or("", |s| s.commit.as_str())
            ));
            return Err(Stop::Exit(ExitStatus::Success));
        }
        let outcome = render(previous)?;
        let summary = outcome.summary();
        // Kept files are committed as the blobs they already are.
        let kept: BTreeMap<String, String> = outcome
            .kept
            .iter()
            .filter_map(|p| blobs.get(p).map(|id| (p.clone(), id.clone())))
            .collect();
        let attempt = Attempt {
            parent,
            unchanged: outcome.unchanged(),
            kept: &kept,
            summary: &summary,
            format: outcome.format,
        };
        if let Some(saved) = commit(branch, attempt, outcome.tree, printer)? {
            return Ok((summary, saved));
        }
    }
    Err(anyhow!(
        "branch `{name}` kept moving; gave up after {MAX_ATTEMPTS} attempts without overwriting it"
    )
    .into())
}

/// The source commit recorded on the branch, when it descends from the one
/// being rendered.
fn newer_source_rendered(
    repo: &Path,
    stored: &Tree,
    source: Option<&Source>,
) -> anyhow::Result<Option<String>> {
    let Some(source) = source else {
        return Ok(None);
    };
    let recorded = stored
        .get(layout::MARKER_FILE)
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

/// Commit `tree`, rendered against the branch's tip `parent` (which holds
/// `old`), in one attempt: merged shards were rendered against that tip, so
/// a moved branch is an error, not a reason to render again.
pub fn commit_on(
    branch: &Branch<'_>,
    (parent, old): (Option<String>, &Tree),
    tree: Tree,
    summary: &Summary,
    format: Format,
    printer: &Printer,
) -> Result<Saved, Stop> {
    let none = BTreeSet::new();
    let attempt = Attempt {
        parent,
        unchanged: pipeline::unchanged(old, &none, &tree, &none),
        kept: &BTreeMap::new(),
        summary,
        format,
    };
    match commit(branch, attempt, tree, printer)? {
        Some(saved) => Ok(saved),
        None => Err(anyhow!(
            "branch `{}` moved while the shards were merged; render the shards again",
            branch.name
        )
        .into()),
    }
}

/// One try at committing a rendered tree on top of `parent`.
struct Attempt<'a> {
    parent: Option<String>,
    /// The render equals the branch's, provenance aside.
    unchanged: bool,
    /// Files committed as their existing blobs (path → blob id).
    kept: &'a BTreeMap<String, String>,
    summary: &'a Summary,
    format: Format,
}

/// Commit `tree` (adding provenance) unless nothing changed. `None` when the
/// branch moved: the caller renders again on the new tip, or gives up.
fn commit(
    branch: &Branch<'_>,
    attempt: Attempt<'_>,
    mut tree: Tree,
    printer: &Printer,
) -> anyhow::Result<Option<Saved>> {
    let Attempt {
        parent,
        unchanged,
        kept,
        summary,
        format,
    } = attempt;
    if parent.is_some() && unchanged {
        return Ok(Some(Saved::Current));
    }
    let provenance = Provenance::new(branch.source.cloned(), branch.allow_dirty);
    let tools = tree
        .get(layout::MARKER_FILE)
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(bytes).ok())
        .and_then(|marker| marker.get("tools").cloned());
    tree.insert(
        layout::MARKER_FILE.to_string(),
        provenance.marker(format, tools),
    );
    tree.insert(
        layout::GITATTRIBUTES.to_string(),
        b"* linguist-generated=true\n".to_vec(),
    );
    // What Argo CD's Source Hydrator records, for the promotion tools that
    // read it; nothing to say without a source commit.
    if let Some(source) = &provenance.source {
        tree.insert(
            super::hydrator::FILE.to_string(),
            super::hydrator::metadata(source),
        );
    }
    let message = provenance.commit_message(summary);
    let (author, committer) =
        crate::git::identities(branch.repo).context("cannot commit the render")?;
    let request = crate::git::CommitRequest {
        branch: branch.name,
        prefix: None,
        tree: &tree,
        kept,
        expected_parent: parent.as_deref(),
        message: &message,
        author: &author,
        committer: &committer,
        time: provenance.time,
    };
    match crate::git::commit_tree(branch.repo, &request).context("cannot commit the render")? {
        crate::git::CommitOutcome::Committed { commit, .. } => Ok(Some(Saved::Committed(commit))),
        crate::git::CommitOutcome::Unchanged => Ok(Some(Saved::Unchanged)),
        crate::git::CommitOutcome::Moved { tip } => {
            let tip = tip.unwrap_or_else(|| "a deleted ref".into());
            printer.notice(format_args!(
                "branch `{}` moved to {tip} while rendering; rendering again on the new tip",
                branch.name
            ));
            Ok(None)
        }
    }
}
