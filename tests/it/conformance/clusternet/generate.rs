//! Random Clusternet cases for the differential test: ManagedClusters,
//! Subscriptions, Localizations, Globalizations and the objects the feeds
//! name, from one seed. Every case is input garrison renders and the
//! oracle's API server admits, so any difference in what they compute is a
//! divergence to explain or fix.
//!
//! What the generator leaves out on purpose, each because garrison refuses
//! it by design (and the oracle answers it, or cannot):
//!
//! * a template two Subscriptions deliver to one cluster (G0210, P4): the
//!   generator works out which clusters each Subscription binds (label
//!   selectors, then NoSchedule/NoExecute taints against its tolerations,
//!   [`binds`]) and lets a second Subscription feed a template only when
//!   their clusters do not meet;
//! * a feed naming no template (G0211, P9), a Subscription feeding one
//!   template twice, an empty `feeds` or `subscribers`;
//! * Dynamic dividing, HelmChart feeds and Helm overrides (garrison
//!   refuses or skips them, the oracle does not answer);
//! * an override that fails (a failing `test`, an index past the end of a
//!   list for `add`, `remove` or `test`, a field patch on a field that is
//!   missing or not a string, a field in the wrong format): garrison stops
//!   the render where Clusternet fails one Description (P15). Overrides
//!   that Clusternet *drops* (a JSON patch meeting a missing path) are
//!   generated: both drop them;
//! * paused clusters (the oracle has no pause), more than 16 clusters (up
//!   to 12, Clusternet's `sort.Sort` of equal scores and `sort.Slice` of
//!   equal weights are stable; from 13 to 16 both sides pin
//!   `namespace/name` order for its arbitrary ties; from 100 on, a Dividing
//!   Subscription stops filtering early), templates carrying a `resourceVersion`
//!   (garrison refuses it, skip-validating or not; without
//!   `apps.clusternet.io/skip-validating` the hub refuses it too), a
//!   StatefulSet of `extensions/v1beta1` (garrison refuses the group), and
//!   overrides that change an object's identity.
//!
//! And, until garrison is fixed, the divergences of
//! `conformance/clusternet/DIVERGENCES.md`, each behind a switch of
//! [`Known`] that `GARRISON_CONFORMANCE_STRICT=1` turns back on.

use super::super::generate::Rng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

/// One case, in the oracle's input format (`conformance/clusternet/README.md`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Case {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub clusters: Vec<Value>,
    pub subscriptions: Vec<Value>,
    pub localizations: Vec<Value>,
    pub globalizations: Vec<Value>,
    pub templates: Vec<Value>,
}

/// The divergences of `conformance/clusternet/DIVERGENCES.md` the test
/// steers clear of while they stand: the generator does not make the input
/// that shows them, or the comparison lets them through. Each is `false`
/// by default; `GARRISON_CONFORMANCE_STRICT=1` sets them all, or a list of
/// their names some (to check a fix, or to reproduce one with its case
/// file).
#[derive(Clone, Copy, Debug)]
pub struct Known {
    /// Divergence 4: a Dividing Subscription's feed without a namespace
    /// that selects workloads with different replicas in several
    /// namespaces: Clusternet divides the first one's replicas and gives
    /// every one of them those shares; garrison divides each its own.
    pub namespaceless_divided_feed: bool,
    /// Divergence 6: the numbers of a JSON field a field patch rewrites:
    /// Clusternet keeps their text (`10.50`, `1e3`) through a
    /// FieldJSONPatch and writes them as Go's float64 through a
    /// FieldMergePatch (`1e16` as `10000000000000000`, integers past 2^53
    /// rounded); garrison writes its own forms.
    pub json_field_numbers: bool,
}

/// The switches of this run (see [`Known`]): `GARRISON_CONFORMANCE_STRICT`
/// is `1` (every one on) or a comma-separated list of their names.
pub fn known() -> Known {
    let strict = std::env::var("GARRISON_CONFORMANCE_STRICT").unwrap_or_default();
    let on = |name: &str| strict == "1" || strict.split(',').any(|s| s.trim() == name);
    Known {
        namespaceless_divided_feed: on("namespaceless_divided_feed"),
        json_field_numbers: on("json_field_numbers"),
    }
}

const CITIES: &[&str] = &["bj", "sh", "gz", "fra", "nyc", "sgp"];
const APP_NAMESPACES: &[&str] = &["shop", "web"];
const ENVS: &[&str] = &["prod", "test", "staging"];
const ZONES: &[&str] = &["a", "b", "c"];
const TIERS: &[&str] = &["gold", "silver"];
const TAINT_KEYS: &[&str] = &["gpu", "edge", "maint"];
const EFFECTS: &[&str] = &["NoSchedule", "NoExecute", "PreferNoSchedule"];
/// Override object names: the order of names is not the order of creation.
const OVERRIDE_NAMES: &[&str] = &["delta", "alpha", "charlie", "bravo", "echo", "foxtrot"];
/// Override priorities: the CRD default (500) appears written and left out.
const PRIORITIES: &[i64] = &[0, 100, 500, 500, 900, 1000];

/// The case of `seed`.
pub fn case(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let clusters = clusters(&mut rng);
    let templates = templates(&mut rng);
    let mut subscriptions: Vec<Sub> = (0..1 + rng.below(4))
        .map(|i| subscription(&mut rng, i, &clusters))
        .collect();
    feed(&mut rng, &templates, &mut subscriptions);
    let mut budget = Budget::new(&templates);
    let namespaces: Vec<String> = clusters
        .iter()
        .filter_map(|c| text(c, "/metadata/namespace"))
        .collect();
    let subscription_values: Vec<Value> = subscriptions.iter().map(|s| s.value.clone()).collect();
    let localizations = (0..rng.below(5))
        .map(|i| {
            localization(
                &mut rng,
                i,
                &namespaces,
                &templates,
                &subscriptions,
                &mut budget,
            )
        })
        .collect();
    let globalizations = (0..rng.below(4))
        .map(|i| globalization(&mut rng, i, &templates, &subscriptions, &mut budget))
        .collect();
    Case {
        name: format!("seed-{seed}"),
        clusters,
        subscriptions: subscription_values,
        localizations,
        globalizations,
        templates,
    }
}

