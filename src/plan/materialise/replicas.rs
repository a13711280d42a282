//! Karmada's ReviseReplica for every workload, Divided or Duplicated (the
//! binding controller writes each cluster's scheduled replicas whatever the
//! template says), and a Divided Job's completions divided with the same
//! weights.

use super::{Made, Materialiser, Target};
use crate::diag::Diagnostic;
use crate::interpret;
use crate::schedule::divide::divide_completions;

pub(super) fn step(
    materialiser: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    let (app, key) = (target.app, &target.template.key);
    if !app.binding.revise {
        return Ok(());
    }
    materialiser
        .interpreter
        .revise_replicas(key, &mut made.value, target.replicas)
        .map_err(|e| Materialiser::fault(target, e))?;
    if !app.binding.divide_completions {
        return Ok(());
    }
    let template = &target.template.value;
    if let Some(total) = interpret::completions(&key.api_version, &key.kind, template) {
        let shares: Vec<(String, u64)> = app
            .binding
            .clusters
            .iter()
            .map(|a| (a.cluster.clone(), a.replicas))
            .collect();
        let divided = divide_completions(total, &shares);
        if let Some((_, completions)) = divided.iter().find(|(c, _)| c == &target.cluster.name) {
            interpret::revise_completions(&mut made.value, *completions);
        }
    }
    Ok(())
}
