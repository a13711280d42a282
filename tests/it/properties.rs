//! Invariants over random fleets, rendered in-process: divided replicas sum
//! to the desired count, input order never matters, a paused cluster's
//! bytes never change whatever is edited in the source, keeping the files
//! of unchanged applications never changes what a render writes, a file
//! shared between clusters is the file made alone, and
//! however clusters are paused, unpaused and applications edited, holds
//! behave as SPEC §5 says and leave nothing behind once they are lifted.

use crate::fleet::{cluster, deployment, policy, weighted, DIVIDED, DUPLICATED};
use crate::support::tree_text;
use garrison::emit;
use garrison::load::{self, cache::Cache, previous, LoadOptions};
use garrison::model::layout::{Format, Tree, KUSTOMIZATION};
use garrison::report::{Counts, Summary};
use proptest::prelude::*;
use std::collections::BTreeMap;
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
    let plan = match garrison::plan::plan(&inputs, &previous) {
        Ok(plan) => plan,
        Err(d) => panic!("{d:?}"),
    };
    let options = emit::render::Options {
        format: Format::Manifests,
        reuse,
    };
    let rendered = match emit::render::render(&inputs, &plan, &previous, options) {
        Ok(rendered) => rendered,
        Err(d) => panic!("{d:?}"),
    };
    match emit::build_tree(
        &plan,
        rendered,
        &previous,
        Format::Manifests,
        &Default::default(),
    ) {
        Ok(built) => built.tree,
        Err(d) => panic!("{d:?}"),
    }
}

/// One render as `render` makes it: the tree, what held clusters would
/// receive without their holds, and the held-back counts of its summary.
struct Held {
    tree: Tree,
    shadow: Tree,
    held_back: BTreeMap<String, Counts>,
}

fn render_held(repo: &Path, previous_tree: &Tree) -> Held {
    let (inputs, diagnostics) =
        load::load_repository(repo, &LoadOptions::default(), &Cache::disabled());
    assert!(!diagnostics.has_errors(), "{diagnostics:?}");
    let previous = previous::from_tree(previous_tree.clone());
    let plan = match garrison::plan::plan(&inputs, &previous) {
        Ok(plan) => plan,
        Err(d) => panic!("{d:?}"),
    };
    let options = emit::render::Options::default();
    let rendered = match emit::render::render(&inputs, &plan, &previous, options) {
        Ok(rendered) => rendered,
        Err(d) => panic!("{d:?}"),
    };
    let shadow = emit::shadow_tree(&plan, &rendered);
    let built = match emit::build_tree(
        &plan,
        rendered,
        &previous,
        Format::Manifests,
        &Default::default(),
    ) {
        Ok(built) => built,
        Err(d) => panic!("{d:?}"),
    };
    let summary = Summary::new(
        &plan,
        &previous,
        &built.tree,
        &built.kept,
        &shadow,
        Format::Manifests,
    );
    Held {
        tree: built.tree,
        shadow,
        held_back: summary.held_back,
    }
}

/// The files of `tree` under `clusters/<cluster>/`; with `objects_only`,
/// without its `kustomization.yaml`.
fn cluster_files(tree: &Tree, cluster: &str, objects_only: bool) -> Tree {
    let prefix = format!("clusters/{cluster}/");
    tree.iter()
        .filter(|(p, _)| p.starts_with(&prefix))
        .filter(|(p, _)| !(objects_only && p.ends_with(KUSTOMIZATION)))
        .map(|(p, b)| (p.clone(), b.clone()))
        .collect()
}

/// One edit between two renders.
#[derive(Clone, Debug)]
enum Edit {
    /// Pause or unpause a cluster (by index).
    Toggle(usize),
    /// Suspend or resume dispatching an application (by index) to a cluster.
    Suspend(usize, usize),
    /// New desired replicas for an application (by index).
    Replicas(usize, u64),
    /// New static weights for an application, which makes it weighted.
    Weights(usize, Vec<u64>),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (0usize..5).prop_map(Edit::Toggle),
        1 => (0usize..4, 0usize..5).prop_map(|(app, cluster)| Edit::Suspend(app, cluster)),
        1 => (0usize..4, 0u64..40).prop_map(|(app, replicas)| Edit::Replicas(app, replicas)),
        1 => (0usize..4, proptest::collection::vec(1u64..6, 5))
            .prop_map(|(app, weights)| Edit::Weights(app, weights)),
    ]
}