fn text(value: &Value, pointer: &str) -> Option<String> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// One to twelve ManagedClusters, mostly few: each in a dedicated namespace
/// whose order is not its name's, with random labels and taints.
fn clusters(rng: &mut Rng) -> Vec<Value> {
    // Past 12 now and then: Clusternet's sorts stop being stable there.
    let count = match rng.below(20) {
        0..=15 => 2 + rng.below(6),
        16..=18 => 1 + rng.below(12),
        _ => 13 + rng.below(4),
    };
    (0..count).map(|i| cluster(rng, i)).collect()
}

fn cluster(rng: &mut Rng, index: u64) -> Value {
    let name = format!("{}-{index}", rng.pick(CITIES));
    let letters: String = (0..3)
        .map(|_| char::from(b'a' + rng.below(26) as u8))
        .collect();
    let namespace = format!("clusternet-{letters}{index:02}");
    let mut labels = Map::new();
    labels.insert(
        "clusters.clusternet.io/cluster-name".into(),
        json!(name.clone()),
    );
    if rng.chance(80) {
        labels.insert("env".into(), json!(rng.pick(ENVS)));
    }
    if rng.chance(60) {
        labels.insert("zone".into(), json!(rng.pick(ZONES)));
    }
    if rng.chance(50) {
        labels.insert("tier".into(), json!(rng.pick(TIERS)));
    }
    if rng.chance(15) {
        labels.insert("gpu".into(), json!("true"));
    }
    let mut spec =
        json!({"clusterId": format!("{name}-id"), "syncMode": rng.pick(&["Pull", "Push", "Dual"])});
    let mut taints = Vec::new();
    if rng.chance(30) {
        taints.push(taint(rng));
    }
    if rng.chance(10) {
        taints.push(taint(rng));
    }
    // One key and effect once: Kubernetes refuses a duplicate.
    let mut seen = BTreeSet::new();
    taints.retain(|t| seen.insert((t["key"].to_string(), t["effect"].to_string())));
    if !taints.is_empty() {
        spec["taints"] = json!(taints);
    }
    json!({
        "apiVersion": "clusters.clusternet.io/v1beta1",
        "kind": "ManagedCluster",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": spec,
    })
}

fn taint(rng: &mut Rng) -> Value {
    let mut taint = json!({"key": rng.pick(TAINT_KEYS), "effect": rng.pick(EFFECTS)});
    if rng.chance(60) {
        taint["value"] = json!(rng.pick(&["true", "on"]));
    }
    taint
}

/// Two to six objects in two namespaces; now and then one with the name and
/// kind of another in the other namespace, for feeds without a namespace.
fn templates(rng: &mut Rng) -> Vec<Value> {
    let mut templates: Vec<Value> = Vec::new();
    for i in 0..2 + rng.below(5) {
        let namespace = *rng.pick(APP_NAMESPACES);
        let name = format!("app{i}");
        let template = match rng.below(9) {
            0..=2 => workload(rng, "Deployment", namespace, &name),
            3 => workload(rng, "StatefulSet", namespace, &name),
            4 => workload(rng, "ReplicaSet", namespace, &name),
            5 => config_map(rng, namespace, &name),
            6 | 7 => service(rng, namespace, &name),
            _ => job(rng, namespace, &name),
        };
        templates.push(decorate(rng, template));
    }
    if rng.chance(20) {
        let mut twin = rng.pick(&templates).clone();
        let namespace = text(&twin, "/metadata/namespace").unwrap_or_default();
        let other = if namespace == "shop" { "web" } else { "shop" };
        let exists = templates.iter().any(|t| {
            text(t, "/metadata/namespace").as_deref() == Some(other)
                && t["kind"] == twin["kind"]
                && t["metadata"]["name"] == twin["metadata"]["name"]
        });
        if !exists {
            twin["metadata"]["namespace"] = json!(other);
            if twin.pointer("/spec/replicas").is_some() && rng.chance(50) {
                twin["spec"]["replicas"] = json!(rng.below(10));
            }
            templates.push(twin);
        }
    }
    templates
}

/// What the hub trims or the agent wipes, now and then on a template: a
/// status, a uid, a creation time, kubectl's last-applied annotation; and,
/// rarely, `skip-validating`, which keeps the hub from trimming at all.
fn decorate(rng: &mut Rng, mut template: Value) -> Value {
    let skip = rng.chance(5);
    let meta = &mut template["metadata"];
    if rng.chance(40) {
        let mut annotations = meta["annotations"].as_object().cloned().unwrap_or_default();
        annotations.insert(
            "example.com/owner".into(),
            json!(rng.pick(&["team-a", "team-b"])),
        );
        meta["annotations"] = Value::Object(annotations);
    }
    if rng.chance(10) {
        let mut annotations = meta["annotations"].as_object().cloned().unwrap_or_default();
        annotations.insert(
            "kubectl.kubernetes.io/last-applied-configuration".into(),
            json!("{\"kind\":\"x\"}"),
        );
        meta["annotations"] = Value::Object(annotations);
    }
    if rng.chance(10) {
        meta["uid"] = json!("0b6f7d2c-5d1e-4f8a-9c3b-2a1e0d9c8b7a");
    }
    if rng.chance(10) {
        meta["creationTimestamp"] = json!("2024-05-01T10:00:00Z");
    }
    if rng.chance(5) {
        meta["managedFields"] =
            json!([{"manager": "kubectl", "operation": "Apply", "apiVersion": "v1"}]);
        meta["selfLink"] = json!("/apis/example/x");
    }
    if skip {
        let mut annotations = meta["annotations"].as_object().cloned().unwrap_or_default();
        annotations.insert("apps.clusternet.io/skip-validating".into(), json!("true"));
        meta["annotations"] = Value::Object(annotations);
    }
    if rng.chance(15) {
        template["status"] = json!({"observedGeneration": 1});
    }
    template
}

