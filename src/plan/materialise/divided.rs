//! Clusternet's division, written last (clusternet-semantics §4, §6 P8):
//! on each cluster a static division gave a share, the share replaces
//! `spec.replicas` after every Localization and Globalization, as the
//! priority-1000 Localization Clusternet generates there does. Where no
//! division was made (Replication, weights that sum to zero), the user's
//! overrides have the last word, as in Clusternet.

use super::{Made, Materialiser, Target};
use crate::diag::Diagnostic;
use serde_json::Value;

pub(super) fn step(
    _: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    if !target.app.localizing.divided.contains(&target.cluster.name) {
        return Ok(());
    }
    if let Some(spec) = made.value.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert("replicas".into(), Value::from(target.replicas));
    }
    Ok(())
}