fn apply(world: &mut World, edit: &Edit) {
    let apps = world.apps.len();
    match edit {
        Edit::Toggle(cluster) => {
            let cluster = cluster % world.clusters;
            world.paused[cluster] = !world.paused[cluster];
        }
        Edit::Suspend(app, cluster) => {
            let cluster = cluster % world.clusters;
            let app = &mut world.apps[app % apps];
            app.suspended[cluster] = !app.suspended[cluster];
        }
        Edit::Replicas(app, replicas) => world.apps[app % apps].replicas = *replicas,
        Edit::Weights(app, weights) => {
            let app = &mut world.apps[app % apps];
            app.division = 2;
            app.weights.clone_from(weights);
        }
    }
}

#[derive(Clone, Debug)]
struct App {
    replicas: u64,
    tag: u8,
    /// 0 Duplicated, 1 Divided equal, 2 Divided weighted.
    division: u8,
    weights: Vec<u64>,
    /// Per cluster: its policy suspends dispatching there.
    suspended: Vec<bool>,
    /// In a fleet of ManagedClusters, a Clusternet Subscription feeds it
    /// (Replication for Duplicated, Static Dividing otherwise) instead of
    /// a PropagationPolicy; suspension is Karmada's and does not apply.
    subscribed: bool,
}

#[derive(Clone, Debug)]
struct World {
    clusters: usize,
    paused: Vec<bool>,
    apps: Vec<App>,
    /// The fleet is Clusternet ManagedClusters (Karmada policies select
    /// them too), so both dialects plan into one render.
    managed: bool,
}

const NAMES: [&str; 5] = ["c0", "c1", "c2", "c3", "c4"];

fn app() -> impl Strategy<Value = App> {
    (
        0u64..40,
        0u8..4,
        0u8..3,
        proptest::collection::vec(1u64..6, 5),
        any::<bool>(),
    )
        .prop_map(|(replicas, tag, division, weights, subscribed)| App {
            replicas,
            tag,
            division,
            weights,
            suspended: vec![false; NAMES.len()],
            subscribed,
        })
}

fn world() -> impl Strategy<Value = World> {
    (
        1usize..=5,
        proptest::collection::vec(any::<bool>(), 5),
        proptest::collection::vec(app(), 1..4),
        any::<bool>(),
    )
        .prop_map(|(clusters, paused, apps, managed)| World {
            clusters,
            paused,
            apps,
            managed,
        })
}

/// The repository's files for a world, by name.
fn files(world: &World, with_pauses: bool) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for (i, name) in NAMES.iter().take(world.clusters).enumerate() {
        let paused = with_pauses && world.paused[i];
        let text = if world.managed {
            managed_cluster(name, paused)
        } else {
            cluster(name, &[], paused)
        };
        files.push((format!("cluster-{name}.yaml"), text));
    }
    for (i, app) in world.apps.iter().enumerate() {
        let name = format!("app{i}");
        files.push((
            format!("{name}.yaml"),
            // A Subscription's feed keeps one image: its overrides carry the tag.
            deployment(
                &name,
                app.replicas,
                &if world.managed && app.subscribed {
                    "base".to_string()
                } else {
                    format!("v{}", app.tag)
                },
            ),
        ));
        if world.managed && app.subscribed {
            files.push((
                format!("{name}-subscription.yaml"),
                subscription(&name, app, world.clusters),
            ));
            files.push((format!("{name}-overrides.yaml"), localized(&name, app.tag)));
            continue;
        }
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
        let suspended: Vec<&str> = NAMES
            .iter()
            .take(world.clusters)
            .zip(&app.suspended)
            .filter(|(_, s)| **s)
            .map(|(n, _)| *n)
            .collect();
        let suspension = if suspended.is_empty() {
            String::new()
        } else {
            format!(
                "  suspension:\n    dispatchingOnClusters:\n      clusterNames: [{}]\n",
                suspended.join(", ")
            )
        };
        files.push((
            format!("{name}-policy.yaml"),
            policy(&name, &placement, &[], &suspension),
        ));
    }
    files
}

/// A ManagedCluster named `name` in its own dedicated namespace, labelled
/// with its name.
fn managed_cluster(name: &str, paused: bool) -> String {
    format!(
        "apiVersion: clusters.clusternet.io/v1beta1\nkind: ManagedCluster\nmetadata:\n  name: {name}\n  namespace: clusternet-{name}\n  labels:\n    name: {name}\nspec:\n  clusterId: 00000000-0000-4000-8000-000000000000\n  syncMode: Pull\n  syncPaused: {paused}\n"
    )
}

