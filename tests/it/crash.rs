//! Crash safety and concurrency of renders: a render killed while it
//! writes leaves the old render or the new one, never a mix, as the next
//! garrison command sees it (a large change is swapped in whole, a small
//! one is rolled forward from its journal, a commit is all or nothing);
//! two renders into one directory cannot interleave.
//!
//! Each kill is aimed at the write, by watching for what the render
//! writes (the staging or transaction directory beside the output, new
//! objects in the git repository), and each test counts the kills that
//! really landed mid-write: a kill that comes before the write begins or
//! after it ends proves nothing, so a test whose kills too seldom land
//! mid-write fails.

use crate::fleet::{clusters, deployment, members, Fleet, EVERY_DEPLOYMENT};
use crate::support::{commit_all, garrison, git, read_tree, stderr, stdout};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// How many applications the crash fleets have.
const APPS: usize = 30;

/// How many kills each test needs to land at each moment it aims at.
const LANDED: usize = 6;

/// How many renders each test kills at most to land them: beyond, the aim
/// is broken (the write is no longer where the test looks for it).
const MAX_ATTEMPTS: usize = 40;

/// How long a render may take to reach the moment a kill aims at.
const PATIENCE: Duration = Duration::from_secs(120);

/// The first `changing` applications get image tag `tag`, the others `v0`.
fn write_version(fleet: &Fleet, tag: &str, changing: usize) {
    let apps: Vec<String> = (0..APPS)
        .map(|i| {
            let tag = if i < changing { tag } else { "v0" };
            deployment(&format!("app{i:02}"), 2, tag)
        })
        .collect();
    fleet.write("apps.yaml", &apps.join("---\n"));
}

