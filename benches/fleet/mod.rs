//! A deterministic generator of two equivalent fleets, shared by the benches
//! and by `tests/it/bench_fleet.rs`.
//!
//! `generate` writes, under one directory:
//!
//! - `garrison/`: resource templates (Deployments with a sidecar, probes and
//!   resources; Services; ConfigMaps; a kruise `Rollout` for every 10th app),
//!   Namespaces, Karmada `Cluster`s, two ClusterPropagationPolicies
//!   (Duplicated, Divided with equal weights) and four
//!   ClusterOverridePolicies (registry by region, an env var per cluster, a
//!   region label, gold-tier replicas for Duplicated Deployments);
//! - `kustomize/base/` and `kustomize/overlays/<cluster>/`: the same objects
//!   and the same per-cluster changes expressed with kustomize (`images`,
//!   `patches`, `labels`, `replicas`), with Karmada's Webster division of the
//!   Divided Deployments computed here.
//!
//! `check_all` checks that `kubectl kustomize` of every overlay and
//! garrison's directory for its cluster hold the same objects. [`helm`] writes the
//! same applications as Helm releases of one local chart.
#![allow(dead_code)]

pub mod helm;

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// Resource templates (Deployments, Services, ConfigMaps, Rollouts),
    /// Namespaces not counted.
    pub templates: usize,
    pub clusters: usize,
    pub seed: u64,
}

impl Spec {
    pub fn new(templates: usize, clusters: usize) -> Spec {
        Spec {
            templates,
            clusters,
            seed: 0x5eed_f1ee7,
        }
    }

    /// Exactly `apps` whole applications: three templates each, and a
    /// fourth (the Rollout) for every 10th.
    pub fn apps(apps: usize, clusters: usize) -> Spec {
        Spec::new(3 * apps + apps.div_ceil(10), clusters)
    }
}

pub const REGIONS: [&str; 3] = ["eu", "us", "ap"];
pub const NAMESPACES: [&str; 4] = ["payments", "storefront", "search", "platform"];
/// Replicas of a Duplicated Deployment on a gold cluster.
pub const GOLD_REPLICAS: u64 = 6;
pub const ENV_NAME: &str = "FLEET_CLUSTER";
pub const REGION_LABEL: &str = "fleet.example.com/region";
pub const SIDECAR_IMAGE: &str = "registry.example.com/mesh/envoy:1.30.2";

/// SplitMix64: small, seeded, stable across platforms and versions.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
}

#[derive(Clone, Debug)]
pub struct ClusterInfo {
    pub name: String,
    pub region: &'static str,
    pub gold: bool,
}

#[derive(Clone, Debug)]
pub struct App {
    pub name: String,
    pub namespace: &'static str,
    pub divided: bool,
    pub replicas: u64,
    pub image: String,
    /// The template documents of this app, in file order.
    pub objects: Vec<Value>,
}

impl App {
    pub fn file(&self) -> String {
        format!("{}/{}.yaml", self.namespace, self.name)
    }
    pub fn image_name(&self) -> &str {
        self.image.rsplit_once(':').map_or(&self.image, |(n, _)| n)
    }
}

/// The fleet as data, before anything is written.
#[derive(Clone, Debug)]
pub struct Fleet {
    pub spec: Spec,
    pub clusters: Vec<ClusterInfo>,
    pub apps: Vec<App>,
}

/// Sizes of what was written.
#[derive(Clone, Copy, Debug, Default)]
pub struct Summary {
    pub templates: usize,
    pub apps: usize,
    /// Objects garrison renders over all clusters (templates and Namespaces).
    pub rendered_objects: usize,
}

pub fn cluster_name(index: usize) -> String {
    format!("member-{index:04}")
}

/// Build the fleet in memory.
pub fn fleet(spec: Spec) -> Fleet {
    let mut rng = Rng::new(spec.seed);
    let clusters = (0..spec.clusters)
        .map(|i| ClusterInfo {
            name: cluster_name(i),
            region: REGIONS[(rng.next() % 3) as usize],
            gold: rng.next() % 3 == 0,
        })
        .collect();
    let mut apps = Vec::new();
    let mut left = spec.templates;
    let mut index = 0;
    while left > 0 {
        let mut app = app(index, &mut rng);
        app.objects.truncate(left);
        left -= app.objects.len();
        apps.push(app);
        index += 1;
    }
    Fleet {
        spec,
        clusters,
        apps,
    }
}

