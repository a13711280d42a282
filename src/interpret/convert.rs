//! Objects into Lua and back (karmada-semantics §f): JSON becomes Lua
//! tables, and what a script returns is given a JSON shape again, with the
//! empty tables and the key order of the input object restored as the
//! module documentation of [`super::lua`] says. The `kube` library and the
//! sandbox both convert through here.

use mlua::{Lua, Value as LuaValue};
use serde_json::{Map, Number, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Nesting deeper than this (or a table that contains itself) is refused.
const MAX_DEPTH: usize = 512;

/// A Lua value that has no JSON form. `path` is the dotted path of the
/// table at fault within the value (empty for the value itself).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConvertError {
    #[error("a returned table is nested too deeply or contains itself")]
    TooDeep,
    /// Lua failed while walking a table; its message.
    #[error("{message}")]
    Walk { message: String },
    #[error("a returned table has a key of type {found} that JSON cannot hold")]
    KeyType { found: &'static str },
    /// A function, userdata or thread.
    #[error("a {found} cannot be converted to JSON")]
    ValueType { found: &'static str },
    #[error(
        "the table at `{}` mixes array items and named fields",
        shown_path(path)
    )]
    MixedTable { path: String },
    #[error("the array at `{}` has holes (nil items)", shown_path(path))]
    ArrayHoles { path: String },
    /// Infinite or NaN.
    #[error("{value} is not a number JSON can hold")]
    NotANumber { value: f64 },
    /// An empty table to drop (see [`PATTERN_CHARACTERS`]) below a key
    /// Karmada cannot address.
    #[error(
        "the empty table at `{path}` cannot be dropped: a key on its path has one of `|`, `#`, `@`, `*`, `?`, which Karmada reads as a path pattern and refuses"
    )]
    UndroppableEmpty { path: String },
}

/// Karmada drops an empty table it cannot type (one the input object did
/// not have as an empty object or array at that path) by deleting its
/// dotted path from the encoded result (`convertEmptySliceToEmptyStructPartly`
/// with `sjson.Delete`). Its JSON path library takes a path with one of
/// these characters in a key for a pattern and refuses to delete it, so
/// the whole conversion fails: the script's result is an error there.
const PATTERN_CHARACTERS: [char; 5] = ['|', '#', '@', '*', '?'];

/// A table path as messages show it: `.` for the value itself.
fn shown_path(path: &str) -> &str {
    if path.is_empty() {
        "."
    } else {
        path
    }
}

/// A value returned by Lua, before it is given a JSON shape.
#[derive(Clone, Debug, PartialEq)]
pub enum Returned {
    Nil,
    Bool(bool),
    Number(f64),
    String(String),
    Table(Returns),
}

/// A Lua table: its string keys and its positive integer keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Returns {
    pub fields: BTreeMap<String, Returned>,
    pub items: BTreeMap<u64, Returned>,
}

impl Returned {
    pub fn type_name(&self) -> &'static str {
        match self {
            Returned::Nil => "nil",
            Returned::Bool(_) => "boolean",
            Returned::Number(_) => "number",
            Returned::String(_) => "string",
            Returned::Table(_) => "table",
        }
    }
}

