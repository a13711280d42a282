//! Comparing garrison's render of a Clusternet case with the oracle's
//! answer, field by field, after the deliberate differences below are
//! taken out; anything else is a divergence.
//!
//! Deliberate differences, each for a reason (the generator does not make
//! the input behind the first ones; the comparison accounts for the rest):
//!
//! * **No cluster fits a Subscription** (Clusternet's FitError): the oracle
//!   answers an error, garrison a warning (P10); both bind and deliver
//!   nothing, which is what is compared.
//! * **Ties past 12 feasible clusters, and 100 clusters or more**:
//!   Clusternet's `sort.Sort` of equal scores and `sort.Slice` of equal
//!   weights are stable only up to 12 clusters, so past 12 its order of
//!   ties is arbitrary; garrison and the oracle both take `namespace/name`
//!   order there (P5), so cases past 12 are compared too. Past 100 a
//!   Dividing Subscription stops filtering early: the generator makes at
//!   most 16 clusters.
//! * **A cluster two subscribers pick with `schedulingBySubGroup`**:
//!   Clusternet lists it twice, counts its weight twice and delivers to it
//!   twice; garrison binds it once (P11,
//!   `conformance/clusternet/testdata/divergences/sub-groups-twice.json`).
//!   A case where the oracle binds a cluster twice is not compared.
//! * **garrison refuses the render where Clusternet fails one
//!   Description** (an override that cannot be applied, P15) or never
//!   schedules a Subscription (a feed naming no template, Dynamic
//!   dividing ...): bad input never leaves a half-written output. A
//!   refusal where the oracle answers an error too is agreement
//!   ([`oracle_fails_too`]).
//! * **Key order inside objects**: garrison keeps the template's order,
//!   Clusternet's patch library writes JSON objects with sorted keys.
//!   Objects are compared as parsed JSON values, where order does not count.
//! * **YAML text in a field** a `fieldFormat: YAML` field patch rewrote:
//!   garrison writes YAML in its own style, Clusternet in go-yaml's; both
//!   texts are parsed (as YAML 1.1, as Clusternet reads them) and the
//!   values compared. A JSON field is compared byte for byte: garrison
//!   writes it as Clusternet does (P16).
//! * **An empty `labels` or `annotations` map** is no map: the API server
//!   stores both alike. The oracle leaves out the agent's own annotations
//!   and so drops the map kubectl's last-applied annotation leaves empty;
//!   garrison writes it empty.
//! * **garrison's own bookkeeping**: labels and annotations under
//!   `garrison.dev/` (P20) and Karmada's applied-policy annotations, left
//!   out of garrison's objects (with the map they leave empty).
//! * **The Namespaces garrison creates** on a cluster for its objects (P18):
//!   Clusternet creates none; they are not read (`garrison.rs`).
//! * The hub's label `clusternet.io/created-by: clusternet-hub` is written
//!   by both, and compared.

use super::generate::Case;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Karmada's bookkeeping annotations garrison writes where an application
/// has a policy or applied override policies.
const KARMADA_BOOKKEEPING: &[&str] = &[
    "propagationpolicy.karmada.io/name",
    "propagationpolicy.karmada.io/namespace",
    "clusterpropagationpolicy.karmada.io/name",
    "policy.karmada.io/applied-overrides",
    "policy.karmada.io/applied-cluster-overrides",
];

/// Whether the oracle's answer is an error Clusternet would not schedule
/// or deliver past: a refused case, a Subscription it never schedules, a
/// Description it cannot write. A FitError is not one: garrison warns.
fn refusals(oracle: &Value) -> Vec<String> {
    let mut found = Vec::new();
    if let Some(error) = oracle["error"].as_str() {
        found.push(format!("the case: {error}"));
    }
    for (key, result) in oracle["subscriptions"].as_object().into_iter().flatten() {
        if let Some(error) = result["error"].as_str().filter(|e| !fit_error(e)) {
            found.push(format!("Subscription {key}: {error}"));
        }
    }
    for (name, result) in oracle["clusters"].as_object().into_iter().flatten() {
        if let Some(error) = result["error"].as_str() {
            found.push(format!("cluster {name}: {error}"));
        }
    }
    found
}

/// Clusternet's FitError (`0/N clusters are available: ...`).
fn fit_error(error: &str) -> bool {
    error.starts_with("0/") && error.contains("clusters are available")
}