fn app(index: usize, rng: &mut Rng) -> App {
    let name = format!("app-{index:05}");
    let namespace = NAMESPACES[index % NAMESPACES.len()];
    // About one app in three divides its replicas.
    let divided = rng.next() % 3 == 0;
    let replicas = rng.range(1, 24);
    let image = format!(
        "registry.example.com/{namespace}/{name}:1.{}.{}",
        rng.range(0, 40),
        rng.range(0, 9)
    );
    let placement = if divided { "div" } else { "dup" };
    let labels = |placement: &str| json!({"app": name, "placement": placement, "team": namespace});
    let memory = 64 * rng.range(1, 8);
    let deployment = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": labels(placement)},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name, "team": namespace}},
                "spec": {
                    "containers": [
                        {
                            "name": "app",
                            "image": image,
                            "ports": [{"name": "http", "containerPort": 8080}],
                            "env": [{"name": "APP_NAME", "value": name}],
                            "envFrom": [{"configMapRef": {"name": name}}],
                            "resources": {
                                "requests": {"cpu": format!("{}m", 50 * rng.range(1, 8)), "memory": format!("{memory}Mi")},
                                "limits": {"cpu": "1", "memory": format!("{}Mi", 2 * memory)}
                            },
                            "readinessProbe": {"httpGet": {"path": "/ready", "port": "http"}, "periodSeconds": 5},
                            "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http"}, "initialDelaySeconds": 10, "periodSeconds": 10}
                        },
                        {
                            "name": "proxy",
                            "image": SIDECAR_IMAGE,
                            "args": ["--config", "/etc/envoy/envoy.yaml", "--log-level", "warn"],
                            "ports": [{"name": "admin", "containerPort": 9901}],
                            "resources": {
                                "requests": {"cpu": "50m", "memory": "64Mi"},
                                "limits": {"cpu": "200m", "memory": "128Mi"}
                            },
                            "readinessProbe": {"tcpSocket": {"port": 9901}, "periodSeconds": 10}
                        }
                    ]
                }
            }
        }
    });
    let service = json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace, "labels": labels("dup")},
        "spec": {
            "selector": {"app": name},
            "ports": [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}]
        }
    });
    let log_level = ["info", "debug", "warn"][(rng.next() % 3) as usize];
    let configmap = json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": labels("dup")},
        "data": {
            "LOG_LEVEL": log_level,
            "FEATURE_CHECKOUT_V2": if rng.next() % 2 == 0 { "true" } else { "false" },
            "UPSTREAM_URL": format!("http://{name}.{namespace}.svc.cluster.local:80"),
            "CACHE_TTL_SECONDS": rng.range(10, 600).to_string()
        }
    });
    let mut objects = vec![deployment, service, configmap];
    if index % 10 == 0 {
        objects.push(json!({
            "apiVersion": "rollouts.kruise.io/v1alpha1",
            "kind": "Rollout",
            "metadata": {"name": name, "namespace": namespace, "labels": labels("dup")},
            "spec": {
                "workloadRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                "strategy": {"canary": {"steps": [
                    {"replicas": 1, "pause": {"duration": 60}},
                    {"replicas": "50%", "pause": {}},
                    {"replicas": "100%"}
                ]}}
            }
        }));
    }
    App {
        name,
        namespace,
        divided,
        replicas,
        image,
        objects,
    }
}