/// JSON into Lua: objects and arrays become tables, null becomes nil (as
/// in Karmada, so `obj.spec.x == nil` tests work).
pub fn to_lua(lua: &Lua, value: &Value, depth: usize) -> mlua::Result<LuaValue> {
    if depth > MAX_DEPTH {
        return Err(mlua::Error::runtime("object is nested too deeply"));
    }
    Ok(match value {
        Value::Null => LuaValue::Nil,
        Value::Bool(b) => LuaValue::Boolean(*b),
        Value::Number(n) => LuaValue::Number(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => LuaValue::String(lua.create_string(s)?),
        Value::Array(items) => {
            let table = lua.create_table()?;
            for (i, item) in items.iter().enumerate() {
                table.raw_set(i + 1, to_lua(lua, item, depth + 1)?)?;
            }
            LuaValue::Table(table)
        }
        Value::Object(map) => {
            let table = lua.create_table()?;
            for (key, item) in map {
                table.raw_set(key.as_str(), to_lua(lua, item, depth + 1)?)?;
            }
            LuaValue::Table(table)
        }
    })
}

/// Lua into [`Returned`], refusing functions, userdata and cycles.
pub fn from_lua(value: &LuaValue, depth: usize) -> Result<Returned, ConvertError> {
    if depth > MAX_DEPTH {
        return Err(ConvertError::TooDeep);
    }
    Ok(match value {
        LuaValue::Nil => Returned::Nil,
        LuaValue::Boolean(b) => Returned::Bool(*b),
        LuaValue::Integer(i) => Returned::Number(*i as f64),
        LuaValue::Number(n) => Returned::Number(*n),
        LuaValue::String(s) => {
            Returned::String(String::from_utf8_lossy(&s.as_bytes()).into_owned())
        }
        LuaValue::Table(table) => {
            let mut result = Returns::default();
            for pair in table.pairs::<LuaValue, LuaValue>() {
                let (key, item) = pair.map_err(|e| ConvertError::Walk {
                    message: describe(&e),
                })?;
                let item = from_lua(&item, depth + 1)?;
                match key {
                    LuaValue::String(s) => {
                        result
                            .fields
                            .insert(String::from_utf8_lossy(&s.as_bytes()).into_owned(), item);
                    }
                    LuaValue::Integer(i) if i >= 1 => {
                        result.items.insert(i as u64, item);
                    }
                    LuaValue::Number(n) if n >= 1.0 && n.fract() == 0.0 && n < 9.0e15 => {
                        result.items.insert(n as u64, item);
                    }
                    other => {
                        return Err(ConvertError::KeyType {
                            found: other.type_name(),
                        })
                    }
                }
            }
            Returned::Table(result)
        }
        other => {
            return Err(ConvertError::ValueType {
                found: other.type_name(),
            })
        }
    })
}

/// Paths (array indices left out, as Karmada records them) of the empty
/// arrays and empty objects in the reference objects.
#[derive(Debug, Default)]
pub struct Empties {
    arrays: BTreeSet<String>,
    objects: BTreeSet<String>,
}

impl Empties {
    pub fn of(references: &[&Value]) -> Empties {
        let mut empties = Empties::default();
        for reference in references {
            empties.walk(reference, "");
        }
        empties
    }
    fn walk(&mut self, value: &Value, path: &str) {
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    let child = join(path, key);
                    match item {
                        Value::Array(a) if a.is_empty() => {
                            self.arrays.insert(child);
                        }
                        Value::Object(o) if o.is_empty() => {
                            self.objects.insert(child);
                        }
                        _ => self.walk(item, &child),
                    }
                }
            }
            Value::Array(items) => {
                for item in items {
                    match item {
                        Value::Array(a) if a.is_empty() => {
                            self.arrays.insert(path.to_string());
                        }
                        Value::Object(o) if o.is_empty() => {
                            self.objects.insert(path.to_string());
                        }
                        _ => self.walk(item, path),
                    }
                }
            }
            _ => {}
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Give a returned table a JSON shape: `order` is the input object at the
/// same place (for key order), `empties` says what an empty table was.
pub fn to_json(
    returned: &Returned,
    order: Option<&Value>,
    empties: &Empties,
) -> Result<Value, ConvertError> {
    match returned {
        Returned::Table(t) if t.fields.is_empty() && t.items.is_empty() => Ok(match order {
            Some(Value::Array(_)) => Value::Array(Vec::new()),
            _ => Value::Object(Map::new()),
        }),
        _ => shape(returned, order, empties, "").map(|v| v.unwrap_or(Value::Null)),
    }
}

/// `None` when the value is an empty table Karmada would drop.
fn shape(
    returned: &Returned,
    order: Option<&Value>,
    empties: &Empties,
    path: &str,
) -> Result<Option<Value>, ConvertError> {
    Ok(Some(match returned {
        Returned::Nil => Value::Null,
        Returned::Bool(b) => Value::Bool(*b),
        Returned::String(s) => Value::String(s.clone()),
        Returned::Number(n) => number(*n)?,
        Returned::Table(t) if t.fields.is_empty() && t.items.is_empty() => {
            if empties.objects.contains(path) {
                // Karmada writes `{}` back by the same dotted path through
                // a lookup that reads `|` as a pipe: it finds nothing there
                // and the empty table stays the empty array Lua encoded.
                if path.contains('|') {
                    Value::Array(Vec::new())
                } else {
                    Value::Object(Map::new())
                }
            } else if empties.arrays.contains(path) {
                Value::Array(Vec::new())
            } else if path.contains(PATTERN_CHARACTERS) {
                return Err(ConvertError::UndroppableEmpty {
                    path: path.to_string(),
                });
            } else {
                return Ok(None);
            }
        }
        Returned::Table(t) if !t.items.is_empty() && !t.fields.is_empty() => {
            return Err(ConvertError::MixedTable {
                path: path.to_string(),
            })
        }
        Returned::Table(t) if !t.items.is_empty() => {
            let count = t.items.len() as u64;
            if t.items.keys().next_back() != Some(&count) {
                return Err(ConvertError::ArrayHoles {
                    path: path.to_string(),
                });
            }
            let reference = order.and_then(Value::as_array);
            let mut items = Vec::new();
            for (i, item) in t.items.values().enumerate() {
                let child_order = reference.and_then(|r| r.get(i));
                if let Some(v) = shape(item, child_order, empties, path)? {
                    items.push(v);
                }
            }
            Value::Array(items)
        }
        Returned::Table(t) => {
            let reference = order.and_then(Value::as_object);
            let mut map = Map::new();
            let put = |key: &str, map: &mut Map<String, Value>| -> Result<(), ConvertError> {
                if let Some(item) = t.fields.get(key) {
                    let child_order = reference.and_then(|r| r.get(key));
                    if let Some(v) = shape(item, child_order, empties, &join(path, key))? {
                        map.insert(key.to_string(), v);
                    }
                }
                Ok(())
            };
            if let Some(reference) = reference {
                for key in reference.keys() {
                    put(key, &mut map)?;
                }
            }
            for key in t.fields.keys() {
                if !reference.is_some_and(|r| r.contains_key(key)) {
                    put(key, &mut map)?;
                }
            }
            Value::Object(map)
        }
    }))
}

/// A Lua number as JSON: whole numbers become integers, as Karmada's
/// round trip through float64 and `unstructured` does.
fn number(n: f64) -> Result<Value, ConvertError> {
    if !n.is_finite() {
        return Err(ConvertError::NotANumber { value: n });
    }
    if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        return Ok(Value::from(n as i64));
    }
    Number::from_f64(n)
        .map(Value::Number)
        .ok_or(ConvertError::NotANumber { value: n })
}

/// The message of an error without mlua's traceback.
pub fn describe(error: &mlua::Error) -> String {
    let text = match error {
        mlua::Error::CallbackError { cause, .. } => return describe(cause),
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::RuntimeError(message) | mlua::Error::MemoryError(message) => message.clone(),
        other => other.to_string(),
    };
    text.split("\nstack traceback:")
        .next()
        .unwrap_or_default()
        .trim()
        .to_string()
}
