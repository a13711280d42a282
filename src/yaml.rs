//! YAML and JSON text into documents that remember where every node was written.
//!
//! Each document is read once into a [`Node`] tree whose every node carries its
//! line and column. The tree converts to `serde_json::Value` (key order kept) for
//! the rest of garrison, and answers "where was `/spec/placement` written?" for
//! diagnostics. Parsing follows kubectl's reader: YAML 1.1 booleans, legacy
//! octal numbers (`0644` is 420), duplicate keys refused, empty documents skipped.

use crate::node::{Node, NodeKind, Pos};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;
use serde_saphyr::{Location, Spanned};
use std::fmt;

/// Limits on one file's parse; defaults are documented in `docs/reference.md`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_documents: usize,
    pub max_nodes: usize,
    pub max_depth: usize,
    pub max_aliases: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_documents: 10_000,
            max_nodes: 2_000_000,
            max_depth: 64,
            max_aliases: 1_000,
        }
    }
}

/// A parser location as a [`Pos`].
fn pos_of(location: &Location) -> Pos {
    Pos {
        line: u32::try_from(location.line()).unwrap_or(u32::MAX),
        column: u32::try_from(location.column()).unwrap_or(u32::MAX),
    }
}

/// A parse failure with the position the parser gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub pos: Option<Pos>,
    pub message: String,
    /// What to do about it.
    pub help: String,
}

/// Parse a whole stream (`---`-separated documents) into nodes.
pub fn parse_stream(text: &str, limits: &Limits) -> Result<Vec<Node>, ParseError> {
    let mut options = serde_saphyr::Options::default();
    options.legacy_octal_numbers = true;
    options.with_snippet = false;
    let mut budget = serde_saphyr::Budget::default();
    budget.max_documents = limits.max_documents;
    budget.max_nodes = limits.max_nodes;
    budget.max_events = limits.max_nodes.saturating_mul(4);
    budget.max_depth = limits.max_depth;
    budget.max_aliases = limits.max_aliases;
    options.budget = Some(budget);
    let docs: Vec<Spanned<RawNode>> = serde_saphyr::from_str_multiple_with_options(text, options)
        .map_err(|error| {
        let (message, help) = explain(&error, limits);
        let mut pos = error.location().map(|l| pos_of(&l));
        // Point at the tab itself, not at the text after it.
        if let Some(pos) = pos.as_mut().filter(|_| message.contains("tab")) {
            let line = text.lines().nth((pos.line as usize).saturating_sub(1));
            if let Some(tab) = line.and_then(|l| l.find('\t')) {
                pos.column = u32::try_from(tab + 1).unwrap_or(pos.column);
            }
        }
        ParseError { pos, message, help }
    })?;
    Ok(docs.into_iter().map(RawNode::into_node).collect())
}

