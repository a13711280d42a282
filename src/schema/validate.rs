//! Checking one positioned YAML tree against a schema, as the API server
//! does (see the module docs of [`crate::schema`] for what is checked).

use super::{Additional, Format, ListType, Schema, SchemaId, Schemas, Types};
use crate::node::{describe, quote_hint};
use crate::node::{Node, NodeKind, Pos};
use serde_json::Value;

/// At most this many faults are reported for one object.
const MAX_FAULTS: usize = 20;

/// One way an object differs from its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The fields that lead to it (list indices as numbers).
    pub path: Vec<String>,
    pub pos: Pos,
    pub kind: FaultKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// A field the schema does not declare; `known` are the declared ones.
    UnknownField { field: String, known: Vec<String> },
    /// A value the schema does not allow, or a missing required field.
    Invalid(String),
}

/// Every fault of `node` against the schema `root` (at most [`MAX_FAULTS`]).
pub fn validate(schemas: &Schemas, root: SchemaId, node: &Node) -> Vec<Fault> {
    let mut walk = Walk {
        schemas,
        path: Vec::new(),
        faults: Vec::new(),
    };
    walk.check(root, node, true, node.pos);
    walk.faults.truncate(MAX_FAULTS);
    walk.faults
}

/// [`validate`] for a whole object as it will be delivered: its `status`
/// is not checked, since Karmada prunes it before an object leaves for a
/// cluster (and the API server ignores it when the object is created).
pub fn validate_object(schemas: &Schemas, root: SchemaId, node: &Node) -> Vec<Fault> {
    match &node.kind {
        NodeKind::Map(entries) if entries.iter().any(|(key, _, _)| key == "status") => {
            let without = Node {
                pos: node.pos,
                kind: NodeKind::Map(
                    entries
                        .iter()
                        .filter(|(key, _, _)| key != "status")
                        .cloned()
                        .collect(),
                ),
            };
            validate(schemas, root, &without)
        }
        _ => validate(schemas, root, node),
    }
}

/// Why a JSON pointer does not lead into a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathFault {
    /// The segment names a field the mapping does not declare.
    UnknownField { field: String, known: Vec<String> },
    /// The segment goes below a value that has no fields or items.
    NotAContainer { at: String, types: String },
}

/// The schema of what the JSON pointer `pointer` (RFC 6901, as an
/// override's `path`) names below `root`; `None` when it leads into
/// free-form data (`x-kubernetes-preserve-unknown-fields`, or no schema),
/// where anything may be written.
pub fn resolve(
    schemas: &Schemas,
    root: SchemaId,
    pointer: &str,
) -> Result<Option<SchemaId>, PathFault> {
    let mut id = root;
    let mut walked = String::new();
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        let schema = schemas.get(id);
        let next = if let Some(property) = schema.property(&segment) {
            Some(property)
        } else if let Some(items) = schema
            .items
            .filter(|_| segment == "-" || segment.parse::<usize>().is_ok())
        {
            Some(items)
        } else {
            match schema.others() {
                Additional::Schema(value) => Some(value),
                Additional::Any => return Ok(None),
                Additional::Closed
                    if !schema.properties.is_empty() || schema.types.contains(Types::OBJECT) =>
                {
                    return Err(PathFault::UnknownField {
                        field: segment,
                        known: schema.properties.iter().map(|(k, _)| k.clone()).collect(),
                    })
                }
                Additional::Closed => {
                    return Err(PathFault::NotAContainer {
                        at: walked,
                        types: schema.types.describe(),
                    })
                }
            }
        };
        walked.push('/');
        walked.push_str(raw);
        match next {
            Some(next) => id = next,
            None => return Ok(None),
        }
    }
    Ok(Some(id))
}

struct Walk<'s> {
    schemas: &'s Schemas,
    path: Vec<String>,
    faults: Vec<Fault>,
}

