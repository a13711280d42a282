//! Git storage for the branch mode: the source commit a render came from,
//! the render stored on a branch, and committing a new render to it.
//!
//! This is the only module that touches git (and the only one that imports
//! `git2`). It owns three things:
//!
//! - [`source_info`]: the HEAD commit of the repository holding the inputs,
//!   and whether tracked files have uncommitted changes.
//! - [`read_branch`] / [`read_branch_dir`]: the tip of `refs/heads/<branch>`
//!   and every file of its tree (or of one directory of it) as a [`Tree`].
//! - [`commit_tree`]: a [`Tree`] committed to a branch through the object
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

mod identity;

pub use identity::{Identity, FALLBACK_EMAIL, FALLBACK_NAME};

use crate::model::layout::Tree;
use git2::{ErrorCode, FileMode, ObjectType, Oid, Repository, Signature, StatusOptions, Time};
use std::collections::BTreeMap;
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

/// The commit the inputs were read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// Full SHA of HEAD.
    pub commit: String,
    /// First line (summary) of the commit message.
    pub subject: String,
    /// `Name <email>` of the author.
    pub author: String,
    /// Committer time of HEAD, seconds since the epoch (usable as
    /// [`CommitRequest::time`]).
    pub time: i64,
    /// Author time of HEAD, seconds since the epoch.
    pub authored: i64,
    /// The whole commit message, as stored.
    pub message: String,
    /// The trailers of the message's trailer block (`Key: value`, as
    /// `git interpret-trailers --parse` reads them: continuation lines
    /// unfolded), in order.
    pub trailers: Vec<(String, String)>,
    /// The URL of the remote `origin`, without any user name or password
    /// it carries; `None` without such a remote.
    pub origin_url: Option<String>,
    /// Tracked files are modified or staged (untracked files do not count).
    pub dirty: bool,
    /// Those tracked files, sorted, relative to the source directory with
    /// `/` (`../` for one outside it: a change anywhere in the repository
    /// is one the source commit does not hold).
    pub changed: Vec<String>,
    /// Untracked files under the source directory that git does not ignore,
    /// relative to it with `/`. Those garrison reads as inputs are
    /// uncommitted changes too; which they are, only the loader knows.
    pub untracked: Vec<String>,
}

/// Whether `descendant` has `ancestor` in its history (and is not it).
/// Unknown commits (for example from a shallow clone) count as unrelated.
pub fn is_strict_descendant(repo: &Path, descendant: &str, ancestor: &str) -> Result<bool, Error> {
    let git = open(repo)?;
    let (Ok(descendant), Ok(ancestor)) = (Oid::from_str(descendant), Oid::from_str(ancestor))
    else {
        return Ok(false);
    };
    if descendant == ancestor {
        return Ok(false);
    }
    Ok(git
        .graph_descendant_of(descendant, ancestor)
        .unwrap_or(false))
}

/// A branch as stored: its tip and its files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
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

/// What to commit and where.
#[derive(Clone, Copy, Debug)]
pub struct CommitRequest<'a> {
    /// Branch name without `refs/heads/`.
    pub branch: &'a str,
    /// The directory of the branch the render lives in (`/`-separated);
    /// `None` = the whole branch. With a directory, the rest of the branch
    /// is kept as it is.
    pub prefix: Option<&'a str>,
    pub tree: &'a Tree,
    /// Files committed as the existing blobs named here (path → blob id,
    /// from a [`Listing`]), unread: a render keeps them unchanged.
    pub kept: &'a BTreeMap<String, String>,
    /// The tip read before rendering ([`Stored::commit`]); `None` = the
    /// branch must not exist yet.
    pub expected_parent: Option<&'a str>,
    pub message: &'a str,
    /// Who wrote the commit and who made it ([`identities`]).
    pub author: &'a Identity,
    pub committer: &'a Identity,
    /// Author and committer time, seconds since the epoch (UTC); `None` = now.
    pub time: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommitOutcome {
    /// The branch now points at `commit`; `blobs_written` blobs were new.
    Committed {
        commit: String,
        blobs_written: usize,
    },
    /// The tree is identical to the expected parent's: no commit was made.
    Unchanged,
    /// The branch no longer points at `expected_parent` (`tip` is where it
    /// points now, `None` if it does not exist). Nothing was changed: read the
    /// branch again, render again, retry.
    Moved { tip: Option<String> },
}

