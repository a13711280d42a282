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
    /// Previous schedules (the oracle's `bindings`); only a second phase
    /// has them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bindings: Vec<Value>,
    /// The oracle's `continues`: the case is the control plane of the case
    /// answered just before it, after the user applied this one.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub continues: bool,
    /// The oracle's `clustersByName`: in a continuing case, the bindings'
    /// clusters put in name order first, as garrison's bindings list them.
    #[serde(rename = "clustersByName", skip_serializing_if = "std::ops::Not::not")]
    pub clusters_by_name: bool,
}

impl Case {
    /// This case applied over the control plane the case before it left
    /// (the oracle's `continues`), instead of given that case's schedules.
    pub fn continuing(&self) -> Case {
        Case {
            bindings: Vec::new(),
            continues: true,
            ..self.clone()
        }
    }
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
    let mut clusters = clusters(&mut rng);
    // A stream of its own, so every other choice of a seed stays as it was.
    let mut models_rng = Rng::new(seed ^ 0x6d6f_6465_6c73);
    for cluster in &mut clusters {
        resource_models(&mut models_rng, cluster);
    }
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
    let overrides = (0..rng.below(4))
        .map(|i| override_policy(&mut rng, i, &names, &templates))
        .collect();
    let customizations = if rng.chance(25) {
        customizations(&mut rng)
    } else {
        Vec::new()
    };
    let mut case = Case {
        clusters,
        policies,
        overrides,
        customizations,
        templates,
        ..Case::default()
    };
    super::widen::widen(seed, &mut case);
    case
}

/// Two to six clusters with labels, a provider, a region and zones (each
/// now and then missing), taints, the kinds they serve, and capacity.
fn clusters(rng: &mut Rng) -> Vec<Value> {
    (0..2 + rng.below(5)).map(|i| cluster(rng, i)).collect()
}

/// Cluster `m<index>`.
fn cluster(rng: &mut Rng, index: u64) -> Value {
    let region = *rng.pick(REGIONS);
    let zones: Vec<String> = (0..rng.below(3))
        .map(|z| format!("{region}-{}", ["a", "b", "c"][z as usize]))
        .collect();
    let mut spec = json!({"syncMode": "Push"});
    if rng.chance(90) {
        spec["provider"] = json!(rng.pick(PROVIDERS));
    }
    if rng.chance(90) {
        spec["region"] = json!(region);
    }
    if !zones.is_empty() {
        spec["zones"] = json!(zones);
    }
    if rng.chance(20) {
        // A Karmada Cluster takes only these two (a soft taint is refused).
        let effect = *rng.pick(&["NoSchedule", "NoExecute"]);
        spec["taints"] =
            json!([{"key": "dedicated", "value": rng.pick(&["batch", "gpu"]), "effect": effect}]);
    }
    let cpu = 4 + 4 * rng.below(4);
    let mut enabled = vec![
        json!({"groupVersion": "v1", "resources": [
            {"name": "configmaps", "kind": "ConfigMap"},
            {"name": "services", "kind": "Service"},
        ]}),
        json!({"groupVersion": "apps/v1", "resources": [{"name": "deployments", "kind": "Deployment"}]}),
    ];
    if rng.chance(85) {
        enabled.push(
            json!({"groupVersion": "batch/v1", "resources": [{"name": "jobs", "kind": "Job"}]}),
        );
    }
    json!({
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {
            "name": format!("m{index}"),
            "labels": {
                "env": rng.pick(&["prod", "test"]),
                "tier": rng.pick(&["gold", "silver"]),
            },
        },
        "spec": spec,
        "status": {
            "apiEnablements": enabled,
            "resourceSummary": {
                "allocatable": {"cpu": cpu.to_string(), "memory": format!("{}Gi", cpu * 4), "pods": "110"},
                "allocated": {"cpu": rng.below(cpu).to_string(), "memory": "2Gi", "pods": (rng.below(40)).to_string()},
                "allocating": {"cpu": "0", "memory": "0", "pods": "0"},
            },
        },
    })
}