fn labels(rng: &mut Rng, name: &str) -> Value {
    let mut labels = json!({"app": name});
    if rng.chance(30) {
        labels["example.com/team"] = json!(rng.pick(&["a", "b"]));
    }
    labels
}

fn workload(rng: &mut Rng, kind: &str, namespace: &str, name: &str) -> Value {
    let mut containers = vec![json!({"name": "main", "image": "nginx:1.27"})];
    if rng.chance(30) {
        containers
            .push(json!({"name": "sidecar", "image": "busybox:1.36", "args": ["sleep", "3600"]}));
    }
    let mut spec = json!({
        "selector": {"matchLabels": {"app": name}},
        "template": {
            "metadata": {"labels": {"app": name}},
            "spec": {"containers": containers},
        },
    });
    if rng.chance(85) {
        spec["replicas"] = json!(rng.below(13));
    } else if rng.chance(30) {
        spec["replicas"] = Value::Null;
    }
    if kind == "StatefulSet" {
        spec["serviceName"] = json!(name);
    }
    let mut metadata = json!({"name": name, "namespace": namespace});
    if rng.chance(70) {
        metadata["labels"] = labels(rng, name);
    }
    json!({"apiVersion": "apps/v1", "kind": kind, "metadata": metadata, "spec": spec})
}

fn config_map(rng: &mut Rng, namespace: &str, name: &str) -> Value {
    let mut data = json!({"plain": "x"});
    if rng.chance(60) {
        data["conf.json"] = if rng.chance(10) {
            json!("")
        } else {
            json!("{\"kind\":\"conf\",\"db\":{\"host\":\"a\",\"port\":5432},\"list\":[1,2],\"ratio\":0.5,\"note\":\"<b> & co\"}")
        };
        if known().json_field_numbers && rng.chance(50) {
            data["conf.json"] = json!("{\"kind\":\"conf\",\"db\":{\"host\":\"a\",\"port\":5432},\"list\":[1,2],\"ratio\":10.50,\"max\":1e16,\"id\":9007199254740993}");
        }
    }
    if rng.chance(60) {
        data["conf.yaml"] = json!(
            "kind: conf\ndb:\n  host: a\n  port: 5432\nlist:\n- 1\n- two\nmode: \"on\"\nperm: \"0644\"\nflag: yes\nfile: 0644\nwhen: 2024-01-01\n"
        );
        if rng.chance(50) {
            data["conf.yaml"] = json!("kind: conf\ndb:\n  host: a\non: push\n0644: perm\n");
        }
    }
    let mut metadata = json!({"name": name, "namespace": namespace});
    if rng.chance(50) {
        metadata["labels"] = labels(rng, name);
    }
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data})
}

fn service(rng: &mut Rng, namespace: &str, name: &str) -> Value {
    let kind = *rng.pick(&["", "ClusterIP", "NodePort", "LoadBalancer"]);
    let mut port = json!({"port": 80, "targetPort": 8080});
    if matches!(kind, "NodePort" | "LoadBalancer") && rng.chance(60) {
        port["nodePort"] = json!(30000 + rng.below(2000));
    }
    let mut spec = json!({"selector": {"app": name}, "ports": [port]});
    if !kind.is_empty() {
        spec["type"] = json!(kind);
    }
    if kind == "LoadBalancer" && rng.chance(40) {
        spec["healthCheckNodePort"] = json!(32000 + rng.below(500));
        spec["externalTrafficPolicy"] = json!("Local");
    }
    if rng.chance(50) {
        let ip = if kind == "ClusterIP" || kind.is_empty() {
            *rng.pick(&["None", "10.0.0.7"])
        } else {
            "10.0.0.7"
        };
        spec["clusterIP"] = json!(ip);
        if rng.chance(50) {
            spec["clusterIPs"] = json!([ip]);
        }
    } else if kind.is_empty() && rng.chance(25) {
        // A headless Service without a type keeps its `None` on both sides.
        spec["clusterIP"] = json!("None");
    }
    let mut metadata = json!({"name": name, "namespace": namespace});
    if rng.chance(50) {
        metadata["labels"] = labels(rng, name);
    }
    json!({"apiVersion": "v1", "kind": "Service", "metadata": metadata, "spec": spec})
}

fn job(rng: &mut Rng, namespace: &str, name: &str) -> Value {
    let mut pod_labels = json!({"app": name});
    let mut spec = json!({
        "parallelism": 1 + rng.below(4),
        "completions": 1 + rng.below(6),
        "template": {
            "metadata": {"labels": pod_labels.clone()},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox:1.36"}]},
        },
    });
    // A Clusternet hub delivers a Job only when it picks its selector by
    // hand or skips the dry run: the dry run's generated selector is
    // refused by every member (`job-generated-selector.json`).
    let mut metadata = json!({"name": name, "namespace": namespace});
    if rng.chance(50) {
        metadata["annotations"] = json!({"apps.clusternet.io/skip-validating": "true"});
    } else {
        spec["manualSelector"] = json!(true);
        spec["selector"] = json!({"matchLabels": {"app": name}});
        if rng.chance(40) {
            // As exported from a cluster: the controller's generated uid.
            let uid = "6e1e2c7a-1b1f-4f6e-9d8c-0a7b6c5d4e3f";
            pod_labels["controller-uid"] = json!(uid);
            spec["template"]["metadata"]["labels"] = pod_labels;
            spec["template"]["metadata"]["creationTimestamp"] = Value::Null;
            spec["selector"] = json!({"matchLabels": {"controller-uid": uid}});
        }
    }
    if rng.chance(50) {
        metadata["labels"] = labels(rng, name);
    }
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec})
}