impl Fleet {
    pub fn namespaces(&self) -> Vec<&'static str> {
        let mut used: Vec<&'static str> = self.apps.iter().map(|a| a.namespace).collect();
        used.sort_unstable();
        used.dedup();
        used
    }

    fn namespace_objects(&self) -> Vec<Value> {
        self.namespaces()
            .into_iter()
            .map(|ns| {
                json!({"apiVersion": "v1", "kind": "Namespace",
                       "metadata": {"name": ns, "labels": {"team": ns}}})
            })
            .collect()
    }

    /// Divided Deployments that were not truncated away.
    fn divided(&self) -> impl Iterator<Item = &App> {
        self.apps
            .iter()
            .filter(|a| a.divided && !a.objects.is_empty())
    }

    /// Karmada's static-weight (Webster) division with equal weights over
    /// every cluster: the floor each, the remainder one by one to the
    /// smallest cluster names. Zero shares are kept (garrison sends them).
    pub fn division(&self, replicas: u64) -> BTreeMap<String, u64> {
        let mut names: Vec<&str> = self.clusters.iter().map(|c| c.name.as_str()).collect();
        names.sort_unstable();
        let n = names.len() as u64;
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let extra = u64::from((i as u64) < replicas % n);
                (name.to_string(), replicas / n + extra)
            })
            .collect()
    }

    pub fn summary(&self) -> Summary {
        let templates: usize = self.apps.iter().map(|a| a.objects.len()).sum();
        Summary {
            templates,
            apps: self.apps.len(),
            rendered_objects: (templates + self.namespaces().len()) * self.clusters.len(),
        }
    }

    /// Write both fleets under `dir` (which is emptied first).
    pub fn write(&self, dir: &Path) -> io::Result<Summary> {
        if dir.exists() {
            fs::remove_dir_all(dir)?;
        }
        self.write_garrison(&dir.join("garrison"))?;
        self.write_kustomize(&dir.join("kustomize"))?;
        Ok(self.summary())
    }

    pub fn write_app(&self, root: &Path, app: &App) -> io::Result<()> {
        let path = root.join(app.file());
        fs::create_dir_all(path.parent().expect("app file has a parent"))?;
        fs::write(path, yaml_stream(&app.objects))
    }

    fn write_garrison(&self, root: &Path) -> io::Result<()> {
        for app in &self.apps {
            self.write_app(&root.join("apps"), app)?;
        }
        self.write_fleet(root)
    }

    /// What every garrison repository of this fleet holds besides its
    /// applications: the Namespaces, the Clusters and the policies.
    pub fn write_fleet(&self, root: &Path) -> io::Result<()> {
        write(
            &root.join("apps/namespaces.yaml"),
            &yaml_stream(&self.namespace_objects()),
        )?;
        let clusters: Vec<Value> = self
            .clusters
            .iter()
            .map(|c| {
                json!({
                    "apiVersion": "cluster.karmada.io/v1alpha1",
                    "kind": "Cluster",
                    "metadata": {"name": c.name, "labels": {
                        "region": c.region,
                        "tier": if c.gold { "gold" } else { "silver" }
                    }},
                    "spec": {"syncMode": "Push", "provider": "generic"}
                })
            })
            .collect();
        write(
            &root.join("clusters/clusters.yaml"),
            &yaml_stream(&clusters),
        )?;
        write(
            &root.join("policies/propagation.yaml"),
            &yaml_stream(&self.propagation_policies()),
        )?;
        write(
            &root.join("policies/overrides.yaml"),
            &yaml_stream(&self.override_policies()),
        )
    }

    fn propagation_policies(&self) -> Vec<Value> {
        let selector = |api: &str, kind: &str, placement: &str| {
            json!({"apiVersion": api, "kind": kind,
                   "labelSelector": {"matchLabels": {"placement": placement}}})
        };
        vec![
            json!({
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "ClusterPropagationPolicy",
                "metadata": {"name": "duplicated"},
                "spec": {
                    "resourceSelectors": [
                        selector("apps/v1", "Deployment", "dup"),
                        selector("v1", "Service", "dup"),
                        selector("v1", "ConfigMap", "dup"),
                        selector("rollouts.kruise.io/v1alpha1", "Rollout", "dup")
                    ],
                    "placement": {"clusterAffinity": {"labelSelector": {"matchExpressions": [
                        {"key": "tier", "operator": "In", "values": ["gold", "silver"]}
                    ]}}}
                }
            }),
            json!({
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "ClusterPropagationPolicy",
                "metadata": {"name": "divided"},
                "spec": {
                    "resourceSelectors": [selector("apps/v1", "Deployment", "div")],
                    "placement": {"replicaScheduling": {"replicaSchedulingType": "Divided"}}
                }
            }),
        ]
    }

    fn override_policies(&self) -> Vec<Value> {
        let policy = |name: &str, selectors: Value, rules: Vec<Value>| {
            json!({
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "ClusterOverridePolicy",
                "metadata": {"name": name},
                "spec": {"resourceSelectors": selectors, "overrideRules": rules}
            })
        };
        let by_region = |overriders: &dyn Fn(&str) -> Value| -> Vec<Value> {
            REGIONS
                .iter()
                .map(|r| {
                    json!({"targetCluster": {"labelSelector": {"matchLabels": {"region": r}}},
                           "overriders": overriders(r)})
                })
                .collect()
        };
        let deployments = json!([{"apiVersion": "apps/v1", "kind": "Deployment"}]);
        vec![
            policy(
                "registry-by-region",
                deployments.clone(),
                by_region(&|r| {
                    json!({"imageOverrider": [{"component": "Registry", "operator": "replace",
                                               "value": format!("{r}.registry.example.com")}]})
                }),
            ),
            policy(
                "cluster-env",
                deployments,
                self.clusters
                    .iter()
                    .map(|c| {
                        json!({"targetCluster": {"clusterNames": [c.name]},
                        "overriders": {"plaintext": [{
                            "path": "/spec/template/spec/containers/0/env/-",
                            "operator": "add",
                            "value": {"name": ENV_NAME, "value": c.name}
                        }]}})
                    })
                    .collect(),
            ),
            policy(
                "region-label",
                json!([
                    {"apiVersion": "v1", "kind": "Namespace"},
                    {"apiVersion": "apps/v1", "kind": "Deployment"},
                    {"apiVersion": "v1", "kind": "Service"},
                    {"apiVersion": "v1", "kind": "ConfigMap"},
                    {"apiVersion": "rollouts.kruise.io/v1alpha1", "kind": "Rollout"}
                ]),
                by_region(
                    &|r| json!({"labelsOverrider": [{"operator": "add", "value": {REGION_LABEL: r}}]}),
                ),
            ),
            policy(
                "gold-replicas",
                json!([{"apiVersion": "apps/v1", "kind": "Deployment",
                        "labelSelector": {"matchLabels": {"placement": "dup"}}}]),
                vec![json!({
                    "targetCluster": {"labelSelector": {"matchLabels": {"tier": "gold"}}},
                    "overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace",
                                                  "value": GOLD_REPLICAS}]}
                })],
            ),
        ]
    }

    fn write_kustomize(&self, root: &Path) -> io::Result<()> {
        let base = root.join("base");
        let mut resources = vec![Value::String("namespaces.yaml".into())];
        for app in self.apps.iter().filter(|a| !a.objects.is_empty()) {
            self.write_app(&base, app)?;
            resources.push(Value::String(app.file()));
        }
        write(
            &base.join("namespaces.yaml"),
            &yaml_stream(&self.namespace_objects()),
        )?;
        write(
            &base.join("kustomization.yaml"),
            &yaml_stream(&[json!({
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "resources": resources
            })]),
        )?;
        let mut images: Vec<(String, &str)> = self
            .apps
            .iter()
            .filter(|a| !a.objects.is_empty())
            .map(|a| (a.image_name().to_string(), a.namespace))
            .collect();
        images.push((
            SIDECAR_IMAGE.rsplit_once(':').unwrap().0.to_string(),
            "mesh",
        ));
        for cluster in &self.clusters {
            let registry = format!("{}.registry.example.com", cluster.region);
            let images: Vec<Value> = images
                .iter()
                .map(|(name, _)| {
                    let rest = name.strip_prefix("registry.example.com/").unwrap_or(name);
                    json!({"name": name, "newName": format!("{registry}/{rest}")})
                })
                .collect();
            let env_patch = json!([{"op": "add", "path": "/spec/template/spec/containers/0/env/-",
                                    "value": {"name": ENV_NAME, "value": cluster.name}}]);
            let mut patches = vec![json!({"target": {"kind": "Deployment"},
                                          "patch": env_patch.to_string()})];
            if cluster.gold {
                let patch =
                    json!([{"op": "replace", "path": "/spec/replicas", "value": GOLD_REPLICAS}]);
                patches.push(json!({
                    "target": {"group": "apps", "kind": "Deployment", "labelSelector": "placement=dup"},
                    "patch": patch.to_string()
                }));
            }
            let replicas: Vec<Value> = self
                .divided()
                .map(|a| json!({"name": a.name, "count": self.division(a.replicas)[&cluster.name]}))
                .collect();
            let mut kustomization = json!({
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "resources": ["../../base"],
                "labels": [{"pairs": {REGION_LABEL: cluster.region}}],
                "images": images,
                "patches": patches,
            });
            if !replicas.is_empty() {
                kustomization["replicas"] = Value::Array(replicas);
            }
            write(
                &root
                    .join("overlays")
                    .join(&cluster.name)
                    .join("kustomization.yaml"),
                &yaml_stream(&[kustomization]),
            )?;
        }
        Ok(())
    }

    /// Change one template (the first app's image tag and a ConfigMap
    /// value) in the garrison fleet; returns the file written.
    pub fn touch_one(&self, dir: &Path, generation: u64) -> io::Result<PathBuf> {
        let mut app = self.apps[0].clone();
        let image = format!("{}:2.0.{generation}", app.image_name());
        app.objects[0]["spec"]["template"]["spec"]["containers"][0]["image"] = Value::String(image);
        let root = dir.join("garrison/apps");
        self.write_app(&root, &app)?;
        Ok(root.join(app.file()))
    }
}