/// Now and then, the node grades Karmada's estimator counts on instead of
/// the summary: `allocatableModelings` (a grade without a model, an empty
/// list or a negative count at times), with the default models or given
/// ones (grades out of order, a first minimum the API server sets to 0).
fn resource_models(rng: &mut Rng, cluster: &mut Value) {
    if !rng.chance(40) {
        return;
    }
    let grades = if rng.chance(50) {
        let given = given_models(rng);
        let grades: Vec<u64> = given.iter().filter_map(|m| m["grade"].as_u64()).collect();
        cluster["spec"]["resourceModels"] = json!(given);
        grades
    } else {
        (0..9).collect()
    };
    let mut modelings: Vec<Value> = Vec::new();
    if !rng.chance(10) {
        for _ in 0..1 + rng.below(4) {
            let grade = if rng.chance(10) {
                9 + rng.below(3)
            } else {
                *rng.pick(&grades)
            };
            let count = if rng.chance(5) {
                -1
            } else {
                rng.below(4) as i64
            };
            modelings.push(json!({"grade": grade, "count": count}));
        }
    }
    cluster["status"]["resourceSummary"]["allocatableModelings"] = json!(modelings);
}

/// Two to four valid grades of CPU (and at times memory), each minimum
/// written as the maximum below it.
fn given_models(rng: &mut Rng) -> Vec<Value> {
    let count = 2 + rng.below(3) as usize;
    let cpu = ["0", "1", "2", "4", "8", "16"];
    let memory = ["0", "2Gi", "8Gi", "16Gi", "32Gi", "64Gi"];
    let with_memory = rng.chance(70);
    let first_min = if rng.chance(30) { "1" } else { "0" };
    let step = 1 + rng.below(2);
    let mut models: Vec<Value> = (0..count)
        .map(|i| {
            let bound = |values: &[&str], j: usize| {
                if j == 0 {
                    first_min.to_string()
                } else {
                    values[j].to_string()
                }
            };
            let mut ranges = vec![json!({"name": "cpu", "min": bound(&cpu, i), "max": cpu[i + 1]})];
            if with_memory {
                ranges.push(
                    json!({"name": "memory", "min": bound(&memory, i), "max": memory[i + 1]}),
                );
            }
            json!({"grade": i as u64 * step, "ranges": ranges})
        })
        .collect();
    if rng.chance(30) {
        models.reverse();
    }
    models
}