/// A Subscription being made: its object, and the clusters it binds.
pub struct Sub {
    pub value: Value,
    /// The names of the clusters it binds (see [`binds`]).
    pub bound: BTreeSet<String>,
    /// Indices of the templates it feeds.
    pub fed: BTreeSet<usize>,
    pub dividing: bool,
}

fn subscription(rng: &mut Rng, index: u64, clusters: &[Value]) -> Sub {
    // Several subscribers whose matches overlap and interleave decide the
    // order of equal scores (the first subscriber that matches a cluster);
    // equal weights now and then, so the remainder meets a tie.
    let count = if rng.chance(25) {
        3 + rng.below(3)
    } else {
        1 + rng.below(3)
    };
    let equal = rng.chance(30).then(|| 1 + rng.below(3));
    let by_sub_group = rng.chance(15);
    let subscribers: Vec<Value> = (0..count)
        .map(|_| {
            let mut subscriber = json!({"clusterAffinity": selector(rng)});
            match (equal, rng.below(10)) {
                (_, 0) => {}
                (_, 1) => subscriber["weight"] = json!(0),
                (Some(w), _) => subscriber["weight"] = json!(w),
                (None, 2) => subscriber["weight"] = json!(0),
                (None, _) => subscriber["weight"] = json!(1 + rng.below(4)),
            }
            if by_sub_group {
                subscriber["subGroupStrategy"] = if rng.chance(10) {
                    json!({})
                } else {
                    json!({"minClusters": rng.below(4)})
                };
            }
            subscriber
        })
        .collect();
    let mut spec = json!({"subscribers": subscribers, "feeds": []});
    if by_sub_group {
        spec["schedulingBySubGroup"] = json!(true);
    }
    let dividing = rng.chance(55);
    if dividing {
        spec["schedulingStrategy"] = json!("Dividing");
        spec["dividingScheduling"] = if rng.chance(70) {
            json!({"type": "Static"})
        } else {
            json!({})
        };
    } else if rng.chance(50) {
        spec["schedulingStrategy"] = json!("Replication");
    }
    if rng.chance(10) {
        spec["schedulerName"] = json!("default");
    }
    if rng.chance(35) {
        let tolerations: Vec<Value> = (0..1 + rng.below(2)).map(|_| toleration(rng)).collect();
        spec["clusterTolerations"] = json!(tolerations);
    }
    let mut value = json!({
        "apiVersion": "apps.clusternet.io/v1alpha1",
        "kind": "Subscription",
        "metadata": {"name": format!("sub{index}"), "namespace": rng.pick(APP_NAMESPACES)},
        "spec": spec,
    });
    if by_sub_group && !picks_some(&value, clusters) {
        // Picking none, Clusternet never schedules it and garrison refuses
        // it: not valid input. Without the flag the strategies do nothing.
        value["spec"]
            .as_object_mut()
            .map(|spec| spec.remove("schedulingBySubGroup"));
    }
    let bound: BTreeSet<String> = clusters
        .iter()
        .filter(|c| binds(&value, c))
        .filter_map(|c| text(c, "/metadata/name"))
        .collect();
    Sub {
        value,
        bound,
        fed: BTreeSet::new(),
        dividing,
    }
}

/// Whether a `schedulingBySubGroup` Subscription picks a cluster: some
/// subscriber with `minClusters` of 1 or more matches a cluster it binds.
fn picks_some(subscription: &Value, clusters: &[Value]) -> bool {
    let feasible: Vec<&Value> = clusters.iter().filter(|c| binds(subscription, c)).collect();
    subscription
        .pointer("/spec/subscribers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|s| {
            s.pointer("/subGroupStrategy/minClusters")
                .and_then(Value::as_u64)
                > Some(0)
        })
        .any(|s| feasible.iter().any(|c| matches(&s["clusterAffinity"], c)))
}

fn toleration(rng: &mut Rng) -> Value {
    if rng.chance(8) {
        // Tolerates every taint.
        return json!({"operator": "Exists"});
    }
    let mut toleration = json!({"key": rng.pick(TAINT_KEYS)});
    match rng.below(3) {
        0 => toleration["operator"] = json!("Exists"),
        1 => {
            toleration["operator"] = json!("Equal");
            toleration["value"] = json!(rng.pick(&["true", "on"]));
        }
        _ => toleration["value"] = json!(rng.pick(&["true", "on"])),
    }
    if rng.chance(60) {
        toleration["effect"] = json!(rng.pick(EFFECTS));
    }
    if rng.chance(30) {
        if toleration.get("effect").is_none() {
            toleration["effect"] = json!("");
        } else if toleration.get("operator").is_none() {
            toleration["operator"] = json!("");
        }
    }
    toleration
}

