//! The stored render: a directory or a branch that holds the last render,
//! read as the previous render a new one is planned against, and replaced
//! by the new one. A directory is read and written under its lock, the new
//! tree swapped in whole or applied from a journal ([`directory`]); a
//! branch is read and committed with compare-and-swap on its tip, the
//! render made again when another process moved it ([`branch`]). What the
//! render reads of the previous one, and when, is [`previous`].
//!
//! Nothing here decides what a render holds: a render is handed in as a
//! [`Rendered`], made by a closure from the [`Previous`] read here.

pub mod branch;
pub mod directory;
pub mod previous;

use crate::model::layout::{self, Format, Tree};
use crate::report::Summary;
use anyhow::{anyhow, Context};
use previous::Previous;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Where a render is stored: the previous render a command reads, and
/// where `render` puts the new one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Dir(PathBuf),
    Branch(String),
}

impl Location {
    /// Directories the source walk must skip: a render directory may sit
    /// inside the repository, and is no input.
    pub fn skip(&self) -> Vec<PathBuf> {
        match self {
            Location::Dir(dir) => vec![dir.clone()],
            Location::Branch(_) => Vec::new(),
        }
    }
}

/// A new render as the store needs it: the tree to store, against the
/// previous render it was planned on.
pub struct Rendered {
    /// The per-cluster summary against the previous render; a directory
    /// is written, a commit made, only when it shows a change.
    pub summary: Summary,
    /// The new render equals the previous one, provenance files aside
    /// ([`previous::unchanged`]).
    pub unchanged: bool,
    pub tree: Tree,
    /// Files kept from the previous render without being read.
    pub kept: BTreeSet<String>,
    pub format: Format,
    /// The previous render's files the render read, and those it did not.
    pub previous: Tree,
    pub unread: BTreeSet<String>,
}

/// The stored tree, for a command that compares with it (`diff`, `check`,
/// `explain`). Nothing stored there is an error, not an empty render: a
/// mistyped `--out` or `--branch` would otherwise make every object look
/// new (SPEC §10). Only `render` starts from nothing.
pub fn read(stored: &Location, repo: &Path) -> anyhow::Result<Tree> {
    match stored {
        // Checked before the lock, which would create the directory.
        Location::Dir(dir) if !dir.is_dir() => anyhow::bail!(
            "`{}` does not exist; render it first with `garrison render --out {}`, or check the path",
            dir.display(),
            dir.display()
        ),
        Location::Dir(dir) => {
            // A small render is applied in place: the lock finishes one a
            // crash interrupted and refuses while one runs, so the tree
            // read is one render, not a mix of two. Readers share it.
            let _lock = directory::lock_shared(dir)?;
            let tree = directory::read_tree(dir).context("cannot read the stored render")?;
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
        Location::Branch(branch) => match branch::read_branch(repo, branch)
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
    let names = branch::branch_names(repo).unwrap_or_default();
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
pub fn read_base(stored: &Location, repo: &Path) -> anyhow::Result<Base> {
    match stored {
        Location::Branch(branch) => {
            let found = branch::read_branch(repo, branch)
                .with_context(|| format!("cannot read branch `{branch}`"))?;
            let (tip, tree) = found.map(|s| (Some(s.commit), s.tree)).unwrap_or_default();
            Ok(Base { tip, tree })
        }
        Location::Dir(dir) => {
            let tree = directory::read_tree(dir).context("cannot read the previous render")?;
            Ok(Base { tip: None, tree })
        }
    }
}

/// The lock on `dir` for a command about to write it: held from reading
/// the previous render to the last write, it keeps other garrison commands
/// out and finishes what an interrupted render left ([`directory::lock`]).
pub fn lock(dir: &Path) -> anyhow::Result<directory::Lock> {
    Ok(directory::lock(dir)?)
}

/// The lock on `dir` for a command that only reads it ([`directory::lock_shared`]).
pub fn lock_shared(dir: &Path) -> anyhow::Result<directory::Lock> {
    Ok(directory::lock_shared(dir)?)
}

/// Render into the directory `out` under its lock: `render` plans against
/// the render `out` holds (the files it needs read on demand; all of them
/// up front with `everything`), and the new tree is swapped in when it
/// differs, or when `out` does not exist yet.
pub fn render_into_directory<E: From<anyhow::Error>>(
    out: &Path,
    everything: bool,
    render: impl FnOnce(Previous<'_>) -> Result<Rendered, E>,
) -> Result<Summary, E> {
    let _lock = lock(out)?;
    let listing = directory::list_tree(out).context("cannot read the previous render")?;
    let fetch =
        |paths: &[String]| -> anyhow::Result<Tree> { Ok(directory::read_files(out, paths)?) };
    let previous =
        Previous::listed(listing, everything, &fetch).context("cannot read the previous render")?;
    let rendered = render(previous)?;
    if rendered.summary.changed() || !out.exists() {
        directory::write_partial(
            out,
            &rendered.tree,
            &rendered.kept,
            &rendered.previous,
            &rendered.unread,
        )
        .with_context(|| write_context(out))?;
    }
    Ok(rendered.summary)
}

/// Swap `tree` into the directory `dir`, which holds `previous`; the
/// caller holds the lock.
pub fn write_directory(dir: &Path, tree: &Tree, previous: &Tree) -> anyhow::Result<()> {
    directory::write_tree(dir, tree, previous).with_context(|| write_context(dir))
}

fn write_context(dir: &Path) -> String {
    format!("cannot write the render to `{}`", dir.display())
}