/// garrison refused a case (`why`, its diagnostics) where the oracle
/// answers an error too: both refuse, which is agreement. With `strict`,
/// the refusal must name what the oracle fails on (the cluster whose
/// Description fails, or the Subscription it never schedules).
pub fn oracle_fails_too(why: &str, oracle: &Value, strict: bool) -> bool {
    if !strict {
        return !refusals(oracle).is_empty();
    }
    if oracle["error"].is_string() {
        return true;
    }
    let subscription = oracle["subscriptions"]
        .as_object()
        .into_iter()
        .flatten()
        .any(|(key, r)| {
            r["error"].as_str().is_some_and(|e| !fit_error(e))
                && why.contains(&format!("Subscription/{key}"))
        });
    let cluster = oracle["clusters"]
        .as_object()
        .into_iter()
        .flatten()
        .any(|(name, r)| {
            r["error"].as_str().is_some_and(|e| {
                why.contains(&format!("cluster `{name}`"))
                    || failed_object(e).is_some_and(|id| why.contains(&format!("`{id}`")))
            })
        });
    subscription || cluster
}

/// The object an oracle's Description error is about, when it names one
/// (`object `Kind/namespace/name``: a member cluster refusing to create it).
fn failed_object(error: &str) -> Option<&str> {
    let (_, rest) = error.split_once("object `")?;
    rest.split_once('`').map(|(id, _)| id)
}

/// Every difference between the two answers to one case, one line each.
pub fn divergences(case: &Case, garrison: &Value, oracle: &Value) -> Vec<String> {
    let refused = refusals(oracle);
    if !refused.is_empty() {
        return refused
            .into_iter()
            .map(|r| format!("the oracle refuses {r}; garrison renders the case"))
            .collect();
    }
    if picked_twice(oracle) {
        return Vec::new();
    }
    let mut found = Vec::new();
    let yaml_fields = yaml_fields(case);
    let empty = Map::new();
    let ours = garrison["clusters"].as_object().unwrap_or(&empty);
    let theirs = oracle["clusters"].as_object().unwrap_or(&empty);
    for name in ours.keys().filter(|n| !theirs.contains_key(*n)) {
        found.push(format!("cluster {name}: garrison's only"));
    }
    for (name, result) in theirs {
        let Some(mine) = ours.get(name) else {
            found.push(format!("cluster {name}: the oracle's only"));
            continue;
        };
        let by_identity = |objects: &Value, ours: bool| -> BTreeMap<String, Value> {
            objects
                .as_array()
                .into_iter()
                .flatten()
                .map(|o| {
                    let o = if ours {
                        without_bookkeeping(o)
                    } else {
                        o.clone()
                    };
                    let o = without_empty_maps(o);
                    (identity(&o), o)
                })
                .collect()
        };
        let (mine, others) = (
            by_identity(&mine["objects"], true),
            by_identity(&result["objects"], false),
        );
        if result["objects"].as_array().map_or(0, Vec::len) != others.len() {
            found.push(format!(
                "cluster {name}: the oracle delivers an object twice"
            ));
        }
        for id in mine.keys().filter(|k| !others.contains_key(*k)) {
            found.push(format!("cluster {name}: {id} delivered by garrison only"));
        }
        for (id, theirs) in &others {
            let Some(ours) = mine.get(id) else {
                found.push(format!("cluster {name}: {id} delivered by Clusternet only"));
                continue;
            };
            let ours = with_yaml_fields_as(ours, theirs, &yaml_fields);
            if &ours != theirs {
                found.push(format!(
                    "cluster {name}: {id} differs:\n  garrison   {}\n  clusternet {}",
                    ours, theirs
                ));
            }
        }
    }
    found.extend(replicas(case, garrison, oracle));
    found
}

/// Whether the oracle binds a cluster twice to one Subscription, as
/// Clusternet's `subgroupClusters` does when two subscribers pick it (P11).
pub fn picked_twice(oracle: &Value) -> bool {
    oracle["subscriptions"]
        .as_object()
        .into_iter()
        .flatten()
        .any(|(_, result)| {
            let bound: Vec<&Value> = result["bindingClusters"]
                .as_array()
                .into_iter()
                .flatten()
                .collect();
            bound.windows(2).any(|w| w[0] == w[1])
        })
}

/// `apiVersion/kind/namespace/name`.
fn identity(object: &Value) -> String {
    let text = |p: &str| {
        object
            .pointer(p)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    format!(
        "{}/{}/{}/{}",
        text("/apiVersion"),
        text("/kind"),
        text("/metadata/namespace"),
        text("/metadata/name")
    )
}

/// garrison's object without its own labels and annotations and Karmada's
/// bookkeeping; a map they alone filled is removed with them.
fn without_bookkeeping(object: &Value) -> Value {
    let mut object = object.clone();
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return object;
    };
    for field in ["labels", "annotations"] {
        let Some(map) = metadata.get_mut(field).and_then(Value::as_object_mut) else {
            continue;
        };
        let before = map.len();
        map.retain(|k, _| {
            !k.starts_with("garrison.dev/") && !KARMADA_BOOKKEEPING.contains(&k.as_str())
        });
        if before > 0 && map.is_empty() {
            metadata.shift_remove(field);
        }
    }
    object
}