/// A label selector over the clusters' labels: everything, labels,
/// expressions, or both.
fn selector(rng: &mut Rng) -> Value {
    let labels = |rng: &mut Rng| -> Value {
        match rng.below(5) {
            0 | 1 => json!({"env": rng.pick(ENVS)}),
            2 => json!({"zone": rng.pick(ZONES)}),
            3 => json!({"tier": rng.pick(TIERS)}),
            _ => json!({"env": rng.pick(ENVS), "tier": rng.pick(TIERS)}),
        }
    };
    let expressions = |rng: &mut Rng| -> Value {
        let expressions: Vec<Value> = (0..1 + rng.below(2))
            .map(|_| match rng.below(4) {
                0 => json!({"key": rng.pick(&["env", "zone"]), "operator": "In", "values": rng.some(&["prod", "test", "a", "b"])}),
                1 => json!({"key": rng.pick(&["env", "zone", "tier"]), "operator": "NotIn", "values": rng.some(&["prod", "staging", "a", "gold"])}),
                2 => json!({"key": rng.pick(&["gpu", "tier", "zone"]), "operator": "Exists"}),
                _ => json!({"key": rng.pick(&["gpu", "tier", "env"]), "operator": "DoesNotExist"}),
            })
            .collect();
        json!(expressions)
    };
    match rng.below(20) {
        0..=4 => json!({}),
        5..=11 => json!({"matchLabels": labels(rng)}),
        12..=18 => json!({"matchExpressions": expressions(rng)}),
        _ => json!({"matchLabels": labels(rng), "matchExpressions": expressions(rng)}),
    }
}

