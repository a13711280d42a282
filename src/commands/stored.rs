//! Reading the stored render a command compares against: a directory or a branch.

use crate::cli::StoredRender;
use crate::emit::write;
use crate::model::layout::Tree;
use anyhow::Context;
use std::path::{Path, PathBuf};

/// Where the stored render lives.
pub enum Stored {
    Dir(PathBuf),
    Branch(String),
}

impl Stored {
    pub fn from_args(args: &StoredRender) -> Stored {
        match (&args.out, &args.branch) {
            (_, Some(branch)) => Stored::Branch(branch.clone()),
            (Some(out), None) => Stored::Dir(out.clone()),
            (None, None) => Stored::Dir(PathBuf::from("out")),
        }
    }

    /// The stored tree, for a command that compares with it (`diff`,
    /// `check`, `explain`). Nothing stored there is an error, not an empty
    /// render: a mistyped `--out` or `--branch` would otherwise make every
    /// object look new (SPEC §10). Only `render` starts from nothing.
    pub fn read(&self, repo: &Path) -> anyhow::Result<Tree> {
        match self {
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
                if !tree.contains_key(crate::model::layout::MARKER_FILE) {
                    anyhow::bail!(
                        "`{}` holds no garrison render (it has no `{}`); render it first with `garrison render --out {}`, or check the path",
                        dir.display(),
                        crate::model::layout::MARKER_FILE,
                        dir.display()
                    );
                }
                Ok(tree)
            }
            Stored::Branch(branch) => match crate::git::read_branch(repo, branch)
                .with_context(|| format!("cannot read branch `{branch}`"))?
            {
                Some(stored) => Ok(stored.tree),
                None => anyhow::bail!(
                    "branch `{branch}` does not exist in `{}`; render it first with `garrison render --branch {branch}`, or check the name",
                    repo.display()
                ),
            },
        }
    }

    /// Directories the source walk must skip.
    pub fn skip(&self) -> Vec<PathBuf> {
        match self {
            Stored::Dir(dir) => vec![dir.clone()],
            Stored::Branch(_) => Vec::new(),
        }
    }
}
