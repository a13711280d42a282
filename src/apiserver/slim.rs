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
    candidates.retain(|path| !keep.iter().any(|k| under(path, k)));
    let mut restores = Vec::new();
    dropped(made, stored, written, &mut Vec::new(), &mut restores);
    if candidates.is_empty() && restores.is_empty() {
        return made.clone();
    }
    let mut target = made.clone();
    store(&mut target);
    if !restores.is_empty() {
        let mut slimmed = made.clone();
        for path in &candidates {
            remove(&mut slimmed, path);
        }
        for (path, value) in &restores {
            restore(&mut slimmed, path, value);
        }
        let mut again = slimmed.clone();
        store(&mut again);
        if again == target {
            return slimmed;
        }
    }
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

/// What the user wrote that storing drops or rewrites (an empty env
/// `value`, a `false` Go leaves out, a Secret's `stringData` folded into
/// `data`) and the plan did not touch: put back, the file reads as written.
/// Not in `metadata` or `status`, which the plan's own steps prune.
fn dropped(
    made: &Value,
    stored: &Value,
    written: &Value,
    path: &mut Vec<Step>,
    out: &mut Vec<(Vec<Step>, Value)>,
) {
    match (made, stored, written) {
        (Value::Object(made), Value::Object(stored), Value::Object(written)) => {
            for (key, written_value) in written {
                if path.is_empty() && (key == "metadata" || key == "status") {
                    continue;
                }
                path.push(Step::Key(key.clone()));
                match (made.get(key), stored.get(key)) {
                    (None, None) => out.push((path.clone(), written_value.clone())),
                    (Some(made_value), Some(stored_value)) => {
                        dropped(made_value, stored_value, written_value, path, out)
                    }
                    _ => {}
                }
                path.pop();
            }
        }
        (Value::Array(made), Value::Array(stored), Value::Array(written))
            if made.len() == stored.len() && stored.len() == written.len() =>
        {
            for (i, ((made_value, stored_value), written_value)) in
                made.iter().zip(stored).zip(written).enumerate()
            {
                path.push(Step::Index(i));
                dropped(made_value, stored_value, written_value, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Sets the mapping entry at `path` to `restored`, when its parent exists.
fn restore(value: &mut Value, path: &[Step], restored: &Value) {
    if let Some((map, last)) = parent(value, path) {
        map.insert(last.clone(), restored.clone());
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
    if let Some((map, last)) = parent(value, path) {
        Map::shift_remove(map, last);
    }
}

/// The mapping holding the entry at `path`, and the entry's key, when the
/// mapping exists.
fn parent<'v, 'p>(
    value: &'v mut Value,
    path: &'p [Step],
) -> Option<(&'v mut Map<String, Value>, &'p String)> {
    let (Step::Key(last), parents) = path.split_last()? else {
        return None;
    };
    let mut current = value;
    for step in parents {
        current = match step {
            Step::Key(key) => current.get_mut(key)?,
            Step::Index(i) => current.get_mut(*i)?,
        };
    }
    Some((current.as_object_mut()?, last))
}

/// Whether `path` is the JSON pointer `pointer` (RFC 6901) or under it,
/// step by step and without building the path's own pointer: this runs for
/// every default of every object.
fn under(path: &[Step], pointer: &str) -> bool {
    let mut steps = path.iter();
    pointer
        .split('/')
        .skip(1)
        .all(|segment| steps.next().is_some_and(|step| names(step, segment)))
}

/// Whether one step of a path is the pointer's `segment`.
fn names(step: &Step, segment: &str) -> bool {
    match step {
        // Without `~` the segment escapes nothing, and a key holding `/`
        // or `~` would have been escaped with one.
        Step::Key(key) if !segment.contains('~') => key == segment,
        Step::Key(key) => key.replace('~', "~0").replace('/', "~1") == segment,
        Step::Index(i) => {
            segment.bytes().all(|b| b.is_ascii_digit())
                && (segment == "0" || !segment.starts_with('0'))
                && segment.parse::<usize>().ok() == Some(*i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stored(written: &Value) -> Value {
        let mut value = written.clone();
        store(&mut value);
        value
    }

    fn deployment(container: Value) -> Value {
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [container]}
                }
            }
        })
    }

    #[test]
    fn an_unchanged_stored_template_is_written_as_the_user_wrote_it() {
        let written = deployment(json!({"name": "web", "image": "nginx:1.27"}));
        let stored = stored(&written);
        assert_ne!(stored, written, "the Deployment has defaults");
        assert_eq!(slim(&stored, &stored, &written, &[]), written);
    }

    #[test]
    fn a_default_the_plan_changed_is_written() {
        let written = deployment(json!({"name": "web", "image": "nginx:1.27"}));
        let stored = stored(&written);
        let mut made = stored.clone();
        made["spec"]["revisionHistoryLimit"] = json!(3);
        let slimmed = slim(&made, &stored, &written, &[]);
        assert_eq!(slimmed["spec"]["revisionHistoryLimit"], json!(3));
        assert!(slimmed["spec"].get("progressDeadlineSeconds").is_none());
    }

    /// Karmada sets `imagePullPolicy` from the tag the template's image
    /// has; an image override to `:latest` afterwards keeps
    /// `IfNotPresent`, which the member would otherwise default to
    /// `Always`.
    #[test]
    fn a_default_an_override_made_stale_is_written() {
        let written = deployment(json!({"name": "web", "image": "nginx:1.27"}));
        let stored = stored(&written);
        let mut made = stored.clone();
        made["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx");
        let slimmed = slim(&made, &stored, &written, &[]);
        let container = &slimmed["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["imagePullPolicy"], json!("IfNotPresent"));
        assert!(container.get("terminationMessagePath").is_none());
        let (mut theirs, mut ours) = (made.clone(), slimmed.clone());
        store(&mut theirs);
        store(&mut ours);
        assert_eq!(ours, theirs);
    }

    /// What storing drops or rewrites comes back as written when the
    /// member cluster stores the same either way.
    #[test]
    fn what_storing_drops_is_written_back() {
        let written = deployment(
            json!({"name": "web", "image": "nginx:1.27", "env": [{"name": "EMPTY", "value": ""}]}),
        );
        let stored = stored(&written);
        assert!(stored
            .pointer("/spec/template/spec/containers/0/env/0/value")
            .is_none());
        assert_eq!(slim(&stored, &stored, &written, &[]), written);
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"token": "x"}});
        let stored = super::tests::stored(&secret);
        assert!(stored.get("stringData").is_none());
        assert_eq!(slim(&stored, &stored, &secret, &[]), secret);
    }

    #[test]
    fn a_path_is_under_a_pointer_step_by_step() {
        let key = |k: &str| Step::Key(k.to_string());
        let path = [key("spec"), key("a/b~c"), Step::Index(10), key("x")];
        for (pointer, expected) in [
            ("", true),
            ("/spec", true),
            ("/spec/a~1b~0c", true),
            ("/spec/a~1b~0c/10", true),
            ("/spec/a~1b~0c/10/x", true),
            ("/spec/a~1b~0c/10/x/y", false),
            ("/spec/a/b~c", false),
            ("/spec/a~1b~0c/010", false),
            ("/spec/a~1b~0c/+10", false),
            ("/spe", false),
            ("/spec/a~1b~0c/1", false),
        ] {
            assert_eq!(under(&path, pointer), expected, "{pointer}");
        }
    }

    #[test]
    fn what_keep_points_at_is_written_even_when_it_is_the_default() {
        let written = deployment(json!({"name": "web", "image": "nginx:1.27"}));
        let stored = stored(&written);
        let slimmed = slim(&stored, &stored, &written, &["/spec/replicas"]);
        assert_eq!(slimmed["spec"]["replicas"], json!(1));
        assert!(slimmed["spec"].get("strategy").is_none());
    }

    #[test]
    fn a_namespace_is_written_without_the_label_its_api_server_sets() {
        let written = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {"team": "a"}}});
        let stored = stored(&written);
        assert_eq!(
            stored["metadata"]["labels"]["kubernetes.io/metadata.name"],
            json!("shop")
        );
        assert_eq!(slim(&stored, &stored, &written, &[]), written);
    }
}
