//! Random cases for the differential test: a small fleet, templates,
//! propagation and override policies, from one seed. Every case is valid
//! input for both garrison and Karmada (a policy Karmada's webhook would
//! refuse is never generated), so any difference in what they compute is
//! a divergence to explain or fix.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// One case, in the oracle's input format (`conformance/karmada/README.md`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Case {
    pub clusters: Vec<Value>,
    pub policies: Vec<Value>,
    pub overrides: Vec<Value>,
    pub customizations: Vec<Value>,
    pub templates: Vec<Value>,
}

/// SplitMix64: a small, fast, seedable generator, so a case is its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `percent` in 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// A subset of `items`, each kept with probability one half; never empty.
    pub fn some<T: Clone>(&mut self, items: &[T]) -> Vec<T> {
        let mut kept: Vec<T> = items.iter().filter(|_| self.chance(50)).cloned().collect();
        if kept.is_empty() {
            kept.push(self.pick(items).clone());
        }
        kept
    }
}

const NAMESPACES: &[&str] = &["shop", "web"];
const APPS: &[&str] = &["api", "cart", "front"];
const REGIONS: &[&str] = &["eu", "us", "ap"];
const PROVIDERS: &[&str] = &["aws", "gcp"];

/// The case of `seed`.
pub fn case(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let clusters = clusters(&mut rng);
    let names: Vec<String> = clusters
        .iter()
        .filter_map(|c| c.pointer("/metadata/name").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    let templates = templates(&mut rng);
    let mut policies: Vec<Value> = (0..1 + rng.below(3))
        .map(|i| policy(&mut rng, i, &names, &templates))
        .collect();
    if rng.chance(60) {
        policies.push(catch_all(&mut rng, &names));
    }
    let overrides = (0..rng.below(3))
        .map(|i| override_policy(&mut rng, i, &names, &templates))
        .collect();
    Case {
        clusters,
        policies,
        overrides,
        customizations: Vec::new(),
        templates,
    }
}

/// Two to six clusters with labels, a provider, a region and zones, the
/// kinds they serve, and capacity.
fn clusters(rng: &mut Rng) -> Vec<Value> {
    (0..2 + rng.below(5))
        .map(|i| {
            let region = *rng.pick(REGIONS);
            let zones: Vec<String> = (0..1 + rng.below(2))
                .map(|z| format!("{region}-{}", ["a", "b", "c"][z as usize]))
                .collect();
            let mut spec = json!({
                "syncMode": "Push",
                "provider": rng.pick(PROVIDERS),
                "region": region,
                "zones": zones,
            });
            if rng.chance(15) {
                spec["taints"] = json!([{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]);
            }
            let cpu = 4 + 4 * rng.below(4);
            json!({
                "apiVersion": "cluster.karmada.io/v1alpha1",
                "kind": "Cluster",
                "metadata": {
                    "name": format!("m{i}"),
                    "labels": {
                        "env": rng.pick(&["prod", "test"]),
                        "tier": rng.pick(&["gold", "silver"]),
                    },
                },
                "spec": spec,
                "status": {
                    "apiEnablements": [
                        {"groupVersion": "v1", "resources": [
                            {"name": "configmaps", "kind": "ConfigMap"},
                            {"name": "services", "kind": "Service"},
                        ]},
                        {"groupVersion": "apps/v1", "resources": [{"name": "deployments", "kind": "Deployment"}]},
                        {"groupVersion": "batch/v1", "resources": [{"name": "jobs", "kind": "Job"}]},
                    ],
                    "resourceSummary": {
                        "allocatable": {"cpu": cpu.to_string(), "memory": format!("{}Gi", cpu * 4), "pods": "110"},
                        "allocated": {"cpu": rng.below(cpu).to_string(), "memory": "2Gi", "pods": (rng.below(40)).to_string()},
                        "allocating": {"cpu": "0", "memory": "0", "pods": "0"},
                    },
                },
            })
        })
        .collect()
}

/// A few Deployments, ConfigMaps and Jobs in two namespaces.
fn templates(rng: &mut Rng) -> Vec<Value> {
    let mut templates = Vec::new();
    for namespace in NAMESPACES {
        for app in APPS {
            if !rng.chance(60) {
                continue;
            }
            match rng.below(4) {
                0 | 1 => templates.push(deployment(rng, namespace, app)),
                2 => templates.push(json!({
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": format!("{app}-config"), "namespace": namespace, "labels": {"app": app}},
                    "data": {"mode": "on"},
                })),
                _ => templates.push(job(rng, namespace, app)),
            }
        }
    }
    if templates.is_empty() {
        templates.push(deployment(rng, "shop", "api"));
    }
    templates
}

fn deployment(rng: &mut Rng, namespace: &str, app: &str) -> Value {
    let mut container = json!({"name": app, "image": format!("registry.example/{app}:1.0")});
    if rng.chance(50) {
        container["resources"] = json!({"requests": {"cpu": format!("{}m", 100 * (1 + rng.below(10))), "memory": "256Mi"}});
    }
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": app, "namespace": namespace, "labels": {"app": app, "team": rng.pick(&["a", "b"])}},
        "spec": {
            "replicas": rng.below(12),
            "selector": {"matchLabels": {"app": app}},
            "template": {
                "metadata": {"labels": {"app": app}},
                "spec": {"containers": [container]},
            },
        },
    })
}

