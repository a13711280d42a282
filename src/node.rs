//! A document as it was written: values that remember their line and column.
//!
//! The YAML reader (`yaml`) produces [`Node`] trees; diagnostics point
//! at a [`Pos`]; typed inputs keep their tree so later stages can name the
//! exact field they complain about. A low module: it knows nothing of YAML
//! syntax, Kubernetes or garrison's inputs.

use serde_json::{Map, Number, Value};

/// A 1-based line and column in a source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

/// One YAML node with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub pos: Pos,
    pub kind: NodeKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Seq(Vec<Node>),
    /// Entries in document order: (key, key position, value).
    Map(Vec<(String, Pos, Node)>),
}

impl Node {
    /// The value without positions, key order kept.
    pub fn to_value(&self) -> Value {
        match &self.kind {
            NodeKind::Null => Value::Null,
            NodeKind::Bool(b) => Value::Bool(*b),
            NodeKind::Number(n) => Value::Number(n.clone()),
            NodeKind::String(s) => Value::String(s.clone()),
            NodeKind::Seq(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            NodeKind::Map(entries) => {
                let mut map = Map::with_capacity(entries.len());
                for (key, _, value) in entries {
                    map.insert(key.clone(), value.to_value());
                }
                Value::Object(map)
            }
        }
    }

    /// A tree for `value` whose every node is placed at `pos`: for values
    /// garrison makes (a default, an override's result) that must be checked
    /// like written ones.
    pub fn from_value(value: &Value, pos: Pos) -> Node {
        let kind = match value {
            Value::Null => NodeKind::Null,
            Value::Bool(b) => NodeKind::Bool(*b),
            Value::Number(n) => NodeKind::Number(n.clone()),
            Value::String(s) => NodeKind::String(s.clone()),
            Value::Array(items) => {
                NodeKind::Seq(items.iter().map(|v| Node::from_value(v, pos)).collect())
            }
            Value::Object(map) => NodeKind::Map(
                map.iter()
                    .map(|(k, v)| (k.clone(), pos, Node::from_value(v, pos)))
                    .collect(),
            ),
        };
        Node { pos, kind }
    }

    /// The position of the node at `path` (JSON-pointer segments), or of the
    /// deepest ancestor that exists: a missing field is reported where its
    /// parent was written.
    pub fn locate(&self, path: &[&str]) -> Pos {
        match self.descend(path) {
            Ok(node) | Err(node) => node.pos,
        }
    }

    /// The node at `path` (JSON-pointer segments), if it is written.
    pub fn get_path(&self, path: &[&str]) -> Option<&Node> {
        self.descend(path).ok()
    }

    /// The node at `path`; when there is none, the deepest ancestor of it
    /// that exists, as the error.
    fn descend(&self, path: &[&str]) -> Result<&Node, &Node> {
        let mut node = self;
        for segment in path {
            let next = match &node.kind {
                NodeKind::Map(entries) => entries
                    .iter()
                    .find(|(key, _, _)| key == segment)
                    .map(|(_, _, value)| value),
                NodeKind::Seq(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            match next {
                Some(child) => node = child,
                None => return Err(node),
            }
        }
        Ok(node)
    }

    /// The position of the key `path`'s last segment names, for faults in the key itself.
    pub fn locate_key(&self, path: &[&str]) -> Pos {
        let Some((last, parent)) = path.split_last() else {
            return self.pos;
        };
        let node = match self.descend(parent) {
            Ok(node) => node,
            Err(ancestor) => return ancestor.pos,
        };
        if let NodeKind::Map(entries) = &node.kind {
            if let Some((_, pos, _)) = entries.iter().find(|(key, _, _)| key == last) {
                return *pos;
            }
        }
        self.locate(path)
    }
}

/// A field path as users write it: `spec.clusters[0].name`.
pub fn display_path(path: &[String]) -> String {
    let mut shown = String::new();
    for segment in path {
        if segment.parse::<usize>().is_ok() {
            shown.push('[');
            shown.push_str(segment);
            shown.push(']');
        } else {
            if !shown.is_empty() {
                shown.push('.');
            }
            shown.push_str(segment);
        }
    }
    shown
}

/// What a node holds, in a user's words.
pub fn describe(node: &Node) -> String {
    match &node.kind {
        NodeKind::Null => "null".into(),
        NodeKind::Bool(b) => format!("the boolean `{b}`"),
        NodeKind::Number(n) => format!("the number `{n}`"),
        NodeKind::String(s) => format!("the string `{}`", s.escape_debug()),
        NodeKind::Seq(_) => "a list".into(),
        NodeKind::Map(_) => "a mapping".into(),
    }
}

/// A scalar where a string is expected: say why YAML made it one.
pub fn quote_hint(node: &Node) -> &'static str {
    match node.kind {
        NodeKind::Bool(_) | NodeKind::Number(_) => {
            "; quote it: YAML reads `yes`, `no`, `on`, `off`, `y`, `n` as booleans and `0777`, `1e3` as numbers"
        }
        _ => "",
    }
}