fn inode(path: &Path) -> u64 {
    match std::fs::metadata(path) {
        Ok(meta) => meta.ino(),
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

fn spawn(command: &mut std::process::Command) -> Child {
    match command.spawn() {
        Ok(child) => child,
        Err(e) => panic!("cannot run garrison: {e}"),
    }
}

/// Wait until `reached()` or the child has exited; true when `reached()`.
fn wait_for(child: &mut Child, what: &str, mut reached: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    loop {
        if reached() {
            return true;
        }
        if matches!(child.try_wait(), Ok(Some(_))) {
            return false;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "a render did not reach {what} within {PATIENCE:?}"
        );
        std::thread::yield_now();
    }
}

fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// What a render of `out` by process `pid` has in progress beside it. An
/// update in place goes `None`, `Staged`, `Committed`, `None`, in that
/// order, so a kill aimed at one of them waits for it or a later one; an
/// exchange is the other way to write, last so that only it meets an aim
/// at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Write {
    /// Nothing: the write has not begun, or is over.
    None,
    /// A transaction directory without a committed journal: the next lock
    /// discards it, and the old render stays.
    Staged,
    /// A committed journal: the next lock finishes the update.
    Committed,
    /// A staging directory: the new render being written beside the old
    /// one, or the old one being removed after the exchange.
    Exchanging,
}

/// The staging and transaction directories a render by `pid` uses for `out`.
fn work_dirs(out: &Path, pid: u32) -> (PathBuf, PathBuf) {
    let name = out.file_name().unwrap_or_default().to_string_lossy();
    let parent = out.parent().unwrap_or(out);
    (
        parent.join(format!(".{name}.garrison-new-{pid}")),
        parent.join(format!(".{name}.garrison-txn-{pid}")),
    )
}

fn write_in_progress(out: &Path, pid: u32) -> Write {
    let (staging, txn) = work_dirs(out, pid);
    if staging.exists() {
        Write::Exchanging
    } else if txn.join("journal.ready").exists() {
        Write::Committed
    } else if txn.exists() {
        Write::Staged
    } else {
        Write::None
    }
}

/// Kill renders alternating between two versions of a 24-cluster fleet, in
/// which the first `changing` applications differ, each while it writes:
/// a large change (`in_place` false) while it is staged for the exchange,
/// a small one (`in_place` true) before and after its journal's commit
/// point, in turn. After each kill, `garrison check` takes the lock (and so
/// finishes or discards the interrupted update): the directory must then
/// hold one version or the other, the one the journal says, and `check`
/// must call it current exactly when it is the source's.
fn kill_renders(changing: usize, in_place: bool) {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &members(24));
    fleet.write("policy.yaml", EVERY_DEPLOYMENT);
    write_version(&fleet, "v1", changing);
    let tree_a = fleet.render().tree;
    let root = inode(fleet.out());
    write_version(&fleet, "v2", changing);
    let tree_b = fleet.render().tree;
    assert_ne!(tree_a, tree_b);
    assert_eq!(
        inode(fleet.out()) == root,
        in_place,
        "a small change is applied in place, a large one swapped in ({} files)",
        tree_a.len()
    );

    let repo = fleet.repo.to_string_lossy().into_owned();
    let out = fleet.out().to_string_lossy().into_owned();
    // The kills that must land at each moment of the write.
    let wanted: &[Write] = if in_place {
        &[Write::Staged, Write::Committed]
    } else {
        &[Write::Exchanging]
    };
    let mut landed = std::collections::BTreeMap::<Write, usize>::new();
    let enough = |landed: &std::collections::BTreeMap<Write, usize>| {
        wanted
            .iter()
            .all(|w| landed.get(w).copied().unwrap_or(0) >= LANDED)
    };
    let mut attempt = 0;
    while !enough(&landed) {
        attempt += 1;
        assert!(
            attempt <= MAX_ATTEMPTS,
            "after {} attempts, too few kills landed mid-write ({landed:?}): the test proves nothing",
            attempt - 1
        );
        // Always the other version than the directory holds, so that every
        // render has a change to write.
        let before = read_tree(fleet.out());
        let (tag, target) = if before == tree_a {
            ("v2", &tree_b)
        } else {
            ("v1", &tree_a)
        };
        write_version(&fleet, tag, changing);
        let aim = wanted[attempt % wanted.len()];
        let mut child = spawn(garrison().args(["render", "--repo", &repo, "--out", &out, "-q"]));
        let pid = child.id();
        if wait_for(&mut child, "its write", || {
            write_in_progress(fleet.out(), pid) >= aim
        }) {
            // Spread over the write, not only its first instant.
            std::thread::sleep(Duration::from_millis([0, 1, 4][attempt % 3]));
        }
        kill(&mut child);
        let left = write_in_progress(fleet.out(), pid);
        *landed.entry(left).or_default() += 1;

        let check = match garrison()
            .args(["check", "--repo", &repo, "--out", &out])
            .output()
        {
            Ok(output) => output,
            Err(e) => panic!("{e}"),
        };
        let now = read_tree(fleet.out());
        assert!(
            now == tree_a || now == tree_b,
            "attempt {attempt}: the output is a mix of two renders"
        );
        match left {
            Write::Staged => assert!(now == before, "attempt {attempt}: rolled back"),
            Write::Committed => assert!(now == *target, "attempt {attempt}: rolled forward"),
            Write::None | Write::Exchanging => {}
        }
        assert_eq!(
            check.status.code(),
            Some(if now == *target { 0 } else { 1 }),
            "attempt {attempt}: `check` calls the directory current exactly when it holds the source's render\n{}{}",
            stdout(&check),
            stderr(&check)
        );
    }
    // And a render after all those kills completes normally.
    write_version(&fleet, "v1", changing);
    assert_eq!(fleet.render().tree, tree_a);
    let leftovers: Vec<String> = std::fs::read_dir(fleet.out().parent().unwrap_or(fleet.out()))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        !leftovers
            .iter()
            .any(|n| n.contains("garrison-new") || n.contains("garrison-txn")),
        "staging and transaction directories are cleaned up: {leftovers:?}"
    );
}

#[test]
fn a_render_killed_at_any_moment_leaves_the_old_or_the_new_render() {
    kill_renders(APPS, false);
}

#[test]
fn a_small_render_killed_at_any_moment_leaves_the_old_or_the_new_render() {
    kill_renders(1, true);
}

#[test]
fn a_second_render_into_a_locked_directory_is_refused_and_changes_nothing() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a"]));
    fleet.write("policy.yaml", EVERY_DEPLOYMENT);
    write_version(&fleet, "v1", APPS);
    let before = fleet.render().tree;
    write_version(&fleet, "v2", APPS);
    let lock = match garrison::store::directory::lock(fleet.out()) {
        Ok(lock) => lock,
        Err(e) => panic!("{e}"),
    };
    let output = fleet.try_render(&[]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output).replace(&fleet.out().display().to_string(), "[OUT]");
    insta::assert_snapshot!(text.trim_end(), @"garrison: error: another garrison command is writing or reading `[OUT]`; wait for it to finish, then run this one again");
    assert_eq!(read_tree(fleet.out()), before);
    drop(lock);
    assert!(
        fleet.try_render(&[]).status.success(),
        "the lock is released with its holder"
    );
}