fn job(rng: &mut Rng, namespace: &str, app: &str) -> Value {
    let parallelism = 1 + rng.below(6);
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": format!("{app}-job"), "namespace": namespace, "labels": {"app": app}},
        "spec": {
            "parallelism": parallelism,
            "completions": parallelism + rng.below(6),
            "template": {
                "metadata": {"labels": {"app": app}},
                "spec": {"restartPolicy": "Never", "containers": [{"name": app, "image": "busybox:1.36"}]},
            },
        },
    })
}

/// A resource selector for one of the templates (or, now and then, one
/// that matches none): every object of its kind, it by name, or by label.
fn selector(rng: &mut Rng, namespace: Option<&str>, templates: &[Value]) -> Value {
    let template = rng.pick(templates);
    let field = |p: &str| template.pointer(p).cloned().unwrap_or(Value::Null);
    let mut selector = json!({"apiVersion": field("/apiVersion"), "kind": field("/kind")});
    match rng.below(3) {
        0 => selector["name"] = field("/metadata/name"),
        1 => selector["labelSelector"] = json!({"matchLabels": {"app": rng.pick(APPS)}}),
        _ => {}
    }
    if rng.chance(10) {
        selector["name"] = json!("nothing-is-called-this");
    }
    if let (Some(ns), true) = (namespace, rng.chance(30)) {
        selector["namespace"] = json!(ns);
    }
    selector
}

/// Where a policy sends its templates.
fn placement(rng: &mut Rng, clusters: &[String]) -> Value {
    let mut placement = json!({});
    match rng.below(3) {
        0 => placement["clusterAffinity"] = json!({"clusterNames": rng.some(clusters)}),
        1 => {
            placement["clusterAffinity"] =
                json!({"labelSelector": {"matchLabels": {"env": rng.pick(&["prod", "test"])}}})
        }
        _ => {}
    }
    if rng.chance(30) {
        placement["clusterTolerations"] =
            json!([{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]);
    }
    if rng.chance(20) {
        let max = 1 + rng.below(clusters.len() as u64);
        placement["spreadConstraints"] =
            json!([{"spreadByField": "cluster", "maxGroups": max, "minGroups": 1}]);
    }
    placement["replicaScheduling"] = match rng.below(4) {
        0 => json!({"replicaSchedulingType": "Duplicated"}),
        1 => {
            let weights: Vec<Value> = rng
                .some(clusters)
                .into_iter()
                .map(
                    |c| json!({"targetCluster": {"clusterNames": [c]}, "weight": 1 + rng.below(4)}),
                )
                .collect();
            json!({
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {"staticWeightList": weights},
            })
        }
        2 => json!({
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        }),
        _ => json!({"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}),
    };
    placement
}

fn policy(rng: &mut Rng, index: u64, clusters: &[String], templates: &[Value]) -> Value {
    let namespace = rng.chance(70).then(|| *rng.pick(NAMESPACES));
    let selectors: Vec<Value> = (0..1 + rng.below(2))
        .map(|_| selector(rng, namespace, templates))
        .collect();
    let mut spec = json!({
        "resourceSelectors": selectors,
        "placement": placement(rng, clusters),
    });
    if rng.chance(40) {
        spec["priority"] = json!(rng.below(4));
    }
    let mut metadata = json!({"name": format!("p{index}")});
    let kind = match namespace {
        Some(ns) => {
            metadata["namespace"] = json!(ns);
            "PropagationPolicy"
        }
        None => "ClusterPropagationPolicy",
    };
    json!({"apiVersion": "policy.karmada.io/v1alpha1", "kind": kind, "metadata": metadata, "spec": spec})
}

/// A ClusterPropagationPolicy for every kind the generator writes, which
/// the more specific policies compete with.
fn catch_all(rng: &mut Rng, clusters: &[String]) -> Value {
    let selectors: Vec<Value> = [
        ("apps/v1", "Deployment"),
        ("v1", "ConfigMap"),
        ("batch/v1", "Job"),
    ]
    .iter()
    .map(|(api_version, kind)| json!({"apiVersion": api_version, "kind": kind}))
    .collect();
    json!({
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterPropagationPolicy",
        "metadata": {"name": "everything"},
        "spec": {"resourceSelectors": selectors, "placement": placement(rng, clusters)},
    })
}

fn override_policy(rng: &mut Rng, index: u64, clusters: &[String], templates: &[Value]) -> Value {
    let namespace = rng.chance(60).then(|| *rng.pick(NAMESPACES));
    let target = match rng.below(3) {
        0 => json!({"clusterNames": rng.some(clusters)}),
        1 => json!({"labelSelector": {"matchLabels": {"tier": rng.pick(&["gold", "silver"])}}}),
        _ => Value::Null,
    };
    let overriders = match rng.below(4) {
        0 => {
            json!({"imageOverrider": [{"component": "Registry", "operator": "replace", "value": "mirror.example"}]})
        }
        1 => {
            json!({"labelsOverrider": [{"operator": "add", "value": {"overridden": "yes-please"}}]})
        }
        2 => {
            json!({"annotationsOverrider": [{"operator": "add", "value": {"note": "from-override"}}]})
        }
        _ => {
            json!({"plaintext": [{"path": "/metadata/labels/plain", "operator": "add", "value": "x"}]})
        }
    };
    let mut rule = json!({"overriders": overriders});
    if !target.is_null() {
        rule["targetCluster"] = target;
    }
    let mut metadata = json!({"name": format!("o{index}")});
    let kind = match namespace {
        Some(ns) => {
            metadata["namespace"] = json!(ns);
            "OverridePolicy"
        }
        None => "ClusterOverridePolicy",
    };
    json!({
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": kind,
        "metadata": metadata,
        "spec": {
            "resourceSelectors": [selector(rng, namespace, templates)],
            "overrideRules": [rule],
        },
    })
}
