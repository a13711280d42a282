//! What garrison writes of a stored object: what the user wrote, plus what
//! the plan changed, without the defaults a member cluster's API server
//! sets again. Karmada's Work carries the stored template with every
//! default; a member cluster that receives garrison's smaller object
//! stores exactly what it would store from Karmada's (SPEC §10, "The API
//! server stage"), and a repository's rendered files stay readable.
//!
//! A default is left out only when it is proven to come back: the object
//! without it, stored, equals the object with it, stored. A default the
//! plan made stale (an image override after `imagePullPolicy` was set from
//! the old image's tag, a Service's type patched to one its defaulted
//! traffic policy no longer follows from) does not come back the same and
//! is written.

use super::store;
use serde_json::{Map, Value};

/// `made` (the stored template `stored`, changed by the plan) without what
/// storing it again sets back. Only what the user did not write
/// (`written`) is left out, and never what `keep` points at (JSON
/// pointers the plan writes on purpose, such as revised replicas).
pub fn slim(made: &Value, stored: &Value, written: &Value, keep: &[&str]) -> Value {
    let mut candidates = Vec::new();
    defaulted(made, stored, written, &mut Vec::new(), &mut candidates);
    candidates.retain(|path| {
        let pointer = pointer(path);
        !keep
            .iter()
            .any(|k| pointer == *k || pointer.starts_with(&format!("{k}/")))
    });
    if candidates.is_empty() {
        return made.clone();
    }
    let mut target = made.clone();
    store(&mut target);
    loop {
        let mut slimmed = made.clone();
        for path in &candidates {
            remove(&mut slimmed, path);
        }
        let mut again = slimmed.clone();
        store(&mut again);
        if again == target {
            return slimmed;
        }
        let before = candidates.len();
        candidates.retain(|path| at(&again, path) == at(&target, path));
        if candidates.len() == before {
            // Storing it again differs somewhere no left-out default is:
            // write the object whole rather than guess.
            return made.clone();
        }
        if candidates.is_empty() {
            return made.clone();
        }
    }
}

/// One step of a path: a mapping's key or a sequence's index.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The paths the API server added to `written` (present in `stored`,
/// absent from `written`) whose value `made` still holds unchanged; where
/// the plan changed such a subtree, the unchanged defaults inside it.
fn defaulted(
    made: &Value,
    stored: &Value,
    written: &Value,
    path: &mut Vec<Step>,
    out: &mut Vec<Vec<Step>>,
) {
    match (made, stored) {
        (Value::Object(made), Value::Object(stored)) => {
            let written = written.as_object();
            for (key, stored_value) in stored {
                let Some(made_value) = made.get(key) else {
                    continue;
                };
                path.push(Step::Key(key.clone()));
                match written.and_then(|w| w.get(key)) {
                    None if made_value == stored_value => out.push(path.clone()),
                    None => defaulted(made_value, stored_value, &Value::Null, path, out),
                    Some(written_value) => {
                        defaulted(made_value, stored_value, written_value, path, out)
                    }
                }
                path.pop();
            }
        }
        (Value::Array(made), Value::Array(stored)) => {
            let written = written.as_array();
            if written.is_some_and(|w| w.len() != stored.len()) || made.len() != stored.len() {
                return;
            }
            for (i, (made_value, stored_value)) in made.iter().zip(stored).enumerate() {
                path.push(Step::Index(i));
                let written_value = written.and_then(|w| w.get(i)).unwrap_or(&Value::Null);
                defaulted(made_value, stored_value, written_value, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The value at `path`, if any.
fn at<'v>(value: &'v Value, path: &[Step]) -> Option<&'v Value> {
    path.iter().try_fold(value, |value, step| match step {
        Step::Key(key) => value.get(key),
        Step::Index(i) => value.get(i),
    })
}

/// Removes the mapping entry at `path` (paths always end in a key: a
/// default is a field, never a sequence's element).
fn remove(value: &mut Value, path: &[Step]) {
    let Some((Step::Key(last), parents)) = path.split_last() else {
        return;
    };
    let mut current = value;
    for step in parents {
        let next = match step {
            Step::Key(key) => current.get_mut(key),
            Step::Index(i) => current.get_mut(*i),
        };
        let Some(next) = next else {
            return;
        };
        current = next;
    }
    if let Some(map) = current.as_object_mut() {
        Map::shift_remove(map, last);
    }
}

/// `path` as a JSON pointer (RFC 6901).
fn pointer(path: &[Step]) -> String {
    path.iter()
        .map(|step| match step {
            Step::Key(key) => format!("/{}", key.replace('~', "~0").replace('/', "~1")),
            Step::Index(i) => format!("/{i}"),
        })
        .collect()
}
