//! Clusternet's override types (clusternet-semantics §5): one
//! `OverrideConfig` of a Localization or Globalization applied to an object
//! as Clusternet's localizer applies it (`applyOverrides`).
//!
//! Clusternet patches with evanphx/json-patch's original API (the
//! `+incompatible` v5.7.0 module), whose rules differ from the v5 API
//! Karmada uses: `replace` of a key an object lacks adds it, and an
//! operation that hits a missing path (`ErrMissing`) drops the whole patch,
//! the object left as it was, where every other fault fails the object.
//! MergePatch is RFC 7386 as that module merges: `null` deletes, a nested
//! object merges, anything else replaces, and a value that lands where
//! nothing was has its nested `null`s pruned. Helm values merge into a
//! plain object as Helm coalesces tables (the override wins). Field
//! patches (`FieldJSONPatch`, `FieldMergePatch`) patch the JSON or YAML
//! text inside a string field and write it back: JSON with sorted keys and
//! a four-space indent, as Clusternet writes it; YAML with sorted keys in
//! garrison's YAML style (Clusternet writes go-yaml's; both read the same).
//!
//! garrison keeps the object's key order; Clusternet's patch library
//! re-serialises objects with sorted keys, which no reader can tell apart.

use super::field::{escape_html, go_json, go_yaml_shape};
use super::patch::Change;
use crate::model::clusternet::{FieldFormat, OverrideConfig, OverrideType};
use crate::model::override_policy::sort_keys;
use serde_json::{Map, Value};

/// What one override did.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Applied; what changed (nothing, when the patch changed nothing).
    Applied(Vec<Change>),
    /// Not applied, as Clusternet does not apply it (a blank value, or the
    /// first `overrideChart` override of a plain object).
    Skipped(&'static str),
    /// A JSONPatch operation hit a missing path: the whole patch is
    /// dropped, as Clusternet drops it.
    Dropped(String),
}

/// Apply `config` to `object`. `chart_seen` carries, across the overrides
/// of one object, whether an `overrideChart` override was met (Clusternet
/// sets its chart result aside on the first and patches the object itself
/// on later ones). An error fails the object, as it fails Clusternet's
/// Description; the object is then unchanged.
pub fn apply(
    object: &mut Value,
    config: &OverrideConfig,
    chart_seen: &mut bool,
) -> Result<Outcome, String> {
    if config.value.trim().is_empty() {
        return Ok(Outcome::Skipped("its value is blank"));
    }
    let value = yaml_to_json(&config.value)?;
    if config.override_chart == Some(true) && !*chart_seen {
        *chart_seen = true;
        return Ok(Outcome::Skipped(
            "the first `overrideChart` override patches a chart, not the object",
        ));
    }
    let before = object.clone();
    let result = match config.kind {
        OverrideType::Helm if config.override_chart == Some(true) => {
            return Ok(Outcome::Skipped("it patches a chart"))
        }
        OverrideType::Helm => helm_coalesce(object, &value).map(|()| None),
        OverrideType::JSONPatch => json_patch(object, &value),
        OverrideType::MergePatch => merge_patch(object, &value).map(|()| None),
        OverrideType::FieldJSONPatch | OverrideType::FieldMergePatch => {
            field_patch(object, config, &value)
        }
    };
    match result {
        Ok(Some(dropped)) => Ok(Outcome::Dropped(dropped)),
        Ok(None) => Ok(Outcome::Applied(diff(&before, object))),
        Err(e) => {
            *object = before;
            Err(e)
        }
    }
}

/// An override's value, or a field's text: YAML or JSON, read as
/// Clusternet's `yaml.YAMLToJSON` reads it, which is kubectl's YAML 1.1
/// reading: `yes` is true, `0644` is 420, and a plain key such as `on` or
/// `1` becomes the string of what it reads as (`"true"`, `"1"`).
fn yaml_to_json(text: &str) -> Result<Value, String> {
    let docs = crate::yaml::parse_stream(text, &crate::yaml::Limits::default())
        .map_err(|e| format!("the value is not valid YAML or JSON: {}", e.message))?;
    match docs.as_slice() {
        [] => Ok(Value::Null),
        [one] => {
            if let Some(key) = met_keys(one) {
                // Clusternet's reader (sigs.k8s.io/yaml over go-yaml v2,
                // not strict) keeps the later entry and drops the other
                // without a word; garrison refuses the silent drop.
                return Err(format!("two keys of one mapping both read as `{key}` (YAML 1.1 reads `on`, `yes` and `true` alike); Clusternet keeps the later entry and silently drops the other: quote them or keep one"));
            }
            Ok(one.to_value())
        }
        _ => Err("the value holds more than one YAML document".into()),
    }
}

