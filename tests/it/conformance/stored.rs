//! What a member cluster runs: every object a comparison looks at, from
//! either side, put through what a member cluster's kube-apiserver does to
//! an object it is given (`conformance/kubernetes-apiserver`, Kubernetes'
//! own decoding, defaulters and conversions), so that garrison may write
//! what the user wrote plus what changed rather than every default (SPEC
//! §10, "The API server stage"). This is the one place the comparisons
//! default objects; Karmada's and Clusternet's answers and garrison's are
//! compared only after it.
//!
//! Not done here, nor by either side: what only a live API server does,
//! allocations above all (a Service's cluster IPs, node ports and IP
//! families), uids, resource versions and timestamps. Those are live-only
//! differences (`conformance/karmada/README.md`, "The comparison").

use crate::go_program::{self, JsonLines};
use serde_json::{json, Value};
use std::path::PathBuf;

/// A running `kubernetes-apiserver` (one process for many requests).
pub struct Member(JsonLines);

/// The command, built once per test process (see `oracle.rs`).
fn built() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            go_program::build(
                "kubernetes-apiserver",
                "kubernetes-apiserver",
                "the API server stage",
                "the differential test needs Go 1.25.10 or newer (k8s.io/kubernetes' minimum)",
            )
        })
        .clone()
}

impl Member {
    pub fn start() -> Member {
        Member(JsonLines::start(&built(), &[]))
    }

    /// Each of `objects` as the member's API server stores it; an object it
    /// cannot decode (a field of the wrong type) becomes
    /// `{"refusedByTheAPIServer": "<why>"}`, which compares unequal to any
    /// stored object.
    pub fn store(&mut self, objects: &[Value]) -> Vec<Value> {
        if objects.is_empty() {
            return Vec::new();
        }
        let answer = self.0.answer(&json!({ "store": objects }));
        if let Some(stored) = answer["objects"].as_array() {
            if stored.len() == objects.len() {
                return stored.clone();
            }
        }
        if objects.len() == 1 {
            let why = answer["error"].as_str().unwrap_or("no answer");
            return vec![json!({ "refusedByTheAPIServer": why })];
        }
        // One refused object fails the whole request: ask for each alone,
        // to tell which.
        objects
            .iter()
            .flat_map(|o| self.store(std::slice::from_ref(o)))
            .collect()
    }

    /// Each of `objects` as stored, with whether the API server knows its
    /// kind; an object it refuses is `None`.
    pub fn store_known(&mut self, objects: &[Value]) -> Vec<Option<(Value, bool)>> {
        if objects.is_empty() {
            return Vec::new();
        }
        let answer = self.0.answer(&json!({ "store": objects }));
        if let (Some(stored), Some(known)) =
            (answer["objects"].as_array(), answer["known"].as_array())
        {
            if stored.len() == objects.len() && known.len() == objects.len() {
                return stored
                    .iter()
                    .zip(known)
                    .map(|(s, k)| Some((s.clone(), k.as_bool() == Some(true))))
                    .collect();
            }
        }
        if objects.len() == 1 {
            return vec![None];
        }
        objects
            .iter()
            .flat_map(|o| self.store_known(std::slice::from_ref(o)))
            .collect()
    }

    /// A Karmada answer (the oracle's or garrison's) with each Work's
    /// manifest as the member cluster stores it.
    pub fn karmada_answer(&mut self, answer: &Value) -> Value {
        let mut answer = answer.clone();
        let mut manifests = Vec::new();
        for work in works(&mut answer) {
            manifests.push(
                work.get_mut("manifest")
                    .map(Value::take)
                    .unwrap_or_default(),
            );
        }
        let stored = self.store(&manifests);
        for (work, manifest) in works(&mut answer).zip(stored) {
            if let Some(slot) = work.get_mut("manifest") {
                *slot = manifest;
            }
        }
        answer
    }

    /// A Clusternet answer (the oracle's or garrison's) with each object a
    /// cluster receives as that cluster's API server stores it.
    pub fn clusternet_answer(&mut self, answer: &Value) -> Value {
        let mut answer = answer.clone();
        let mut objects = Vec::new();
        for object in delivered(&mut answer) {
            objects.push(object.take());
        }
        let stored = self.store(&objects);
        for (object, stored) in delivered(&mut answer).zip(stored) {
            *object = stored;
        }
        answer
    }
}

/// Every Work of a Karmada answer, in order.
fn works(answer: &mut Value) -> impl Iterator<Item = &mut Value> {
    answer
        .get_mut("results")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .flat_map(|r| r.get_mut("works").and_then(Value::as_array_mut))
        .flatten()
}

/// Every object a Clusternet answer delivers, cluster by cluster.
fn delivered(answer: &mut Value) -> impl Iterator<Item = &mut Value> {
    answer
        .get_mut("clusters")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(|clusters| clusters.values_mut())
        .flat_map(|c| c.get_mut("objects").and_then(Value::as_array_mut))
        .flatten()
}
