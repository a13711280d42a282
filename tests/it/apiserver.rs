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

/// `stored` (Kubernetes' stored form of `written`) with some of the
/// defaults it added taken out again, at random: an object written with
/// part of its defaults spelt out, as users write them (a strategy `type`
/// without `rollingUpdate`, a probe with only `periodSeconds`). What the
/// user wrote stays, so the object stays as valid as the fixture.
fn partly_defaulted(stored: &Value, written: &Value, rng: &mut Rng) -> Value {
    fn walk(stored: &mut Value, written: Option<&Value>, rng: &mut Rng) {
        match stored {
            Value::Object(map) => {
                let keys: Vec<String> = map.keys().cloned().collect();
                for key in keys {
                    let written_value = written.and_then(|w| w.get(&key));
                    // An empty string is what Go writes for a required
                    // field left out, not a default.
                    let zero = map.get(&key).is_some_and(|v| v == "");
                    if written_value.is_none() && !zero && rng.below(2) == 0 {
                        map.shift_remove(&key);
                    } else if let Some(inner) = map.get_mut(&key) {
                        walk(inner, written_value, rng);
                    }
                }
            }
            // A list a defaulter made (an HPA's default policies) is one
            // default: its items are kept whole.
            Value::Array(_) if written.is_none() => {}
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    // An item a defaulter added is kept whole too.
                    if let Some(written_item) = written.and_then(|w| w.get(i)) {
                        walk(item, Some(written_item), rng);
                    }
                }
            }
            _ => {}
        }
    }
    let mut value = stored.clone();
    if let Some(map) = value.as_object_mut() {
        map.remove("status");
        if let Some(Value::Object(meta)) = map.get_mut("metadata") {
            meta.remove("creationTimestamp");
        }
    }
    walk(&mut value, Some(written), rng);
    value
}

/// Random objects (issue 27: "test them against the Go defaulters on
/// random objects"): every built-in object of `testdata/`, stored by
/// Kubernetes, with its defaults partly taken out again, three times at
/// random, stored by both sides.
#[test]
fn garrison_stores_partly_defaulted_objects_as_kubernetes_does() {
    let mut rng = Rng(27);
    let written = objects_of_testdata();
    let mut member = Member::start();
    let mut objects = Vec::new();
    for chunk in written.chunks(200) {
        for (object, answer) in chunk.iter().zip(member.store_known(chunk)) {
            if let Some((stored, true)) = answer {
                for _ in 0..3 {
                    objects.push(partly_defaulted(&stored, object, &mut rng));
                }
            }
        }
    }
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
    assert!(
        compared > 1000,
        "only {compared} partly defaulted objects compared"
    );
    assert!(
        differences.is_empty(),
        "{} of {compared} partly defaulted objects differ:\n{}",
        differences.len(),
        differences.join("\n")
    );
}