/// A key two entries of one mapping share once read (`on` and `yes`).
fn met_keys(node: &crate::node::Node) -> Option<String> {
    use crate::node::NodeKind;
    match &node.kind {
        NodeKind::Map(entries) => {
            let mut seen = std::collections::BTreeSet::new();
            entries.iter().find_map(|(key, _, value)| {
                if seen.insert(key.as_str()) {
                    met_keys(value)
                } else {
                    Some(key.clone())
                }
            })
        }
        NodeKind::Seq(items) => items.iter().find_map(met_keys),
        _ => None,
    }
}

/// `JSONPatch`: `Some(reason)` when the patch is dropped for a missing path.
fn json_patch(object: &mut Value, patch: &Value) -> Result<Option<String>, String> {
    let ops = patch
        .as_array()
        .ok_or("a JSONPatch value is a list of operations")?;
    if ops.len() > 10_000 {
        return Err(format!(
            "a JSONPatch may hold at most 10000 operations, this one holds {}",
            ops.len()
        ));
    }
    let mut doc = object.clone();
    for (i, op) in ops.iter().enumerate() {
        match apply_op(&mut doc, op) {
            Ok(()) => {}
            Err(Fault::Missing(why)) => return Ok(Some(format!("operation {i}: {why}"))),
            Err(Fault::Failed(why)) => return Err(format!("operation {i}: {why}")),
        }
    }
    *object = doc;
    Ok(None)
}

/// Why one operation failed: a missing path (the patch is dropped) or
/// anything else (the object fails).
enum Fault {
    Missing(String),
    Failed(String),
}

fn missing(why: impl Into<String>) -> Fault {
    Fault::Missing(why.into())
}

fn failed(why: impl Into<String>) -> Fault {
    Fault::Failed(why.into())
}

/// One RFC 6902 operation, with evanphx/json-patch's original rules.
fn apply_op(doc: &mut Value, op: &Value) -> Result<(), Fault> {
    let op = op
        .as_object()
        .ok_or_else(|| failed("an operation is an object"))?;
    let kind = op.get("op").and_then(Value::as_str).unwrap_or("");
    let path = op
        .get("path")
        .and_then(Value::as_str)
        .ok_or_else(|| failed("the operation has no `path`"))?;
    if !path.is_empty() && !path.starts_with('/') {
        return Err(failed(format!("`{path}` does not start with `/`")));
    }
    let value = || op.get("value").cloned().unwrap_or(Value::Null);
    let from = || {
        op.get("from")
            .and_then(Value::as_str)
            .ok_or_else(|| failed("the operation has no `from`"))
    };
    match kind {
        "add" => add(doc, path, value()),
        "remove" => remove(doc, path).map(drop),
        "replace" => replace(doc, path, value()),
        "move" => {
            let moved = remove(doc, from()?)?;
            add(doc, path, moved)
        }
        "copy" => {
            let copied = get(doc, from()?)?;
            add(doc, path, copied)
        }
        "test" => test(doc, path, &value()),
        other => Err(failed(format!("unknown operation `{other}`"))),
    }
}

