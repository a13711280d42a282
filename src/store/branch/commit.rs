//! Committing a render to a branch through the object database, with a
//! compare-and-swap on the tip (see the module documentation of
//! [`super`]).

use super::identity::{self, Identity};
use super::{
    branch_ref, current_tip, invalid, now, open, parse_commit_id, read_error, split_path,
    split_prefix, write_error, Error,
};
use crate::model::layout::Tree;
use git2::{ErrorCode, FileMode, ObjectType, Oid, Repository, Signature, Time};
use std::collections::BTreeMap;
use std::path::Path;

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
    /// The tip read before rendering ([`Tip::commit`]); `None` = the
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