/// HEAD of the repository containing `repo` (searched upward), or `None` when
/// `repo` is not in a git repository or HEAD is unborn.
pub fn source_info(repo: &Path) -> Result<Option<Source>, Error> {
    let git = match Repository::discover(repo) {
        Ok(git) => git,
        Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
        Err(source) => return Err(open_error(repo, source)),
    };
    let head = match git.head() {
        Ok(head) => head,
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
            return Ok(None)
        }
        Err(source) => return Err(read_error(repo, "HEAD", source)),
    };
    let commit = head
        .peel_to_commit()
        .map_err(|source| read_error(repo, "the HEAD commit", source))?;
    let subject = commit
        .summary_bytes()
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .unwrap_or_default();
    let author = commit.author();
    let author = format!(
        "{} <{}>",
        String::from_utf8_lossy(author.name_bytes()),
        String::from_utf8_lossy(author.email_bytes())
    );
    let (mut dirty, mut changed, mut untracked) = (false, Vec::new(), Vec::new());
    if let Some(workdir) = git.workdir() {
        let mut options = StatusOptions::new();
        options
            .include_untracked(true)
            .recurse_untracked_dirs(true)
            .include_ignored(false)
            .exclude_submodules(true);
        let statuses = git
            .statuses(Some(&mut options))
            .map_err(|source| read_error(repo, "the status of the working tree", source))?;
        // Paths are relative to the work tree; `repo` may be below it.
        let workdir = workdir
            .canonicalize()
            .unwrap_or_else(|_| workdir.to_path_buf());
        let below = repo
            .canonicalize()
            .ok()
            .and_then(|r| r.strip_prefix(&workdir).ok().map(Path::to_path_buf))
            .unwrap_or_default();
        for entry in statuses.iter() {
            let path = String::from_utf8_lossy(entry.path_bytes()).into_owned();
            let relative = Path::new(&path).strip_prefix(&below).ok();
            if entry.status() != git2::Status::WT_NEW {
                dirty = true;
                changed.push(relative_path(&below, Path::new(&path)));
                continue;
            }
            if let Some(relative) = relative {
                untracked.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    changed.sort();
    untracked.sort();
    let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
    let authored = commit.author().when().seconds();
    let origin_url = git
        .find_remote("origin")
        .ok()
        .and_then(|remote| remote.url().ok().map(without_credentials));
    Ok(Some(Source {
        commit: commit.id().to_string(),
        subject,
        author,
        time: commit.time().seconds(),
        authored,
        trailers: trailers(&message),
        message,
        dirty,
        changed,
        untracked,
        origin_url,
    }))
}

/// `path` as seen from `dir`, both relative to one root, with `/`:
/// `../` for each of `dir`'s components that `path` does not share.
fn relative_path(dir: &Path, path: &Path) -> String {
    let (dir, path): (Vec<_>, Vec<_>) = (dir.components().collect(), path.components().collect());
    let shared = dir.iter().zip(&path).take_while(|(a, b)| a == b).count();
    let up = std::iter::repeat_n("..".to_string(), dir.len() - shared);
    let down = path[shared..]
        .iter()
        .map(|part| part.as_os_str().to_string_lossy().into_owned());
    up.chain(down).collect::<Vec<_>>().join("/")
}

/// Where `path` lies in the work tree of the git repository holding it:
/// its path from the work tree's root, with `/` (`""` at the root), or
/// `None` when it is in no work tree.
pub fn path_in_work_tree(path: &Path) -> Option<String> {
    let git = Repository::discover(path).ok()?;
    let root = git.workdir()?.canonicalize().ok()?;
    let below = path.canonicalize().ok()?;
    let relative = below.strip_prefix(&root).ok()?;
    Some(relative.to_string_lossy().replace('\\', "/"))
}

/// The trailers of `message` as libgit2 finds them (git's own rules for
/// the trailer block), each value unfolded onto one line.
fn trailers(message: &str) -> Vec<(String, String)> {
    let Ok(found) = git2::message_trailers_strs(message) else {
        return Vec::new();
    };
    found
        .iter()
        .map(|(key, value)| (key.trim().to_string(), unfold(value)))
        .collect()
}

/// A trailer's value on one line: each line break, with the white space
/// after it, becomes one space (as `git interpret-trailers --unfold`).
fn unfold(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            while chars.next_if(|c| c.is_ascii_whitespace()).is_some() {}
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out.trim().to_string()
}

/// A remote URL without credentials, which must never reach a committed
/// file: no user name or password in an `http(s)://` URL (a token may be
/// either), no password in an `ssh://` one (its user name is needed to
/// clone and names no secret). scp-like `user@host:path` addresses stay.
fn without_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let Some((userinfo, host)) = authority.rsplit_once('@') else {
        return url.to_string();
    };
    let ssh = matches!(scheme, "ssh" | "git+ssh" | "ssh+git");
    match userinfo.split_once(':') {
        _ if !ssh => format!("{scheme}://{host}{path}"),
        Some((user, _password)) => format!("{scheme}://{user}@{host}{path}"),
        None => url.to_string(),
    }
}

/// The tip of `refs/heads/<branch>` and all its files, or `None` when the
/// branch does not exist.
pub fn read_branch(repo: &Path, branch: &str) -> Result<Option<Stored>, Error> {
    read_branch_dir(repo, branch, None)
}

/// Like [`read_branch`], but only the files under directory `prefix` of the
/// branch, with paths relative to it. A missing directory reads as empty.
pub fn read_branch_dir(
    repo: &Path,
    branch: &str,
    prefix: Option<&str>,
) -> Result<Option<Stored>, Error> {
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
    Ok(Some(Stored {
        commit: tip.to_string(),
        tree,
    }))
}

/// The author and the committer of a render commit in the repository
/// holding `repo`, as `git commit` there would name them (see
/// [`identity`]), with this process's environment.
pub fn identities(repo: &Path) -> Result<(Identity, Identity), Error> {
    let git = open(repo)?;
    let config = git.config().and_then(|mut config| config.snapshot()).ok();
    let env = |key: &str| std::env::var(key).ok();
    Ok((
        identity::resolve(identity::Role::Author, config.as_ref(), &env),
        identity::resolve(identity::Role::Committer, config.as_ref(), &env),
    ))
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

fn collect(
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

/// Commit `request.tree` to `request.branch` with a compare-and-swap on
/// `request.expected_parent`. See the module documentation for the contract.
pub fn commit_tree(repo: &Path, request: &CommitRequest<'_>) -> Result<CommitOutcome, Error> {
    let refname = branch_ref(repo, request.branch)?;
    let prefix = request.prefix.map(split_prefix).transpose()?;
    let expected = request.expected_parent.map(parse_commit_id).transpose()?;
    let kept = kept_blobs(request.kept)?;
    let nested = nest(request.tree, &kept)?;
    let git = open(repo)?;
    refuse_checked_out(&git, repo, &refname, request.branch)?;

    let tip = current_tip(&git, repo, &refname)?;
    if tip != expected {
        return Ok(moved(tip));
    }
    let (parent, parent_tree) = parent_commit(&git, repo, expected)?;
    let mut writer = Writer::new(&git, repo)?;
    let root = writer.root(&nested, parent_tree.as_ref(), prefix.as_deref())?;
    if parent_tree.as_ref().map(|t| t.id()) == Some(root) {
        return Ok(CommitOutcome::Unchanged);
    }
    let blobs_written = writer.blobs_written;

    let commit = write_commit(&git, repo, request, root, parent.as_ref())?;
    match swap_branch(&git, &refname, commit, expected) {
        Ok(()) => Ok(CommitOutcome::Committed {
            commit: commit.to_string(),
            blobs_written,
        }),
        Err(e) if e.code() == ErrorCode::Modified => Ok(moved(current_tip(&git, repo, &refname)?)),
        Err(source) => Err(write_error(
            repo,
            format!("branch `{}`", request.branch),
            source,
        )),
    }
}

/// The outcome when the branch is not at the expected parent: where it is now.
fn moved(tip: Option<Oid>) -> CommitOutcome {
    CommitOutcome::Moved {
        tip: tip.map(|t| t.to_string()),
    }
}

/// The kept files' blob ids, parsed; a malformed id is refused naming its file.
fn kept_blobs(kept: &BTreeMap<String, String>) -> Result<Vec<(&str, Oid)>, Error> {
    kept.iter()
        .map(|(path, id)| {
            Oid::from_str(id)
                .map(|oid| (path.as_str(), oid))
                .map_err(|_| invalid(path, "its blob id is not a hex object id"))
        })
        .collect()
}

/// Refuse the branch checked out in a non-bare repository: moving it would
/// leave that worktree's index and files behind its HEAD.
fn refuse_checked_out(
    git: &Repository,
    repo: &Path,
    refname: &str,
    branch: &str,
) -> Result<(), Error> {
    if !git.is_bare() {
        if let Ok(head) = git.find_reference("HEAD") {
            if head.symbolic_target_bytes() == Some(refname.as_bytes()) {
                return Err(Error::CheckedOut {
                    path: repo.to_path_buf(),
                    branch: branch.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// The expected parent commit and its tree, `None` for a new branch: the new
/// commit's parent, and the tree unchanged directories are reused from.
fn parent_commit<'r>(
    git: &'r Repository,
    repo: &Path,
    expected: Option<Oid>,
) -> Result<(Option<git2::Commit<'r>>, Option<git2::Tree<'r>>), Error> {
    let parent = expected
        .map(|oid| {
            git.find_commit(oid)
                .map_err(|source| read_error(repo, format!("commit `{oid}`"), source))
        })
        .transpose()?;
    let parent_tree = parent
        .as_ref()
        .map(|c| {
            c.tree().map_err(|source| {
                read_error(repo, format!("the tree of commit `{}`", c.id()), source)
            })
        })
        .transpose()?;
    Ok((parent, parent_tree))
}

/// The render's previous tree, whose unchanged directories are reused: the
/// parent's whole tree, or its directory at `prefix` if that is a directory.
fn previous_render<'r>(
    git: &'r Repository,
    parent_tree: Option<&git2::Tree<'r>>,
    prefix: Option<&[&str]>,
) -> Option<git2::Tree<'r>> {
    match (parent_tree, prefix) {
        (None, _) => None,
        (Some(tree), None) => Some(tree.clone()),
        (Some(tree), Some(parts)) => match tree.get_path(Path::new(&parts.join("/"))) {
            Ok(entry) if entry.kind() == Some(ObjectType::Tree) => git.find_tree(entry.id()).ok(),
            _ => None,
        },
    }
}

/// The commit of tree `root` on `parent` (none for a new branch), authored
/// and committed at the request's time, its message ending in a newline.
fn write_commit(
    git: &Repository,
    repo: &Path,
    request: &CommitRequest<'_>,
    root: Oid,
    parent: Option<&git2::Commit<'_>>,
) -> Result<Oid, Error> {
    let root_tree = git
        .find_tree(root)
        .map_err(|source| read_error(repo, format!("tree `{root}`"), source))?;
    let time = Time::new(request.time.unwrap_or_else(now), 0);
    let signature = |identity: &Identity| {
        Signature::new(&identity.name, &identity.email, &time).map_err(|source| {
            write_error(
                repo,
                format!("the signature `{} <{}>`", identity.name, identity.email),
                source,
            )
        })
    };
    let (author, committer) = (signature(request.author)?, signature(request.committer)?);
    let message = if request.message.ends_with('\n') {
        request.message.to_string()
    } else {
        format!("{}\n", request.message)
    };
    let parents: Vec<&git2::Commit<'_>> = parent.into_iter().collect();
    git.commit(None, &author, &committer, &message, &root_tree, &parents)
        .map_err(|source| write_error(repo, "the commit", source))
}

/// Move `refname` to `commit` if it is still at `expected` (`None`: if it
/// does not exist), checked under the ref's lock as the git CLI does.
fn swap_branch(
    git: &Repository,
    refname: &str,
    commit: Oid,
    expected: Option<Oid>,
) -> Result<(), git2::Error> {
    let log = format!("garrison: render {commit}");
    // The zero id means "must not exist", checked under the ref's lock.
    // (`reference` with force = false checks existence before taking the
    // lock, so two creators could both succeed and one would be lost.)
    let old = expected.unwrap_or(Oid::ZERO_SHA1);
    let mut update = git.reference_matching(refname, commit, true, old, &log);
    // Someone holds the ref's lock: they are moving it right now. Wait for
    // them, then let the compare-and-swap decide; a lock that never goes
    // away (a crashed writer) is an error naming the lock file.
    let mut waits = 0;
    while matches!(&update, Err(e) if e.code() == ErrorCode::Locked) && waits < LOCK_WAITS {
        std::thread::sleep(std::time::Duration::from_millis(LOCK_WAIT_MS));
        waits += 1;
        update = git.reference_matching(refname, commit, true, old, &log);
    }
    update.map(|_| ())
}

/// How often, and how long, to wait for a branch locked by another writer
/// (about two seconds in all).
const LOCK_WAITS: u32 = 200;
const LOCK_WAIT_MS: u64 = 10;

/// A directory of the render: file name → blob contents, an existing
/// blob, or a subdirectory.
enum Node<'a> {
    File(&'a [u8]),
    Blob(Oid),
    Dir(BTreeMap<&'a str, Node<'a>>),
}

fn nest<'a>(tree: &'a Tree, kept: &[(&'a str, Oid)]) -> Result<BTreeMap<&'a str, Node<'a>>, Error> {
    let mut root: BTreeMap<&str, Node<'_>> = BTreeMap::new();
    let files = tree
        .iter()
        .map(|(path, bytes)| (path.as_str(), Node::File(bytes)))
        .chain(kept.iter().map(|(path, oid)| (*path, Node::Blob(*oid))));
    for (path, file) in files {
        let parts = split_path(path)?;
        let Some((last, dirs)) = parts.split_last() else {
            return Err(invalid(path, "the path is empty"));
        };
        let mut dir = &mut root;
        for part in dirs {
            let node = dir
                .entry(part)
                .or_insert_with(|| Node::Dir(BTreeMap::new()));
            dir = match node {
                Node::Dir(children) => children,
                Node::File(_) | Node::Blob(_) => {
                    return Err(invalid(path, "a parent directory is also a file"))
                }
            };
        }
        if dir.insert(last, file).is_some() {
            return Err(invalid(path, "the path is also a directory"));
        }
    }
    Ok(root)
}

struct Writer<'r> {
    git: &'r Repository,
    repo: &'r Path,
    odb: git2::Odb<'r>,
    blobs_written: usize,
}

impl<'r> Writer<'r> {
    /// A writer into `git`'s object database, counting the blobs it adds.
    fn new(git: &'r Repository, repo: &'r Path) -> Result<Writer<'r>, Error> {
        Ok(Writer {
            git,
            repo,
            odb: git
                .odb()
                .map_err(|source| read_error(repo, "the object database", source))?,
            blobs_written: 0,
        })
    }

    /// The new root tree: the render's tree, grafted into the parent's tree
    /// at `prefix` when the render is one directory of the branch.
    fn root(
        &mut self,
        nested: &BTreeMap<&str, Node<'_>>,
        parent_tree: Option<&git2::Tree<'r>>,
        prefix: Option<&[&str]>,
    ) -> Result<Oid, Error> {
        let previous = previous_render(self.git, parent_tree, prefix);
        let render = self.dir(nested, previous.as_ref())?;
        match prefix {
            None => Ok(render),
            Some(parts) => self.graft(parent_tree, parts, render),
        }
    }

    fn blob(&mut self, bytes: &[u8]) -> Result<Oid, Error> {
        let oid = Oid::hash_object(ObjectType::Blob, bytes)
            .map_err(|source| write_error(self.repo, "a blob", source))?;
        if self.odb.exists(oid) {
            return Ok(oid);
        }
        let written = self
            .odb
            .write(ObjectType::Blob, bytes)
            .map_err(|source| write_error(self.repo, "a blob", source))?;
        self.blobs_written += 1;
        Ok(written)
    }

    /// The tree of `children`. When `previous` (the same directory in the
    /// parent commit) has exactly these entries, names, ids and modes (a
    /// hand-made executable bit is not kept), it is that tree, reused
    /// without being built again: one template changed rebuilds only the
    /// directories its files are in.
    fn dir(
        &mut self,
        children: &BTreeMap<&str, Node<'_>>,
        previous: Option<&git2::Tree<'_>>,
    ) -> Result<Oid, Error> {
        let mut entries = Vec::with_capacity(children.len());
        for (name, node) in children {
            let entry = match node {
                Node::File(bytes) => (self.blob(bytes)?, FileMode::Blob),
                Node::Blob(oid) => (*oid, FileMode::Blob),
                Node::Dir(sub) => {
                    let before = previous
                        .and_then(|tree| tree.get_name(name))
                        .filter(|entry| entry.kind() == Some(ObjectType::Tree))
                        .and_then(|entry| self.git.find_tree(entry.id()).ok());
                    (self.dir(sub, before.as_ref())?, FileMode::Tree)
                }
            };
            entries.push((*name, entry));
        }
        if let Some(previous) = previous {
            let same = previous.len() == entries.len()
                && entries.iter().all(|(name, (oid, mode))| {
                    previous.get_name(name).is_some_and(|entry| {
                        entry.id() == *oid && entry.filemode() == i32::from(*mode)
                    })
                });
            if same {
                return Ok(previous.id());
            }
        }
        let mut builder = self
            .git
            .treebuilder(None)
            .map_err(|source| write_error(self.repo, "a tree", source))?;
        for (name, (oid, mode)) in entries {
            builder
                .insert(name, oid, mode.into())
                .map_err(|source| write_error(self.repo, format!("tree entry `{name}`"), source))?;
        }
        builder
            .write()
            .map_err(|source| write_error(self.repo, "a tree", source))
    }

    /// `base` with the directory at `parts` replaced by tree `render` (removed
    /// when `render` is empty); the rest of `base` is kept.
    fn graft(
        &mut self,
        base: Option<&git2::Tree<'_>>,
        parts: &[&str],
        render: Oid,
    ) -> Result<Oid, Error> {
        let Some((first, rest)) = parts.split_first() else {
            return Ok(render);
        };
        let mut builder = self
            .git
            .treebuilder(base)
            .map_err(|source| write_error(self.repo, "a tree", source))?;
        let existing = match base.and_then(|b| b.get_name(first)) {
            Some(entry) if entry.kind() == Some(ObjectType::Tree) => Some(
                self.git
                    .find_tree(entry.id())
                    .map_err(|source| read_error(self.repo, format!("tree `{first}`"), source))?,
            ),
            _ => None,
        };
        let sub = self.graft(existing.as_ref(), rest, render)?;
        let empty = self
            .git
            .find_tree(sub)
            .map_err(|source| read_error(self.repo, format!("tree `{sub}`"), source))?
            .is_empty();
        if empty {
            if builder.get(first).ok().flatten().is_some() {
                builder
                    .remove(first)
                    .map_err(|source| write_error(self.repo, format!("`{first}`"), source))?;
            }
        } else {
            builder
                .insert(first, sub, FileMode::Tree.into())
                .map_err(|source| write_error(self.repo, format!("`{first}`"), source))?;
        }
        builder
            .write()
            .map_err(|source| write_error(self.repo, "a tree", source))
    }
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
mod tests {
    use super::*;
    use std::process::Command;
    use std::sync::{Arc, Barrier};

    /// Runs the real `git` CLI in `dir`, isolated from the user's and the
    /// system's configuration. Panics (never skips) when git is missing.
    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args([
                "-c",
                "user.name=Source Author",
                "-c",
                "user.email=source@example.com",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap_or_else(|e| {
                panic!("these tests need the `git` command line tool and it could not be run: {e}")
            });
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("git output is UTF-8")
    }

    fn git_bytes(dir: &Path, args: &[&str]) -> Vec<u8> {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("these tests need the `git` command line tool");
        assert!(out.status.success(), "git {args:?} failed");
        out.stdout
    }

    /// A non-bare repository with one source commit and a dirty tracked file.
    fn source_repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        git(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("fleet.yaml"), "clusters: [a]\n").expect("write");
        git(dir.path(), &["add", "fleet.yaml"]);
        git(dir.path(), &["commit", "-q", "-m", "Add the fleet"]);
        std::fs::write(dir.path().join("fleet.yaml"), "clusters: [a, b]\n").expect("write");
        dir
    }

    fn tree(files: &[(&str, &str)]) -> Tree {
        files
            .iter()
            .map(|(p, c)| (p.to_string(), c.as_bytes().to_vec()))
            .collect()
    }

    fn request<'a>(
        branch: &'a str,
        tree: &'a Tree,
        parent: Option<&'a str>,
        message: &'a str,
    ) -> CommitRequest<'a> {
        CommitRequest {
            branch,
            prefix: None,
            tree,
            kept: &NONE_KEPT,
            expected_parent: parent,
            message,
            author: &TEST_IDENTITY,
            committer: &TEST_IDENTITY,
            time: Some(1_700_000_000),
        }
    }

    fn committed(outcome: CommitOutcome) -> (String, usize) {
        match outcome {
            CommitOutcome::Committed {
                commit,
                blobs_written,
            } => (commit, blobs_written),
            other => panic!("expected a commit, got {other:?}"),
        }
    }

    fn count(dir: &Path, branch: &str) -> usize {
        git(dir, &["rev-list", "--count", branch])
            .trim()
            .parse()
            .expect("a count")
    }

    fn fsck(dir: &Path) {
        git(dir, &["fsck", "--strict", "--no-dangling"]);
    }

    fn first_render() -> Tree {
        tree(&[
            (".garrison.json", "{}\n"),
            (
                "clusters/a/kustomization.yaml",
                "resources: [deploy.yaml]\n",
            ),
            ("clusters/a/deploy.yaml", "kind: Deployment\n"),
            ("clusters/b/kustomization.yaml", "resources: []\n"),
        ])
    }

    #[test]
    fn first_commit_creates_the_branch_and_leaves_the_worktree_alone() {
        let dir = source_repo();
        let repo = dir.path();
        let status_before = git(repo, &["status", "--porcelain"]);
        let head_before = git(repo, &["rev-parse", "HEAD"]);
        let index_before = std::fs::read(repo.join(".git/index")).expect("index");
        let render = first_render();

        let (commit, blobs) = committed(
            commit_tree(repo, &request("rendered", &render, None, "Render")).expect("commit"),
        );
        assert_eq!(blobs, 4);
        assert_eq!(git(repo, &["rev-parse", "rendered"]).trim(), commit);
        let listed = git(repo, &["ls-tree", "-r", "--name-only", "rendered"]);
        let listed: Vec<&str> = listed.lines().collect();
        let expected: Vec<&str> = render.keys().map(String::as_str).collect();
        assert_eq!(listed, expected);
        for (path, bytes) in &render {
            assert_eq!(
                &git_bytes(repo, &["show", &format!("rendered:{path}")]),
                bytes
            );
        }
        assert_eq!(
            git(
                repo,
                &[
                    "log",
                    "-1",
                    "--format=%an <%ae>|%cn <%ce>|%at|%s",
                    "rendered"
                ]
            )
            .trim(),
            "garrison <garrison@example.com>|garrison <garrison@example.com>|1700000000|Render"
        );

        assert_eq!(git(repo, &["status", "--porcelain"]), status_before);
        assert_eq!(git(repo, &["rev-parse", "HEAD"]), head_before);
        assert_eq!(
            git(repo, &["symbolic-ref", "HEAD"]).trim(),
            "refs/heads/main"
        );
        assert_eq!(
            std::fs::read(repo.join(".git/index")).expect("index"),
            index_before
        );
        assert_eq!(
            std::fs::read_to_string(repo.join("fleet.yaml")).expect("read"),
            "clusters: [a, b]\n"
        );

        let stored = read_branch(repo, "rendered")
            .expect("read")
            .expect("exists");
        assert_eq!(stored.commit, commit);
        assert_eq!(stored.tree, render);
        assert_eq!(read_branch(repo, "absent").expect("read"), None);
        fsck(repo);
    }

    #[test]
    fn same_tree_again_is_unchanged() {
        let dir = source_repo();
        let repo = dir.path();
        let render = first_render();
        let (first, _) =
            committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
        let again = commit_tree(repo, &request("out", &render, Some(&first), "two"));
        assert_eq!(again.expect("commit"), CommitOutcome::Unchanged);
        assert_eq!(count(repo, "out"), 1);
        assert_eq!(git(repo, &["rev-parse", "out"]).trim(), first);
        fsck(repo);
    }

    #[test]
    fn one_changed_file_writes_one_blob_on_top_of_the_parent() {
        let dir = source_repo();
        let repo = dir.path();
        let mut render = first_render();
        let (first, _) =
            committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
        render.insert(
            "clusters/a/deploy.yaml".into(),
            b"kind: Deployment\nspec: {}\n".to_vec(),
        );
        let (second, blobs) = committed(
            commit_tree(repo, &request("out", &render, Some(&first), "two")).expect("commit"),
        );
        assert_eq!(blobs, 1);
        assert_eq!(git(repo, &["rev-parse", "out^"]).trim(), first);
        assert_eq!(git(repo, &["rev-parse", "out"]).trim(), second);
        assert_eq!(count(repo, "out"), 2);
        fsck(repo);
    }

    static NONE_KEPT: BTreeMap<String, String> = BTreeMap::new();

    static TEST_IDENTITY: std::sync::LazyLock<Identity> = std::sync::LazyLock::new(|| Identity {
        name: "garrison".into(),
        email: "garrison@example.com".into(),
    });

    #[test]
    fn listed_files_are_committed_as_their_blobs_without_being_read() {
        let dir = source_repo();
        let repo = dir.path();
        let render = first_render();
        let (first, _) =
            committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
        let listing = list_branch(repo, "out")
            .expect("list")
            .expect("the branch exists");
        assert_eq!(listing.commit, first);
        assert_eq!(
            listing.blobs.keys().collect::<Vec<_>>(),
            render.keys().collect::<Vec<_>>()
        );
        // Keep every file of cluster `a` as its blob; write one new file.
        let kept: BTreeMap<String, String> = listing
            .blobs
            .iter()
            .filter(|(p, _)| p.starts_with("clusters/a/"))
            .map(|(p, id)| (p.clone(), id.clone()))
            .collect();
        assert!(!kept.is_empty());
        let mut written: Tree = render
            .iter()
            .filter(|(p, _)| !kept.contains_key(*p))
            .map(|(p, b)| (p.clone(), b.clone()))
            .collect();
        written.insert("clusters/b/new.yaml".into(), b"kind: ConfigMap\n".to_vec());
        let mut second_request = request("out", &written, Some(&first), "two");
        second_request.kept = &kept;
        let (_, blobs) = committed(commit_tree(repo, &second_request).expect("commit"));
        assert_eq!(blobs, 1, "only the new file is a new blob");
        let read = read_branch(repo, "out")
            .expect("read")
            .expect("exists")
            .tree;
        let mut expected = render.clone();
        expected.insert("clusters/b/new.yaml".into(), b"kind: ConfigMap\n".to_vec());
        assert_eq!(read, expected);
        let wanted: Vec<(&str, &str)> = listing
            .blobs
            .iter()
            .map(|(p, id)| (p.as_str(), id.as_str()))
            .collect();
        assert_eq!(read_blobs(repo, &wanted).expect("blobs"), render);
        fsck(repo);
    }

    #[test]
    fn only_directories_with_the_same_entries_keep_their_tree() {
        let dir = source_repo();
        let repo = dir.path();
        let file = |text: &str| text.as_bytes().to_vec();
        let mut render: Tree = [
            ("same/a.yaml", "a"),
            ("same/sub/b.yaml", "b"),
            ("renamed/x.yaml", "x"),
            ("edited/y.yaml", "y"),
            ("typed/z", "z"),
            ("shrunk/1.yaml", "1"),
            ("shrunk/2.yaml", "2"),
        ]
        .into_iter()
        .map(|(p, t)| (p.to_string(), file(t)))
        .collect();
        let (first, _) =
            committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
        let tree_of = |rev: &str| git(repo, &["rev-parse", rev]).trim().to_string();
        let before = tree_of("out:same");
        // Same number of entries, another name; same name, other bytes; a
        // file that becomes a directory; one entry fewer.
        let x = render.remove("renamed/x.yaml").unwrap();
        render.insert("renamed/w.yaml".into(), x);
        render.insert("edited/y.yaml".into(), file("y2"));
        render.remove("typed/z");
        render.insert("typed/z/inner".into(), file("z"));
        render.remove("shrunk/2.yaml");
        committed(
            commit_tree(repo, &request("out", &render, Some(&first), "two")).expect("commit"),
        );
        assert_eq!(tree_of("out:same"), before);
        let stored = read_branch(repo, "out").expect("read").expect("exists");
        assert_eq!(stored.tree, render);
        fsck(repo);
    }

    #[test]
    fn a_directory_whose_mode_was_changed_by_hand_is_built_again() {
        let dir = source_repo();
        let repo = dir.path();
        let render: Tree = [("same/a.yaml".to_string(), b"a".to_vec())]
            .into_iter()
            .collect();
        let (first, _) =
            committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
        // The branch's file made executable by hand, in a commit of its own.
        let handle = Repository::open(repo).expect("open");
        let tip = handle
            .find_commit(Oid::from_str(&first).expect("id"))
            .expect("tip");
        let same_id = tip
            .tree()
            .expect("tree")
            .get_name("same")
            .expect("same")
            .id();
        let blob = handle
            .find_tree(same_id)
            .expect("same")
            .get_name("a.yaml")
            .expect("a")
            .id();
        let mut sub = handle.treebuilder(None).expect("builder");
        sub.insert("a.yaml", blob, 0o100755).expect("insert");
        let mut root = handle.treebuilder(None).expect("builder");
        root.insert("same", sub.write().expect("write"), 0o040000)
            .expect("insert");
        let tree = handle
            .find_tree(root.write().expect("write"))
            .expect("tree");
        let signature = Signature::new("hand", "hand@example.com", &Time::new(1, 0)).expect("sig");
        let edited = handle
            .commit(
                Some("refs/heads/out"),
                &signature,
                &signature,
                "chmod",
                &tree,
                &[&tip],
            )
            .expect("commit")
            .to_string();
        committed(
            commit_tree(repo, &request("out", &render, Some(&edited), "two")).expect("commit"),
        );
        let listed = git(repo, &["ls-tree", "-r", "out"]);
        assert!(listed.starts_with("100644 blob"), "{listed}");
    }

    #[test]
    fn deleted_paths_go_and_nested_paths_come() {
        let dir = source_repo();
        let repo = dir.path();
        let mut render = first_render();
        let (first, _) =
            committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
        render.remove("clusters/a/deploy.yaml");
        render.insert(
            "clusters/c/ns/deep/cm.yaml".into(),
            b"kind: ConfigMap\n".to_vec(),
        );
        // A directory becoming a file of the same name.
        render.remove("clusters/b/kustomization.yaml");
        render.insert("clusters/b".into(), b"now a file\n".to_vec());
        committed(
            commit_tree(repo, &request("out", &render, Some(&first), "two")).expect("commit"),
        );
        let listed = git(repo, &["ls-tree", "-r", "--name-only", "out"]);
        let listed: Vec<&str> = listed.lines().collect();
        let expected: Vec<&str> = render.keys().map(String::as_str).collect();
        assert_eq!(listed, expected);
        assert!(!listed.contains(&"clusters/a/deploy.yaml"));
        assert!(listed.contains(&"clusters/c/ns/deep/cm.yaml"));
        let stored = read_branch(repo, "out").expect("read").expect("exists");
        assert_eq!(stored.tree, render);
        fsck(repo);
    }

    #[test]
    fn stale_parent_is_reported_as_moved_and_never_overwrites() {
        let dir = source_repo();
        let repo = dir.path();
        let render = first_render();
        let (first, _) =
            committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
        let mut theirs = render.clone();
        theirs.insert("theirs.yaml".into(), b"x\n".to_vec());
        let (other, _) = committed(
            commit_tree(repo, &request("out", &theirs, Some(&first), "someone else"))
                .expect("commit"),
        );
        let mut mine = render.clone();
        mine.insert("mine.yaml".into(), b"y\n".to_vec());
        let outcome =
            commit_tree(repo, &request("out", &mine, Some(&first), "stale")).expect("commit");
        assert_eq!(
            outcome,
            CommitOutcome::Moved {
                tip: Some(other.clone())
            }
        );
        assert_eq!(git(repo, &["rev-parse", "out"]).trim(), other);
        // Creating a branch that already exists is a move too.
        let outcome = commit_tree(repo, &request("out", &mine, None, "create")).expect("commit");
        assert_eq!(outcome, CommitOutcome::Moved { tip: Some(other) });
        // Expecting a branch that does not exist.
        let outcome =
            commit_tree(repo, &request("gone", &mine, Some(&first), "x")).expect("commit");
        assert_eq!(outcome, CommitOutcome::Moved { tip: None });
        fsck(repo);
    }

    #[test]
    fn racing_writers_lose_no_commit() {
        let dir = source_repo();
        let repo = dir.path().to_path_buf();
        const ROUNDS: usize = 5;
        let barrier = Arc::new(Barrier::new(2));
        let writers: Vec<_> = ["alpha", "beta"]
            .into_iter()
            .map(|name| {
                let repo = repo.clone();
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    let mut retries = 0;
                    for round in 0..ROUNDS {
                        let message = format!("{name} {round}");
                        let mut done = false;
                        for _ in 0..10 {
                            let stored = read_branch(&repo, "out").expect("read");
                            let (parent, mut render) = match stored {
                                Some(s) => (Some(s.commit), s.tree),
                                None => (None, Tree::new()),
                            };
                            render.insert(format!("{name}/{round}.yaml"), message.clone().into());
                            let req = request("out", &render, parent.as_deref(), &message);
                            match commit_tree(&repo, &req).expect("commit") {
                                CommitOutcome::Committed { .. } => {
                                    done = true;
                                    break;
                                }
                                CommitOutcome::Moved { tip } => {
                                    eprintln!("{message}: moved from {parent:?} to {tip:?}");
                                    retries += 1
                                }
                                CommitOutcome::Unchanged => panic!("a new file is a change"),
                            }
                        }
                        assert!(done, "{message} was not committed within 10 tries");
                    }
                    retries
                })
            })
            .collect();
        let retries: usize = writers
            .into_iter()
            .map(|w| w.join().expect("writer thread"))
            .sum();
        eprintln!("racing writers retried {retries} times");
        let subjects = git(&repo, &["log", "--format=%s", "out"]);
        for name in ["alpha", "beta"] {
            for round in 0..ROUNDS {
                let message = format!("{name} {round}");
                assert!(
                    subjects.lines().any(|s| s == message),
                    "{message} lost from {subjects}"
                );
            }
        }
        assert_eq!(count(&repo, "out"), 2 * ROUNDS);
        let stored = read_branch(&repo, "out").expect("read").expect("exists");
        assert_eq!(stored.tree.len(), 2 * ROUNDS);
        fsck(&repo);
    }

    #[test]
    fn source_info_reads_head_and_dirtiness() {
        let dir = source_repo();
        let repo = dir.path();
        let head = git(repo, &["rev-parse", "HEAD"]);
        let sub = repo.join("sub");
        std::fs::create_dir(&sub).expect("mkdir");
        let info = source_info(&sub).expect("info").expect("a repository");
        assert_eq!(info.commit, head.trim());
        assert_eq!(info.subject, "Add the fleet");
        assert_eq!(info.author, "Source Author <source@example.com>");
        assert!(info.dirty, "a modified tracked file is dirty");
        assert_eq!(
            info.changed,
            ["../fleet.yaml"],
            "named from the source directory"
        );
        let info = source_info(repo).expect("info").expect("a repository");
        assert_eq!(info.changed, ["fleet.yaml"]);

        git(repo, &["checkout", "-q", "--", "fleet.yaml"]);
        std::fs::write(repo.join(".gitignore"), "ignored.yaml\n").expect("write");
        git(repo, &["add", ".gitignore"]);
        git(repo, &["commit", "-q", "-m", "ignore"]);
        std::fs::write(repo.join("untracked.yaml"), "x").expect("write");
        std::fs::create_dir_all(sub.join("deep")).expect("mkdir");
        std::fs::write(sub.join("deep/new.yaml"), "x").expect("write");
        std::fs::write(repo.join("ignored.yaml"), "x").expect("write");
        let info = source_info(repo).expect("info").expect("a repository");
        assert!(!info.dirty, "untracked files are not tracked changes");
        assert_eq!(
            info.untracked,
            ["sub/deep/new.yaml", "untracked.yaml"],
            "untracked, not ignored, files are listed"
        );
        let info = source_info(&sub).expect("info").expect("a repository");
        assert_eq!(
            info.untracked,
            ["deep/new.yaml"],
            "relative to the source directory"
        );
        std::fs::remove_dir_all(&sub).expect("rm");

        git(repo, &["add", "untracked.yaml"]);
        let info = source_info(repo).expect("info").expect("a repository");
        assert!(info.dirty, "a staged file is dirty");

        let plain = tempfile::tempdir().expect("temp dir");
        assert_eq!(source_info(plain.path()).expect("info"), None);
        let unborn = tempfile::tempdir().expect("temp dir");
        git(unborn.path(), &["init", "-q"]);
        assert_eq!(source_info(unborn.path()).expect("info"), None);
    }

    #[test]
    fn source_info_reads_the_message_its_trailers_the_author_date_and_origin() {
        let dir = source_repo();
        let repo = dir.path();
        git(repo, &["checkout", "-q", "--", "fleet.yaml"]);
        let message = "Bump web\n\nBody line.\n\nSigned-off-by: A <a@example.com>\nArgocd-reference-commit-body: \"two\n  words\"\n";
        std::fs::write(repo.join("message"), message).expect("write");
        std::fs::write(repo.join("fleet.yaml"), "clusters: [c]\n").expect("write");
        git(repo, &["add", "fleet.yaml"]);
        git(
            repo,
            &[
                "commit",
                "-q",
                "--cleanup=verbatim",
                "-F",
                "message",
                "--date=@1700000000 +0200",
            ],
        );
        std::fs::remove_file(repo.join("message")).expect("rm");
        let info = source_info(repo).expect("info").expect("a repository");
        assert_eq!(info.message, message);
        assert_eq!(info.authored, 1_700_000_000);
        assert_eq!(
            info.trailers,
            [
                ("Signed-off-by".to_string(), "A <a@example.com>".to_string()),
                (
                    "Argocd-reference-commit-body".to_string(),
                    "\"two words\"".to_string()
                ),
            ]
        );
        assert_eq!(info.origin_url, None);
        git(
            repo,
            &[
                "remote",
                "add",
                "origin",
                "https://ci:token@git.example.com/fleet.git",
            ],
        );
        let info = source_info(repo).expect("info").expect("a repository");
        assert_eq!(
            info.origin_url.as_deref(),
            Some("https://git.example.com/fleet.git")
        );
    }

    #[test]
    fn credentials_are_taken_out_of_remote_urls() {
        for (given, expected) in [
            (
                "https://user:pass@host/org/repo.git",
                "https://host/org/repo.git",
            ),
            ("https://token@host:8443/r", "https://host:8443/r"),
            ("https://host/path@v1", "https://host/path@v1"),
            ("ssh://git@host/org/repo", "ssh://git@host/org/repo"),
            ("ssh://git:pw@host/org/repo", "ssh://git@host/org/repo"),
            ("git@github.com:org/repo.git", "git@github.com:org/repo.git"),
            ("/srv/git/fleet.git", "/srv/git/fleet.git"),
        ] {
            assert_eq!(without_credentials(given), expected, "{given}");
        }
        assert_eq!(unfold("a\n  b\n\tc  d \n"), "a b c  d");
    }

    #[test]
    fn works_in_a_bare_repository_and_is_deterministic() {
        let a = tempfile::tempdir().expect("temp dir");
        let b = tempfile::tempdir().expect("temp dir");
        git(a.path(), &["init", "-q", "--bare"]);
        git(b.path(), &["init", "-q", "--bare"]);
        let render = first_render();
        let (ca, _) = committed(
            commit_tree(a.path(), &request("out", &render, None, "one")).expect("commit"),
        );
        let (cb, _) = committed(
            commit_tree(b.path(), &request("out", &render, None, "one")).expect("commit"),
        );
        assert_eq!(ca, cb);
        assert_eq!(source_info(a.path()).expect("info"), None);
        fsck(a.path());
    }

    #[test]
    fn a_prefix_keeps_the_rest_of_the_branch() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = dir.path();
        git(repo, &["init", "-q", "--bare"]);
        let other = tree(&[("README.md", "hello\n"), ("deploy/keep.txt", "k\n")]);
        let (base, _) =
            committed(commit_tree(repo, &request("out", &other, None, "base")).expect("commit"));
        let render = first_render();
        let mut req = request("out", &render, Some(&base), "render");
        req.prefix = Some("deploy/fleet");
        let (next, _) = committed(commit_tree(repo, &req).expect("commit"));
        let stored = read_branch_dir(repo, "out", Some("deploy/fleet"))
            .expect("read")
            .expect("exists");
        assert_eq!(stored.tree, render);
        let whole = read_branch(repo, "out").expect("read").expect("exists");
        assert_eq!(whole.tree.len(), other.len() + render.len());
        assert_eq!(whole.tree["deploy/keep.txt"], b"k\n");
        let mut req = request("out", &render, Some(&next), "again");
        req.prefix = Some("deploy/fleet/");
        assert_eq!(
            commit_tree(repo, &req).expect("commit"),
            CommitOutcome::Unchanged
        );
        let empty = read_branch_dir(repo, "out", Some("nowhere"))
            .expect("read")
            .expect("exists");
        assert!(empty.tree.is_empty());
        assert!(matches!(
            read_branch_dir(repo, "out", Some("README.md")),
            Err(Error::NotADirectory { .. })
        ));
        fsck(repo);
    }

    #[test]
    fn a_lock_left_behind_is_an_error_not_a_move() {
        let dir = source_repo();
        let repo = dir.path();
        let render = first_render();
        let (first, _) =
            committed(commit_tree(repo, &request("out", &render, None, "one")).expect("commit"));
        let lock = repo.join(".git/refs/heads/out.lock");
        std::fs::write(&lock, "").expect("lock");
        let mut next = render.clone();
        next.insert("new.yaml".into(), b"n\n".to_vec());
        let outcome = commit_tree(repo, &request("out", &next, Some(&first), "two"));
        assert!(matches!(outcome, Err(Error::Write { .. })), "{outcome:?}");
        std::fs::remove_file(&lock).expect("unlock");
        committed(commit_tree(repo, &request("out", &next, Some(&first), "two")).expect("commit"));
        fsck(repo);
    }

    #[test]
    fn bad_input_is_refused() {
        let dir = source_repo();
        let repo = dir.path();
        for bad in ["/abs", "a//b", "a/../b", ".git/config", "a/", ""] {
            let render = tree(&[(bad, "x")]);
            assert!(
                matches!(
                    commit_tree(repo, &request("out", &render, None, "m")),
                    Err(Error::InvalidPath { .. })
                ),
                "{bad:?} accepted"
            );
        }
        let clash = tree(&[("a", "x"), ("a/b", "y")]);
        assert!(matches!(
            commit_tree(repo, &request("out", &clash, None, "m")),
            Err(Error::InvalidPath { .. })
        ));
        let render = first_render();
        assert!(matches!(
            commit_tree(repo, &request("bad..name", &render, None, "m")),
            Err(Error::InvalidBranch { .. })
        ));
        assert!(matches!(
            commit_tree(repo, &request("out", &render, Some("abc"), "m")),
            Err(Error::InvalidCommitId { .. })
        ));
        assert!(matches!(
            commit_tree(
                repo,
                &request(
                    "main",
                    &render,
                    Some(git(repo, &["rev-parse", "HEAD"]).trim()),
                    "m"
                )
            ),
            Err(Error::CheckedOut { .. })
        ));
        assert_eq!(git(repo, &["rev-list", "--all", "--count"]).trim(), "1");
    }
}
