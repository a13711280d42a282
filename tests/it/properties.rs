//! Invariants over random fleets, rendered in-process: divided replicas sum
//! to the desired count, input order never matters, a paused cluster's
//! bytes never change whatever is edited in the source, and keeping the
//! files of unchanged applications never changes what a render writes.

use crate::fleet::{cluster, deployment, policy, weighted, DIVIDED, DUPLICATED};
use garrison::emit::{self, Format, Tree};
use garrison::load::{self, cache::Cache, previous, LoadOptions};
use proptest::prelude::*;
use std::path::Path;

/// load → plan → tree, exactly as `render --rebuild` does, without the disk write.
fn render(repo: &Path, previous_tree: &Tree) -> Tree {
    render_with(repo, previous_tree, false)
}

/// [`render`], keeping the previous files of unchanged applications when
/// `reuse` (as `render` does).
fn render_with(repo: &Path, previous_tree: &Tree, reuse: bool) -> Tree {
    let (inputs, diagnostics) =
        load::load_repository(repo, &LoadOptions::default(), &Cache::disabled());
    assert!(!diagnostics.has_errors(), "{diagnostics:?}");
    let previous = previous::from_tree(previous_tree.clone());
    let options = garrison::plan::Options {
        reuse,
        ..garrison::plan::Options::default()
    };
    let mut plan = match garrison::plan::plan_with(&inputs, &previous, &options) {
        Ok(plan) => plan,
        Err(d) => panic!("{d:?}"),
    };
    match emit::build_tree(&mut plan, &previous, Format::Manifests) {
        Ok(built) => built.tree,
        Err(d) => panic!("{d:?}"),
    }
}

#[derive(Clone, Debug)]
struct App {
    replicas: u64,
    tag: u8,
    /// 0 Duplicated, 1 Divided equal, 2 Divided weighted.
    division: u8,
    weights: Vec<u64>,
}

#[derive(Clone, Debug)]
struct World {
    clusters: usize,
    paused: Vec<bool>,
    apps: Vec<App>,
}

const NAMES: [&str; 5] = ["c0", "c1", "c2", "c3", "c4"];

fn app() -> impl Strategy<Value = App> {
    (
        0u64..40,
        0u8..4,
        0u8..3,
        proptest::collection::vec(1u64..6, 5),
    )
        .prop_map(|(replicas, tag, division, weights)| App {
            replicas,
            tag,
            division,
            weights,
        })
}

fn world() -> impl Strategy<Value = World> {
    (
        1usize..=5,
        proptest::collection::vec(any::<bool>(), 5),
        proptest::collection::vec(app(), 1..4),
    )
        .prop_map(|(clusters, paused, apps)| World {
            clusters,
            paused,
            apps,
        })
}

/// The repository's files for a world, by name.
fn files(world: &World, with_pauses: bool) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for (i, name) in NAMES.iter().take(world.clusters).enumerate() {
        files.push((
            format!("cluster-{name}.yaml"),
            cluster(name, &[], with_pauses && world.paused[i]),
        ));
    }
    for (i, app) in world.apps.iter().enumerate() {
        let name = format!("app{i}");
        files.push((
            format!("{name}.yaml"),
            deployment(&name, app.replicas, &format!("v{}", app.tag)),
        ));
        let placement = match app.division {
            0 => DUPLICATED.to_string(),
            1 => DIVIDED.to_string(),
            _ => weighted(
                &NAMES
                    .iter()
                    .take(world.clusters)
                    .zip(&app.weights)
                    .map(|(n, w)| (*n, *w))
                    .collect::<Vec<_>>(),
            ),
        };
        files.push((
            format!("{name}-policy.yaml"),
            policy(&name, &placement, &[], ""),
        ));
    }
    files
}

fn write(dir: &Path, files: &[(String, String)]) {
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::create_dir_all(dir);
    for (name, text) in files {
        if let Err(e) = std::fs::write(dir.join(name), text) {
            panic!("{e}");
        }
    }
}

