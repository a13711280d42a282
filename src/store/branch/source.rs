//! The source commit a render came from: HEAD of the repository holding
//! the inputs, its message and trailers, its origin, and what in the work
//! tree is not committed.

use super::{open, open_error, read_error, Error};
use git2::{ErrorCode, Oid, Repository, StatusOptions};
use std::path::Path;

/// The commit the inputs were read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceCommit {
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

/// HEAD of the repository containing `repo` (searched upward), or `None` when
/// `repo` is not in a git repository or HEAD is unborn.
pub fn source_info(repo: &Path) -> Result<Option<SourceCommit>, Error> {
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
    Ok(Some(SourceCommit {
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
pub(super) fn unfold(value: &str) -> String {
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
pub(super) fn without_credentials(url: &str) -> String {
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
