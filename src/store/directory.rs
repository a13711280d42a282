//! A render stored in a directory: putting a [`Tree`] on disk so that a
//! crash never leaves a mix of renders, and reading one back.
//!
//! Two paths, chosen by the size of the change:
//!
//! - **Exchange.** A new directory, a small tree, or a change touching more
//!   than an eighth of the files: the new render is written in full to a
//!   hidden sibling of the output directory (files whose bytes did not change
//!   are hard-linked from the old render), then exchanged with the old one in
//!   a single `renameat2` (RENAME_EXCHANGE) on Linux, so readers and a crash
//!   only ever see the old render or the new one. Elsewhere the old directory
//!   is renamed away first. This costs O(files): every file is linked and the
//!   old tree is removed.
//! - **Journaled update in place.** A small change to a large tree: the new
//!   bytes of the changed files are written to a hidden transaction directory
//!   beside the output, with a journal of every write and deletion. Renaming
//!   the fsynced journal to `journal.ready` is the commit point; the
//!   operations are then applied in place (the marker file last) and the
//!   transaction directory removed. This costs O(changed files). A crash
//!   before the commit point leaves the old render; after it, the next
//!   [`lock`] of the directory rolls the update forward. A reader walking
//!   the directory during the few renames can see some files new and some
//!   old (each `kustomization.yaml` still lists only files that exist);
//!   garrison's own commands take the lock before reading, and readers that
//!   need one instant should read a committed branch instead.
//!
//! A [`Lock`] keeps two garrison commands from using one directory at once.

use crate::model::layout::{Tree, KUSTOMIZATION, MARKER_FILE};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Component, Path, PathBuf};

/// When the old or the new tree has fewer files than this, a render is
/// always exchanged whole: linking and removing 512 files costs under 20 ms
/// even on a slow disk (about 33 µs per file, measured as `cp -al` plus
/// `rm -rf` of a 21,000-file render), so small fleets keep the stronger
/// guarantee that no reader ever sees a mix, for a cost nobody notices.
const IN_PLACE_MIN_FILES: usize = 512;

/// A change set (files written plus files removed) larger than
/// 1/`IN_PLACE_MAX_SHARE` of the smaller tree is exchanged whole. Up to that
/// share the update in place costs a rename per changed file where the
/// exchange links and removes every file of the render, so it is many times
/// cheaper; past it the changed files' own writes make up most of the cost
/// either way, and the exchange spares readers a mix of two renders for the
/// longer time such an update takes.
const IN_PLACE_MAX_SHARE: usize = 8;

/// The journal while it is written; an update whose journal has this name
/// was never committed and is discarded.
const JOURNAL: &str = "journal";
/// The committed journal: its presence means the update must be finished.
const JOURNAL_READY: &str = "journal.ready";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot write `{path}`")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("`{path}` exists and does not hold a garrison render; pass an empty or new directory")]
    NotARender { path: PathBuf },
    #[error("another garrison command is writing or reading `{path}`; wait for it to finish, then run this one again")]
    Locked { path: PathBuf },
    #[error("cannot finish the interrupted update recorded in `{path}`: {reason}; remove the directory `{dir}` by hand, check the output directory, then render again")]
    Journal {
        path: PathBuf,
        dir: PathBuf,
        reason: String,
    },
}

/// An exclusive lock on an output directory: a render holds it from reading
/// the previous render to the last write, a command that only reads the
/// directory holds it while reading. It is an advisory `flock` on the file
/// `.<name>.garrison-lock` beside the output, so the kernel releases it when
/// the process ends, even by SIGKILL, and every process that can write the
/// output finds the same lock whatever its temporary directory, user or path
/// to the output. The last holder removes the file ([`Drop`]): nothing is
/// left beside the output once no garrison command uses it.
pub struct Lock {
    /// `None` for a reader that may not create the lock file, and could
    /// not render there either.
    file: Option<(fs::File, PathBuf)>,
}

impl Drop for Lock {
    /// Remove the lock file when no other command holds it: only with the
    /// lock held exclusively, and only if the path is still this file. A
    /// command that opened the file before it was removed finds, once it
    /// holds its lock, that the path is gone or another file, and opens
    /// the path again ([`acquire`]), so two commands never hold locks on
    /// two different files.
    fn drop(&mut self) {
        if let Some((file, path)) = &self.file {
            if flock(file, Mode::Exclusive, false) && is_at(file, path) {
                let _ = fs::remove_file(path);
            }
        }
    }
}

fn sibling(out: &Path, suffix: &str) -> (PathBuf, PathBuf) {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let path = parent.join(format!(".{name}.garrison-{suffix}"));
    (parent, path)
}

/// Take the lock for `out`, failing at once if another garrison command
/// holds it. Work an interrupted render left beside `out` is cleaned up:
/// staging directories and uncommitted updates are removed, and a committed
/// update is finished, so whoever holds the lock reads a whole render.
pub fn lock(out: &Path) -> Result<Lock, Error> {
    let (parent, path) = lock_path(out)?;
    let Some(file) = acquire(&path, Mode::Exclusive)? else {
        return Err(Error::Locked {
            path: out.to_path_buf(),
        });
    };
    let lock = Lock {
        file: Some((file, path)),
    };
    for staging in leftovers(out, &parent, "new") {
        let _ = fs::remove_dir_all(staging);
    }
    for txn in leftovers(out, &parent, "txn") {
        recover(out, &txn)?;
    }
    Ok(lock)
}

