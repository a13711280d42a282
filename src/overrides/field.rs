//! `fieldOverrider`: patch a JSON or YAML document stored inside a string field
//! (typically a ConfigMap value).
//!
//! Reproduces Karmada's `applyFieldOverriders`: the value at `fieldPath` (a
//! JSON pointer, go-openapi semantics) must be a string. With `yaml` sub-ops
//! it is read as YAML, patched and written back by sigs.k8s.io/yaml (keys
//! sorted, 2-space indent, block lists not indented under their key, whole
//! numbers without a fraction, comments lost); otherwise with `json` sub-ops
//! it is patched as JSON and written compactly, keeping key order, with
//! Go's HTML escaping. An empty JSON string is left empty. With neither list
//! (refused by the webhook) the field becomes the empty string, as in Karmada.

use super::patch::{apply_patch, lookup, OpKind, PatchError, PatchOp, Reason};
use crate::model::override_policy::{FieldOverrider, SubPatch};
use serde_json::{Map, Number, Value};

/// Why a field overrider failed. The reason of a variant that has one is
/// part of its message (these end up as one-line diagnostics), so it is a
/// field, not a `source`.
#[derive(Debug, thiserror::Error)]
pub enum FieldError {
    #[error("cannot read `{path}`: {reason}")]
    Unreadable { path: String, reason: Reason },
    #[error("the value at `{path}` is not a string")]
    NotAString { path: String },
    #[error("the value is not valid JSON: {reason}")]
    InvalidJson { reason: serde_json::Error },
    /// JSON patches apply to objects and arrays only.
    #[error("the JSON value is not an object or array")]
    JsonNotAContainer,
    #[error("the value is not valid YAML: {reason}")]
    InvalidYaml { reason: serde_saphyr::Error },
    #[error("cannot write the result as YAML: {reason}")]
    YamlUnwritable {
        reason: serde_saphyr::SerializeError,
    },
    /// See [`MAX_FLOW_KEY`]; `length` counts the key as JSON writes it.
    #[error(
        "the patched YAML has a key of {length} characters (`{start}…`): Karmada writes YAML back through one-line JSON, whose keys its YAML reader takes only up to {MAX_FLOW_KEY} characters, quotes included"
    )]
    YamlKeyTooLong { start: String, length: usize },
    /// A sub-operation of the `json` or `yaml` list (`list`) failed.
    #[error("{error}")]
    SubPatch {
        list: &'static str,
        error: PatchError,
    },
}

impl FieldError {
    /// The pointer suffix within the overrider item that the fault is at
    /// (`/fieldPath`, `/json/2/subPath`, …).
    pub fn at(&self) -> String {
        match self {
            FieldError::SubPatch { list, error } => format!("/{list}/{}/subPath", error.index),
            _ => "/fieldPath".to_string(),
        }
    }
}

/// The replacement of the field's string, as a one-operation patch.
pub fn field_patch(object: &Value, overrider: &FieldOverrider) -> Result<Vec<PatchOp>, FieldError> {
    let path = &overrider.field_path;
    let current = lookup(object, path).map_err(|reason| FieldError::Unreadable {
        path: path.clone(),
        reason,
    })?;
    let Value::String(text) = current else {
        return Err(FieldError::NotAString { path: path.clone() });
    };
    let new = if !overrider.yaml.is_empty() {
        patch_yaml(text, &overrider.yaml)?
    } else if !overrider.json.is_empty() {
        patch_json(text, &overrider.json)?
    } else {
        String::new()
    };
    Ok(vec![PatchOp {
        op: OpKind::Replace,
        path: path.clone(),
        value: Some(Value::String(new)),
    }])
}

fn sub_ops(ops: &[SubPatch]) -> Vec<PatchOp> {
    ops.iter()
        .map(|o| PatchOp {
            op: o.operator.into(),
            path: o.sub_path.clone(),
            value: o.value.clone(),
        })
        .collect()
}

fn patch_json(text: &str, ops: &[SubPatch]) -> Result<String, FieldError> {
    if text.is_empty() {
        return Ok(String::new());
    }
    let mut doc: Value =
        serde_json::from_str(text).map_err(|reason| FieldError::InvalidJson { reason })?;
    if !(doc.is_object() || doc.is_array() || doc.is_null()) {
        return Err(FieldError::JsonNotAContainer);
    }
    apply_patch(&mut doc, &sub_ops(ops)).map_err(|error| FieldError::SubPatch {
        list: "json",
        error,
    })?;
    Ok(go_json(&doc))
}

