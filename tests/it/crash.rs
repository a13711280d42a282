//! Crash safety and concurrency of directory renders: a render killed at
//! any moment leaves the old render or the new one, never a mix, as the
//! next garrison command sees it (a large change is swapped in whole, a
//! small one is rolled forward from its journal); two renders into one
//! directory cannot interleave.

use crate::fleet::{clusters, deployment, members, Fleet, EVERY_DEPLOYMENT};
use crate::support::{commit_all, garrison, git, read_tree, stderr};
use std::os::unix::fs::MetadataExt as _;
use std::time::Instant;

/// How many applications the crash fleets have.
const APPS: usize = 30;

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

fn inode(path: &std::path::Path) -> u64 {
    match std::fs::metadata(path) {
        Ok(meta) => meta.ino(),
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// Kill renders alternating between two versions of a 24-cluster fleet, in
/// which the first `changing` applications differ, at moments spread over a
/// render's duration. After each kill, `garrison check` takes the lock (and
/// so finishes an interrupted update); the directory must then hold one
/// version or the other. `in_place` says which way the change is written,
/// so each test is known to exercise the path it is about.
fn kill_renders(changing: usize, in_place: bool) {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &members(24));
    fleet.write("policy.yaml", EVERY_DEPLOYMENT);
    write_version(&fleet, "v1", changing);
    let tree_a = fleet.render().tree;
    let root = inode(fleet.out());
    write_version(&fleet, "v2", changing);
    let started = Instant::now();
    let tree_b = fleet.render().tree;
    let full = started.elapsed();
    assert_ne!(tree_a, tree_b);
    assert_eq!(
        inode(fleet.out()) == root,
        in_place,
        "a small change is applied in place, a large one swapped in ({} files)",
        tree_a.len()
    );

    let repo = fleet.repo.to_string_lossy().into_owned();
    let out = fleet.out().to_string_lossy().into_owned();
    for attempt in 0..16u32 {
        let tag = if attempt % 2 == 0 { "v1" } else { "v2" };
        write_version(&fleet, tag, changing);
        let mut child = match garrison()
            .args(["render", "--repo", &repo, "--out", &out, "-q"])
            .spawn()
        {
            Ok(child) => child,
            Err(e) => panic!("{e}"),
        };
        std::thread::sleep(full.mul_f64(f64::from(attempt % 8) / 6.0));
        let _ = child.kill();
        let _ = child.wait();
        if let Err(e) = garrison()
            .args(["check", "--repo", &repo, "--out", &out])
            .output()
        {
            panic!("{e}");
        }
        let now = read_tree(fleet.out());
        assert!(
            now == tree_a || now == tree_b,
            "attempt {attempt}: the output is a mix of two renders"
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
    let lock = match garrison::emit::write::lock(fleet.out()) {
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

#[test]
fn a_commit_killed_at_any_moment_leaves_the_branch_at_a_complete_commit() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &members(12));
    fleet.write("policy.yaml", EVERY_DEPLOYMENT);
    write_version(&fleet, "v0", APPS);
    let repo = fleet.repo.clone();
    git(&repo, &["init", "-q", "-b", "main"]);
    let commit = |message: &str| commit_all(&repo, message);
    commit("v0");
    let started = Instant::now();
    let first = match garrison()
        .current_dir(&repo)
        .args(["render", "--branch", "rendered", "-q"])
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    assert!(first.status.success(), "{}", stderr(&first));
    let full = started.elapsed();
    let files = git(&repo, &["ls-tree", "-r", "--name-only", "rendered"]);
    for attempt in 1..=10u32 {
        write_version(&fleet, &format!("v{attempt}"), APPS);
        commit(&format!("v{attempt}"));
        let before = git(&repo, &["rev-parse", "rendered"]);
        let mut child = match garrison()
            .current_dir(&repo)
            .args(["render", "--branch", "rendered", "-q"])
            .spawn()
        {
            Ok(child) => child,
            Err(e) => panic!("{e}"),
        };
        std::thread::sleep(full.mul_f64(f64::from(attempt) / 8.0));
        let _ = child.kill();
        let _ = child.wait();
        let tip = git(&repo, &["rev-parse", "rendered"]);
        if tip != before {
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