impl Walk<'_> {
    fn invalid(&mut self, pos: Pos, message: String) {
        self.faults.push(Fault {
            path: self.path.clone(),
            pos,
            kind: FaultKind::Invalid(message),
        });
    }

    /// Check `node` against `id`. `structural` is false inside `allOf`,
    /// `anyOf`, `oneOf` and `not`, which constrain values but declare no
    /// fields (structural schemas keep fields in the main branch). `key` is
    /// where the field holding `node` is written, where a missing field of
    /// a mapping is reported.
    fn check(&mut self, id: SchemaId, node: &Node, structural: bool, key: Pos) {
        if self.faults.len() >= MAX_FAULTS {
            return;
        }
        let schema = self.schemas.get(id);
        if matches!(node.kind, NodeKind::Null) {
            return;
        }
        if let Some(defaulted) = self.defaulted(schema, node) {
            return self.check(id, &defaulted, structural, key);
        }
        if !self.type_matches(schema, node) {
            return;
        }
        self.check_value(schema, node);
        match &node.kind {
            NodeKind::Map(entries) => self.check_map(schema, node, entries, structural, key),
            NodeKind::Seq(items) => self.check_list(schema, node, items, structural),
            _ => {}
        }
        for branch in schema.all_of.clone() {
            self.check(branch, node, false, key);
        }
        if !schema.any_of.is_empty() && !schema.any_of.iter().any(|b| self.passes(*b, node)) {
            self.invalid(
                node.pos,
                "does not match any of the schemas `anyOf` allows".into(),
            );
        }
        if !schema.one_of.is_empty() {
            let matching = schema
                .one_of
                .iter()
                .filter(|b| self.passes(**b, node))
                .count();
            if matching != 1 {
                self.invalid(
                    node.pos,
                    format!("must match exactly one of the schemas `oneOf` lists, but matches {matching}"),
                );
            }
        }
        if let Some(not) = schema.not {
            if self.passes(not, node) {
                self.invalid(node.pos, "matches the schema `not` forbids".into());
            }
        }
    }

    /// `node` with the defaults of its absent properties filled in, as the
    /// API server fills them before validating (`oneOf` branches often tell
    /// apart objects by a defaulted field); `None` when nothing is missing.
    fn defaulted(&self, schema: &Schema, node: &Node) -> Option<Node> {
        let NodeKind::Map(entries) = &node.kind else {
            return None;
        };
        let missing: Vec<(String, Pos, Node)> = schema
            .properties
            .iter()
            .filter(|(name, _)| !entries.iter().any(|(key, _, _)| key == name))
            .filter_map(|(name, id)| {
                let default = self.schemas.get(*id).default.as_ref()?;
                Some((name.clone(), node.pos, Node::from_value(default, node.pos)))
            })
            .collect();
        if missing.is_empty() {
            return None;
        }
        let mut entries = entries.clone();
        entries.extend(missing);
        Some(Node {
            pos: node.pos,
            kind: NodeKind::Map(entries),
        })
    }

    /// Whether `node` satisfies branch `id` (value constraints only).
    fn passes(&self, id: SchemaId, node: &Node) -> bool {
        let mut walk = Walk {
            schemas: self.schemas,
            path: Vec::new(),
            faults: Vec::new(),
        };
        walk.check(id, node, false, node.pos);
        walk.faults.is_empty()
    }

    fn type_matches(&mut self, schema: &Schema, node: &Node) -> bool {
        let found = match &node.kind {
            NodeKind::Map(_) => Types::OBJECT,
            NodeKind::Seq(_) => Types::ARRAY,
            NodeKind::String(_) => Types::STRING,
            NodeKind::Bool(_) => Types::BOOLEAN,
            NodeKind::Number(n) if is_integral(n) => Types::INTEGER.with(Types::NUMBER),
            NodeKind::Number(_) => Types::NUMBER,
            NodeKind::Null => return true,
        };
        let allowed = schema.allowed_types();
        if allowed.is_empty() || allowed.0 & found.0 != 0 {
            return true;
        }
        let hint = if allowed.contains(Types::STRING) {
            quote_hint(node)
        } else {
            ""
        };
        self.invalid(
            node.pos,
            format!(
                "expected {}, found {}{hint}",
                allowed.describe(),
                describe(node)
            ),
        );
        false
    }

    fn check_value(&mut self, schema: &Schema, node: &Node) {
        if !schema.enumeration.is_empty() {
            let value = node.to_value();
            if !schema.enumeration.contains(&value) {
                let allowed: Vec<String> = schema.enumeration.iter().map(shown).collect();
                let near = value
                    .as_str()
                    .and_then(|s| {
                        crate::diag::closest(s, schema.enumeration.iter().filter_map(Value::as_str))
                    })
                    .map(|c| format!("; did you mean `{c}`?"))
                    .unwrap_or_default();
                self.invalid(
                    node.pos,
                    format!(
                        "{} is not one of {}{near}",
                        shown(&value),
                        allowed.join(", ")
                    ),
                );
            }
        }
        match &node.kind {
            NodeKind::Number(n) => self.check_number(schema, node.pos, n),
            NodeKind::String(s) => self.check_string(schema, node.pos, s),
            _ => {}
        }
    }

    fn check_number(&mut self, schema: &Schema, pos: Pos, n: &serde_json::Number) {
        let range = match schema.format {
            Some(Format::Int32) => Some((i128::from(i32::MIN), i128::from(i32::MAX), "int32")),
            Some(Format::Int64) => Some((i128::from(i64::MIN), i128::from(i64::MAX), "int64")),
            // An integer without a format is Go's int64.
            _ if schema.types.contains(Types::INTEGER) && !schema.types.contains(Types::NUMBER) => {
                Some((i128::from(i64::MIN), i128::from(i64::MAX), "int64"))
            }
            _ => None,
        };
        if let Some((min, max, name)) = range {
            let value = n
                .as_i64()
                .map(i128::from)
                .or_else(|| n.as_u64().map(i128::from))
                .or_else(|| n.as_f64().map(|f| f as i128));
            if let Some(value) = value.filter(|v| !(min..=max).contains(v)) {
                return self.invalid(
                    pos,
                    format!("{value} is out of range for {name} ({min} to {max})"),
                );
            }
        }
        let Some(value) = n.as_f64() else { return };
        if let Some((minimum, exclusive)) = schema.bounds.minimum {
            if value < minimum || (exclusive && value == minimum) {
                let relation = if exclusive {
                    "greater than"
                } else {
                    "at least"
                };
                self.invalid(pos, format!("{n} must be {relation} {minimum}"));
            }
        }
        if let Some((maximum, exclusive)) = schema.bounds.maximum {
            if value > maximum || (exclusive && value == maximum) {
                let relation = if exclusive { "less than" } else { "at most" };
                self.invalid(pos, format!("{n} must be {relation} {maximum}"));
            }
        }
        if let Some(step) = schema.bounds.multiple_of {
            if (value / step).fract().abs() > 1e-9 {
                self.invalid(pos, format!("{n} must be a multiple of {step}"));
            }
        }
    }

    fn check_string(&mut self, schema: &Schema, pos: Pos, text: &str) {
        let length = text.chars().count() as u64;
        if let Some(min) = schema.bounds.min_length.filter(|min| length < *min) {
            self.invalid(
                pos,
                format!("is {length} characters long; at least {min} are required"),
            );
        }
        if let Some(max) = schema.bounds.max_length.filter(|max| length > *max) {
            self.invalid(
                pos,
                format!("is {length} characters long; at most {max} are allowed"),
            );
        }
        if let Some(pattern) = schema.pattern.as_ref().filter(|p| !p.is_match(text)) {
            self.invalid(
                pos,
                format!(
                    "`{}` does not match the pattern `{}`",
                    text.escape_debug(),
                    pattern.as_str()
                ),
            );
        }
        match schema.format {
            Some(Format::Byte) if !is_base64(text) => {
                self.invalid(pos, "is not base64; a Secret's `data` holds base64 (put plain text in `stringData`)".into());
            }
            Some(Format::DateTime) if !is_rfc3339(text) => {
                self.invalid(
                    pos,
                    format!(
                        "`{}` is not an RFC 3339 time such as `2026-01-01T00:00:00Z`",
                        text.escape_debug()
                    ),
                );
            }
            _ => {}
        }
    }

    fn check_map(
        &mut self,
        schema: &Schema,
        node: &Node,
        entries: &[(String, Pos, Node)],
        structural: bool,
        key: Pos,
    ) {
        let count = entries.len() as u64;
        if let Some(min) = schema.bounds.min_properties.filter(|m| count < *m) {
            self.invalid(
                node.pos,
                format!("has {count} entries; at least {min} are required"),
            );
        }
        if let Some(max) = schema.bounds.max_properties.filter(|m| count > *m) {
            self.invalid(
                node.pos,
                format!("has {count} entries; at most {max} are allowed"),
            );
        }
        for name in &schema.required {
            let present = entries
                .iter()
                .any(|(key, _, value)| key == name && !matches!(value.kind, NodeKind::Null));
            if !present {
                self.invalid(key, format!("missing required field `{name}`"));
            }
        }
        if schema.embedded_resource {
            for name in ["apiVersion", "kind"] {
                if !entries.iter().any(|(key, _, _)| key == name) {
                    self.invalid(
                        key,
                        format!("missing `{name}`: an embedded object says what it is"),
                    );
                }
            }
        }
        let others = schema.others();
        for (key, key_pos, value) in entries {
            let field = schema.property(key).or(match others {
                Additional::Schema(id) => Some(id),
                _ => None,
            });
            match field {
                Some(field) => {
                    self.path.push(key.clone());
                    self.check(field, value, structural, *key_pos);
                    self.path.pop();
                }
                None if others == Additional::Closed && structural => self.faults.push(Fault {
                    path: self.path.clone(),
                    pos: *key_pos,
                    kind: FaultKind::UnknownField {
                        field: key.clone(),
                        known: schema.properties.iter().map(|(k, _)| k.clone()).collect(),
                    },
                }),
                None => {}
            }
        }
    }

    fn check_list(&mut self, schema: &Schema, node: &Node, items: &[Node], structural: bool) {
        let count = items.len() as u64;
        if let Some(min) = schema.bounds.min_items.filter(|m| count < *m) {
            self.invalid(
                node.pos,
                format!("has {count} items; at least {min} are required"),
            );
        }
        if let Some(max) = schema.bounds.max_items.filter(|m| count > *m) {
            self.invalid(
                node.pos,
                format!("has {count} items; at most {max} are allowed"),
            );
        }
        match &schema.list {
            ListType::Atomic => {}
            ListType::Set => {
                let values: Vec<Value> = items.iter().map(Node::to_value).collect();
                if let Some(i) = (1..values.len()).find(|i| values[..*i].contains(&values[*i])) {
                    self.invalid(
                        items[i].pos,
                        format!(
                            "{} is listed twice; the items of this list are a set",
                            shown(&values[i])
                        ),
                    );
                }
            }
            ListType::Map(keys) => {
                let identities: Vec<Vec<Value>> = items
                    .iter()
                    .map(|item| {
                        let value = item.to_value();
                        keys.iter()
                            .map(|k| value.get(k).cloned().unwrap_or(Value::Null))
                            .collect()
                    })
                    .collect();
                if let Some(i) =
                    (1..identities.len()).find(|i| identities[..*i].contains(&identities[*i]))
                {
                    let shown_keys: Vec<String> = keys
                        .iter()
                        .zip(&identities[i])
                        .map(|(k, v)| format!("{k} {}", shown(v)))
                        .collect();
                    self.invalid(
                        items[i].pos,
                        format!(
                            "a second item with {}; the items of this list are unique by {}",
                            shown_keys.join(", "),
                            keys.join(", ")
                        ),
                    );
                }
            }
        }
        if let Some(item_schema) = schema.items {
            for (i, item) in items.iter().enumerate() {
                self.path.push(i.to_string());
                self.check(item_schema, item, structural, item.pos);
                self.path.pop();
            }
        }
    }
}