/// A Globalization annotating Deployment `apps/<name>` with `tag` on every
/// cluster, and a Localization moving its image to `tag` on `c0` only, so
/// an edit of either changes some clusters' files and not others'.
fn localized(name: &str, tag: u8) -> String {
    let feed = format!("{{apiVersion: apps/v1, kind: Deployment, namespace: apps, name: {name}}}");
    format!(
        "apiVersion: apps.clusternet.io/v1alpha1\nkind: Globalization\nmetadata:\n  name: {name}-tag\nspec:\n  feed: {feed}\n  overrides:\n  - type: MergePatch\n    value: '{{\"metadata\": {{\"annotations\": {{\"tag\": \"t{tag}\"}}}}}}'\n---\napiVersion: apps.clusternet.io/v1alpha1\nkind: Localization\nmetadata:\n  name: {name}-c0\n  namespace: clusternet-c0\nspec:\n  feed: {feed}\n  overrides:\n  - type: JSONPatch\n    value: '[{{\"op\": \"replace\", \"path\": \"/spec/template/spec/containers/0/image\", \"value\": \"example.com/{name}:l{tag}\"}}]'\n"
    )
}

/// A Subscription feeding Deployment `apps/<name>` to the first `clusters`
/// clusters, one subscriber per cluster: Replication for a Duplicated app,
/// Static Dividing with equal or the app's weights otherwise.
fn subscription(name: &str, app: &App, clusters: usize) -> String {
    let strategy = if app.division == 0 {
        "Replication"
    } else {
        "Dividing\n  dividingScheduling:\n    type: Static"
    };
    let subscribers: String = NAMES
        .iter()
        .take(clusters)
        .zip(&app.weights)
        .map(|(n, w)| {
            let weight = if app.division == 2 { *w } else { 1 };
            format!("  - clusterAffinity:\n      matchLabels:\n        name: {n}\n    weight: {weight}\n")
        })
        .collect();
    format!(
        "apiVersion: apps.clusternet.io/v1alpha1\nkind: Subscription\nmetadata:\n  name: {name}\n  namespace: apps\nspec:\n  schedulingStrategy: {strategy}\n  subscribers:\n{subscribers}  feeds:\n  - apiVersion: apps/v1\n    kind: Deployment\n    namespace: apps\n    name: {name}\n"
    )
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

    /// Sharing bytes between clusters whose objects are the same
    /// (`emit::memo`) never changes a file: every file is what making its
    /// one object alone writes.
    #[test]
    fn a_file_shared_between_clusters_is_the_file_made_alone(world in world()) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        write(dir.path(), &files(&world, false));
        let tree = render(dir.path(), &Tree::new());
        let (inputs, _) = load::load_repository(dir.path(), &LoadOptions::default(), &Cache::disabled());
        let plan = garrison::plan::plan(&inputs, &previous::from_tree(Tree::new()))
            .map_err(|d| TestCaseError::fail(format!("{d:?}")))?;
        let materialiser = garrison::plan::materialise::Materialiser::new(&inputs);
        let mut compared = 0;
        for cluster in &plan.clusters {
            let Some(target) = inputs.clusters.iter().find(|c| c.name == cluster.name) else {
                continue;
            };
            for delivery in &cluster.objects {
                let app = &plan.apps[delivery.app];
                let made = match plan.materialise(&materialiser, delivery.app, target, delivery.replicas) {
                    Some(Ok(made)) => made,
                    other => return Err(TestCaseError::fail(format!("{}: {other:?}", app.key))),
                };
                let (path, bytes) = emit::object_file(&app.key, made.value, app.work, &cluster.name, Format::Manifests)
                    .map_err(|d| TestCaseError::fail(format!("{d:?}")))?;
                let full = garrison::model::layout::in_cluster(&cluster.name, &path);
                prop_assert_eq!(tree.get(&full), Some(&bytes), "{}", full);
                compared += 1;
            }
        }
        prop_assert!(compared > 0, "no object delivered");
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
    fn holds_keep_what_spec_5_says_and_leave_nothing_behind_once_lifted(
        start in world(),
        suspended_from_the_start in proptest::collection::vec((0usize..4, 0usize..5), 0..3),
        renders in proptest::collection::vec(proptest::collection::vec(edit(), 1..3), 1..6),
    ) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut world = start;
        world.clusters = world.clusters.max(2);
        for (app, cluster) in suspended_from_the_start {
            apply(&mut world, &Edit::Suspend(app, cluster));
        }
        let names: Vec<&str> = NAMES.iter().take(world.clusters).copied().collect();
        let paused = |world: &World| -> Vec<&str> {
            names.iter().zip(&world.paused).filter(|(_, p)| **p).map(|(n, _)| *n).collect()
        };
        // The clusters held for an application: paused, or suspended by its
        // policy (a Subscription has no suspension).
        let held = |world: &World, app: usize| -> Vec<&str> {
            let app = &world.apps[app];
            let suspends = !(world.managed && app.subscribed);
            names.iter().enumerate().filter(|(c, _)| world.paused[*c] || (suspends && app.suspended[*c])).map(|(_, n)| *n).collect()
        };
        let app_file = |cluster: &str, app: usize| format!("clusters/{cluster}/apps/deployment.apps_app{app}.yaml");
        write(dir.path(), &files(&world, true));
        let mut previous = render_held(dir.path(), &Tree::new());
        // §5.4: a first render gives a held cluster nothing.
        for (i, _) in world.apps.iter().enumerate() {
            for name in held(&world, i) {
                prop_assert!(!previous.tree.contains_key(&app_file(name, i)), "app{} on {} on the first render", i, name);
            }
        }
        let mut history = vec![world.clone()];
        for edits in &renders {
            for edit in edits {
                apply(&mut world, edit);
            }
            write(dir.path(), &files(&world, true));
            let now = render_held(dir.path(), &previous.tree);
            // §5.1: a paused cluster's output is byte-identical to the
            // previous render; a suspension freezes the application's file.
            for name in paused(&world) {
                prop_assert_eq!(
                    tree_text(&cluster_files(&now.tree, name, false)),
                    tree_text(&cluster_files(&previous.tree, name, false)),
                    "{} is paused after {:?}", name, edits
                );
            }
            for (i, app) in world.apps.iter().enumerate() {
                let held = held(&world, i);
                for name in &held {
                    let path = app_file(name, i);
                    prop_assert_eq!(now.tree.get(&path), previous.tree.get(&path), "{} after {:?}", path, edits);
                }
                // §5.3: a held cluster keeps its replicas; the rest of the
                // desired replicas (never below zero) goes to the others.
                if app.division == 0 || held.len() == names.len() {
                    continue;
                }
                let on = |cluster: &&str| replicas_in(&now.tree, cluster, &format!("app{i}")).unwrap_or(0);
                let frozen: u64 = held.iter().map(on).sum();
                let running: u64 = names.iter().filter(|n| !held.contains(n)).map(on).sum();
                prop_assert_eq!(running, app.replicas.saturating_sub(frozen), "app{} after {:?}", i, edits);
            }
            // The same inputs again: the same output, and the same counts held back.
            let again = render_held(dir.path(), &now.tree);
            prop_assert_eq!(tree_text(&again.tree), tree_text(&now.tree), "again after {:?}", edits);
            prop_assert_eq!(&again.held_back, &now.held_back, "held back after {:?}", edits);
            history.push(world.clone());
            previous = now;
        }

        // Every hold lifted, nothing else changed.
        let was_paused = paused(&world);
        world.paused = vec![false; NAMES.len()];
        for app in &mut world.apps {
            app.suspended = vec![false; NAMES.len()];
        }
        write(dir.path(), &files(&world, true));
        let lifted = render_held(dir.path(), &previous.tree);
        // §5.5: lifting the holds brings exactly what was counted as held back.
        for (path, bytes) in &previous.shadow {
            prop_assert_eq!(lifted.tree.get(path), Some(bytes), "{}", path);
        }
        for name in &was_paused {
            prop_assert_eq!(
                tree_text(&cluster_files(&lifted.tree, name, true)),
                tree_text(&cluster_files(&previous.shadow, name, true)),
                "{} unpaused", name
            );
        }
        // SPEC §9: on unpause a Divided application is divided again over
        // all its clusters; with no hold left, the render is a fresh one's.
        let fresh = render_held(dir.path(), &Tree::new());
        for (i, _) in world.apps.iter().enumerate().filter(|(_, a)| a.division != 0) {
            for name in &names {
                prop_assert_eq!(
                    replicas_in(&lifted.tree, name, &format!("app{i}")),
                    replicas_in(&fresh.tree, name, &format!("app{i}")),
                    "app{} on {} after {:?}", i, name, history
                );
            }
        }
        prop_assert_eq!(tree_text(&lifted.tree), tree_text(&fresh.tree));
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
