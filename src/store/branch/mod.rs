//! A render stored on a branch: the source commit a render came from,
//! the render stored on a branch, and committing a new render to it.
//!
//! This is the only module that touches git (and the only one that imports
//! `git2`). Its files, one job each:
//!
//! - [`source`], [`source_info`]: the HEAD commit of the repository holding the inputs,
//!   and whether tracked files have uncommitted changes.
//! - [`read`], [`read_branch`] / [`read_branch_dir`]: the tip of `refs/heads/<branch>`
//!   and every file of its tree (or of one directory of it) as a [`Tree`].
//! - [`commit`], [`commit_tree`]: a [`Tree`] committed to a branch through the object
//!   database only. The working tree, the index and HEAD are never touched,
//!   so it works the same in a bare repository. Blobs that already exist are
//!   not written again, so a render that changes one file writes one blob.
//!
//! # Compare-and-swap and retry
//!
//! A commit names the tip it was rendered against (`expected_parent`, or
//! `None` when the branch must not exist yet). The branch is moved with a
//! compare-and-swap on that value: if anyone moved it in between,
//! [`commit_tree`] returns [`CommitOutcome::Moved`] and changes nothing
//! (the new commit object may stay in the object database, unreferenced,
//! until git collects it). The caller then reads the branch again, renders
//! again against what it read (stickiness and pauses depend on it), and
//! commits again, a bounded number of times. A branch is never overwritten.
//! When the new tree equals the expected parent's tree the result is
//! [`CommitOutcome::Unchanged`] and no commit is made. The swap is checked
//! under the ref's lock file, the same one the git CLI takes, so it also
//! holds against `git push`/`git update-ref` running beside garrison; a ref
//! locked by another writer is waited for briefly, and a lock that stays
//! (a crashed writer) is an error naming it.

mod commit;
mod hydrator;
mod identity;
mod provenance;
mod read;
mod retry;
mod source;

pub use commit::{commit_tree, identities, CommitOutcome, CommitRequest};
pub use identity::{Identity, FALLBACK_EMAIL, FALLBACK_NAME};
pub use read::{branch_names, list_branch, read_blobs, read_branch, read_branch_dir, Listing, Tip};
pub use retry::{commit_on, render_onto_branch, Branch, Saved};
pub use source::{is_strict_descendant, path_in_work_tree, source_info, SourceCommit};

use git2::{ErrorCode, Oid, Repository};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// libgit2 found no `.git` in `path` or above it. Its own message
    /// (`class=Repository (6); code=NotFound (-3)`) says nothing a user can
    /// act on, so this one says what to do instead.
    #[error(
        "`{path}` is not in a git repository, and --branch keeps the render on a branch of one: \
         run `git init` there and commit the inputs, or use --out DIR for a render kept in a directory"
    )]
    NotARepository { path: PathBuf },
    #[error("cannot open the git repository at `{path}`")]
    Open {
        path: PathBuf,
        #[source]
        source: git2::Error,
    },
    #[error("cannot read {what} in the git repository at `{path}`")]
    Read {
        path: PathBuf,
        what: String,
        #[source]
        source: git2::Error,
    },
    #[error("cannot write {what} in the git repository at `{path}`")]
    Write {
        path: PathBuf,
        what: String,
        #[source]
        source: git2::Error,
    },
    #[error("`{branch}` is not a valid branch name (repository `{path}`)")]
    InvalidBranch { path: PathBuf, branch: String },
    #[error("`{commit}` is not a full commit id (expected 40 hexadecimal digits)")]
    InvalidCommitId { commit: String },
    #[error("cannot store `{file}` in git: {reason}")]
    InvalidPath { file: String, reason: &'static str },
    #[error(
        "refusing to commit the render to `{branch}`: it is the branch checked out in `{path}`; \
         choose another branch"
    )]
    CheckedOut { path: PathBuf, branch: String },
    #[error("`{dir}` on branch `{branch}` is not a directory (repository `{path}`)")]
    NotADirectory {
        path: PathBuf,
        branch: String,
        dir: String,
    },
    #[error("`{file}` on branch `{branch}` has a name that is not UTF-8 (repository `{path}`)")]
    NonUtf8Name {
        path: PathBuf,
        branch: String,
        file: String,
    },
}

fn split_path(path: &str) -> Result<Vec<&str>, Error> {
    if path.contains('\0') {
        return Err(invalid(path, "it contains a NUL byte"));
    }
    if path.contains('\\') {
        return Err(invalid(path, "it contains a backslash"));
    }
    let parts: Vec<&str> = path.split('/').collect();
    for part in &parts {
        match *part {
            "" => {
                return Err(invalid(
                    path,
                    "it has an empty component (leading, trailing or double `/`)",
                ))
            }
            "." | ".." => return Err(invalid(path, "it has a `.` or `..` component")),
            p if p.eq_ignore_ascii_case(".git") => {
                return Err(invalid(path, "it has a `.git` component"))
            }
            _ => {}
        }
    }
    Ok(parts)
}

fn split_prefix(prefix: &str) -> Result<Vec<&str>, Error> {
    let trimmed = prefix.trim_matches('/');
    if trimmed.is_empty() {
        return Ok(Vec::new());
    }
    split_path(trimmed)
}

fn invalid(path: &str, reason: &'static str) -> Error {
    Error::InvalidPath {
        file: path.to_string(),
        reason,
    }
}

fn parse_commit_id(id: &str) -> Result<Oid, Error> {
    let bad = || Error::InvalidCommitId {
        commit: id.to_string(),
    };
    if id.len() != 40 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    Oid::from_str(id).map_err(|_| bad())
}

fn branch_ref(repo: &Path, branch: &str) -> Result<String, Error> {
    let refname = format!("refs/heads/{branch}");
    if branch.is_empty() || !git2::Reference::is_valid_name(&refname) {
        return Err(Error::InvalidBranch {
            path: repo.to_path_buf(),
            branch: branch.to_string(),
        });
    }
    Ok(refname)
}

fn open(repo: &Path) -> Result<Repository, Error> {
    Repository::discover(repo).map_err(|source| open_error(repo, source))
}

fn current_tip(git: &Repository, repo: &Path, refname: &str) -> Result<Option<Oid>, Error> {
    match git.find_reference(refname) {
        Ok(reference) => {
            let commit = reference
                .peel_to_commit()
                .map_err(|source| read_error(repo, format!("`{refname}`"), source))?;
            Ok(Some(commit.id()))
        }
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(source) => Err(read_error(repo, format!("`{refname}`"), source)),
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

fn open_error(repo: &Path, source: git2::Error) -> Error {
    if source.code() == ErrorCode::NotFound && source.class() == git2::ErrorClass::Repository {
        return Error::NotARepository {
            path: repo.to_path_buf(),
        };
    }
    Error::Open {
        path: repo.to_path_buf(),
        source,
    }
}

fn read_error(repo: &Path, what: impl Into<String>, source: git2::Error) -> Error {
    Error::Read {
        path: repo.to_path_buf(),
        what: what.into(),
        source,
    }
}

fn write_error(repo: &Path, what: impl Into<String>, source: git2::Error) -> Error {
    Error::Write {
        path: repo.to_path_buf(),
        what: what.into(),
        source,
    }
}

#[cfg(test)]
mod tests;