/// The lock for commands that only read `out` (`diff`, `check`, `explain`,
/// a shard reading the previous render): readers share it, a render
/// excludes them. Whoever finds the lock free takes it exclusively first, to
/// finish what an interrupted render left, then holds it shared. A reader
/// that may not create the lock file beside `out` (a read-only file system
/// or directory) could not render there either, and reads without a lock.
pub fn lock_shared(out: &Path) -> Result<Lock, Error> {
    loop {
        match lock(out) {
            Ok(lock) => {
                // Not atomic (flock(2)): a render may slip in between, and
                // the shared lock then waits for it; if that render removed
                // the file, this lock is on nothing and is taken again.
                let current = lock.file.as_ref().is_some_and(|(file, path)| {
                    flock(file, Mode::Shared, true) && is_at(file, path)
                });
                if current {
                    return Ok(lock);
                }
                // Dropped without removing anything: the path is not this file.
            }
            Err(Error::Locked { path }) => {
                let (_, lock_path) = lock_path(out)?;
                return match acquire(&lock_path, Mode::Shared)? {
                    Some(file) => Ok(Lock {
                        file: Some((file, lock_path)),
                    }),
                    None => Err(Error::Locked { path }),
                };
            }
            Err(Error::Io { source, .. })
                if matches!(
                    source.kind(),
                    io::ErrorKind::ReadOnlyFilesystem | io::ErrorKind::PermissionDenied
                ) =>
            {
                return Ok(Lock { file: None });
            }
            Err(other) => return Err(other),
        }
    }
}

/// The directory `out` lives in (created if missing) and its lock file.
fn lock_path(out: &Path) -> Result<(PathBuf, PathBuf), Error> {
    let (parent, path) = sibling(out, "lock");
    fs::create_dir_all(&parent).map_err(io_error(&parent))?;
    Ok((parent, path))
}

/// Open the lock file at `path` and lock it in `mode` if it is free now:
/// `None` when another command holds it. A file its last holder removed
/// between the open and the lock locks nothing, so it is opened again.
fn acquire(path: &Path, mode: Mode) -> Result<Option<fs::File>, Error> {
    loop {
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(io_error(path))?;
        if !flock(&file, mode, false) {
            return Ok(None);
        }
        if is_at(&file, path) {
            return Ok(Some(file));
        }
    }
}

/// Whether `path` names the open `file` (and not a file created after
/// `file` was removed).
#[cfg(unix)]
fn is_at(file: &fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn is_at(_file: &fs::File, path: &Path) -> bool {
    path.exists()
}

/// The siblings of `out` named `.<name>.garrison-<kind>-<pid>`: what
/// interrupted renders into `out` left behind. The name must end in digits,
/// so the leftovers of an output that happens to be named like one of these
/// are never taken for this output's.
fn leftovers(out: &Path, parent: &Path, kind: &str) -> Vec<PathBuf> {
    let (_, prefix) = sibling(out, &format!("{kind}-"));
    let Some(prefix) = prefix.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .strip_prefix(&prefix)
                .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|entry| entry.path())
        .collect();
    found.sort();
    found
}

/// Take `file`'s lock in `mode`; without `wait`, only if it is free now.
#[cfg(unix)]
fn flock(file: &fs::File, mode: Mode, wait: bool) -> bool {
    use std::os::unix::io::AsRawFd;
    let operation = match mode {
        Mode::Exclusive => libc::LOCK_EX,
        Mode::Shared => libc::LOCK_SH,
    };
    let operation = if wait {
        operation
    } else {
        operation | libc::LOCK_NB
    };
    // SAFETY: the descriptor is valid for the lifetime of `file`.
    unsafe { libc::flock(file.as_raw_fd(), operation) == 0 }
}

#[cfg(not(unix))]
fn flock(_file: &fs::File, _mode: Mode, _wait: bool) -> bool {
    true
}

/// How a lock is held.
#[derive(Clone, Copy)]
enum Mode {
    Exclusive,
    Shared,
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Replace the contents of the directory `out` with `tree`. `previous` is
/// what `out` holds now (as read under the lock before planning): a small
/// change is applied in place from a journal, anything else is exchanged
/// whole (see the module documentation).
pub fn write_tree(out: &Path, tree: &Tree, previous: &Tree) -> Result<(), Error> {
    let none = BTreeSet::new();
    write_partial(out, tree, &none, previous, &none)
}

/// [`write_tree`] for a render that read `out` only in part: the files in
/// `unread` exist but were not read, and those also in `kept` stay as they
/// are; the other unread files are stale and removed.
pub fn write_partial(
    out: &Path,
    tree: &Tree,
    kept: &BTreeSet<String>,
    previous: &Tree,
    unread: &BTreeSet<String>,
) -> Result<(), Error> {
    let before = Before {
        files: previous,
        unread,
    };
    match plan(out, tree, kept, &before) {
        Some(change) => update_in_place(out, &change),
        None => exchange(out, tree, kept, previous),
    }
}

/// What `out` holds before a write: files read, and files only listed.
struct Before<'a> {
    files: &'a Tree,
    unread: &'a BTreeSet<String>,
}