fn patch_yaml(text: &str, ops: &[SubPatch]) -> Result<String, FieldError> {
    let mut options = serde_saphyr::Options::default();
    options.legacy_octal_numbers = true;
    let mut doc: Value = if text.trim().is_empty() {
        Value::Null
    } else {
        serde_saphyr::from_str_with_options(text, options)
            .map_err(|reason| FieldError::InvalidYaml { reason })?
    };
    apply_patch(&mut doc, &sub_ops(ops)).map_err(|error| FieldError::SubPatch {
        list: "yaml",
        error,
    })?;
    check_flow_keys(&doc)?;
    let mut out = serde_saphyr::to_string(&go_yaml_shape(&doc))
        .map_err(|reason| FieldError::YamlUnwritable { reason })?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

/// Karmada turns the patched document back into YAML from compact JSON
/// (`applyRawYAMLPatch`, `yaml.JSONToYAML`), whose YAML reader gives up on a
/// key that runs more than this many characters before its `:` (a simple
/// key's limit) and fails the override: "did not find expected ',' or '}'".
const MAX_FLOW_KEY: usize = 1024;

/// [`FieldError::YamlKeyTooLong`] for the first key of `value` that Karmada
/// cannot write back.
fn check_flow_keys(value: &Value) -> Result<(), FieldError> {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let length = escape_html(&Value::String(key.clone()).to_string())
                    .chars()
                    .count();
                if length > MAX_FLOW_KEY {
                    return Err(FieldError::YamlKeyTooLong {
                        start: key.chars().take(20).collect(),
                        length,
                    });
                }
                check_flow_keys(item)?;
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(check_flow_keys),
        _ => Ok(()),
    }
}

/// What sigs.k8s.io/yaml would emit: keys sorted, whole floats as integers.
pub(crate) fn go_yaml_shape(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), go_yaml_shape(v)))
                    .collect::<Map<_, _>>(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(go_yaml_shape).collect()),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
                // Exact: |f| < 2^53, so the cast neither truncates nor saturates.
                Value::Number(Number::from(f as i64))
            }
            _ => value.clone(),
        },
        other => other.clone(),
    }
}

/// Compact JSON as Go's `encoding/json` writes it: `<`, `>`, `&`, U+2028 and
/// U+2029 escaped (they can only occur inside strings).
pub fn go_json(value: &Value) -> String {
    escape_html(&value.to_string())
}