fn write(path: &Path, text: &str) -> io::Result<()> {
    fs::create_dir_all(path.parent().expect("file has a parent"))?;
    fs::write(path, text)
}

// ---------------------------------------------------------------- YAML out

/// Block-style YAML for a stream of documents.
pub fn yaml_stream(docs: &[Value]) -> String {
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        yaml_node(doc, 0, &mut out);
    }
    out
}

fn is_block(value: &Value) -> bool {
    match value {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

fn yaml_node(value: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, v) in map {
                let _ = write!(out, "{pad}{}:", scalar_str(key));
                if is_block(v) {
                    out.push('\n');
                    yaml_node(v, indent + 2, out);
                } else {
                    out.push(' ');
                    out.push_str(&scalar(v));
                    out.push('\n');
                }
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                if is_block(item) {
                    let mut inner = String::new();
                    yaml_node(item, indent + 2, &mut inner);
                    let _ = write!(out, "{pad}- ");
                    out.push_str(&inner[indent + 2..]);
                } else {
                    let _ = writeln!(out, "{pad}- {}", scalar(item));
                }
            }
        }
        other => {
            out.push_str(&pad);
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn scalar(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar_str(s),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
    }
}

/// Plain when unambiguous in YAML 1.1 and 1.2, else JSON-quoted.
fn scalar_str(s: &str) -> String {
    const RESERVED: [&str; 11] = [
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf",
    ];
    let plain = s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-' | '_'))
        && !RESERVED.contains(&s.to_ascii_lowercase().as_str());
    if plain {
        s.to_string()
    } else {
        Value::String(s.to_string()).to_string()
    }
}

// ---------------------------------------------------------------- checking

/// (apiVersion, kind, namespace, name)
pub type Key = (String, String, String, String);

const STRIPPED_PREFIXES: [&str; 3] = [
    "propagationpolicy.karmada.io/",
    "clusterpropagationpolicy.karmada.io/",
    "policy.karmada.io/",
];

fn key_of(value: &Value) -> Key {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    (
        s(&value["apiVersion"]),
        s(&value["kind"]),
        s(&value["metadata"]["namespace"]),
        s(&value["metadata"]["name"]),
    )
}

/// Drop the annotations garrison adds (and `annotations` when it empties).
pub fn strip(value: &mut Value) {
    let Some(metadata) = value.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(Value::Object(annotations)) = metadata.get_mut("annotations") {
        annotations.retain(|k, _| !STRIPPED_PREFIXES.iter().any(|p| k.starts_with(p)));
        if annotations.is_empty() {
            metadata.remove("annotations");
        }
    }
}

pub fn parse_objects(text: &str) -> Result<BTreeMap<Key, Value>, String> {
    let nodes = garrison::load::yaml::parse_stream(text, &garrison::load::yaml::Limits::default())
        .map_err(|e| format!("{:?}: {}", e.pos, e.message))?;
    let mut out = BTreeMap::new();
    for node in nodes {
        let mut value = node.to_value();
        strip(&mut value);
        let key = key_of(&value);
        if out.insert(key.clone(), value).is_some() {
            return Err(format!("duplicate object {key:?}"));
        }
    }
    Ok(out)
}

/// Every object of garrison's `clusters/<c>/` directory (not its kustomization).
pub fn read_garrison_cluster(dir: &Path) -> Result<BTreeMap<Key, Value>, String> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> io::Result<()> {
        for entry in fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, files)?;
            } else if path.file_name().is_some_and(|n| n != "kustomization.yaml") {
                files.push(path);
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(dir, &mut files).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out = BTreeMap::new();
    for file in files {
        let text = fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (key, value) in parse_objects(&text)? {
            if out.insert(key.clone(), value).is_some() {
                return Err(format!("duplicate object {key:?}"));
            }
        }
    }
    Ok(out)
}