/// The container holding the last token of `path`, and that token
/// (evanphx's `findObject`): every token before it must name an object or
/// array, else the path is missing.
fn parent<'d>(doc: &'d mut Value, path: &str) -> Result<(&'d mut Value, String), Fault> {
    let tokens: Vec<String> = path.split('/').map(unescape).collect();
    let Some((last, inner)) = tokens.split_last().filter(|_| tokens.len() >= 2) else {
        return Err(missing(format!("`{path}` is not a path into the object")));
    };
    let mut node = doc;
    for token in inner.iter().skip(1) {
        let next = match node {
            Value::Object(map) => map.get_mut(token),
            Value::Array(items) => index(token, items.len())
                .ok()
                .and_then(move |i| items.get_mut(i)),
            _ => None,
        };
        node = match next {
            Some(n @ (Value::Object(_) | Value::Array(_))) => n,
            _ => return Err(missing(format!("`{path}` does not exist"))),
        };
    }
    Ok((node, last.clone()))
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// An existing element's index: Go's `Atoi`, negative counting from the end.
fn index(token: &str, len: usize) -> Result<usize, String> {
    let idx: i64 = token
        .parse()
        .map_err(|_| format!("`{token}` is not an array index"))?;
    let len = i64::try_from(len).unwrap_or(i64::MAX);
    let resolved = if idx < 0 { idx + len } else { idx };
    if resolved < 0 || resolved >= len {
        return Err(format!("index {idx} is out of range"));
    }
    usize::try_from(resolved).map_err(|_| format!("index {idx} is out of range"))
}

fn add(doc: &mut Value, path: &str, value: Value) -> Result<(), Fault> {
    let (container, key) = parent(doc, path)?;
    match container {
        Value::Object(map) => {
            map.insert(key, value);
            Ok(())
        }
        Value::Array(items) => {
            if key == "-" {
                items.push(value);
                return Ok(());
            }
            // Inserting may address one past the end.
            let at = index(&key, items.len() + 1).map_err(failed)?;
            items.insert(at, value);
            Ok(())
        }
        _ => Err(missing(format!("`{path}` does not exist"))),
    }
}

fn remove(doc: &mut Value, path: &str) -> Result<Value, Fault> {
    let (container, key) = parent(doc, path)?;
    match container {
        Value::Object(map) => map
            .shift_remove(&key)
            .ok_or_else(|| missing(format!("`{path}` does not exist"))),
        Value::Array(items) => {
            let at = index(&key, items.len()).map_err(failed)?;
            Ok(items.remove(at))
        }
        _ => Err(missing(format!("`{path}` does not exist"))),
    }
}

/// `replace`: at the root the whole document; on an object the key is set
/// whether or not it was there (the original API's rule); on an array the
/// element must exist, else the path is missing.
fn replace(doc: &mut Value, path: &str, value: Value) -> Result<(), Fault> {
    if path.is_empty() {
        if !(value.is_object() || value.is_array()) {
            return Err(failed("replacing the whole object needs an object"));
        }
        *doc = value;
        return Ok(());
    }
    let (container, key) = parent(doc, path)?;
    match container {
        Value::Object(map) => {
            map.insert(key, value);
            Ok(())
        }
        Value::Array(items) => {
            let at = index(&key, items.len()).map_err(missing)?;
            items[at] = value;
            Ok(())
        }
        _ => Err(missing(format!("`{path}` does not exist"))),
    }
}

/// `copy`'s source: a key an object lacks reads as `null`.
fn get(doc: &mut Value, path: &str) -> Result<Value, Fault> {
    let (container, key) = parent(doc, path)?;
    match container {
        Value::Object(map) => Ok(map.get(&key).cloned().unwrap_or(Value::Null)),
        Value::Array(items) => {
            let at = index(&key, items.len()).map_err(failed)?;
            Ok(items[at].clone())
        }
        _ => Err(missing(format!("`{path}` does not exist"))),
    }
}

/// `test`: a key an object lacks passes against `null`.
fn test(doc: &mut Value, path: &str, expected: &Value) -> Result<(), Fault> {
    let actual = if path.is_empty() {
        doc.clone()
    } else {
        get(doc, path)?
    };
    if &actual == expected {
        Ok(())
    } else {
        Err(failed(format!("test of `{path}` failed: it is {actual}")))
    }
}

/// `MergePatch` on the object: the patch must be an object, as the object
/// must stay one.
fn merge_patch(object: &mut Value, patch: &Value) -> Result<(), String> {
    let Value::Object(patch) = patch else {
        return Err(
            "a MergePatch value is an object (a list or scalar would replace the whole object)"
                .into(),
        );
    };
    let Value::Object(doc) = object else {
        return Err("the object is not a JSON object".into());
    };
    merge_objects(doc, patch);
    Ok(())
}

/// RFC 7386 as evanphx/json-patch merges two objects.
fn merge_objects(doc: &mut Map<String, Value>, patch: &Map<String, Value>) {
    for (key, value) in patch {
        if value.is_null() {
            doc.shift_remove(key);
            continue;
        }
        match (doc.get_mut(key), value) {
            (Some(Value::Object(current)), Value::Object(nested)) => merge_objects(current, nested),
            (Some(current @ Value::Object(_)), _) => *current = value.clone(),
            _ => {
                let mut pruned = value.clone();
                prune_nulls(&mut pruned);
                doc.insert(key.clone(), pruned);
            }
        }
    }
}

/// Drops `null` members of objects, however deep (arrays keep their
/// `null` items, and their objects are pruned).
fn prune_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(prune_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(prune_nulls),
        _ => {}
    }
}

