//! RFC 6902 `add` / `remove` / `replace` on `serde_json::Value`, keeping key order.
//!
//! Reproduces evanphx/json-patch v5 as Karmada calls it (default options):
//! `add` of an existing key replaces it in place and a new key goes last,
//! `remove` keeps the order of the remaining keys, array `-` appends, negative
//! array indices count from the end, `add` at the root replaces the document.
//! A patch is atomic: on error the document is left as it was. Pointer tokens
//! unescape `~1` then `~0` in one pass; a stray `~` is kept literally, as
//! evanphx does. Paths must be empty or start with `/` (evanphx would silently
//! drop the first token of a relative path; garrison refuses it instead).

use crate::model::override_policy::Operator;
use serde_json::Value;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Add,
    Remove,
    Replace,
}

impl OpKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Add => "add",
            OpKind::Remove => "remove",
            OpKind::Replace => "replace",
        }
    }
}

impl From<Operator> for OpKind {
    fn from(operator: Operator) -> OpKind {
        match operator {
            Operator::Add => OpKind::Add,
            Operator::Remove => OpKind::Remove,
            Operator::Replace => OpKind::Replace,
        }
    }
}

/// One operation; `value` is ignored by `remove` and is `null` when absent.
#[derive(Clone, Debug, PartialEq)]
pub struct PatchOp {
    pub op: OpKind,
    pub path: String,
    pub value: Option<Value>,
}

/// What one operation did at `path` (for explanations).
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub path: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    NotAPointer,
    PathDoesNotExist,
    ParentNotContainer,
    IndexOutOfRange,
    InvalidIndex(String),
    RootNotContainer,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NotAPointer => f.write_str("path must be empty or start with `/`"),
            Reason::PathDoesNotExist => f.write_str("path does not exist"),
            Reason::ParentNotContainer => f.write_str("parent is not an object or array"),
            Reason::IndexOutOfRange => f.write_str("index out of range"),
            Reason::InvalidIndex(token) => write!(f, "`{token}` is not an array index"),
            Reason::RootNotContainer => f.write_str("the document root must be an object or array"),
        }
    }
}

/// Operation `index` of a patch failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot `{}` `{path}`: {reason}", op.as_str())]
pub struct PatchError {
    pub index: usize,
    pub op: OpKind,
    pub path: String,
    pub reason: Reason,
}

/// Splits a JSON pointer into unescaped tokens; `None` if it is not empty and
/// does not start with `/`.
pub fn parse_pointer(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    Some(rest.split('/').map(unescape).collect())
}

fn unescape(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('~', Some('1')) => {
                out.push('/');
                chars.next();
            }
            ('~', Some('0')) => {
                out.push('~');
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// Go's `strconv.Atoi` on an index token, resolved against `len` the way
/// evanphx does for reading (`-1` is the last element).
fn existing_index(token: &str, len: usize) -> Result<usize, Reason> {
    let idx: i64 = token
        .parse()
        .map_err(|_| Reason::InvalidIndex(token.to_string()))?;
    let len = i64::try_from(len).unwrap_or(i64::MAX);
    let idx = if idx < 0 { idx + len } else { idx };
    if idx < 0 || idx >= len {
        return Err(Reason::IndexOutOfRange);
    }
    usize::try_from(idx).map_err(|_| Reason::IndexOutOfRange)
}

/// The position an `add` inserts at (`len` appends; `-1` also appends).
fn insert_index(token: &str, len: usize) -> Result<usize, Reason> {
    if token == "-" {
        return Ok(len);
    }
    let idx: i64 = token
        .parse()
        .map_err(|_| Reason::InvalidIndex(token.to_string()))?;
    let slots = i64::try_from(len).unwrap_or(i64::MAX) + 1;
    let idx = if idx < 0 { idx + slots } else { idx };
    if idx < 0 || idx >= slots {
        return Err(Reason::IndexOutOfRange);
    }
    usize::try_from(idx).map_err(|_| Reason::IndexOutOfRange)
}

/// An out-of-range index on the way to the target means the path does not exist.
fn missing_if_range(reason: Reason) -> Reason {
    match reason {
        Reason::IndexOutOfRange => Reason::PathDoesNotExist,
        other => other,
    }
}

fn parent_mut<'v>(doc: &'v mut Value, tokens: &[String]) -> Result<&'v mut Value, Reason> {
    let mut current = doc;
    for token in tokens {
        current = match current {
            Value::Object(map) => map.get_mut(token).ok_or(Reason::PathDoesNotExist)?,
            Value::Array(items) => {
                let idx = existing_index(token, items.len()).map_err(missing_if_range)?;
                &mut items[idx]
            }
            _ => return Err(Reason::ParentNotContainer),
        };
    }
    Ok(current)
}