/// Write the whole tree beside `out` and swap it in. Unchanged and kept
/// files are linked, not rewritten.
fn exchange(
    out: &Path,
    tree: &Tree,
    kept: &BTreeSet<String>,
    previous: &Tree,
) -> Result<(), Error> {
    let (parent, staging) = sibling(out, &format!("new-{}", std::process::id()));
    fs::create_dir_all(&parent).map_err(io_error(&parent))?;
    if staging.exists() {
        fs::remove_dir_all(&staging).map_err(io_error(&staging))?;
    }
    fs::create_dir_all(&staging).map_err(io_error(&staging))?;
    for (relative, bytes) in tree {
        let target = staging.join(relative);
        if let Some(dir) = target.parent() {
            fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        let unchanged = previous.get(relative).is_some_and(|old| old == bytes);
        if unchanged && fs::hard_link(out.join(relative), &target).is_ok() {
            continue;
        }
        fs::write(&target, bytes).map_err(io_error(&target))?;
    }
    for relative in kept {
        let (source, target) = (out.join(relative), staging.join(relative));
        if let Some(dir) = target.parent() {
            fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        if fs::hard_link(&source, &target).is_err() {
            fs::copy(&source, &target).map_err(io_error(&source))?;
        }
    }
    sync_dir(&staging);
    if out.exists() {
        swap(out, &staging)?;
        fs::remove_dir_all(&staging).map_err(io_error(&staging))?;
    } else {
        fs::rename(&staging, out).map_err(io_error(out))?;
    }
    sync_dir(&parent);
    Ok(())
}

/// One journaled operation, by `/`-separated path relative to the output
/// directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum Op {
    /// Move the transaction's file `file` (a number) to `path`.
    Write { file: String, path: String },
    /// Remove `path`, then the directories this leaves empty.
    Delete { path: String },
}

impl Op {
    fn path(&self) -> &str {
        match self {
            Op::Write { path, .. } | Op::Delete { path } => path,
        }
    }
}

/// A change set to apply in place: the journal's operations in order, and
/// the new bytes of each write (the write to file `n` takes `bytes[n]`).
struct Change<'a> {
    ops: Vec<Op>,
    bytes: Vec<&'a [u8]>,
}

impl<'a> Change<'a> {
    fn write(&mut self, path: &str, bytes: &'a [u8]) {
        self.ops.push(Op::Write {
            file: self.bytes.len().to_string(),
            path: path.to_string(),
        });
        self.bytes.push(bytes);
    }
}

/// The journaled update taking `out` from `previous` to `tree`, or `None`
/// when the whole tree should be exchanged instead: `out` is not a
/// directory, either tree is small, the change is large, or something other
/// than a directory stands on the way to a changed path (a symbolic link,
/// which an update in place would follow out of `out`, or a file where a
/// directory must go).
///
/// Object files are written first, then `kustomization.yaml` files; stale
/// kustomizations are removed before the stale files they list, and the
/// marker goes last. So at every moment each kustomization lists only files
/// that exist, and the marker is new only once every other file is.
fn plan<'a>(
    out: &Path,
    tree: &'a Tree,
    kept: &BTreeSet<String>,
    before: &Before<'_>,
) -> Option<Change<'a>> {
    let previous = before.files;
    let size = (tree.len() + kept.len()).min(previous.len() + before.unread.len());
    let is_dir = fs::symlink_metadata(out).is_ok_and(|m| m.is_dir());
    if size < IN_PLACE_MIN_FILES || !is_dir {
        return None;
    }
    let mut change = Change {
        ops: Vec::new(),
        bytes: Vec::new(),
    };
    let is_kustomization = |path: &str| path.rsplit('/').next() == Some(KUSTOMIZATION);
    for kustomizations in [false, true] {
        for (path, bytes) in tree {
            if path != MARKER_FILE
                && is_kustomization(path) == kustomizations
                && previous.get(path) != Some(bytes)
            {
                change.write(path, bytes);
            }
        }
    }
    for kustomizations in [true, false] {
        for path in previous.keys().chain(before.unread) {
            if path != MARKER_FILE
                && is_kustomization(path) == kustomizations
                && !tree.contains_key(path)
                && !kept.contains(path)
            {
                change.ops.push(Op::Delete { path: path.clone() });
            }
        }
    }
    match (tree.get(MARKER_FILE), previous.get(MARKER_FILE)) {
        (Some(new), old) if old != Some(new) => change.write(MARKER_FILE, new),
        (None, Some(_)) => change.ops.push(Op::Delete {
            path: MARKER_FILE.to_string(),
        }),
        _ => {}
    }
    if change.ops.len() > size / IN_PLACE_MAX_SHARE {
        return None;
    }
    let mut checked = BTreeSet::new();
    change
        .ops
        .iter()
        .all(|op| clear_way(out, op, &mut checked))
        .then_some(change)
}

