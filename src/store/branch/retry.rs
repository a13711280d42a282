//! Rendering onto a branch: the render is planned against the branch's
//! tip and committed with that tip as the expected parent; when another
//! process moved the branch meanwhile, the new tip is read and the render
//! made again. Every commit records where it came from ([`super::provenance`],
//! [`super::hydrator`]).

use super::provenance::Provenance;
use super::{hydrator, SourceCommit};
use crate::model::layout::{self, Format, Tree};
use crate::report::Summary;
use crate::store::previous::{self, Previous};
use crate::store::Rendered;
use anyhow::{anyhow, Context};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Arguments;
use std::path::Path;

/// How many times a render is tried when another process moved the branch.
const MAX_ATTEMPTS: usize = 5;

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
    pub source: Option<&'a SourceCommit>,
    /// The source's uncommitted changes were allowed (`--allow-dirty`).
    pub allow_dirty: bool,
}

/// Render onto `branch` and commit: `render` plans against the branch's tip
/// (the files it needs read on demand; all of them up front with
/// `everything`), and the new tree is committed with that tip as the
/// expected parent. When another process moved the branch meanwhile, the
/// new tip is read and rendered again, up to [`MAX_ATTEMPTS`] times; the
/// branch is never overwritten. A tip rendered from a newer source commit
/// ends the render with nothing done (`None`, the reason told through
/// `notice`): a late CI run must not put an older source over a newer
/// render. `notice` tells of each render made again.
pub fn render_onto_branch<E: From<anyhow::Error>>(
    branch: &Branch<'_>,
    everything: bool,
    notice: &dyn Fn(Arguments<'_>),
    mut render: impl FnMut(Previous<'_>) -> Result<Rendered, E>,
) -> Result<Option<(Summary, Saved)>, E> {
    let (repo, name) = (branch.repo, branch.name);
    for _ in 0..MAX_ATTEMPTS {
        let listing = super::list_branch(repo, name)
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
            Ok(super::read_blobs(repo, &wanted)?)
        };
        let previous = Previous::listed(blobs.keys().cloned(), everything, &fetch)
            .with_context(|| format!("cannot read branch `{name}`"))?;
        if let Some(newer) = newer_source_rendered(repo, &previous.files, branch.source)? {
            notice(format_args!(
                "branch `{name}` already holds the render of {newer}, which is newer than the source commit {}; nothing to do",
                branch.source.map_or("", |s| s.commit.as_str())
            ));
            return Ok(None);
        }
        let rendered = render(previous)?;
        // Kept files are committed as the blobs they already are.
        let kept: BTreeMap<String, String> = rendered
            .kept
            .iter()
            .filter_map(|p| blobs.get(p).map(|id| (p.clone(), id.clone())))
            .collect();
        let attempt = Attempt {
            parent,
            unchanged: rendered.unchanged,
            kept: &kept,
            summary: &rendered.summary,
            format: rendered.format,
        };
        if let Some(saved) = commit(branch, attempt, rendered.tree, notice)? {
            return Ok(Some((rendered.summary, saved)));
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
    source: Option<&SourceCommit>,
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
    let newer = super::is_strict_descendant(repo, &recorded, &source.commit)
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
    notice: &dyn Fn(Arguments<'_>),
) -> anyhow::Result<Saved> {
    let none = BTreeSet::new();
    let attempt = Attempt {
        parent,
        unchanged: previous::unchanged(old, &none, &tree, &none),
        kept: &BTreeMap::new(),
        summary,
        format,
    };
    match commit(branch, attempt, tree, notice)? {
        Some(saved) => Ok(saved),
        None => Err(anyhow!(
            "branch `{}` moved while the shards were merged; render the shards again",
            branch.name
        )),
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
    notice: &dyn Fn(Arguments<'_>),
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
        tree.insert(hydrator::FILE.to_string(), hydrator::metadata(source));
    }
    let message = provenance.commit_message(summary);
    let (author, committer) = super::identities(branch.repo).context("cannot commit the render")?;
    let request = super::CommitRequest {
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
    match super::commit_tree(branch.repo, &request).context("cannot commit the render")? {
        super::CommitOutcome::Committed { commit, .. } => Ok(Some(Saved::Committed(commit))),
        super::CommitOutcome::Unchanged => Ok(Some(Saved::Unchanged)),
        super::CommitOutcome::Moved { tip } => {
            let tip = tip.unwrap_or_else(|| "a deleted ref".into());
            notice(format_args!(
                "branch `{}` moved to {tip} while rendering; rendering again on the new tip",
                branch.name
            ));
            Ok(None)
        }
    }
}
