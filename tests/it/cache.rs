//! The parse cache (`src/load/cache.rs`) may only make a render faster: with
//! it, without it, or with a damaged one, every render writes the same bytes.

use crate::fleet::{cluster, deployment, policy, Fleet, DIVIDED};
use crate::support::{garrison, read_tree, stderr, temp};
use std::path::{Path, PathBuf};
use std::process::Output;

/// `garrison render`, with the cache where the user's would be.
fn render_to(repo: &Path, out: &Path, extra: &[&str]) -> Output {
    let (repo, out) = (repo.to_string_lossy(), out.to_string_lossy());
    garrison()
        .env_remove("GARRISON_CACHE_DIR")
        .args(["render", "--repo", &repo, "--out", &out])
        .args(extra)
        .output()
        .unwrap()
}

fn render(fleet: &Fleet) {
    let output = render_to(&fleet.repo, fleet.out(), &["-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
}

fn fleet() -> Fleet {
    let fleet = Fleet::new();
    fleet.write(
        "clusters.yaml",
        &[
            cluster("a", &[("region", "eu")], false),
            cluster("b", &[("region", "us")], false),
        ]
        .join("---\n"),
    );
    fleet.write("web.yaml", &deployment("web", 6, "v1"));
    fleet.write("web-policy.yaml", &policy("web", DIVIDED, &[], ""));
    fleet
}

fn cache_file(fleet: &Fleet) -> PathBuf {
    fleet.repo.join(".garrison-cache/parse.bin")
}

/// Render `fleet` with its cache into its output, and without a cache into
/// `plain`; both must succeed alike and leave the same tree.
fn assert_same_as_uncached(fleet: &Fleet, plain: &Path, step: &str) {
    let cached = render_to(&fleet.repo, fleet.out(), &["-q"]);
    let uncached = render_to(&fleet.repo, plain, &["-q", "--no-cache"]);
    assert_eq!(cached.status.code(), uncached.status.code(), "{step}");
    assert_eq!(stderr(&cached), stderr(&uncached), "{step}");
    assert_eq!(
        read_tree(fleet.out()),
        read_tree(plain),
        "{step}: the cached render differs"
    );
}

#[test]
fn a_cached_render_writes_what_an_uncached_one_writes_through_edits_and_damage() {
    let fleet = fleet();
    let scratch = temp();
    let plain = scratch.path().join("plain");
    assert_same_as_uncached(&fleet, &plain, "first render");
    assert!(
        cache_file(&fleet).is_file(),
        "the first render fills the cache"
    );
    let first = inode(&cache_file(&fleet));
    assert_same_as_uncached(&fleet, &plain, "no change");
    assert_ne!(
        inode(&cache_file(&fleet)),
        first,
        "the bindings were parsed"
    );
    let second = inode(&cache_file(&fleet));
    assert_same_as_uncached(&fleet, &plain, "no change, again");
    assert_eq!(
        inode(&cache_file(&fleet)),
        second,
        "everything came from the cache"
    );
    fleet.write("web.yaml", &deployment("web", 9, "v2"));
    assert_same_as_uncached(&fleet, &plain, "template changed");
    fleet.write("web.yaml", "kind: [\n");
    assert_same_as_uncached(&fleet, &plain, "a file that does not parse");
    fleet.write("web.yaml", &deployment("web", 9, "v2"));
    assert_same_as_uncached(&fleet, &plain, "fixed again");

    let mut bytes = std::fs::read(cache_file(&fleet)).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    std::fs::write(cache_file(&fleet), &bytes).unwrap();
    fleet.write("web.yaml", &deployment("web", 4, "v3"));
    assert_same_as_uncached(&fleet, &plain, "damaged cache");
    assert_ne!(
        std::fs::read(cache_file(&fleet)).unwrap(),
        bytes,
        "a damaged cache is replaced"
    );

    std::fs::write(cache_file(&fleet), b"not a cache").unwrap();
    assert_same_as_uncached(&fleet, &plain, "a file that is not a cache");
}

fn inode(path: &Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(path).unwrap())
}

/// A save replaces the file by a rename, so an unchanged inode means the
/// run found every file in the cache and wrote nothing.
#[test]
fn a_render_with_nothing_new_to_parse_leaves_the_cache_file_alone() {
    let fleet = fleet();
    render(&fleet);
    render(&fleet);
    let before = inode(&cache_file(&fleet));
    render(&fleet);
    assert_eq!(inode(&cache_file(&fleet)), before, "every file was a hit");
    fleet.write("web.yaml", &deployment("web", 6, "v2"));
    render(&fleet);
    assert_ne!(
        inode(&cache_file(&fleet)),
        before,
        "the changed file was parsed"
    );
}

#[test]
fn no_cache_wins_over_the_environment() {
    let fleet = fleet();
    let scratch = temp();
    let env = scratch.path().join("by-env");
    let output = garrison()
        .env("GARRISON_CACHE_DIR", &env)
        .args(["render", "--repo", &fleet.repo.to_string_lossy()])
        .args(["--out", &fleet.out().to_string_lossy(), "-q", "--no-cache"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!env.exists());
}

#[test]
fn the_cache_goes_where_it_is_told_or_nowhere() {
    let fleet = fleet();
    let scratch = temp();
    let out = scratch.path().join("out");

    let output = render_to(&fleet.repo, &out, &["-q", "--no-cache"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!fleet.repo.join(".garrison-cache").exists());

    let flag = scratch.path().join("by-flag");
    let output = render_to(
        &fleet.repo,
        &out,
        &["-q", "--cache-dir", &flag.to_string_lossy()],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(flag.join("parse.bin").is_file());

    let env = scratch.path().join("by-env");
    let output = garrison()
        .env("GARRISON_CACHE_DIR", &env)
        .args(["check", "--repo", &fleet.repo.to_string_lossy()])
        .args(["--out", &out.to_string_lossy()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(env.join("parse.bin").is_file());
    assert!(!fleet.repo.join(".garrison-cache").exists());

    // The default lives in the repository, ignored by git and by garrison.
    render(&fleet);
    let ignore = std::fs::read_to_string(fleet.repo.join(".garrison-cache/.gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "*"), "{ignore}");
}

#[test]
fn a_cache_that_cannot_be_written_does_not_fail_the_render() {
    let fleet = fleet();
    let scratch = temp();
    let blocked = scratch.path().join("a-file");
    std::fs::write(&blocked, "").unwrap();
    let output = render_to(
        &fleet.repo,
        fleet.out(),
        &[
            "-q",
            "--cache-dir",
            &blocked.join("cache").to_string_lossy(),
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).is_empty(), "{}", stderr(&output));
    assert!(fleet.out().join("bindings").is_dir());
}

/// `validate` writes nothing: it reads a cache it finds, and leaves the
/// repository, cache included, byte for byte as it was.
#[test]
fn validate_reads_the_cache_and_writes_nothing() {
    let fleet = fleet();
    let validate = || {
        garrison()
            .env_remove("GARRISON_CACHE_DIR")
            .args(["validate", "--repo", &fleet.repo.to_string_lossy()])
            .output()
            .unwrap()
    };
    let before = read_tree(&fleet.repo);
    let output = validate();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(read_tree(&fleet.repo), before, "no cache is created");
    assert!(!fleet.repo.join(".garrison-cache").exists());

    render(&fleet);
    fleet.write("web.yaml", &deployment("web", 6, "v2"));
    let before = read_tree(&fleet.repo);
    let cache = inode(&cache_file(&fleet));
    let output = validate();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        read_tree(&fleet.repo),
        before,
        "a file parsed anew is not written back"
    );
    assert_eq!(inode(&cache_file(&fleet)), cache);
}
