//! The documents of a control plane export: each file's text parsed as
//! kubectl prints it (`-o yaml` or `-o json`, multi-document or a `List`),
//! every object remembering where it was written.

use crate::diag::{Code, Diagnostic, Diagnostics, Origin, Sources};
use crate::model::document::Document;
use crate::yaml::{self, Limits};
use serde_json::Value;

/// What was read from the export files, in the order given.
#[derive(Debug, Default)]
pub struct Export {
    pub sources: Sources,
    /// Every object, `List`s expanded.
    pub documents: Vec<Document>,
    pub diagnostics: Diagnostics,
}

/// Parse `files` (a path as the user named it, and its text).
pub fn parse(files: Vec<(String, String)>) -> Export {
    let mut export = Export::default();
    let limits = Limits::default();
    for (path, text) in files {
        let file = export.sources.add(path, text);
        match yaml::parse_stream(export.sources.text(file), &limits) {
            Ok(nodes) => {
                for node in nodes {
                    export.documents.extend(crate::load::classify::expand_lists(
                        file,
                        node,
                        &mut export.diagnostics,
                    ));
                }
            }
            Err(error) => export.diagnostics.push(
                Diagnostic::error(Code::Syntax, error.message)
                    .at_opt(error.pos.map(|pos| Origin { file, pos }))
                    .help(error.help),
            ),
        }
    }
    export
}

/// An object's type and name, as an export writes them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Identity {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

impl Identity {
    /// The group of `apiVersion`: empty for the core group.
    pub fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }

    /// `Kind/namespace/name`, or `Kind/name` when cluster-scoped, as
    /// garrison names applications.
    pub fn display(&self) -> String {
        match &self.namespace {
            Some(namespace) => format!("{}/{namespace}/{}", self.kind, self.name),
            None => format!("{}/{}", self.kind, self.name),
        }
    }
}

/// The identity of `value` (the object written at `doc`), or the fault:
/// an object without `apiVersion`, `kind` or `metadata.name`.
pub fn identify(doc: &Document, value: &Value) -> Result<Identity, Diagnostic> {
    let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str);
    let (Some(api_version), Some(kind)) = (text("/apiVersion"), text("/kind")) else {
        return Err(Diagnostic::error(
            Code::MissingTypeMeta,
            "this object has no `apiVersion` or no `kind`",
        )
        .at(doc.origin())
        .help("export with `kubectl get … -o yaml`, which writes both for every object"));
    };
    let Some(name) = text("/metadata/name").filter(|n| !n.is_empty()) else {
        return Err(Diagnostic::error(
            Code::InvalidName,
            format!("this `{kind}` has no `metadata.name`"),
        )
        .at(doc.at(&["metadata"]))
        .help("export the objects as the API server stores them: every one has a name"));
    };
    Ok(Identity {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        namespace: text("/metadata/namespace")
            .filter(|n| !n.is_empty())
            .map(str::to_string),
        name: name.to_string(),
    })
}
