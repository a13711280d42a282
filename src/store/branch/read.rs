//! Reading a rendered branch: its tip with every file, or only the blob
//! ids, for a render that reads files when it needs them.

use super::{branch_ref, current_tip, open, read_error, split_prefix, Error};
use crate::model::layout::Tree;
use git2::{ErrorCode, ObjectType, Oid, Repository};
use std::collections::BTreeMap;
use std::path::Path;

/// A branch's tip commit and its files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tip {
    /// Full SHA of the tip; pass it back as [`CommitRequest::expected_parent`].
    pub commit: String,
    pub tree: Tree,
}

/// A branch as listed: its tip and, for every file, the id of its blob,
/// without reading any blob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing {
    /// Full SHA of the tip; pass it back as [`CommitRequest::expected_parent`].
    pub commit: String,
    /// Blob id (hex) by `/`-separated path.
    pub blobs: BTreeMap<String, String>,
}

/// The tip of `refs/heads/<branch>` and all its files, or `None` when the
/// branch does not exist.
pub fn read_branch(repo: &Path, branch: &str) -> Result<Option<Tip>, Error> {
    read_branch_dir(repo, branch, None)
}

/// Like [`read_branch`], but only the files under directory `prefix` of the
/// branch, with paths relative to it. A missing directory reads as empty.
pub fn read_branch_dir(
    repo: &Path,
    branch: &str,
    prefix: Option<&str>,
) -> Result<Option<Tip>, Error> {
    let refname = branch_ref(repo, branch)?;
    let prefix = prefix.map(split_prefix).transpose()?;
    let git = open(repo)?;
    let Some(tip) = current_tip(&git, repo, &refname)? else {
        return Ok(None);
    };
    let commit = git
        .find_commit(tip)
        .map_err(|source| read_error(repo, format!("commit `{tip}`"), source))?;
    let root = commit
        .tree()
        .map_err(|source| read_error(repo, format!("the tree of commit `{tip}`"), source))?;
    let mut tree = Tree::new();
    let start = match &prefix {
        None => Some(root),
        Some(parts) => {
            let dir = parts.join("/");
            match root.get_path(Path::new(&dir)) {
                Ok(entry) if entry.kind() == Some(ObjectType::Tree) => Some(
                    git.find_tree(entry.id())
                        .map_err(|source| read_error(repo, format!("tree `{dir}`"), source))?,
                ),
                Ok(_) => {
                    return Err(Error::NotADirectory {
                        path: repo.to_path_buf(),
                        branch: branch.to_string(),
                        dir,
                    })
                }
                Err(e) if e.code() == ErrorCode::NotFound => None,
                Err(source) => return Err(read_error(repo, format!("tree `{dir}`"), source)),
            }
        }
    };
    if let Some(start) = start {
        let mut blobs = BTreeMap::new();
        collect(&git, repo, branch, &start, "", &mut blobs)?;
        for (path, id) in blobs {
            tree.insert(path.clone(), blob_bytes(&git, repo, &path, id)?);
        }
    }
    Ok(Some(Tip {
        commit: tip.to_string(),
        tree,
    }))
}

/// The names of the repository's local branches (`refs/heads/`), sorted:
/// the names a misspelt `--branch` is compared with. A name that is not
/// UTF-8 is left out.
pub fn branch_names(repo: &Path) -> Result<Vec<String>, Error> {
    let git = open(repo)?;
    let branches = git
        .branches(Some(git2::BranchType::Local))
        .map_err(|source| read_error(repo, "the branches", source))?;
    let mut names = Vec::new();
    for branch in branches {
        let (branch, _) = branch.map_err(|source| read_error(repo, "the branches", source))?;
        if let Ok(Some(name)) = branch.name() {
            names.push(name.to_string());
        }
    }
    names.sort();
    Ok(names)
}

/// The tip of `refs/heads/<branch>` and the blob id of every file, or
/// `None` when the branch does not exist. No blob is read.
pub fn list_branch(repo: &Path, branch: &str) -> Result<Option<Listing>, Error> {
    let refname = branch_ref(repo, branch)?;
    let git = open(repo)?;
    let Some(tip) = current_tip(&git, repo, &refname)? else {
        return Ok(None);
    };
    let root = git
        .find_commit(tip)
        .and_then(|commit| commit.tree())
        .map_err(|source| read_error(repo, format!("the tree of commit `{tip}`"), source))?;
    let mut blobs = BTreeMap::new();
    collect(&git, repo, branch, &root, "", &mut blobs)?;
    Ok(Some(Listing {
        commit: tip.to_string(),
        blobs: blobs
            .into_iter()
            .map(|(path, id)| (path, id.to_string()))
            .collect(),
    }))
}

/// The contents of the blobs `(path, blob id)` (ids from a [`Listing`]), by path.
pub fn read_blobs(repo: &Path, blobs: &[(&str, &str)]) -> Result<Tree, Error> {
    let git = open(repo)?;
    let mut tree = Tree::new();
    for (path, id) in blobs {
        let oid = Oid::from_str(id)
            .map_err(|source| read_error(repo, format!("file `{path}`"), source))?;
        tree.insert((*path).to_string(), blob_bytes(&git, repo, path, oid)?);
    }
    Ok(tree)
}

fn blob_bytes(git: &Repository, repo: &Path, path: &str, id: Oid) -> Result<Vec<u8>, Error> {
    git.find_blob(id)
        .map(|blob| blob.content().to_vec())
        .map_err(|source| read_error(repo, format!("file `{path}`"), source))
}

pub(super) fn collect(
    git: &Repository,
    repo: &Path,
    branch: &str,
    tree: &git2::Tree<'_>,
    base: &str,
    out: &mut BTreeMap<String, Oid>,
) -> Result<(), Error> {
    for entry in tree.iter() {
        let Ok(name) = entry.name() else {
            return Err(Error::NonUtf8Name {
                path: repo.to_path_buf(),
                branch: branch.to_string(),
                file: format!("{base}{}", String::from_utf8_lossy(entry.name_bytes())),
            });
        };
        let path = format!("{base}{name}");
        match entry.kind() {
            Some(ObjectType::Tree) => {
                let sub = git
                    .find_tree(entry.id())
                    .map_err(|source| read_error(repo, format!("tree `{path}`"), source))?;
                collect(git, repo, branch, &sub, &format!("{path}/"), out)?;
            }
            Some(ObjectType::Blob) => {
                out.insert(path, entry.id());
            }
            // Submodule links and anything else are not part of a render.
            _ => {}
        }
    }
    Ok(())
}