/// A lock file is left neither beside the output nor in the temporary
/// directory once a command ends: every command that locks a directory
/// (a render, a small and a large change, `diff`, `check`, `explain`,
/// a refused render) removes what it took.
#[test]
fn no_command_leaves_a_lock_file_behind() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["a"]));
    fleet.write("policy.yaml", EVERY_DEPLOYMENT);
    let tmp = crate::support::temp();
    let (repo, out) = (
        fleet.repo.to_string_lossy().into_owned(),
        fleet.out().to_string_lossy().into_owned(),
    );
    let run = |args: &[&str], code: i32| {
        let output = garrison()
            .env("TMPDIR", tmp.path())
            .args(args)
            .args(["--repo", &repo])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            output.status.code(),
            Some(code),
            "{args:?}: {}",
            stderr(&output)
        );
    };
    write_version(&fleet, "v1", APPS);
    run(&["render", "--out", &out], 0);
    write_version(&fleet, "v2", 1);
    run(&["render", "--out", &out], 0);
    write_version(&fleet, "v3", APPS);
    run(&["diff", "--out", &out], 0);
    run(&["check", "--out", &out], 1);
    run(&["explain", "--out", &out, "Deployment/apps/app00"], 0);
    run(&["render", "--out", &out], 0);
    fleet.write("broken.yaml", "kind: [\n");
    run(&["render", "--out", &out], 2);
    let beside: Vec<String> = std::fs::read_dir(fleet.out().parent().unwrap_or(fleet.out()))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        !beside.iter().any(|n| n.contains("garrison-")),
        "nothing is left beside the output: {beside:?}"
    );
    let temporary: Vec<_> = std::fs::read_dir(tmp.path())
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        temporary.is_empty(),
        "nothing is left in the temporary directory: {temporary:?}"
    );
}

/// The loose objects of the git repository `repo`: a commit writes its
/// blobs, trees and the commit itself as loose objects before it moves the
/// branch.
fn loose_objects(repo: &Path) -> usize {
    let Ok(dirs) = std::fs::read_dir(repo.join(".git/objects")) else {
        return 0;
    };
    dirs.filter_map(Result::ok)
        .filter(|d| d.file_name().len() == 2)
        .filter_map(|d| std::fs::read_dir(d.path()).ok())
        .map(Iterator::count)
        .sum()
}

#[test]
fn a_commit_killed_at_any_moment_leaves_the_branch_at_a_complete_commit() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &members(12));
    fleet.write("policy.yaml", EVERY_DEPLOYMENT);
    write_version(&fleet, "v0", APPS);
    let repo = fleet.repo.clone();
    git(&repo, &["init", "-q", "-b", "main"]);
    // Counting loose objects needs them to stay loose.
    git(&repo, &["config", "gc.auto", "0"]);
    let commit = |message: &str| commit_all(&repo, message);
    commit("v0");
    let before_first = loose_objects(&repo);
    let render = || {
        let mut command = garrison();
        command
            .current_dir(&repo)
            .args(["render", "--branch", "rendered", "-q"]);
        command
    };
    let first = match render().output() {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    assert!(first.status.success(), "{}", stderr(&first));
    // What a render writes; a kill aims at a point within it.
    let written = loose_objects(&repo) - before_first;
    let files = git(&repo, &["ls-tree", "-r", "--name-only", "rendered"]);
    let mut landed = 0;
    let mut attempt = 0;
    while landed < LANDED {
        attempt += 1;
        assert!(
            attempt <= MAX_ATTEMPTS,
            "after {} attempts, only {landed} kills landed while the commit was written: the test proves nothing",
            attempt - 1
        );
        write_version(&fleet, &format!("v{attempt}"), APPS);
        commit(&format!("v{attempt}"));
        let before = git(&repo, &["rev-parse", "rendered"]);
        let objects = loose_objects(&repo);
        let mut child = spawn(&mut render());
        let into = 1 + written * (attempt % 3) / 8;
        wait_for(&mut child, "writing objects", || {
            loose_objects(&repo) >= objects + into
        });
        kill(&mut child);
        let tip = git(&repo, &["rev-parse", "rendered"]);
        if tip == before {
            if loose_objects(&repo) > objects {
                landed += 1;
            }
        } else {
            assert_eq!(
                git(&repo, &["rev-parse", "rendered^"]),
                before,
                "a new tip's parent is the previous render"
            );
        }
        assert_eq!(
            git(&repo, &["ls-tree", "-r", "--name-only", "rendered"]),
            files,
            "attempt {attempt}: the tip is a complete render"
        );
        git(&repo, &["fsck", "--strict", "--no-dangling"]);
    }
}
