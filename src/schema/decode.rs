//! Whether a value decodes into a built-in Kubernetes type the way Go's
//! `encoding/json` decodes it into the typed struct, which is what Karmada
//! does with a table a customization script hands to its `kube` library
//! (`luavm.ConvertLuaResultInto` into a `corev1.PodTemplateSpec`).
//!
//! That is looser than validation: unknown fields are ignored and nothing
//! is required, but a value of the wrong JSON type for a declared field, an
//! integer out of its Go type's range or a fraction where Go has an
//! integer, a quantity that does not parse, and a time that is not RFC 3339
//! fail the whole decoding. `null` decodes anywhere (as the zero value).

use super::builtin;
use super::validate::{is_base64, is_rfc3339};
use super::{Additional, Format, Schema, SchemaId, Types};
use serde_json::Value;

/// Why a string is no quantity, or `None` when it is one: quantities are
/// the model's (`model::quantity`), a layer above the schemas, so the
/// caller hands the check in.
pub type QuantityFault = fn(&str) -> Option<String>;

/// Why `value` does not decode as the `template` of a `v1` PodTemplate
/// (a `PodTemplateSpec`), or `None` when it does.
pub fn pod_template_spec_fault(value: &Value, quantity: QuantityFault) -> Option<String> {
    let builtin = builtin::load_or_default(None);
    let root = builtin
        .kinds
        .iter()
        .find(|(group, version, kind, _, _)| {
            group.is_empty() && version == "v1" && kind == "PodTemplate"
        })
        .map(|(_, _, _, _, root)| *root)?;
    let decode = Decode {
        nodes: &builtin.nodes,
        quantity,
    };
    let template = decode.field(root, "template")?;
    let mut path = Vec::new();
    decode.check(template, value, &mut path)
}

struct Decode<'a> {
    nodes: &'a [Schema],
    quantity: QuantityFault,
}

impl Decode<'_> {
    fn get(&self, id: SchemaId) -> Option<&Schema> {
        self.nodes.get(id.0 as usize)
    }

    /// The schema of field `name` of an object schema, through `allOf`.
    fn field(&self, id: SchemaId, name: &str) -> Option<SchemaId> {
        let schema = self.get(id)?;
        schema.property(name).or_else(|| {
            schema
                .all_of
                .iter()
                .find_map(|part| self.field(*part, name))
        })
    }

    fn check(&self, id: SchemaId, value: &Value, path: &mut Vec<String>) -> Option<String> {
        let schema = self.get(id)?;
        if value.is_null() {
            return None;
        }
        for part in &schema.all_of {
            if let Some(fault) = self.check(*part, value, path) {
                return Some(fault);
            }
        }
        if let Some(fault) = self.check_type(schema, value, path) {
            return Some(fault);
        }
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    let child = schema.property(key).or(match schema.others() {
                        Additional::Schema(values) => Some(values),
                        Additional::Any | Additional::Closed => None,
                    });
                    if let Some(child) = child {
                        path.push(key.clone());
                        let fault = self.check(child, item, path);
                        path.pop();
                        if fault.is_some() {
                            return fault;
                        }
                    }
                }
                None
            }
            Value::Array(items) => {
                let child = schema.items?;
                for (index, item) in items.iter().enumerate() {
                    path.push(index.to_string());
                    let fault = self.check(child, item, path);
                    path.pop();
                    if fault.is_some() {
                        return fault;
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// A scalar's or container's JSON type against the field's Go type.
    fn check_type(&self, schema: &Schema, value: &Value, path: &[String]) -> Option<String> {
        let at = || {
            if path.is_empty() {
                "the pod template".to_string()
            } else {
                format!("`{}`", path.join("."))
            }
        };
        let found = match value {
            Value::Object(_) => Types::OBJECT,
            Value::Array(_) => Types::ARRAY,
            Value::String(_) => Types::STRING,
            Value::Bool(_) => Types::BOOLEAN,
            Value::Number(n) if n.is_i64() || n.is_u64() => Types::INTEGER.with(Types::NUMBER),
            Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => {
                Types::INTEGER.with(Types::NUMBER)
            }
            Value::Number(_) => Types::NUMBER,
            Value::Null => return None,
        };
        let allowed = schema.allowed_types();
        if !allowed.is_empty() && allowed.0 & found.0 == 0 {
            return Some(format!(
                "{} must be {}, not {}",
                at(),
                allowed.describe(),
                found_name(value)
            ));
        }
        match value {
            // A Quantity: a string or a number, and a string must parse.
            Value::String(text)
                if allowed.contains(Types::STRING.with(Types::NUMBER)) && !schema.int_or_string =>
            {
                (self.quantity)(text).map(|e| format!("{} is not a quantity: {e}", at()))
            }
            Value::String(text) => match schema.format {
                Some(Format::DateTime) if !is_rfc3339(text) => {
                    Some(format!("{} is not an RFC 3339 time", at()))
                }
                Some(Format::Byte) if !is_base64(text) => Some(format!("{} is not base64", at())),
                _ => None,
            },
            Value::Number(n)
                if allowed.contains(Types::INTEGER) && !allowed.contains(Types::NUMBER) =>
            {
                let (low, high) = match schema.format {
                    Some(Format::Int32) => (f64::from(i32::MIN), f64::from(i32::MAX)),
                    _ => (i64::MIN as f64, i64::MAX as f64),
                };
                match n.as_f64() {
                    Some(f) if f.fract() != 0.0 => {
                        Some(format!("{} must be an integer, not {n}", at()))
                    }
                    Some(f) if f < low || f > high => {
                        Some(format!("{} is out of range: {n}", at()))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

fn found_name(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "a table with named fields",
        Value::Array(_) => "a list",
        Value::String(_) => "a string",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::Null => "nil",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The quantities of these tests: `250m`, or any number.
    fn quantity(text: &str) -> Option<String> {
        (text != "250m" && text.parse::<f64>().is_err()).then(|| "no quantity".to_string())
    }

    #[test]
    fn a_pod_template_decodes_as_go_decodes_it() {
        let fine = json!({"metadata": {"labels": {"app": "a"}, "creationTimestamp": null},
            "spec": {"unknown": 5, "containers": [{"name": "a", "image": "a:1",
                "ports": [{"containerPort": 80}],
                "resources": {"requests": {"cpu": "250m", "memory": 64}}}]}});
        assert_eq!(pod_template_spec_fault(&fine, quantity), None);
        for (value, fault) in [
            (json!({"spec": 5}), "`spec` must be a mapping, not a number"),
            (
                json!({"spec": {"containers": "x"}}),
                "`spec.containers` must be a list, not a string",
            ),
            (
                json!({"spec": {"containers": [{"name": 1}]}}),
                "`spec.containers.0.name` must be a string, not a number",
            ),
            (
                json!({"spec": {"containers": [{"ports": [{"containerPort": 1.5}]}]}}),
                "`spec.containers.0.ports.0.containerPort` must be an integer",
            ),
            (
                json!({"spec": {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}}),
                "`spec.containers.0.resources.requests.cpu` is not a quantity",
            ),
            (
                json!({"metadata": {"labels": {"app": true}}}),
                "`metadata.labels.app` must be a string, not a boolean",
            ),
        ] {
            let found = pod_template_spec_fault(&value, quantity).unwrap_or_default();
            assert!(found.starts_with(fault), "{value}: {found}");
        }
    }
}
