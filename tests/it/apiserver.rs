//! garrison's API server stage (`src/apiserver`) against Kubernetes' own
//! (`conformance/kubernetes-apiserver`, Kubernetes v1.35's decoding,
//! defaulters and conversions): every object of `testdata/` (the fixtures,
//! the public corpus and `testdata/apiserver/`, written to reach every
//! defaulter) is stored by both and must come out the same. Compared
//! without what neither side is asked for: `metadata.creationTimestamp`
//! (`null` in the typed encoding) and `status`.

use crate::conformance::stored::Member;
use garrison::load::yaml::{parse_stream, Limits};
use serde_json::Value;
use std::collections::BTreeSet;

/// Every object of every YAML or JSON file under `testdata/`, once each
/// (a `List`'s items as objects of their own).
fn objects_of_testdata() -> Vec<Value> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for path in crate::corpus::files(&crate::support::testdata()) {
        // Fixtures rendered with relaxed validation on purpose keep fields
        // no schema has; Kubernetes drops those, garrison keeps them.
        if path.to_string_lossy().contains("/ok-relaxed-") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(nodes) = parse_stream(&text, &Limits::default()) else {
            continue;
        };
        for node in nodes {
            let value = node.to_value();
            let items = match value.get("items").and_then(Value::as_array) {
                Some(items) if value["kind"].as_str().is_some_and(|k| k.ends_with("List")) => {
                    items.clone()
                }
                _ => vec![value],
            };
            for item in items {
                if item.get("apiVersion").and_then(Value::as_str).is_none()
                    || item.get("kind").and_then(Value::as_str).is_none()
                {
                    continue;
                }
                if seen.insert(item.to_string()) {
                    out.push(item);
                }
            }
        }
    }
    out
}

/// What the comparison leaves out, at any depth for the timestamp.
fn comparable(mut value: Value) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(meta)) = map.get_mut("metadata") {
                    if meta.get("creationTimestamp").is_some_and(Value::is_null) {
                        meta.remove("creationTimestamp");
                    }
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    if let Some(map) = value.as_object_mut() {
        map.remove("status");
    }
    strip(&mut value);
    value
}

#[test]
fn garrison_stores_every_testdata_object_as_kubernetes_does() {
    let objects = objects_of_testdata();
    let mut member = Member::start();
    let mut stored = Vec::new();
    for chunk in objects.chunks(200) {
        stored.extend(member.store_known(chunk));
    }
    let mut differences = Vec::new();
    let mut compared = 0;
    for (object, answer) in objects.iter().zip(stored) {
        let Some((theirs, known)) = answer else {
            continue;
        };
        let mut ours = object.clone();
        let ours_known = garrison::apiserver::store(&mut ours);
        let what = format!(
            "{} {}/{}",
            object["apiVersion"].as_str().unwrap_or_default(),
            object["kind"].as_str().unwrap_or_default(),
            object["metadata"]["name"].as_str().unwrap_or_default()
        );
        if known != ours_known {
            differences.push(format!(
                "{what}: Kubernetes knows the kind: {known}, garrison: {ours_known}"
            ));
            continue;
        }
        if !known {
            continue;
        }
        compared += 1;
        let (ours, theirs) = (comparable(ours), comparable(theirs));
        if ours != theirs {
            differences.push(format!(
                "{what}:\n  garrison   {ours}\n  kubernetes {theirs}"
            ));
        }
    }
    assert!(compared > 100, "only {compared} built-in objects compared");
    assert!(
        differences.is_empty(),
        "{} of {compared} stored objects differ:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

/// A small deterministic generator (SplitMix64): the same seeds make the
/// same objects on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce5_e9b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// `value` with fields removed at random below the top level (so
/// `apiVersion`, `kind` and `metadata.name` stay): each removal leaves a
/// field for a defaulter to fill, or a struct for it to make.
fn thinned(value: &Value, rng: &mut Rng) -> Value {
    fn walk(value: &mut Value, rng: &mut Rng, depth: usize) {
        match value {
            Value::Object(map) => {
                let keys: Vec<String> = map.keys().cloned().collect();
                for key in keys {
                    let protected = depth == 0 || (depth == 1 && key == "name");
                    if !protected && rng.below(4) == 0 {
                        map.shift_remove(&key);
                    } else if let Some(inner) = map.get_mut(&key) {
                        walk(inner, rng, depth + 1);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| walk(i, rng, depth + 1)),
            _ => {}
        }
    }
    let mut value = value.clone();
    walk(&mut value, rng, 0);
    value
}

/// Random objects (issue: "test them against the Go defaulters on random
/// objects"): every built-in object of `testdata/` thinned three times
/// with fields left out at random, stored by both sides. An object
/// Kubernetes cannot decode any more is passed over.
#[test]
fn garrison_stores_thinned_objects_as_kubernetes_does() {
    let mut rng = Rng(27);
    let mut objects = Vec::new();
    for object in objects_of_testdata() {
        let mut probe = object.clone();
        if !garrison::apiserver::store(&mut probe) {
            continue;
        }
        for _ in 0..3 {
            objects.push(thinned(&object, &mut rng));
        }
    }
    let mut member = Member::start();
    let mut differences = Vec::new();
    let mut compared = 0;
    for chunk in objects.chunks(200) {
        for (object, answer) in chunk.iter().zip(member.store_known(chunk)) {
            let Some((theirs, true)) = answer else {
                continue;
            };
            let mut ours = object.clone();
            garrison::apiserver::store(&mut ours);
            compared += 1;
            let (ours, theirs) = (comparable(ours), comparable(theirs));
            if ours != theirs {
                differences.push(format!(
                    "written    {object}\n  garrison   {ours}\n  kubernetes {theirs}"
                ));
            }
        }
    }
    assert!(compared > 1000, "only {compared} thinned objects compared");
    assert!(
        differences.is_empty(),
        "{} of {compared} thinned objects differ:\n{}",
        differences.len(),
        differences.join("\n")
    );
}
