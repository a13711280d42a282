//! Typed inputs read straight from the positioned YAML tree, as strictly as
//! `kubectl apply` reads them (strict field validation).
//!
//! [`from_node`] is a serde deserializer over a [`Node`]: every fault carries
//! the line and column of the node it is about, and the path of fields that
//! leads there. It reads the way Kubernetes' JSON decoding does:
//!
//! - a field the type does not declare is an error ([`Fault::UnknownField`]),
//!   with the declared fields at hand for a "did you mean";
//! - `null` is the empty value of whatever is expected (Go's decoder leaves
//!   the zero value): an empty list, map or struct, `false`, `0`, `""`;
//! - integers must fit their Go type (`replicas: 99999999999` is refused, not
//!   wrapped); an integral float (`3.0`) is an integer, as kubectl turns it
//!   into `3` before sending it;
//! - a string field does not take a boolean or a number: YAML 1.1 reads `yes`
//!   as `true`, and kubectl sends `true`, which the API server refuses.
//!
//! Types with `#[serde(flatten)]` cannot say which fields they declare, so the
//! typed inputs declare every field instead.

use crate::node::{describe, quote_hint, Node, NodeKind, Pos};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use std::cell::RefCell;
use std::fmt;

/// One fault in a typed document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A field the type does not declare.
    UnknownField {
        /// Fields leading to the mapping that holds it.
        path: Vec<String>,
        field: String,
        /// Where the key is written.
        pos: Pos,
        /// The fields the mapping may hold.
        known: Vec<&'static str>,
    },
    /// A value of the wrong type or range, or a missing required field.
    Invalid {
        path: Vec<String>,
        message: String,
        pos: Pos,
    },
}

/// Whether fields the type does not declare are faults (inputs the user
/// writes) or skipped (garrison's own output, read back from an older version).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fields {
    Strict,
    Lenient,
}

/// Read `node` as a `T`. On success, the unknown fields found (none when
/// lenient); on failure, those plus the fault that stopped the read.
pub fn from_node<T: DeserializeOwned>(
    node: &Node,
    fields: Fields,
) -> Result<(T, Vec<Fault>), Vec<Fault>> {
    let unknown = RefCell::new(Vec::new());
    let deserializer = NodeDeserializer {
        node,
        path: Vec::new(),
        fields,
        unknown: &unknown,
    };
    match T::deserialize(deserializer) {
        Ok(value) => Ok((value, unknown.into_inner())),
        Err(error) => {
            let mut faults = unknown.into_inner();
            faults.push(Fault::Invalid {
                path: error.path.unwrap_or_default(),
                message: error.message,
                pos: error.pos.unwrap_or(node.pos),
            });
            Err(faults)
        }
    }
}

/// A fault that stops the read; where it happened is filled in by the
/// innermost node that sees it pass.
#[derive(Debug)]
pub struct Error {
    message: String,
    pos: Option<Pos>,
    path: Option<Vec<String>>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<M: fmt::Display>(message: M) -> Self {
        Error {
            message: message.to_string(),
            pos: None,
            path: None,
        }
    }
}

impl Error {
    fn placed(mut self, pos: Pos, path: &[String]) -> Self {
        if self.pos.is_none() {
            self.pos = Some(pos);
            self.path = Some(path.to_vec());
        }
        self
    }
}

struct NodeDeserializer<'a, 'u> {
    node: &'a Node,
    path: Vec<String>,
    fields: Fields,
    unknown: &'u RefCell<Vec<Fault>>,
}

impl<'a, 'u> NodeDeserializer<'a, 'u> {
    fn child(&self, node: &'a Node, segment: String) -> NodeDeserializer<'a, 'u> {
        let mut path = self.path.clone();
        path.push(segment);
        NodeDeserializer {
            node,
            path,
            fields: self.fields,
            unknown: self.unknown,
        }
    }

    fn fail(&self, message: String) -> Error {
        Error {
            message,
            pos: Some(self.node.pos),
            path: Some(self.path.clone()),
        }
    }

