//! OpenAPI v3 schema objects (JSON) into [`Schema`] nodes.
//!
//! One reader for both sources: the trimmed built-in documents (with
//! `$ref` between named definitions) and a CustomResourceDefinition's
//! `openAPIV3Schema` (no `$ref`, as structural schemas forbid it). Keywords
//! that describe rather than constrain (`description`, `default`, `example`,
//! `x-kubernetes-patch-*`, …) are skipped; a keyword that would change what
//! is valid and is not understood is reported, never ignored.

use super::{Additional, Bounds, Format, ListType, Schema, SchemaId, Schemas, Types};
use regex::Regex;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// A fault in a schema, with the path of keywords that leads to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaFault {
    pub path: Vec<String>,
    pub message: String,
}

/// Keywords read for their meaning, or known to carry none for validation.
const DESCRIPTIVE: &[&str] = &[
    "description",
    "example",
    "title",
    "externalDocs",
    "$schema",
    "id",
    "readOnly",
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-map-type",
    "x-kubernetes-unions",
    "x-kubernetes-group-version-kind",
    "x-kubernetes-validations",
    "x-kubernetes-list-map-keys",
    "definitions",
    "dependencies",
    "additionalItems",
    "uniqueItems",
    "nullable",
    "discriminator",
];

pub struct Builder<'s> {
    schemas: &'s mut Schemas,
    /// Named definitions `$ref` may point at.
    definitions: &'s HashMap<String, SchemaId>,
    pub faults: Vec<SchemaFault>,
}

impl<'s> Builder<'s> {
    pub fn new(schemas: &'s mut Schemas, definitions: &'s HashMap<String, SchemaId>) -> Self {
        Builder {
            schemas,
            definitions,
            faults: Vec::new(),
        }
    }

    fn fault(&mut self, path: &[String], message: String) {
        self.faults.push(SchemaFault {
            path: path.to_vec(),
            message,
        });
    }

    /// Read `value` into a new node.
    pub fn build(&mut self, value: &Value, path: &mut Vec<String>) -> SchemaId {
        let schema = self.read(value, path);
        self.schemas.push(schema)
    }

    /// Read `value` into the node `id` (allocated before, for definitions
    /// that refer to each other).
    pub fn build_into(&mut self, id: SchemaId, value: &Value, path: &mut Vec<String>) {
        let schema = self.read(value, path);
        if let Some(slot) = self.schemas.get_mut(id) {
            *slot = schema;
        }
    }

    /// A nested schema; `segment` names it below the current keyword
    /// (a property's name, a branch's index).
    fn child(&mut self, value: &Value, path: &mut Vec<String>, segment: Option<&str>) -> SchemaId {
        if let Some(segment) = segment {
            path.push(segment.to_string());
        }
        let id = self.reference(value, path).unwrap_or_else(|| {
            let schema = self.read(value, path);
            self.schemas.push(schema)
        });
        if segment.is_some() {
            path.pop();
        }
        id
    }

    /// A `{"$ref": name}` node is the definition itself.
    fn reference(&mut self, value: &Value, path: &[String]) -> Option<SchemaId> {
        let name = value.get("$ref")?.as_str()?;
        let name = name.strip_prefix("#/components/schemas/").unwrap_or(name);
        match self.definitions.get(name) {
            Some(id) => Some(*id),
            None => {
                self.fault(path, format!("`$ref` to `{name}`, which is not defined"));
                Some(self.schemas.push(Schema::default()))
            }
        }
    }

    fn read(&mut self, value: &Value, path: &mut Vec<String>) -> Schema {
        let mut schema = Schema::default();
        let Some(map) = value.as_object() else {
            if value != &Value::Bool(true) {
                self.fault(path, "a schema must be a mapping".into());
            }
            return schema;
        };
        for (key, field) in map {
            path.push(key.clone());
            self.keyword(&mut schema, key, field, map, path);
            path.pop();
        }
        // `oneOf: [{type: string}, {type: number}]` (a Quantity) is one node
        // that allows both types, so messages can name them.
        if schema.types.is_empty() && !schema.one_of.is_empty() {
            let branches: Vec<&Schema> = schema
                .one_of
                .iter()
                .map(|id| self.schemas.get(*id))
                .collect();
            if branches.iter().all(|b| is_bare_type(b)) {
                schema.types = branches
                    .iter()
                    .fold(Types::default(), |t, b| t.with(b.types));
                schema.one_of.clear();
            }
        }
        schema.properties.sort_by(|a, b| a.0.cmp(&b.0));
        schema
    }

    fn keyword(
        &mut self,
        schema: &mut Schema,
        key: &str,
        field: &Value,
        map: &Map<String, Value>,
        path: &mut Vec<String>,
    ) {
        match key {
            "type" => match field.as_str().and_then(Types::from_name) {
                Some(types) => schema.types = types,
                None => self.fault(path, format!("`type` must be object, array, string, integer, number or boolean, not {field}")),
            },
            "format" => schema.format = format_of(field),
            "properties" => self.properties(schema, field, path),
            "additionalProperties" => {
                schema.additional = Some(match field {
                    Value::Bool(true) => Additional::Any,
                    Value::Bool(false) => Additional::Closed,
                    other => Additional::Schema(self.child(other, path, None)),
                })
            }
            "items" => schema.items = Some(self.child(field, path, None)),
            "required" => {
                schema.required = strings(field);
            }
            "enum" => schema.enumeration = field.as_array().cloned().unwrap_or_default(),
            "default" => schema.default = Some(field.clone()),
            "x-kubernetes-int-or-string"
            | "x-kubernetes-preserve-unknown-fields"
            | "x-kubernetes-embedded-resource"
            | "x-kubernetes-list-type" => extension(schema, key, field, map),
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf"
            | "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
            | "maxProperties" => bound(&mut schema.bounds, key, field, map),
            "pattern" => self.pattern(schema, field, path),
            "allOf" | "anyOf" | "oneOf" => self.branches(schema, key, field, path),
            "not" => schema.not = Some(self.child(field, path, None)),
            "$ref" => {
                // A `$ref` next to other keywords: only the built-in documents
                // have them, always alone, so this is a CRD's.
                self.fault(path, "`$ref` is not allowed in a CustomResourceDefinition's schema".into());
            }
            _ if DESCRIPTIVE.contains(&key) => {}
            other => self.fault(path, format!("`{other}` is not a schema keyword garrison knows, so it cannot check what it means")),
        }
    }

