//! `labelsOverrider` / `annotationsOverrider`: edit `metadata.labels` or `metadata.annotations`.
//!
//! Reproduces Karmada's `labelannotationoverrider.go`: only the top-level
//! metadata map is touched. `add` first creates the map when it is missing
//! (or not a map) and then sets each key; `replace` and `remove` only act on
//! keys that exist (`remove` ignores the values). Keys have `/` escaped as
//! `~1` in the patch path. Keys are visited in sorted order.

use super::patch::PatchOp;
use crate::model::override_policy::{LabelAnnotationOverrider, Operator};
use serde_json::{Map, Value};

/// Which metadata map an overrider edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetaMap {
    Labels,
    Annotations,
}

impl MetaMap {
    fn field(self) -> &'static str {
        match self {
            MetaMap::Labels => "labels",
            MetaMap::Annotations => "annotations",
        }
    }
}

/// The patch for one overrider. For `add` the map may first be created on
/// `object` (as Karmada does before patching), which is why it takes `&mut`.
pub fn metadata_patch(
    object: &mut Value,
    which: MetaMap,
    overrider: &LabelAnnotationOverrider,
) -> Vec<PatchOp> {
    let field = which.field();
    let mut ops = Vec::new();
    let Some(values) = &overrider.value else {
        return ops;
    };
    for (key, value) in values {
        let exists = match overrider.operator {
            Operator::Remove | Operator::Replace => object
                .get("metadata")
                .and_then(|m| m.get(field))
                .and_then(Value::as_object)
                .is_some_and(|m| m.contains_key(key)),
            Operator::Add => ensure_map(object, field),
        };
        if !exists {
            continue;
        }
        ops.push(PatchOp {
            op: overrider.operator.into(),
            path: format!("/metadata/{field}/{}", key.replace('/', "~1")),
            value: Some(Value::String(value.clone())),
        });
    }
    ops
}

/// Makes `metadata.<field>` a map (creating `metadata` if needed); false when
/// `metadata` exists but is not a map, in which case Karmada skips the key.
fn ensure_map(object: &mut Value, field: &str) -> bool {
    let Some(root) = object.as_object_mut() else {
        return false;
    };
    let metadata = root
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return false;
    };
    let slot = metadata.entry(field).or_insert(Value::Null);
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::overrides::patch::apply_patch;
    use serde_json::json;

    fn overrider(operator: Operator, pairs: &[(&str, &str)]) -> LabelAnnotationOverrider {
        LabelAnnotationOverrider {
            operator,
            value: Some(
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
        }
    }

    fn run(mut object: Value, which: MetaMap, o: &LabelAnnotationOverrider) -> Value {
        let ops = metadata_patch(&mut object, which, o);
        apply_patch(&mut object, &ops).unwrap();
        object
    }

    #[test]
    fn add_creates_the_map_when_missing() {
        let out = run(
            json!({"metadata": {"name": "x"}}),
            MetaMap::Labels,
            &overrider(Operator::Add, &[("app", "web")]),
        );
        assert_eq!(
            out,
            json!({"metadata": {"name": "x", "labels": {"app": "web"}}})
        );
        let out = run(
            json!({"kind": "A"}),
            MetaMap::Annotations,
            &overrider(Operator::Add, &[("a", "b")]),
        );
        assert_eq!(
            out,
            json!({"kind": "A", "metadata": {"annotations": {"a": "b"}}})
        );
    }

    #[test]
    fn add_overwrites_existing_keys_in_place() {
        let out = run(
            json!({"metadata": {"labels": {"a": "1", "b": "2"}}}),
            MetaMap::Labels,
            &overrider(Operator::Add, &[("a", "9"), ("c", "3")]),
        );
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"metadata":{"labels":{"a":"9","b":"2","c":"3"}}}"#
        );
    }

    #[test]
    fn replace_and_remove_touch_only_existing_keys() {
        let object = json!({"metadata": {"labels": {"a": "1", "b": "2", "c": "3"}}});
        let out = run(
            object.clone(),
            MetaMap::Labels,
            &overrider(Operator::Replace, &[("a", "x"), ("z", "y")]),
        );
        assert_eq!(
            out,
            json!({"metadata": {"labels": {"a": "x", "b": "2", "c": "3"}}})
        );
        let out = run(
            object,
            MetaMap::Labels,
            &overrider(Operator::Remove, &[("b", "ignored"), ("z", "")]),
        );
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"metadata":{"labels":{"a":"1","c":"3"}}}"#
        );
        let out = run(
            json!({"metadata": {}}),
            MetaMap::Labels,
            &overrider(Operator::Replace, &[("a", "x")]),
        );
        assert_eq!(out, json!({"metadata": {}}));
    }

    #[test]
    fn slash_in_keys_is_escaped() {
        let mut object = json!({"metadata": {"annotations": {"app.kubernetes.io/name": "a"}}});
        let ops = metadata_patch(
            &mut object,
            MetaMap::Annotations,
            &overrider(Operator::Replace, &[("app.kubernetes.io/name", "b")]),
        );
        assert_eq!(ops[0].path, "/metadata/annotations/app.kubernetes.io~1name");
        apply_patch(&mut object, &ops).unwrap();
        assert_eq!(
            object,
            json!({"metadata": {"annotations": {"app.kubernetes.io/name": "b"}}})
        );
    }

    #[test]
    fn absent_value_does_nothing() {
        let mut object = json!({"metadata": {}});
        let o = LabelAnnotationOverrider {
            operator: Operator::Add,
            value: None,
        };
        assert!(metadata_patch(&mut object, MetaMap::Labels, &o).is_empty());
        assert_eq!(object, json!({"metadata": {}}));
    }
}