/// Whether `op` stays inside `out`: every directory on the way to its path
/// is a real directory or absent (none is a symbolic link, which would be
/// followed out of `out`, nor a file), and its path is not a directory.
/// `checked` remembers the directories seen, so a change set costs about
/// one `lstat` per directory it touches.
fn clear_way(out: &Path, op: &Op, checked: &mut BTreeSet<PathBuf>) -> bool {
    let mut dir = out.to_path_buf();
    let parts: Vec<Component<'_>> = Path::new(op.path()).components().collect();
    let Some((_, ancestors)) = parts.split_last() else {
        return false;
    };
    for part in ancestors {
        dir.push(part);
        if checked.contains(&dir) {
            continue;
        }
        match fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => {
                checked.insert(dir.clone());
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return true,
            _ => return false,
        }
    }
    !fs::symlink_metadata(out.join(op.path())).is_ok_and(|m| m.is_dir())
}

fn update_in_place(out: &Path, change: &Change<'_>) -> Result<(), Error> {
    let (_, txn) = sibling(out, &format!("txn-{}", std::process::id()));
    stage(&txn, change)?;
    commit(&txn)?;
    apply(out, &txn, &change.ops)?;
    retire(out, &txn, &change.ops)
}

/// Write the new bytes under numbered names and the journal into a fresh
/// transaction directory. Nothing in `out` changes, and until [`commit`] the
/// next lock discards all of it.
fn stage(txn: &Path, change: &Change<'_>) -> Result<(), Error> {
    if txn.exists() {
        fs::remove_dir_all(txn).map_err(io_error(txn))?;
    }
    fs::create_dir(txn).map_err(io_error(txn))?;
    for (number, bytes) in change.bytes.iter().enumerate() {
        let path = txn.join(number.to_string());
        fs::write(&path, bytes).map_err(io_error(&path))?;
    }
    let path = txn.join(JOURNAL);
    let text = serde_json::to_vec(&change.ops).map_err(|e| Error::Io {
        path: path.clone(),
        source: io::Error::other(e),
    })?;
    let mut file = fs::File::create(&path).map_err(io_error(&path))?;
    file.write_all(&text).map_err(io_error(&path))?;
    file.sync_all().map_err(io_error(&path))
}

/// The commit point: once the journal has its final name, the update is
/// finished by whoever takes the lock next, even if this process dies.
fn commit(txn: &Path) -> Result<(), Error> {
    sync_dir(txn);
    let ready = txn.join(JOURNAL_READY);
    fs::rename(txn.join(JOURNAL), &ready).map_err(io_error(&ready))?;
    sync_dir(txn);
    Ok(())
}

/// Apply `ops` to `out`, in order. Every operation may be applied again
/// after a crash: a write whose transaction file is gone was moved into
/// place already, and a file or directory to remove may be gone.
fn apply(out: &Path, txn: &Path, ops: &[Op]) -> Result<(), Error> {
    for op in ops {
        match op {
            Op::Write { file, path } => {
                let from = txn.join(file);
                match fs::symlink_metadata(&from) {
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(source) => return Err(Error::Io { path: from, source }),
                }
                let to = out.join(path);
                if let Some(dir) = to.parent() {
                    fs::create_dir_all(dir).map_err(io_error(dir))?;
                }
                fs::rename(&from, &to).map_err(io_error(&to))?;
            }
            Op::Delete { path } => {
                let target = out.join(path);
                match fs::remove_file(&target) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(source) => {
                        return Err(Error::Io {
                            path: target,
                            source,
                        })
                    }
                }
                prune(out, path);
            }
        }
    }
    Ok(())
}