fn replicas_in(tree: &Tree, cluster: &str, app: &str) -> Option<u64> {
    let bytes = tree.get(&format!(
        "clusters/{cluster}/apps/deployment.apps_{app}.yaml"
    ))?;
    String::from_utf8_lossy(bytes)
        .lines()
        .find_map(|l| l.strip_prefix("  replicas: "))
        .and_then(|v| v.parse().ok())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn divided_replicas_sum_to_the_desired_count(world in world()) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        write(dir.path(), &files(&world, false));
        let tree = render(dir.path(), &Tree::new());
        for (i, app) in world.apps.iter().enumerate() {
            if app.division == 0 {
                continue;
            }
            let sum: u64 = NAMES.iter().take(world.clusters).filter_map(|c| replicas_in(&tree, c, &format!("app{i}"))).sum();
            prop_assert_eq!(sum, app.replicas, "app{} {:?}", i, app);
        }
    }

    #[test]
    fn output_does_not_depend_on_input_order(world in world(), seed in any::<u64>()) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut shuffled = files(&world, true);
        write(&dir.path().join("a"), &shuffled);
        // Rotate and rename so the walk meets the documents in another order, some merged into one stream.
        let k = (seed as usize) % shuffled.len().max(1);
        shuffled.rotate_left(k);
        let merged: String = shuffled.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>().join("---\n");
        write(&dir.path().join("b"), &[("all.yaml".to_string(), merged)]);
        let renamed: Vec<(String, String)> = shuffled.iter().enumerate().map(|(i, (_, t))| (format!("{:02}.yaml", 99 - i), t.clone())).collect();
        write(&dir.path().join("c"), &renamed);
        let a = render(&dir.path().join("a"), &Tree::new());
        prop_assert_eq!(&a, &render(&dir.path().join("b"), &Tree::new()));
        prop_assert_eq!(&a, &render(&dir.path().join("c"), &Tree::new()));
    }

    #[test]
    fn a_paused_clusters_bytes_never_change(start in world(), edits in proptest::collection::vec(world(), 1..4)) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        write(dir.path(), &files(&start, false));
        let mut previous = render(dir.path(), &Tree::new());
        // Pause c0 from now on, whatever else changes.
        let frozen: Tree = previous.iter().filter(|(p, _)| p.starts_with("clusters/c0/")).map(|(p, b)| (p.clone(), b.clone())).collect();
        for edit in edits {
            let mut world = edit;
            world.clusters = world.clusters.max(1);
            world.paused = vec![true, false, false, false, false];
            write(dir.path(), &files(&world, true));
            let tree = render(dir.path(), &previous);
            let now: Tree = tree.iter().filter(|(p, _)| p.starts_with("clusters/c0/")).map(|(p, b)| (p.clone(), b.clone())).collect();
            prop_assert_eq!(&now, &frozen);
            previous = tree;
        }
    }

    #[test]
    fn keeping_unchanged_files_never_changes_the_render(
        start in world(),
        edits in proptest::collection::vec((any::<bool>(), 0usize..4, 0u8..4, any::<bool>(), proptest::option::of(0u64..40)), 1..6),
    ) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut world = start;
        write(dir.path(), &files(&world, true));
        let mut previous = render(dir.path(), &Tree::new());
        for (retag, index, tag, toggle_c0, replicas) in edits {
            // Per render: maybe an image tag, maybe c0 paused or unpaused,
            // maybe replicas; together or alone.
            let n = world.apps.len();
            if retag {
                world.apps[index % n].tag = tag;
            }
            if toggle_c0 {
                world.paused[0] = !world.paused[0];
            }
            if let Some(replicas) = replicas {
                world.apps[index % n].replicas = replicas;
            }
            write(dir.path(), &files(&world, true));
            let kept = render_with(dir.path(), &previous, true);
            prop_assert_eq!(&kept, &render(dir.path(), &previous));
            previous = kept;
        }
    }
}