/// Applies one operation in place; returns the change it made.
fn apply_one(doc: &mut Value, op: &PatchOp) -> Result<Change, Reason> {
    let tokens = parse_pointer(&op.path).ok_or(Reason::NotAPointer)?;
    let value = op.value.clone().unwrap_or(Value::Null);
    let Some((last, parents)) = tokens.split_last() else {
        // The root: `add`/`replace` swap the document, `remove` is impossible.
        return match op.op {
            OpKind::Remove => Err(Reason::PathDoesNotExist),
            OpKind::Add | OpKind::Replace => {
                if !(value.is_object() || value.is_array()) {
                    return Err(Reason::RootNotContainer);
                }
                let old = std::mem::replace(doc, value.clone());
                Ok(Change {
                    path: op.path.clone(),
                    old: Some(old),
                    new: Some(value),
                })
            }
        };
    };
    let parent = parent_mut(doc, parents)?;
    let (old, new) = match (parent, op.op) {
        (Value::Object(map), OpKind::Add) => (map.insert(last.clone(), value.clone()), Some(value)),
        (Value::Object(map), OpKind::Remove) => (
            Some(map.shift_remove(last).ok_or(Reason::PathDoesNotExist)?),
            None,
        ),
        (Value::Object(map), OpKind::Replace) => {
            let slot = map.get_mut(last).ok_or(Reason::PathDoesNotExist)?;
            (Some(std::mem::replace(slot, value.clone())), Some(value))
        }
        (Value::Array(items), OpKind::Add) => {
            let idx = insert_index(last, items.len())?;
            items.insert(idx, value.clone());
            (None, Some(value))
        }
        (Value::Array(items), OpKind::Remove) => {
            let idx = existing_index(last, items.len())?;
            (Some(items.remove(idx)), None)
        }
        (Value::Array(items), OpKind::Replace) => {
            let idx = existing_index(last, items.len())?;
            (
                Some(std::mem::replace(&mut items[idx], value.clone())),
                Some(value),
            )
        }
        _ => return Err(Reason::ParentNotContainer),
    };
    Ok(Change {
        path: op.path.clone(),
        old,
        new,
    })
}

/// Applies all operations in order, atomically.
pub fn apply_patch(doc: &mut Value, ops: &[PatchOp]) -> Result<Vec<Change>, PatchError> {
    let mut work = doc.clone();
    let changes = apply_in_place(&mut work, ops)?;
    *doc = work;
    Ok(changes)
}

/// Applies all operations in order to `doc` itself. Not atomic: on error
/// `doc` holds the operations before the failing one. For callers that
/// already work on a scratch copy they discard on error, where a second
/// copy per patch would be pure cost.
pub fn apply_in_place(doc: &mut Value, ops: &[PatchOp]) -> Result<Vec<Change>, PatchError> {
    let mut changes = Vec::with_capacity(ops.len());
    for (index, op) in ops.iter().enumerate() {
        let change = apply_one(doc, op).map_err(|reason| PatchError {
            index,
            op: op.op,
            path: op.path.clone(),
            reason,
        })?;
        changes.push(change);
    }
    Ok(changes)
}