/// Remove the directories above `relative` that are now empty, up to but
/// not including `out`, so a render leaves no directory a fresh render would
/// not have. `remove_dir` refuses a directory that still holds anything,
/// which stops the walk.
fn prune(out: &Path, relative: &str) {
    let mut dir = Path::new(relative).parent();
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
        if fs::remove_dir(out.join(d)).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// Make the applied update durable, then drop the transaction. The
/// committed journal goes first: from then on nothing is left to roll
/// forward, whatever else of the directory a crash leaves.
fn retire(out: &Path, txn: &Path, ops: &[Op]) -> Result<(), Error> {
    let mut touched = BTreeSet::new();
    for op in ops {
        let mut dir = Path::new(op.path()).parent();
        while let Some(d) = dir {
            touched.insert(out.join(d));
            dir = d.parent();
        }
    }
    for dir in &touched {
        sync_dir(dir);
    }
    let ready = txn.join(JOURNAL_READY);
    fs::remove_file(&ready).map_err(io_error(&ready))?;
    fs::remove_dir_all(txn).map_err(io_error(txn))?;
    if let Some(parent) = txn.parent() {
        sync_dir(parent);
    }
    Ok(())
}

/// Finish or discard the update an interrupted render left in `txn`: with a
/// committed journal it is rolled forward, without one `out` still holds the
/// old render and the directory is removed.
fn recover(out: &Path, txn: &Path) -> Result<(), Error> {
    let ready = txn.join(JOURNAL_READY);
    if fs::symlink_metadata(&ready).is_err() {
        return fs::remove_dir_all(txn).map_err(io_error(txn));
    }
    let ops = read_journal(&ready)?;
    let mut checked = BTreeSet::new();
    if let Some(op) = ops.iter().find(|op| !clear_way(out, op, &mut checked)) {
        return Err(journal_error(
            &ready,
            format!(
                "something other than a directory stands on the way to `{}`",
                op.path()
            ),
        ));
    }
    apply(out, txn, &ops)?;
    retire(out, txn, &ops)
}

/// The operations of a committed journal, every path checked to stay inside
/// the output directory: a journal is data on disk, and a tampered one must
/// not move or remove files anywhere else.
fn read_journal(path: &Path) -> Result<Vec<Op>, Error> {
    let bytes = fs::read(path)
        .map_err(|e| journal_error(path, format!("the journal cannot be read ({e})")))?;
    let ops: Vec<Op> = serde_json::from_slice(&bytes)
        .map_err(|e| journal_error(path, format!("the journal is not valid ({e})")))?;
    for op in &ops {
        if !inside(op.path()) {
            return Err(journal_error(
                path,
                format!(
                    "`{}` is not a path inside the output directory",
                    op.path().escape_debug()
                ),
            ));
        }
        if let Op::Write { file, .. } = op {
            if file.is_empty() || !file.bytes().all(|b| b.is_ascii_digit()) {
                return Err(journal_error(
                    path,
                    format!("`{}` is not a transaction file", file.escape_debug()),
                ));
            }
        }
    }
    Ok(ops)
}

/// Whether `relative` names something strictly inside a directory: not
/// empty, no NUL byte, and every `/`-separated part a plain name (so not
/// absolute, no `..`, `.` or empty part, no drive or root on any platform).
fn inside(relative: &str) -> bool {
    !relative.is_empty()
        && !relative.contains('\0')
        && relative
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
        && Path::new(relative)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

fn journal_error(path: &Path, reason: String) -> Error {
    Error::Journal {
        path: path.to_path_buf(),
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        reason,
    }
}

fn sync_dir(dir: &Path) {
    if let Ok(handle) = fs::File::open(dir) {
        let _ = handle.sync_all();
    }
}

#[cfg(target_os = "linux")]
fn swap(a: &Path, b: &Path) -> Result<(), Error> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes()).map_err(|e| Error::Io {
        path: a.to_path_buf(),
        source: io::Error::other(e),
    })?;
    let cb = CString::new(b.as_os_str().as_bytes()).map_err(|e| Error::Io {
        path: b.to_path_buf(),
        source: io::Error::other(e),
    })?;
    // SAFETY: both pointers are valid NUL-terminated strings for the duration of the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        swap_by_renames(a, b)
    }
}

#[cfg(not(target_os = "linux"))]
fn swap(a: &Path, b: &Path) -> Result<(), Error> {
    swap_by_renames(a, b)
}

/// Fallback: move `a` aside, move `b` into place, move the old `a` to `b`.
fn swap_by_renames(a: &Path, b: &Path) -> Result<(), Error> {
    let aside = b.with_extension("old");
    fs::rename(a, &aside).map_err(io_error(a))?;
    fs::rename(b, a).map_err(io_error(a))?;
    fs::rename(&aside, b).map_err(io_error(b))?;
    Ok(())
}

/// Every file under `dir`, by `/`-separated relative path. An absent
/// directory is an empty tree; a non-empty one without the marker is refused.
pub fn read_tree(dir: &Path) -> Result<Tree, Error> {
    let listing = list_tree(dir)?;
    let paths: Vec<&String> = listing.iter().collect();
    read_files(dir, &paths)
}

/// The paths of every file under `dir`, without reading them; refused, as
/// by [`read_tree`], when `dir` holds files but no render.
pub fn list_tree(dir: &Path) -> Result<BTreeSet<String>, Error> {
    let mut listing = BTreeSet::new();
    if dir.exists() {
        list(dir, dir, &mut listing)?;
    }
    if !listing.is_empty() && !listing.contains(MARKER_FILE) {
        return Err(Error::NotARender {
            path: dir.to_path_buf(),
        });
    }
    Ok(listing)
}

/// The files at `paths` under `dir`, read in parallel: a fleet's render is
/// tens of thousands of small files.
pub fn read_files<S: AsRef<str> + Sync>(dir: &Path, paths: &[S]) -> Result<Tree, Error> {
    use rayon::prelude::*;
    let files: Vec<(String, Vec<u8>)> = paths
        .par_iter()
        .map(|relative| {
            let path = dir.join(relative.as_ref());
            fs::read(&path)
                .map(|bytes| (relative.as_ref().to_string(), bytes))
                .map_err(io_error(&path))
        })
        .collect::<Result<_, _>>()?;
    Ok(files.into_iter().collect())
}

