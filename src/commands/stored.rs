//! Reading the stored render a command compares against: a directory or a branch.

use crate::cli::StoredRender;
use crate::emit::{write, Tree};
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

    /// The stored tree (empty when nothing is stored yet).
    pub fn read(&self, repo: &Path) -> anyhow::Result<Tree> {
        match self {
            // Nothing stored yet: no lock, so reading creates no directory.
            Stored::Dir(dir) if !dir.exists() => Ok(Tree::new()),
            Stored::Dir(dir) => {
                // A small render is applied in place: the lock finishes one a
                // crash interrupted and refuses while one runs, so the tree
                // read is one render, not a mix of two. Readers share it.
                let _lock = write::lock_shared(dir)?;
                write::read_tree(dir).context("cannot read the stored render")
            }
            Stored::Branch(branch) => Ok(crate::git::read_branch(repo, branch)
                .with_context(|| format!("cannot read branch `{branch}`"))?
                .map(|stored| stored.tree)
                .unwrap_or_default()),
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