/// The value a pointer designates, if any (go-openapi `jsonpointer.Get`
/// semantics: array indices must be `0..len`).
pub fn lookup<'v>(doc: &'v Value, pointer: &str) -> Result<&'v Value, Reason> {
    let tokens = parse_pointer(pointer).ok_or(Reason::NotAPointer)?;
    let mut current = doc;
    for token in &tokens {
        current = match current {
            Value::Object(map) => map.get(token).ok_or(Reason::PathDoesNotExist)?,
            Value::Array(items) => {
                let idx: usize = token
                    .parse()
                    .map_err(|_| Reason::InvalidIndex(token.clone()))?;
                items.get(idx).ok_or(Reason::PathDoesNotExist)?
            }
            _ => return Err(Reason::PathDoesNotExist),
        };
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn op(op: OpKind, path: &str, value: Option<Value>) -> PatchOp {
        PatchOp {
            op,
            path: path.to_string(),
            value,
        }
    }

    fn run(doc: Value, ops: &[PatchOp]) -> Result<Value, PatchError> {
        let mut doc = doc;
        apply_patch(&mut doc, ops).map(|_| doc)
    }

    // RFC 6902 Appendix A, the cases that use add/remove/replace.
    #[test]
    fn rfc_a1_adding_an_object_member() {
        let out = run(
            json!({"foo": "bar"}),
            &[op(OpKind::Add, "/baz", Some(json!("qux")))],
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"foo":"bar","baz":"qux"}"#
        );
    }

    #[test]
    fn rfc_a2_adding_an_array_element() {
        let out = run(
            json!({"foo": ["bar", "baz"]}),
            &[op(OpKind::Add, "/foo/1", Some(json!("qux")))],
        )
        .unwrap();
        assert_eq!(out, json!({"foo": ["bar", "qux", "baz"]}));
    }

    #[test]
    fn rfc_a3_removing_an_object_member_keeps_order() {
        let out = run(
            json!({"baz": "qux", "foo": "bar", "zed": 1}),
            &[op(OpKind::Remove, "/baz", None)],
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"foo":"bar","zed":1}"#
        );
        let out = run(
            json!({"a": 1, "b": 2, "c": 3, "d": 4}),
            &[op(OpKind::Remove, "/b", None)],
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"a":1,"c":3,"d":4}"#
        );
    }

    #[test]
    fn rfc_a4_removing_an_array_element() {
        let out = run(
            json!({"foo": ["bar", "qux", "baz"]}),
            &[op(OpKind::Remove, "/foo/1", None)],
        )
        .unwrap();
        assert_eq!(out, json!({"foo": ["bar", "baz"]}));
    }

    #[test]
    fn rfc_a5_replacing_a_value_in_place() {
        let out = run(
            json!({"baz": "qux", "foo": "bar"}),
            &[op(OpKind::Replace, "/baz", Some(json!("boo")))],
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"baz":"boo","foo":"bar"}"#
        );
    }

    #[test]
    fn rfc_a10_adding_a_nested_member_object() {
        let out = run(
            json!({"foo": "bar"}),
            &[op(OpKind::Add, "/child", Some(json!({"grandchild": {}})))],
        )
        .unwrap();
        assert_eq!(out, json!({"foo": "bar", "child": {"grandchild": {}}}));
    }

    #[test]
    fn rfc_a12_adding_to_a_nonexistent_target_fails() {
        let err = run(
            json!({"foo": "bar"}),
            &[op(OpKind::Add, "/baz/bat", Some(json!("qux")))],
        )
        .unwrap_err();
        assert_eq!(err.reason, Reason::PathDoesNotExist);
        assert_eq!(
            err.to_string(),
            "cannot `add` `/baz/bat`: path does not exist"
        );
    }

    #[test]
    fn rfc_a14_tilde_escape_ordering() {
        let out = run(
            json!({"/": 9, "~1": 10}),
            &[op(OpKind::Replace, "/~01", Some(json!(11)))],
        )
        .unwrap();
        assert_eq!(out, json!({"/": 9, "~1": 11}));
        let out = run(json!({"a/b": 1}), &[op(OpKind::Remove, "/a~1b", None)]).unwrap();
        assert_eq!(out, json!({}));
    }

    #[test]
    fn rfc_a16_adding_an_array_value() {
        let out = run(
            json!({"foo": ["bar"]}),
            &[op(OpKind::Add, "/foo/-", Some(json!(["abc", "def"])))],
        )
        .unwrap();
        assert_eq!(out, json!({"foo": ["bar", ["abc", "def"]]}));
    }

    #[test]
    fn add_of_existing_key_replaces_in_place() {
        let out = run(
            json!({"a": 1, "b": 2, "c": 3}),
            &[op(OpKind::Add, "/a", Some(json!(9)))],
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"a":9,"b":2,"c":3}"#
        );
    }

    #[test]
    fn add_at_root_replaces_the_document() {
        let out = run(
            json!({"a": 1}),
            &[op(OpKind::Add, "", Some(json!({"b": 2})))],
        )
        .unwrap();
        assert_eq!(out, json!({"b": 2}));
    }

    #[test]
    fn replace_or_remove_of_missing_key_fails() {
        let err = run(
            json!({"spec": {}}),
            &[op(OpKind::Replace, "/spec/foo", Some(json!(1)))],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot `replace` `/spec/foo`: path does not exist"
        );
        let err = run(
            json!({"spec": {}}),
            &[op(OpKind::Remove, "/spec/foo", None)],
        )
        .unwrap_err();
        assert_eq!(err.reason, Reason::PathDoesNotExist);
    }

    #[test]
    fn array_index_rules_follow_evanphx() {
        let doc = json!({"a": [1, 2, 3]});
        assert_eq!(
            run(doc.clone(), &[op(OpKind::Add, "/a/3", Some(json!(4)))]).unwrap(),
            json!({"a": [1, 2, 3, 4]})
        );
        assert_eq!(
            run(doc.clone(), &[op(OpKind::Add, "/a/4", Some(json!(4)))])
                .unwrap_err()
                .reason,
            Reason::IndexOutOfRange
        );
        assert_eq!(
            run(doc.clone(), &[op(OpKind::Remove, "/a/-1", None)]).unwrap(),
            json!({"a": [1, 2]})
        );
        assert_eq!(
            run(doc.clone(), &[op(OpKind::Add, "/a/-1", Some(json!(0)))]).unwrap(),
            json!({"a": [1, 2, 3, 0]})
        );
        assert_eq!(
            run(doc.clone(), &[op(OpKind::Remove, "/a/3", None)])
                .unwrap_err()
                .reason,
            Reason::IndexOutOfRange
        );
        assert_eq!(
            run(doc.clone(), &[op(OpKind::Replace, "/a/x", Some(json!(0)))])
                .unwrap_err()
                .reason,
            Reason::InvalidIndex("x".into())
        );
        assert_eq!(
            run(doc, &[op(OpKind::Replace, "/a/-", Some(json!(0)))])
                .unwrap_err()
                .reason,
            Reason::InvalidIndex("-".into())
        );
    }

    #[test]
    fn parent_must_be_a_container() {
        let err = run(
            json!({"a": "s"}),
            &[op(OpKind::Add, "/a/b", Some(json!(1)))],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot `add` `/a/b`: parent is not an object or array"
        );
    }

    #[test]
    fn relative_paths_are_refused() {
        let err = run(json!({}), &[op(OpKind::Add, "spec", Some(json!(1)))]).unwrap_err();
        assert_eq!(err.reason, Reason::NotAPointer);
    }

    #[test]
    fn a_failing_patch_leaves_the_document_unchanged() {
        let mut doc = json!({"a": 1});
        let err = apply_patch(
            &mut doc,
            &[
                op(OpKind::Add, "/b", Some(json!(2))),
                op(OpKind::Remove, "/zzz", None),
            ],
        )
        .unwrap_err();
        assert_eq!(err.index, 1);
        assert_eq!(doc, json!({"a": 1}));
    }

    #[test]
    fn in_place_application_keeps_the_operations_before_the_failing_one() {
        let mut doc = json!({"a": 1});
        let ops = [
            op(OpKind::Add, "/b", Some(json!(2))),
            op(OpKind::Remove, "/zzz", None),
        ];
        let err = apply_in_place(&mut doc, &ops).unwrap_err();
        assert_eq!(err.index, 1);
        assert_eq!(doc, json!({"a": 1, "b": 2}));
        let mut ok = json!({"a": 1});
        let changes = apply_in_place(&mut ok, &ops[..1]).unwrap();
        assert_eq!((ok, changes.len()), (json!({"a": 1, "b": 2}), 1));
    }

    #[test]
    fn absent_value_adds_null() {
        assert_eq!(
            run(json!({}), &[op(OpKind::Add, "/a", None)]).unwrap(),
            json!({"a": null})
        );
    }

    #[test]
    fn changes_record_old_and_new_values() {
        let mut doc = json!({"a": 1});
        let changes = apply_patch(&mut doc, &[op(OpKind::Replace, "/a", Some(json!(2)))]).unwrap();
        assert_eq!(
            changes,
            vec![Change {
                path: "/a".into(),
                old: Some(json!(1)),
                new: Some(json!(2))
            }]
        );
    }

    #[test]
    fn lookup_uses_strict_indices() {
        let doc = json!({"a": [{"b": "x"}]});
        assert_eq!(lookup(&doc, "/a/0/b").unwrap(), &json!("x"));
        assert!(lookup(&doc, "/a/1/b").is_err());
        assert!(lookup(&doc, "/a/-1/b").is_err());
        assert_eq!(lookup(&doc, "").unwrap(), &doc);
    }
}