/// Whether a Kubernetes label selector (as JSON) matches a cluster's labels.
fn matches(selector: &Value, cluster: &Value) -> bool {
    let labels = cluster.pointer("/metadata/labels");
    let label = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
    let by_label = selector["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, v)| label(k) == v.as_str());
    let by_expression = selector["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
        .all(|e| {
            let key = e["key"].as_str().unwrap_or_default();
            let values: Vec<&str> = e["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            match e["operator"].as_str() {
                Some("In") => label(key).is_some_and(|v| values.contains(&v)),
                Some("NotIn") => label(key).is_none_or(|v| !values.contains(&v)),
                Some("Exists") => label(key).is_some(),
                Some("DoesNotExist") => label(key).is_none(),
                _ => false,
            }
        });
    by_label && by_expression
}

/// Kubernetes' `ToleratesTaint`.
fn tolerates(toleration: &Value, taint: &Value) -> bool {
    let field = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    let effect = field(toleration, "effect");
    if !effect.is_empty() && effect != field(taint, "effect") {
        return false;
    }
    let key = field(toleration, "key");
    if !key.is_empty() && key != field(taint, "key") {
        return false;
    }
    match toleration["operator"].as_str() {
        Some("Exists") => true,
        _ => field(toleration, "value") == field(taint, "value"),
    }
}

/// Whether Clusternet's scheduler binds `cluster` for `subscription`: some
/// subscriber's affinity matches it, and it has no NoSchedule or NoExecute
/// taint the Subscription does not tolerate.
pub fn binds(subscription: &Value, cluster: &Value) -> bool {
    let selected = subscription
        .pointer("/spec/subscribers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|s| matches(&s["clusterAffinity"], cluster));
    let tolerations: Vec<Value> = subscription
        .pointer("/spec/clusterTolerations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let fits = cluster
        .pointer("/spec/taints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|t| t["effect"] != "PreferNoSchedule")
        .all(|t| tolerations.iter().any(|tol| tolerates(tol, t)));
    selected && fits
}

/// The identity a feed names a template by.
fn identity(template: &Value) -> (String, String, String) {
    (
        text(template, "/apiVersion").unwrap_or_default(),
        text(template, "/kind").unwrap_or_default(),
        text(template, "/metadata/name").unwrap_or_default(),
    )
}

fn divisible(template: &Value) -> bool {
    let (api_version, kind, _) = identity(template);
    api_version == "apps/v1" && matches!(kind.as_str(), "Deployment" | "StatefulSet" | "ReplicaSet")
}

/// Give every Subscription its feeds. Each template goes to one
/// Subscription (now and then none, or a second one whose clusters do not
/// meet the first's); a template with a twin of its kind and name in the
/// other namespace is now and then fed by one feed without a namespace,
/// which delivers both.
fn feed(rng: &mut Rng, templates: &[Value], subs: &mut Vec<Sub>) {
    // The feeds of each Subscription, as (template indices, namespaced).
    let mut feeds: Vec<Vec<(Vec<usize>, bool)>> = vec![Vec::new(); subs.len()];
    let mut done = BTreeSet::new();
    let order = shuffled(rng, templates.len());
    for t in order {
        if done.contains(&t) {
            continue;
        }
        let twins: Vec<usize> = (0..templates.len())
            .filter(|&u| identity(&templates[u]) == identity(&templates[t]))
            .collect();
        // Twins go together only when neither has gone already: a
        // Subscription feeding one template twice is refused (G0210).
        let free = twins.iter().all(|u| !done.contains(u));
        let group = if twins.len() > 1 && free && rng.chance(50) {
            twins
        } else {
            vec![t]
        };
        done.extend(group.iter().copied());
        if rng.chance(8) {
            continue; // unclaimed: neither side renders it
        }
        let first = rng.below(subs.len() as u64) as usize;
        let mut takers = vec![first];
        if rng.chance(25) {
            let second = rng.below(subs.len() as u64) as usize;
            if second != first && subs[first].bound.is_disjoint(&subs[second].bound) {
                takers.push(second);
            }
        }
        for s in takers {
            if !feedable(&subs[s], &group, templates) {
                continue;
            }
            // Disjoint from every other Subscription already feeding it.
            let clash = subs.iter().enumerate().any(|(o, other)| {
                o != s
                    && group.iter().any(|g| other.fed.contains(g))
                    && !other.bound.is_disjoint(&subs[s].bound)
            });
            if clash {
                continue;
            }
            // One template alone is now and then fed without a namespace
            // too, when no twin would come with it.
            let namespaced =
                group.len() == 1 && (!twin_free(templates, group[0]) || !rng.chance(10));
            subs[s].fed.extend(group.iter().copied());
            feeds[s].push((group.clone(), namespaced));
        }
    }
    // A Subscription that got nothing takes a template it can have alone.
    for s in 0..subs.len() {
        if !feeds[s].is_empty() {
            continue;
        }
        for t in shuffled(rng, templates.len()) {
            let clash = subs.iter().enumerate().any(|(o, other)| {
                o != s && other.fed.contains(&t) && !other.bound.is_disjoint(&subs[s].bound)
            });
            if !clash && feedable(&subs[s], &[t], templates) {
                subs[s].fed.insert(t);
                feeds[s].push((vec![t], true));
                break;
            }
        }
    }
    let mut kept = Vec::new();
    for (mut sub, list) in subs.drain(..).zip(feeds) {
        if list.is_empty() {
            continue;
        }
        let values: Vec<Value> = list
            .iter()
            .map(|(group, namespaced)| {
                let template = &templates[group[0]];
                let mut feed = json!({
                    "apiVersion": template["apiVersion"],
                    "kind": template["kind"],
                    "name": template["metadata"]["name"],
                });
                if *namespaced {
                    feed["namespace"] = template["metadata"]["namespace"].clone();
                }
                feed
            })
            .collect();
        sub.value["spec"]["feeds"] = json!(values);
        kept.push(sub);
    }
    *subs = kept;
}

/// Whether no other template has this one's apiVersion, kind and name (a
/// feed without a namespace then selects it alone).
fn twin_free(templates: &[Value], t: usize) -> bool {
    templates
        .iter()
        .filter(|u| identity(u) == identity(&templates[t]))
        .count()
        == 1
}

/// Whether `sub` may feed `group` with one feed: a Dividing Subscription
/// divides the first template's replicas and gives every template of a
/// feed without a namespace those shares (a known divergence while
/// [`Known::namespaceless_divided_feed`] is off).
fn feedable(sub: &Sub, group: &[usize], templates: &[Value]) -> bool {
    if group.len() < 2 || !sub.dividing || known().namespaceless_divided_feed {
        return true;
    }
    let replicas: BTreeSet<String> = group
        .iter()
        .filter(|&&g| divisible(&templates[g]))
        .map(|&g| {
            templates[g]
                .pointer("/spec/replicas")
                .map(Value::to_string)
                .unwrap_or_default()
        })
        .collect();
    replicas.len() < 2
}

fn shuffled(rng: &mut Rng, n: usize) -> Vec<usize> {
    let mut items: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        items.swap(i, j);
    }
    items
}

/// What the overrides of a case may still do to each template without
/// failing: how many list items may be removed (a `remove` of the only
/// container twice would fail).
pub struct Budget {
    removals: Vec<u64>,
}

impl Budget {
    fn new(templates: &[Value]) -> Budget {
        Budget {
            removals: templates
                .iter()
                .map(|t| {
                    t.pointer("/spec/template/spec/containers")
                        .and_then(Value::as_array)
                        .map_or(0, |c| c.len() as u64 - 1)
                })
                .collect(),
        }
    }
}

/// The templates an override's feed selects: the template, or (without a
/// namespace) every template of its apiVersion, kind and name.
fn selected(templates: &[Value], t: usize, namespaced: bool) -> Vec<usize> {
    if namespaced {
        return vec![t];
    }
    (0..templates.len())
        .filter(|&u| identity(&templates[u]) == identity(&templates[t]))
        .collect()
}

/// A feed for an override: mostly a template some Subscription delivers,
/// now and then one nobody does.
fn override_feed(rng: &mut Rng, templates: &[Value], subs: &[Sub]) -> (Value, Vec<usize>) {
    let delivered: Vec<usize> = (0..templates.len())
        .filter(|t| subs.iter().any(|s| s.fed.contains(t)))
        .collect();
    let t = if !delivered.is_empty() && rng.chance(90) {
        *rng.pick(&delivered)
    } else {
        rng.below(templates.len() as u64) as usize
    };
    let template = &templates[t];
    let namespaced = !rng.chance(12);
    let mut feed = json!({
        "apiVersion": template["apiVersion"],
        "kind": template["kind"],
        "name": template["metadata"]["name"],
    });
    if namespaced {
        feed["namespace"] = template["metadata"]["namespace"].clone();
    }
    (feed, selected(templates, t, namespaced))
}

fn priority(rng: &mut Rng, spec: &mut Value) {
    if rng.chance(75) {
        spec["priority"] = json!(rng.pick(PRIORITIES));
    }
    if rng.chance(15) {
        spec["overridePolicy"] = json!(rng.pick(&["ApplyNow", "ApplyLater"]));
    }
}

fn localization(
    rng: &mut Rng,
    index: u64,
    namespaces: &[String],
    templates: &[Value],
    subs: &[Sub],
    budget: &mut Budget,
) -> Value {
    let (feed, targets) = override_feed(rng, templates, subs);
    let namespace = match rng.below(20) {
        0..=15 => rng.pick(namespaces).clone(),
        16 | 17 => text(&feed, "/namespace").unwrap_or_else(|| "shop".into()),
        _ => "clusternet-nowhere".into(),
    };
    let mut spec = json!({"feed": feed, "overrides": overrides(rng, templates, &targets, budget)});
    priority(rng, &mut spec);
    json!({
        "apiVersion": "apps.clusternet.io/v1alpha1",
        "kind": "Localization",
        "metadata": {"name": format!("{}-l{index}", rng.pick(OVERRIDE_NAMES)), "namespace": namespace},
        "spec": spec,
    })
}

fn globalization(
    rng: &mut Rng,
    index: u64,
    templates: &[Value],
    subs: &[Sub],
    budget: &mut Budget,
) -> Value {
    let (feed, targets) = override_feed(rng, templates, subs);
    let mut spec = json!({"feed": feed, "overrides": overrides(rng, templates, &targets, budget)});
    priority(rng, &mut spec);
    if rng.chance(40) {
        spec["clusterAffinity"] = selector(rng);
    }
    json!({
        "apiVersion": "apps.clusternet.io/v1alpha1",
        "kind": "Globalization",
        "metadata": {"name": format!("{}-g{index}", rng.pick(OVERRIDE_NAMES))},
        "spec": spec,
    })
}

/// One to three overrides that none of the templates `targets` fails on.
fn overrides(
    rng: &mut Rng,
    templates: &[Value],
    targets: &[usize],
    budget: &mut Budget,
) -> Vec<Value> {
    let first = &templates[targets[0]];
    let kind = text(first, "/kind").unwrap_or_default();
    let name = text(first, "/metadata/name").unwrap_or_default();
    let single = targets.len() == 1;
    (0..1 + rng.below(3))
        .map(|k| {
            let mut config = match rng.below(10) {
                0..=5 if single && kind == "ConfigMap" => field_patch(rng, first),
                0..=5 => json_patch(rng, (&kind, &name), targets, budget),
                6 | 7 => merge_patch(rng, &kind),
                _ => json_patch(rng, (&kind, &name), targets, budget),
            };
            if rng.chance(80) {
                config["name"] = json!(format!("o{k}"));
            }
            if rng.chance(3)
                && config["type"] != "FieldJSONPatch"
                && config["type"] != "FieldMergePatch"
            {
                // Meant for a HelmChart: on a plain object the first is set
                // aside, later ones patch the object.
                config["overrideChart"] = json!(true);
            }
            config
        })
        .collect()
}

/// A JSONPatch override: one or two operations, now and then written as
/// YAML, some meeting a path the object lacks (the whole patch is dropped).
fn json_patch(
    rng: &mut Rng,
    (kind, name): (&str, &str),
    targets: &[usize],
    budget: &mut Budget,
) -> Value {
    let ops: Vec<Value> = (0..1 + rng.below(2))
        .map(|_| operation(rng, (kind, name), targets, budget))
        .collect();
    let value = if rng.chance(20) {
        yaml_list(&ops)
    } else {
        Value::Array(ops).to_string()
    };
    json!({"type": "JSONPatch", "value": value})
}

/// A list of flat operations as a YAML block sequence.
fn yaml_list(ops: &[Value]) -> String {
    let mut out = String::new();
    for op in ops {
        let mut first = true;
        for (key, value) in op.as_object().into_iter().flatten() {
            out.push_str(if first { "- " } else { "  " });
            first = false;
            out.push_str(&format!("{key}: {value}\n"));
        }
    }
    out
}

fn operation(
    rng: &mut Rng,
    (kind, name): (&str, &str),
    targets: &[usize],
    budget: &mut Budget,
) -> Value {
    // Every kind: metadata.
    let common = |rng: &mut Rng| -> Value {
        match rng.below(16) {
            0 => {
                json!({"op": "add", "path": "/metadata/labels/extra", "value": rng.pick(&["x", "y"])})
            }
            1 => json!({"op": "add", "path": "/metadata/annotations/note", "value": "n"}),
            2 => json!({"op": "add", "path": "/metadata/annotations", "value": {"a": "b"}}),
            3 => json!({"op": "remove", "path": "/metadata/annotations"}),
            4 => json!({"op": "replace", "path": "/metadata/labels/app", "value": "replaced"}),
            5 => {
                json!({"op": "replace", "path": "/metadata/labels/brand-new", "value": "added-by-replace"})
            }
            6 => {
                json!({"op": "replace", "path": "/metadata/annotations/example.com~1owner", "value": "team-c"})
            }
            7 => json!({"op": "test", "path": "/kind", "value": kind}),
            8 => json!({"op": "test", "path": "/metadata/labels/never-set", "value": null}),
            9 => json!({"op": "test", "path": "/metadata/annotations/x/y", "value": "z"}),
            10 => {
                json!({"op": "copy", "from": "/metadata/name", "path": "/metadata/labels/copied"})
            }
            11 => {
                json!({"op": "move", "from": "/metadata/labels/app", "path": "/metadata/labels/moved"})
            }
            12 => json!({"op": "remove", "path": "/metadata/labels/app"}),
            13 => json!({"op": "remove", "path": "/metadata/labels/absent"}),
            14 => json!({"op": "add", "path": "/metadata/labels/example.com~1team", "value": "z"}),
            _ => json!({"op": "add", "path": "/metadata/nope/deeper", "value": "dropped"}),
        }
    };
    if rng.chance(40) {
        return common(rng);
    }
    match kind {
        "Deployment" | "StatefulSet" | "ReplicaSet" => {
            let containers = "/spec/template/spec/containers";
            match rng.below(9) {
                0 => {
                    json!({"op": "replace", "path": "/spec/replicas", "value": 1 + rng.below(9)})
                }
                1 => {
                    json!({"op": "add", "path": format!("{containers}/-"), "value": {"name": "extra", "image": "busybox:1.36"}})
                }
                2 => {
                    json!({"op": "add", "path": format!("{containers}/0/env"), "value": [{"name": "MODE", "value": "edge"}]})
                }
                3 => {
                    json!({"op": "replace", "path": format!("{containers}/0/image"), "value": "nginx:2"})
                }
                4 => {
                    json!({"op": "replace", "path": format!("{containers}/7/image"), "value": "dropped"})
                }
                5 => {
                    json!({"op": "add", "path": format!("{containers}/0"), "value": {"name": "init-first", "image": "busybox:1.36"}})
                }
                6 if targets.iter().all(|&t| budget.removals[t] > 0) => {
                    for &t in targets {
                        budget.removals[t] -= 1;
                    }
                    json!({"op": "remove", "path": format!("{containers}/-1")})
                }
                7 => {
                    json!({"op": "add", "path": "/spec/template/metadata/annotations", "value": {"checksum": "abc"}})
                }
                _ => json!({"op": "test", "path": "/spec/selector/matchLabels/app", "value": name}),
            }
        }
        "ConfigMap" => match rng.below(6) {
            0 => json!({"op": "replace", "path": "/data/plain", "value": "y"}),
            1 => json!({"op": "add", "path": "/data/new", "value": "v"}),
            2 => json!({"op": "remove", "path": "/data/absent"}),
            3 => json!({"op": "remove", "path": "/data/plain"}),
            4 => json!({"op": "add", "path": "/binaryData/x", "value": "eA=="}),
            _ => json!({"op": "copy", "from": "/data/plain", "path": "/data/plain-copy"}),
        },
        "Service" => match rng.below(5) {
            0 => json!({"op": "replace", "path": "/spec/type", "value": "ClusterIP"}),
            1 => {
                json!({"op": "add", "path": "/spec/ports/-", "value": {"name": "metrics", "port": 9090}})
            }
            2 => json!({"op": "remove", "path": "/spec/clusterIP"}),
            3 => json!({"op": "add", "path": "/spec/sessionAffinity", "value": "ClientIP"}),
            _ => json!({"op": "replace", "path": "/spec/ports/0/port", "value": 8080}),
        },
        "Job" => match rng.below(4) {
            0 => json!({"op": "replace", "path": "/spec/parallelism", "value": 1 + rng.below(5)}),
            1 => json!({"op": "add", "path": "/spec/backoffLimit", "value": 2}),
            2 => json!({"op": "add", "path": "/spec/template/metadata/labels/extra", "value": "x"}),
            _ => json!({"op": "remove", "path": "/spec/activeDeadlineSeconds"}),
        },
        _ => common(rng),
    }
}

/// A MergePatch override: maps merge, `null` deletes (and is pruned from
/// what lands where nothing was), lists are replaced; now and then YAML.
fn merge_patch(rng: &mut Rng, kind: &str) -> Value {
    let workload = matches!(kind, "Deployment" | "StatefulSet" | "ReplicaSet");
    let value = match rng.below(11) {
        0 => json!({"metadata": {"labels": {"merged": "yes"}}}).to_string(),
        1 => json!({"metadata": {"labels": {"app": null}}}).to_string(),
        2 => json!({"metadata": {"annotations": {"note": "hi", "gone": null}}}).to_string(),
        3 => json!({"metadata": {"annotations": null}}).to_string(),
        4 => "metadata:\n  annotations:\n    note: from-yaml\n    count: \"3\"\n".to_string(),
        5 if workload => json!({"spec": {"replicas": null}}).to_string(),
        6 if workload => json!({"spec": {"replicas": 4}}).to_string(),
        7 if workload => json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:merged"}]}}}}).to_string(),
        8 if kind == "ConfigMap" => json!({"data": {"plain": null, "added": "1"}}).to_string(),
        9 if kind == "Service" => json!({"spec": {"clusterIP": null, "type": "NodePort"}}).to_string(),
        10 if rng.chance(50) => "metadata:\n  annotations:\n    on: x\n    1.0: z\n".to_string(),
        10 => "   ".to_string(), // blank: skipped
        _ => json!({"metadata": {"labels": {"order": rng.below(100).to_string()}}}).to_string(),
    };
    json!({"type": "MergePatch", "value": value})
}

/// A field patch on a ConfigMap's JSON or YAML document, if it has one.
fn field_patch(rng: &mut Rng, template: &Value) -> Value {
    let has = |key: &str| template["data"][key].is_string();
    let json_field = has("conf.json");
    let yaml_field = has("conf.yaml");
    if !json_field && !yaml_field {
        return merge_patch(rng, "ConfigMap");
    }
    let yaml = yaml_field && (!json_field || rng.chance(50));
    let (path, format) = if yaml {
        ("/data/conf.yaml", "YAML")
    } else {
        ("/data/conf.json", "JSON")
    };
    let (kind, value) = if rng.chance(60) {
        let op = match rng.below(7) {
            0 => json!({"op": "replace", "path": "/db/host", "value": "b"}),
            1 => json!({"op": "add", "path": "/db/user", "value": "u"}),
            2 => json!({"op": "remove", "path": "/nope"}),
            3 => json!({"op": "add", "path": "/list/-", "value": 3}),
            4 => json!({"op": "test", "path": "/kind", "value": "conf"}),
            5 => json!({"op": "replace", "path": "/ratio", "value": 1.25}),
            _ => json!({"op": "add", "path": "/html", "value": "<i>&</i>"}),
        };
        ("FieldJSONPatch", json!([op]).to_string())
    } else {
        let patch = match rng.below(4) {
            0 => json!({"db": {"port": 6543}}),
            1 => json!({"db": {"host": null}, "extra": true}),
            2 => json!({"list": ["x"], "ratio": 2.5}),
            _ => json!({"nested": {"a": {"b": "c"}}}),
        };
        ("FieldMergePatch", patch.to_string())
    };
    json!({"type": kind, "fieldPath": path, "fieldFormat": format, "value": value})
}