/// An object without an empty `metadata.labels` or `metadata.annotations`:
/// the API server stores an empty map as none. (The oracle drops the
/// annotations the agent's removal of kubectl's last-applied annotation
/// leaves empty, because the agent's own annotations, which it leaves
/// out, would fill them; garrison writes them empty.)
fn without_empty_maps(mut object: Value) -> Value {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in ["labels", "annotations"] {
            if metadata
                .get(field)
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
            {
                metadata.shift_remove(field);
            }
        }
    }
    object
}

/// The field paths of the case's `fieldFormat: YAML` field patches.
fn yaml_fields(case: &Case) -> Vec<String> {
    let mut paths: Vec<String> = case
        .localizations
        .iter()
        .chain(&case.globalizations)
        .flat_map(|o| {
            o.pointer("/spec/overrides")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .filter(|c| c["fieldFormat"] == "YAML")
        .filter_map(|c| c["fieldPath"].as_str().map(str::to_string))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// `ours` with each YAML field that reads the same as `theirs`' (its text
/// aside) given `theirs`' text.
fn with_yaml_fields_as(ours: &Value, theirs: &Value, paths: &[String]) -> Value {
    let mut ours = ours.clone();
    for path in paths {
        let (Some(Value::String(a)), Some(Value::String(b))) =
            (ours.pointer(path), theirs.pointer(path))
        else {
            continue;
        };
        if a != b && read_yaml(a).is_some() && read_yaml(a) == read_yaml(b) {
            if let Some(field) = ours.pointer_mut(path) {
                *field = Value::String(b.clone());
            }
        }
    }
    ours
}

/// A YAML document as Clusternet's `yaml.YAMLToJSON` reads it (YAML 1.1:
/// `yes` is true, `0644` is octal).
fn read_yaml(text: &str) -> Option<Value> {
    let mut options = serde_saphyr::Options::default();
    options.legacy_octal_numbers = true;
    serde_saphyr::from_str_with_options(text, options).ok()
}

/// The replicas each binding cluster gets of each divided feed: the
/// oracle's `status.replicas` against garrison's binding of each template
/// the feed selects.
fn replicas(case: &Case, garrison: &Value, oracle: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let cluster_name: BTreeMap<String, String> = case
        .clusters
        .iter()
        .map(|c| {
            let text = |p: &str| c.pointer(p).and_then(Value::as_str).unwrap_or_default();
            let name = text("/metadata/name");
            (
                format!("{}/{name}", text("/metadata/namespace")),
                name.to_string(),
            )
        })
        .collect();
    for subscription in &case.subscriptions {
        let text = |p: &str| {
            subscription
                .pointer(p)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let key = format!("{}/{}", text("/metadata/namespace"), text("/metadata/name"));
        let result = &oracle["subscriptions"][&key];
        let bound: Vec<&str> = result["bindingClusters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for feed in subscription
            .pointer("/spec/feeds")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let f = |k: &str| feed[k].as_str().unwrap_or_default();
            let feed_key = match feed["namespace"].as_str().filter(|n| !n.is_empty()) {
                Some(ns) => format!("{}/{}/{ns}/{}", f("apiVersion"), f("kind"), f("name")),
                None => format!("{}/{}/{}", f("apiVersion"), f("kind"), f("name")),
            };
            let Some(shares) = result["replicas"][&feed_key]
                .as_array()
                .filter(|s| !s.is_empty())
            else {
                continue;
            };
            // The templates the feed selects, as garrison keys them.
            let templates: Vec<String> = case
                .templates
                .iter()
                .filter(|t| {
                    t["apiVersion"] == feed["apiVersion"]
                        && t["kind"] == feed["kind"]
                        && t.pointer("/metadata/name") == Some(&feed["name"])
                        && feed["namespace"].as_str().is_none_or(|ns| {
                            t.pointer("/metadata/namespace").and_then(Value::as_str) == Some(ns)
                        })
                })
                .map(|t| {
                    let text = |p: &str| t.pointer(p).and_then(Value::as_str).unwrap_or_default();
                    format!(
                        "{}/{}/{}/{}",
                        text("/apiVersion"),
                        text("/kind"),
                        text("/metadata/namespace"),
                        text("/metadata/name")
                    )
                })
                .collect();
            for template in templates {
                let binding = &garrison["bindings"][&template];
                if binding["divided"] != Value::Bool(true) {
                    found.push(format!(
                        "Subscription {key}: {template}: Clusternet divides it ({}), garrison does not",
                        Value::Array(shares.clone())
                    ));
                    continue;
                }
                for (cluster, share) in bound.iter().zip(shares) {
                    let name = cluster_name.get(*cluster).map_or(*cluster, String::as_str);
                    let ours = &binding["replicas"][name];
                    if ours != share {
                        found.push(format!(
                            "Subscription {key}: {template} on {name}: {ours} replicas against Clusternet's {share}"
                        ));
                    }
                }
            }
        }
    }
    found
}
