//! The last step: what garrison writes of the made object, the defaults
//! the template was stored with left out wherever a member cluster's API
//! server sets them back the same ([`crate::apiserver::slim`]). Replicas
//! the plan revised stay written, so a file shows each cluster's share.

use super::Target;
use serde_json::Value;

/// Where the plan writes a workload's replicas (and a divided Job's
/// completions) when it revises them.
const REVISED: &[&str] = &["/spec/replicas", "/spec/parallelism", "/spec/completions"];

/// `made` (the target's object after every other step) as garrison writes it.
pub(super) fn finished(target: &Target<'_>, made: &Value) -> Value {
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
    crate::apiserver::slim(made, target.stored(), &target.template.written, keep)
}