/// `<`, `>`, `&`, U+2028 and U+2029 escaped as Go's `encoding/json` escapes
/// them (in JSON text they can only occur inside strings).
pub(crate) fn escape_html(json: &str) -> String {
    // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
    if !json.bytes().any(|b| matches!(b, b'<' | b'>' | b'&' | 0xE2)) {
        return json.to_string();
    }
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::override_policy::Operator;
    use serde_json::json;

    #[test]
    fn html_characters_are_escaped_as_go_escapes_them() {
        assert_eq!(
            escape_html("{\"a\":\"<b> & \u{2028}\u{2029} \u{20ac}\"}"),
            "{\"a\":\"\\u003cb\\u003e \\u0026 \\u2028\\u2029 \u{20ac}\"}"
        );
        assert_eq!(escape_html("{\"plain\":1}"), "{\"plain\":1}");
    }

    fn sub(operator: Operator, path: &str, value: Option<Value>) -> SubPatch {
        SubPatch {
            sub_path: path.into(),
            operator,
            value,
        }
    }

    fn field(path: &str, json_ops: Vec<SubPatch>, yaml_ops: Vec<SubPatch>) -> FieldOverrider {
        FieldOverrider {
            field_path: path.into(),
            json: json_ops,
            yaml: yaml_ops,
        }
    }

    fn new_value(object: &Value, o: &FieldOverrider) -> String {
        let ops = field_patch(object, o).unwrap();
        ops[0]
            .value
            .as_ref()
            .and_then(Value::as_str)
            .unwrap()
            .to_string()
    }

    #[test]
    fn json_content_keeps_key_order_and_is_compact() {
        let object = json!({"data": {"cfg": "{\n  \"z\": 1,\n  \"a\": {\"y\": 2, \"b\": 3}\n}"}});
        let o = field(
            "/data/cfg",
            vec![
                sub(Operator::Replace, "/a/y", Some(json!(5))),
                sub(Operator::Add, "/m", Some(json!("<x&y>"))),
            ],
            vec![],
        );
        assert_eq!(
            new_value(&object, &o),
            r#"{"z":1,"a":{"y":5,"b":3},"m":"\u003cx\u0026y\u003e"}"#
        );
    }

    #[test]
    fn json_remove_keeps_order() {
        let object = json!({"data": {"cfg": r#"{"c":1,"b":2,"a":3}"#}});
        let o = field("/data/cfg", vec![sub(Operator::Remove, "/b", None)], vec![]);
        assert_eq!(new_value(&object, &o), r#"{"c":1,"a":3}"#);
    }

    #[test]
    fn yaml_content_is_rewritten_sorted_with_two_space_indent() {
        let object = json!({"data": {"config.yaml": "# comment\nserver:\n  port: 80\n  hosts:\n    - b\n    - a\nname: demo\n"}});
        let o = field(
            "/data/config.yaml",
            vec![],
            vec![
                sub(Operator::Replace, "/server/port", Some(json!(8080))),
                sub(Operator::Add, "/server/hosts/-", Some(json!("c"))),
            ],
        );
        assert_eq!(
            new_value(&object, &o),
            "name: demo\nserver:\n  hosts:\n  - b\n  - a\n  - c\n  port: 8080\n"
        );
    }

    #[test]
    fn yaml_whole_floats_lose_their_fraction_like_go() {
        let object = json!({"data": {"v": "a: 1.0\nb: 1.5\n"}});
        let o = field(
            "/data/v",
            vec![],
            vec![sub(Operator::Add, "/c", Some(json!(true)))],
        );
        assert_eq!(new_value(&object, &o), "a: 1\nb: 1.5\nc: true\n");
    }

    #[test]
    fn target_must_be_a_string() {
        let object = json!({"spec": {"replicas": 1}});
        let o = field(
            "/spec/replicas",
            vec![sub(Operator::Remove, "/a", None)],
            vec![],
        );
        let err = field_patch(&object, &o).unwrap_err();
        assert_eq!(err.at(), "/fieldPath");
        assert_eq!(
            err.to_string(),
            "the value at `/spec/replicas` is not a string"
        );
        assert!(field_patch(
            &object,
            &field(
                "/spec/missing",
                vec![sub(Operator::Remove, "/a", None)],
                vec![]
            )
        )
        .is_err());
    }

    #[test]
    fn failing_sub_op_names_its_index() {
        let object = json!({"data": {"cfg": r#"{"a":1}"#}});
        let o = field(
            "/data/cfg",
            vec![
                sub(Operator::Add, "/b", Some(json!(1))),
                sub(Operator::Replace, "/x", Some(json!(1))),
            ],
            vec![],
        );
        let err = field_patch(&object, &o).unwrap_err();
        assert_eq!(err.at(), "/json/1/subPath");
        assert_eq!(
            err.to_string(),
            "cannot `replace` `/x`: path does not exist"
        );
    }

    /// A key of 1022 characters is 1024 with its quotes, the most Karmada's
    /// JSON-to-YAML step reads; one more and the override fails there.
    #[test]
    fn a_key_too_long_for_karmadas_yaml_writer_is_an_error() {
        let object = json!({"data": {"cfg": "a: 1\n"}});
        let add = |n: usize| {
            field(
                "/data/cfg",
                vec![],
                vec![sub(
                    Operator::Add,
                    &format!("/{}", "k".repeat(n)),
                    Some(json!("v")),
                )],
            )
        };
        assert!(field_patch(&object, &add(1022)).is_ok());
        match field_patch(&object, &add(1023)) {
            Err(FieldError::YamlKeyTooLong { length, .. }) => assert_eq!(length, 1025),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn invalid_content_is_an_error() {
        let object = json!({"data": {"cfg": "{not json"}});
        assert!(field_patch(
            &object,
            &field("/data/cfg", vec![sub(Operator::Remove, "/a", None)], vec![])
        )
        .is_err());
        let object = json!({"data": {"cfg": "5"}});
        assert!(field_patch(
            &object,
            &field("/data/cfg", vec![sub(Operator::Remove, "/a", None)], vec![])
        )
        .is_err());
    }

    #[test]
    fn empty_json_string_is_left_empty_and_no_ops_empties_the_field() {
        let object = json!({"data": {"cfg": ""}});
        assert_eq!(
            new_value(
                &object,
                &field(
                    "/data/cfg",
                    vec![sub(Operator::Add, "/a", Some(json!(1)))],
                    vec![]
                )
            ),
            ""
        );
        let object = json!({"data": {"cfg": "{\"a\":1}"}});
        assert_eq!(new_value(&object, &field("/data/cfg", vec![], vec![])), "");
    }
}