/// The parser's fault in garrison's words, with what to do about it.
fn explain(error: &serde_saphyr::Error, limits: &Limits) -> (String, String) {
    use serde_saphyr::budget::BudgetBreach;
    use serde_saphyr::Error;
    let mut inner = error;
    while let Error::AliasError { error, .. } | Error::WithSnippet { error, .. } = inner {
        inner = error;
    }
    match inner {
        Error::DuplicateMappingKey { key, .. } => {
            let key = key
                .as_deref()
                .map(|k| format!(" `{k}`"))
                .unwrap_or_default();
            (
                format!("duplicate key{key} in this mapping"),
                format!("keep one{key} key: kubectl refuses duplicate keys too"),
            )
        }
        Error::Budget { breach, .. } => match breach {
            BudgetBreach::Depth { .. } => (
                format!(
                    "the document is nested more than {} levels deep",
                    limits.max_depth
                ),
                "flatten the document, or raise `limits.maxDepth` in garrison.yaml".into(),
            ),
            BudgetBreach::Documents { .. } => (
                format!("the file has more than {} documents", limits.max_documents),
                "split the file, or raise `limits.maxDocuments` in garrison.yaml".into(),
            ),
            BudgetBreach::Nodes { .. } | BudgetBreach::Events { .. } => (
                format!("the file has more than {} YAML nodes", limits.max_nodes),
                "split the file, or raise `limits.maxNodes` in garrison.yaml".into(),
            ),
            BudgetBreach::Aliases { .. } => (
                format!("the file uses more than {} aliases", limits.max_aliases),
                "write the values out, or raise `limits.maxAliases` in garrison.yaml".into(),
            ),
            BudgetBreach::RecordedAnchorEvents { .. }
            | BudgetBreach::RecordedAnchorBytes { .. }
            | BudgetBreach::AliasAnchorRatio { .. }
            | BudgetBreach::Anchors { .. }
            | BudgetBreach::MergeKeys { .. } => (
                "aliases here expand to too much data (an alias bomb)".into(),
                "write the repeated values out instead of nesting aliases of aliases".into(),
            ),
            other => (
                format!("the file exceeds a parse limit ({other:?})"),
                "split the file, or raise the matching `limits` in garrison.yaml".into(),
            ),
        },
        other => {
            let message = first_line(&other.to_string());
            let help = if message.contains("tab") {
                "indent with spaces: YAML does not allow tabs in indentation"
            } else if message.contains("mapping values are not allowed") {
                "check this line's indentation: the keys of one mapping start in the same column"
            } else if message.contains("quote") {
                "close the quoted string on this line, or remove its opening quote"
            } else {
                "fix the YAML at this position"
            };
            (message, help.into())
        }
    }
}

pub(super) fn first_line(message: &str) -> String {
    let message = message.trim();
    let line = message.lines().next().unwrap_or(message);
    // The parser prefixes its own position; garrison prints positions itself.
    let line = match line.strip_prefix("error: ") {
        Some(rest) => rest,
        None => line,
    };
    let line = match line.find(": ") {
        Some(i) if line[..i].starts_with("line ") => &line[i + 2..],
        _ => line,
    };
    // ...and sometimes suffixes it.
    match line.find(" at line ") {
        Some(i) => line[..i].to_string(),
        None => line.to_string(),
    }
}

/// The deserialised tree before positions are folded in.
enum RawNode {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Seq(Vec<Spanned<RawNode>>),
    Map(Vec<(Spanned<String>, Spanned<RawNode>)>),
}

impl RawNode {
    fn into_node(spanned: Spanned<RawNode>) -> Node {
        let pos = pos_of(&spanned.referenced);
        let kind = match spanned.value {
            RawNode::Null => NodeKind::Null,
            RawNode::Bool(b) => NodeKind::Bool(b),
            RawNode::Number(n) => NodeKind::Number(n),
            RawNode::String(s) => NodeKind::String(s),
            RawNode::Seq(items) => {
                NodeKind::Seq(items.into_iter().map(RawNode::into_node).collect())
            }
            RawNode::Map(entries) => NodeKind::Map(
                entries
                    .into_iter()
                    .map(|(key, value)| {
                        (
                            key.value,
                            pos_of(&key.referenced),
                            RawNode::into_node(value),
                        )
                    })
                    .collect(),
            ),
        };
        Node { pos, kind }
    }
}