    /// `properties`: each property's schema, under its name in the path.
    fn properties(&mut self, schema: &mut Schema, field: &Value, path: &mut Vec<String>) {
        let Some(properties) = field.as_object() else {
            return self.fault(path, "`properties` must be a mapping".into());
        };
        for (name, property) in properties {
            let id = self.child(property, path, Some(name));
            schema.properties.push((name.clone(), id));
        }
    }

    /// `pattern`: compiled once here, so a pattern the regex crate cannot
    /// use is a fault in the schema rather than in every object checked.
    fn pattern(&mut self, schema: &mut Schema, field: &Value, path: &[String]) {
        match field.as_str().map(Regex::new) {
            Some(Ok(regex)) => schema.pattern = Some(regex),
            Some(Err(e)) => self.fault(
                path,
                format!(
                    "`pattern` is not a regular expression garrison can use: {}",
                    reason_of(&e.to_string())
                ),
            ),
            None => self.fault(path, "`pattern` must be a string".into()),
        }
    }

    /// `allOf`, `anyOf` or `oneOf` (`key`): each branch's schema, under its
    /// index in the path.
    fn branches(&mut self, schema: &mut Schema, key: &str, field: &Value, path: &mut Vec<String>) {
        let Some(branches) = field.as_array() else {
            return self.fault(path, format!("`{key}` must be a list"));
        };
        let ids: Vec<SchemaId> = branches
            .iter()
            .enumerate()
            .map(|(i, b)| self.child(b, path, Some(&i.to_string())))
            .collect();
        match key {
            "allOf" => schema.all_of = ids,
            "anyOf" => schema.any_of = ids,
            _ => schema.one_of = ids,
        }
    }
}

/// The `format`s garrison checks; other formats are not checked (see the
/// module docs).
fn format_of(field: &Value) -> Option<Format> {
    match field.as_str() {
        Some("int32") => Some(Format::Int32),
        Some("int64") => Some(Format::Int64),
        Some("byte") => Some(Format::Byte),
        Some("date-time") => Some(Format::DateTime),
        _ => None,
    }
}

/// Kubernetes' extensions that change what is valid.
fn extension(schema: &mut Schema, key: &str, field: &Value, map: &Map<String, Value>) {
    let on = field == &Value::Bool(true);
    match key {
        "x-kubernetes-int-or-string" => schema.int_or_string = on,
        "x-kubernetes-preserve-unknown-fields" => schema.preserve_unknown = on,
        "x-kubernetes-embedded-resource" => schema.embedded_resource = on,
        "x-kubernetes-list-type" => {
            schema.list = match field.as_str() {
                Some("set") => ListType::Set,
                Some("map") => ListType::Map(strings(
                    map.get("x-kubernetes-list-map-keys")
                        .unwrap_or(&Value::Null),
                )),
                _ => ListType::Atomic,
            }
        }
        _ => {}
    }
}

/// A numeric, length or count bound (`exclusive*` is read with its bound).
fn bound(bounds: &mut Bounds, key: &str, field: &Value, map: &Map<String, Value>) {
    match key {
        "minimum" => bounds.minimum = field.as_f64().map(|m| (m, flag(map, "exclusiveMinimum"))),
        "maximum" => bounds.maximum = field.as_f64().map(|m| (m, flag(map, "exclusiveMaximum"))),
        "multipleOf" => bounds.multiple_of = field.as_f64().filter(|m| *m > 0.0),
        "minLength" => bounds.min_length = field.as_u64(),
        "maxLength" => bounds.max_length = field.as_u64(),
        "minItems" => bounds.min_items = field.as_u64(),
        "maxItems" => bounds.max_items = field.as_u64(),
        "minProperties" => bounds.min_properties = field.as_u64(),
        "maxProperties" => bounds.max_properties = field.as_u64(),
        _ => {}
    }
}

fn is_bare_type(schema: &Schema) -> bool {
    !schema.types.is_empty()
        && schema.format.is_none()
        && schema.properties.is_empty()
        && schema.items.is_none()
        && schema.enumeration.is_empty()
        && schema.pattern.is_none()
        && schema.bounds == Bounds::default()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn flag(map: &Map<String, Value>, key: &str) -> bool {
    map.get(key) == Some(&Value::Bool(true))
}

/// The regex crate's message without its drawing of the pattern: the line
/// that says what is wrong.
fn reason_of(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines
        .iter()
        .find_map(|l| l.strip_prefix("error: "))
        .or_else(|| lines.last().copied())
        .unwrap_or(text)
        .to_string()
}