/// `Helm` on a plain object: Helm's `CoalesceTables` with the override
/// as the destination: the override's values win, a `null` in it deletes
/// the key, and tables merge. The object's keys keep their order; keys
/// only the override has follow.
fn helm_coalesce(object: &mut Value, values: &Value) -> Result<(), String> {
    let Value::Object(values) = values else {
        return Err("a Helm override's value is a map of values".into());
    };
    let Value::Object(current) = object else {
        return Err("the object is not a JSON object".into());
    };
    coalesce(current, values);
    Ok(())
}

fn coalesce(current: &mut Map<String, Value>, values: &Map<String, Value>) {
    for (key, value) in values {
        match (current.get_mut(key), value) {
            (Some(_), Value::Null) => {
                current.shift_remove(key);
            }
            (Some(Value::Object(c)), Value::Object(v)) => coalesce(c, v),
            (Some(c), v) => *c = v.clone(),
            (None, v) => {
                current.insert(key.clone(), v.clone());
            }
        }
    }
}

/// `FieldJSONPatch` / `FieldMergePatch`: the string at `fieldPath` parsed
/// as `fieldFormat`, patched, and written back. A missing field or one that
/// is not a string fails; an empty string is left alone; a JSONPatch that
/// hits a missing path inside the field leaves its text (JSON) or its
/// re-serialised YAML as Clusternet does.
fn field_patch(
    object: &mut Value,
    config: &OverrideConfig,
    patch: &Value,
) -> Result<Option<String>, String> {
    let path = config.field_path.as_deref().unwrap_or("");
    let format = config
        .field_format
        .ok_or("a field patch needs a `fieldFormat`")?;
    let text = match object.pointer(path) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => return Err(format!("`{path}` is not a string but {other}")),
        None => return Err(format!("`{path}` does not exist")),
    };
    if text.is_empty() {
        return Ok(None);
    }
    let mut field = match format {
        FieldFormat::Json => serde_json::from_str::<Value>(&text)
            .map_err(|e| format!("`{path}` is not valid JSON: {e}"))?,
        FieldFormat::Yaml => yaml_to_json(&text).map_err(|e| format!("`{path}`: {e}"))?,
    };
    let mut dropped = None;
    if config.kind == OverrideType::FieldJSONPatch {
        dropped = json_patch(&mut field, patch)?;
        if dropped.is_some() && format == FieldFormat::Json {
            return Ok(dropped);
        }
    } else {
        merge_patch(&mut field, patch).map_err(|e| format!("`{path}`: {e}"))?;
        if format == FieldFormat::Json {
            // Go decodes the field into a map: every number becomes a float64.
            field = go_yaml_shape(&field);
        }
    }
    let written = match format {
        FieldFormat::Json => go_json_indented(&field),
        FieldFormat::Yaml => {
            let mut out = serde_saphyr::to_string(&go_yaml_shape(&field))
                .map_err(|e| format!("cannot write `{path}` as YAML: {e}"))?;
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out
        }
    };
    if let Some(target) = object.pointer_mut(path) {
        *target = Value::String(written);
    }
    Ok(dropped)
}

/// JSON as Go's `json.MarshalIndent(v, "", "    ")` writes a decoded
/// document: keys sorted, four-space indent, HTML characters escaped.
fn go_json_indented(value: &Value) -> String {
    use serde::Serialize as _;
    let sorted = sort_keys(value);
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    if sorted.serialize(&mut serializer).is_err() {
        return go_json(&sorted);
    }
    let pretty = String::from_utf8(out).unwrap_or_default();
    escape_html(&pretty)
}

/// The leaves that differ between two versions of an object, as changes
/// (for `explain`).
pub fn diff(before: &Value, after: &Value) -> Vec<Change> {
    let mut changes = Vec::new();
    diff_at(String::new(), Some(before), Some(after), &mut changes);
    changes
}

fn diff_at(path: String, before: Option<&Value>, after: Option<&Value>, out: &mut Vec<Change>) {
    match (before, after) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            for (key, value) in a {
                diff_at(child(&path, key), Some(value), b.get(key), out);
            }
            for (key, value) in b.iter().filter(|(k, _)| !a.contains_key(*k)) {
                diff_at(child(&path, key), None, Some(value), out);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff_at(child(&path, &i.to_string()), Some(x), Some(y), out);
            }
        }
        (a, b) if a != b => out.push(Change {
            path,
            old: a.cloned(),
            new: b.cloned(),
        }),
        _ => {}
    }
}

fn child(path: &str, key: &str) -> String {
    format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"))
}

#[cfg(test)]
mod tests;