    fn expected(&self, what: &str) -> Error {
        self.fail(format!("expected {what}, found {}", describe(self.node)))
    }

    /// An integer of the range `min..=max`, as i128 so every Go integer fits.
    fn integer(&self, min: i128, max: i128, what: &str) -> Result<i128, Error> {
        let value = match &self.node.kind {
            NodeKind::Null => return Ok(0),
            NodeKind::Number(n) => n
                .as_i64()
                .map(i128::from)
                .or_else(|| n.as_u64().map(i128::from))
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 1e38)
                        .map(|f| f as i128)
                }),
            _ => None,
        };
        match value {
            Some(v) if (min..=max).contains(&v) => Ok(v),
            Some(v) => Err(self.fail(format!("{v} is out of range for {what} ({min} to {max})"))),
            None => Err(self.expected(&format!("an integer ({what})"))),
        }
    }

    fn finish<T>(&self, result: Result<T, Error>) -> Result<T, Error> {
        result.map_err(|e| e.placed(self.node.pos, &self.path))
    }
}

macro_rules! integers {
    ($($method:ident $visit:ident $ty:ty, $name:literal;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            let value = self.integer(i128::from(<$ty>::MIN), i128::from(<$ty>::MAX), $name)?;
            let value = <$ty>::try_from(value).map_err(|_| self.expected($name))?;
            self.finish(visitor.$visit(value))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for NodeDeserializer<'_, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let result = match &self.node.kind {
            NodeKind::Null => visitor.visit_unit(),
            NodeKind::Bool(b) => visitor.visit_bool(*b),
            NodeKind::Number(n) => {
                if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(0.0))
                }
            }
            NodeKind::String(s) => visitor.visit_string(s.clone()),
            NodeKind::Seq(items) => visitor.visit_seq(SeqAccess {
                parent: &self,
                items: items.iter().enumerate(),
            }),
            NodeKind::Map(entries) => visitor.visit_map(MapAccess {
                parent: &self,
                entries: entries.iter(),
                declared: None,
                value: None,
            }),
        };
        self.finish(result)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let value = match &self.node.kind {
            NodeKind::Bool(b) => *b,
            NodeKind::Null => false,
            _ => return Err(self.expected("a boolean (true or false)")),
        };
        self.finish(visitor.visit_bool(value))
    }

    integers! {
        deserialize_i8 visit_i8 i8, "int8";
        deserialize_i16 visit_i16 i16, "int16";
        deserialize_i32 visit_i32 i32, "int32";
        deserialize_i64 visit_i64 i64, "int64";
        deserialize_u8 visit_u8 u8, "uint8";
        deserialize_u16 visit_u16 u16, "uint16";
        deserialize_u32 visit_u32 u32, "uint32";
        deserialize_u64 visit_u64 u64, "uint64";
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let value = match &self.node.kind {
            NodeKind::Number(n) => n.as_f64().unwrap_or(0.0),
            NodeKind::Null => 0.0,
            _ => return Err(self.expected("a number")),
        };
        self.finish(visitor.visit_f64(value))
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let value = match &self.node.kind {
            NodeKind::String(s) => s.clone(),
            NodeKind::Null => String::new(),
            _ => {
                return Err(self.fail(format!(
                    "expected a string, found {}{}",
                    describe(self.node),
                    quote_hint(self.node)
                )))
            }
        };
        self.finish(visitor.visit_string(value))
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if matches!(self.node.kind, NodeKind::Null) {
            return self.finish(visitor.visit_none());
        }
        let (pos, path) = (self.node.pos, self.path.clone());
        visitor.visit_some(self).map_err(|e| e.placed(pos, &path))
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.kind {
            NodeKind::Null => self.finish(visitor.visit_unit()),
            _ => Err(self.expected("null")),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (pos, path) = (self.node.pos, self.path.clone());
        visitor
            .visit_newtype_struct(self)
            .map_err(|e| e.placed(pos, &path))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let items: &[Node] = match &self.node.kind {
            NodeKind::Seq(items) => items,
            NodeKind::Null => &[],
            _ => return Err(self.expected("a list")),
        };
        let result = visitor.visit_seq(SeqAccess {
            parent: &self,
            items: items.iter().enumerate(),
        });
        self.finish(result)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.mapping(None, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.mapping(Some(fields), visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match &self.node.kind {
            NodeKind::String(s) if variants.contains(&s.as_str()) => {
                let result = visitor.visit_enum(s.as_str().into_deserializer());
                self.finish(result)
            }
            NodeKind::String(s) => {
                let hint = crate::diag::closest(s, variants.iter().copied())
                    .map(|c| format!("; did you mean `{c}`?"))
                    .unwrap_or_default();
                Err(self.fail(format!(
                    "`{}` is not one of {}{hint}",
                    s.escape_debug(),
                    variants
                        .iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
            _ => Err(self.fail(format!(
                "expected one of {}, found {}{}",
                variants
                    .iter()
                    .map(|v| format!("`{v}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                describe(self.node),
                quote_hint(self.node)
            ))),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

impl<'a, 'u> NodeDeserializer<'a, 'u> {
    fn mapping<'de, V: Visitor<'de>>(
        self,
        declared: Option<&'static [&'static str]>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let entries: &[(String, Pos, Node)] = match &self.node.kind {
            NodeKind::Map(entries) => entries,
            NodeKind::Null => &[],
            _ => return Err(self.expected("a mapping")),
        };
        let result = visitor.visit_map(MapAccess {
            parent: &self,
            entries: entries.iter(),
            declared,
            value: None,
        });
        self.finish(result)
    }
}

struct SeqAccess<'p, 'a, 'u> {
    parent: &'p NodeDeserializer<'a, 'u>,
    items: std::iter::Enumerate<std::slice::Iter<'a, Node>>,
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, '_, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.items.next() {
            Some((index, node)) => seed
                .deserialize(self.parent.child(node, index.to_string()))
                .map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapAccess<'p, 'a, 'u> {
    parent: &'p NodeDeserializer<'a, 'u>,
    entries: std::slice::Iter<'a, (String, Pos, Node)>,
    /// The fields a struct declares; `None` for a map, which takes any key.
    declared: Option<&'static [&'static str]>,
    value: Option<(&'a String, &'a Node)>,
}

impl<'de> de::MapAccess<'de> for MapAccess<'_, '_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        for (key, key_pos, value) in self.entries.by_ref() {
            // Every object's TypeMeta (`apiVersion`, `kind`) is read by
            // classification, not by the type.
            let type_meta = self.parent.path.is_empty() && (key == "apiVersion" || key == "kind");
            if let Some(declared) = self
                .declared
                .filter(|d| !d.contains(&key.as_str()) && !type_meta)
            {
                if self.parent.fields == Fields::Strict {
                    self.parent.unknown.borrow_mut().push(Fault::UnknownField {
                        path: self.parent.path.clone(),
                        field: key.clone(),
                        pos: *key_pos,
                        known: declared.to_vec(),
                    });
                }
                continue;
            }
            self.value = Some((key, value));
            return seed
                .deserialize(key.as_str().into_deserializer())
                .map(Some)
                .map_err(|e: Error| e.placed(*key_pos, &self.parent.path));
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some((key, node)) => seed.deserialize(self.parent.child(node, key.clone())),
            None => Err(de::Error::custom("a value was read before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::yaml::{parse_stream, Limits};
    use serde::Deserialize;
    use std::collections::BTreeMap;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Selector {
        #[serde(default)]
        match_labels: BTreeMap<String, String>,
        #[serde(default)]
        match_expressions: Vec<String>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Spec {
        #[serde(default)]
        priority: Option<i32>,
        #[serde(default)]
        label_selector: Option<Selector>,
        #[serde(default)]
        kind: Option<Kind>,
        #[serde(default)]
        name: String,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    enum Kind {
        Duplicated,
        Divided,
    }

    fn node(text: &str) -> Node {
        match parse_stream(text, &Limits::default()) {
            Ok(mut nodes) if !nodes.is_empty() => nodes.remove(0),
            other => panic!("{other:?}"),
        }
    }

    fn read(text: &str) -> Result<(Spec, Vec<Fault>), Vec<Fault>> {
        from_node::<Spec>(&node(text), Fields::Strict)
    }

    #[test]
    fn an_unknown_field_is_a_fault_at_its_key_with_the_declared_fields() {
        let result = read("labelSelector:\n  matchLabel:\n    env: prod\n");
        let Ok((spec, faults)) = result else {
            panic!("{result:?}")
        };
        assert_eq!(
            spec.label_selector,
            Some(Selector {
                match_labels: BTreeMap::new(),
                match_expressions: vec![]
            })
        );
        assert_eq!(
            faults,
            vec![Fault::UnknownField {
                path: vec!["labelSelector".into()],
                field: "matchLabel".into(),
                pos: Pos { line: 2, column: 3 },
                known: vec!["matchLabels", "matchExpressions"],
            }]
        );
    }

    #[test]
    fn lenient_reading_skips_unknown_fields() {
        let result = from_node::<Spec>(&node("extra: 1\nname: a\n"), Fields::Lenient);
        assert!(
            matches!(result, Ok((ref s, ref f)) if s.name == "a" && f.is_empty()),
            "{result:?}"
        );
    }

    #[test]
    fn null_is_the_empty_value_like_go() {
        let result =
            read("labelSelector:\n  matchLabels:\n  matchExpressions: ~\nname: ~\npriority: ~\n");
        let Ok((spec, faults)) = result else {
            panic!("{result:?}")
        };
        assert!(faults.is_empty());
        assert_eq!(spec.name, "");
        assert_eq!(spec.priority, None);
        assert_eq!(spec.label_selector.map(|s| s.match_labels.len()), Some(0));
    }

    #[test]
    fn integers_must_fit_and_may_be_written_as_integral_floats() {
        assert!(matches!(
            read("priority: 3.0\n"),
            Ok((
                Spec {
                    priority: Some(3),
                    ..
                },
                _
            ))
        ));
        let faults = read("priority: 99999999999\n").err();
        assert_eq!(
            faults,
            Some(vec![Fault::Invalid {
                path: vec!["priority".into()],
                message: "99999999999 is out of range for int32 (-2147483648 to 2147483647)".into(),
                pos: Pos {
                    line: 1,
                    column: 11
                },
            }])
        );
        let faults = read("priority: \"3\"\n").err();
        assert!(
            matches!(&faults, Some(f) if matches!(&f[0], Fault::Invalid { message, .. } if message == "expected an integer (int32), found the string `3`")),
            "{faults:?}"
        );
    }

    #[test]
    fn a_boolean_is_not_a_string() {
        let faults = read("name: yes\n").err();
        assert!(
            matches!(&faults, Some(f) if matches!(&f[0], Fault::Invalid { message, pos, .. } if message.starts_with("expected a string, found the boolean `true`; quote it") && pos.line == 1)),
            "{faults:?}"
        );
    }

    #[test]
    fn an_unknown_enum_value_suggests_the_closest() {
        let faults = read("kind: Dvided\n").err();
        assert!(
            matches!(&faults, Some(f) if matches!(&f[0], Fault::Invalid { message, .. } if message == "`Dvided` is not one of `Duplicated`, `Divided`; did you mean `Divided`?")),
            "{faults:?}"
        );
    }

    #[test]
    fn a_missing_required_field_points_at_its_mapping() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Needs {
            inner: Inner,
        }
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Inner {
            name: String,
        }
        let faults = from_node::<Needs>(&node("inner:\n  other: 1\n"), Fields::Strict).err();
        assert_eq!(
            faults,
            Some(vec![
                Fault::UnknownField {
                    path: vec!["inner".into()],
                    field: "other".into(),
                    pos: Pos { line: 2, column: 3 },
                    known: vec!["name"],
                },
                Fault::Invalid {
                    path: vec!["inner".into()],
                    message: "missing field `name`".into(),
                    pos: Pos { line: 2, column: 3 },
                }
            ])
        );
    }
}