impl<'de> Deserialize<'de> for RawNode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = RawNode;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<RawNode, E> {
        Ok(RawNode::Null)
    }
    fn visit_none<E>(self) -> Result<RawNode, E> {
        Ok(RawNode::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<RawNode, D::Error> {
        RawNode::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<RawNode, E> {
        Ok(RawNode::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<RawNode, E> {
        Ok(RawNode::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<RawNode, E> {
        Ok(RawNode::Number(v.into()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<RawNode, E> {
        match i64::try_from(v) {
            Ok(v) => Ok(RawNode::Number(v.into())),
            Err(_) => self.visit_f64(v as f64),
        }
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<RawNode, E> {
        match u64::try_from(v) {
            Ok(v) => Ok(RawNode::Number(v.into())),
            Err(_) => self.visit_f64(v as f64),
        }
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawNode, E> {
        // Integral floats stay floats (`1.0`); JSON has no NaN or infinity,
        // and kubectl refuses them too.
        Number::from_f64(v).map(RawNode::Number).ok_or_else(|| {
            E::custom("`.inf` and `.nan` cannot be represented in a Kubernetes object")
        })
    }
    fn visit_str<E>(self, v: &str) -> Result<RawNode, E> {
        Ok(RawNode::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<RawNode, E> {
        Ok(RawNode::String(v))
    }
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<RawNode, E> {
        Err(E::custom(
            "binary values are not supported; use a base64 string",
        ))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawNode, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(RawNode::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawNode, A::Error> {
        let mut entries: Vec<(Spanned<String>, Spanned<RawNode>)> =
            Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some(key) = map.next_key::<Spanned<KeyString>>()? {
            let value = map.next_value()?;
            let key = Spanned {
                value: key.value.0,
                referenced: key.referenced,
                defined: key.defined,
            };
            entries.push((key, value));
        }
        Ok(RawNode::Map(entries))
    }
}

/// Map keys as strings, the way kubectl turns `1: x` or `true: x` into JSON keys.
struct KeyString(String);

impl<'de> Deserialize<'de> for KeyString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = KeyString;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a scalar map key")
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<KeyString, E> {
                Ok(KeyString(v))
            }
            fn visit_bool<E>(self, v: bool) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_unit<E>(self) -> Result<KeyString, E> {
                Ok(KeyString("null".to_string()))
            }
        }
        deserializer.deserialize_any(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<Node> {
        match parse_stream(text, &Limits::default()) {
            Ok(nodes) => nodes,
            Err(e) => panic!("parse failed: {e:?}"),
        }
    }

    #[test]
    fn documents_keep_their_stream_positions() {
        let docs = parse("a: 1\n---\n# c\nkind: X\nspec:\n  ports: [1, 2]\n");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].locate(&["kind"]), Pos { line: 4, column: 7 });
        assert_eq!(
            docs[1].locate(&["spec", "ports", "1"]),
            Pos {
                line: 6,
                column: 14
            }
        );
        assert_eq!(docs[1].locate_key(&["spec"]), Pos { line: 5, column: 1 });
    }

    #[test]
    fn empty_documents_are_skipped_like_kubectl() {
        let docs = parse("---\n# only a comment\n---\na: 1\n...\n---\n");
        assert_eq!(docs.len(), 1);
    }

    #[test]
    fn scalars_read_as_kubectl_reads_them() {
        let docs = parse(
            "mode: 0644\nyes_word: yes\nquoted: \"yes\"\nbig: 1_000\nf: 1.5\nkey_int: {1: a}\n",
        );
        let value = docs[0].to_value();
        assert_eq!(
            value,
            serde_json::json!({"mode": 420, "yes_word": true, "quoted": "yes", "big": 1000, "f": 1.5, "key_int": {"1": "a"}})
        );
    }

    #[test]
    fn yaml_1_1_boolean_keys_become_strings_like_kubectl() {
        let docs = parse("n: 1\non: 2\n");
        assert_eq!(
            docs[0].to_value(),
            serde_json::json!({"false": 1, "true": 2})
        );
    }

    #[test]
    fn key_order_is_kept() {
        let docs = parse("b: 1\na: 2\nc: {z: 1, y: 2}\n");
        let keys: Vec<String> = docs[0]
            .to_value()
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        assert_eq!(keys, ["b", "a", "c"]);
    }

    #[test]
    fn duplicate_keys_are_an_error_with_a_position() {
        let err = parse_stream("a: 1\na: 2\n", &Limits::default()).err();
        let err = err
            .as_ref()
            .map(|e| (e.pos.map(|p| p.line), e.message.contains("uplicate")));
        assert_eq!(err, Some((Some(2), true)));
    }

    #[test]
    fn alias_bombs_stop_at_the_budget() {
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n";
        assert!(parse_stream(bomb, &Limits::default()).is_err());
    }
}
