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
use crate::diag::{Code, Diagnostic, Diagnostics, Origin};
use crate::load::classify::unknown_field;
use crate::load::typed::display_path;
use crate::model::inputs::{Inputs, OverridePolicy};
use crate::model::override_policy::Operator;
use crate::node::Node;
use crate::schema::{self, FaultKind, Lookup, PathFault};
use std::collections::BTreeSet;

/// Every plaintext override value against the kinds its policy applies to.
pub fn against_schemas(inputs: &Inputs, diagnostics: &mut Diagnostics) {
    let Some(catalog) = inputs.catalog.as_deref() else {
        return;
    };
    let refs: Vec<OverridePolicyRef<'_>> = inputs
        .override_policies
        .iter()
        .map(OverridePolicy::as_ref)
        .collect();
    // (policy index, apiVersion, kind) for every kind each policy applies to.
    let mut pairs: BTreeSet<(usize, &str, &str)> = BTreeSet::new();
    for template in &inputs.templates {
        for policy in super::applicable(&refs, &template.view()) {
            if let Some(index) = refs.iter().position(|r| std::ptr::eq(r, policy)) {
                pairs.insert((index, &template.key.api_version, &template.key.kind));
            }
        }
    }
    for (index, api_version, kind) in pairs {
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
                let place = format!("{} writes `{}` of {what}", policy.display(), op.path);
                let field = match schema::resolve(catalog.schemas(), found.root, &op.path) {
                    Ok(Some(field)) => field,
                    Ok(None) => continue,
                    Err(PathFault::UnknownField { field, known }) => {
                        let known: Vec<&str> = known.iter().map(String::as_str).collect();
                        let parent: Vec<String> = op
                            .path
                            .split('/')
                            .skip(1)
                            .take_while(|s| *s != field)
                            .map(str::to_string)
                            .collect();
                        let diagnostic = unknown_field(&what, &parent, &field, &known);
                        diagnostics.push(Diagnostic {
                            message: format!("{place}: {}", diagnostic.message),
                            ..diagnostic.at(at("path"))
                        });
                        continue;
                    }
                    Err(PathFault::NotAContainer { at: below, types }) => {
                        diagnostics.push(
                            Diagnostic::error(
                                Code::InvalidField,
                                format!(
                                    "{place}: `{below}` is {types}, which has no fields or items"
                                ),
                            )
                            .at(at("path"))
                            .help("fix the path; it must lead to a field of the object"),
                        );
                        continue;
                    }
                };
                let Some(value) = &op.value else { continue };
                let origin = at("value");
                let node = Node::from_value(value, origin.pos);
                for fault in schema::validate(catalog.schemas(), field, &node) {
                    let diagnostic = match fault.kind {
                        FaultKind::UnknownField { field, known } => {
                            let known: Vec<&str> = known.iter().map(String::as_str).collect();
                            let inner = unknown_field(&what, &fault.path, &field, &known);
                            Diagnostic {
                                message: format!("{place}: {}", inner.message),
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
                                format!("{place}: the value is not valid there: {inner}{message}"),
                            )
                            .help("fix the value; the member cluster's API server would refuse the object")
                        }
                    };
                    diagnostics.push(diagnostic.at(origin));
                }
            }
        }
    }
}