/// A few Deployments, ConfigMaps, Services and Jobs in two namespaces.
fn templates(rng: &mut Rng) -> Vec<Value> {
    let mut templates = Vec::new();
    for namespace in NAMESPACES {
        for app in APPS {
            if !rng.chance(60) {
                continue;
            }
            match rng.below(5) {
                0 | 1 => templates.push(deployment(rng, namespace, app)),
                2 => templates.push(config_map(rng, namespace, app)),
                3 => templates.push(json!({
                    "apiVersion": "v1",
                    "kind": "Service",
                    "metadata": {"name": app, "namespace": namespace, "labels": {"app": app}},
                    "spec": {
                        "clusterIP": "10.0.0.10",
                        "selector": {"app": app},
                        "ports": [{"port": 80, "targetPort": 8080}],
                    },
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

pub(super) fn config_map(rng: &mut Rng, namespace: &str, app: &str) -> Value {
    let mut data = json!({
        "mode": "on",
        "settings.json": "{\"level\":\"info\",\"replicas\":2}",
        "settings.yaml": "level: info\nlimits:\n  cpu: 2\n",
    });
    if rng.chance(50) {
        data["extra"] = json!("yes");
    }
    json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": format!("{app}-config"), "namespace": namespace, "labels": {"app": app}},
        "data": data,
    })
}

fn deployment(rng: &mut Rng, namespace: &str, app: &str) -> Value {
    let mut container = json!({
        "name": app,
        "image": format!("registry.example/{app}:1.0"),
        "command": ["/bin/server"],
        "args": ["--port=8080"],
    });
    if rng.chance(50) {
        container["resources"] = json!({"requests": {"cpu": format!("{}m", 100 * (1 + rng.below(10))), "memory": "256Mi"}});
    }
    if rng.chance(40) {
        container["envFrom"] = json!([{"configMapRef": {"name": format!("{app}-config")}}]);
    }
    let mut metadata = json!({"name": app, "namespace": namespace, "labels": {"app": app, "team": rng.pick(&["a", "b"])}});
    if rng.chance(20) {
        metadata["annotations"] = json!({"work.karmada.io/conflict-resolution": "overwrite"});
    }
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": metadata,
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
    // A Job written without labels (every even parallelism) is stored with
    // its pod template's, which a member copies only onto a Job that has
    // none, and every delivered Job gets Karmada's own.
    let metadata = if parallelism % 2 == 0 {
        json!({"name": format!("{app}-job"), "namespace": namespace})
    } else {
        json!({"name": format!("{app}-job"), "namespace": namespace, "labels": {"app": app}})
    };
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": {
            "parallelism": parallelism,
            // Now and then fewer completions than parallelism, which the
            // replicas (their minimum) then cap.
            "completions": if rng.chance(20) { 1 + rng.below(parallelism) } else { parallelism + rng.below(6) },
            "template": {
                "metadata": {"labels": {"app": app}},
                "spec": {"restartPolicy": "Never", "containers": [{"name": app, "image": "busybox:1.36"}]},
            },
        },
    })
}

/// A label selector on `app`: by label, or by expression.
fn app_selector(rng: &mut Rng) -> Value {
    match rng.below(3) {
        0 => {
            json!({"matchExpressions": [{"key": "app", "operator": "In", "values": rng.some(APPS)}]})
        }
        1 => json!({"matchExpressions": [{"key": "team", "operator": "Exists"}]}),
        _ => json!({"matchLabels": {"app": rng.pick(APPS)}}),
    }
}

/// A resource selector for one of the templates (or, now and then, one
/// that matches none): every object of its kind, it by name, or by label.
fn selector(rng: &mut Rng, namespace: Option<&str>, templates: &[Value]) -> Value {
    let template = rng.pick(templates);
    let field = |p: &str| template.pointer(p).cloned().unwrap_or(Value::Null);
    let mut selector = json!({"apiVersion": field("/apiVersion"), "kind": field("/kind")});
    match rng.below(3) {
        0 => selector["name"] = field("/metadata/name"),
        1 => selector["labelSelector"] = app_selector(rng),
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

/// A cluster affinity: by name, label, field, or none of them, now and
/// then excluding one cluster.
fn affinity(rng: &mut Rng, clusters: &[String]) -> Value {
    let mut affinity = match rng.below(4) {
        0 => json!({"clusterNames": rng.some(clusters)}),
        1 => json!({"labelSelector": {"matchLabels": {"env": rng.pick(&["prod", "test"])}}}),
        2 => {
            let (key, values): (&str, Vec<&str>) = match rng.below(3) {
                0 => ("provider", rng.some(PROVIDERS)),
                1 => ("region", rng.some(REGIONS)),
                _ => ("zone", vec!["eu-a", "us-a", "ap-b"]),
            };
            // Karmada's webhook takes In and NotIn only.
            let operator = *rng.pick(&["In", "NotIn"]);
            json!({"fieldSelector": {"matchExpressions": [{"key": key, "operator": operator, "values": values}]}})
        }
        _ => {
            json!({"labelSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["gold"]}]}})
        }
    };
    if rng.chance(15) {
        affinity["exclude"] = json!([rng.pick(clusters)]);
    }
    affinity
}

/// A static weight from 1 to 4 for each of some of the clusters.
fn static_weights(rng: &mut Rng, clusters: &[String]) -> Vec<Value> {
    rng.some(clusters)
        .into_iter()
        .map(|c| json!({"targetCluster": {"clusterNames": [c]}, "weight": 1 + rng.below(4)}))
        .collect()
}

/// How a policy divides replicas, and whether it is dynamic (which
/// overflow affinities and every spread constraint need).
fn replica_scheduling(rng: &mut Rng, clusters: &[String]) -> (Value, bool) {
    match rng.below(6) {
        0 => (json!({"replicaSchedulingType": "Duplicated"}), false),
        1 => {
            let weights = static_weights(rng, clusters);
            let strategy = json!({
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {"staticWeightList": weights},
            });
            (strategy, false)
        }
        2 => (
            json!({
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {"dynamicWeight": "AvailableReplicas"},
            }),
            true,
        ),
        3 => (json!({"replicaSchedulingType": "Divided"}), false),
        _ => (
            json!({"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}),
            true,
        ),
    }
}

/// Where a policy sends its templates.
fn placement(rng: &mut Rng, clusters: &[String]) -> Value {
    let mut placement = json!({});
    let (strategy, dynamic) = replica_scheduling(rng, clusters);
    match rng.below(4) {
        0 | 1 => placement["clusterAffinity"] = affinity(rng, clusters),
        2 => {
            let terms: Vec<Value> = (0..1 + rng.below(3))
                .map(|i| {
                    let mut term = affinity(rng, clusters);
                    term["affinityName"] = json!(format!("group{i}"));
                    let own = term.as_object().is_some_and(|t| t.len() > 1);
                    if dynamic && own && rng.chance(50) {
                        let mut overflow = affinity(rng, clusters);
                        overflow["affinityName"] = json!(format!("spill{i}"));
                        term["overflowAffinities"] = json!([overflow]);
                    }
                    term
                })
                .collect();
            placement["clusterAffinities"] = json!(terms);
        }
        _ => {}
    }
    if rng.chance(30) {
        placement["clusterTolerations"] = match rng.below(2) {
            0 => json!([{"key": "dedicated", "operator": "Exists"}]),
            _ => {
                json!([{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}])
            }
        };
    }
    if rng.chance(25) {
        let max = 1 + rng.below(clusters.len() as u64);
        let mut spreads =
            vec![json!({"spreadByField": "cluster", "maxGroups": max, "minGroups": 1})];
        match rng.below(4) {
            0 => spreads.push(json!({"spreadByField": "region", "maxGroups": 1 + rng.below(2), "minGroups": 1})),
            1 => spreads.push(json!({"spreadByField": rng.pick(&["zone", "provider"]), "maxGroups": 2, "minGroups": 1})),
            _ => {}
        }
        placement["spreadConstraints"] = json!(spreads);
    }
    // Now and then no replicaScheduling at all (Duplicated), unless the
    // overflow groups drawn above need a dynamic division.
    if dynamic || !rng.chance(10) {
        placement["replicaScheduling"] = strategy;
    }
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
    if rng.chance(30) {
        spec["propagateDeps"] = json!(true);
    }
    if rng.chance(20) {
        spec["conflictResolution"] = json!(rng.pick(&["Abort", "Overwrite"]));
    }
    if rng.chance(10) {
        spec["preserveResourcesOnDeletion"] = json!(true);
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
        ("v1", "Service"),
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

/// One overrider of each kind Karmada has, each valid for the templates it
/// may meet (a plaintext path every generated template has; a field
/// overrider only when the policy selects ConfigMaps alone, which all hold
/// `settings.json` and `settings.yaml`).
fn overriders(rng: &mut Rng, config_maps: bool) -> Value {
    let operator = |rng: &mut Rng| *rng.pick(&["add", "remove", "replace"]);
    if config_maps && rng.chance(50) {
        // Operations that hold whatever ran before (a second `remove` of a
        // key would fail the render, in Karmada as in garrison).
        let (sub_path, op) = *rng.pick(&[("/level", "replace"), ("/owner", "add")]);
        let patch = json!({"subPath": sub_path, "operator": op, "value": "debug"});
        return match rng.below(2) {
            0 => json!({"fieldOverrider": [{"fieldPath": "/data/settings.json", "json": [patch]}]}),
            _ => json!({"fieldOverrider": [{"fieldPath": "/data/settings.yaml", "yaml": [patch]}]}),
        };
    }
    match rng.below(9) {
        0 => {
            let component = *rng.pick(&["Registry", "Repository", "Tag"]);
            let op = operator(rng);
            let mut image = json!({"component": component, "operator": op});
            if op != "remove" {
                image["value"] = json!(match component {
                    "Registry" => "mirror.example",
                    "Repository" => "team/app",
                    _ => "2.0",
                });
            }
            json!({"imageOverrider": [image]})
        }
        1 => {
            let op = *rng.pick(&["add", "replace"]);
            json!({"labelsOverrider": [{"operator": op, "value": {"app": "overridden", "extra": "yes-please"}}]})
        }
        2 => json!({"labelsOverrider": [{"operator": "remove", "value": {"team": ""}}]}),
        3 => {
            json!({"annotationsOverrider": [{"operator": "add", "value": {"note": "from-override"}}]})
        }
        4 => {
            json!({"plaintext": [{"path": "/metadata/labels/plain", "operator": "add", "value": "x"}]})
        }
        5 => {
            json!({"plaintext": [{"path": "/metadata/labels/app", "operator": "replace", "value": "renamed"}]})
        }
        6 => {
            json!({"commandOverrider": [{"containerName": rng.pick(APPS), "operator": rng.pick(&["add", "remove"]), "value": ["/bin/server"]}]})
        }
        7 => {
            json!({"argsOverrider": [{"containerName": rng.pick(APPS), "operator": rng.pick(&["add", "remove"]), "value": ["--verbose", "--port=8080"]}]})
        }
        _ => {
            json!({"annotationsOverrider": [{"operator": "replace", "value": {"work.karmada.io/conflict-resolution": "overwrite"}}]})
        }
    }
}

fn override_policy(rng: &mut Rng, index: u64, clusters: &[String], templates: &[Value]) -> Value {
    let namespace = rng.chance(60).then(|| *rng.pick(NAMESPACES));
    let selector = rng.chance(85).then(|| selector(rng, namespace, templates));
    let config_maps = selector.as_ref().is_some_and(|s| s["kind"] == "ConfigMap");
    let rules: Vec<Value> = (0..1 + rng.below(2))
        .map(|_| {
            let target = match rng.below(4) {
                0 => json!({"clusterNames": rng.some(clusters)}),
                1 => json!({"labelSelector": {"matchLabels": {"tier": rng.pick(&["gold", "silver"])}}}),
                2 => json!({"fieldSelector": {"matchExpressions": [{"key": "provider", "operator": "In", "values": [rng.pick(PROVIDERS)]}]}}),
                _ => Value::Null,
            };
            let mut rule = json!({"overriders": overriders(rng, config_maps)});
            if !target.is_null() {
                rule["targetCluster"] = target;
            }
            rule
        })
        .collect();
    let mut metadata = json!({"name": format!("o{index}")});
    let kind = match namespace {
        Some(ns) => {
            metadata["namespace"] = json!(ns);
            "OverridePolicy"
        }
        None => "ClusterOverridePolicy",
    };
    let mut spec = json!({"overrideRules": rules});
    if let Some(selector) = selector {
        spec["resourceSelectors"] = json!([selector]);
    }
    json!({
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": kind,
        "metadata": metadata,
        "spec": spec,
    })
}

/// Lua customizations of Deployments: replicas read and revised by
/// script (Karmada runs it instead of its built-in interpreter), and now
/// and then a script-declared dependency.
fn customizations(rng: &mut Rng) -> Vec<Value> {
    // Now and then the requirements come from Karmada's `kube` library,
    // which dynamic weights then divide by.
    let replicas = if rng.chance(50) {
        "local kube = require(\"kube\")\nfunction GetReplicas(obj)\n  local replicas = obj.spec.replicas\n  if replicas == nil then replicas = 1 end\n  return replicas, kube.accuratePodRequirements(obj.spec.template)\nend\n"
    } else {
        "function GetReplicas(obj)\n  local replicas = obj.spec.replicas\n  if replicas == nil then replicas = 1 end\n  return replicas, nil\nend\n"
    };
    let mut customizations = json!({
        "replicaResource": {"luaScript": replicas},
        "replicaRevision": {"luaScript": "function ReviseReplica(obj, desiredReplica)\n  obj.spec.replicas = desiredReplica\n  if obj.metadata.annotations == nil then obj.metadata.annotations = {} end\n  obj.metadata.annotations[\"revised-by\"] = \"lua\"\n  return obj\nend\n"},
    });
    let mut split = None;
    if rng.chance(50) {
        let dependencies = json!({"luaScript": "function GetDependencies(desiredObj)\n  local refs = {}\n  refs[1] = {apiVersion = \"v1\", kind = \"ConfigMap\", namespace = desiredObj.metadata.namespace, name = desiredObj.metadata.name .. \"-config\"}\n  return refs\nend\n"});
        // Now and then in a customization of its own: a kind takes its
        // dependencies from every customization of it, and each other rule
        // from one.
        if rng.chance(50) {
            split = Some(json!({"dependencyInterpretation": dependencies}));
        } else {
            customizations["dependencyInterpretation"] = dependencies;
        }
    }
    let customization = |name: &str, customizations: Value| {
        json!({
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": name},
            "spec": {
                "target": {"apiVersion": "apps/v1", "kind": "Deployment"},
                "customizations": customizations,
            },
        })
    };
    let mut all = vec![customization("deployments", customizations)];
    all.extend(split.map(|rules| customization("deployments-dependencies", rules)));
    all
}

/// The second phase of the two-phase case of `seed`: `first` (the case of
/// `seed`) after the changes a fleet sees between two renders, each of
/// which makes Karmada (and garrison) schedule again or decide not to:
/// workloads scaled up or down, a placement redrawn or edited, a cluster
/// joining, a cluster leaving. Policy selectors and priorities stay, so
/// every template keeps the policy that claimed it. Also a description of
/// the changes, one line each.
pub fn changed(seed: u64, first: &Case) -> (Case, Vec<String>) {
    let mut rng = Rng::new(seed ^ 0x7365_636f_6e64_2070);
    let mut case = first.clone();
    case.bindings.clear();
    let mut changes = Vec::new();

    // A cluster leaves: one no policy names (garrison refuses a cluster
    // name that is not in the fleet, SPEC §10).
    if case.clusters.len() > 2 && rng.chance(20) {
        let named = |name: &str| {
            let quoted = format!("\"{name}\"");
            case.policies
                .iter()
                .chain(&case.overrides)
                .any(|p| p.to_string().contains(&quoted))
        };
        let free: Vec<usize> = (0..case.clusters.len())
            .filter(|&i| !named(&cluster_name(&case.clusters[i])))
            .collect();
        if !free.is_empty() {
            let gone = case.clusters.remove(*rng.pick(&free));
            changes.push(format!("cluster {} left", cluster_name(&gone)));
        }
    }
    // A cluster joins, with a name never used before.
    if rng.chance(25) {
        let next = first
            .clusters
            .iter()
            .filter_map(|c| cluster_name(c).strip_prefix('m')?.parse::<u64>().ok())
            .max()
            .map_or(0, |n| n + 1);
        let joined = cluster(&mut rng, next);
        changes.push(format!("cluster {} joined", cluster_name(&joined)));
        case.clusters.push(joined);
    }
    let names: Vec<String> = case.clusters.iter().map(cluster_name).collect();

    // Workloads scale.
    for template in &mut case.templates {
        if !rng.chance(50) {
            continue;
        }
        if let Some(change) = scale(&mut rng, template) {
            changes.push(change);
        }
    }
    // A placement changes.
    if rng.chance(35) {
        let index = rng.below(case.policies.len() as u64) as usize;
        let policy = &mut case.policies[index];
        let name = policy
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let what = edit_placement(&mut rng, &mut policy["spec"]["placement"], &names);
        changes.push(format!("placement of {name}: {what}"));
    }
    super::widen::change_more(seed, &mut case, &mut changes);
    if changes.is_empty() {
        let scaled = case.templates.iter_mut().find_map(|t| scale(&mut rng, t));
        match scaled {
            Some(change) => changes.push(change),
            None => {
                let next = names.len() as u64 + 10;
                let joined = cluster(&mut rng, next);
                changes.push(format!("cluster {} joined", cluster_name(&joined)));
                case.clusters.push(joined);
            }
        }
    }
    (case, changes)
}

fn cluster_name(cluster: &Value) -> String {
    cluster
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// A Deployment's replicas or a Job's parallelism, up or down; `None` for
/// other kinds.
fn scale(rng: &mut Rng, template: &mut Value) -> Option<String> {
    let (field, low) = match template["kind"].as_str() {
        Some("Deployment") => ("replicas", 0),
        Some("Job") => ("parallelism", 1),
        _ => return None,
    };
    let before = template["spec"][field].as_u64().unwrap_or(0);
    let mut after = low + rng.below(15);
    if after == before {
        after += 1;
    }
    template["spec"][field] = json!(after);
    let name = |p: &str| {
        template
            .pointer(p)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    Some(format!(
        "{}/{}/{}: {field} {before} -> {after}",
        name("/kind"),
        name("/metadata/namespace"),
        name("/metadata/name")
    ))
}

/// Change `placement`: drawn again, or one part of it edited (static
/// weights, tolerations, a cluster affinity group after the first, the
/// spread constraints, the division); what changed, in words.
fn edit_placement(rng: &mut Rng, placement: &mut Value, clusters: &[String]) -> String {
    let overflow = placement["clusterAffinities"]
        .as_array()
        .is_some_and(|terms| terms.iter().any(|t| t.get("overflowAffinities").is_some()));
    match rng.below(6) {
        0 if placement
            .pointer("/replicaScheduling/weightPreference/staticWeightList")
            .is_some() =>
        {
            let weights = static_weights(rng, clusters);
            placement["replicaScheduling"]["weightPreference"]["staticWeightList"] = json!(weights);
            "static weights drawn again".into()
        }
        1 => {
            let removed = placement
                .as_object_mut()
                .and_then(|fields| fields.remove("clusterTolerations"));
            if removed.is_some() {
                "tolerations removed".into()
            } else {
                placement["clusterTolerations"] =
                    json!([{"key": "dedicated", "operator": "Exists"}]);
                "tolerates every `dedicated` taint".into()
            }
        }
        2 if placement["clusterAffinities"]
            .as_array()
            .is_some_and(|terms| terms.len() > 1) =>
        {
            let terms = placement["clusterAffinities"]
                .as_array()
                .map_or(0, Vec::len);
            let index = 1 + rng.below(terms as u64 - 1) as usize;
            let mut term = affinity(rng, clusters);
            term["affinityName"] = json!(format!("group{index}"));
            placement["clusterAffinities"][index] = term;
            format!("affinity group group{index} drawn again")
        }
        3 if placement["spreadConstraints"].is_array() => {
            let max = 1 + rng.below(clusters.len() as u64);
            placement["spreadConstraints"][0]["maxGroups"] = json!(max);
            format!("spread over at most {max} clusters")
        }
        4 if !overflow => {
            let (strategy, _) = replica_scheduling(rng, clusters);
            let what = format!("division now {strategy}");
            placement["replicaScheduling"] = strategy;
            what
        }
        _ => {
            *placement = self::placement(rng, clusters);
            "drawn again".into()
        }
    }
}
