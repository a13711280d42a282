//! What Lua scripts returned, checked like a template (SPEC §10): a script
//! that writes a field the kind does not have, or a value it does not
//! allow, fails like a script that raises an error.

use super::{Made, Materialiser, Target};
use crate::diag::Diagnostic;
use crate::node::{display_path, Node, Pos};
use crate::schema::{self, FaultKind, Lookup};

pub(super) fn step(
    materialiser: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    let key = &target.template.key;
    if !materialiser.interpreter.revises(key) {
        return Ok(());
    }
    let Some(catalog) = materialiser.inputs.catalog.as_deref() else {
        return Ok(());
    };
    let Lookup::Known(kind) = catalog.lookup(&key.api_version, &key.kind) else {
        return Ok(());
    };
    let node = Node::from_value(&made.value, Pos::default());
    let Some(fault) = schema::validate_object(catalog.schemas(), kind.root, &node)
        .into_iter()
        .next()
    else {
        return Ok(());
    };
    let path = display_path(&fault.path);
    let why = match fault.kind {
        FaultKind::UnknownField { field, .. } if path.is_empty() => {
            format!("it returned an object with the unknown field `{field}`")
        }
        FaultKind::UnknownField { field, .. } => {
            format!("it returned an object with the unknown field `{field}` in `{path}`")
        }
        FaultKind::Invalid(message) => {
            format!("it returned an invalid object: `{path}`: {message}")
        }
    };
    match materialiser.interpreter.revised_object_error(key, why) {
        Some(error) => Err(Materialiser::fault(target, error)),
        None => Ok(()),
    }
}
