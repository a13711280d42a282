//! The override policies that select the object, in Karmada's order (the
//! cluster-scoped ones that select it as it enters, then the namespaced ones
//! that select it as those left it), seeing the cluster with garrison's
//! per-application facts ([`super::cluster_labels`]).

use super::{cluster_labels, Made, Materialiser, Target};
use crate::diag::{Code, Diagnostic};
use crate::overrides::{self, OverrideError};

pub(super) fn step(
    materialiser: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    let labels = cluster_labels(target.cluster, target.app);
    let view = target.cluster.view(&labels);
    let candidates: Vec<_> = materialiser
        .overrides_of(target.app)
        .into_iter()
        .copied()
        .collect();
    made.applied = overrides::apply_staged(&mut made.value, &candidates, &view)
        .map_err(|error| refused(materialiser, target, &error))?;
    Ok(())
}

/// G0301 at the rule that cannot be applied.
fn refused(
    materialiser: &Materialiser<'_>,
    target: &Target<'_>,
    error: &OverrideError,
) -> Diagnostic {
    let policy = materialiser
        .inputs
        .override_policies
        .iter()
        .find(|p| p.name == error.policy_name && p.namespace == error.policy_namespace);
    let segments: Vec<&str> = error
        .path_in_spec
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    Diagnostic::error(
        Code::OverrideFailed,
        format!(
            "{} rule {} cannot be applied to `{}` for cluster `{}`: {}",
            policy.map_or_else(|| error.policy_name.clone(), |p| p.display()),
            error.rule,
            target.template.key,
            target.cluster.name,
            error.fault
        ),
    )
    .at_opt(policy.map(|p| p.doc.at(&segments)))
    .help("fix the path or operator; `replace` and `remove` need an existing path, `add` an existing parent")
}
