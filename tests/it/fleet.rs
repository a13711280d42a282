//! A small fleet written into a temporary repository, rendered and edited
//! between renders: the harness for behaviour that spans renders
//! (scheduler memory, forts, pauses).

use crate::support::{read_tree, stderr, stdout};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub struct Fleet {
    _dir: tempfile::TempDir,
    pub repo: PathBuf,
    pub out: PathBuf,
}

/// One render's result.
pub struct Render {
    pub stdout: String,
    pub tree: BTreeMap<String, Vec<u8>>,
}

impl Render {
    /// The replicas of `file` (relative to `clusters/<cluster>/`), if present.
    pub fn replicas(&self, cluster: &str, file: &str) -> Option<u64> {
        let bytes = self.tree.get(&format!("clusters/{cluster}/{file}"))?;
        let text = String::from_utf8_lossy(bytes);
        text.lines()
            .find_map(|l| l.strip_prefix("  replicas: "))
            .and_then(|v| v.trim().parse().ok())
    }

    /// Every file under `clusters/<cluster>/`.
    pub fn cluster(&self, cluster: &str) -> BTreeMap<String, Vec<u8>> {
        let prefix = format!("clusters/{cluster}/");
        self.tree
            .iter()
            .filter(|(p, _)| p.starts_with(&prefix))
            .map(|(p, b)| (p.clone(), b.clone()))
            .collect()
    }

    pub fn file(&self, path: &str) -> String {
        self.tree
            .get(path)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }

    /// The fort recorded in the binding at `bindings/<path>`.
    pub fn fort(&self, binding: &str) -> Option<String> {
        self.file(&format!("bindings/{binding}"))
            .lines()
            .find_map(|l| l.trim().strip_prefix("garrison.dev/fort-cluster: "))
            .map(str::to_string)
    }
}

impl Fleet {
    pub fn new() -> Fleet {
        let dir = crate::support::temp();
        let repo = dir.path().join("repo");
        let out = dir.path().join("out");
        if let Err(e) = std::fs::create_dir_all(&repo) {
            panic!("{e}");
        }
        Fleet {
            _dir: dir,
            repo,
            out,
        }
    }

    pub fn write(&self, name: &str, text: &str) -> &Fleet {
        let path = self.repo.join(name);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Err(e) = std::fs::write(&path, text) {
            panic!("cannot write {}: {e}", path.display());
        }
        self
    }

    pub fn remove(&self, name: &str) -> &Fleet {
        if let Err(e) = std::fs::remove_file(self.repo.join(name)) {
            panic!("cannot remove {name}: {e}");
        }
        self
    }

    /// Render into the fleet's output directory; the render must succeed.
    pub fn render(&self) -> Render {
        self.render_with(&[])
    }

    /// [`Fleet::render`] with extra flags.
    pub fn render_with(&self, extra: &[&str]) -> Render {
        let output = self.try_render(extra);
        assert!(
            output.status.success(),
            "render failed:\n{}",
            stderr(&output)
        );
        Render {
            stdout: stdout(&output),
            tree: read_tree(&self.out),
        }
    }

    pub fn try_render(&self, extra: &[&str]) -> std::process::Output {
        let mut args = vec!["--diagnostics", "concise"];
        args.extend_from_slice(extra);
        crate::support::render_to(&self.repo, &self.out, &args)
    }

    pub fn out(&self) -> &Path {
        &self.out
    }

    /// Render with `--verbose`; the lines that say where each application
    /// goes (and why it was rescheduled, if it was).
    pub fn placements(&self) -> String {
        let output = self.try_render(&["--verbose"]);
        assert!(
            output.status.success(),
            "render failed:\n{}",
            stderr(&output)
        );
        stdout(&output)
            .lines()
            .filter(|l| l.contains(" → "))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `garrison explain` of `app` against the fleet's output; it must succeed.
    pub fn explain(&self, app: &str) -> String {
        let (repo, out) = (self.repo.to_string_lossy(), self.out.to_string_lossy());
        let output = crate::support::run(&["explain", "--repo", &repo, "--out", &out, app]);
        assert!(
            output.status.success(),
            "explain failed:\n{}",
            stderr(&output)
        );
        stdout(&output)
    }
}

/// A Karmada Cluster, optionally paused and labelled.
pub fn cluster(name: &str, labels: &[(&str, &str)], paused: bool) -> String {
    let mut text = format!(
        "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: {name}\n"
    );
    if !labels.is_empty() {
        text.push_str("  labels:\n");
        for (k, v) in labels {
            text.push_str(&format!("    {k}: \"{v}\"\n"));
        }
    }
    if paused {
        text.push_str("  annotations:\n    garrison.dev/sync-paused: \"true\"\n");
    }
    text.push_str("spec:\n  syncMode: Push\n");
    text
}

/// Clusters `names`, none paused, as one file.
/// The names of `count` clusters: `member00`, `member01`, ...
pub fn member_names(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("member{i:02}")).collect()
}

/// [`member_names`] as unlabelled Clusters.
pub fn members(count: usize) -> String {
    let names = member_names(count);
    clusters(&names.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Every Deployment, Duplicated to every cluster.
pub const EVERY_DEPLOYMENT: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: all\nspec:\n  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n  placement:\n    replicaScheduling:\n      replicaSchedulingType: Duplicated\n";

pub fn clusters(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| cluster(n, &[], false))
        .collect::<Vec<_>>()
        .join("---\n")
}

/// A Deployment in namespace `apps` with an image tag to edit.
pub fn deployment(name: &str, replicas: u64, tag: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: apps\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n      containers:\n      - name: main\n        image: example.com/{name}:{tag}\n"
    )
}

/// A PropagationPolicy for Deployment `apps/<name>` with the given placement YAML (indented under `placement:`).
pub fn policy(
    name: &str,
    placement: &str,
    annotations: &[(&str, &str)],
    extra_spec: &str,
) -> String {
    let mut text = format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {name}\n  namespace: apps\n");
    if !annotations.is_empty() {
        text.push_str("  annotations:\n");
        for (k, v) in annotations {
            text.push_str(&format!("    {k}: \"{v}\"\n"));
        }
    }
    text.push_str(&format!(
        "spec:\n  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: {name}\n  placement:\n{placement}{extra_spec}"
    ));
    text
}

/// Divided with equal static weights.
pub const DIVIDED: &str = "    replicaScheduling:\n      replicaSchedulingType: Divided\n";
pub const DUPLICATED: &str = "    replicaScheduling:\n      replicaSchedulingType: Duplicated\n";

/// Divided by static weights per cluster name.
pub fn weighted(weights: &[(&str, u64)]) -> String {
    let mut text = String::from("    replicaScheduling:\n      replicaSchedulingType: Divided\n      weightPreference:\n        staticWeightList:\n");
    for (cluster, weight) in weights {
        text.push_str(&format!("        - targetCluster:\n            clusterNames: [{cluster}]\n          weight: {weight}\n"));
    }
    text
}

pub fn deployment_file(name: &str) -> String {
    format!("apps/deployment.apps_{name}.yaml")
}
