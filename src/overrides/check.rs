//! What a plaintext override writes, checked against the schema of each kind
//! it applies to (SPEC §10).
//!
//! A `plaintext` `add` or `replace` writes any value at any path. Karmada
//! would apply it and the member cluster's API server would then refuse
//! the object; garrison refuses the override instead, once per override
//! and kind (not per cluster): a path into a field the kind does not have
//! is G0109 at the path, a value its field does not allow is G0104 at the
//! value. Paths into free-form data (`x-kubernetes-preserve-unknown-fields`,
//! or a kind without a known schema) are not checked. `remove` writes
//! nothing; a path it cannot find fails when it is applied (G0301).

use super::OverridePolicyRef;
use crate::diag::unknown_field;
use crate::diag::{Code, Diagnostic, Diagnostics, Origin};
use crate::model::inputs::Inputs;
use crate::model::override_policy::Operator;
use crate::node::display_path;
use crate::node::Node;
use crate::schema::{self, FaultKind, Lookup, PathFault};
use std::collections::BTreeSet;

/// Every plaintext override value against the kinds its policy applies to.
pub fn against_schemas(inputs: &Inputs, diagnostics: &mut Diagnostics) {
    let Some(catalog) = inputs.catalog.as_deref() else {
        return;
    };
    for (index, api_version, kind) in applications(inputs) {
        let policy = &inputs.override_policies[index];
        let Lookup::Known(found) = catalog.lookup(api_version, kind) else {
            continue;
        };
        let what = format!("{kind} ({api_version})");
        for (rule, _, overriders) in policy.spec.rules() {
            let base: Vec<String> = std::iter::once("spec".to_string())
                .chain(
                    policy
                        .spec
                        .overriders_pointer(rule)
                        .split('/')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                )
                .chain(std::iter::once("plaintext".to_string()))
                .collect();
            for (i, op) in overriders.plaintext.iter().enumerate() {
                if op.operator == Operator::Remove {
                    continue;
                }
                let at = |field: &str| -> Origin {
                    let mut path: Vec<&str> = base.iter().map(String::as_str).collect();
                    let index = i.to_string();
                    path.push(&index);
                    path.push(field);
                    policy.doc.at(&path)
                };
                let check = Write {
                    catalog,
                    root: found.root,
                    what: &what,
                    place: format!("{} writes `{}` of {what}", policy.display(), op.path),
                };
                check.plaintext(op, &at, diagnostics);
            }
        }
    }
}

/// (override policy index, apiVersion, kind) for every kind each override
/// policy applies to, once.
fn applications(inputs: &Inputs) -> BTreeSet<(usize, &str, &str)> {
    let refs: Vec<OverridePolicyRef<'_>> = inputs
        .override_policies
        .iter()
        .map(OverridePolicyRef::from)
        .collect();
    let mut pairs = BTreeSet::new();
    for template in &inputs.templates {
        for policy in super::applicable(&refs, &template.view()) {
            if let Some(index) = refs.iter().position(|r| std::ptr::eq(r, policy)) {
                pairs.insert((
                    index,
                    template.key.api_version.as_str(),
                    template.key.kind.as_str(),
                ));
            }
        }
    }
    pairs
}

/// One plaintext write checked against one kind.
struct Write<'a> {
    catalog: &'a schema::Catalog,
    root: schema::SchemaId,
    /// `Deployment (apps/v1)`.
    what: &'a str,
    /// `OverridePolicy/ns/name writes `/path` of Deployment (apps/v1)`.
    place: String,
}

impl Write<'_> {
    /// The path must lead into the kind, and the value fit what it leads to;
    /// `at` places a fault at the operation's `path` or `value`.
    fn plaintext(
        &self,
        op: &crate::model::override_policy::PlaintextOverrider,
        at: &dyn Fn(&str) -> Origin,
        diagnostics: &mut Diagnostics,
    ) {
        let field = match schema::resolve(self.catalog.schemas(), self.root, &op.path) {
            Ok(Some(field)) => field,
            Ok(None) => return,
            Err(PathFault::UnknownField { field, known }) => {
                let known: Vec<&str> = known.iter().map(String::as_str).collect();
                let parent: Vec<String> = op
                    .path
                    .split('/')
                    .skip(1)
                    .take_while(|s| *s != field)
                    .map(str::to_string)
                    .collect();
                let diagnostic = unknown_field(self.what, &parent, &field, &known);
                diagnostics.push(Diagnostic {
                    message: format!("{}: {}", self.place, diagnostic.message),
                    ..diagnostic.at(at("path"))
                });
                return;
            }
            Err(PathFault::NotAContainer { at: below, types }) => {
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidField,
                        format!(
                            "{}: `{below}` is {types}, which has no fields or items",
                            self.place
                        ),
                    )
                    .at(at("path"))
                    .help("fix the path; it must lead to a field of the object"),
                );
                return;
            }
        };
        let Some(value) = &op.value else { return };
        let origin = at("value");
        let node = Node::from_value(value, origin.pos);
        for fault in schema::validate(self.catalog.schemas(), field, &node) {
            diagnostics.push(self.value_fault(fault).at(origin));
        }
    }

    /// A fault of the written value, in the override's words.
    fn value_fault(&self, fault: schema::Fault) -> Diagnostic {
        match fault.kind {
            FaultKind::UnknownField { field, known } => {
                let known: Vec<&str> = known.iter().map(String::as_str).collect();
                let inner = unknown_field(self.what, &fault.path, &field, &known);
                Diagnostic {
                    message: format!("{}: {}", self.place, inner.message),
                    ..inner
                }
            }
            FaultKind::Invalid(message) => {
                let inner = if fault.path.is_empty() {
                    String::new()
                } else {
                    format!("`{}`: ", display_path(&fault.path))
                };
                Diagnostic::error(
                    Code::InvalidField,
                    format!(
                        "{}: the value is not valid there: {inner}{message}",
                        self.place
                    ),
                )
                .help("fix the value; the member cluster's API server would refuse the object")
            }
        }
    }
}