/// Compare kustomize's output for one overlay with garrison's directory;
/// `Err` lists up to five differences.
pub fn compare_objects(
    kustomize: &BTreeMap<Key, Value>,
    garrison: &BTreeMap<Key, Value>,
) -> Result<usize, String> {
    let mut problems = Vec::new();
    for (key, value) in kustomize {
        match garrison.get(key) {
            None => problems.push(format!("only in kustomize: {key:?}")),
            Some(other) if other != value => problems.push(format!(
                "differs: {key:?}\n  kustomize: {value}\n  garrison:  {other}"
            )),
            Some(_) => {}
        }
    }
    for key in garrison.keys().filter(|k| !kustomize.contains_key(*k)) {
        problems.push(format!("only in garrison: {key:?}"));
    }
    if problems.is_empty() {
        Ok(kustomize.len())
    } else {
        let n = problems.len();
        problems.truncate(5);
        Err(format!("{n} differences, first:\n{}", problems.join("\n")))
    }
}

/// `kubectl kustomize <overlay>`'s objects.
pub fn kustomize_objects(overlay: &Path) -> Result<BTreeMap<Key, Value>, String> {
    let output = std::process::Command::new("kubectl")
        .arg("kustomize")
        .arg(overlay)
        .output()
        .map_err(|e| format!("kubectl: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "kubectl kustomize {}: {}",
            overlay.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    parse_objects(&String::from_utf8_lossy(&output.stdout))
}

/// Check every cluster of `fleet` (written under `dir`, rendered into `out`);
/// returns the number of objects compared.
pub fn check_all(fleet: &Fleet, dir: &Path, out: &Path) -> Result<usize, String> {
    let mut total = 0;
    for cluster in &fleet.clusters {
        let expected = kustomize_objects(&dir.join("kustomize/overlays").join(&cluster.name))?;
        let got = read_garrison_cluster(&out.join("clusters").join(&cluster.name))?;
        total += compare_objects(&expected, &got).map_err(|e| format!("{}: {e}", cluster.name))?;
    }
    Ok(total)
}

/// Parse `--flag value` pairs (and bare `--flag`s) after the `--` of `cargo bench`.
pub fn args() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut args = std::env::args().skip(1).peekable();
    while let Some(arg) = args.next() {
        if let Some(flag) = arg.strip_prefix("--") {
            if flag == "bench" {
                continue; // cargo bench passes --bench to every target
            }
            let value = match args.peek() {
                Some(v) if !v.starts_with("--") => args.next().unwrap_or_default(),
                _ => String::from("true"),
            };
            out.insert(flag.to_string(), value);
        }
    }
    out
}

pub fn arg<T: std::str::FromStr>(args: &BTreeMap<String, String>, name: &str, default: T) -> T {
    args.get(name)
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("--{name}: cannot parse `{v}`"))
        })
        .unwrap_or(default)
}