/// The regular files under `dir`: (relative path, full path).
fn list(root: &Path, dir: &Path, files: &mut BTreeSet<String>) -> Result<(), Error> {
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        let path = entry.path();
        let file_type = entry.file_type().map_err(io_error(&path))?;
        if file_type.is_dir() {
            list(root, &path, files)?;
        } else if file_type.is_file() {
            let relative = path
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            files.insert(relative);
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    /// [`plan`] for a previous render read in full.
    fn plan_complete<'a>(out: &Path, new: &'a Tree, old: &Tree) -> Option<Change<'a>> {
        let unread = BTreeSet::new();
        plan(
            out,
            new,
            &BTreeSet::new(),
            &Before {
                files: old,
                unread: &unread,
            },
        )
    }

    /// A render large enough for the update in place: files spread over 20
    /// cluster directories, a cluster `gone` with two files, and a marker.
    fn old_tree() -> Tree {
        let mut tree: Tree = (0..IN_PLACE_MIN_FILES)
            .map(|i| {
                (
                    format!("clusters/c{:02}/apps/f{i:04}.yaml", i % 20),
                    format!("old {i}\n").into_bytes(),
                )
            })
            .collect();
        for name in ["a", "b"] {
            tree.insert(format!("clusters/gone/apps/{name}.yaml"), b"old\n".to_vec());
        }
        for cluster in ["c00", "c01", "gone"] {
            tree.insert(
                format!("clusters/{cluster}/{KUSTOMIZATION}"),
                b"resources: old\n".to_vec(),
            );
        }
        tree.insert(MARKER_FILE.into(), b"{\"render\":1}\n".to_vec());
        tree
    }

    /// Two files changed, one added in a new directory, cluster `gone`
    /// removed, and a new marker: a small change.
    fn small_change(old: &Tree) -> Tree {
        let mut new = old.clone();
        new.insert("clusters/c00/apps/f0000.yaml".into(), b"new 0\n".to_vec());
        new.insert("clusters/c01/apps/f0001.yaml".into(), b"new 1\n".to_vec());
        new.insert("clusters/added/apps/added.yaml".into(), b"added\n".to_vec());
        for cluster in ["c00", "added"] {
            new.insert(
                format!("clusters/{cluster}/{KUSTOMIZATION}"),
                b"resources: new\n".to_vec(),
            );
        }
        new.retain(|path, _| !path.starts_with("clusters/gone/"));
        new.insert(MARKER_FILE.into(), b"{\"render\":2}\n".to_vec());
        new
    }

    /// A fresh output directory holding `tree`.
    fn written(tree: &Tree) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("out");
        write_tree(&out, tree, &Tree::new()).expect("first write");
        (dir, out)
    }

    fn ino(path: &Path) -> u64 {
        fs::metadata(path).expect("metadata").ino()
    }

    /// Everything garrison left beside `out`.
    fn beside(out: &Path) -> Vec<String> {
        let parent = out.parent().expect("parent");
        let mut names: Vec<String> = fs::read_dir(parent)
            .expect("read parent")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n != "out")
            .collect();
        names.sort();
        names
    }

    fn txn_of(out: &Path) -> PathBuf {
        sibling(out, &format!("txn-{}", std::process::id())).1
    }

    /// A render that read only some files: the others are listed as
    /// unread; those it keeps stay untouched, the stale ones go.
    fn partial_write(exchange_whole: bool) {
        let old = old_tree();
        let mut new = small_change(&old);
        if exchange_whole {
            // Many new files: too large a change for the update in place.
            for i in 0..IN_PLACE_MIN_FILES / 2 {
                new.insert(format!("clusters/big/apps/n{i:04}.yaml"), b"n\n".to_vec());
            }
        }
        let (_dir, out) = written(&old);
        // Only what the render compares was read; the rest is listed.
        let read: Tree = old
            .iter()
            .filter(|(p, _)| new.get(*p) != old.get(*p) || !p.starts_with("clusters/c0"))
            .map(|(p, b)| (p.clone(), b.clone()))
            .collect();
        let unread: BTreeSet<String> = old
            .keys()
            .filter(|p| !read.contains_key(*p))
            .cloned()
            .collect();
        // The render keeps every unread file but one, which it drops.
        let dropped = "clusters/c05/apps/f0005.yaml".to_string();
        assert!(unread.contains(&dropped));
        let kept: BTreeSet<String> = unread.iter().filter(|p| **p != dropped).cloned().collect();
        let written_now: Tree = new
            .iter()
            .filter(|(p, _)| !kept.contains(*p) && **p != dropped)
            .map(|(p, b)| (p.clone(), b.clone()))
            .collect();
        let kept_file = out.join("clusters/c02/apps/f0002.yaml");
        let kept_ino = ino(&kept_file);
        let root = ino(&out);
        write_partial(&out, &written_now, &kept, &read, &unread).expect("update");
        assert_eq!(
            ino(&out) != root,
            exchange_whole,
            "a large change is exchanged whole, a small one applied in place"
        );
        let mut expected = new.clone();
        expected.remove(&dropped);
        for path in &kept {
            expected.insert(path.clone(), old[path].clone());
        }
        assert_eq!(read_tree(&out).expect("read"), expected);
        assert!(
            !out.join(&dropped).exists(),
            "a stale unread file is removed"
        );
        assert_eq!(
            ino(&kept_file),
            kept_ino,
            "a kept file is the same file (linked or untouched)"
        );
        assert!(beside(&out).is_empty(), "{:?}", beside(&out));
    }

    #[test]
    fn readers_share_the_lock_and_a_render_excludes_them() {
        let (_dir, out) = written(&old_tree());
        let first = lock_shared(&out).expect("a reader locks");
        let second = lock_shared(&out).expect("a second reader shares the lock");
        assert!(
            matches!(lock(&out), Err(Error::Locked { .. })),
            "a render is refused while readers read"
        );
        drop((first, second));
        let render = lock(&out).expect("a render locks once the readers are gone");
        assert!(
            matches!(lock_shared(&out), Err(Error::Locked { .. })),
            "a reader is refused while a render writes"
        );
        drop(render);
    }

    #[test]
    fn a_reader_finishes_an_interrupted_update_before_it_reads() {
        let old = old_tree();
        let new = small_change(&old);
        let (_dir, out) = written(&old);
        let change = plan_complete(&out, &new, &old).expect("a small change");
        let txn = txn_of(&out);
        stage(&txn, &change).expect("stage");
        commit(&txn).expect("commit");
        let reader = lock_shared(&out).expect("a reader locks");
        assert_eq!(read_tree(&out).expect("read"), new);
        drop(reader);
        assert!(beside(&out).is_empty(), "{:?}", beside(&out));
    }

    #[test]
    fn the_lock_file_sits_beside_the_output_and_the_last_holder_removes_it() {
        let (_dir, out) = written(&old_tree());
        let path = sibling(&out, "lock").1;
        let render = lock(&out).expect("a render locks");
        assert_eq!(beside(&out), [".out.garrison-lock"]);
        drop(render);
        assert!(beside(&out).is_empty(), "{:?}", beside(&out));
        let first = lock_shared(&out).expect("a reader locks");
        let second = lock_shared(&out).expect("a second reader shares the lock");
        drop(first);
        assert!(path.exists(), "a reader leaves the file to the other");
        drop(second);
        assert!(beside(&out).is_empty(), "{:?}", beside(&out));
    }

    #[test]
    fn a_lock_on_a_removed_lock_file_is_taken_again_on_the_new_one() {
        let (_dir, out) = written(&old_tree());
        let path = sibling(&out, "lock").1;
        // A command opened the file, then its holder removed it.
        let stale = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .expect("open");
        fs::remove_file(&path).expect("remove");
        assert!(flock(&stale, Mode::Exclusive, false));
        assert!(!is_at(&stale, &path), "a lock on nothing");
        let render = lock(&out).expect("the path is locked anew");
        assert!(
            matches!(lock(&out), Err(Error::Locked { .. })),
            "the new file excludes the next command"
        );
        drop(stale);
        assert!(path.exists(), "a stale lock removes nothing");
        drop(render);
        assert!(!path.exists());
    }

    #[test]
    fn a_partly_read_render_keeps_its_kept_files_and_removes_stale_ones_in_place() {
        partial_write(false);
    }

    #[test]
    fn a_partly_read_render_keeps_its_kept_files_and_removes_stale_ones_in_an_exchange() {
        partial_write(true);
    }

    #[test]
    fn a_small_change_is_applied_in_place() {
        let old = old_tree();
        let new = small_change(&old);
        let (_dir, out) = written(&old);
        let root = ino(&out);
        let unchanged = ino(&out.join("clusters/c02/apps/f0002.yaml"));
        let changed = ino(&out.join("clusters/c00/apps/f0000.yaml"));
        write_tree(&out, &new, &old).expect("update");
        assert_eq!(read_tree(&out).expect("read"), new);
        assert_eq!(ino(&out), root, "the directory itself stays");
        assert_eq!(ino(&out.join("clusters/c02/apps/f0002.yaml")), unchanged);
        assert_ne!(ino(&out.join("clusters/c00/apps/f0000.yaml")), changed);
        assert!(
            !out.join("clusters/gone").exists(),
            "a directory left empty is removed"
        );
        assert_eq!(beside(&out), Vec::<String>::new());
    }

    #[test]
    fn a_large_change_is_exchanged_whole() {
        let old = old_tree();
        let mut new = old.clone();
        for (i, bytes) in new.values_mut().enumerate() {
            if i % 4 == 0 {
                *bytes = format!("new {i}\n").into_bytes();
            }
        }
        new.retain(|path, _| !path.starts_with("clusters/gone/"));
        let (_dir, out) = written(&old);
        let root = ino(&out);
        write_tree(&out, &new, &old).expect("update");
        assert_eq!(read_tree(&out).expect("read"), new);
        assert_ne!(ino(&out), root, "a new directory was swapped in");
        assert!(!out.join("clusters/gone").exists());
        assert_eq!(beside(&out), Vec::<String>::new());
    }

    #[test]
    fn a_small_tree_is_always_exchanged_whole() {
        let mut old: Tree = (0..10)
            .map(|i| (format!("clusters/a/f{i}.yaml"), b"old\n".to_vec()))
            .collect();
        old.insert(MARKER_FILE.into(), b"{}\n".to_vec());
        let mut new = old.clone();
        new.insert("clusters/a/f0.yaml".into(), b"new\n".to_vec());
        let (_dir, out) = written(&old);
        let root = ino(&out);
        write_tree(&out, &new, &old).expect("update");
        assert_eq!(read_tree(&out).expect("read"), new);
        assert_ne!(ino(&out), root);
    }

    #[test]
    fn a_symbolic_link_on_the_way_sends_the_change_through_the_exchange() {
        let old = old_tree();
        let new = small_change(&old);
        let (dir, out) = written(&old);
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir(&elsewhere).expect("mkdir");
        std::os::unix::fs::symlink(&elsewhere, out.join("clusters/added")).expect("symlink");
        assert!(plan_complete(&out, &new, &old).is_none());
        write_tree(&out, &new, &old).expect("update");
        assert_eq!(read_tree(&out).expect("read"), new);
        assert_eq!(fs::read_dir(&elsewhere).expect("read").count(), 0);
    }

    #[test]
    fn the_marker_is_written_last() {
        let old = old_tree();
        let new = small_change(&old);
        let (_dir, out) = written(&old);
        let change = plan_complete(&out, &new, &old).expect("a small change");
        // Objects, kustomizations, stale kustomizations, stale objects, marker.
        let rank = |op: &Op| match op {
            Op::Write { path, .. } if path == MARKER_FILE => 4,
            Op::Write { path, .. } if path.ends_with(KUSTOMIZATION) => 1,
            Op::Write { .. } => 0,
            Op::Delete { path } if path.ends_with(KUSTOMIZATION) => 2,
            Op::Delete { .. } => 3,
        };
        let ranks: Vec<u8> = change.ops.iter().map(rank).collect();
        assert!(ranks.is_sorted(), "{:?}", change.ops);
        assert!((0..=4).all(|r| ranks.contains(&r)), "{:?}", change.ops);
        assert_eq!(ranks.last(), Some(&4));
        let txn = txn_of(&out);
        stage(&txn, &change).expect("stage");
        commit(&txn).expect("commit");
        let (_, others) = change.ops.split_last().expect("operations");
        apply(&out, &txn, others).expect("apply");
        let mut expected = new.clone();
        expected.insert(MARKER_FILE.into(), old[MARKER_FILE].clone());
        assert_eq!(read_tree(&out).expect("read"), expected);
    }

    #[test]
    fn an_update_killed_after_its_commit_is_rolled_forward_by_the_next_lock() {
        let old = old_tree();
        let new = small_change(&old);
        let count = plan_complete(&written(&old).1, &new, &old)
            .expect("a small change")
            .ops
            .len();
        for applied in 0..=count {
            let (_dir, out) = written(&old);
            let change = plan_complete(&out, &new, &old).expect("a small change");
            let txn = txn_of(&out);
            stage(&txn, &change).expect("stage");
            commit(&txn).expect("commit");
            apply(&out, &txn, &change.ops[..applied]).expect("apply");
            let held = lock(&out).expect("lock");
            assert_eq!(
                read_tree(&out).expect("read"),
                new,
                "{applied} of {count} operations applied before the crash"
            );
            assert!(!out.join("clusters/gone").exists());
            assert_eq!(beside(&out), [".out.garrison-lock"], "the lock alone");
            drop(held);
            assert_eq!(beside(&out), Vec::<String>::new());
        }
    }

    #[test]
    fn an_update_killed_before_its_commit_is_discarded_by_the_next_lock() {
        let old = old_tree();
        let new = small_change(&old);
        let (_dir, out) = written(&old);
        let change = plan_complete(&out, &new, &old).expect("a small change");
        stage(&txn_of(&out), &change).expect("stage");
        let held = lock(&out).expect("lock");
        assert_eq!(read_tree(&out).expect("read"), old);
        assert_eq!(beside(&out), [".out.garrison-lock"], "the lock alone");
        drop(held);
        assert_eq!(beside(&out), Vec::<String>::new());
    }

    #[test]
    fn a_journal_leading_outside_the_output_is_refused() {
        let old = old_tree();
        let journals = [
            r#"[{"delete":{"path":"../x"}}]"#,
            r#"[{"delete":{"path":"clusters/../../x"}}]"#,
            r#"[{"delete":{"path":"VICTIM"}}]"#,
            r#"[{"delete":{"path":"clusters/a\u0000b"}}]"#,
            r#"[{"delete":{"path":""}}]"#,
            r#"[{"write":{"file":"0","path":"../x"}}]"#,
            r#"[{"write":{"file":"../x","path":"clusters/y"}}]"#,
            r#"[{"copy":{"path":"clusters/y"}}]"#,
            "not json",
        ];
        for journal in journals {
            let (dir, out) = written(&old);
            let victim = dir.path().join("x");
            fs::write(&victim, b"keep").expect("victim");
            let txn = txn_of(&out);
            fs::create_dir(&txn).expect("txn");
            fs::write(txn.join("0"), b"payload").expect("file");
            let journal = journal.replace("VICTIM", &victim.display().to_string());
            fs::write(txn.join(JOURNAL_READY), &journal).expect("journal");
            let refused = lock(&out);
            assert!(
                matches!(refused, Err(Error::Journal { .. })),
                "{journal} is refused"
            );
            if let Err(e) = refused {
                let text = e.to_string();
                assert!(text.contains(JOURNAL_READY), "{text}");
                assert!(text.contains("by hand"), "{text}");
            }
            assert_eq!(fs::read(&victim).expect("victim"), b"keep");
            assert_eq!(read_tree(&out).expect("read"), old);
        }
    }
}
