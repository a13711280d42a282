//! Putting a [`Tree`] on disk as one atomic step.
//!
//! The new render is written in full to a hidden sibling of the output
//! directory, then exchanged with the old one in a single `renameat2`
//! (RENAME_EXCHANGE) on Linux, so readers and a crash only ever see the old
//! render or the new one. Elsewhere the old directory is renamed away first.
//! Files whose bytes did not change are hard-linked from the old render
//! instead of rewritten. A [`Lock`] keeps two renders from writing one
//! directory at once.

use super::Tree;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

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
    #[error("another garrison render into `{path}` is running; wait for it to finish, then render again")]
    Locked { path: PathBuf },
}

/// An exclusive lock on an output directory, held from reading the previous
/// render to the swap. It is an advisory `flock` on a file in the temporary
/// directory named after the output's absolute path, so the
/// kernel releases it when the process ends, even by SIGKILL.
pub struct Lock {
    _file: fs::File,
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

/// Take the lock for `out`, failing at once if another render holds it.
/// Staging directories left by an interrupted render are removed.
pub fn lock(out: &Path) -> Result<Lock, Error> {
    let (parent, _) = sibling(out, "lock");
    fs::create_dir_all(&parent).map_err(io_error(&parent))?;
    // The lock file lives in the temporary directory, keyed by the output's
    // absolute path, so nothing is left beside the output for `git add` to find.
    let absolute = parent
        .canonicalize()
        .map_err(io_error(&parent))?
        .join(out.file_name().unwrap_or_default());
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in absolute.to_string_lossy().bytes() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let path = std::env::temp_dir().join(format!("garrison-{hash:016x}.lock"));
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io_error(&path))?;
    if !try_lock(&file) {
        return Err(Error::Locked {
            path: out.to_path_buf(),
        });
    }
    let (_, staging_prefix) = sibling(out, "new-");
    let prefix = staging_prefix
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Ok(entries) = fs::read_dir(&parent) {
        for entry in entries.filter_map(Result::ok) {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }
    Ok(Lock { _file: file })
}

#[cfg(unix)]
fn try_lock(file: &fs::File) -> bool {
    use std::os::unix::io::AsRawFd;
    // SAFETY: the descriptor is valid for the lifetime of `file`.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

#[cfg(not(unix))]
fn try_lock(_file: &fs::File) -> bool {
    true
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Replace the directory `out` with `tree` plus the files in `kept`, which
/// stay as they are in `out`. `previous` is what `out` holds now, as far
/// as it was read; unchanged files are linked, not rewritten.
pub fn write_tree(
    out: &Path,
    tree: &Tree,
    kept: &std::collections::BTreeSet<String>,
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
pub fn list_tree(dir: &Path) -> Result<std::collections::BTreeSet<String>, Error> {
    let mut files = Vec::new();
    if dir.exists() {
        list(dir, dir, &mut files)?;
    }
    let listing: std::collections::BTreeSet<String> = files.into_iter().map(|(r, _)| r).collect();
    if !listing.is_empty() && !listing.contains(super::MARKER_FILE) {
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
fn list(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) -> Result<(), Error> {
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
            files.push((relative, path));
        }
    }
    Ok(())
}
