//! The last step: what garrison writes of the made object, the defaults
//! the template was stored with left out wherever a member cluster's API
//! server sets them back the same ([`crate::apiserver::slim`]). Replicas
//! the plan revised stay written, so a file shows each cluster's share.

use super::{Made, Materialiser, Target};
use crate::diag::Diagnostic;

/// Where the plan writes a workload's replicas (and a divided Job's
/// completions) when it revises them.
const REVISED: &[&str] = &["/spec/replicas", "/spec/parallelism", "/spec/completions"];

pub(super) fn step(
    _: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    // Clusternet's hub writes the replicas of every kind it divides into
    // the feed it stores, divided or not.
    let key = &target.template.key;
    let divisible = target.app.clusternet()
        && crate::schedule::clusternet::divisible(&key.api_version, &key.kind);
    let keep = if target.app.binding.revise || divisible {
        REVISED
    } else {
        &[]
    };
    made.value =
        crate::apiserver::slim(&made.value, target.stored(), &target.template.written, keep);
    Ok(())
}