fn is_integral(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => format!("`{}`", s.escape_debug()),
        other => format!("`{other}`"),
    }
}

/// Base64 as Go's `encoding/json` decodes `[]byte`: the standard alphabet,
/// padded; line breaks are skipped.
pub(super) fn is_base64(text: &str) -> bool {
    let bytes: Vec<u8> = text
        .bytes()
        .filter(|b| *b != b'\n' && *b != b'\r')
        .collect();
    if bytes.len() % 4 != 0 {
        return false;
    }
    let padding = bytes.iter().rev().take_while(|b| **b == b'=').count();
    padding <= 2
        && bytes[..bytes.len() - padding]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

/// `2006-01-02T15:04:05Z07:00`, fractional seconds allowed (Go's time.RFC3339).
pub(super) fn is_rfc3339(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        b.get(range)
            .is_some_and(|s| s.iter().all(u8::is_ascii_digit))
    };
    if b.len() < 20
        || !digits(0..4)
        || b[4] != b'-'
        || !digits(5..7)
        || b[7] != b'-'
        || !digits(8..10)
        || !matches!(b[10], b'T' | b't')
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return false;
    }
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let len = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 {
            return false;
        }
        rest = &fraction[len..];
    }
    match rest.as_bytes() {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit()),
        _ => false,
    }
}
